"""The differential oracle's scenarios for word2vec: what each student function does, observed.

Written from the docstrings alone, not from the grader's tests, so that the oracle and the grader
fail independently. Each scenario calls the submission's functions on seeded random inputs of several
shapes, repeats calls (state kept between calls shows), records what the inputs look like after the
call (work done in place shows), and returns everything it saw; the oracle compares that with the
reference's. ``modules(name)`` imports one of the submission's modules.
"""

from __future__ import annotations

import random
import tempfile

import numpy as np


def _inputs_after(args: list) -> list:
    return [a.copy() if isinstance(a, np.ndarray) else a for a in args]


def _twice(function, *args) -> dict:
    """Two calls with equal inputs, the inputs as the first call left them, and a call on other inputs
    of the same shape in between, so a result kept from an earlier call shows."""
    kept = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    first = function(*args)
    after = _inputs_after(list(args))
    other = [a * 0.5 + 0.25 if isinstance(a, np.ndarray) and a.dtype.kind == "f" else a for a in kept]
    between = function(*other)
    again = function(*[a.copy() if isinstance(a, np.ndarray) else a for a in kept])
    return {"first": first, "inputs after": after, "between": between, "again": again}


def softmax(modules) -> list:
    softmax = modules("nn_basics").softmax
    rng = np.random.default_rng(0)
    shapes = [(1,), (3,), (7,), (1, 5), (4, 3), (3, 1), (2, 3, 4)]
    seen = [_twice(softmax, rng.standard_normal(shape) * 3) for shape in shapes]
    seen.append(_twice(softmax, np.array([1000.0, 1001.0, 999.0])))
    seen.append(_twice(softmax, np.array([[-1000.0, -1002.0], [5.0, 5.0]])))
    seen.append(softmax([1.0, 2.0]))
    return seen


def sigmoid(modules) -> list:
    module = modules("nn_basics")
    rng = np.random.default_rng(1)
    seen = [_twice(module.sigmoid, x) for x in (rng.standard_normal((3, 4)) * 4, np.array([-30.0, 0.0, 30.0]))]
    seen.append(module.sigmoid(0.3))
    seen.append(_twice(module.sigmoid_grad, rng.uniform(0.01, 0.99, (2, 5))))
    return seen


def _network(dims: list[int], n: int, seed: int) -> list:
    rng = np.random.default_rng(seed)
    dx, h, dy = dims
    labels = np.zeros((n, dy))
    labels[np.arange(n), rng.integers(0, dy, n)] = 1.0
    params = 0.7 * rng.standard_normal(dx * h + h + h * dy + dy)
    return [rng.standard_normal((n, dx)), labels, params, dims]


def network(modules) -> list:
    module = modules("nn_basics")
    seen = []
    for dims, n, seed in (([4, 5, 3], 6, 2), ([1, 3, 2], 1, 3), ([6, 2, 7], 9, 4), ([3, 3, 3], 3, 5)):
        args = _network(dims, n, seed)
        seen.append(_twice(module.forward_backward_prop, *args))
        seen.append(_twice(module.input_gradient, *_network(dims, n, seed)))
    return seen


def word2vec_sigmoid(modules) -> list:
    sigmoid = modules("word2vec").sigmoid
    with np.errstate(over="ignore"):
        return [
            _twice(sigmoid, np.random.default_rng(5).standard_normal((3, 3)) * 5),
            _twice(sigmoid, np.array([-800.0, -40.0, 0.0, 40.0, 800.0])),
            sigmoid(0.0),
            sigmoid(-2.5),
        ]


def _vectors(n_words: int, dim: int, seed: int, scale: float = 1.0) -> tuple:
    rng = np.random.default_rng(seed)
    return scale * rng.standard_normal(dim), scale * rng.standard_normal((n_words, dim))


class _Draws:
    """A dataset whose draws come from a seeded generator; it counts them."""

    def __init__(self, n_words: int, seed: int, script: list[int] | None = None) -> None:
        self.rng = random.Random(seed)
        self.n_words = n_words
        self.script = list(script or [])
        self.draws = 0

    def sample_token_idx(self) -> int:
        self.draws += 1
        if self.script:
            return self.script.pop(0)
        return self.rng.randrange(self.n_words)


def naive_softmax(modules) -> list:
    loss = modules("word2vec").naive_softmax_loss_and_gradient
    seen = []
    for n_words, dim, seed, scale in ((5, 3, 6, 1.0), (1, 4, 7, 1.0), (9, 2, 8, 2.0), (4, 6, 9, 0.3)):
        v_c, U = _vectors(n_words, dim, seed, scale)
        for o in sorted({0, n_words - 1, n_words // 2}):
            seen.append(_twice(loss, v_c, o, U, None))
    v_c, U = _vectors(6, 3, 10, 20.0)
    seen.append(loss(v_c, int(np.argmax(U @ v_c)), U, None))
    return seen


def neg_sampling(modules) -> list:
    loss = modules("word2vec").neg_sampling_loss_and_gradient
    seen = []
    for n_words, dim, seed, K, script in ((6, 3, 11, 4, [1, 1, 3, 0, 5]), (9, 4, 12, 10, None),
                                          (3, 2, 13, 1, None), (7, 5, 14, 6, [2, 2, 2, 2, 2, 2, 2])):
        v_c, U = _vectors(n_words, dim, seed)
        for o in (0, n_words - 1):
            first = _Draws(n_words, seed, script)
            result = loss(v_c.copy(), o, U.copy(), first, K)
            again = _Draws(n_words, seed, script)
            seen.append({"result": result, "draws": first.draws, "again": loss(v_c.copy(), o, U.copy(), again, K)})
        inputs = [v_c.copy(), 1, U.copy()]
        loss(*inputs, _Draws(n_words, seed), K)
        seen.append({"inputs after": inputs})
    v_c, U = _vectors(5, 3, 15)
    seen.append({"default K": loss(v_c, 2, U, _Draws(5, 15))})
    return seen


class _Probe:
    """A stand-in loss with known gradients that records the calls skipgram makes."""

    def __init__(self) -> None:
        self.calls: list = []

    def __call__(self, center_word_vec, outside_word_idx, outside_vectors, dataset):
        self.calls.append((np.array(center_word_vec, copy=True), int(outside_word_idx), dataset))
        o = int(outside_word_idx)
        weight = 1.0 + 0.5 * o
        grad_outside = np.zeros(np.shape(outside_vectors))
        grad_outside[o] = weight * np.asarray(center_word_vec)
        grad_outside[0] += 0.1
        return weight * float(outside_vectors[o] @ center_word_vec), weight * outside_vectors[o] + 0.2, grad_outside


def skipgram(modules) -> list:
    module = modules("word2vec")
    words = "abcdefgh"
    seen = []
    for n_words, dim, center, outside, seed in ((5, 3, "c", "abde", 16), (5, 3, "c", "abde", 17),
                                                 (6, 2, "a", "aabfa", 18), (8, 4, "h", "g", 19), (4, 3, "b", "", 20)):
        rng = np.random.default_rng(seed)
        word2ind = {w: i for i, w in enumerate(words[:n_words])}
        V, U = rng.standard_normal((n_words, dim)), rng.standard_normal((n_words, dim))
        probe = _Probe()
        result = module.skipgram(center, 2, list(outside), word2ind, V, U, "dataset", probe)
        seen.append({"result": result, "calls": probe.calls, "V": V, "U": U})
        naive = module.skipgram(center, 2, list(outside), word2ind, V.copy(), U.copy(), None,
                                module.naive_softmax_loss_and_gradient)
        seen.append({"with naive softmax": naive})
    return seen


class _Dataset:
    """A small corpus for the training wrapper: seeded contexts and negatives."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)

    def sample_token_idx(self) -> int:
        return self.rng.randrange(5)

    def get_random_context(self, C: int):
        return self.rng.choice("abcde"), [self.rng.choice("abcde") for _ in range(2 * C)]


def training(modules) -> list:
    module = modules("word2vec")
    word2ind = {w: i for i, w in enumerate("abcde")}
    seen = []
    for loss in (module.naive_softmax_loss_and_gradient, module.neg_sampling_loss_and_gradient):
        random.seed(21)
        vectors = np.random.default_rng(21).standard_normal((10, 3))
        seen.append(module.word2vec_sgd_wrapper(module.skipgram, word2ind, vectors, _Dataset(21), 3, loss))
    return seen


class _Quadratic:
    def __init__(self, target, scale: float = 1.0) -> None:
        self.target, self.scale, self.points = target, scale, []

    def __call__(self, x):
        self.points.append(np.array(x, copy=True))
        return float(np.sum(self.scale * (x - self.target) ** 2)), 2 * self.scale * (x - self.target)


def sgd(modules) -> list:
    module = modules("sgd")
    seen = []
    for target, x0, step, iterations in ((1.5, 0.5, 0.1, 30), (np.array([1.0, -2.0]), np.array([0.0, 3.0]), 0.05, 40),
                                         (-1.0, 2.0, 0.3, 1), (0.0, 1.0, 0.2, 0)):
        f = _Quadratic(target, 2.0)
        kept = np.array(x0, copy=True)
        x = module.sgd(f, x0, step, iterations, print_every=None)
        seen.append({"x": x, "points": f.points, "x0 after": x0, "x0 before": kept})
    f = _Quadratic(np.array([3.0, 0.0, 4.0]))
    seen.append(module.sgd(f, np.zeros(3), 0.1, 20, postprocessing=lambda x: x / max(1.0, float(np.linalg.norm(x))),
                           print_every=None))
    saved = module.ANNEAL_EVERY, module.SAVE_PARAMS_EVERY
    module.ANNEAL_EVERY, module.SAVE_PARAMS_EVERY = 4, 3
    try:
        with tempfile.TemporaryDirectory() as folder:
            f = _Quadratic(10.0)
            first = module.sgd(f, 0.0, 1.0 / 8, 7, print_every=None, checkpoint_dir=folder)
            resumed = module.sgd(f, 0.0, 1.0 / 8, 10, use_saved=True, print_every=None, checkpoint_dir=folder)
            seen.append({"first": first, "resumed": resumed, "points": f.points})
    finally:
        module.ANNEAL_EVERY, module.SAVE_PARAMS_EVERY = saved
    return seen


SCENARIOS = {
    "softmax": softmax,
    "sigmoid and sigmoid_grad": sigmoid,
    "forward_backward_prop and input_gradient": network,
    "word2vec sigmoid": word2vec_sigmoid,
    "naive softmax": naive_softmax,
    "negative sampling": neg_sampling,
    "skipgram": skipgram,
    "training wrapper": training,
    "sgd": sgd,
}
