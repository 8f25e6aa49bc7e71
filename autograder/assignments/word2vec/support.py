"""Grader-side helpers shared by the public and hidden word2vec tests: seeded inputs and the
checks that several tests repeat. Public, so it must not hold expected values."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from autograder.contract.protocol import FixtureRef
from autograder.grading import checks
from autograder.grading.testing import GradedTestCase

NETWORK_TAGS = ("nn_basics.softmax", "nn_basics.sigmoid", "nn_basics.sigmoid_grad")
WORDS = "abcdefghijklmnopqrstuvwxyz"


def network(dims: list[int], n: int, seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Inputs X (n, Dx), one-hot labels (n, Dy) and flat params of a [Dx, H, Dy] network."""
    rng = np.random.default_rng(seed)
    dx, h, dy = dims
    X = rng.standard_normal((n, dx))
    labels = np.zeros((n, dy))
    labels[np.arange(n), rng.integers(0, dy, n)] = 1.0
    params = 0.5 * rng.standard_normal(dx * h + h + h * dy + dy)
    return X, labels, params


def network_layout(dims: list[int]) -> checks.Layout:
    """Names the entries of the flat parameter vector of a [Dx, H, Dy] network (b2[0, 3])."""
    dx, h, dy = dims
    return checks.flat_layout([("W1", (dx, h)), ("b1", (1, h)), ("W2", (h, dy)), ("b2", (1, dy))])


def vectors(n_words: int, dim: int, seed: int, scale: float = 1.0) -> tuple[np.ndarray, np.ndarray, int]:
    """A center vector (dim,), outside vectors (n_words, dim) and an outside word index."""
    rng = np.random.default_rng(seed)
    return (scale * rng.standard_normal(dim), scale * rng.standard_normal((n_words, dim)), int(rng.integers(n_words)))


class LossTestsMixin(GradedTestCase):
    """Checks of a word2vec loss: its value, the center gradient, the outside gradient."""

    target = ""

    def loss_case(
        self,
        n_words: int,
        dim: int,
        seed: int,
        part: str,
        case: str,
        scale: float = 1.0,
        samples: list[int] | None = None,
        K: int = 10,
        best_outside: bool = False,
    ) -> None:
        """``best_outside`` makes the highest-scoring word the outside word: with large scores,
        any other word's probability underflows to 0 and its loss is inf even when computed well."""
        v_c, U, o = vectors(n_words, dim, seed, scale)
        if best_outside:
            o = int(np.argmax(U @ v_c))
        extra = (K,) if samples is not None else ()
        dataset = FixtureRef("ScriptedDataset", (n_words, samples), id="dataset") if samples is not None else None
        args = [v_c, o, U, dataset, *extra]
        reference = self.expect_full(self.target, *args)
        result = self.call_full(self.target, *args, case=case)
        try:
            self.check_part(args, part, case, reference.value, result.value)
        except AssertionError as wrong:
            self.fail(f"{wrong}{_draws_note(result.fixtures, reference.fixtures, K)}")

    def check_part(self, args: list, part: str, case: str, expected, value) -> None:
        loss, grad_center, grad_outside = self.unpack(value, 3, self.target, case=case)
        if part == "loss":
            self.assert_close(loss, expected[0], "loss", case=case)
        elif part == "center":
            self.assert_gradient(
                self.target,
                args,
                0,
                grad=grad_center,
                expected_grad=expected[1],
                loss=loss,
                expected_loss=expected[0],
                what="grad_center_vec",
                case=case,
            )
        else:
            self.assert_gradient(
                self.target,
                args,
                2,
                grad=grad_outside,
                expected_grad=expected[2],
                loss=loss,
                expected_loss=expected[0],
                what="grad_outside_vecs",
                case=case,
                rows=True,
            )


class SkipgramTestsMixin(GradedTestCase):
    def skipgram_case(self, n_words: int, dim: int, center: str, outside: list[str], seed: int, *, case: str) -> tuple:
        """Runs the student's and the reference's skipgram with the probe loss."""
        rng = np.random.default_rng(seed)
        word2ind = {w: i for i, w in enumerate(WORDS[:n_words])}
        V = rng.standard_normal((n_words, dim))
        U = rng.standard_normal((n_words, dim))
        args = [center, 3, list(outside), word2ind, V, U, None, FixtureRef("ProbeLoss", id="loss")]
        expected = self.expect_full("word2vec.skipgram", *args)
        result = self.call_full("word2vec.skipgram", *args, case=case)
        got = self.unpack(result.value, 3, "skipgram", case=case)
        return got, expected.value, result.fixtures["loss"], expected.fixtures["loss"], V[word2ind[center]]

    def check_skipgram_values(self, *spec, case: str) -> None:
        got, expected, _, _, _ = self.skipgram_case(*spec, case=case)
        self.assert_close(got[0], expected[0], "loss", case=case)
        self.assert_close(got[1], expected[1], "grad_center_vecs", case=case, rows=True)
        self.assert_close(got[2], expected[2], "grad_outside_vectors", case=case, rows=True)


class SgdTestsMixin(GradedTestCase):
    def sgd_case(
        self,
        points: float,
        set_score: Callable[[float], None],
        target,
        x0,
        step: float,
        iterations: int,
        case: str,
        scale: float = 1.0,
    ) -> None:
        """sgd on a quadratic: its final x, and the rules of its docstring.

        A wrong x earns nothing; a right x reached while calling f more than once per iteration, or
        while changing x0 (a rule every function keeps), earns the share of a broken rule
        (:data:`~autograder.grading.testing.RULE_BROKEN_SHARE`), and the message says which rule."""
        f = FixtureRef("Quadratic", (target, scale), id="f")
        expected = self.expect_full("sgd.sgd", f, x0, step, iterations, use_saved=False, print_every=None)
        set_score(0.0)
        result = self.call_full("sgd.sgd", f, x0, step, iterations, use_saved=False, print_every=None, case=case)
        calls, expected_calls = result.fixtures["f"]["calls"], expected.fixtures["f"]["calls"]
        if calls != expected_calls:
            self.broken_rules.append(
                f"sgd [{case}] called f {calls} times in {iterations} iterations; its docstring asks it to call f "
                f"exactly once per iteration ({expected_calls} calls)"
            )
        self.assert_close(result.value, expected.value, "final x", case=case, rtol=1e-7, atol=1e-10)
        set_score(points)


def _draws_note(mine: dict, theirs: dict, K: int) -> str:
    """What the student's code drew from the dataset, where that explains a wrong result."""
    drew, needed = (report.get("dataset", {}).get("draws") for report in (mine, theirs))
    if drew is None or drew == needed:
        return ""
    if drew == 0:
        return (
            f"\nYour code drew no sample from the dataset: the K = {K} negatives must come from "
            "dataset.sample_token_idx(), through get_negative_samples (not from np.random or random)."
        )
    return (
        f"\nYour code drew {drew} samples from the dataset, where K = {K} negatives take {needed} "
        "(a draw of the outside word is drawn again): call get_negative_samples once per call, and "
        f"use every index it gives{' (did you draw twice?)' if drew > needed else ''}."
    )
