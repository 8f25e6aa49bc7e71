"""The Adam optimiser, written out by hand.

Run `python optim.py` to check your work: it runs the public tests of
this file's functions, as `check` and Gradescope do, and reports each as
passed, partial or failed ("not implemented yet" until you write it).

Two rules hold for every function you write, and `python optim.py`, the
autograder's `check` and the grader all hold you to them: a function
changes none of the arrays and lists it is given (unless its docstring
says so), and it gives the same result whenever it gets the same inputs.
A right result that changes an input earns half a test's points; one that
changes from one call to the next earns none. The parameters after
every step are compared with the reference's within a relative 1e-7 (an
absolute 1e-12).

Plain SGD moves every parameter by lr * gradient, so a parameter with tiny
gradients barely moves and one with huge gradients overshoots. Adam keeps
two running averages per parameter entry,

    m = average of recent gradients          ("momentum", smooths noise)
    v = average of recent squared gradients  (a per-entry gradient scale)

and moves each entry by about lr * m / sqrt(v): a step of roughly lr in
the direction the gradients agree on, whatever their size.

Reference: Kingma and Ba, "Adam: A Method for Stochastic Optimization",
ICLR 2015. The update below is the one of `torch.optim.Adam`.
"""

from __future__ import annotations

from typing import Dict, Tuple

import numpy as np

from utils.sanity import run_public_tests

Params = Dict[str, np.ndarray]


class Adam:
    """Adam over a dictionary of named parameter arrays.

    The arrays in `params` are updated IN PLACE: a model that holds the
    same dictionary (or the same arrays) sees every update without being
    told. Never rebind them (`params[name] = params[name] - ...` would
    leave the model holding the old array).

    One call of `step(grads)` does, for every name, with g = grads[name],
    p = params[name] and t the number of steps taken so far, this one
    included:

        g     = g + weight_decay * p          (L2 penalty, as in torch)
        m     = beta1 * m + (1 - beta1) * g
        v     = beta2 * v + (1 - beta2) * g**2
        m_hat = m / (1 - beta1**t)             (bias correction, see below)
        v_hat = v / (1 - beta2**t)
        p     = p - lr * m_hat / (sqrt(v_hat) + eps)

    Why the bias correction: m and v start at zero, so early on they are
    averages that are still mostly made of those zeros and far too small.
    Dividing by (1 - beta**t) undoes exactly that shrinkage; its effect
    fades as t grows and beta**t goes to 0.
    """

    def __init__(
        self,
        params: Params,
        lr: float = 1e-3,
        betas: Tuple[float, float] = (0.9, 0.999),
        eps: float = 1e-8,
        weight_decay: float = 0.0,
    ) -> None:
        """Store the hyper-parameters and create zeroed state for each parameter.

        Args:
            params: name -> float array; these very arrays are updated.
            lr: learning rate, the typical size of a step.
            betas: (beta1, beta2), decay rates of the running averages of
                the gradient and of its square. Each is in [0, 1).
            eps: added to sqrt(v_hat) so that entries whose gradient has
                always been zero do not divide by zero.
            weight_decay: strength of an L2 penalty 0.5 * wd * ||p||**2,
                applied by adding wd * p to the gradient.
        """
        beta1, beta2 = betas
        if lr < 0 or eps < 0 or weight_decay < 0:
            raise ValueError(f"lr, eps and weight_decay must be >= 0, got {lr}, {eps}, {weight_decay}")
        if not (0.0 <= beta1 < 1.0 and 0.0 <= beta2 < 1.0):
            raise ValueError(f"betas must lie in [0, 1), got {betas}")
        for name, param in params.items():
            if not (isinstance(param, np.ndarray) and np.issubdtype(param.dtype, np.floating)):
                raise TypeError(f"parameter {name!r} must be a float ndarray (it is updated in place)")

        self.params = params
        self.lr = lr
        self.beta1 = beta1
        self.beta2 = beta2
        self.eps = eps
        self.weight_decay = weight_decay
        self.t = 0  # number of steps taken
        self.m = {name: np.zeros_like(param) for name, param in params.items()}
        self.v = {name: np.zeros_like(param) for name, param in params.items()}

    def step(self, grads: Params) -> None:
        """Update every parameter once, in place, from its gradient.

        Args:
            grads: name -> gradient of the loss, same names and shapes as
                `params`. Not modified.

        Hints:
            - Increase self.t first: the first step has t = 1.
            - Update self.m[name] and self.v[name] in place too (`*=`, `+=`),
              or store the new arrays back in the dictionaries.
            - `param -= ...` changes the caller's array; `param = param - ...`
              does not.
            - eps goes OUTSIDE the square root.
        """
        ### BEGIN SOLUTION
        self.t += 1
        bias1 = 1.0 - self.beta1**self.t
        bias2 = 1.0 - self.beta2**self.t
        for name, param in self.params.items():
            grad = grads[name]
            if self.weight_decay != 0.0:
                grad = grad + self.weight_decay * param  # a new array: grads[name] stays intact
            m, v = self.m[name], self.v[name]
            m *= self.beta1
            m += (1.0 - self.beta1) * grad
            v *= self.beta2
            v += (1.0 - self.beta2) * np.square(grad)
            # lr * m_hat / (sqrt(v_hat) + eps), with the bias corrections
            # applied to numbers instead of to whole arrays (as torch does):
            # the same step in fewer passes over the parameters.
            denominator = np.sqrt(v) / np.sqrt(bias2) + self.eps
            param -= (self.lr / bias1) * m / denominator
        ### END SOLUTION


# --------------------------------------------------------------------------
# Self-check: `python optim.py` runs the public tests of this file's functions,
# with the same tests, messages and verdicts as the grader.
# --------------------------------------------------------------------------

if __name__ == "__main__":
    run_public_tests(__file__, "parser")
