"""Cross-check of the parser reference against PyTorch: Adam, the layers and the model's gradients.

The reference solution in solutions/parser is plain numpy. These tests run the same computations in
PyTorch (float64) and compare: the Adam trajectory with ``torch.optim.Adam`` and every gradient of
``ParserModel.backward`` with autograd. They are skipped when torch is not installed
(``pip install -e .[torch]``).
"""

from __future__ import annotations

import importlib
import sys
from types import SimpleNamespace

import numpy as np
import pytest

from autograder.core.config import REPO_ROOT

torch = pytest.importorskip("torch")
F = torch.nn.functional

PARSER_DIR = REPO_ROOT / "solutions" / "parser"
MODULES = ("optim", "layers", "parser_model", "parser_transitions")


def _is_parser_module(name: str) -> bool:
    return name in MODULES or name == "utils" or name.startswith("utils.")


@pytest.fixture(scope="module")
def parser():
    """The reference modules, imported from solutions/parser and forgotten afterwards.

    Their names (``utils``, ``layers``...) are generic, so whatever was in sys.modules under those
    names is set aside during these tests and put back after them.
    """
    saved = {name: sys.modules.pop(name) for name in list(sys.modules) if _is_parser_module(name)}
    sys.path.insert(0, str(PARSER_DIR))
    try:
        yield SimpleNamespace(**{name: importlib.import_module(name) for name in MODULES})
    finally:
        sys.path.remove(str(PARSER_DIR))
        for name in [name for name in sys.modules if _is_parser_module(name)]:
            del sys.modules[name]
        sys.modules.update(saved)


def _tensor(array: np.ndarray, requires_grad: bool = False):
    return torch.tensor(np.array(array, dtype=np.float64), requires_grad=requires_grad)


# ------------------------------------------------------------------------------------------- Adam

SHAPES = {"vector": (7,), "matrix": (5, 4), "cube": (2, 3, 4), "scalar": ()}


@pytest.mark.parametrize(
    "hyper",
    [
        dict(lr=1e-3),
        dict(lr=0.05, weight_decay=0.1),
        dict(lr=0.01, betas=(0.8, 0.99), eps=1e-6, weight_decay=1e-3),
    ],
    ids=["defaults", "weight_decay", "custom_betas_eps"],
)
def test_adam_matches_torch(parser, hyper):
    rng = np.random.default_rng(0)
    start = {name: np.array(rng.standard_normal(shape)) for name, shape in SHAPES.items()}
    params = {name: value.copy() for name, value in start.items()}
    arrays = dict(params)  # the very objects the optimiser must update
    ours = parser.optim.Adam(params, **hyper)

    tensors = {name: _tensor(value, requires_grad=True) for name, value in start.items()}
    theirs = torch.optim.Adam(list(tensors.values()), **hyper)

    for step in range(200):
        # Gradients of very different sizes, some exactly zero, as in a real model.
        grads = {name: np.array(rng.standard_normal(shape) * 10.0 ** rng.integers(-4, 3)) for name, shape in SHAPES.items()}
        grads["vector"][step % 7] = 0.0
        ours.step(grads)
        for name, tensor in tensors.items():
            tensor.grad = torch.from_numpy(grads[name].copy())
        theirs.step()
        for name, tensor in tensors.items():
            np.testing.assert_allclose(params[name], tensor.detach().numpy(), rtol=1e-10, atol=1e-13,
                                       err_msg=f"{name} after step {step + 1}")
    assert all(params[name] is arrays[name] for name in params), "Adam must update the arrays in place"


# ----------------------------------------------------------------------------------------- layers


@pytest.mark.parametrize("scale", [1.0, 1e4], ids=["ordinary", "huge"])
def test_softmax_cross_entropy_matches_torch(parser, scale):
    rng = np.random.default_rng(1)
    logits = scale * rng.standard_normal((64, 5))
    labels = rng.integers(0, 5, size=64)
    loss, dlogits = parser.layers.softmax_cross_entropy(logits, labels)

    z = _tensor(logits, requires_grad=True)
    expected = F.cross_entropy(z, torch.from_numpy(labels))
    expected.backward()
    np.testing.assert_allclose(loss, expected.item(), rtol=1e-12)
    np.testing.assert_allclose(dlogits, z.grad.numpy(), rtol=1e-10, atol=1e-15)


# ------------------------------------------------------------------------------------------ model


def _torch_loss(params: dict, w: np.ndarray, labels: np.ndarray, dropout_scale):
    """The parser network in torch, with the dropout mask (if any) taken from the numpy run."""
    batch = w.shape[0]
    x = params["embeddings"][torch.from_numpy(w)].reshape(batch, -1)
    h = torch.relu(x @ params["W"] + params["b1"])
    if dropout_scale is not None:
        h = h * torch.from_numpy(dropout_scale)
    logits = h @ params["U"] + params["b2"]
    return logits, F.cross_entropy(logits, torch.from_numpy(labels))


@pytest.mark.parametrize("training", [False, True], ids=["eval", "dropout"])
@pytest.mark.parametrize(
    "sizes",
    [dict(n_tokens=20, embed=4, n_features=6, hidden=5), dict(n_tokens=300, embed=50, n_features=36, hidden=200)],
    ids=["small", "default_sizes"],
)
def test_model_gradients_match_autograd(parser, monkeypatch, training, sizes):
    rng = np.random.default_rng(2)
    embeddings = rng.standard_normal((sizes["n_tokens"], sizes["embed"]))
    model = parser.parser_model.ParserModel(embeddings, n_features=sizes["n_features"],
                                            hidden_size=sizes["hidden"], n_classes=3, dropout_prob=0.4, seed=3)
    for name in ("b1", "b2"):  # non-zero biases, so that they matter
        model.params[name][...] = rng.uniform(-0.3, 0.3, model.params[name].shape)
    batch = 32
    w = rng.integers(0, sizes["n_tokens"], size=(batch, sizes["n_features"]))
    w[:, :3] = [0, 1, 2]  # ids repeated in every row, like NULL and ROOT
    labels = rng.integers(0, 3, size=batch)

    # Record the dropout mask the numpy model draws, to apply the same one in torch.
    masks = []
    real_dropout = parser.parser_model.dropout_forward

    def recording_dropout(*args, **kwargs):
        out, cache = real_dropout(*args, **kwargs)
        masks.append(cache)
        return out, cache

    monkeypatch.setattr(parser.parser_model, "dropout_forward", recording_dropout)
    logits = model.forward(w, training=training)
    loss, dlogits = parser.layers.softmax_cross_entropy(logits, labels)
    grads = model.backward(dlogits)

    (mask,) = masks
    assert (mask is None) == (not training)
    if training:
        assert 0.0 < np.mean(mask == 0.0) < 1.0

    params = {name: _tensor(value, requires_grad=True) for name, value in model.params.items()}
    torch_logits, torch_loss = _torch_loss(params, w, labels, mask)
    torch_loss.backward()

    np.testing.assert_allclose(logits, torch_logits.detach().numpy(), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(loss, torch_loss.item(), rtol=1e-10)
    assert set(grads) == set(params)
    for name, tensor in params.items():
        np.testing.assert_allclose(grads[name], tensor.grad.numpy(), rtol=1e-8, atol=1e-12,
                                   err_msg=f"gradient of {name}")


def test_training_step_matches_torch(parser):
    """Forward, backward and Adam together: five training steps give the same parameters as torch."""
    rng = np.random.default_rng(4)
    embeddings = rng.standard_normal((40, 8))
    model = parser.parser_model.ParserModel(embeddings, n_features=10, hidden_size=16, dropout_prob=0.0, seed=5)
    params = {name: _tensor(value, requires_grad=True) for name, value in model.params.items()}
    ours = parser.optim.Adam(model.params, lr=0.01, weight_decay=1e-4)
    theirs = torch.optim.Adam(list(params.values()), lr=0.01, weight_decay=1e-4)
    for _ in range(5):
        w = rng.integers(0, 40, size=(16, 10))
        labels = rng.integers(0, 3, size=16)
        _, dlogits = parser.layers.softmax_cross_entropy(model.forward(w, training=True), labels)
        ours.step(model.backward(dlogits))
        theirs.zero_grad()
        _torch_loss(params, w, labels, None)[1].backward()
        theirs.step()
    for name, tensor in params.items():
        np.testing.assert_allclose(model.params[name], tensor.detach().numpy(), rtol=1e-9, atol=1e-12,
                                   err_msg=name)
