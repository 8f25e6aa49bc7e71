"""The student bundle: everything a student downloads, works in, and checks their work with.

``python -m autograder release NAME --out DIR`` writes::

    DIR/<starter files>        the stubs and the given code (exactly assignment/NAME)
    DIR/NAME.ipynb             the handout as a notebook, with a cell for every written answer
    DIR/written.md             the same questions as a Markdown answer sheet
    DIR/requirements.txt       the pinned packages the self-check needs (per Python, by markers)
    DIR/requirements-notebook.txt  those and Jupyter's notebook, to open the handout in a browser
    DIR/README.md              for the student: set up, read the handout, check, train, submit
    DIR/data/FOLDER/           the data run.py trains on, with its licence (:mod:`autograder.course.dataset`)
    DIR/autograder/            the framework, without other assignments and without hidden tests,
                               plus the public tests' expected values, recorded from the reference

so that ``python -m autograder check NAME`` runs the public tests in DIR exactly as Gradescope
does, with no reference solution present. Before anything is written, the public tests are run
on the reference and must all pass; after, the bundle is searched for anything of solutions/ or
the hidden tests, and for the answer of any written question that tests grade (in any spelling:
:mod:`autograder.written.giveaway`), and refused if something is found.
"""

from __future__ import annotations

import ast
import re
import shutil
from pathlib import Path

from autograder.core.config import PACKAGE_ROOT, STAFF_ONLY_FILES, Assignment, ConfigError, Dataset
from autograder.course.dataset import copy_dataset, find_dataset
from autograder.course.dependencies import notebook_requirements, requirements
from autograder.course.starter import BEGIN, END, ReleaseError, release
from autograder.course.templates import fill
from autograder.grading.expected import LiveReference, RecordingReference, load_fixtures
from autograder.grading.grade import check_ready, grade, module_names
from autograder.grading.reference import load_reference
from autograder.grading.runner import collect_tests
from autograder.handout.handouts import build
from autograder.written.giveaway import answer_finders, readable_text

_SKIPPED = shutil.ignore_patterns("__pycache__", "*.pyc")


def _framework_filter(assignment: Assignment):
    def ignore(folder: str, names: list[str]) -> set[str]:
        skipped = set(_SKIPPED(folder, names))
        here = Path(folder)
        if here == PACKAGE_ROOT / "assignments":
            skipped |= {n for n in names if (here / n).is_dir() and n != assignment.name}
        if here == PACKAGE_ROOT / "assignments" / assignment.name:
            skipped |= STAFF_ONLY_FILES
        if here == PACKAGE_ROOT / "course":  # the templates of the bundle, the zip and `new`: filled in where they go
            skipped |= {"bundle_files", "gradescope_files", "new_files"}
        return skipped

    return ignore


def record_expected_values(assignment: Assignment, path: Path) -> None:
    """Run the public tests on the reference, keeping every expected value they ask for."""
    fixtures = load_fixtures(assignment)
    live = LiveReference(load_reference(assignment.solution_dir, module_names(assignment.config)), fixtures)
    recorder = RecordingReference(live, assignment.name)
    results = grade(assignment, assignment.solution_dir, include_hidden=False, expected=recorder)
    failed = [
        f"{t.number} {t.name}: {t.output.splitlines()[0] if t.output else ''}"
        for t in results.tests
        if t.status == "failed"
    ]
    if failed:
        raise ReleaseError(
            "the public tests do not all pass on the reference, so their expected values "
            "cannot be recorded (a public test must take them from self.expect, not "
            "self.ref):\n  " + "\n  ".join(failed)
        )
    recorder.weights = {t.key: t.weight for tests in collect_tests(assignment).values() for t in tests if not t.hidden}
    recorder.save(path)


def write_bundle(
    assignment: Assignment, out: Path, *, force: bool = False, data: Path | None = None, with_data: bool = True
) -> list[Path]:
    """Write the student bundle of ``assignment`` into ``out``; returns the files written. ``data``:
    the folder of the config's dataset (default: found as :func:`autograder.course.dataset.find_dataset`
    says); ``with_data=False`` leaves it out, and the README tells students where to get it."""
    out = Path(out).resolve()
    if out == assignment.starter_dir.resolve():
        raise ReleaseError(f"{out} holds the committed starter files only; write it with --starter-only")
    check_ready(assignment)  # before anything is written, as the dataset below
    dataset = assignment.config.dataset if with_data else None
    source = find_dataset(dataset, data) if dataset else None
    handout_files = build(assignment)
    written = release(assignment, out, force=force)
    framework = out / "autograder"
    shutil.copytree(PACKAGE_ROOT, framework, ignore=_framework_filter(assignment))
    record_expected_values(assignment, out / assignment.recording.relative_to(assignment.root))
    extra = {
        out / f"{assignment.name}.ipynb": handout_files[_handout(assignment, f"{assignment.name}.ipynb")],
        out / "written.md": handout_files[_handout(assignment, f"{assignment.name}_answers.md")],
        out / "requirements.txt": requirements().encode(),
        out / "requirements-notebook.txt": notebook_requirements().encode(),
        out / "README.md": student_readme(assignment, shipped=source is not None).encode(),
    }
    for path, content in extra.items():
        path.write_bytes(content)
    shipped = copy_dataset(dataset, source, out) if dataset and source else []
    files = written + list(extra) + shipped + sorted(p for p in framework.rglob("*") if p.is_file())
    found = leaks(assignment, out)
    if found:
        shutil.rmtree(out)
        raise ReleaseError(
            "the bundle would contain parts of the reference, the hidden tests or the "
            "answers of written questions, so it was removed:\n  " + "\n  ".join(found[:20])
        )
    return files


def student_readme(assignment: Assignment, *, shipped: bool) -> str:
    """The bundle's README.md, from the template in bundle_files/ (filled for this assignment)."""
    config, templates = assignment.config, Path(__file__).resolve().parent / "bundle_files"
    trains = (assignment.solution_dir / "run.py").is_file()  # a section on training only where there is one
    given = ", ".join(
        f"`{name}{'/' if (assignment.solution_dir / name).is_dir() else ''}`" for name in config.support_files
    )
    values = {
        "NAME": assignment.name,
        "TITLE": config.title,
        "FIRST": config.submission_files[0],
        "FILES": ", ".join(f"`{name}`" for name in config.submission_files),
        "GIVEN": f"{given} holds code we give you, and " if given else "",
        "TRAIN": fill(templates / "train.md", {"DATA": _where_the_data_is(config.dataset, shipped)}) if trains else "",
        "SUBMIT": "6" if trains else "5",
    }
    return fill(templates / "README.md", values)


def _where_the_data_is(dataset: Dataset | None, shipped: bool) -> str:
    if dataset is None:
        return "run.py needs no data beyond what is in this folder."
    if shipped:
        return (
            f"run.py trains on {dataset.title}, which is in `data/{dataset.folder}/` ({dataset.licence}; "
            "`SOURCE.md` there says where it comes from); it finds it there by itself."
        )
    return (
        f"run.py trains on {dataset.title}. Download {', '.join(dataset.files)} from "
        f"{dataset.source} into `data/{dataset.folder}/` beside run.py (or pass `--data FOLDER`)."
    )


def _handout(assignment: Assignment, name: str) -> Path:
    return assignment.root / "handouts" / name


# ---------------------------------------------------------------------------- leak check


def _public_lines(assignment: Assignment) -> set[str]:
    """Lines the repository publishes anyway: the starter's and the framework's, hidden tests aside."""
    sources = [p for p in assignment.starter_dir.rglob("*.py")]
    sources += [p for p in PACKAGE_ROOT.rglob("*.py") if p.name not in STAFF_ONLY_FILES]
    return {line.split("#", 1)[0].strip() for path in sources for line in path.read_text().splitlines()}


def _solution_lines(assignment: Assignment) -> set[str]:
    """Distinctive lines of the reference's solution blocks that nothing public contains."""
    lines: set[str] = set()
    for path in assignment.solution_dir.rglob("*.py"):
        inside = False
        for line in path.read_text().splitlines():
            if BEGIN.match(line) or END.match(line):
                inside = bool(BEGIN.match(line))
                continue
            code = line.split("#", 1)[0].strip()
            if inside and len(code) >= 20:
                lines.add(code)
    return lines - _public_lines(assignment)


def _hidden_test_names(assignment: Assignment) -> set[str]:
    """Names of the hidden test methods and classes that the public tests do not also use."""
    folder = PACKAGE_ROOT / "assignments" / assignment.name
    public = set().union(*(_defined_names(p) for p in folder.glob("*.py") if p.name not in STAFF_ONLY_FILES))
    return {n for n in _defined_names(folder / "hidden_tests.py") - public if len(n) > 8}


def _defined_names(path: Path) -> set[str]:
    return {
        node.name for node in ast.walk(ast.parse(path.read_text())) if isinstance(node, (ast.FunctionDef, ast.ClassDef))
    }


def _reference_answer_lines(assignment: Assignment) -> set[str]:
    path = assignment.root / "solutions" / "written" / f"{assignment.name}.md"
    if not path.is_file():
        return set()
    handout = _handout(assignment, f"{assignment.name}.md")
    known = set(handout.read_text().splitlines()) if handout.is_file() else set()
    return {
        line.strip()
        for line in path.read_text().splitlines()
        if len(line.strip()) >= 30 and line not in known and not line.startswith("#")
    }


def leaks(assignment: Assignment, bundle: Path) -> list[str]:
    """Everything in ``bundle`` that comes from solutions/ or the hidden tests, or that answers a
    written question graded by tests: "file: what"."""
    if not assignment.solution_dir.is_dir():
        raise ConfigError("the leak check needs the reference solution (solutions/); run it in the repository")
    code, hidden, answers = (
        _solution_lines(assignment),
        _hidden_test_names(assignment),
        _reference_answer_lines(assignment),
    )
    finders = answer_finders(assignment)
    dataset = assignment.config.dataset
    found = []
    for path in sorted(p for p in bundle.rglob("*") if p.is_file()):
        relative = path.relative_to(bundle).as_posix()
        if dataset and relative.startswith(f"data/{dataset.folder}/"):
            continue  # the public dataset, copied as it is: megabytes that hold nothing of ours
        if "solutions" in path.parts or path.name in STAFF_ONLY_FILES:
            found.append(f"{relative}: a file of solutions/, the hidden tests or the reference formulas")
            continue
        try:
            text = path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue
        lines = {line.strip() for line in text.splitlines()}
        found += [
            f"{relative}: solution line {line!r}"
            for line in sorted(code & {line.split("#", 1)[0].strip() for line in lines})
        ]
        found += [f"{relative}: reference answer line {line[:50]!r}..." for line in sorted(answers & lines)]
        words = set(re.findall(r"[A-Za-z_][A-Za-z0-9_]*", text))
        found += [f"{relative}: hidden test name {name!r}" for name in sorted(hidden & words)]
        readable = readable_text(path) or text
        found += [
            f"{relative}: the answer of written question {question}, {what}"
            for question, find in finders.items()
            for what in find(readable)
        ]
    return found
