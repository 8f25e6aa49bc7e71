"""``python -m autograder``: one subcommand per job."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from autograder.build import BuildError
from autograder.config import Assignment, ConfigError, available_assignments, load_assignment
from autograder.dataset import DatasetError
from autograder.dependencies import DEFAULT_IMAGE, IMAGES, DependencyError
from autograder.isolation import PORTABLE_ENV, NeedsLinux
from autograder.release import ReleaseError
from autograder.results import UnsafeDestination

EPILOG = """examples:
  python -m autograder grade word2vec solutions/word2vec          # the reference: full marks
  python -m autograder grade word2vec path/to/submission --results out/results.json -v
  python -m autograder grade-batch word2vec path/to/export --jobs 2 --out regrade-word2vec
  python -m autograder release word2vec --out /tmp/word2vec-bundle       # what students download
  python -m autograder check word2vec assignment/word2vec                # the public tests, as students run them
  python -m autograder check-written parser handouts/parser.ipynb
  python -m autograder export-written parser path/to/export --out written-parser   # pages to grade by hand
  python -m autograder build word2vec --out "$(mktemp -d)/word2vec-autograder.zip"   # upload to Gradescope
  AUTOGRADER_ROOT="$ROOT" python -m autograder gradescope word2vec     # what run_autograder does
"""


def _grade(args: argparse.Namespace) -> int:
    from autograder.grading import grade_or_fallback, summarize
    from autograder.isolation import detect_isolation, require_linux_worker
    from autograder.report import print_table
    from autograder.results import write_results

    assignment = load_assignment(args.assignment)
    require_linux_worker("grade")
    isolation = detect_isolation()
    for name, why in isolation.off:  # for whoever runs this; never in results.json
        print(f"protection off: {name}: {why}", file=sys.stderr)
    results, crash = grade_or_fallback(assignment, Path(args.submission),
                                       include_hidden=not args.public_only, isolation=isolation)
    if crash:  # a valid results.json is still written below
        print(crash, file=sys.stderr)
    write_results(results, Path(args.results))
    print_table(f"{assignment.config.title}: {args.submission}",
                summarize(assignment.config, results), results, verbose=args.verbose)
    print(f"results written to {args.results}")
    return 1 if crash else 0


def _grade_batch(args: argparse.Namespace) -> int:
    from autograder.batch import run_batch
    from autograder.export import ExportError

    assignment = load_assignment(args.assignment)
    try:
        outcome = run_batch(assignment, Path(args.export), Path(args.out), jobs=args.jobs, force=args.force,
                            without_isolation=args.without_isolation)
    except ExportError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"\ninterrupted: the submissions graded so far are kept in {args.out}; run the same "
              "command again to grade the rest", file=sys.stderr)
        return 130
    print(f"graded {len(outcome.graded)}, unchanged {len(outcome.skipped)}; wrote {args.out}/scores.csv, "
          f"statistics.csv, scores.png and submissions/*/results.json")
    if outcome.not_graded:
        print("could not be graded (0 points, the reason in their results.json): "
              + ", ".join(outcome.not_graded))
    if outcome.unlisted:
        print(f"not graded, missing from submission_metadata.yml: {', '.join(outcome.unlisted)}")
    return 0


def _release(args: argparse.Namespace) -> int:
    from autograder.bundle import write_bundle
    from autograder.release import release

    assignment = load_assignment(args.assignment)
    if args.starter_only:
        written = release(assignment, Path(args.out), force=args.force)
    else:
        written = write_bundle(assignment, Path(args.out), force=args.force,
                               data=Path(args.data) if args.data else None, with_data=not args.without_data)
    print(f"wrote {len(written)} files to {args.out}")
    return 0


def _check(args: argparse.Namespace) -> int:
    from autograder.isolation import detect_isolation
    from autograder.results import write_results
    from autograder.selfcheck import print_check, run_check

    assignment = load_assignment(args.assignment)
    folder = Path(args.folder) if args.folder else assignment.starter_dir
    isolation = detect_isolation(force_portable=args.portable)
    for line in isolation.notice():  # once, before the results: what is off, and why
        print(line)
    check = run_check(assignment, folder, isolation)
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
    from autograder.written.answers import AnswersError
    from autograder.written.check import check_answers, print_check

    assignment = load_assignment(args.assignment)
    try:
        check = check_answers(_answers_file(assignment, args.answers), assignment)
    except AnswersError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print_check(check)
    return 0 if check.clean else 1


def _collect(args: argparse.Namespace) -> int:
    from autograder.collect import IGNORE_FLAG, collect_submission

    assignment = load_assignment(args.assignment)
    folder = Path(args.folder) if args.folder else assignment.starter_dir
    collected = collect_submission(assignment, folder, Path(args.out) if args.out else None,
                                   ignore_written_problems=args.ignore_written_problems)
    for warning in collected.warnings:
        print(f"warning: {warning}")
    if collected.written_problems:
        problems = len(collected.written_problems)
        print(f"{'warning' if collected.written else 'error'}: {collected.answers} has {problems} "
              f"problem{'s' if problems > 1 else ''} to fix (as check-written reports them):")
        for problem in collected.written_problems:
            print(f"  {problem}")
    if not collected.written:
        stale = (f" ({collected.zip_path} is from an earlier run: do not upload it)"
                 if collected.zip_path.exists() else "")
        print(f"No zip written{stale}. Fix the lines above, check with 'python -m autograder check-written "
              f"{assignment.name} {collected.answers}' and run collect-submission again; or, to zip your "
              f"files as they are, add {IGNORE_FLAG}.")
        return 1
    print(f"wrote {collected.zip_path} with {', '.join(collected.files) or 'no files'}; upload it to Gradescope")
    return 0


def _export_written(args: argparse.Namespace) -> int:
    from autograder.export import ExportError
    from autograder.written.manual import export_pages, gather

    assignment = load_assignment(args.assignment)
    try:
        students = gather(assignment, [Path(s) for s in args.sources])
    except ExportError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    pages = export_pages(assignment, students, Path(args.out))
    print(f"wrote {len(pages)} question pages for {len(students)} students: open {Path(args.out) / 'index.html'}")
    return 0


def _handouts(args: argparse.Namespace) -> int:
    from autograder.handout.build import build, stale
    from autograder.handout.source import HandoutError

    outdated = []
    for name in args.assignments or available_assignments():
        try:
            files = build(load_assignment(name))
        except HandoutError as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 2
        if args.check:
            outdated += stale(files)
            continue
        for path, data in files.items():
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(data)
            print(f"wrote {path}")
    if outdated:
        print("out of date (regenerate with: python -m autograder handouts):\n  "
              + "\n  ".join(str(p) for p in outdated))
    return 1 if outdated else 0


def _build(args: argparse.Namespace) -> int:
    from autograder.build import build

    image = IMAGES[args.image]
    names = build(load_assignment(args.assignment), Path(args.out), image)
    print(f"wrote {args.out} ({len(names)} files, readable by you only) for Gradescope's {image.title} "
          f"image (Python {image.python}): choose that base image in the autograder settings. Test the "
          "zip before uploading: README.md, 'Upload to Gradescope (test the zip locally first)'")
    return 0


def _gradescope(args: argparse.Namespace) -> int:
    from autograder.gradescope import default_root, run

    return run(args.assignment, Path(args.root) if args.root else default_root())


def build_parser() -> argparse.ArgumentParser:
    names = ", ".join(available_assignments())
    parser = argparse.ArgumentParser(
        prog="python -m autograder", formatter_class=argparse.RawDescriptionHelpFormatter,
        description=f"Grade, release and package the course's numpy assignments ({names}).",
        epilog=EPILOG)
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    grade = commands.add_parser(
        "grade", help="grade one submission: per-question table + Gradescope results.json",
        description="Grade the student files in SUBMISSION_DIR (flat, or inside one folder) and write "
                    "Gradescope results.json. Student code runs in a separate, limited worker process. "
                    "Exit status 0 whenever grading completed, whatever the score.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="example:\n  python -m autograder grade word2vec solutions/word2vec")
    grade.add_argument("assignment", help=f"assignment name ({names})")
    grade.add_argument("submission", metavar="SUBMISSION_DIR", help="folder with the student's files")
    grade.add_argument("--results", default="results.json", metavar="PATH",
                       help="where to write results.json (default: ./results.json)")
    grade.add_argument("--public-only", action="store_true",
                       help="run only the public tests (what students can run themselves)")
    grade.add_argument("-v", "--verbose", action="store_true", help="print the output of every failed test, and of passed tests that have one "
                            "(a helper of another question replaced by the reference's)")
    grade.set_defaults(run=_grade)

    batch = commands.add_parser(
        "grade-batch", help="regrade a whole class from a Gradescope export: results, scores.csv, statistics",
        description="Grade every submission of a Gradescope 'Export Submissions' folder (the unpacked\n"
                    "zip, with submission_metadata.yml at its top) and write to --out:\n"
                    "  submissions/<folder>/results.json  Gradescope's results, one per submission\n"
                    "  scores.csv      a row per student: name, sid, email, a column per question, total\n"
                    "  statistics.csv  per question: mean, median, std, min, max, share with full marks\n"
                    "  scores.png      the distribution of totals and the mean score of each question\n"
                    "A submission that cannot be graded gets 0 with the reason; the batch goes on.\n"
                    "Rerunning skips submissions already graded from the same files by the same grader,\n"
                    "so an interrupted batch (Ctrl-C) resumes where it stopped; a submission whose files\n"
                    "changed, or all of them after the grader changed, are graded again.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="example:\n  unzip assignment_123456_export.zip -d export\n"
               "  python -m autograder grade-batch word2vec export/assignment_123456_export --jobs 2 "
               "--out regrade-word2vec")
    batch.add_argument("assignment", help=f"assignment name ({names})")
    batch.add_argument("export", metavar="EXPORT_DIR",
                       help="the unpacked export (or the folder it was unpacked into)")
    batch.add_argument("--out", required=True, metavar="DIR", help="where results and the gradebook go")
    batch.add_argument("--jobs", type=int, default=1, metavar="N",
                       help="submissions graded at the same time (default 1; at most the number of cores)")
    batch.add_argument("--force", action="store_true",
                       help="regrade every submission, even those graded before from the same files")
    batch.add_argument("--without-isolation", action="store_true",
                       help="grade even where the students' code cannot get namespaces of its own (it could "
                            "then read this user's files and reach the other submissions' processes)")
    batch.set_defaults(run=_grade_batch)

    release = commands.add_parser(
        "release", help="write the student bundle (starter, handout notebook, self-check) to --out",
        description="Write what students download to --out: the starter (every solution block of\n"
                    "solutions/ASSIGNMENT replaced by a stub raising NotImplementedError), the handout\n"
                    "notebook ASSIGNMENT.ipynb, the answer sheet written.md, requirements.txt (and\n"
                    "requirements-notebook.txt), a README.md for the student, the data run.py trains on\n"
                    "with its licence (data/FOLDER/, from --data, the config's environment variable such\n"
                    "as UD_EWT_DIR, or shared/data/FOLDER above the repository), and the framework\n"
                    "without hidden tests, with the public tests' expected values recorded from the\n"
                    "reference, so that 'python -m autograder check' works there. The bundle is\n"
                    "refused if it would contain anything of solutions/ or the hidden tests.\n"
                    "--starter-only writes the starter alone: the committed assignment/ASSIGNMENT must\n"
                    "equal that output (a test checks it).",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="examples:\n  python -m autograder release word2vec --out /tmp/word2vec-bundle\n"
               "  python -m autograder release word2vec --out assignment/word2vec --force --starter-only")
    release.add_argument("assignment", help=f"assignment name ({names})")
    release.add_argument("--out", required=True, metavar="DIR", help="folder to write (must be empty)")
    release.add_argument("--force", action="store_true", help="replace the contents of a non-empty --out")
    release.add_argument("--starter-only", action="store_true",
                         help="only the starter files (what assignment/ASSIGNMENT holds)")
    release.add_argument("--data", metavar="DIR", help="the folder of the data run.py trains on "
                         "(default: found as described above)")
    release.add_argument("--without-data", action="store_true",
                         help="leave the data out; the README then tells students where to download it")
    release.set_defaults(run=_release)

    check = commands.add_parser(
        "check", help="run the public tests on your files, with the messages Gradescope shows",
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
               "  python -m autograder check word2vec --portable # as on Windows and macOS")
    check.add_argument("assignment", help=f"assignment name ({names})")
    check.add_argument("folder", nargs="?", metavar="FOLDER",
                       help="the folder with your files (default: the bundle's folder, or assignment/NAME)")
    check.add_argument("--results", metavar="PATH", help="also write the results as Gradescope's results.json")
    check.add_argument("--portable", action="store_true",
                       help="run your code in plain subprocesses, as on Windows and macOS, even on Linux "
                            f"(the same as setting {PORTABLE_ENV}=1)")
    check.set_defaults(run=_check)

    written = commands.add_parser(
        "check-written", help="check your written answers before you submit them",
        description="Read the written answers in ANSWERS (the handout notebook, or a Markdown file whose\n"
                    "headings name the questions: '## 2a-i', '## 2a (i)', '### (i)' under '## 2a'...) and\n"
                    "report which question each answer was filed under, which questions have no answer,\n"
                    "text that is under no question, headings inside an answer that could name another\n"
                    "question (their text stays where it is), answers that seem to be under the wrong\n"
                    "question, broken math ($ that never closes, control characters inside math) and,\n"
                    "for answers graded automatically, whether they can be read (not whether they are\n"
                    "right). Every problem says on which line. Exit status 0 when nothing needs fixing;\n"
                    "collect-submission zips nothing until then.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="examples:\n  python -m autograder check-written parser parser.ipynb\n"
               "  python -m autograder check-written word2vec written.md\n\n"
               "  To fix:\n"
               "    line 5: '(a)(i)' under '2. Machine Learning & Neural …' (line 3) is read as 2a-i (the\n"
               "    transition table), but it does not have the form of that answer; it reads more like\n"
               "    1a-i (Adam: the rolling mean of the gradients). If it answers 1a-i, label its heading\n"
               "    '1a-i' (or move the text under the heading of 1a-i).")
    written.add_argument("assignment", help=f"assignment name ({names})")
    written.add_argument("answers", nargs="?", metavar="ANSWERS",
                         help="the notebook or Markdown file, or a folder holding one "
                              "(default: the bundle's folder)")
    written.set_defaults(run=_check_written)

    collect = commands.add_parser(
        "collect-submission", aliases=["collect_submission"],
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
               "  python -m autograder collect-submission word2vec --ignore-written-problems")
    collect.add_argument("assignment", help=f"assignment name ({names})")
    collect.add_argument("folder", nargs="?", metavar="FOLDER",
                         help="the folder with your files (default: the bundle's)")
    collect.add_argument("--out", metavar="ZIP",
                         help="the zip to write (default: FOLDER/ASSIGNMENT_submission.zip)")
    collect.add_argument("--ignore-written-problems", action="store_true",
                         help="write the zip even though check-written reports problems in your written "
                              "answers (they are still printed); what the grader cannot place or read "
                              "scores 0")
    collect.set_defaults(run=_collect)

    export = commands.add_parser(
        "export-written",
        help="one HTML page per written question graded by hand, every student's answer on it",
        description="Read the written answers of every SOURCE: a Gradescope 'Export Submissions' folder\n"
                    "(the unpacked zip), a submission folder, or an answer file (.ipynb or .md). Write to\n"
                    "--out an index.html and, for each question graded by hand, a page with the question,\n"
                    "the reference answer (folded) and every student's answer, math typeset by MathJax.\n"
                    "The index lists students without an answer file and text placed under no question.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="examples:\n"
               "  python -m autograder export-written parser export/assignment_123_export --out written-parser\n"
               "  python -m autograder export-written word2vec alice/written.md bob/word2vec.ipynb --out pages")
    export.add_argument("assignment", help=f"assignment name ({names})")
    export.add_argument("sources", nargs="+", metavar="SOURCE",
                        help="export folder, submission folder or answer file")
    export.add_argument("--out", required=True, metavar="DIR", help="folder for the HTML pages")
    export.set_defaults(run=_export_written)

    handouts = commands.add_parser(
        "handouts", help="regenerate the notebooks, answer sheets and figures from handouts/NAME.md",
        description="Generate, from each handout source handouts/NAME.md, the notebook NAME.ipynb (with an\n"
                    "answer cell per written question), the answer sheet NAME_answers.md and the figures,\n"
                    "after checking the questions and points against the config. --check writes nothing\n"
                    "and exits 1 if a committed file is out of date.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="examples:\n  python -m autograder handouts\n  python -m autograder handouts parser --check")
    handouts.add_argument("assignments", nargs="*", metavar="ASSIGNMENT", help=f"default: all ({names})")
    handouts.add_argument("--check", action="store_true", help="only report files that are out of date")
    handouts.set_defaults(run=_handouts)

    build = commands.add_parser(
        "build", help="write the Gradescope autograder zip of one assignment",
        description="Write the zip to upload as a Gradescope autograder: setup.sh and run_autograder at\n"
                    "its top, the framework with only this assignment's config, tests and fixtures, its\n"
                    "reference solution, the starter's given files and the lock of the Gradescope base\n"
                    "image you will choose for it (--image): every package pinned for that image's Python.\n"
                    "setup.sh installs into a venv, refuses another Python than the image's, and creates\n"
                    "the user the students' code runs as.\n"
                    "The zip is readable by you only (0600): it holds the reference and the hidden tests,\n"
                    "so keep it where students' code graded on this machine cannot reach it either.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog='examples:\n  python -m autograder build word2vec --out "$(mktemp -d)/word2vec-autograder.zip"\n'
               '  python -m autograder build parser --image ubuntu-24.04 --out "$(mktemp -d)/parser.zip"')
    build.add_argument("assignment", help=f"assignment name ({names})")
    build.add_argument("--out", required=True, metavar="ZIP",
                       help="the zip to write; a file there is replaced, a symbolic link refused")
    build.add_argument("--image", choices=sorted(IMAGES), default=DEFAULT_IMAGE,
                       help="the base image you choose in Gradescope's autograder settings: "
                            + ", ".join(f"{i.name} ({i.title}, Python {i.python})" for i in IMAGES.values())
                            + " (default: %(default)s)")
    build.set_defaults(run=_build)

    gradescope = commands.add_parser(
        "gradescope", help="grade ROOT/submission into ROOT/results/results.json (what run_autograder runs)",
        description="Run by the zip's run_autograder for every submission: make ROOT/source, submission,\n"
                    "results and submission_metadata.json private (when root), print the protections in\n"
                    "force (instructors see this output, students do not), grade ROOT/submission and\n"
                    "write ROOT/results/results.json, also when grading fails.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="example (in the unpacked zip, as Gradescope does):\n"
               "  cd /autograder/source && /autograder/venv/bin/python -m autograder gradescope word2vec")
    gradescope.add_argument("assignment", help=f"assignment name ({names})")
    gradescope.add_argument("--root", default=None, metavar="ROOT",
                            help="the layout's root (default: $AUTOGRADER_ROOT, else /autograder)")
    gradescope.set_defaults(run=_gradescope)
    return parser


def _tolerant_output() -> None:
    """Characters the terminal's encoding lacks (a Windows code page) print as '?', not as a crash."""
    for stream in (sys.stdout, sys.stderr):
        reconfigure = getattr(stream, "reconfigure", None)  # absent where a caller swapped the stream
        encoding = (getattr(stream, "encoding", None) or "").lower().replace("-", "")
        # surrogateescape raises as strict does on what it cannot encode: Python's choice under an ASCII locale
        raises = getattr(stream, "errors", None) in ("strict", "surrogateescape")
        if reconfigure is not None and encoding != "utf8" and raises:
            reconfigure(errors="replace")


def main(argv: list[str] | None = None) -> int:
    _tolerant_output()
    args = build_parser().parse_args(argv)
    try:
        return args.run(args)
    except (BuildError, ConfigError, DatasetError, DependencyError, NeedsLinux, ReleaseError,
            UnsafeDestination) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
