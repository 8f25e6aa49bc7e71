"""Public test fixtures and probes for the parser, used on both sides of the trust boundary.

Probes run in the worker next to the student's code and return raw outputs (arrays, lists of
arcs, predicted heads); the grader judges them. Nothing here reveals an answer.
"""

from __future__ import annotations

import copy
import inspect
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
    return {
        "history": history,
        "in_place": all(arrays[n] is originals[n] for n in arrays),
        "grads_untouched": bool(grads_untouched),
    }


# -------------------------------------------------------------------------------- layers


def dropout_masks(student, x, p_drop: float, seed: int) -> list:
    """Training-mode dropout with generators seeded seed, seed (again) and seed + 1."""
    forward = student.attr("layers.dropout_forward")
    x = np.array(x, dtype=float)
    # a fresh x for every call: a dropout that (wrongly) changes x must not change the next masks
    return [forward(x.copy(), p_drop, True, np.random.default_rng(s))[0] for s in (seed, seed, seed + 1)]


def next_draw_after_dropout(student, x, p_drop: float, training: bool, seed: int) -> float:
    """``dropout_forward`` with a generator seeded ``seed``, then that generator's next number: the
    grader compares it with a fresh generator's first to see whether dropout drew from it."""
    forward = student.attr("layers.dropout_forward")
    generator = np.random.default_rng(seed)
    forward(np.array(x, dtype=float), p_drop, training, generator)
    return float(generator.random())


def layer_round_trip(student, layer: str, forward_args: list, dout) -> dict:
    """``layer_forward(*forward_args)`` then ``layer_backward(dout, cache)``, in one worker call;
    also whether the input x was still unchanged after both."""
    layers = student.module("layers")
    x = forward_args[0]
    before = np.array(x, copy=True)
    out, cache = getattr(layers, f"{layer}_forward")(*forward_args)
    dx = getattr(layers, f"{layer}_backward")(np.array(dout, dtype=float), cache)
    return {"out": out, "dx": dx, "x_unchanged": bool(np.array_equal(before, x))}


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


def parses_side_by_side(student, sentences: list, transitions: list) -> list:
    """One PartialParse per sentence, all made first, then stepped in turns (each its own
    transitions), as minibatch_parse steps them; the final configuration of each."""
    PartialParse = student.attr("parser_transitions.PartialParse")
    parses = [PartialParse(list(sentence)) for sentence in sentences]
    for turn in range(max(map(len, transitions))):
        for parse, steps in zip(parses, transitions):
            if turn < len(steps):
                parse.parse_step(steps[turn])
    return [_configuration(parse) for parse in parses]


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
    return {
        "stack": list(parse.stack),
        "buffer": list(parse.buffer),
        "dependencies": [list(arc) for arc in parse.dependencies],
    }


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
        if len(parse.stack) > 2 and isinstance(top, int) and isinstance(below, int) and top % 2 == 0 and below % 2 == 1:
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
    """The parameters a new model makes, and whether its embeddings share memory with the array
    given to it (the docstring asks for a copy)."""
    embeddings = np.array(embeddings, dtype=float)
    model = student.attr("parser_model.ParserModel")(embeddings, **kwargs)
    params = dict(model.params)
    kept = params.get("embeddings")
    shared = isinstance(kept, np.ndarray) and np.shares_memory(kept, embeddings)
    return {"params": params, "embeddings_shared": bool(shared)}


def model_lookup(student, embeddings, params: dict, kwargs: dict, w) -> np.ndarray:
    return _model(student, embeddings, params, kwargs).embedding_lookup(np.array(w))


def model_forward(student, embeddings, params: dict, kwargs: dict, w, training: bool, repeats: int = 1) -> list:
    model = _model(student, embeddings, params, kwargs)
    return [model.forward(np.array(w), training=training) for _ in range(repeats)]


def model_gradients(student, embeddings, params: dict, kwargs: dict, w, dlogits) -> dict:
    model = _model(student, embeddings, params, kwargs)
    model.rng = np.random.default_rng(kwargs.get("seed", 0))  # as model_losses does before every forward
    model.forward(np.array(w), training=False)
    return dict(model.backward(np.array(dlogits, dtype=float)))


def model_backward_on_right_cache(
    student, embeddings, params: dict, kwargs: dict, w, dlogits, seed: int | None = None
) -> dict:
    """``backward(dlogits)`` after the right forward pass put its cache where forward's docstring
    says, in the layout it says (w, x, relu_cache, h_drop, dropout_cache), made with the student's
    layers (whose caches are theirs to lay out): backward judged apart from the student's forward. In
    training mode (``seed`` given) dropout draws from ``self.rng`` seeded so, as forward would.

    ``grads`` holds one dict per layout tried: the docstring's, then, if the student's own forward
    lays its cache out otherwise (:func:`_their_layout`), the same cache in that order, so that a
    forward and backward that agree on another order are judged alike."""
    model = _model(student, embeddings, params, kwargs)
    w = np.array(w)
    training = seed is not None
    layouts: list[tuple[int, ...]] = [_DOCUMENTED]
    right = _right_cache(student, model, w, training, seed if seed is not None else kwargs.get("seed", 0))
    try:
        model.forward(w, training=training)
        theirs = _their_layout(model.cache, right)
        if theirs not in layouts:
            layouts.append(theirs)
    except Exception:  # their forward's failures are 3b's; the docstring's layout is tried alone
        pass
    grads = []
    for layout in layouts:
        model.cache = tuple(copy.deepcopy(right[i]) for i in layout)  # a backward may change its cache
        grads.append(dict(model.backward(np.array(dlogits, dtype=float))))
    return {"grads": grads, "h_drop": right[3]}


_DOCUMENTED = (0, 1, 2, 3, 4)  # (w, x, relu_cache, h_drop, dropout_cache), as forward's docstring says
CACHE_NAMES = ("w", "x", "relu_cache", "h_drop", "dropout_cache")


def model_cache(student, embeddings, params: dict, kwargs: dict, w_first, w, seed: int | None = None) -> dict:
    """What forward keeps in self.cache after a call on ``w_first`` and then one on ``w`` (in
    training, from ``self.rng`` seeded ``seed``), against the cache of the right forward pass on ``w``
    made with the student's layers. ``logits_right``: their logits are those of that cache (if not,
    the other checks of forward say why); ``missing``: the names of the right cache's entries their
    cache lacks, in whatever order (a tuple, a list, a dict's values) it keeps them; None when it is
    no such container (``kind``)."""
    model = _model(student, embeddings, params, kwargs)
    training, w = seed is not None, np.array(w)
    model.forward(np.array(w_first), training=training)
    model.rng = np.random.default_rng(seed if training else kwargs.get("seed", 0))
    logits = model.forward(w, training=training)
    cache = model.cache
    right = _right_cache(student, model, w, training, seed if training else kwargs.get("seed", 0))
    result = {
        "logits_right": _same(logits, right[3] @ model.params["U"] + model.params["b2"]),
        "kind": type(cache).__name__,
        "missing": None,
    }
    if isinstance(cache, (tuple, list, dict)):  # the docstring's tuple, or a container of one's own
        kept, missing = list(cache.values() if isinstance(cache, dict) else cache), []
        for name, entry in zip(CACHE_NAMES, right):
            found = next((i for i, mine in enumerate(kept) if _same(mine, entry)), None)
            if found is None:
                missing.append(name)
            else:
                kept.pop(found)
        result["missing"] = missing
    return result


def _same(a, b) -> bool:
    """Equal values (arrays to a relative 1e-7), taken apart as far as they are tuples or lists."""
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        try:
            return np.shape(a) == np.shape(b) and bool(np.allclose(a, b, rtol=1e-7, atol=1e-12, equal_nan=True))
        except (TypeError, ValueError):
            return False
    if isinstance(b, (tuple, list)):
        return isinstance(a, (tuple, list)) and len(a) == len(b) and all(map(_same, a, b))
    try:
        return bool(a is b or a == b)
    except Exception:  # a student's object whose == raises or is no truth value
        return False


def _right_cache(student, model, w: np.ndarray, training: bool, seed) -> tuple:
    model.rng = np.random.default_rng(seed)  # as model_gradients and model_training_pass do
    x = model.params["embeddings"][w].reshape(w.shape[0], -1)
    h, relu_cache = student.attr("layers.relu_forward")(x @ model.params["W"] + model.params["b1"])
    h_drop, dropout_cache = student.attr("layers.dropout_forward")(h, model.dropout_prob, training, model.rng)
    return w, x, relu_cache, h_drop, dropout_cache


def _their_layout(cache, right: tuple) -> tuple[int, ...]:
    """Where each entry of the student's own ``cache`` sits in ``right``: among the entries of the
    same kind (shape and dtype), the nearest in value. A forward that is right gives its own layout
    exactly; one with a bug in its values still keeps the pre-activation (with its negatives) apart
    from the hidden layer. The docstring's layout when the cache is no tuple of the same length."""
    if not isinstance(cache, tuple) or len(cache) != len(right):
        return _DOCUMENTED
    layout: list[int] = []
    for entry in cache:
        alike = [j for j, candidate in enumerate(right) if j not in layout and _kind(candidate) == _kind(entry)]
        if not alike:
            return _DOCUMENTED
        layout.append(min(alike, key=lambda j: _distance(entry, right[j])))
    return tuple(layout)


def _kind(value) -> tuple:
    if isinstance(value, np.ndarray):
        return "array", value.shape, "i" if value.dtype.kind in "iu" else value.dtype.kind
    return (type(value).__name__,)


def _distance(a, b) -> float:
    if isinstance(a, np.ndarray):
        return float(np.nan_to_num(np.abs(a.astype(float) - b.astype(float)), nan=1e300, posinf=1e300).sum())
    return 0.0 if a is b or a == b else 1.0


def model_training_pass(student, embeddings, params: dict, kwargs: dict, w, dlogits, seed: int) -> dict:
    """``forward(w, training=True)`` then ``backward(dlogits)``, with ``model.rng`` seeded ``seed``.

    Also reads the hidden layer after dropout that this forward pass used, so that the grader can
    compute the gradients with the very mask the student's forward drew: the same forward, started
    again from the same state of ``self.rng``, with an output layer that copies a few hidden units
    into the logits at a time. ``logits_again`` (a second pass from the same state) lets the grader
    check that the mask depends on that state alone.
    """
    model = _model(student, embeddings, params, kwargs)
    w = np.array(w)
    model.rng = np.random.default_rng(seed)
    logits = model.forward(w, training=True)
    grads = dict(model.backward(np.array(dlogits, dtype=float)))
    model.rng = np.random.default_rng(seed)
    again = model.forward(w, training=True)
    return {"logits": logits, "logits_again": again, "grads": grads, "h_drop": _hidden_after_dropout(model, w, seed)}


def model_hidden(student, embeddings, params: dict, kwargs: dict, w, seed: int) -> dict:
    """The hidden layer the model's forward computes for ``w``, read through the output layer: at
    evaluation, and in training from ``self.rng`` seeded ``seed`` (after dropout)."""
    model = _model(student, embeddings, params, kwargs)
    w = np.array(w)
    return {
        "evaluation": _hidden_after_dropout(model, w, seed, training=False),
        "training": _hidden_after_dropout(model, w, seed),
    }


def _hidden_after_dropout(model, w: np.ndarray, seed: int, training: bool = True) -> np.ndarray:
    """The hidden layer after dropout in ``forward(w, training=True)`` from ``self.rng`` seeded
    ``seed`` (with ``training=False``, the hidden layer at evaluation), read through the output layer:
    with b2 = 0 and U picking hidden units k..k+C-1, the logits are those units (exactly: every
    product is by 0 or 1)."""
    U, b2 = model.params["U"], model.params["b2"]
    saved_U, saved_b2 = U.copy(), b2.copy()
    hidden_size, n_classes = U.shape
    columns = []
    try:
        for start in range(0, hidden_size, n_classes):
            width = min(n_classes, hidden_size - start)
            U[...], b2[...] = 0.0, 0.0
            U[start + np.arange(width), np.arange(width)] = 1.0
            model.rng = np.random.default_rng(seed)
            columns.append(np.asarray(model.forward(w, training=training))[:, :width])
    finally:
        U[...], b2[...] = saved_U, saved_b2
    return np.concatenate(columns, axis=1)


def model_losses(
    student,
    embeddings,
    params: dict,
    kwargs: dict,
    w,
    dlogits,
    name: str,
    directions,
    h: float = 1e-4,
    training_seed: int | None = None,
) -> np.ndarray:
    """Centred-difference material: ``sum(dlogits * forward(w))`` at ``params[name] + h d`` (row 0)
    and ``params[name] - h d`` (row 1) for each direction ``d`` in ``directions``; with
    ``training_seed``, forward in training mode from ``self.rng`` seeded so each time (one mask).

    The grader turns these into directional derivatives to tell a wrong backward pass from a wrong
    forward pass (:mod:`autograder.grading.gradients`).
    """
    model = _model(student, embeddings, params, kwargs)
    target = model.params[name]
    saved = target.copy()
    directions = np.asarray(directions, dtype=float).reshape(-1, *saved.shape)
    losses = np.empty((2, len(directions)))
    for k, direction in enumerate(directions):
        for row, sign in enumerate((1.0, -1.0)):
            target[...] = saved + sign * h * direction
            # every forward from the same state of self.rng, that of the one backward was checked
            # after: a forward that draws where it should not (dropout at evaluation) then draws alike
            model.rng = np.random.default_rng(kwargs.get("seed", 0) if training_seed is None else training_seed)
            logits = model.forward(np.array(w), training=training_seed is not None)
            losses[row, k] = float(np.sum(dlogits * logits))
    target[...] = saved
    return losses


# ----------------------------------------------------------------------------- end to end


def train_and_parse(
    student, n_train: int, n_test: int, seed: int, epochs: int, batch_size: int, lr: float, hidden_size: int
) -> dict:
    """Train the student's model with the student's Adam and training loop on the synthetic
    treebank (given code builds the data), then parse held-out sentences.

    Returns raw facts; the grader computes the UAS against the gold trees it generates and says
    what went wrong:

    - ``heads``: the predicted head of every word of every test sentence (-1: none);
    - ``dependents``: the words that the arcs returned for each test sentence attach (positions;
      the arcs of another sentence show up as the wrong words);
    - ``changed``: for each parameter, whether training changed it;
    - ``forward_calls``: how often ``run.train`` ran the model's forward with training on and off.

    During training, the dev set is parsed with arcs that do not fit their sentence ignored rather
    than raised on, so that a wrong ``minibatch_parse`` still lets the training and its facts be
    reported (its own question grades it).
    """
    treebank = student.module("utils.synthetic_treebank")
    parser_utils = student.module("utils.parser_utils")
    run = student.module("run")
    train = treebank.make_treebank(n_train, seed=seed)
    test = treebank.make_treebank(n_test, seed=seed + 1)
    parser, embeddings, instances, dev, test_encoded = parser_utils.prepare_data(
        train, test[: max(1, n_test // 4)], test, seed=seed, verbose=False
    )
    model = student.attr("parser_model.ParserModel")(embeddings, hidden_size=hidden_size, seed=seed)
    before = {name: np.array(value, copy=True) for name, value in model.params.items()}
    recorder = _ForwardRecorder(model)
    parser.model = recorder
    parser.parse = _tolerant_parse(parser, parser_utils)
    optimizers: list[dict] = []
    given_adam = getattr(run, "Adam", None)
    if isinstance(given_adam, type):
        run.Adam = _recording(given_adam, optimizers)
    try:
        with tempfile.TemporaryDirectory(dir=os.getcwd()) as folder:
            run.train(
                parser, instances, dev, Path(folder) / "model_params.npz", batch_size=batch_size, n_epochs=epochs, lr=lr
            )
    finally:
        run.Adam = given_adam
    changed = {name: not np.array_equal(value, np.asarray(model.params.get(name))) for name, value in before.items()}
    dependencies = parser.parse_arcs(test_encoded, model)
    return {
        "heads": [_heads(arcs, len(s)) for arcs, s in zip(dependencies, test_encoded)],
        "dependents": [sorted(_word(d) for _, d in arcs) for arcs in dependencies],
        "changed": changed,
        "forward_calls": recorder.calls,
        "optimizers": optimizers,
        "batches": epochs * -(-len(instances) // batch_size),
    }


def _recording(adam: type, made: list[dict]) -> type:
    """``adam`` (the run module's Adam) that records each optimiser made: the learning rate it was
    given (by keyword or by position, as its signature reads them), whether it holds the model's
    parameters, and how often it stepped."""

    class Recorded(adam):
        def __init__(self, *args, **kwargs) -> None:
            bound = inspect.signature(adam).bind(*args, **kwargs)
            bound.apply_defaults()
            self._record = {"lr": float(bound.arguments.get("lr", float("nan"))), "steps": 0}
            made.append(self._record)
            super().__init__(*args, **kwargs)

        def step(self, *args, **kwargs):
            self._record["steps"] += 1
            return super().step(*args, **kwargs)

    Recorded.__name__ = Recorded.__qualname__ = adam.__name__
    return Recorded


class _ForwardRecorder:
    """Stands for the model during ``run.train``: counts forward calls with training on and off,
    and passes everything else to the model itself (its params, backward, ...)."""

    def __init__(self, model) -> None:
        object.__setattr__(self, "_model", model)
        object.__setattr__(self, "calls", {"training": 0, "evaluation": 0})

    def forward(self, *args, **kwargs):
        # forward(w, training=False): the starter's signature, the default included
        training = kwargs["training"] if "training" in kwargs else (args[1] if len(args) > 1 else False)
        self.calls["training" if training else "evaluation"] += 1
        return self._model.forward(*args, **kwargs)

    def __getattr__(self, name: str):
        return getattr(self._model, name)

    def __setattr__(self, name: str, value) -> None:
        setattr(self._model, name, value)


def _tolerant_parse(parser, parser_utils):
    """``parser.parse`` that ignores arcs to words a sentence does not have (see train_and_parse)."""

    def parse(sentences, model=None, batch_size: int = 5000):
        sentences = parser.vectorize(sentences)
        dependencies = parser.parse_arcs(sentences, model, batch_size)
        predicted = [np.array(_heads(arcs, len(s))) for arcs, s in zip(dependencies, sentences)]
        uas = parser_utils.uas
        return uas(predicted, sentences), uas(predicted, sentences, include_punct=False), predicted

    return parse


def _word(token) -> int:
    """A word's position in an arc as minibatch_parse returns it; ROOT is 0, anything else -1."""
    if token == "ROOT":
        return 0
    try:
        return int(token)
    except (TypeError, ValueError):
        return -1


def _heads(arcs, n_words: int) -> list[int]:
    """The head of each of the ``n_words`` words, -1 where no arc fits the sentence."""
    heads = [-1] * n_words
    for head, dependent in arcs:
        position = _word(dependent)
        if 1 <= position <= n_words:
            heads[position - 1] = _word(head)
    return heads
