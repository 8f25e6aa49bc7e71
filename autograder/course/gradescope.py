"""``python -m autograder gradescope``: what ``run_autograder`` runs for each submission.

The layout below ROOT (``/autograder`` on Gradescope, a temporary folder in the tests)::

    source/                   the zip: framework, reference, hidden tests   root only
    venv/                     the environment setup.sh made                 everyone may read
    submission/               the student's files                           root only
    submission_metadata.json  names and emails of the submitters            root only
    results/results.json      what Gradescope reads                         root only

Before grading: whatever ``results.json`` was left is removed, the private parts are made private
(when root), and the protections in force are printed. Then the submission is graded and
``results.json`` is written, also when grading fails (every question at 0, with the reason). What
this prints is ``run_autograder``'s output, which Gradescope shows to instructors, not to students.
"""

from __future__ import annotations

import os
import shutil
import sys
import time
import traceback
from dataclasses import dataclass
from pathlib import Path

from autograder.boundary.isolation import NeedsLinux, detect_isolation, require_linux_worker
from autograder.core.config import ConfigError, load_assignment
from autograder.core.results import GradescopeResults, write_results
from autograder.course.report import print_table
from autograder.grading.grade import fallback_results, grade_or_fallback, stopped_results, summarize

DEFAULT_ROOT = "/autograder"


@dataclass(frozen=True)
class Layout:
    root: Path

    @property
    def source(self) -> Path:
        return self.root / "source"

    @property
    def submission(self) -> Path:
        return self.root / "submission"

    @property
    def metadata(self) -> Path:
        return self.root / "submission_metadata.json"

    @property
    def results_dir(self) -> Path:
        return self.root / "results"

    @property
    def results(self) -> Path:
        return self.results_dir / "results.json"


def default_root() -> Path:
    return Path(os.environ.get("AUTOGRADER_ROOT", DEFAULT_ROOT))


def clear(path: Path) -> None:
    """Remove whatever is at ``path`` (a file, a link, a folder): only the grader's file may be read."""
    if path.is_symlink() or path.is_file():
        path.unlink()
    elif path.is_dir():
        shutil.rmtree(path)


def harden(layout: Layout) -> list[str]:
    """Make the private parts readable by root only; one report line on what was done."""
    if os.geteuid() != 0:
        return [
            "off: private files: not running as root, so the student's code can read the "
            "reference, the hidden tests and the submitters' names"
        ]
    layout.results_dir.mkdir(exist_ok=True)
    os.chmod(layout.root, 0o711)  # others may pass through to the venv, not list what is here
    for folder in (layout.source, layout.submission, layout.results_dir):
        if folder.exists():
            os.chown(folder, 0, 0, follow_symlinks=False)
            os.chmod(folder, 0o700)
    if layout.metadata.exists():
        os.chown(layout.metadata, 0, 0, follow_symlinks=False)
        os.chmod(layout.metadata, 0o600)
    return [
        "on:  private files: source/ (framework, reference, hidden tests), submission/, "
        "results/ and submission_metadata.json are readable by root only"
    ]


def run(assignment_name: str, root: Path) -> int:
    """Grade ROOT/submission into ROOT/results/results.json; 0 when grading completed."""
    layout = Layout(Path(root).absolute())
    started = time.monotonic()
    clear(layout.results)
    try:
        assignment = load_assignment(assignment_name)
    except ConfigError as exc:  # nothing to list questions from; Gradescope still gets an answer
        write_results(
            GradescopeResults(
                score=0.0,
                execution_time=0.0,
                tests=[],
                output="The autograder is not set up correctly; please tell the course staff.",
            ),
            layout.results,
        )
        print(f"error: {exc}", file=sys.stderr)
        return 2
    crash = None
    try:
        require_linux_worker("gradescope")  # before hardening, which is Linux's too
        report = harden(layout)
        isolation = detect_isolation()
        print("Protections for this run (this output is for the staff; students do not see it):")
        for line in report + isolation.report(assignment.config.limits):
            print(f"  {line}")
        results, crash = grade_or_fallback(assignment, layout.submission, isolation=isolation)
    except KeyboardInterrupt as stop:  # SIGTERM or Ctrl-C: the workers are gone, Gradescope still gets results
        results = stopped_results(assignment.config, stop, time.monotonic() - started)
        crash = results.output
    except NeedsLinux as exc:  # results that say so, and the reason without a traceback
        results = fallback_results(assignment.config, str(exc), time.monotonic() - started)
        crash = f"error: {exc}"
    except Exception as exc:  # hardening or the probe failed: still write results that say so
        results = fallback_results(assignment.config, f"{type(exc).__name__}: {exc}", time.monotonic() - started)
        crash = traceback.format_exc()
    if crash:
        print(crash, file=sys.stderr)
    write_results(results, layout.results)
    print_table(
        f"{assignment.config.title}: {layout.submission}", summarize(assignment.config, results), results, verbose=True
    )
    print(f"results written to {layout.results}")
    return 1 if crash else 0
