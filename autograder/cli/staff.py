"""The staff's commands: grading one submission or a class, the bundle, the Gradescope zip and what
runs in it, the pages of written answers, the handouts."""

from __future__ import annotations

import argparse
import math
import sys
import time
from pathlib import Path

from autograder.cli.arguments import Commands, add_assignment, assignment_names
from autograder.core.config import available_assignments, load_assignment
from autograder.course.dependencies import DEFAULT_IMAGE, IMAGES


def _grade(args: argparse.Namespace) -> int:
    from autograder.boundary.isolation import detect_isolation, require_linux_worker
    from autograder.core.results import write_results
    from autograder.course.report import print_table
    from autograder.grading.grade import check_ready, grade_or_fallback, stopped_results, summarize

    assignment = load_assignment(args.assignment)
    check_ready(assignment)
    require_linux_worker("grade")
    isolation = detect_isolation()
    for name, why in isolation.off:  # for whoever runs this; never in results.json
        print(f"protection off: {name}: {why}", file=sys.stderr)
    started = time.monotonic()
    try:
        results, crash = grade_or_fallback(
            assignment, Path(args.submission), include_hidden=not args.public_only, isolation=isolation
        )
    except KeyboardInterrupt as stop:  # its workers are gone; the results still say what happened
        results = stopped_results(assignment.config, stop, time.monotonic() - started)
        crash = results.output
    if crash:  # a valid results.json is still written below
        print(crash, file=sys.stderr)
    write_results(results, Path(args.results))
    print_table(
        f"{assignment.config.title}: {args.submission}",
        summarize(assignment.config, results),
        results,
        verbose=args.verbose,
    )
    print(f"results written to {args.results}")
    return 1 if crash else 0


def _grade_batch(args: argparse.Namespace) -> int:
    from autograder.course.grade_batch import run_batch

    assignment = load_assignment(args.assignment)
    try:
        outcome = run_batch(
            assignment,
            Path(args.export),
            Path(args.out),
            jobs=args.jobs,
            force=args.force,
            without_isolation=args.without_isolation,
            time_limit=args.time_limit,
            hand_graded=Path(args.hand_graded) if args.hand_graded else None,
        )
    except KeyboardInterrupt:
        print(
            f"\ninterrupted: the submissions graded so far are kept in {args.out}; run the same "
            "command again to grade the rest",
            file=sys.stderr,
        )
        return 130
    print(
        f"graded {len(outcome.graded)}, unchanged {len(outcome.skipped)}; wrote {args.out}/scores.csv, "
        f"statistics.csv, scores.png and submissions/*/results.json"
    )
    if outcome.not_graded:
        print("could not be graded (0 points, the reason in their results.json): " + ", ".join(outcome.not_graded))
    if outcome.unlisted:
        print(f"not graded, missing from submission_metadata.yml: {', '.join(outcome.unlisted)}")
    return 0


def _release(args: argparse.Namespace) -> int:
    from autograder.course.release import write_bundle
    from autograder.course.starter import release

    assignment = load_assignment(args.assignment)
    if args.starter_only:
        written = release(assignment, Path(args.out), force=args.force)
    else:
        written = write_bundle(
            assignment,
            Path(args.out),
            force=args.force,
            data=Path(args.data) if args.data else None,
            with_data=not args.without_data,
        )
    print(f"wrote {len(written)} files to {args.out}")
    return 0


def _export_written(args: argparse.Namespace) -> int:
    from autograder.course.export_written import export_pages, gather

    assignment = load_assignment(args.assignment)
    students = gather(assignment, [Path(s) for s in args.sources])
    pages = export_pages(assignment, students, Path(args.out))
    print(f"wrote {len(pages)} question pages for {len(students)} students: open {Path(args.out) / 'index.html'}")
    print(
        f"points by hand go in {Path(args.out) / 'hand_graded.csv'} (a row per student); then: python -m autograder "
        f"grade-batch {args.assignment} EXPORT --out DIR --hand-graded {Path(args.out) / 'hand_graded.csv'}"
    )
    return 0


def _handouts(args: argparse.Namespace) -> int:
    from autograder.handout.handouts import build, stale

    outdated = []
    for name in args.assignments or available_assignments():
        files = build(load_assignment(name))
        if args.check:
            outdated += stale(files)
            continue
        for path, data in files.items():
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(data)
            print(f"wrote {path}")
    if outdated:
        print(
            "out of date (regenerate with: python -m autograder handouts):\n  " + "\n  ".join(str(p) for p in outdated)
        )
    return 1 if outdated else 0


def _build(args: argparse.Namespace) -> int:
    from autograder.course.build import build
    from autograder.course.grade_batch import default_time_limit

    image = IMAGES[args.image]
    assignment = load_assignment(args.assignment)
    names = build(assignment, Path(args.out), image)
    minutes = math.ceil(default_time_limit(assignment) / 60)
    print(
        f"wrote {args.out} ({len(names)} files, readable by you only) for Gradescope's {image.title} "
        f"image (Python {image.python}): choose that base image in the autograder settings, and an "
        f"autograder timeout of at least {minutes} minutes (Gradescope's default is 10): a submission "
        "that hangs in every question takes that long, and Gradescope shows one it times out no score "
        "at all. Test the zip before uploading: docs/ta-guide.md, 'Build the Gradescope zip and test "
        "it locally'"
    )
    return 0


def _gradescope(args: argparse.Namespace) -> int:
    from autograder.course.gradescope import default_root, run

    return run(args.assignment, Path(args.root) if args.root else default_root())


def add_grade(commands: Commands) -> None:
    grade = commands.add_parser(
        "grade",
        help="grade one submission: per-question table + Gradescope results.json",
        description="Grade the student files in SUBMISSION_DIR (flat, or inside one folder) and write "
        "Gradescope results.json. Student code runs in a separate, limited worker process. "
        "Exit status 0 whenever grading completed, whatever the score.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="example:\n  python -m autograder grade word2vec solutions/word2vec",
    )
    add_assignment(grade)
    grade.add_argument("submission", metavar="SUBMISSION_DIR", help="folder with the student's files")
    grade.add_argument(
        "--results",
        default="results.json",
        metavar="PATH",
        help="where to write results.json (default: ./results.json)",
    )
    grade.add_argument(
        "--public-only", action="store_true", help="run only the public tests (what students can run themselves)"
    )
    grade.add_argument(
        "-v",
        "--verbose",
        action="store_true",
        help="print the output of every failed test, and of passed tests that have one "
        "(a helper of another question replaced by the reference's)",
    )
    grade.set_defaults(run=_grade)


def add_grade_batch(commands: Commands) -> None:
    batch = commands.add_parser(
        "grade-batch",
        help="regrade a whole class from a Gradescope export: results, scores.csv, statistics",
        description="Grade every submission of a Gradescope 'Export Submissions' folder (the unpacked\n"
        "zip, with submission_metadata.yml at its top) and write to --out:\n"
        "  submissions/<folder>/results.json  Gradescope's results, one per submission\n"
        "  scores.csv      a row per student: name, sid, email, a column per question, total,\n"
        "                  and 'formula ID': the machine's verdict on the final formula of each\n"
        "                  derivation (equal, not equal, unreadable, unanswered)\n"
        "  statistics.csv  per question: mean, median, std, min, max, share with full marks\n"
        "  scores.png      the distribution of totals and the mean score of each question\n"
        "With --hand-graded CSV, the written questions graded by hand get their columns and count\n"
        "in the totals, statistics and plot: CSV is export-written's hand_graded.csv filled in,\n"
        "or Gradescope's score export of the written assignment (its columns name the ids).\n"
        "A submission that cannot be graded gets 0 with the reason; the batch goes on.\n"
        "Rerunning skips submissions already graded from the same files by the same grader,\n"
        "so an interrupted batch (Ctrl-C) resumes where it stopped; a submission whose files\n"
        "changed, or all of them after the grader changed, are graded again.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="example:\n  unzip assignment_123456_export.zip -d export\n"
        "  python -m autograder grade-batch word2vec export/assignment_123456_export --jobs 2 "
        "--out regrade-word2vec\n"
        "  python -m autograder grade-batch word2vec export --out regrade-word2vec --hand-graded "
        "written-word2vec/hand_graded.csv",
    )
    add_assignment(batch)
    batch.add_argument("export", metavar="EXPORT_DIR", help="the unpacked export (or the folder it was unpacked into)")
    batch.add_argument("--out", required=True, metavar="DIR", help="where results and the gradebook go")
    batch.add_argument(
        "--jobs",
        type=int,
        default=1,
        metavar="N",
        help="submissions graded at the same time (default 1; at most the number of cores)",
    )
    batch.add_argument(
        "--force", action="store_true", help="regrade every submission, even those graded before from the same files"
    )
    batch.add_argument(
        "--without-isolation",
        action="store_true",
        help="grade even where the students' code cannot get namespaces of its own (it could "
        "then read this user's files and reach the other submissions' processes)",
    )
    batch.add_argument(
        "--time-limit",
        type=float,
        metavar="SECONDS",
        help="stop the grading of one submission after SECONDS and give it 0 with the reason, so "
        "that no submission can hold the batch up (default: twice the sum of the questions' and the "
        "imports' time limits, plus 60 s; below that sum, a slow submission that is right may get 0, "
        "and the batch warns)",
    )
    batch.add_argument(
        "--hand-graded",
        metavar="CSV",
        help="points of the written questions graded by hand, merged into the gradebook: the "
        "hand_graded.csv that export-written writes, filled in, or Gradescope's score export",
    )
    batch.set_defaults(run=_grade_batch)


def add_release(commands: Commands) -> None:
    release = commands.add_parser(
        "release",
        help="write the student bundle (starter, handout notebook, self-check) to --out",
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
        "  python -m autograder release word2vec --out assignment/word2vec --force --starter-only",
    )
    add_assignment(release)
    release.add_argument("--out", required=True, metavar="DIR", help="folder to write (must be empty)")
    release.add_argument("--force", action="store_true", help="replace the contents of a non-empty --out")
    release.add_argument(
        "--starter-only", action="store_true", help="only the starter files (what assignment/ASSIGNMENT holds)"
    )
    release.add_argument(
        "--data", metavar="DIR", help="the folder of the data run.py trains on (default: found as described above)"
    )
    release.add_argument(
        "--without-data",
        action="store_true",
        help="leave the data out; the README then tells students where to download it",
    )
    release.set_defaults(run=_release)


def add_export_written(commands: Commands) -> None:
    export = commands.add_parser(
        "export-written",
        help="one HTML page per written question graded by hand, every student's answer on it",
        description="Read the written answers of every SOURCE: a Gradescope 'Export Submissions' folder\n"
        "(the unpacked zip), a submission folder, or an answer file (.ipynb or .md). Write to\n"
        "--out an index.html and, for each question graded by hand, a page with the question,\n"
        "the reference answer (folded) and every student's answer, math typeset as MathML, offline.\n"
        "The index lists students without an answer file and text placed under no question.\n"
        "On the page of a derivation whose final formula the machine checks, each answer shows\n"
        "the verdict (equal; not equal, with how it differs; unreadable, with why), and the\n"
        "answers come grouped by it, equal first.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="examples:\n"
        "  python -m autograder export-written parser export/assignment_123_export --out written-parser\n"
        "  python -m autograder export-written word2vec alice/written.md bob/word2vec.ipynb --out pages",
    )
    add_assignment(export)
    export.add_argument("sources", nargs="+", metavar="SOURCE", help="export folder, submission folder or answer file")
    export.add_argument("--out", required=True, metavar="DIR", help="folder for the HTML pages")
    export.set_defaults(run=_export_written)


def add_handouts(commands: Commands) -> None:
    handouts = commands.add_parser(
        "handouts",
        help="regenerate the notebooks, answer sheets and figures from handouts/NAME.md",
        description="Generate, from each handout source handouts/NAME.md, the notebook NAME.ipynb (with an\n"
        "answer cell per written question), the answer sheet NAME_answers.md and the figures,\n"
        "after checking the questions and points against the config. --check writes nothing\n"
        "and exits 1 if a committed file is out of date.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="examples:\n  python -m autograder handouts\n  python -m autograder handouts parser --check",
    )
    handouts.add_argument("assignments", nargs="*", metavar="ASSIGNMENT", help=f"default: all ({assignment_names()})")
    handouts.add_argument("--check", action="store_true", help="only report files that are out of date")
    handouts.set_defaults(run=_handouts)


def add_build(commands: Commands) -> None:
    build = commands.add_parser(
        "build",
        help="write the Gradescope autograder zip of one assignment",
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
        '  python -m autograder build parser --image ubuntu-24.04 --out "$(mktemp -d)/parser.zip"',
    )
    add_assignment(build)
    build.add_argument(
        "--out",
        required=True,
        metavar="ZIP",
        help="the zip to write; a file there is replaced, a symbolic link refused",
    )
    build.add_argument(
        "--image",
        choices=sorted(IMAGES),
        default=DEFAULT_IMAGE,
        help="the base image you choose in Gradescope's autograder settings: "
        + ", ".join(f"{i.name} ({i.title}, Python {i.python})" for i in IMAGES.values())
        + " (default: %(default)s)",
    )
    build.set_defaults(run=_build)


def add_gradescope(commands: Commands) -> None:
    gradescope = commands.add_parser(
        "gradescope",
        help="grade ROOT/submission into ROOT/results/results.json (what run_autograder runs)",
        description="Run by the zip's run_autograder for every submission: make ROOT/source, submission,\n"
        "results and submission_metadata.json private (when root), print the protections in\n"
        "force (instructors see this output, students do not), grade ROOT/submission and\n"
        "write ROOT/results/results.json, also when grading fails.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="example (in the unpacked zip, as Gradescope does):\n"
        "  cd /autograder/source && /autograder/venv/bin/python -m autograder gradescope word2vec",
    )
    add_assignment(gradescope)
    gradescope.add_argument(
        "--root", default=None, metavar="ROOT", help="the layout's root (default: $AUTOGRADER_ROOT, else /autograder)"
    )
    gradescope.set_defaults(run=_gradescope)


def _new(args: argparse.Namespace) -> int:
    from autograder.course.new import check_name, create, remove

    check_name(args.name)
    try:
        written = create(args.name, args.title)
    except BaseException:
        remove(args.name)  # nothing half-made stays behind to block the next try
        raise
    print(
        f"wrote {len(written)} files of the assignment {args.name}. Next: .venv/bin/python -m autograder grade "
        f"{args.name} solutions/{args.name}  (full marks), then make it yours: docs/authoring-guide.md"
    )
    return 0


def _validate(args: argparse.Namespace) -> int:
    from autograder.course.validate import print_outcomes, validate

    outcomes = validate(args.assignment)
    print_outcomes(args.assignment, outcomes)
    return 0 if all(o.ok is not False for o in outcomes) else 1


def add_validate(commands: Commands) -> None:
    validate = commands.add_parser(
        "validate",
        help="run every check the framework has on one assignment: is it ready to release?",
        description="Run the framework's checks on one assignment and print what holds, with the fix for\n"
        "what does not: the config and its points, the notation of derivations, the tests against\n"
        "the config, lint and format, the generated handouts, the reference answers' final formulas,\n"
        "the reference's full marks, the starter's 0 without a crash, and the bundle (nothing given\n"
        "away, its check passing the reference). While the config, the notation or the tests fail,\n"
        "the checks that would grade on them wait. Exit status 1 when any fails.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="example:\n  python -m autograder validate word2vec",
    )
    add_assignment(validate)
    validate.set_defaults(run=_validate)


def add_new(commands: Commands) -> None:
    new = commands.add_parser(
        "new",
        help="start a new assignment: a complete, working example to rewrite",
        description="Write a new assignment NAME that works from the start: a reference solution with\n"
        "solution markers (solutions/NAME/NAME.py), its config, public and hidden tests (a numeric\n"
        "check and a gradient check), a handout with an auto-graded written question, one graded by\n"
        "hand and a derivation whose final formula the machine reads, and their reference answers,\n"
        "all under autograder/assignments/NAME, solutions/NAME and handouts/NAME.md; then the\n"
        "generated handout notebook, answer sheet and starter (assignment/NAME). Refuses a NAME in\n"
        "use or one that is not a lowercase Python name. docs/authoring-guide.md says what goes where.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="example:\n  python -m autograder new bigrams --title 'Assignment 3: bigram language models'\n"
        "  python -m autograder grade bigrams solutions/bigrams",
    )
    new.add_argument("name", metavar="NAME", help="the assignment's name: lowercase letters, digits and _")
    new.add_argument("--title", help="its title in the handout and the results (default: an example's)")
    new.set_defaults(run=_new)


COMMANDS = (
    add_new,
    add_validate,
    add_grade,
    add_grade_batch,
    add_release,
    add_export_written,
    add_handouts,
    add_build,
    add_gradescope,
)
