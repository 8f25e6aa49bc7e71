"""Warm-up: softmax, sigmoid and a one-hidden-layer network, by hand.

Run `python nn_basics.py` to check your work: it runs the public tests of
this file's functions, as `check` and Gradescope do, and reports each as
passed, partial or failed ("not implemented yet" until you write it).

Two rules hold for every function you write, and `python nn_basics.py`, the
autograder's `check` and the grader all hold you to them: a function
changes none of the arrays and lists it is given (unless its docstring
says so), and it gives the same result whenever it gets the same inputs.
A right result that changes an input earns half a test's points; one that
changes from one call to the next earns none. Numbers are compared
with the reference's within a relative 1e-5 (an absolute 1e-7 near zero;
for a gradient, 1e-6 of its largest entry).

Conventions: a batch of N examples is an (N, D) array, one example per row,
so a layer computes X @ W + b with W of shape (D_in, D_out) and b of shape
(1, D_out), broadcast over the rows.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from utils.sanity import run_public_tests


def softmax(x: np.ndarray) -> np.ndarray:
    """Softmax of a vector, or of every row of a matrix.

    softmax(x)_i = exp(x_i) / sum_j exp(x_j)

    Args:
        x: shape (D,) or (N, D). Must not be modified.

    Returns:
        Array of the same shape; each vector (each row) sums to 1.

    Hint: softmax(x) == softmax(x - c) for any constant c. Choosing c as the
    largest entry keeps np.exp from overflowing on inputs like [1001, 1002].
    Use axis=-1 and keepdims=True to handle both shapes with the same code.
    """
    ### YOUR CODE HERE (about 4 lines)
    raise NotImplementedError("softmax is not implemented yet")
    ### END YOUR CODE


def sigmoid(x: np.ndarray) -> np.ndarray:
    """Element-wise logistic function 1 / (1 + exp(-x)).

    Args:
        x: a scalar or an array of any shape.

    Returns:
        An array of the same shape with values in (0, 1).
    """
    ### YOUR CODE HERE (about 1 line)
    raise NotImplementedError("sigmoid is not implemented yet")
    ### END YOUR CODE


def sigmoid_grad(s: np.ndarray) -> np.ndarray:
    """Derivative of the sigmoid, written in terms of its OUTPUT.

    If s = sigmoid(x), then d sigmoid / dx = s * (1 - s). Taking s rather
    than x lets back-propagation reuse the activations saved in the forward
    pass instead of evaluating exp again.

    Args:
        s: sigmoid values, any shape.

    Returns:
        An array of the same shape.
    """
    ### YOUR CODE HERE (about 1 line)
    raise NotImplementedError("sigmoid_grad is not implemented yet")
    ### END YOUR CODE


def unpack_params(
    params: np.ndarray, dimensions: Sequence[int]
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Cut the flat parameter vector into W1, b1, W2, b2.

    Args:
        params: flat vector of length Dx*H + H + H*Dy + Dy, holding W1, b1,
            W2, b2 in that order, each flattened row by row.
        dimensions: [Dx, H, Dy].

    Returns:
        W1 (Dx, H), b1 (1, H), W2 (H, Dy), b2 (1, Dy), as views of `params`.
    """
    Dx, H, Dy = dimensions
    shapes = [(Dx, H), (1, H), (H, Dy), (1, Dy)]
    pieces = []
    offset = 0
    for shape in shapes:
        size = shape[0] * shape[1]
        pieces.append(params[offset : offset + size].reshape(shape))
        offset += size
    if offset != params.size:
        raise ValueError(
            f"expected {offset} parameters for dimensions {list(dimensions)}, got {params.size}"
        )
    W1, b1, W2, b2 = pieces
    return W1, b1, W2, b2


def pack_params(*arrays: np.ndarray) -> np.ndarray:
    """The inverse of `unpack_params`: flatten and join the arrays in order."""
    return np.concatenate([np.ravel(a) for a in arrays])


def forward_backward_prop(
    X: np.ndarray, labels: np.ndarray, params: np.ndarray, dimensions: Sequence[int]
) -> tuple[float, np.ndarray]:
    """Cost and gradient of a one-hidden-layer classifier on a batch.

    The network:
        h     = sigmoid(X @ W1 + b1)        (N, H)
        y_hat = softmax(h @ W2 + b2)        (N, Dy), row-wise
        cost  = -sum_n sum_k labels[n, k] * log(y_hat[n, k])

    The cost is SUMMED over the batch, not averaged.

    Args:
        X: inputs, shape (N, Dx).
        labels: one-hot targets, shape (N, Dy).
        params: flat parameter vector (see `unpack_params`).
        dimensions: [Dx, H, Dy].

    Returns:
        (cost, grad): a float, and the gradient of the cost with respect to
        `params`, flat and in the same layout (see `pack_params`).

    Hint: for softmax followed by cross-entropy, the gradient with respect
    to the scores h @ W2 + b2 is simply y_hat - labels. Use your own
    softmax, sigmoid and sigmoid_grad.
    """
    W1, b1, W2, b2 = unpack_params(params, dimensions)

    ### YOUR CODE HERE (about 10 lines)
    raise NotImplementedError("forward_backward_prop is not implemented yet")
    ### END YOUR CODE


def input_gradient(
    X: np.ndarray, labels: np.ndarray, params: np.ndarray, dimensions: Sequence[int]
) -> np.ndarray:
    """Gradient of the cost of `forward_backward_prop` with respect to X.

    Args: as for `forward_backward_prop`.

    Returns:
        dJ/dX, shape (N, Dx).

    Hint: run the forward pass again, then back-propagate one layer
    further than for dJ/dW1.
    """
    W1, b1, W2, b2 = unpack_params(params, dimensions)

    ### YOUR CODE HERE (about 4 lines)
    raise NotImplementedError("input_gradient is not implemented yet")
    ### END YOUR CODE


# --------------------------------------------------------------------------
# Self-check: `python nn_basics.py` runs the public tests of this file's functions,
# with the same tests, messages and verdicts as the grader.
# --------------------------------------------------------------------------

if __name__ == "__main__":
    run_public_tests(__file__, "word2vec")
