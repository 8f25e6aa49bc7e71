"""The documentation (README.md and docs/*.md) says only what is true: every command it shows is run.

Each ```bash block carries a marker on the line just before it that says what runs it:

    <!-- test: run -->                 run here, from a folder laid out like the checkout (below)
    <!-- test: run in PATH -->         the same, from PATH inside that folder (a student's folder)
    <!-- test: ci -->                  every command is a line of .ci/run (the long runs: the whole
                                       suite, real data, the package index, other Pythons)
    <!-- test: gradescope-simulation -->   a recipe that tests/test_build_private.py runs in order
    <!-- test: tests/FILE.py::NAME -->  the test that runs it (it must exist and name the command's
                                       script, subcommand and options)

A marker may list one entry per command, separated by ";". A block marked ``run`` may be followed by
a ```text block marked ``<!-- output of the block above -->``: what it prints must contain that text,
whitespace and times aside ("..." stands for lines left out). Placeholders (SUBMISSION_DIR,
EXPORT_DIR, EXPORT.zip, ANSWERS) become the fixtures below. Besides, every ``python -m autograder``
command anywhere in the docs, in a block or inline, names a command and options that exist, every
link stays inside the repository and leads somewhere, and every path of the repository named in
backticks exists.
"""

from __future__ import annotations

import ast
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import zipfile
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import pytest

from tests.fixtures.word2vec_bugs import BUGS

REPO = Path(__file__).resolve().parents[1]
DOCS = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]
CI = REPO / ".ci" / "run"
README_LINES = 150
# Recipes that a test of their own runs block by block: marker -> (file of the test, the test, the doc).
RECIPES = {
    "gradescope-simulation": (
        "tests/test_build_private.py",
        "test_the_ta_guide_recipe_grades_the_reference_and_keeps_the_zip_and_source_private",
        "docs/ta-guide.md",
    )
}
OUTPUT_MARKER = "<!-- output of the block above -->"
LANGUAGES = {"bash", "text", "markdown", "python"}
EXAMPLE = re.compile(r"<!-- example: (\S+) -->")  # the file a ```python block is taken from
BUG = "naive softmax forgets to subtract the one-hot y"  # the submission the docs' feedback shows


# ------------------------------------------------------------------------------------------ reading


@dataclass(frozen=True)
class Block:
    doc: Path
    line: int  # of the opening fence, from 1
    language: str
    body: str
    marker: str | None  # the line just before the fence

    @property
    def where(self) -> str:
        return f"{self.doc.relative_to(REPO)}:{self.line}"

    @property
    def runners(self) -> list[str]:
        """The marker's entries, a trailing "(comment)" left out."""
        found = re.fullmatch(r"<!-- test: (.*?) -->", self.marker or "")
        if not found:
            return []
        return [re.sub(r"\s*\(.*\)$", "", entry).strip() for entry in found[1].split(";")]


def blocks(doc: Path) -> list[Block]:
    lines = doc.read_text(encoding="utf-8").splitlines()
    found, index = [], 0
    while index < len(lines):
        opening = re.fullmatch(r"( *)```(.*)", lines[index])
        if not opening:
            index += 1
            continue
        indent, language = opening[1], opening[2].strip()
        end = next(i for i in range(index + 1, len(lines)) if lines[i].rstrip() == indent + "```")
        body = "\n".join(line[len(indent) :] for line in lines[index + 1 : end]) + "\n"
        marker = lines[index - 1].strip() if index else None
        found.append(Block(doc, index + 1, language, body, marker or None))
        index = end + 1
    return found


def prose(doc: Path) -> str:
    """The text outside fenced blocks."""
    return re.sub(r"^( *)```.*?^\1```$", "", doc.read_text(encoding="utf-8"), flags=re.M | re.S)


def all_blocks() -> list[Block]:
    return [block for doc in DOCS for block in blocks(doc)]


def bash_blocks() -> list[Block]:
    return [block for block in all_blocks() if block.language == "bash"]


def without_comment(line: str) -> str:
    """A shell line without its trailing comment (a # after a blank, outside quotes)."""
    quote = None
    for i, char in enumerate(line):
        if quote:
            quote = None if char == quote else quote
        elif char in "'\"":
            quote = char
        elif char == "#" and (i == 0 or line[i - 1].isspace()):
            return line[:i].rstrip()
    return line.rstrip()


def commands(text: str) -> list[str]:
    """The commands of a shell block, one per line, comments and blank lines left out."""
    joined = re.sub(r"\\\n\s*", " ", text)
    return [c for c in (without_comment(line).strip() for line in joined.splitlines()) if c]


def output_blocks() -> list[tuple[Block, Block]]:
    """(the block run, the output it must print) for every output block."""
    pairs = []
    for doc in DOCS:
        found = blocks(doc)
        for index, block in enumerate(found):
            if block.marker == OUTPUT_MARKER:
                ran = next((b for b in reversed(found[:index]) if b.language == "bash"), None)
                pairs.append((ran, block))
    return pairs


# ------------------------------------------------------------------------------------ every block


def test_the_readme_fits_on_two_screens():
    lines = len((REPO / "README.md").read_text(encoding="utf-8").splitlines())
    assert lines < README_LINES, f"README.md has {lines} lines; move detail into docs/"


def test_every_block_says_what_it_holds_and_every_bash_block_what_runs_it():
    problems = []
    for block in all_blocks():
        if block.language not in LANGUAGES:
            problems.append(f"{block.where}: a ```{block.language} block; use one of {sorted(LANGUAGES)}")
        elif block.language == "bash" and not block.runners:
            problems.append(f"{block.where}: a bash block without '<!-- test: ... -->' on the line before it")
    assert problems == []


def test_every_code_example_is_taken_from_the_file_it_names():
    """A ```python block is an excerpt of a real file, named on the line before it: its lines appear
    there, one after the other (indentation aside), so the example cannot drift from the code."""
    problems = []
    for block in all_blocks():
        if block.language != "python":
            continue
        found = EXAMPLE.fullmatch(block.marker or "")
        if not found or not (REPO / found[1]).is_file():
            problems.append(f"{block.where}: a python block needs '<!-- example: PATH -->' naming a file before it")
            continue
        source = [line.strip() for line in (REPO / found[1]).read_text(encoding="utf-8").splitlines()]
        excerpt = [line.strip() for line in block.body.splitlines()]
        if not any(source[i : i + len(excerpt)] == excerpt for i in range(len(source))):
            problems.append(f"{block.where}: not an excerpt of {found[1]} (changed there?)")
    assert problems == []


def _test_exists(reference: str) -> str | None:
    """Why ``tests/FILE.py::NAME`` names no test, or None."""
    file, _, name = reference.partition("::")
    path = REPO / file
    if not (file.startswith("tests/") and path.is_file() and name):
        return f"{reference}: no such test file"
    functions = {
        node.name for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))) if isinstance(node, ast.FunctionDef)
    }
    return None if name in functions else f"{reference}: {file} has no function {name}"


def _distinctive_words(command: str) -> list[str]:
    """What a test that runs the command must name: the script, the subcommand, the options."""
    words = shlex.split(command)
    if "-m" in words and words[words.index("-m") + 1] == "autograder":
        words = words[words.index("-m") + 2 :]
        return [words[0]] + [w.split("=")[0] for w in words[1:] if w.startswith("-")]
    return [w.split("=")[0] for w in words if w.endswith(".py") or w.startswith("-")]


def test_every_runner_named_by_a_marker_exists_and_runs_that_command():
    problems = []
    for block in bash_blocks():
        runners, lines = block.runners, commands(block.body)
        if len(runners) not in (1, len(lines)):
            problems.append(f"{block.where}: {len(runners)} runners for {len(lines)} commands")
            continue
        for runner, command in zip(runners * len(lines) if len(runners) == 1 else runners, lines):
            if runner in ("run", "ci") or runner in RECIPES:
                continue
            if runner.startswith("run in "):
                if not (REPO / runner[len("run in ") :]).is_dir():
                    problems.append(f"{block.where}: {runner}: no such folder")
                continue
            missing = _test_exists(runner)
            if missing:
                problems.append(f"{block.where}: {missing}")
                continue
            source = (REPO / runner.partition("::")[0]).read_text(encoding="utf-8")
            unnamed = [w for w in _distinctive_words(command) if w not in source]
            if unnamed:
                problems.append(f"{block.where}: {runner} does not name {unnamed} of {command!r}")
    assert problems == []


def test_each_recipe_is_where_its_runner_reads_it():
    for marker, (file, name, doc) in RECIPES.items():
        assert _test_exists(f"{file}::{name}") is None
        assert doc in (REPO / file).read_text(encoding="utf-8"), f"{file} does not read {doc}"
        places = {b.doc.relative_to(REPO).as_posix() for b in bash_blocks() if marker in b.runners}
        assert places == {doc}, f"the blocks marked {marker} are in {sorted(places)}; {file} reads {doc}"


# ------------------------------------------------------------------------------- what CI runs


def _ci_commands() -> list[str]:
    """The commands of .ci/run, without its own plumbing (set -euo pipefail, cd to the checkout)."""
    return [c for c in commands(CI.read_text(encoding="utf-8")) if not c.startswith(("set ", "cd "))]


def _starts(command: str, longer: str) -> bool:
    """``command`` is ``longer`` or its first words (CI adds options such as --with-torch)."""
    words, more = shlex.split(command), shlex.split(longer)
    return more[: len(words)] == words


def test_commands_marked_ci_are_what_ci_runs():
    ci = _ci_commands()
    problems = [
        f"{block.where}: {command!r} is not a line of .ci/run"
        for block in bash_blocks()
        if block.runners == ["ci"]
        for command in commands(block.body)
        if not any(_starts(command, line) for line in ci)
    ]
    assert problems == []


def test_the_readme_shows_every_command_ci_runs():
    shown = [
        command for block in blocks(REPO / "README.md") if block.runners == ["ci"] for command in commands(block.body)
    ]
    missing = [line for line in _ci_commands() if not any(_starts(command, line) for command in shown)]
    assert missing == [], "README.md does not show these commands of .ci/run"


def test_what_ci_cites_of_the_readme_is_there():
    """.ci/run's comments name the README's sections (README: "Other Pythons")."""
    cited = re.findall(r'README: "([^"]+)"', CI.read_text(encoding="utf-8"))
    titles = re.findall(r"^#+ (.+)$|^\*\*([^*]+?)\.?\*\*", prose(REPO / "README.md"), flags=re.M)
    assert cited
    assert [c for c in cited if c not in {a or b for a, b in titles}] == []


# ------------------------------------------------------------------ commands of python -m autograder


@cache
def _cli() -> dict[str, list[str]]:
    """Every subcommand of ``python -m autograder`` and its options, from the parser itself."""
    script = (
        "import argparse, json\nfrom autograder.cli.main import build_parser\n"
        "parser = build_parser()\n"
        "found = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))\n"
        "print(json.dumps({name: sorted(o for a in sub._actions for o in a.option_strings)\n"
        "                  for name, sub in found.choices.items()}))\n"
    )
    run = subprocess.run([sys.executable, "-c", script], cwd=REPO, capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    return json.loads(run.stdout)


AUTOGRADER_COMMAND = re.compile(r"python3? -m autograder\s+([\w-]+)((?:[ \t]+[^\s`)'\"]+)*)")


def _autograder_commands(doc: Path) -> list[tuple[str, list[str]]]:
    """(subcommand, options) of every ``python -m autograder`` command in the doc, in blocks or not."""
    text = doc.read_text(encoding="utf-8").replace("-->", " ")  # a marker's end is no option
    return [
        (found[1], [w.split("=")[0] for w in without_comment(found[2]).split() if w.startswith("-")])
        for found in AUTOGRADER_COMMAND.finditer(text)
    ]


@pytest.mark.parametrize("doc", DOCS, ids=[d.relative_to(REPO).as_posix() for d in DOCS])
def test_every_autograder_command_shown_exists_with_its_options(doc):
    cli = _cli()
    problems = []
    for command, options in _autograder_commands(doc):
        if command.startswith("-"):  # of python -m autograder itself
            problems += [] if command in ("-h", "--help") else [f"python -m autograder {command}: no such option"]
        elif command not in cli:
            problems.append(f"python -m autograder {command}: no such command (there are {sorted(cli)})")
        else:
            problems += [f"python -m autograder {command}: no option {o}" for o in options if o not in cli[command]]
    assert problems == []


# ------------------------------------------------------------------------ links and paths named


def _slug(heading: str) -> str:
    """The anchor GitHub gives a heading."""
    text = re.sub(r"[`*_]|<[^>]+>", "", heading.strip().lower())
    return re.sub(r"[^\w\- ]", "", text).replace(" ", "-")


def _anchors(doc: Path) -> set[str]:
    return {_slug(line.lstrip("#")) for line in prose(doc).splitlines() if re.match(r"#{1,6} ", line)}


LINKED = [
    REPO / "README.md",
    *sorted((REPO / "docs").glob("*.md")),
    REPO / "SECURITY.md",
    REPO / "benchmarks" / "README.md",
    REPO / "handouts" / "README.md",
]


@pytest.mark.parametrize("doc", LINKED, ids=[d.relative_to(REPO).as_posix() for d in LINKED])
def test_links_lead_somewhere_inside_the_repository(doc):
    problems = []
    text = re.sub(r"`[^`\n]*`", "", prose(doc))  # a link shown as code is no link
    for target in re.findall(r"\]\(([^)\s]+)\)", text):
        if re.match(r"[a-z]+:", target):  # a web address; but no file of this machine
            if target.startswith("file:"):
                problems.append(f"{target}: a file of this machine; link inside the repository")
            continue
        path, _, anchor = target.partition("#")
        resolved = (doc.parent / path).resolve() if path else doc
        if not resolved.is_relative_to(REPO):
            problems.append(f"{target}: outside the repository")
        elif not resolved.exists():
            problems.append(f"{target}: no such file")
        elif anchor and resolved.suffix == ".md" and anchor not in _anchors(resolved):
            problems.append(f"{target}: {resolved.name} has no heading #{anchor}")
    assert problems == []


@pytest.mark.parametrize("doc", DOCS, ids=[d.relative_to(REPO).as_posix() for d in DOCS])
def test_no_doc_sends_the_reader_outside_the_repository(doc):
    """The design notes and research the project started from are not in the repository: what it
    needs of them is in docs/architecture.md. (Where data is looked for above the repository is a
    fact about the code, not a reference.)"""
    text = doc.read_text(encoding="utf-8")
    assert re.findall(r"DESIGN\.md|shared/research|\.\./shared|/work/", text) == []


NAMED_PATH = re.compile(r"`((?:autograder|tests|benchmarks|solutions|assignment|handouts|docs|\.ci)/[^`\s]*)`")


@pytest.mark.parametrize("doc", DOCS, ids=[d.relative_to(REPO).as_posix() for d in DOCS])
def test_every_repository_path_named_exists(doc):
    """A path in backticks (``autograder/grading/grade.py``) exists; NAME, <name> and <...> match any."""
    missing = []
    for path in sorted(set(NAMED_PATH.findall(prose(doc)))):
        pattern = re.sub(r"NAME|<[^>]*>|\.\.\.", "*", path.rstrip("/").split("::")[0])
        pattern = re.sub(r"\*[^/]*", "*", pattern)
        if not list(REPO.glob(pattern)):
            missing.append(path)
    assert missing == [], f"{doc.name} names paths that do not exist (moved?)"


def _is_module(dotted: str) -> bool:
    path = REPO.joinpath(*dotted.split("."))
    return path.with_suffix(".py").is_file() or (path / "__init__.py").is_file()


@pytest.mark.parametrize("doc", DOCS, ids=[d.relative_to(REPO).as_posix() for d in DOCS])
def test_every_module_named_exists(doc):
    """A dotted name (``autograder.course.dependencies``, ``autograder.core.submission.SubmissionError``
    in an example's output) is a module, or a name in one."""
    named = set(re.findall(r"(?<![\w-])autograder(?:\.\w+)+", doc.read_text(encoding="utf-8")))
    missing = [name for name in named if not (_is_module(name) or _is_module(name.rsplit(".", 1)[0]))]
    assert sorted(missing) == [], f"{doc.name} names modules that do not exist (moved?)"


def _python_files() -> set[str]:
    folders = ["autograder", "tests", "benchmarks", "solutions", "assignment"]
    return {p.name for folder in folders for p in (REPO / folder).rglob("*.py")}


@pytest.mark.parametrize("doc", DOCS, ids=[d.relative_to(REPO).as_posix() for d in DOCS])
def test_every_python_file_named_exists(doc):
    """A file named alone in backticks (``confine.py``) is a file of the repository."""
    named = set(re.findall(r"`(\w+\.py)`", prose(doc)))
    assert sorted(named - _python_files()) == [], f"{doc.name} names Python files that do not exist (renamed?)"


# ---------------------------------------------------------------------------- running the blocks


def _folder(runner: str) -> str | None:
    """Where a ``run`` entry runs, inside the checkout-like folder; None for other runners."""
    if runner == "run":
        return "."
    return runner[len("run in ") :] if runner.startswith("run in ") else None


def _scripts(block: Block) -> list[tuple[str, str]]:
    """(folder, script) that this file runs for the block: the whole block when its marker is one
    ``run`` entry, else each command whose entry is ``run``."""
    if len(block.runners) == 1:
        folder = _folder(block.runners[0])
        return [] if folder is None else [(folder, block.body)]
    return [
        (_folder(runner), command)
        for runner, command in zip(block.runners, commands(block.body))
        if _folder(runner) is not None
    ]


def _run_blocks() -> list[Block]:
    return [block for block in bash_blocks() if _scripts(block)]


@pytest.fixture(scope="module")
def inputs(tmp_path_factory) -> dict[str, Path]:
    """What the placeholders stand for, made once: a buggy submission, answers, two exports."""
    root = tmp_path_factory.mktemp("doc-inputs")
    bug = next(b for b in BUGS if b.name == BUG)
    submission = bug.apply(REPO / "solutions" / "word2vec", root / "submission")
    answers = root / "answers" / "written.md"
    answers.parent.mkdir()
    shutil.copy(REPO / "solutions" / "parser" / "written.md", answers)
    parser_export = _export(
        root / "parser-export" / "assignment_77_export", {"submission_1": {"written.md": answers}, "submission_2": {}}
    )
    word2vec_export = _export(
        root / "word2vec-export" / "assignment_4242_export",
        {
            "submission_1": {f.name: f for f in (REPO / "solutions" / "word2vec").glob("*.py")},
            "submission_2": {f.name: f for f in (REPO / "assignment" / "word2vec").glob("*.py")},
        },
    )
    archive = root / "EXPORT.zip"
    with zipfile.ZipFile(archive, "w") as zipped:
        for path in sorted(word2vec_export.rglob("*")):
            zipped.write(path, path.relative_to(word2vec_export.parent).as_posix())
    return {"SUBMISSION_DIR": submission, "ANSWERS": answers, "EXPORT_DIR": parser_export, "EXPORT.zip": archive}


def _export(folder: Path, submissions: dict[str, dict[str, Path]]) -> Path:
    """A Gradescope export as Gradescope writes it: Ruby-style keys in submission_metadata.yml."""
    folder.mkdir(parents=True)
    metadata = []
    for index, (name, files) in enumerate(submissions.items()):
        (folder / name).mkdir()
        for file_name, source in files.items():
            shutil.copy(source, folder / name / file_name)
        metadata.append(
            f"{name}:\n  :submitters:\n  - :name: Student {index}\n    :sid: '{index}'\n"
            f"    :email: student{index}@example.edu\n  :created_at: 2026-11-20 10:00:00.000000000 Z\n"
            f"  :score: 0.0\n  :status: processed\n"
        )
    (folder / "submission_metadata.yml").write_text("---\n" + "".join(metadata))
    return folder


@pytest.fixture
def workspace(tmp_path, ewt_stand_in) -> tuple[Path, dict[str, str]]:
    """A folder laid out like the checkout, where the docs' commands run as a TA types them: the
    venv running these tests as .venv, the checkout's files linked, assignment/ copied (commands may
    write there), and a few answer files; with the environment they run in."""
    folder = tmp_path / "checkout"
    folder.mkdir()
    for entry in REPO.iterdir():
        if entry.name not in (".venv", "assignment", "results.json", ".git") and not entry.name.startswith(".venv-"):
            (folder / entry.name).symlink_to(entry)
    (folder / ".venv").symlink_to(Path(sys.prefix))
    shutil.copytree(REPO / "assignment", folder / "assignment", ignore=shutil.ignore_patterns("__pycache__"))
    (folder / "alice").mkdir()
    (folder / "alice" / "written.md").write_text("## 1c-i\n$\\hat y - y$\n")
    (folder / "bob").mkdir()
    shutil.copy(REPO / "handouts" / "word2vec.ipynb", folder / "bob" / "word2vec.ipynb")
    env = {k: v for k, v in os.environ.items() if k not in ("AUTOGRADER_ROOT", "AUTOGRADER_PORTABLE", "PYTHONPATH")}
    env |= {
        "PATH": f"{folder / '.venv' / 'bin'}{os.pathsep}{env.get('PATH', '')}",
        "UD_EWT_DIR": str(ewt_stand_in),
        "COLUMNS": "100",
        "PYTHONDONTWRITEBYTECODE": "1",
    }
    return folder, env


def _substituted(script: str, inputs: dict[str, Path], folder: Path) -> str:
    places = {**{k: str(v) for k, v in inputs.items()}, "/tmp/word2vec-bundle": str(folder / "word2vec-bundle")}
    for placeholder, value in places.items():
        quoted = shlex.quote(value).replace("\\", "\\\\")  # a replacement template, not a function
        script = re.sub(rf"(?<![\w/.-]){re.escape(placeholder)}(?![\w/-])", quoted, script)
    return script


def _run(script: str, cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess:
    return subprocess.run(
        ["bash", "-euo", "pipefail", "-c", script], cwd=cwd, env=env, capture_output=True, text=True, timeout=600
    )


def _normalised(text: str) -> str:
    return " ".join(text.split())


def _shows(output: str, expected: str) -> bool:
    """The output holds the expected text in order, whitespace and times aside; '...' lines and
    '[...]' skip, and lines starting with '$ ' (the command, shown as typed) are left out."""
    expected = "\n".join(
        line for line in expected.replace("[...]", "\n...\n").splitlines() if not line.startswith("$ ")
    )
    parts = [_normalised(part) for part in re.split(r"^\s*\.\.\.\s*$", expected, flags=re.M)]
    pattern = ".*?".join(
        re.sub(r"\\\(\d+(?:\\\.\d+)?\\ s\\\)", r"\\(\\d+(?:\\.\\d+)? s\\)", re.escape(p)) for p in parts if p
    )
    return re.search(pattern, _normalised(output), flags=re.S) is not None


@pytest.mark.parametrize("block", _run_blocks(), ids=[b.where for b in _run_blocks()])
def test_the_block_runs(block, workspace, inputs):
    folder, env = workspace
    printed = ""
    for where, script in _scripts(block):
        run = _run(_substituted(script, inputs, folder), folder / where, env)
        assert run.returncode == 0, f"{block.where} failed:\n{run.stdout[-3000:]}\n{run.stderr[-3000:]}"
        printed += run.stdout + run.stderr
    for ran, output in output_blocks():
        if ran == block:
            assert _shows(printed, output.body), (
                f"{output.where}: not what {block.where} prints; it printed:\n{printed}"
            )


def test_every_output_block_follows_a_block_that_runs():
    for ran, output in output_blocks():
        assert ran is not None and ran.runners == ["run"], f"{output.where}: no block marked 'run' above it"


# ------------------------------------------------- what students see, in a bundle (student guide)

GUIDE = REPO / "docs" / "student-guide.md"
OUTPUT_OF = re.compile(r"<!-- output of: (python -m autograder [\w-]+ (\w+).*?) -->")
WRITTEN_EXAMPLE = "<!-- written.md of the examples below -->"


def _student_outputs() -> list[tuple[Block, str, str]]:
    """(the output shown, the command, its assignment) for each block marked ``output of:``."""
    return [(b, found[1], found[2]) for b in blocks(GUIDE) if (found := OUTPUT_OF.fullmatch(b.marker or ""))]


@pytest.fixture(scope="module")
def released(tmp_path_factory, ewt_stand_in) -> dict[str, Path]:
    """A bundle of each assignment, made by ``release`` as a TA makes it."""
    made = {}
    for name in ("word2vec", "parser"):
        out = tmp_path_factory.mktemp("bundles") / name
        run = subprocess.run(
            [sys.executable, "-m", "autograder", "release", name, "--out", str(out), "--data", str(ewt_stand_in)],
            cwd=REPO,
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert run.returncode == 0, run.stdout + run.stderr
        made[name] = out
    return made


@pytest.mark.parametrize(
    "shown, command, assignment", _student_outputs(), ids=[b.where for b, _, _ in _student_outputs()]
)
def test_the_student_guide_shows_what_students_see(shown, command, assignment, released, tmp_path):
    """Run in the student's bundle, which holds what the guide says: for word2vec the submission
    whose naive-softmax gradient forgets the one-hot vector, for the parser the written.md shown."""
    bundle = tmp_path / assignment
    shutil.copytree(released[assignment], bundle)
    if assignment == "word2vec":
        bug = next(b for b in BUGS if b.name == BUG)
        for file in bug.apply(REPO / "solutions" / "word2vec", tmp_path / "submission").glob("*.py"):
            shutil.copy(file, bundle / file.name)
    else:
        example = next(b for b in blocks(GUIDE) if b.marker == WRITTEN_EXAMPLE)
        (bundle / "written.md").write_text(example.body, encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "AUTOGRADER_PORTABLE")} | {"COLUMNS": "100"}
    run = subprocess.run(
        [sys.executable, *shlex.split(command)[1:]], cwd=bundle, env=env, capture_output=True, text=True, timeout=300
    )
    assert run.returncode == 1, run.stdout + run.stderr  # each example shows problems found
    assert _shows(run.stdout + run.stderr, shown.body), (
        f"{shown.where}: not what {command} prints in the bundle; it printed:\n{run.stdout}{run.stderr}"
    )


def test_the_student_guide_shows_each_example_it_promises():
    assert sorted(command for _, command, _ in _student_outputs()) == [
        "python -m autograder check word2vec",
        "python -m autograder check-written parser written.md",
        "python -m autograder collect-submission parser",
    ]
    assert [b.language for b in blocks(GUIDE) if b.marker == WRITTEN_EXAMPLE] == ["markdown"]


# ------------------------------------------------------------------- what no other test runs


@pytest.mark.realdata(minutes=1)
def test_parser_debug_run_on_ewt(tmp_path, ewt):
    """The student guide's ``python run.py --debug``: the reference on 1000 sentences of EWT, for two
    of its epochs (the rest run the code test_full_training_run_on_ewt runs, at ten times the cost)."""
    folder = tmp_path / "parser"
    shutil.copytree(REPO / "solutions" / "parser", folder, ignore=shutil.ignore_patterns("__pycache__"))
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"} | {"UD_EWT_DIR": str(ewt)}
    run = subprocess.run([sys.executable, "run.py", "--debug", "--epochs", "2"],
                         cwd=folder, env=env, capture_output=True, text=True, timeout=900)
    assert run.returncode == 0, run.stdout[-2000:] + run.stderr[-2000:]
    assert "UAS" in run.stdout
