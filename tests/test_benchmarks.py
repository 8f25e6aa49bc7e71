"""The benchmark scripts keep working: each runs in its smoke mode and its own consistency checks hold.

Speeds are never asserted here (they belong in benchmarks/README.md); what is asserted is what each
script checks about the things it compares: the same scores, the same verdicts, the same results.
"""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import pytest

from benchmarks.cgroup import ROOT as CGROUP_ROOT
from benchmarks.cgroup import MemoryCgroup

pytestmark = pytest.mark.slow  # the end-to-end tier: -m slow (README: "Set up and test")

PYTHON = sys.executable
BENCHMARKS = Path(__file__).resolve().parents[1] / "benchmarks"
HAS_TORCH = importlib.util.find_spec("torch") is not None
CGROUP = os.geteuid() == 0 and CGROUP_ROOT.is_dir()


def run(script: str, *arguments: str, timeout: float = 600) -> str:
    result = subprocess.run([PYTHON, str(BENCHMARKS / script), *arguments], capture_output=True, text=True,
                            timeout=timeout, cwd=BENCHMARKS.parent)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    return result.stdout


def test_grading_latency_grades_the_references_with_full_marks():
    output = run("grading_latency.py", "--quick", *([] if CGROUP else ["--no-cgroup"]))
    assert "word2vec, all cores:" in output and "word2vec, one core, 768 MB:" in output
    assert "wall time" in output and "largest worker RSS" in output


@pytest.mark.skipif(os.geteuid() != 0, reason="compares with the protections of a root grader")
def test_isolation_benchmark_scores_both_sides_alike():
    output = run("isolation.py", "--quick")  # exits with an error if the sides score differently
    assert "before (no namespaces)" in output and "grading word2vec's reference" in output
    assert "with namespaces" in output or "namespaces, memory cgroup" in output  # the latter where cgroups can be made


def test_worker_overhead_scores_both_sides_alike():
    output = run("worker_overhead.py", "--quick")  # exits with an error if the sides score differently
    assert "with workers" in output and "in process" in output and "the workers add" in output


def test_gradient_check_sides_flag_the_same_submissions():
    output = run("gradient_check.py", "--quick")
    assert output.count("both sides flag exactly the buggy submissions and pass the reference") == 2


def test_carried_forward_never_scores_less_and_leaves_the_reference_alone():
    output = run("carried_forward.py", "--quick")  # exits with an error if a side scores less with it
    rows = [line.split() for line in output.splitlines() if line.startswith(("word2vec:", "parser:"))]
    assert len(rows) == 4
    for row in rows:
        with_it, without = float(row[-2]), float(row[-1])
        assert with_it >= without
        if row[1] == "reference":
            assert with_it == without and with_it in (40.0, 55.0)
        else:
            assert with_it > without  # the planted helper bug cost points in other questions


def test_written_reading_reads_every_file_within_its_time_limit():
    output = run("written_reading.py", "--quick")  # exits with an error if a file meets the time limit
    rows = [line for line in output.splitlines() if ": read and grade " in line]
    assert len(rows) == 4 and all("check-written" in row and "export" in row for row in rows)
    assert "slowest reading and grading:" in output


def test_derivations_benchmark_reports_every_question_and_no_false_equal():
    output = run("derivations.py")  # exits with an error on a false equal
    assert "goals: no false equal (met)" in output
    assert all(f"word2vec {q}" in output for q in ("1c-i", "1d-i", "2b-ii", "2b-iii", "2b-iv", "2c-i", "2c-ii"))


def test_batch_regrade_writes_the_gradebook():
    output = run("batch_regrade.py", "--submissions", "4", "--jobs", "1", "2", "--runs", "1")
    assert "4 word2vec submissions" in output
    assert "--jobs 1:" in output and "--jobs 2:" in output


@pytest.mark.skipif(not CGROUP, reason="a memory cgroup needs root and cgroup v1")
def test_memory_cgroup_measures_and_confines_a_process_and_its_children():
    hog = "import numpy; a = numpy.ones(200 * 2**20 // 8); print(a.sum())"
    measured = MemoryCgroup(f"test-measure-{os.getpid()}")
    try:
        subprocess.run([PYTHON, "-c", f"import subprocess, sys; subprocess.run([sys.executable, '-c', {hog!r}])"],
                       preexec_fn=measured.enter, check=True, capture_output=True)
        assert measured.peak_bytes > 200 * 2**20 and measured.oom_kills == 0  # the grandchild counts
    finally:
        measured.remove()
    limited = MemoryCgroup(f"test-limit-{os.getpid()}", limit_bytes=100 * 2**20)
    try:
        result = subprocess.run([PYTHON, "-c", hog], preexec_fn=limited.enter, capture_output=True)
        assert result.returncode == -9 and limited.oom_kills >= 1
    finally:
        limited.remove()


@pytest.mark.realdata
def test_word2vec_training_compares_one_algorithm(ewt):
    output = run("word2vec_training.py", "--quick", "--data", str(ewt))
    assert "both sides give the same loss and gradient on the same batches" in output
    assert "reference / loop:" in output


@pytest.mark.realdata
@pytest.mark.skipif(not HAS_TORCH, reason="needs PyTorch: ./setup.sh --with-torch")
def test_parser_training_trains_both_sides(ewt):
    output = run("parser_training.py", "--quick", "--data", str(ewt))
    assert "numpy / torch float64 =" in output
    for side in ("numpy float64", "torch float64"):
        assert f"dev UAS after each epoch, {side}:" in output


def test_mutation_benchmark_grades_its_mutants_twice_and_checks_them():
    output = run("mutation.py", "--quick", "--jobs", "2")
    assert "word2vec: 4 mutants" in output and "caught " in output and "check agrees with grade" in output
    assert "the same score twice" in output and "self-check" not in output  # the self-check is check


@pytest.mark.parametrize("name", ["word2vec", "parser"])
def test_mutation_oracle_sees_the_reference_alike_and_a_mutant_apart(name, tmp_path):
    """The scenarios must observe the reference the same way twice (or every mutant would look
    different), and see a mutant of every graded function differ."""
    from benchmarks.mutation import ASSIGNMENTS, folder_for, select
    from benchmarks.mutants import oracle
    from benchmarks.mutants.operators import mutants_of

    files, scenarios = ASSIGNMENTS[name]
    modules = [f.removesuffix(".py") for f in files] + ["utils"]
    first, second = (oracle.observe(folder_for(name, None, tmp_path, i), modules, scenarios) for i in (0, 1))
    assert oracle.difference(first, second) is None
    assert not any(isinstance(v, tuple) for v in first.values()), first  # no scenario raised on the reference
    solutions = BENCHMARKS.parent / "solutions" / name
    mutants = select([m for f in files for m in mutants_of(solutions / f, f)], 10_000, 0)
    # a removed statement of each function: its return, else its last (both change what it does)
    removed = sorted((m for m in mutants if m.operator == "statement"), key=lambda m: (m.before.startswith("return"), m.line))
    statements = {m.function: m for m in removed}
    seen = {function: oracle.difference(oracle.observe(folder_for(name, mutant, tmp_path, i + 2), modules,
                                                       scenarios), first)
            for i, (function, mutant) in enumerate(statements.items())}
    assert all(seen.values()), [function for function, where in seen.items() if not where]
