"""Skip-gram word2vec with naive-softmax and negative-sampling losses.

Run `python word2vec.py` to check your work.

Two rules hold for every function you write, and `python word2vec.py`, the
autograder's `check` and the grader all hold you to them: a function
changes none of the arrays and lists it is given (unless its docstring
says so), and it gives the same result whenever it gets the same inputs.
A right result that changes an input earns half a test's points; one that
changes from one call to the next earns none. Numbers are compared
with the reference's within a relative 1e-5 (an absolute 1e-7 near zero;
for a gradient, 1e-6 of its largest entry).

Notation (one word per row everywhere):
    v_c          center word vector, shape (d,)
    U            outside word vectors, shape (|V|, d); row w is u_w
    o            index of the observed outside (context) word
    sigma        the logistic sigmoid
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence

import numpy as np

from nn_basics import softmax
from utils.gradcheck import assert_gradient
from utils.sanity import run_checks
from utils.utils import normalize_rows

# (loss, gradient for v_c of shape (d,), gradient for U of shape (|V|, d))
LossAndGradients = tuple[float, np.ndarray, np.ndarray]


# sigmoid must give finite values however large |x| is: 0 for x = -800 and 1 for x = 800,
# never NaN (the grader checks it). np.exp may warn that it overflows on the way; a warning is
# harmless as long as the result is right.
def sigmoid(x: np.ndarray) -> np.ndarray:
    """Element-wise logistic function 1 / (1 + exp(-x)), for a scalar or any array."""
    ### BEGIN SOLUTION
    return 1.0 / (1.0 + np.exp(-x))
    ### END SOLUTION


def naive_softmax_loss_and_gradient(
    center_word_vec: np.ndarray,
    outside_word_idx: int,
    outside_vectors: np.ndarray,
    dataset,
) -> LossAndGradients:
    """Loss and gradients for one (center, outside) pair, full softmax.

    The model says P(O = o | C = c) = softmax(U v_c)_o, and the loss is the
    cross-entropy -log softmax(U v_c)_o.

    Args:
        center_word_vec: v_c, shape (d,).
        outside_word_idx: o, the index of the outside word.
        outside_vectors: U, shape (|V|, d).
        dataset: unused here; present so that both losses can be called
            the same way.

    Returns:
        (loss, grad_center_vec, grad_outside_vecs) with shapes (), (d,) and
        (|V|, d).

    Use `softmax` from nn_basics.py (your own, from the warm-up). Hint: with
    y_hat = softmax(U v_c) and y the one-hot vector of o, the gradient with
    respect to the scores U v_c is y_hat - y.
    """
    ### BEGIN SOLUTION
    y_hat = softmax(outside_vectors @ center_word_vec)  # (|V|,)
    loss = -np.log(y_hat[outside_word_idx])

    delta = y_hat.copy()  # dJ/d(scores) = y_hat - y
    delta[outside_word_idx] -= 1.0
    grad_center_vec = delta @ outside_vectors  # (d,)
    grad_outside_vecs = np.outer(delta, center_word_vec)  # (|V|, d)
    return float(loss), grad_center_vec, grad_outside_vecs
    ### END SOLUTION


def get_negative_samples(outside_word_idx: int, dataset, K: int) -> list[int]:
    """Draw K negative word indices, never equal to the outside word.

    Each draw comes from `dataset.sample_token_idx()`; a draw equal to
    `outside_word_idx` is replaced by a new draw. Other repeats are allowed:
    the same negative can appear several times.
    """
    negatives = []
    while len(negatives) < K:
        index = dataset.sample_token_idx()
        if index != outside_word_idx:
            negatives.append(index)
    return negatives


def neg_sampling_loss_and_gradient(
    center_word_vec: np.ndarray,
    outside_word_idx: int,
    outside_vectors: np.ndarray,
    dataset,
    K: int = 10,
) -> LossAndGradients:
    """Loss and gradients for one (center, outside) pair, negative sampling.

    With K negative samples w_1..w_K,

        loss = -log sigma(u_o . v_c) - sum_k log sigma(-u_{w_k} . v_c)

    A negative drawn twice appears twice in the sum, and so contributes
    twice to the gradient of its row of U.

    Args and returns: as for `naive_softmax_loss_and_gradient`; `dataset`
    supplies the negative samples.

    Hints: use `sigmoid` from this file, and no Python loop over the
    samples. Put a sign +1 (outside word) or -1 (negatives) in front of each
    score, so all K+1 terms look alike. To add rows into an array when an
    index may repeat, use np.add.at: `grad[indices] += rows` would keep only
    one of the repeated rows.
    """
    # The outside word first, then the negatives.
    neg_sample_word_indices = get_negative_samples(outside_word_idx, dataset, K)
    indices = [outside_word_idx] + neg_sample_word_indices

    ### BEGIN SOLUTION
    rows = np.array(indices)
    signs = np.array([1.0] + [-1.0] * K)  # +1 for the outside word, -1 for negatives
    vectors = outside_vectors[rows]  # (K+1, d)
    probs = sigmoid(signs * (vectors @ center_word_vec))  # sigma(+-u . v_c), (K+1,)
    loss = -np.log(probs).sum()

    # d/dz of -log sigma(s z) is s (sigma(s z) - 1), with z = u . v_c.
    delta = signs * (probs - 1.0)  # (K+1,)
    grad_center_vec = delta @ vectors  # (d,)
    grad_outside_vecs = np.zeros(outside_vectors.shape)
    np.add.at(grad_outside_vecs, rows, np.outer(delta, center_word_vec))
    return float(loss), grad_center_vec, grad_outside_vecs
    ### END SOLUTION


def skipgram(
    current_center_word: str,
    window_size: int,
    outside_words: Sequence[str],
    word2ind: dict[str, int],
    center_word_vectors: np.ndarray,
    outside_vectors: np.ndarray,
    dataset,
    word2vec_loss_and_gradient: Callable[..., LossAndGradients] = naive_softmax_loss_and_gradient,
) -> LossAndGradients:
    """Skip-gram loss and gradients for one window.

    The loss is the sum, over every word in `outside_words` (repeats
    included), of word2vec_loss_and_gradient for that word and the center.

    Args:
        current_center_word: the center word, a string.
        window_size: the window size C (not needed for the computation).
        outside_words: the context words, strings; may contain repeats.
        word2ind: word -> row index in the vector matrices.
        center_word_vectors: shape (|V|, d), one center vector per row.
        outside_vectors: U, shape (|V|, d).
        dataset: passed on to the loss function.
        word2vec_loss_and_gradient: called once per outside word, with the
            arguments (center_word_vec, outside_word_idx, outside_vectors,
            dataset), given by position or by these names.

    Returns:
        (loss, grad_center_vecs, grad_outside_vectors), the gradients shaped
        (|V|, d); only the center word's row of grad_center_vecs is non-zero.
    """
    ### BEGIN SOLUTION
    center_idx = word2ind[current_center_word]
    center_vec = center_word_vectors[center_idx]

    loss = 0.0
    grad_center_vecs = np.zeros(center_word_vectors.shape)
    grad_outside_vectors = np.zeros(outside_vectors.shape)
    for word in outside_words:
        pair_loss, grad_center, grad_outside = word2vec_loss_and_gradient(
            center_vec, word2ind[word], outside_vectors, dataset
        )
        loss += pair_loss
        grad_center_vecs[center_idx] += grad_center
        grad_outside_vectors += grad_outside
    return loss, grad_center_vecs, grad_outside_vectors
    ### END SOLUTION


def word2vec_sgd_wrapper(
    word2vec_model: Callable[..., LossAndGradients],
    word2ind: dict[str, int],
    word_vectors: np.ndarray,
    dataset,
    window_size: int,
    word2vec_loss_and_gradient: Callable[..., LossAndGradients] = naive_softmax_loss_and_gradient,
) -> tuple[float, np.ndarray]:
    """Average loss and gradient over a mini-batch of 50 random windows.

    Args:
        word2vec_model: e.g. `skipgram`.
        word2ind: word -> row index.
        word_vectors: shape (2|V|, d): the center vectors in the first |V|
            rows, the outside vectors in the last |V| rows.
        dataset: supplies windows (get_random_context) and negatives.
        window_size: the largest window size; each window draws its own
            size uniformly from 1..window_size, so near words are seen
            more often than far ones.
        word2vec_loss_and_gradient: the per-pair loss.

    Returns:
        (loss, grad) with grad shaped like word_vectors.
    """
    batch_size = 50
    n_words = word_vectors.shape[0] // 2
    center_word_vectors = word_vectors[:n_words]
    outside_vectors = word_vectors[n_words:]

    loss = 0.0
    grad = np.zeros_like(word_vectors)
    grad_center = grad[:n_words]  # views: adding to them fills `grad`
    grad_outside = grad[n_words:]
    for _ in range(batch_size):
        window_size1 = random.randint(1, window_size)
        center_word, context = dataset.get_random_context(window_size1)
        window_loss, window_grad_center, window_grad_outside = word2vec_model(
            center_word,
            window_size1,
            context,
            word2ind,
            center_word_vectors,
            outside_vectors,
            dataset,
            word2vec_loss_and_gradient,
        )
        loss += window_loss
        grad_center += window_grad_center
        grad_outside += window_grad_outside
    # Dividing once at the end is cheaper than scaling every window.
    grad /= batch_size
    return loss / batch_size, grad


# --------------------------------------------------------------------------
# Sanity checks: run `python word2vec.py`.
# --------------------------------------------------------------------------

DUMMY_WORDS = ["a", "b", "c", "d", "e"]


class DummyDataset:
    """A five-word stand-in for Corpus, driven by Python's `random`.

    Negatives are uniform over the five words; a context is 2C random words,
    which may repeat and may include the center word itself.
    """

    def sample_token_idx(self) -> int:
        return random.randint(0, len(DUMMY_WORDS) - 1)

    def get_random_context(self, C: int) -> tuple[str, list[str]]:
        center = random.choice(DUMMY_WORDS)
        return center, [random.choice(DUMMY_WORDS) for _ in range(2 * C)]


class ScriptedDataset:
    """Returns a fixed list of token indices, in order, as 'random' samples."""

    def __init__(self, draws: Sequence[int]) -> None:
        self._draws = list(draws)

    def sample_token_idx(self) -> int:
        return self._draws.pop(0)


def _dummy_setup() -> tuple[DummyDataset, dict[str, int], np.ndarray]:
    """Seeded dataset, vocabulary and (2|V|, 3) word vectors for the checks."""
    random.seed(31415)
    np.random.seed(9265)
    word2ind = {word: i for i, word in enumerate(DUMMY_WORDS)}
    word_vectors = normalize_rows(np.random.randn(2 * len(DUMMY_WORDS), 3))
    return DummyDataset(), word2ind, word_vectors


def _assert_close(actual, expected, what: str) -> None:
    actual, expected = np.asarray(actual, dtype=float), np.asarray(expected, dtype=float)
    assert actual.shape == expected.shape, (
        f"{what}: shape {actual.shape}, expected {expected.shape}"
    )
    assert np.allclose(actual, expected, rtol=1e-6, atol=1e-7), (
        f"{what}: got\n{actual}\nexpected\n{expected}"
    )


def check_sigmoid() -> None:
    _assert_close(sigmoid(np.array([0.0, 1.0, -2.0])), [0.5, 0.73105858, 0.11920292], "sigmoid")
    _assert_close(sigmoid(0.0), 0.5, "sigmoid of a scalar")
    _assert_close(sigmoid(np.array([-800.0, 800.0])), [0.0, 1.0], "sigmoid for large |x|")


# Small fixed inputs for the known-value checks.
_V_C = np.array([0.5, -1.0, 2.0])
_U = np.array([[1.0, 0.0, 0.5], [0.0, 1.0, -1.0], [-0.5, 0.5, 0.0], [2.0, 1.0, 0.0]])


def check_naive_softmax_values() -> None:
    loss, grad_center, grad_outside = naive_softmax_loss_and_gradient(_V_C, 0, _U, None)
    _assert_close(loss, 0.29239971, "loss")
    _assert_close(grad_center, [0.0402514, 0.21419121, -0.13505748], "grad_center_vec")
    expected_outside = [
        [-0.12676495, 0.2535299, -0.50705979],
        [0.00414627, -0.00829253, 0.01658507],
        [0.03933868, -0.07867737, 0.15735474],
        [0.08328, -0.16655999, 0.33311999],
    ]
    _assert_close(grad_outside, expected_outside, "grad_outside_vecs")


def check_neg_sampling_values() -> None:
    # Outside word 0; negatives 3, 2, 3: word 3 is drawn twice and must count twice.
    dataset = ScriptedDataset([3, 2, 3])
    loss, grad_center, grad_outside = neg_sampling_loss_and_gradient(_V_C, 0, _U, dataset, K=3)
    _assert_close(loss, 1.97457865, "loss")
    _assert_close(grad_center, [1.65716383, 1.16041065, -0.09121276], "grad_center_vec")
    expected_outside = [
        [-0.09121276, 0.18242552, -0.36485105],
        [0.0, 0.0, 0.0],
        [0.16041065, -0.3208213, 0.6416426],
        [0.5, -1.0, 2.0],
    ]
    _assert_close(grad_outside, expected_outside, "grad_outside_vecs")


def _check_loss_gradients(loss_fn: Callable[..., LossAndGradients]) -> None:
    """Gradient-check `loss_fn` with respect to v_c, then with respect to U."""
    dataset, _, word_vectors = _dummy_setup()
    center_vec, outside_vectors = word_vectors[0], word_vectors[5:]
    outside_idx = 2

    def as_function_of_center(v: np.ndarray) -> tuple[float, np.ndarray]:
        loss, grad_center, _ = loss_fn(v, outside_idx, outside_vectors, dataset)
        return loss, grad_center

    def as_function_of_outside(u: np.ndarray) -> tuple[float, np.ndarray]:
        loss, _, grad_outside = loss_fn(center_vec, outside_idx, u, dataset)
        return loss, grad_outside

    assert_gradient(as_function_of_center, center_vec, "grad_center_vec")
    assert_gradient(as_function_of_outside, outside_vectors, "grad_outside_vecs")


def check_naive_softmax_gradient() -> None:
    _check_loss_gradients(naive_softmax_loss_and_gradient)


def check_neg_sampling_gradient() -> None:
    _check_loss_gradients(neg_sampling_loss_and_gradient)


def check_skipgram_calls() -> None:
    calls = []

    # The parameter names are those the docstring of skipgram gives, so the
    # arguments may come by position or by name.
    def spy_loss(center_word_vec, outside_word_idx, outside_vectors, dataset):
        calls.append(outside_word_idx)
        return (
            1.0,
            center_word_vec + outside_word_idx,
            np.full(outside_vectors.shape, float(outside_word_idx)),
        )

    _, word2ind, word_vectors = _dummy_setup()
    center_vectors, outside_vectors = word_vectors[:5], word_vectors[5:]
    outside_words = ["b", "c", "b", "a"]  # a repeat, and the center word itself
    loss, grad_center, grad_outside = skipgram(
        "a", 2, outside_words, word2ind, center_vectors, outside_vectors, "dataset", spy_loss
    )
    assert sorted(calls) == [0, 1, 1, 2], (
        f"expected one loss call per outside word, got indices {calls}"
    )
    _assert_close(loss, 4.0, "loss (sum over outside words)")
    expected_center = np.zeros_like(center_vectors)
    expected_center[0] = 4 * center_vectors[0] + 4.0
    _assert_close(grad_center, expected_center, "grad_center_vecs")
    _assert_close(grad_outside, np.full(outside_vectors.shape, 4.0), "grad_outside_vectors")


def _check_skipgram_gradient(loss_fn: Callable[..., LossAndGradients]) -> None:
    dataset, word2ind, word_vectors = _dummy_setup()
    assert_gradient(
        lambda vec: word2vec_sgd_wrapper(skipgram, word2ind, vec, dataset, 5, loss_fn),
        word_vectors,
        f"skipgram with {loss_fn.__name__}",
    )


def check_skipgram_naive_softmax_gradient() -> None:
    _check_skipgram_gradient(naive_softmax_loss_and_gradient)


def check_skipgram_neg_sampling_gradient() -> None:
    _check_skipgram_gradient(neg_sampling_loss_and_gradient)


CHECKS = [
    ("sigmoid", check_sigmoid),
    ("naive_softmax_loss_and_gradient: known values", check_naive_softmax_values),
    ("naive_softmax_loss_and_gradient: gradient check", check_naive_softmax_gradient),
    ("neg_sampling_loss_and_gradient: known values (repeated negative)", check_neg_sampling_values),
    ("neg_sampling_loss_and_gradient: gradient check", check_neg_sampling_gradient),
    ("skipgram: one loss call per outside word, summed", check_skipgram_calls),
    ("skipgram + naive softmax: gradient check", check_skipgram_naive_softmax_gradient),
    ("skipgram + negative sampling: gradient check", check_skipgram_neg_sampling_gradient),
]


if __name__ == "__main__":
    run_checks(CHECKS, title="word2vec sanity checks")
