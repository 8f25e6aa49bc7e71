"""Skip-gram word2vec with naive-softmax and negative-sampling losses.

Run `python word2vec.py` to check your work: it runs the public tests of
this file's functions, as `check` and Gradescope do, and reports each as
passed, partial or failed ("not implemented yet" until you write it).

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
from utils.sanity import run_public_tests

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
# Self-check: `python word2vec.py` runs the public tests of this file's functions,
# with the same tests, messages and verdicts as the grader.
# --------------------------------------------------------------------------

if __name__ == "__main__":
    run_public_tests(__file__, "word2vec")
