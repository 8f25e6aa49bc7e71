"""Public test fixtures for word2vec, used on both sides of the trust boundary.

The worker builds them to feed the student's code; the grader builds the same ones to run the
reference. They compute nothing that would reveal an answer: a scripted dataset, a stand-in loss
with known gradients (so ``skipgram`` is graded independently of the student's losses), and for
``sgd`` a quadratic, a linear function whose constant gradient shows the step sizes, a
postprocessing and a probe that runs ``sgd`` with short annealing and checkpoint periods.
"""

from __future__ import annotations

import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from types import ModuleType

import numpy as np


class ScriptedDataset:
    """A dataset whose ``sample_token_idx`` returns ``samples`` in order (then starts over)."""

    def __init__(self, n_tokens: int, samples: list[int]) -> None:
        self.n_tokens = n_tokens
        self.samples = [int(s) for s in samples]
        self.position = 0

    def tokens(self) -> dict[str, int]:
        return {f"w{i}": i for i in range(self.n_tokens)}

    def sample_token_idx(self) -> int:
        value = self.samples[self.position % len(self.samples)]
        self.position += 1
        return value

    def get_random_context(self, C: int):
        raise RuntimeError("the graded tests do not draw random contexts")

    def reset(self) -> None:
        self.position = 0

    def report(self) -> dict:
        return {"draws": self.position}


class ProbeLoss:
    """Stand-in for a word2vec loss: ``(o + 1) * u_o . v_c``, with its exact gradients.

    Records every call, so a test can see which outside words ``skipgram`` asked about and which
    center vector it passed.
    """

    def __init__(self) -> None:
        self.outside: list[int] = []
        self.centers: list[np.ndarray] = []

    def __call__(self, center_word_vec, outside_word_idx, outside_vectors, dataset):
        center = np.asarray(center_word_vec, dtype=float)
        o = int(outside_word_idx)
        self.outside.append(o)
        self.centers.append(center.copy())
        weight = o + 1.0
        grad_outside = np.zeros_like(np.asarray(outside_vectors, dtype=float))
        grad_outside[o] = weight * center
        return weight * float(outside_vectors[o] @ center), weight * np.asarray(outside_vectors[o]), grad_outside

    def report(self) -> dict:
        centers = np.array(self.centers) if self.centers else np.zeros((0, 0))
        return {"outside": self.outside, "centers": centers}


class Quadratic:
    """``f(x) = sum(scale * (x - target)**2)`` with its gradient; floats stay floats."""

    def __init__(self, target, scale: float = 1.0) -> None:
        self.target = np.asarray(target, dtype=float) if isinstance(target, (list, np.ndarray)) else float(target)
        self.scale = float(scale)
        self.calls = 0

    def __call__(self, x):
        self.calls += 1
        diff = x - self.target
        return float(np.sum(self.scale * diff**2)), 2.0 * self.scale * diff

    def report(self) -> dict:
        return {"calls": self.calls}


class Slope:
    """``f(x) = slope * sum(x)``, whose gradient is ``slope`` everywhere.

    Each iteration of ``sgd`` then moves every entry of x by exactly ``step * slope``, so the
    points f is asked about show the step sizes ``sgd`` used. Floats stay floats.
    """

    def __init__(self, slope: float = 1.0) -> None:
        self.slope = float(slope)
        self.points: list[float] = []  # sum(x) at every call

    def __call__(self, x):
        self.points.append(float(np.sum(x)))
        grad = self.slope if np.ndim(x) == 0 else np.full(np.shape(x), self.slope)
        return self.slope * self.points[-1], grad


class UnitBall:
    """A postprocessing that pulls x back onto the unit ball, ``x / max(1, |x|)``."""

    def __init__(self) -> None:
        self.calls = 0

    def __call__(self, x):
        self.calls += 1
        return x / max(1.0, float(np.linalg.norm(x)))

    def report(self) -> dict:
        return {"calls": self.calls}


@contextmanager
def _constants(module: ModuleType, **values: int) -> Iterator[None]:
    """Set module-level constants for the duration of a block, then put the old values back."""
    saved = {name: getattr(module, name) for name in values}
    for name, value in values.items():
        setattr(module, name, value)
    try:
        yield
    finally:
        for name, value in saved.items():
            setattr(module, name, value)


def sgd_short_periods(
    student, x0, step: float, iterations: int, anneal_every: int, save_every: int, resume_after: int = 0
) -> list[dict]:
    """``sgd`` on a :class:`Slope`, with ANNEAL_EVERY and SAVE_PARAMS_EVERY set to a few iterations.

    The real periods (tens of thousands of iterations) would make a test slow; ``sgd`` reads them
    from its module when it runs. Checkpoints go to a fresh folder. With ``resume_after``, a first
    call stops after that many iterations, and a second call with ``use_saved=True`` must go on from
    the newest checkpoint. Returns, for each call, the points f was asked about and the final x.
    """
    module = student.module("sgd")
    calls = [resume_after, iterations] if resume_after else [iterations]
    runs = []
    with (
        _constants(module, ANNEAL_EVERY=anneal_every, SAVE_PARAMS_EVERY=save_every),
        tempfile.TemporaryDirectory() as folder,
    ):
        for number, total in enumerate(calls):
            f = Slope()
            x = module.sgd(f, x0, step, total, use_saved=number > 0, print_every=None, checkpoint_dir=folder)
            runs.append({"points": f.points, "x": x})
    return runs
