"""``python -m autograder``: one subcommand per job."""

from __future__ import annotations

import argparse
import sys
import time
import traceback
from pathlib import Path

from autograder.build import BuildError
from autograder.config import ConfigError, available_assignments, load_assignment
from autograder.release import ReleaseError

EPILOG = """examples:
  python -m autograder grade word2vec solutions/word2vec          # the reference: full marks
  python -m autograder grade word2vec path/to/submission --results out/results.json -v
  python -m autograder release word2vec --out /tmp/word2vec-starter
  python -m autograder build word2vec --out word2vec-autograder.zip   # upload to Gradescope
  AUTOGRADER_ROOT=/tmp/gs python -m autograder gradescope word2vec     # what run_autograder does
"""


def _grade(args: argparse.Namespace) -> int:
    from autograder.grading import fallback_results, grade, summarize
    from autograder.report import print_table
    from autograder.results import write_results

    assignment = load_assignment(args.assignment)
    started = time.monotonic()
    status = 0
    try:
        results = grade(assignment, Path(args.submission), include_hidden=not args.public_only)
    except Exception as exc:  # whatever went wrong, a valid results.json is still written
        traceback.print_exc(file=sys.stderr)
        results = fallback_results(assignment.config, f"{type(exc).__name__}: {exc}",
                                   time.monotonic() - started)
        status = 1
    write_results(results, Path(args.results))
    print_table(f"{assignment.config.title}: {args.submission}",
                summarize(assignment.config, results), results, verbose=args.verbose)
    print(f"results written to {args.results}")
    return status


def _release(args: argparse.Namespace) -> int:
    from autograder.release import release

    written = release(load_assignment(args.assignment), Path(args.out), force=args.force)
    print(f"wrote {len(written)} files to {args.out}")
    return 0


def _build(args: argparse.Namespace) -> int:
    from autograder.build import build

    names = build(load_assignment(args.assignment), Path(args.out))
    print(f"wrote {args.out} ({len(names)} files); test it before uploading: README.md, "
          "'Test the Gradescope zip locally'")
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
    grade.add_argument("-v", "--verbose", action="store_true", help="print the output of every failed test")
    grade.set_defaults(run=_grade)

    release = commands.add_parser(
        "release", help="write the student starter bundle generated from solutions/",
        description="Replace every solution block of solutions/ASSIGNMENT by a stub raising "
                    "NotImplementedError and write the student bundle to --out. The committed "
                    "assignment/ASSIGNMENT must equal this output (a test checks it).",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="example:\n  python -m autograder release word2vec --out assignment/word2vec --force")
    release.add_argument("assignment", help=f"assignment name ({names})")
    release.add_argument("--out", required=True, metavar="DIR", help="folder to write (must be empty)")
    release.add_argument("--force", action="store_true", help="replace the contents of a non-empty --out")
    release.set_defaults(run=_release)

    build = commands.add_parser(
        "build", help="write the Gradescope autograder zip of one assignment",
        description="Write the zip to upload as a Gradescope autograder: setup.sh and run_autograder at\n"
                    "its top, the framework with only this assignment's config, tests and fixtures, its\n"
                    "reference solution, the starter's given files and the pinned requirements.\n"
                    "setup.sh installs into a venv and creates the user the students' code runs as.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="example:\n  python -m autograder build word2vec --out word2vec-autograder.zip")
    build.add_argument("assignment", help=f"assignment name ({names})")
    build.add_argument("--out", required=True, metavar="ZIP", help="the zip to write (replaced if present)")
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


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return args.run(args)
    except (BuildError, ConfigError, ReleaseError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
