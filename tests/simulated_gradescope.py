"""A Gradescope autograder layout in a temporary ROOT, built and run the way Gradescope does it.

The zip made by ``python -m autograder build`` is unpacked into ROOT/source and installed by its
own ``setup.sh``; ``run_autograder`` (copied to ROOT, as Gradescope does) grades ROOT/submission.
Installing a second assignment puts the first one's source aside and runs the second zip's
``setup.sh``, which finds the venv in place (the requirements are the same), so the session pays
for one full install; switching back later only swaps the folders. A session started by another
(tests/test_new_assignment.py runs the framework's tests in a copy of the checkout) does not pay
even that one: it starts from the other's venv (``SEED_VENV``).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from autograder.core.config import load_assignment
from autograder.course.gradescope import Layout
from autograder.core.results import GradescopeResults

# A venv installed by an earlier ``setup.sh`` from the same pins: the first install starts from a copy
# of it made of hard links (instead of installing every pin again, about 15 s), and setup.sh finds it
# in place as when a second assignment is installed. Only the session that started this one sets it.
SEED_VENV = "AUTOGRADER_TEST_SEED_VENV"

METADATA = {"id": 1, "users": [{"email": "student@example.edu", "name": "A Student", "sid": "1"}]}


class SimulatedGradescope:
    def __init__(self, repo: Path) -> None:
        self.repo = repo
        # Not below pytest's temporary folders: those are private, and the worker's user must be
        # able to reach ROOT/venv, as on Gradescope.
        self.layout = Layout(Path(tempfile.mkdtemp(prefix="ag-gradescope-", dir="/tmp")))
        os.chmod(self.layout.root, 0o755)
        self.installed: str | None = None

    @property
    def root(self) -> Path:
        return self.layout.root

    @property
    def python(self) -> str:
        return str(self.root / "venv" / "bin" / "python")

    def build(self, assignment: str) -> Path:
        out = self.root.parent / f"{self.root.name}-{assignment}.zip"
        subprocess.run([sys.executable, "-m", "autograder", "build", assignment,
                        "--out", str(out)], cwd=self.repo, check=True, capture_output=True, timeout=120)
        return out

    def _aside(self, assignment: str) -> Path:
        return self.root / f".source-{assignment}"  # private to root, like source/

    def install(self, assignment: str) -> None:
        """Make ``assignment``'s zip the one in ROOT/source, unpacked and set up by its setup.sh."""
        if self.installed == assignment:
            return
        if self.installed is not None:
            self.layout.source.rename(self._aside(self.installed))
            os.chmod(self._aside(self.installed), 0o700)
        if self._aside(assignment).exists():
            self._aside(assignment).rename(self.layout.source)
        else:
            archive = self.build(assignment)
            subprocess.run(["unzip", "-q", str(archive), "-d", str(self.layout.source)], check=True,
                           timeout=60)
            archive.unlink()
            seed, venv = os.environ.get(SEED_VENV), self.root / "venv"
            if seed and not venv.exists():
                shutil.copytree(seed, venv, symlinks=True, copy_function=os.link)
            # This machine is not Gradescope's image: its Python installs the image's pins.
            setup = subprocess.run(["bash", str(self.layout.source / "setup.sh")], capture_output=True,
                                   text=True, timeout=900, env={**os.environ, "AUTOGRADER_ANY_PYTHON": "1"})
            assert setup.returncode == 0, setup.stdout + setup.stderr
        shutil.copy2(self.layout.source / "run_autograder", self.root / "run_autograder")
        self.installed = assignment

    def grade(self, assignment: str, submission: Path, *, plant: dict[str, str] | None = None,
              metadata: dict | None = None, symlinks: bool = False) -> tuple[GradescopeResults, str]:
        """Run ROOT/run_autograder on ``submission``; ``plant``: files to leave in ROOT/results first;
        ``symlinks``: copy the submission's links as links. Returns results.json and the output."""
        self.install(assignment)
        shutil.rmtree(self.layout.submission, ignore_errors=True)
        shutil.copytree(submission, self.layout.submission, symlinks=symlinks,
                        ignore=shutil.ignore_patterns("__pycache__"))
        self.layout.metadata.write_text(json.dumps(metadata or METADATA))
        self.layout.results_dir.mkdir(exist_ok=True)
        for name, text in (plant or {}).items():
            (self.layout.results_dir / name).write_text(text)
        config = load_assignment(assignment).config
        budget = sum(q.time_limit for q in config.questions) + config.limits.import_time_limit
        run = subprocess.run(["bash", str(self.root / "run_autograder")], capture_output=True, text=True,
                             timeout=budget + 120, env={k: v for k, v in os.environ.items()
                                                        if k != "AUTOGRADER_ROOT"})
        assert run.returncode == 0, run.stdout + run.stderr
        return GradescopeResults.model_validate_json(self.layout.results.read_text()), run.stdout

    def remove(self) -> None:
        """Delete ROOT in the background: thousands of files in the venv take a while."""
        subprocess.run(["sh", "-c", 'rm -rf -- "$0" &', str(self.root)], check=True)
