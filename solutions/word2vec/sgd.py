"""Plain stochastic gradient descent with checkpoints and step annealing.

Run `python sgd.py` to check your work: it runs the public tests of
this file's functions, as `check` and Gradescope do, and reports each as
passed, partial or failed ("not implemented yet" until you write it).

Two rules hold for every function you write, and `python sgd.py`, the
autograder's `check` and the grader all hold you to them: a function
changes none of the arrays and lists it is given (unless its docstring
says so), and it gives the same result whenever it gets the same inputs.
A right result that changes an input earns half a test's points; one that
changes from one call to the next earns none. The final x is compared
with the reference's within a relative 1e-7 (an absolute 1e-10).
"""

from __future__ import annotations

import json
import random
import re
from collections.abc import Callable
from pathlib import Path

import numpy as np

from utils.sanity import run_public_tests

# Save the parameters every this many iterations, so a long run can resume.
SAVE_PARAMS_EVERY = 5000
# Halve the step size every this many iterations.
ANNEAL_EVERY = 20000
# Weight of the newest loss in the printed moving average.
SMOOTHING = 0.05

Params = float | np.ndarray
PathLike = str | Path


# ------------------------------------------------------------- checkpoints


def _params_path(checkpoint_dir: PathLike, iteration: int) -> Path:
    return Path(checkpoint_dir) / f"saved_params_{iteration}.npy"


def _state_path(checkpoint_dir: PathLike, iteration: int) -> Path:
    return Path(checkpoint_dir) / f"saved_state_{iteration}.json"


def latest_checkpoint(checkpoint_dir: PathLike = ".") -> int:
    """Iteration of the newest complete checkpoint in the folder, 0 if none."""
    folder = Path(checkpoint_dir)
    if not folder.is_dir():
        return 0
    iterations = [0]
    for path in folder.glob("saved_params_*.npy"):
        match = re.fullmatch(r"saved_params_(\d+)\.npy", path.name)
        if match and _state_path(folder, int(match.group(1))).exists():
            iterations.append(int(match.group(1)))
    return max(iterations)


def save_checkpoint(iteration: int, x: Params, checkpoint_dir: PathLike = ".") -> None:
    """Store x with np.save and the state of `random` as JSON (no pickle)."""
    Path(checkpoint_dir).mkdir(parents=True, exist_ok=True)
    np.save(_params_path(checkpoint_dir, iteration), np.asarray(x))
    version, internal_state, gauss_next = random.getstate()
    state = {"version": version, "internal_state": list(internal_state), "gauss_next": gauss_next}
    _state_path(checkpoint_dir, iteration).write_text(json.dumps(state), encoding="utf-8")


def load_checkpoint(iteration: int, checkpoint_dir: PathLike = ".") -> np.ndarray:
    """Return the saved x and put `random` back in the saved state.

    Restoring `random` makes a resumed run draw the same contexts and
    negative samples as an uninterrupted one.
    """
    x = np.load(_params_path(checkpoint_dir, iteration), allow_pickle=False)
    state = json.loads(_state_path(checkpoint_dir, iteration).read_text(encoding="utf-8"))
    random.setstate((state["version"], tuple(state["internal_state"]), state["gauss_next"]))
    return x


# ---------------------------------------------------------------------- SGD


def sgd(
    f: Callable[[Params], tuple[float, Params]],
    x0: Params,
    step: float,
    iterations: int,
    postprocessing: Callable[[Params], Params] | None = None,
    use_saved: bool = False,
    print_every: int | None = 10,
    *,
    checkpoint_dir: PathLike = ".",
) -> Params:
    """Minimise f by stochastic gradient descent.

    Two rules, checked by `python sgd.py` and by the grader:

    - f is called exactly once per iteration. The loss and the gradient
      come from the same call: a noisy f would answer two calls from two
      different mini-batches, and each call costs a pass over a batch.
    - x0 is not modified: each update builds a new x instead of changing
      the array in place, so the caller's x0 stays as it was.

    A right final x reached while breaking one of these rules earns half
    the points of each test that sees it.

    Args:
        f: maps x to (loss, gradient of the loss at x). It may be noisy,
            e.g. computed on a random mini-batch.
        x0: starting point, a Python float or an ndarray (not modified).
        step: initial step size (learning rate); halved every ANNEAL_EVERY
            iterations.
        iterations: total number of iterations, counting any done before a
            resume.
        postprocessing: applied to x after every update (e.g. to normalise
            word vectors); None leaves x unchanged.
        use_saved: resume from the newest checkpoint in `checkpoint_dir`,
            if there is one.
        print_every: print a moving average of the loss every this many
            iterations; None or 0 prints nothing.
        checkpoint_dir: where `saved_params_<iteration>.npy` and
            `saved_state_<iteration>.json` are written every
            SAVE_PARAMS_EVERY iterations.

    Returns:
        x after the last iteration.
    """
    start = 0
    x = x0
    if use_saved:
        start = latest_checkpoint(checkpoint_dir)
        if start > 0:
            x = load_checkpoint(start, checkpoint_dir)
            step *= 0.5 ** (start // ANNEAL_EVERY)  # catch up on the annealing
    if postprocessing is None:
        postprocessing = lambda x: x  # noqa: E731

    smoothed_loss = None
    for iteration in range(start + 1, iterations + 1):
        # One update: evaluate f at x to get `loss` and the gradient, then
        # move x downhill by `step` times the gradient. Build a new x rather
        # than changing the array in place (x0 must not change).
        ### BEGIN SOLUTION
        loss, grad = f(x)
        x = x - step * grad
        ### END SOLUTION
        x = postprocessing(x)

        # The loss of a single mini-batch is noisy; its moving average
        # shows the trend.
        if smoothed_loss is None:
            smoothed_loss = loss
        else:
            smoothed_loss = (1 - SMOOTHING) * smoothed_loss + SMOOTHING * loss
        if print_every and iteration % print_every == 0:
            print(f"iter {iteration}: {float(smoothed_loss):.6f}")

        if iteration % SAVE_PARAMS_EVERY == 0:
            save_checkpoint(iteration, x, checkpoint_dir)
        if iteration % ANNEAL_EVERY == 0:
            step *= 0.5
    return x


# --------------------------------------------------------------------------
# Self-check: `python sgd.py` runs the public tests of this file's functions,
# with the same tests, messages and verdicts as the grader.
# --------------------------------------------------------------------------

if __name__ == "__main__":
    run_public_tests(__file__, "word2vec")
