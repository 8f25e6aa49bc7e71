"""The differential oracle's scenarios for the parser (see word2vec_scenarios for the idea).

Every hyperparameter is given a value other than its default somewhere, every layer runs in training
and in evaluation mode, objects are used twice and side by side (state shared between instances
shows), and the training loop runs for real on a small synthetic treebank.
"""

from __future__ import annotations

import tempfile
from collections import deque
from pathlib import Path

import numpy as np


def _params(shapes: dict, seed: int) -> dict:
    rng = np.random.default_rng(seed)
    return {name: rng.standard_normal(shape) for name, shape in shapes.items()}


def adam(modules) -> list:
    Adam = modules("optim").Adam
    seen = []
    settings = ({}, {"lr": 0.05}, {"lr": 0.01, "betas": (0.5, 0.9)}, {"lr": 0.02, "eps": 1e-3},
                {"lr": 0.03, "weight_decay": 0.2}, {"lr": 0.1, "betas": (0.0, 0.0)})
    for number, kwargs in enumerate(settings):
        params = _params({"a": (3,), "b": (2, 4)}, number)
        arrays = dict(params)
        optimizer = Adam(params, **kwargs)
        rng = np.random.default_rng(100 + number)
        history = []
        for step in range(12):
            grads = {"a": rng.standard_normal(3) * 10.0 ** (step % 3 - 1), "b": rng.standard_normal((2, 4))}
            kept = {n: g.copy() for n, g in grads.items()}
            optimizer.step(grads)
            history.append({"params": {n: p.copy() for n, p in params.items()}, "grads after": grads,
                            "grads before": kept, "same arrays": [params[n] is arrays[n] for n in params]})
        seen.append(history)
    # two optimisers side by side, stepped in turns: state kept per optimiser and per parameter
    first, second = _params({"w": (4,)}, 7), _params({"w": (4,), "v": (4,)}, 8)
    one, two = Adam(first, lr=0.1), Adam(second, lr=0.01)
    for step in range(5):
        one.step({"w": np.full(4, 1.0 + step)})
        two.step({"w": np.full(4, -2.0), "v": np.full(4, 1e-4)})
    seen.append({"first": first, "second": second})
    zero = _params({"z": (3,)}, 9)
    Adam(zero, lr=0.1).step({"z": np.zeros(3)})
    seen.append(zero)
    return seen


def _round_trip(layers, name: str, args: list, dout) -> dict:
    x = args[0]
    kept = x.copy()
    out, cache = getattr(layers, f"{name}_forward")(*args)
    out = np.array(out, copy=True)
    dx = getattr(layers, f"{name}_backward")(dout.copy(), cache)
    return {"out": out, "dx": dx, "x changed": not np.array_equal(kept, x)}


def relu(modules) -> list:
    layers = modules("layers")
    rng = np.random.default_rng(10)
    cases = [np.array([[-1.0, 0.0, 2.0], [0.0, -0.5, 3.0]]), rng.standard_normal((4, 5)), rng.standard_normal(6)]
    seen = [_round_trip(layers, "relu", [x], rng.standard_normal(x.shape)) for x in cases]
    seen.append(_round_trip(layers, "relu", [cases[1]], rng.standard_normal((4, 5))))
    return seen


def dropout(modules) -> list:
    layers = modules("layers")
    seen = []
    for p_drop, training, seed in ((0.5, True, 1), (0.2, True, 2), (0.9, True, 3), (0.0, True, 4), (0.5, False, 5),
                                   (0.3, True, 1)):
        rng = np.random.default_rng(seed)
        x = np.random.default_rng(seed + 10).uniform(0.5, 2.0, (30, 20))
        dout = np.random.default_rng(seed + 20).standard_normal((30, 20))
        first = _round_trip(layers, "dropout", [x, p_drop, training, rng], dout)
        second = _round_trip(layers, "dropout", [x, p_drop, training, rng], dout)
        seen.append({"first": first, "second": second, "next draw": rng.random()})
    try:
        layers.dropout_forward(np.ones(3), 1.0, True, np.random.default_rng(0))
        seen.append("p_drop = 1 accepted")
    except ValueError:
        seen.append("p_drop = 1 refused")
    return seen


def cross_entropy(modules) -> list:
    loss = modules("layers").softmax_cross_entropy
    rng = np.random.default_rng(11)
    seen = []
    for logits, labels in ((rng.standard_normal((5, 3)), np.array([0, 2, 1, 1, 0])),
                           (rng.standard_normal((1, 4)) * 5, np.array([3])),
                           (np.array([[1e4, 0.0, -1e4], [5e3, 5e3, 0.0]]), np.array([1, 0])),
                           (rng.standard_normal((7, 2)), rng.integers(0, 2, 7))):
        kept = logits.copy()
        result = loss(logits, labels)
        seen.append({"loss": result[0], "dlogits": np.array(result[1], copy=True), "logits changed":
                     not np.array_equal(kept, logits), "again": loss(kept.copy(), labels)})
    return seen


def _state(parse) -> list:
    return [list(parse.stack), list(parse.buffer), [tuple(a) for a in parse.dependencies]]


def transitions(modules) -> list:
    PartialParse = modules("parser_transitions").PartialParse
    seen = []
    sentence = ["the", "old", "dog", "barked", "loudly"]
    parse = PartialParse(sentence)
    seen.append(_state(parse))
    for transition in ["S", "S", "S", "LA", "LA", "S", "LA", "S", "RA", "RA"]:
        parse.parse_step(transition)
        seen.append(_state(parse))
    seen.append({"sentence after": list(sentence), "finished": parse.is_finished})
    other = PartialParse([1, 2, 3])  # a second parse: state shared between parses shows
    seen.append({"new parse": _state(other), "returned": other.parse(["S", "S", "RA", "S", "LA", "RA"])})
    seen.append(_state(PartialParse([])))
    for stack, buffer, arcs, transition in ((["ROOT", "a", "b", "c"], ["d"], [("x", "y")], "LA"),
                                            (["ROOT", "a", "b", "c"], ["d"], [], "RA"),
                                            (["ROOT"], ["a", "b"], [], "S")):
        parse = PartialParse(list(buffer))
        parse.stack = type(parse.stack)(stack) if not isinstance(parse.stack, deque) else deque(stack)
        parse.buffer = type(parse.buffer)(buffer) if not isinstance(parse.buffer, deque) else deque(buffer)
        parse.dependencies = type(parse.dependencies)(arcs)
        parse.parse_step(transition)
        seen.append(_state(parse))
    try:
        PartialParse(["a"]).parse_step("X")
        seen.append("X accepted")
    except ValueError:
        seen.append("X refused")
    return seen


class _Model:
    """Shift while possible, then left-arc when the top is even and below it odd, else right-arc."""

    def __init__(self) -> None:
        self.batches: list = []

    def predict(self, parses) -> list:
        self.batches.append([list(p.buffer) for p in parses])
        out = []
        for parse in parses:
            if parse.buffer:
                out.append("S")
            elif len(parse.stack) > 2 and parse.stack[-1] % 2 == 0 and parse.stack[-2] % 2 == 1:
                out.append("LA")
            else:
                out.append("RA")
        return out


def minibatch(modules) -> list:
    minibatch_parse = modules("parser_transitions").minibatch_parse
    seen = []
    for sentences, batch_size in (([[1, 2, 3], [4, 5], [6]], 1), ([[1, 2, 3, 4], [2, 3], [5, 6, 8, 9], [7], [2, 4]], 2),
                                  ([[3, 1], [2, 2, 4], [5]], 10), ([[1], [], [2, 3, 4, 5, 6, 7], [8, 9]], 3),
                                  ([[2, 5, 8]] * 3, 2)):
        kept = [list(s) for s in sentences]
        model = _Model()
        arcs = minibatch_parse(sentences, model, batch_size)
        seen.append({"arcs": [[tuple(a) for a in parse] for parse in arcs], "batches": model.batches,
                     "sentences after": [list(s) for s in sentences], "before": kept})
    return seen


def _model(module, seed: int, **kwargs):
    embeddings = np.random.default_rng(seed).standard_normal((15, 3))
    return module.ParserModel(embeddings, **{"n_features": 4, "hidden_size": 6, "n_classes": 3, "seed": seed,
                                             **kwargs}), embeddings


def model(modules) -> list:
    module = modules("parser_model")
    seen = [module.xavier_uniform(4, 7, np.random.default_rng(1)), module.xavier_uniform(30, 2,
                                                                                         np.random.default_rng(2))]
    for seed, kwargs in ((3, {}), (4, {"dropout_prob": 0.2}), (5, {"dropout_prob": 0.0, "n_classes": 4})):
        built, embeddings = _model(module, seed, **kwargs)
        seen.append({"params": dict(built.params), "embeddings shared": np.shares_memory(built.params["embeddings"],
                                                                                           embeddings)})
        rng = np.random.default_rng(seed)
        for name in ("b1", "b2"):
            built.params[name][...] = rng.standard_normal(built.params[name].shape)
        w = rng.integers(0, 15, size=(7, 4))
        w[:, 0] = 2
        dlogits = rng.standard_normal((7, built.params["b2"].size))
        seen.append({"lookup": built.embedding_lookup(w), "embedding backward":
                     built.embedding_backward(w, rng.standard_normal((7, 12)))})
        for training in (False, True, True, False):
            logits = np.array(built.forward(w, training=training), copy=True)
            grads = built.backward(dlogits)
            seen.append({"training": training, "logits": logits, "grads": dict(grads)})
        seen.append({"w after": w, "next draw": built.rng.random()})
    # two models side by side: each keeps its own parameters, generator and cache
    first, _ = _model(module, 6)
    second, _ = _model(module, 7, hidden_size=5)
    w = np.random.default_rng(8).integers(0, 15, size=(3, 4))
    first.forward(w, training=True)
    second.forward(w, training=True)
    seen.append({"first": first.backward(np.ones((3, 3))), "second": second.backward(np.ones((3, 3)))})
    return seen


def training(modules) -> dict:
    treebank = modules("utils.synthetic_treebank")
    parser_utils = modules("utils.parser_utils")
    run = modules("run")
    ParserModel = modules("parser_model").ParserModel
    sentences = treebank.make_treebank(70, seed=3)
    parser, embeddings, instances, dev, _ = parser_utils.prepare_data(sentences[:60], sentences[60:], sentences[60:],
                                                                      seed=3, embed_size=8, verbose=False)
    parser.model = ParserModel(embeddings, hidden_size=24, dropout_prob=0.3, seed=3)
    with tempfile.TemporaryDirectory() as folder:
        history = run.train(parser, instances, dev, Path(folder) / "params.npz", batch_size=64, n_epochs=2, lr=0.01)
    losses = [{k: v for k, v in epoch.items() if not k.endswith("seconds")} for epoch in history]
    return {"history": losses, "params": dict(parser.model.params), "next draw": parser.model.rng.random()}


SCENARIOS = {
    "Adam": adam,
    "relu": relu,
    "dropout": dropout,
    "softmax cross-entropy": cross_entropy,
    "PartialParse": transitions,
    "minibatch_parse": minibatch,
    "ParserModel": model,
    "training": training,
}
