"""Public test fixtures for word2vec, used on both sides of the trust boundary.

The worker builds them to feed the student's code; the grader builds the same ones to run the
reference. They compute nothing that would reveal an answer: a scripted dataset, a stand-in loss
with known gradients (so ``skipgram`` is graded independently of the student's losses), and a
quadratic for ``sgd``.
"""

from __future__ import annotations

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
        return float(np.sum(self.scale * diff ** 2)), 2.0 * self.scale * diff

    def report(self) -> dict:
        return {"calls": self.calls}
