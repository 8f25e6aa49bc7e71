"""The word2vec autograder, tested like a product: reference, starter, buggy submissions, CLI."""

from __future__ import annotations

import json
import re
import shutil
import subprocess

import pytest

from autograder.core.results import GradescopeResults
from tests.conftest import (PYTHON, assert_complete, check_bug_is_localised, check_starter_scores_zero,
                            lost_points, question_scores)
from tests.fixtures.mutants import bug
from tests.fixtures.word2vec_bugs import BUGS

pytestmark = pytest.mark.slow  # the end-to-end tier: -m slow (README: "Set up and test")

# Marked smoke one by one (also run on Python 3.10 and the newest Python, .ci/run): all but the
# planted bugs, which test the grader's logic, not the Python it runs on, and cost CI minutes there.


@pytest.mark.smoke
def test_reference_gets_full_marks(word2vec_grader, repo):
    results = word2vec_grader(repo / "solutions" / "word2vec")
    assert_complete(results, word2vec_grader)
    assert lost_points(results) == []
    assert results.score == pytest.approx(40)


@pytest.mark.smoke
def test_starter_gets_zero_without_crashing(word2vec_grader, repo):
    check_starter_scores_zero(word2vec_grader, repo / "assignment" / "word2vec")


@pytest.mark.smoke
def test_every_test_names_the_functions_it_calls(word2vec_grader, repo):
    results = word2vec_grader(repo / "solutions" / "word2vec")
    functions = {"nn_basics": ["softmax", "sigmoid", "sigmoid_grad", "forward_backward_prop", "input_gradient"],
                 "word2vec": ["sigmoid", "naive_softmax_loss_and_gradient", "neg_sampling_loss_and_gradient",
                              "get_negative_samples", "skipgram"],
                 "sgd": ["sgd"]}
    known = {f"{m}.{f}" for m, names in functions.items() for f in names}
    for test in results.tests:
        assert test.tags and set(test.tags) <= known, (test.number, test.tags)


@pytest.mark.parametrize("bug", BUGS, ids=[b.name for b in BUGS])
def test_bug_loses_points_only_where_it_is(bug, word2vec_grader, repo, tmp_path):
    check_bug_is_localised(bug, word2vec_grader, repo / "solutions" / "word2vec", tmp_path)


@pytest.mark.smoke
def test_gradient_feedback_separates_loss_and_gradient(word2vec_grader, repo, tmp_path):
    """A gradient bug with a correct loss: the loss test passes, the gradient test explains."""
    bug = next(b for b in BUGS if b.name == "naive softmax forgets to subtract the one-hot y")
    results = word2vec_grader.graded_bug(bug, tmp_path)
    by_number = {t.number: t for t in results.tests}
    assert by_number["2b.1"].status == "passed"  # the loss
    feedback = by_number["2b.2"].output
    assert "grad_center_vec" in feedback and "largest error" in feedback
    assert "does not match centred differences of your own loss" in feedback
    assert "your loss is right" in feedback


@pytest.mark.smoke
def test_missing_file_costs_only_its_questions(word2vec_grader, repo, tmp_path):
    submission = tmp_path / "submission"
    submission.mkdir()
    for name in ("nn_basics.py", "word2vec.py"):
        (submission / name).write_text((repo / "solutions" / "word2vec" / name).read_text())
    results = word2vec_grader(submission)
    assert_complete(results, word2vec_grader)
    assert {t.number.split(".")[0] for t in lost_points(results)} == {"3"}
    assert "sgd.py" in results.output
    assert all("sgd.py is not in your submission" in t.output for t in lost_points(results))


@pytest.mark.smoke
def test_submission_nested_in_one_folder(word2vec_grader, repo, tmp_path):
    import shutil
    shutil.copytree(repo / "solutions" / "word2vec", tmp_path / "upload" / "my_work")
    results = word2vec_grader(tmp_path / "upload")
    assert results.score == pytest.approx(40)


@pytest.mark.smoke
def test_cli_writes_results_and_table(repo, tmp_path):
    out = tmp_path / "out" / "results.json"
    run = subprocess.run([PYTHON, "-m", "autograder", "grade", "word2vec", "assignment/word2vec",
                          "--results", str(out)], cwd=repo, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    assert "Total: 0 / 40" in run.stdout and "skip-gram" in run.stdout
    results = GradescopeResults.model_validate(json.loads(out.read_text()))
    assert isinstance(json.loads(out.read_text())["execution_time"], float)
    assert len(results.tests) >= 9


@pytest.mark.smoke
def test_cli_missing_submission_still_writes_results(repo, tmp_path):
    out = tmp_path / "results.json"
    run = subprocess.run([PYTHON, "-m", "autograder", "grade", "word2vec", str(tmp_path / "nope"),
                          "--results", str(out)], cwd=repo, capture_output=True, text=True, timeout=120)
    assert run.returncode == 1
    results = GradescopeResults.model_validate(json.loads(out.read_text()))
    assert results.score == 0 and results.max_score == 40
    assert "does not exist" in results.output


@pytest.mark.smoke
def test_cli_unknown_assignment(repo):
    run = subprocess.run([PYTHON, "-m", "autograder", "grade", "nope", "x"], cwd=repo,
                         capture_output=True, text=True, timeout=60)
    assert run.returncode == 2 and "unknown assignment 'nope'" in run.stderr


def _self_check(submission, module: str) -> tuple[int, str]:
    """The exit status and what ``python MODULE.py`` prints in the submission's folder, as a student
    runs it (its public tests), with the lines a narrow terminal wraps joined."""
    run = subprocess.run([PYTHON, f"{module}.py"], cwd=submission, capture_output=True, text=True,
                         timeout=120)
    assert "Traceback" not in run.stdout + run.stderr, run.stdout + run.stderr
    return run.returncode, " ".join(run.stdout.split())


def test_skipgram_calling_the_loss_by_keyword_passes_everywhere(word2vec_grader, repo, tmp_path):
    """The docstring allows the loss's arguments by name: the self-check's spy and the grader agree."""
    by_keyword = bug("skipgram passes the loss its arguments by name", "word2vec.py",
                     "            center_vec, word2ind[word], outside_vectors, dataset\n",
                     "            center_word_vec=center_vec, outside_word_idx=word2ind[word],\n"
                     "            outside_vectors=outside_vectors, dataset=dataset,\n",
                     "word2vec.skipgram", "")
    submission = by_keyword.apply(repo / "solutions" / "word2vec", tmp_path / "submission")
    status, printed = _self_check(submission, "word2vec")
    assert status == 0 and "Public tests of word2vec.py" in printed, printed
    assert word2vec_grader(submission).score == pytest.approx(40)


# The tests of sgd's final x, which also check the two rules of its docstring.
SGD_VALUE_TESTS = {"3.1", "3.2", "3.3"}


def test_right_sgd_calling_f_twice_loses_exactly_the_stated_half(word2vec_grader, repo, tmp_path):
    """The docstring says a right x with a broken rule earns half of each test that sees it."""
    twice = next(b for b in BUGS if b.name == "sgd calls f twice per iteration")
    submission = twice.apply(repo / "solutions" / "word2vec", tmp_path / "submission")
    results = word2vec_grader(submission)
    assert_complete(results, word2vec_grader)
    for test in results.tests:
        if test.number in SGD_VALUE_TESTS:
            assert test.score == pytest.approx(test.max_score / 2), test.number
            assert "exactly once per iteration" in test.output and "half the points" in test.output
        else:
            assert test.score == pytest.approx(test.max_score), (test.number, test.output)
    assert question_scores(results)["3"] == pytest.approx((5 - 1.75, 5))
    status, printed = _self_check(submission, "sgd")
    assert status == 1 and "a rule is broken, which costs half the points" in printed
    assert "its docstring asks it to call f exactly once per iteration" in printed


def test_self_check_and_grader_agree_on_x0_in_place(word2vec_grader, repo, tmp_path):
    in_place = next(b for b in BUGS if b.name == "sgd modifies x0 in place")
    submission = in_place.apply(repo / "solutions" / "word2vec", tmp_path / "submission")
    status, printed = _self_check(submission, "sgd")
    # the final x is right, but the test that hands sgd an array sees it changed, as the grader does
    assert status == 1 and "3.2 sgd minimises a quadratic of an array" in printed
    assert "changed its argument 2 (an array of shape (3,) and dtype float64)" in printed
    array_test = {t.number: t for t in word2vec_grader(submission).tests}["3.2"]
    assert array_test.score == pytest.approx(array_test.max_score / 2)
    assert "The results are right, but a rule is broken" in array_test.output
    assert "sgd.sgd [f(x) = |x - (1, -2, 0.5)|^2 from (0, 0, 3), step 0.05] changed its argument 2" in array_test.output

    assert _self_check(repo / "solutions" / "word2vec", "sgd")[0] == 0


def test_a_helpers_bug_is_charged_once_and_named_where_it_is_replaced(word2vec_grader, repo, tmp_path):
    """Error carried forward: the tests of 1c, 1d and 2b run with the reference's softmax in place of
    a wrong one, pass, and say so; 1a alone loses the points."""
    bug = next(b for b in BUGS if b.name == "softmax normalises over the wrong axis")
    results = word2vec_grader.graded_bug(bug, tmp_path)
    by_number = {t.number: t for t in results.tests}
    for number in ("1c.1", "1c.2", "1c.3", "1d.1", "1d.2"):
        assert by_number[number].status == "passed", number
        assert ("Graded with the reference softmax in place of yours, which gives other values here: "
                "your softmax loses its points in question 1a, not here.") in by_number[number].output
    assert by_number["2b.1"].output == ""  # 1-D inputs: the student's softmax agrees, nothing to say


def test_a_transposed_gradient_is_called_that_in_every_test(word2vec_grader, repo, tmp_path):
    bug = next(b for b in BUGS if b.name == "naive softmax outside gradient transposed")
    results = word2vec_grader.graded_bug(bug, tmp_path)
    failed = [t for t in results.tests if t.status == "failed"]
    assert {t.number for t in failed} == {"2b.3", "2b.6"}  # public and hidden: the outside gradient
    for test in failed:
        assert "wrong shape" in test.output and "(transposed?)" in test.output
        assert "centred differences" not in test.output


def test_overflow_warnings_are_named_instead_of_the_formula(word2vec_grader, repo, tmp_path):
    """A gradient patched over an overflow (NaN turned into numbers) is not a wrong formula: the
    message says what the code warned, rather than blaming the formula."""
    target = tmp_path / "s"
    shutil.copytree(repo / "solutions" / "word2vec", target, ignore=shutil.ignore_patterns("__pycache__"))
    path = target / "word2vec.py"
    text = path.read_text()
    old = "    delta = y_hat.copy()  # dJ/d(scores) = y_hat - y\n"
    assert text.count(old) == 1
    path.write_text(text.replace(old, "    scores = np.exp(outside_vectors @ center_word_vec)\n"
                                      "    delta = np.nan_to_num(scores / scores.sum())\n"))
    results = word2vec_grader(target)
    test = next(t for t in results.tests if t.number == "2b.5")  # the hidden center gradient, large scores
    assert test.status == "failed"
    assert "RuntimeWarning" in test.output and "make that computation stable first" in test.output
    assert "the gradient formula is wrong" not in test.output


def test_memory_read_before_it_is_written_scores_the_same_every_time_and_says_so(word2vec_grader, repo, tmp_path):
    """A skip-gram that sums into np.empty_like scored 38 or 36 of 40 from one grading to the next:
    the worker's memory now holds the same bytes every time, and another fill tells the student."""
    empty = bug("skipgram sums into np.empty_like", "word2vec.py",
                "    grad_outside_vectors = np.zeros(outside_vectors.shape)",
                "    grad_outside_vectors = np.empty_like(outside_vectors)", "word2vec.skipgram", "2d")
    submission = empty.apply(repo / "solutions" / "word2vec", tmp_path / "submission")
    first, second = (word2vec_grader(submission) for _ in range(2))
    assert [(t.number, t.score) for t in first.tests] == [(t.number, t.score) for t in second.tests]
    lost = lost_points(first)
    assert lost and {t.number.split(".")[0] for t in lost} == {"2d"}
    assert any("depends on memory your code reads before it writes it" in t.output and "np.empty" in t.output
               for t in lost)


def test_a_helper_that_changes_its_argument_is_charged_to_its_own_question(word2vec_grader, tmp_path):
    """The sigmoid that overwrote its argument kept 2a at full marks while a right 2c lost half: 2a
    now sees its input changed, and 2c, graded with the reference's sigmoid, says why."""
    overwrites = next(b for b in BUGS if b.name == "word2vec sigmoid overwrites its argument")
    results = word2vec_grader.graded_bug(overwrites, tmp_path)
    assert {t.number.split(".")[0] for t in lost_points(results)} == {"2a"}
    notes = [t.output for t in results.tests if t.number.startswith("2c.") and "in place of yours" in t.output]
    assert notes and all("which changes the arrays it is given" in note for note in notes), notes


def test_a_flat_gradient_names_the_parameter_and_its_entry(word2vec_grader, repo, tmp_path):
    """1c's gradient is one flat vector: the feedback names b2[0, 2], not index 42 of 43."""
    doubled = bug("grad_b2 doubled", "nn_basics.py", "    grad_b2 = np.sum(delta_scores, axis=0, keepdims=True)",
                  "    grad_b2 = 2 * np.sum(delta_scores, axis=0, keepdims=True)", "nn_basics.forward_backward_prop",
                  "1c")
    results = word2vec_grader(doubled.apply(repo / "solutions" / "word2vec", tmp_path / "s"))
    output = next(t.output for t in results.tests if t.number == "1c.2")
    assert re.search(r"largest error [0-9.]+ at b2\[0, \d\]", output) and "centred differences" in output, output


def test_negatives_drawn_twice_or_elsewhere_are_named_as_such(word2vec_grader, repo, tmp_path):
    """The dataset counts its draws: a second call of get_negative_samples, or negatives taken from
    np.random, are named in 2c's feedback."""
    old = "    neg_sample_word_indices = get_negative_samples(outside_word_idx, dataset, K)\n"
    cases = {"twice": "    get_negative_samples(outside_word_idx, dataset, K)\n" + old,
             "np.random": "    neg_sample_word_indices = list(np.random.randint(0, outside_vectors.shape[0], K))\n"}
    for name, new in cases.items():
        edit = bug(name, "word2vec.py", old, new, "word2vec.neg_sampling_loss_and_gradient", "2c")
        results = word2vec_grader(edit.apply(repo / "solutions" / "word2vec", tmp_path / name))
        outputs = " ".join(t.output for t in lost_points(results) if t.number.startswith("2c."))
        said = "(did you draw twice?)" if name == "twice" else "drew no sample from the dataset"
        assert said in outputs, outputs


def test_a_warning_in_the_graders_test_code_does_not_show_its_path(word2vec_grader, repo, tmp_path):
    """A skip-gram that hands the probe loss a center vector to overflow sets off a warning in the
    probe's file: the student reads that it was in the autograder's test code, not where it lives."""
    huge = bug("skipgram scales the center vector", "word2vec.py", "    center_vec = center_word_vectors[center_idx]",
               "    center_vec = center_word_vectors[center_idx] * 1e308", "word2vec.skipgram", "2d")
    results = word2vec_grader(huge.apply(repo / "solutions" / "word2vec", tmp_path / "s"))
    outputs = "\n".join(t.output for t in results.tests)
    assert "(the autograder's test code): RuntimeWarning" in outputs
    assert "autograder/assignments" not in outputs
