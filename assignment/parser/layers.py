"""Building blocks of the parser's network: ReLU, dropout, softmax + cross-entropy.

Run `python layers.py` to check your work; each check reports "passed",
"FAILED", "ERROR" or "not implemented yet".

Two rules hold for every function you write, and `python layers.py`, the
autograder's `check` and the grader all hold you to them: a function
changes none of the arrays and lists it is given (unless its docstring
says so), and it gives the same result whenever it gets the same inputs.
A right result that changes an input earns half a test's points; one that
changes from one call to the next earns none. Numbers are compared
with the reference's within a relative 1e-5 (an absolute 1e-7 near zero),
and exactly where a layer passes values through unchanged.

Every layer comes as a pair of functions:

    out, cache = layer_forward(x, ...)
    dx = layer_backward(dout, cache)

The forward function returns its output and a `cache` holding whatever
the backward function will need. The backward function receives
dout = dL/dout, the gradient of the final loss L with respect to this
layer's output, and returns dx = dL/dx, which is then handed to the
layer below. Chaining the backward functions in reverse order is
back-propagation.
"""

from __future__ import annotations

from typing import Optional, Tuple

import numpy as np

from utils.gradcheck import assert_gradient
from utils.sanity import run_checks

# ---------------------------------------------------------------------- ReLU


def relu_forward(x: np.ndarray) -> Tuple[np.ndarray, np.ndarray]:
    """Rectified linear unit, max(0, x), element-wise.

    Args:
        x: input of any shape. Must not be modified.

    Returns:
        (out, cache): out has the shape of x; cache is what relu_backward
        needs (here simply x).
    """
    ### YOUR CODE HERE (about 2 lines)
    raise NotImplementedError("relu_forward is not implemented yet")
    ### END YOUR CODE


def relu_backward(dout: np.ndarray, cache: np.ndarray) -> np.ndarray:
    """Gradient of the loss with respect to the input of relu_forward.

    Args:
        dout: dL/dout, same shape as the input x.
        cache: what relu_forward returned as cache.

    Returns:
        dL/dx, same shape as x.

    Hint: the slope of max(0, x) is 1 where x > 0 and 0 elsewhere. At
    exactly x = 0 it is undefined; use 0 there, as PyTorch does.
    """
    ### YOUR CODE HERE (about 2 lines)
    raise NotImplementedError("relu_backward is not implemented yet")
    ### END YOUR CODE


# ------------------------------------------------------------------- dropout


def dropout_forward(
    x: np.ndarray, p_drop: float, training: bool, rng: np.random.Generator
) -> Tuple[np.ndarray, Optional[np.ndarray]]:
    """Inverted dropout: zero each unit with probability p_drop while training.

    While training, each entry of x is set to zero with probability p_drop,
    independently, and the entries that are kept are all multiplied by the
    same constant gamma, chosen so that every entry keeps its expected
    value: E[out] = x. Question 1b-i of the handout asks you to derive gamma.
    That is what makes the layer "inverted": at test time nothing needs
    rescaling, so dropout is simply switched off.

    Dropout is off when training is False or p_drop == 0. Then out is x
    itself and NOTHING is drawn from rng: evaluating the model must not
    change the random numbers that training draws next. (The autograder
    checks this too.)

    Args:
        x: activations of any shape. Must not be modified.
        p_drop: probability of dropping a unit, in [0, 1).
        training: False at evaluation time: then out is x, unchanged.
        rng: the random generator to draw from. Drawing from the given
            generator (not np.random) makes runs reproducible from a seed.

    Returns:
        (out, cache): out has the shape of x. cache is the array x was
        multiplied by (0 for a dropped unit, gamma for a kept one), or None
        when dropout was off.

    Hint: `rng.random(x.shape) >= p_drop` is True with probability
    1 - p_drop, independently for each entry.
    """
    if not 0.0 <= p_drop < 1.0:
        raise ValueError(f"p_drop must lie in [0, 1), got {p_drop}")
    ### YOUR CODE HERE (about 5 lines)
    raise NotImplementedError("dropout_forward is not implemented yet")
    ### END YOUR CODE


def dropout_backward(dout: np.ndarray, cache: Optional[np.ndarray]) -> np.ndarray:
    """Gradient of the loss with respect to the input of dropout_forward.

    Args:
        dout: dL/dout, same shape as x.
        cache: what dropout_forward returned as cache.

    Returns:
        dL/dx, same shape as x.

    Hint: the forward pass multiplied x by a fixed array (or by nothing at
    all). Use the SAME array here; never draw a new mask.
    """
    ### YOUR CODE HERE (about 4 lines)
    raise NotImplementedError("dropout_backward is not implemented yet")
    ### END YOUR CODE


# ------------------------------------------------- softmax and cross-entropy


def softmax_cross_entropy(logits: np.ndarray, labels: np.ndarray) -> Tuple[float, np.ndarray]:
    """Mean cross-entropy loss of a softmax classifier, and its gradient.

    For one example with scores z (one per class) and correct class y,

        p = softmax(z),   loss = -log p[y] = logsumexp(z) - z[y],

    and the loss returned is the MEAN over the N examples of the batch.

    Args:
        logits: unnormalised class scores z, shape (N, C). Must not be
            modified.
        labels: correct classes, integers in [0, C), shape (N,).

    Returns:
        (loss, dlogits): the mean loss as a Python float, and its gradient
        with respect to logits, shape (N, C).

    Hints:
        - Compute log-probabilities directly:
          log p = z - logsumexp(z), with logsumexp(z) = m + log(sum(exp(z - m)))
          and m = max(z). Subtracting the maximum keeps exp from
          overflowing; never take the log of a probability that may have
          rounded to 0.
        - The gradient of -log p[y] with respect to z is p - onehot(y).
          Averaging over the batch divides it by N.
        - `a[np.arange(N), labels]` picks entry labels[i] from each row i.
    """
    logits = np.asarray(logits)
    labels = np.asarray(labels)
    if logits.ndim != 2 or labels.shape != logits.shape[:1]:
        raise ValueError(f"expected logits (N, C) and labels (N,), got {logits.shape} and {labels.shape}")
    ### YOUR CODE HERE (about 9 lines)
    raise NotImplementedError("softmax_cross_entropy is not implemented yet")
    ### END YOUR CODE


# --------------------------------------------------------------------------
# Sanity checks: run `python layers.py`.
# --------------------------------------------------------------------------


def _assert_close(actual, expected, what: str, rtol: float = 1e-7, atol: float = 1e-9) -> None:
    actual, expected = np.asarray(actual), np.asarray(expected)
    assert actual.shape == expected.shape, f"{what}: shape {actual.shape}, expected {expected.shape}"
    assert np.allclose(actual, expected, rtol=rtol, atol=atol), f"{what}: got {actual}, expected {expected}"


def check_relu() -> None:
    x = np.array([[-1.5, 0.0, 2.0], [3.0, -0.1, 0.5]])
    before = x.copy()
    out, cache = relu_forward(x)
    _assert_close(out, [[0.0, 0.0, 2.0], [3.0, 0.0, 0.5]], "relu_forward")
    dout = np.array([[10.0, 20.0, 30.0], [40.0, 50.0, 60.0]])
    _assert_close(relu_backward(dout, cache), [[0.0, 0.0, 30.0], [40.0, 0.0, 60.0]],
                  "relu_backward (slope 1 where x > 0, else 0)")
    assert np.array_equal(x, before), "relu_forward modified its input"


def check_dropout_statistics() -> None:
    p_drop = 0.3
    x = np.ones((400, 250))
    out, _ = dropout_forward(x, p_drop, training=True, rng=np.random.default_rng(0))
    assert out.shape == x.shape, f"dropout output has shape {out.shape}, expected {x.shape}"
    dropped = np.mean(out == 0.0)
    assert abs(dropped - p_drop) < 0.01, f"dropped a fraction {dropped:.3f} of units, expected about {p_drop}"
    kept = out[out != 0.0]
    gamma = kept[0] if kept.size else 0.0
    _assert_close(kept, np.full(kept.shape, gamma), "kept units (all scaled by the same gamma)")
    # E[out] = gamma * (probability of keeping a unit) * x must equal x.
    expected_mean = gamma * (1.0 - p_drop)
    assert abs(expected_mean - 1.0) < 1e-9, (
        f"kept units are scaled by gamma = {gamma:.6g}, so E[out] = {expected_mean:.6g} x; "
        "dropout must keep E[out] = x (question 1b-i)"
    )
    assert np.array_equal(x, np.ones((400, 250))), "dropout_forward modified its input"


def check_dropout_backward_uses_mask() -> None:
    rng = np.random.default_rng(1)
    x = rng.standard_normal((50, 40))
    out, cache = dropout_forward(x, 0.5, training=True, rng=rng)
    dout = rng.standard_normal((50, 40))
    dx = dropout_backward(dout, cache)
    kept = out != 0.0
    _assert_close(dx[~kept], np.zeros(np.sum(~kept)), "gradient of dropped units (should be 0)")
    _assert_close(dx[kept], dout[kept] * out[kept] / x[kept],
                  "gradient of kept units (should be dout times the scale the forward pass used)")


def check_dropout_off() -> None:
    x = np.random.default_rng(2).standard_normal((6, 5))
    dout = np.random.default_rng(3).standard_normal((6, 5))
    for p_drop, training in ((0.5, False), (0.0, True)):
        rng = np.random.default_rng(4)
        out, cache = dropout_forward(x, p_drop, training=training, rng=rng)
        what = f"dropout_forward(p_drop={p_drop}, training={training})"
        _assert_close(out, x, f"{what} (should be the identity)")
        _assert_close(dropout_backward(dout, cache), dout, f"dropout_backward after {what} (identity)")
        untouched = np.random.default_rng(4).random()
        assert rng.random() == untouched, f"{what} drew random numbers although dropout was off"


def check_softmax_cross_entropy_values() -> None:
    loss, dlogits = softmax_cross_entropy(np.zeros((4, 3)), np.array([0, 1, 2, 0]))
    _assert_close(loss, np.log(3.0), "loss with all-zero logits (log C)")
    _assert_close(dlogits, (np.full((4, 3), 1.0 / 3.0) - np.eye(3)[[0, 1, 2, 0]]) / 4, "dlogits with all-zero logits")
    logits = np.array([[1.0, 2.0, 3.0], [1.0, -1.0, 0.0]])
    loss, _ = softmax_cross_entropy(logits, np.array([2, 1]))
    _assert_close(loss, 0.5 * (0.40760596 + 2.40760596), "loss of [[1, 2, 3], [1, -1, 0]] with labels [2, 1]")


def check_softmax_cross_entropy_huge_logits() -> None:
    logits = np.array([[1000.0, 0.0, -1000.0], [5000.0, 5000.0, 0.0]])
    before = logits.copy()
    loss, dlogits = softmax_cross_entropy(logits, np.array([1, 0]))
    # Row 0: -log p[1] = logsumexp - 0 = 1000 (exp(-1000) is negligible).
    # Row 1: two equal top scores, so p[0] = 1/2 and the loss is log 2.
    assert np.isfinite(loss) and np.all(np.isfinite(dlogits)), "got inf or nan for large logits: use log-sum-exp"
    _assert_close(loss, 0.5 * (1000.0 + np.log(2.0)), "loss for large logits")
    _assert_close(dlogits, np.array([[1.0, -1.0, 0.0], [-0.5, 0.5, 0.0]]) / 2, "dlogits for large logits")
    assert np.array_equal(logits, before), "softmax_cross_entropy modified its logits"


def check_softmax_cross_entropy_gradient() -> None:
    rng = np.random.default_rng(5)
    labels = rng.integers(0, 4, size=7)
    for scale in (1.0, 30.0):
        logits = scale * rng.standard_normal((7, 4))
        assert_gradient(lambda z: softmax_cross_entropy(z, labels), logits, f"dloss/dlogits, logits of size ~{scale:g}")


CHECKS = [
    ("relu_forward and relu_backward", check_relu),
    ("dropout_forward: drop rate and scaling", check_dropout_statistics),
    ("dropout_backward: reuses the forward mask", check_dropout_backward_uses_mask),
    ("dropout: identity when off", check_dropout_off),
    ("softmax_cross_entropy: values", check_softmax_cross_entropy_values),
    ("softmax_cross_entropy: large logits (numerical stability)", check_softmax_cross_entropy_huge_logits),
    ("softmax_cross_entropy: gradient check", check_softmax_cross_entropy_gradient),
]


if __name__ == "__main__":
    run_checks(CHECKS, title="layers sanity checks")
