"""Warm-up: softmax, sigmoid and a one-hidden-layer network, by hand.

Run `python nn_basics.py` to check your work; each check reports
"passed", "FAILED", "ERROR" or "not implemented yet".

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

from utils.gradcheck import assert_gradient
from utils.sanity import run_checks


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
    ### BEGIN SOLUTION
    x = np.asarray(x, dtype=float)
    shifted = x - np.max(x, axis=-1, keepdims=True)  # largest score is now 0
    exps = np.exp(shifted)
    return exps / np.sum(exps, axis=-1, keepdims=True)
    ### END SOLUTION


def sigmoid(x: np.ndarray) -> np.ndarray:
    """Element-wise logistic function 1 / (1 + exp(-x)).

    Args:
        x: a scalar or an array of any shape.

    Returns:
        An array of the same shape with values in (0, 1).
    """
    ### BEGIN SOLUTION
    return 1.0 / (1.0 + np.exp(-x))
    ### END SOLUTION


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
    ### BEGIN SOLUTION
    return s * (1.0 - s)
    ### END SOLUTION


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

    ### BEGIN SOLUTION
    h = sigmoid(X @ W1 + b1)
    y_hat = softmax(h @ W2 + b2)
    cost = -np.sum(labels * np.log(y_hat))

    delta_scores = y_hat - labels  # (N, Dy)
    grad_W2 = h.T @ delta_scores
    grad_b2 = np.sum(delta_scores, axis=0, keepdims=True)
    delta_hidden = (delta_scores @ W2.T) * sigmoid_grad(h)  # (N, H)
    grad_W1 = X.T @ delta_hidden
    grad_b1 = np.sum(delta_hidden, axis=0, keepdims=True)

    return float(cost), pack_params(grad_W1, grad_b1, grad_W2, grad_b2)
    ### END SOLUTION


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

    ### BEGIN SOLUTION
    h = sigmoid(X @ W1 + b1)
    y_hat = softmax(h @ W2 + b2)
    delta_hidden = ((y_hat - labels) @ W2.T) * sigmoid_grad(h)
    return delta_hidden @ W1.T
    ### END SOLUTION


# --------------------------------------------------------------------------
# Sanity checks: run `python nn_basics.py`.
# --------------------------------------------------------------------------


def _assert_close(actual, expected, what: str) -> None:
    actual, expected = np.asarray(actual), np.asarray(expected)
    assert actual.shape == expected.shape, (
        f"{what}: shape {actual.shape}, expected {expected.shape}"
    )
    assert np.allclose(actual, expected, rtol=1e-6, atol=1e-8), (
        f"{what}: got {actual}, expected {expected}"
    )


def check_softmax_small() -> None:
    _assert_close(softmax(np.array([1.0, 2.0])), [0.26894142, 0.73105858], "softmax([1, 2])")
    _assert_close(
        softmax(np.array([[1.0, 2.0], [3.0, 3.0]])),
        [[0.26894142, 0.73105858], [0.5, 0.5]],
        "softmax of a 2x2 matrix (row-wise)",
    )


def check_softmax_stable() -> None:
    _assert_close(
        softmax(np.array([1001.0, 1002.0])), [0.26894142, 0.73105858], "softmax([1001, 1002])"
    )
    _assert_close(
        softmax(np.array([[-1001.0, -1002.0]])),
        [[0.73105858, 0.26894142]],
        "softmax([[-1001, -1002]])",
    )


def check_softmax_leaves_input_alone() -> None:
    x = np.array([[1.0, 5.0, 3.0], [0.0, -2.0, 2.0]])
    before = x.copy()
    softmax(x)
    assert np.array_equal(x, before), "softmax modified its input array"


def check_sigmoid() -> None:
    x = np.array([[1.0, 2.0], [-1.0, -2.0]])
    s = sigmoid(x)
    _assert_close(s, [[0.73105858, 0.88079708], [0.26894142, 0.11920292]], "sigmoid")
    _assert_close(
        sigmoid_grad(s),
        [[0.19661193, 0.10499359], [0.19661193, 0.10499359]],
        "sigmoid_grad(sigmoid(x))",
    )


def _random_network(seed: int = 0) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[int]]:
    """A batch of 20 examples for a [10, 5, 10] network with random weights."""
    rng = np.random.default_rng(seed)
    dimensions = [10, 5, 10]
    N = 20
    X = rng.standard_normal((N, dimensions[0]))
    labels = np.zeros((N, dimensions[2]))
    labels[np.arange(N), rng.integers(dimensions[2], size=N)] = 1.0
    n_params = (dimensions[0] + 1) * dimensions[1] + (dimensions[1] + 1) * dimensions[2]
    params = rng.standard_normal(n_params)
    return X, labels, params, dimensions


def check_cost_with_zero_weights() -> None:
    # With all weights zero every class gets probability 1/Dy.
    X, labels, params, dimensions = _random_network()
    cost, _ = forward_backward_prop(X, labels, np.zeros_like(params), dimensions)
    _assert_close(cost, X.shape[0] * np.log(dimensions[2]), "cost with zero weights (N log Dy)")


def check_parameter_gradient() -> None:
    X, labels, params, dimensions = _random_network()
    assert_gradient(lambda p: forward_backward_prop(X, labels, p, dimensions), params, "dJ/dparams")


def check_input_gradient() -> None:
    X, labels, params, dimensions = _random_network()

    def cost_and_input_gradient(x: np.ndarray) -> tuple[float, np.ndarray]:
        cost, _ = forward_backward_prop(x, labels, params, dimensions)
        return cost, input_gradient(x, labels, params, dimensions)

    assert_gradient(cost_and_input_gradient, X, "dJ/dX")


CHECKS = [
    ("softmax: small inputs", check_softmax_small),
    ("softmax: large inputs (numerical stability)", check_softmax_stable),
    ("softmax: input left unchanged", check_softmax_leaves_input_alone),
    ("sigmoid and sigmoid_grad", check_sigmoid),
    ("forward_backward_prop: cost with zero weights", check_cost_with_zero_weights),
    ("forward_backward_prop: gradient check", check_parameter_gradient),
    ("input_gradient: gradient check", check_input_gradient),
]


if __name__ == "__main__":
    run_checks(CHECKS, title="nn_basics sanity checks")
