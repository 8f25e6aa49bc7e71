"""Public test fixtures and probes for the parser, used on both sides of the trust boundary.

Probes run in the worker next to the student's code and return raw outputs (arrays, lists of
arcs, predicted heads); the grader judges them. Nothing here reveals an answer.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import numpy as np


def make_rng(seed: int) -> np.random.Generator:
    return np.random.default_rng(seed)


# ----------------------------------------------------------------------------- optimizer


def adam_run(student, params: dict, grads: list, kwargs: dict) -> dict:
    """Adam over ``params`` for one step per entry of ``grads``.

    Returns the parameters after every step, whether the optimizer kept updating the very arrays
    it was given (in place), and whether it left the gradients it was handed unchanged.
    """
    Adam = student.attr("optim.Adam")
    arrays = {name: np.array(value, dtype=float) for name, value in params.items()}
    originals = dict(arrays)
    optimizer = Adam(arrays, **kwargs)
    history = []
    grads_untouched = True
    for step_grads in grads:
        given = {name: np.array(g, dtype=float) for name, g in step_grads.items()}
        optimizer.step(given)
        grads_untouched &= all(np.array_equal(given[n], step_grads[n]) for n in given)
        history.append({name: np.array(originals[name], copy=True) for name in originals})
    return {"history": history, "in_place": all(arrays[n] is originals[n] for n in arrays),
            "grads_untouched": bool(grads_untouched)}


# -------------------------------------------------------------------------------- layers


def dropout_masks(student, x, p_drop: float, seed: int) -> list:
    """Training-mode dropout with generators seeded seed, seed (again) and seed + 1."""
    forward = student.attr("layers.dropout_forward")
    x = np.array(x, dtype=float)
    return [forward(x, p_drop, True, np.random.default_rng(s))[0] for s in (seed, seed, seed + 1)]


def next_draw_after_dropout(student, x, p_drop: float, training: bool, seed: int) -> float:
    """``dropout_forward`` with a generator seeded ``seed``, then that generator's next number: the
    grader compares it with a fresh generator's first to see whether dropout drew from it."""
    forward = student.attr("layers.dropout_forward")
    generator = np.random.default_rng(seed)
    forward(np.array(x, dtype=float), p_drop, training, generator)
    return float(generator.random())


def layer_round_trip(student, layer: str, forward_args: list, dout) -> dict:
    """``layer_forward(*forward_args)`` then ``layer_backward(dout, cache)``, in one worker call."""
    layers = student.module("layers")
    out, cache = getattr(layers, f"{layer}_forward")(*forward_args)
    dx = getattr(layers, f"{layer}_backward")(np.array(dout, dtype=float), cache)
    return {"out": out, "dx": dx}


# ----------------------------------------------------------------------------- transitions


def parse_steps(student, sentence: list, transitions: list) -> dict:
    """Apply ``transitions`` one by one; the configuration after each, and the sentence after all."""
    PartialParse = student.attr("parser_transitions.PartialParse")
    parse = PartialParse(sentence)
    configurations = [_configuration(parse)]
    for transition in transitions:
        parse.parse_step(transition)
        configurations.append(_configuration(parse))
    return {"configurations": configurations, "sentence_after": list(sentence)}


def step_from(student, stack: list, buffer: list, dependencies: list, transition: str) -> dict:
    """One transition from a given configuration, set on a fresh PartialParse in the containers its
    ``__init__`` chose (a list, a deque, ...), as the PartialParse docstring promises."""
    PartialParse = student.attr("parser_transitions.PartialParse")
    parse = PartialParse(list(buffer))
    parse.stack = _like(parse.stack, stack)
    parse.buffer = _like(parse.buffer, buffer)
    parse.dependencies = _like(parse.dependencies, [tuple(arc) for arc in dependencies])
    parse.parse_step(transition)
    return _configuration(parse)


def _like(template, items: list):
    """``items`` in the container type of ``template``; a list when that type cannot take them."""
    try:
        return type(template)(items)
    except Exception:
        return list(items)


def _configuration(parse) -> dict:
    return {"stack": list(parse.stack), "buffer": list(parse.buffer),
            "dependencies": [list(arc) for arc in parse.dependencies]}


class RuleModel:
    """A stand-in for the network in ``minibatch_parse``: shift while it can, then attach.

    With an empty buffer it chooses LEFT-ARC when the top word is even, the one below it odd and a
    left arc is legal, else RIGHT-ARC. So the arcs depend on the words and on exactly which items
    each arc removed from the stack. It records the size of every batch.
    """

    def __init__(self) -> None:
        self.batch_sizes: list[int] = []

    def predict(self, partial_parses) -> list[str]:
        self.batch_sizes.append(len(partial_parses))
        return [self._choose(p) for p in partial_parses]

    @staticmethod
    def _choose(parse) -> str:
        if parse.buffer:
            return "S"
        top, below = parse.stack[-1], parse.stack[-2]
        if len(parse.stack) > 2 and isinstance(top, int) and isinstance(below, int) and top % 2 == 0 \
                and below % 2 == 1:
            return "LA"
        return "RA"

    def report(self) -> dict:
        return {"batch_sizes": self.batch_sizes}


# ---------------------------------------------------------------------------------- model


def _model(student, embeddings, params: dict | None, kwargs: dict):
    model = student.attr("parser_model.ParserModel")(np.array(embeddings, dtype=float), **kwargs)
    for name, value in (params or {}).items():
        model.params[name][...] = value  # the grader's weights, so outputs can be compared
    return model


def model_init(student, embeddings, kwargs: dict) -> dict:
    model = _model(student, embeddings, None, kwargs)
    return {"params": dict(model.params)}


def model_lookup(student, embeddings, params: dict, kwargs: dict, w) -> np.ndarray:
    return _model(student, embeddings, params, kwargs).embedding_lookup(np.array(w))


def model_forward(student, embeddings, params: dict, kwargs: dict, w, training: bool, repeats: int = 1) -> list:
    model = _model(student, embeddings, params, kwargs)
    return [model.forward(np.array(w), training=training) for _ in range(repeats)]


def model_gradients(student, embeddings, params: dict, kwargs: dict, w, dlogits) -> dict:
    model = _model(student, embeddings, params, kwargs)
    model.forward(np.array(w), training=False)
    return dict(model.backward(np.array(dlogits, dtype=float)))


def model_losses(student, embeddings, params: dict, kwargs: dict, w, dlogits, name: str, directions,
                 h: float = 1e-4) -> np.ndarray:
    """Centred-difference material: ``sum(dlogits * forward(w))`` at ``params[name] + h d`` (row 0)
    and ``params[name] - h d`` (row 1) for each direction ``d`` in ``directions``.

    The grader turns these into directional derivatives to tell a wrong backward pass from a wrong
    forward pass (:mod:`autograder.gradients`).
    """
    model = _model(student, embeddings, params, kwargs)
    target = model.params[name]
    saved = target.copy()
    directions = np.asarray(directions, dtype=float).reshape(-1, *saved.shape)
    losses = np.empty((2, len(directions)))
    for k, direction in enumerate(directions):
        for row, sign in enumerate((1.0, -1.0)):
            target[...] = saved + sign * h * direction
            losses[row, k] = float(np.sum(dlogits * model.forward(np.array(w), training=False)))
    target[...] = saved
    return losses


# ----------------------------------------------------------------------------- end to end


def train_and_parse(student, n_train: int, n_test: int, seed: int, epochs: int, batch_size: int,
                    lr: float, hidden_size: int) -> dict:
    """Train the student's model with the student's Adam and training loop on the synthetic
    treebank (given code builds the data), then parse held-out sentences.

    Returns the predicted heads; the grader computes the UAS against the gold trees it generates.
    """
    treebank = student.module("utils.synthetic_treebank")
    parser_utils = student.module("utils.parser_utils")
    run = student.module("run")
    train = treebank.make_treebank(n_train, seed=seed)
    test = treebank.make_treebank(n_test, seed=seed + 1)
    parser, embeddings, instances, dev, test_encoded = parser_utils.prepare_data(
        train, test[: max(1, n_test // 4)], test, seed=seed, verbose=False)
    parser.model = student.attr("parser_model.ParserModel")(embeddings, hidden_size=hidden_size, seed=seed)
    with tempfile.TemporaryDirectory(dir=os.getcwd()) as folder:
        run.train(parser, instances, dev, Path(folder) / "model_params.npz", batch_size=batch_size,
                  n_epochs=epochs, lr=lr)
    _, _, predicted = parser.parse(test_encoded, parser.model)
    return {"heads": [np.asarray(h).tolist() for h in predicted]}
