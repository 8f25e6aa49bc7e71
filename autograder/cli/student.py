"""The students' commands: ``check``, ``check-written`` and ``collect-submission``."""

from __future__ import annotations

import argparse
from pathlib import Path

from autograder.boundary.isolation import PORTABLE_ENV
from autograder.cli.arguments import Commands, add_assignment
from autograder.core.config import Assignment, load_assignment


def _check(args: argparse.Namespace) -> int:
    from autograder.boundary.isolation import detect_isolation
    from autograder.core.results import write_results
    from autograder.course.check import print_check, run_check

    assignment = load_assignment(args.assignment)
    folder = Path(args.folder) if args.folder else assignment.starter_dir
    isolation = detect_isolation(force_portable=args.portable)
    for line in isolation.notice():  # once, before the results: what is off, and why
        print(line)
    check = run_check(assignment, folder, isolation)
    if args.only:
        check = check.only(args.only)
    print_check(assignment, folder, check)
    if args.results:
        write_results(check.results, Path(args.results))
    return 0 if check.passed else 1


def _answers_file(assignment: Assignment, given: str | None) -> Path:
    """ANSWERS as given, or the answer sheet chosen in a folder (default: the starter's folder)."""
    from autograder.written.answers import AnswersError, choose_answer_sheet

    path = Path(given) if given else assignment.starter_dir
    if path.is_dir():
        found = choose_answer_sheet(path, assignment.config)
        if found.sheet is None:
            raise AnswersError(found.note)
        path = path / found.sheet.source
    return path


def _check_written(args: argparse.Namespace) -> int:
    from autograder.written.check_written import check_answers, print_check

    assignment = load_assignment(args.assignment)
    check = check_answers(_answers_file(assignment, args.answers), assignment)
    print_check(check)
    return 0 if check.clean else 1


def _collect(args: argparse.Namespace) -> int:
    from autograder.course.collect_submission import IGNORE_FLAG, collect_submission

    assignment = load_assignment(args.assignment)
    folder = Path(args.folder) if args.folder else assignment.starter_dir
    collected = collect_submission(
        assignment, folder, Path(args.out) if args.out else None, ignore_written_problems=args.ignore_written_problems
    )
    for warning in collected.warnings:
        print(f"warning: {warning}")
    if collected.written_problems:
        problems = len(collected.written_problems)
        print(
            f"{'warning' if collected.written else 'error'}: {collected.answers} has {problems} "
            f"problem{'s' if problems > 1 else ''} to fix (as check-written reports them):"
        )
        for problem in collected.written_problems:
            print(f"  {problem}")
    if not collected.written:
        stale = (
            f" ({collected.zip_path} is from an earlier run: do not upload it)" if collected.zip_path.exists() else ""
        )
        print(
            f"No zip written{stale}. Fix the lines above, check with 'python -m autograder check-written "
            f"{assignment.name} {collected.answers}' and run collect-submission again; or, to zip your "
            f"files as they are, add {IGNORE_FLAG}."
        )
        return 1
    print(f"wrote {collected.zip_path} with {', '.join(collected.files) or 'no files'}; upload it to Gradescope")
    return 0


def add_check(commands: Commands) -> None:
    check = commands.add_parser(
        "check",
        help="run the public tests on your files, with the messages Gradescope shows",
        description="Run the public tests on the files in FOLDER exactly as Gradescope runs them (your\n"
        "code in a separate, limited process) and print every failing test's message. Also\n"
        "says how many points are in hidden tests, graded after the deadline, and in written\n"
        "answers graded by hand. Exit status 0 when every public test passes, else 1.\n"
        "Gradescope's sandbox needs Linux: on Windows and macOS (or with --portable, or\n"
        f"{PORTABLE_ENV}=1) your code runs in a plain subprocess per question, with the same\n"
        "tests, time limits and messages but without memory or process limits, a private view\n"
        "of the files, the network block, a separate user or seccomp; check says so first.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="examples:\n  python -m autograder check word2vec            # in the folder of the bundle\n"
        "  python -m autograder check parser assignment/parser\n"
        "  python -m autograder check word2vec --portable # as on Windows and macOS\n"
        "  python -m autograder check word2vec --only sgd # what `python sgd.py` runs",
    )
    add_assignment(check)
    check.add_argument(
        "folder",
        nargs="?",
        metavar="FOLDER",
        help="the folder with your files (default: the bundle's folder, or assignment/NAME)",
    )
    check.add_argument("--results", metavar="PATH", help="also write the results as Gradescope's results.json")
    check.add_argument(
        "--portable",
        action="store_true",
        help="run your code in plain subprocesses, as on Windows and macOS, even on Linux "
        f"(the same as setting {PORTABLE_ENV}=1)",
    )
    check.add_argument(
        "--only",
        metavar="MODULE",
        help="report only the tests of the functions in MODULE.py (the self-check at the bottom of a "
        "file you complete runs this)",
    )
    check.set_defaults(run=_check)


def add_check_written(commands: Commands) -> None:
    written = commands.add_parser(
        "check-written",
        help="check your written answers before you submit them",
        description="Read the written answers in ANSWERS (the handout notebook, or a Markdown file whose\n"
        "headings name the questions: '## 2a-i', '## 2a (i)', '### (i)' under '## 2a'...) and\n"
        "report which question each answer was filed under, which questions have no answer,\n"
        "text that is under no question, headings inside an answer that could name another\n"
        "question (their text stays where it is), answers that seem to be under the wrong\n"
        "question, broken math ($ that never closes, control characters inside math) and,\n"
        "for answers graded automatically, whether they can be read (not whether they are\n"
        "right). For a derivation, it says how its final formula was read, or why it cannot be\n"
        "(a note when a TA grades it by hand). Every problem says on which line. Exit status 0\n"
        "when nothing needs fixing; collect-submission zips nothing until then.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="examples:\n  python -m autograder check-written parser parser.ipynb\n"
        "  python -m autograder check-written word2vec written.md\n\n"
        "  To fix:\n"
        "    line 5: '(a)(i)' under '2. Machine Learning & Neural …' (line 3) is read as 2a-i (the\n"
        "    transition table), but it does not have the form of that answer; it reads more like\n"
        "    1a-i (Adam: the rolling mean of the gradients). If it answers 1a-i, label its heading\n"
        "    '1a-i' (or move the text under the heading of 1a-i).",
    )
    add_assignment(written)
    written.add_argument(
        "answers",
        nargs="?",
        metavar="ANSWERS",
        help="the notebook or Markdown file, or a folder holding one (default: the bundle's folder)",
    )
    written.set_defaults(run=_check_written)


def add_collect_submission(commands: Commands) -> None:
    collect = commands.add_parser(
        "collect-submission",
        aliases=["collect_submission"],
        help="zip exactly the files Gradescope expects, once check-written finds nothing to fix",
        description="Write ASSIGNMENT_submission.zip (or --out) with the Python files the autograder\n"
        "reads and your written answers (the notebook or written.md, whichever holds them),\n"
        "flat at the top of the zip, as Gradescope expects. Warns about missing files, parts\n"
        "still raising NotImplementedError and unanswered written questions. Every problem\n"
        "check-written reports in the written answers (an answer that seems to be under the\n"
        "wrong question, a heading that could name another question, a question answered\n"
        "twice, a final answer that cannot be read, broken math, text under no question) is\n"
        "printed with its line, and no zip is written (exit status 1) until it is fixed, or\n"
        "unless you pass --ignore-written-problems.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="examples:\n  python -m autograder collect-submission parser\n\n"
        "  error: written.md has 1 problem to fix (as check-written reports them):\n"
        "    line 36: the heading '(b)(i)' is inside the answer to 2b-ii (heading on line 34)\n"
        "    and could also mean 2b-i; its text stays in 2b-ii. [...]\n"
        "  No zip written. Fix the lines above, [...]\n\n"
        "  python -m autograder collect-submission word2vec --ignore-written-problems",
    )
    add_assignment(collect)
    collect.add_argument(
        "folder", nargs="?", metavar="FOLDER", help="the folder with your files (default: the bundle's)"
    )
    collect.add_argument("--out", metavar="ZIP", help="the zip to write (default: FOLDER/ASSIGNMENT_submission.zip)")
    collect.add_argument(
        "--ignore-written-problems",
        action="store_true",
        help="write the zip even though check-written reports problems in your written "
        "answers (they are still printed); what the grader cannot place or read "
        "scores 0",
    )
    collect.set_defaults(run=_collect)


COMMANDS = (
    add_check,
    add_check_written,
    add_collect_submission,
)
