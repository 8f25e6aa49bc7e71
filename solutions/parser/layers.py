"""Building blocks of the parser's network: ReLU, dropout, softmax + cross-entropy.

Run `python layers.py` to check your work: it runs the public tests of
this file's functions, as `check` and Gradescope do, and reports each as
passed, partial or failed ("not implemented yet" until you write it).

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

from utils.sanity import run_public_tests

# ---------------------------------------------------------------------- ReLU


def relu_forward(x: np.ndarray) -> Tuple[np.ndarray, np.ndarray]:
    """Rectified linear unit, max(0, x), element-wise.

    Args:
        x: input of any shape. Must not be modified.

    Returns:
        (out, cache): out has the shape of x; cache is what relu_backward
        needs (here simply x).
    """
    ### BEGIN SOLUTION
    out = np.maximum(x, 0.0)
    return out, x
    ### END SOLUTION


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
    ### BEGIN SOLUTION
    x = cache
    return dout * (x > 0)
    ### END SOLUTION


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
    ### BEGIN SOLUTION
    if not training or p_drop == 0.0:
        return x, None
    keep = rng.random(x.shape) >= p_drop
    scale = keep.astype(x.dtype) / (1.0 - p_drop)  # 0 or gamma
    return x * scale, scale
    ### END SOLUTION


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
    ### BEGIN SOLUTION
    scale = cache
    if scale is None:  # dropout was off: the layer was the identity
        return dout
    return dout * scale
    ### END SOLUTION


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
    ### BEGIN SOLUTION
    n = logits.shape[0]
    shifted = logits - logits.max(axis=1, keepdims=True)  # largest score per row is 0
    log_probs = shifted - np.log(np.exp(shifted).sum(axis=1, keepdims=True))
    rows = np.arange(n)
    loss = -log_probs[rows, labels].mean()

    dlogits = np.exp(log_probs)
    dlogits[rows, labels] -= 1.0
    dlogits /= n
    return float(loss), dlogits
    ### END SOLUTION


# --------------------------------------------------------------------------
# Self-check: `python layers.py` runs the public tests of this file's functions,
# with the same tests, messages and verdicts as the grader.
# --------------------------------------------------------------------------

if __name__ == "__main__":
    run_public_tests(__file__, "parser")
