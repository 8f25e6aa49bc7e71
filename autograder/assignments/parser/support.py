"""Grader-side helpers shared by the public and hidden parser tests. Public: no expected values."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from autograder.contract.protocol import FixtureRef
from autograder.grading import checks, gradients
from autograder.grading.testing import GradedTestCase

ADAM = ("optim.Adam.step",)
RELU = ("layers.relu_forward", "layers.relu_backward")
DROPOUT = ("layers.dropout_forward", "layers.dropout_backward")
CROSS_ENTROPY = ("layers.softmax_cross_entropy",)
PARTIAL_PARSE = ("parser_transitions.PartialParse.__init__", "parser_transitions.PartialParse.parse_step")
MINIBATCH = ("parser_transitions.minibatch_parse", *PARTIAL_PARSE)
# __init__ draws W and U with xavier_uniform: every test that builds a model reaches it
LOOKUP = (
    "parser_model.ParserModel.__init__",
    "parser_model.xavier_uniform",
    "parser_model.ParserModel.embedding_lookup",
)
FORWARD = ("parser_model.ParserModel.forward", *LOOKUP, "layers.relu_forward", "layers.dropout_forward")
BACKWARD = (
    "parser_model.ParserModel.backward",
    "parser_model.ParserModel.embedding_backward",
    "layers.relu_backward",
    "layers.dropout_backward",
    *FORWARD,
)
TRAINING = ("run.train", "run.train_for_epoch", *ADAM, *CROSS_ENTROPY, *BACKWARD, *MINIBATCH)
PARAM_NAMES = ("embeddings", "W", "b1", "U", "b2")


def arcs(dependencies) -> list[tuple]:
    """Arcs as a sorted list of (head, dependent) tuples: their order does not matter."""
    return sorted((tuple(a) for a in dependencies), key=repr)


def wrong_parses(sentences: list, got: list[list], expected: list[list]) -> str | None:
    """What is wrong with the arcs returned for each sentence (sorted arc lists), or None.

    Arcs that are another sentence's mean the results are out of order; any other difference is a
    wrong parse, shown as the arcs missing and the arcs that should not be there.
    """
    wrong = [i for i, (mine, theirs) in enumerate(zip(got, expected)) if mine != theirs]
    if not wrong:
        return None
    index = wrong[0]
    more = f" ({len(wrong)} of {len(sentences)} sentences got wrong arcs)" if len(wrong) > 1 else " (the only one)"
    owner = next((j for j, theirs in enumerate(expected) if j != index and theirs == got[index]), None)
    if owner is not None:
        return (
            f"the arcs returned for sentence {index} ({sentences[index]}) are those of sentence {owner} "
            f"({sentences[owner]}){more}: return the results in the order of the sentences, however "
            "soon each parse finished"
        )
    missing = sorted(set(expected[index]) - set(got[index]), key=repr)
    extra = sorted(set(got[index]) - set(expected[index]), key=repr)
    differences = ([f"missing {missing}"] if missing else []) + (
        [f"arcs that should not be there {extra}"] if extra else []
    )
    if not differences:  # the same arcs, some of them repeated
        differences = [f"{len(got[index])} arcs where {len(expected[index])} were expected"]
    return (
        f"the arcs returned for sentence {index} ({sentences[index]}) are {got[index]}, expected "
        f"{expected[index]}: {'; '.join(differences)}{more}. They are no other "
        "sentence's arcs either, so the order of the results is not the problem: the parses "
        "themselves went wrong (how each transition changes a PartialParse, or how the predicted "
        "transitions are applied)"
    )


def configuration(reported: dict) -> tuple:
    """(stack, buffer, sorted arcs) of a configuration as the transition probes report it."""
    return list(reported["stack"]), list(reported["buffer"]), arcs(reported["dependencies"])


class ModelCase:
    """A small model's sizes, weights and a batch of ids with repeats, all seeded."""

    def __init__(
        self,
        seed: int,
        n_tokens: int = 20,
        embed_size: int = 4,
        n_features: int = 6,
        hidden_size: int = 5,
        batch: int = 8,
        repeated: int = 3,
    ) -> None:
        rng = np.random.default_rng(seed)
        self.kwargs = {
            "n_features": n_features,
            "hidden_size": hidden_size,
            "n_classes": 3,
            "dropout_prob": 0.5,
            "seed": seed,
        }
        self.embeddings = rng.standard_normal((n_tokens, embed_size))
        self.params = {
            "embeddings": self.embeddings.copy(),
            "W": 0.5 * rng.standard_normal((n_features * embed_size, hidden_size)),
            "b1": 0.1 * rng.standard_normal(hidden_size),
            "U": 0.5 * rng.standard_normal((hidden_size, 3)),
            "b2": 0.1 * rng.standard_normal(3),
        }
        self.w = rng.integers(0, n_tokens, size=(batch, n_features))
        self.w[:, :repeated] = np.arange(repeated)  # like NULL/ROOT ids: in every row
        self.dlogits = rng.standard_normal((batch, 3))
        self.label = f"{n_tokens} ids, embed {embed_size}, {n_features} features, hidden {hidden_size}, batch {batch}"

    def probe_args(self) -> list:
        return [self.embeddings, self.params, self.kwargs]


class AdamMixin(GradedTestCase):
    def adam_case(
        self, shapes: dict, steps: int, seed: int, kwargs: dict, case: str, scales: dict | None = None
    ) -> tuple:
        rng = np.random.default_rng(seed)
        params = {n: rng.standard_normal(shape) for n, shape in shapes.items()}
        scales = scales or {}
        grads = [
            {n: scales.get(n, 1.0) * rng.standard_normal(shape) for n, shape in shapes.items()} for _ in range(steps)
        ]
        got = self.call("fixtures:adam_run", params, grads, kwargs, case=case)
        return got, self.expect("fixtures:adam_run", params, grads, kwargs)["history"]

    def check_trajectory(self, got: dict, expected: list, case: str) -> None:
        history = got["history"]
        if len(history) != len(expected):
            self.fail(f"Adam [{case}]: {len(history)} snapshots for {len(expected)} steps")
        for step, (mine, theirs) in enumerate(zip(history, expected), start=1):
            for name in theirs:
                self.assert_close(
                    mine[name], theirs[name], f"parameter {name!r} after step {step}", case=case, rtol=1e-7, atol=1e-12
                )


class MinibatchMixin(GradedTestCase):
    def minibatch_case(
        self, sentences: list, batch_size: int, case: str, points: float, set_score: Callable[[float], None]
    ) -> None:
        """Checks the arcs and the batches (and, as every call, that the sentences are left alone). The score
        is the share of sentences parsed right (a parse one step short loses one sentence, not the
        test); asking the model about more than batch_size parses at once, or more often than the
        algorithm does, breaks a rule of the docstring."""
        set_score(0.0)
        args = [sentences, FixtureRef("RuleModel", id="model"), batch_size]
        expected = self.expect_full("parser_transitions.minibatch_parse", *args)
        result = self.call_full("parser_transitions.minibatch_parse", *args, case=case)
        got = result.value
        if not isinstance(got, (list, tuple)) or len(got) != len(sentences):
            self.fail(
                f"minibatch_parse [{case}]: expected one dependency list per sentence "
                f"({len(sentences)}), got {checks.describe(got)}"
            )
        mine, theirs = [arcs(m) for m in got], [arcs(t) for t in expected.value]
        sizes = result.fixtures["model"]["batch_sizes"]
        if max(sizes, default=0) > batch_size:
            self.broken_rules.append(
                f"minibatch_parse [{case}] asked the model about {max(sizes)} parses at once; "
                f"batch_size is {batch_size}"
            )
        expected_calls = len(expected.fixtures["model"]["batch_sizes"])
        if len(sizes) != expected_calls:
            self.broken_rules.append(
                f"minibatch_parse [{case}] called model.predict {len(sizes)} times, expected "
                f"{expected_calls} (always take the first batch_size unfinished parses)"
            )
        set_score(points * sum(a == b for a, b in zip(mine, theirs)) / len(sentences))
        problem = wrong_parses(sentences, mine, theirs)
        if problem:
            self.fail(f"minibatch_parse [{case}]: {problem}")


class ModelMixin(GradedTestCase):
    """Checks of ``backward``, two ways. First on the cache of the right forward pass, in the layout
    forward's docstring gives and in the order the student's own forward keeps: a bug in forward
    (3b's) then costs nothing here. A backward that reads a cache of its own kind is judged with the
    student's own forward instead, and when that forward gives other logits than the reference's,
    against centred differences of it. The better of the two counts."""

    gradient_problems: list[str]  # what the last of these checks found wrong, one line each

    def check_gradients(self, case_data: ModelCase, names: tuple) -> float:
        """Fraction of ``names`` whose gradient is right (see the class); the details of the wrong
        ones in ``self.gradient_problems``."""
        reference_logits = self.expect("fixtures:model_forward", *case_data.probe_args(), case_data.w, False)[0]
        expected = self.expect("fixtures:model_gradients", *case_data.probe_args(), case_data.w, case_data.dlogits)
        return self.better_of(
            lambda: self.right_cache_score(case_data, names, lambda got: expected),
            lambda: self._own_pair_score(case_data, names, reference_logits, expected),
        )

    def better_of(self, on_right_cache: Callable[[], float], with_own_forward: Callable[[], float]) -> float:
        """The better score of backward judged on the right cache and with the student's forward."""
        right = on_right_cache()
        if right == 1.0:
            return right
        right_problems = self.gradient_problems
        try:
            own = with_own_forward()
        except self.failureException as failure:
            own, self.gradient_problems = 0.0, [str(failure)]
        if right > own:
            self.gradient_problems = right_problems
            return right
        if right == 0.0 and self.gradient_problems:
            self.gradient_problems.append(
                "(your backward also ran on the cache of a right forward pass, laid out as forward's "
                "docstring says, (w, x, relu_cache, h_drop, dropout_cache), and in your forward's "
                "order, and got no gradient right "
                "from it: the score is that of your backward after your own forward)"
            )
        return own

    def right_cache_score(
        self, case_data: ModelCase, names: tuple, expected_for: Callable[[dict], dict], training_seed: int | None = None
    ) -> float:
        """Fraction of ``names`` that backward gets right from the cache of the right forward pass
        (``fixtures.model_backward_on_right_cache``); ``expected_for`` gives the right gradients for
        what that call returned."""
        case = f"{case_data.label}, backward on the cache of the right forward pass"
        try:
            got = self.call(
                "fixtures:model_backward_on_right_cache",
                *case_data.probe_args(),
                case_data.w,
                case_data.dlogits,
                training_seed,
                case=case,
            )
            expected = expected_for(got)
        except self.failureException as failure:
            self.gradient_problems = [str(failure)]
            return 0.0
        # One set of gradients per cache layout tried (the docstring's first): the best counts.
        best, problems = -1.0, []
        for grads in got["grads"]:
            score = self.score_gradients(grads, expected, names, case)
            if score > best:
                best, problems = score, self.gradient_problems
        self.gradient_problems = problems
        return best

    def score_gradients(
        self, grads: dict, expected: dict, names: tuple, case: str, diagnose: Callable[[str], str] = lambda name: ""
    ) -> float:
        """Fraction of ``names`` whose gradient in ``grads`` matches ``expected``; each wrong one in
        ``self.gradient_problems``, followed by ``diagnose(name)``."""
        problems = []
        for name in names:
            try:
                if name not in grads:
                    raise AssertionError(f"backward returned no gradient for {name!r}")
                self.assert_close(
                    grads[name], expected[name], f"gradient of {name!r}", case=case, rows=name == "embeddings"
                )
            except AssertionError as error:
                problems.append(str(error) + diagnose(name))
        self.gradient_problems = problems
        return 1.0 - len(problems) / len(names)

    def _own_pair_score(self, case_data: ModelCase, names: tuple, reference_logits, expected: dict) -> float:
        """Fraction of ``names`` right when backward follows the student's own forward; each wrong
        gradient compared with centred differences of that forward."""
        case = case_data.label
        got = self.call("fixtures:model_gradients", *case_data.probe_args(), case_data.w, case_data.dlogits, case=case)
        if not isinstance(got, dict):
            self.fail(f"backward [{case}]: expected a dict of gradients, got {checks.describe(got)}")
        own = self.own_forward_score(case_data, got, names, reference_logits, expected)
        if own is not None:
            return own
        return self.score_gradients(
            got,
            expected,
            names,
            case,
            lambda name: self._diagnosis(case_data, name, got[name], expected[name]) if name in got else "",
        )

    def own_forward_score(
        self,
        case_data: ModelCase,
        grads: dict,
        names: tuple,
        reference_logits,
        expected: dict,
        training_seed: int | None = None,
    ) -> float | None:
        """None when the student's forward gives the reference's logits; otherwise the fraction of
        ``names`` whose gradient is right for the student's own forward (centred differences of it,
        in training mode from ``self.rng`` seeded ``training_seed``, if given) or for the right one
        (``expected``, the reference's), with a note saying so."""
        logits = self.call("fixtures:model_forward", *case_data.probe_args(), case_data.w, False, case=case_data.label)[
            0
        ]
        if checks.is_close(logits, reference_logits):
            return None
        problems, right = [], []
        for name in names:
            # A backward that reads a forward bug's cache can still give the right gradients (the
            # bug was in the logits alone): that backward is right, and the bug costs 3b only.
            if name in expected and checks.is_close(grads.get(name), expected[name]):
                right.append(name)
                continue
            disagreement = self._own_disagreement(case_data, name, grads.get(name), training_seed)
            if disagreement is None:
                right.append(name)
            else:
                problems.append(f"gradient of {name!r} [{case_data.label}]: {disagreement}")
        print(
            f"Your forward gives other logits than the reference's (it loses its points in 3b), so your "
            f"backward is checked against centred differences of your own forward and against the right "
            f"gradients: it gives one or the other for {', '.join(right) or 'no parameter'}."
        )
        self.gradient_problems = problems
        return len(right) / len(names)

    def _losses_along(self, case_data: ModelCase, name: str, training_seed: int | None = None):
        """Centred-difference losses of the student's own forward along given directions of ``name``."""

        def losses_along(directions):
            return self.worker.call(
                "fixtures:model_losses",
                *case_data.probe_args(),
                case_data.w,
                case_data.dlogits,
                name,
                directions,
                gradients.H,
                training_seed,
            ).value

        return losses_along

    def _own_disagreement(self, case_data: ModelCase, name: str, grad, training_seed: int | None) -> str | None:
        try:
            analytic = checks.as_numeric(grad, name).reshape(case_data.params[name].shape)
        except (AssertionError, ValueError):
            return f"expected an array of shape {case_data.params[name].shape}, got {checks.describe(grad)}"
        found = gradients.find_disagreement(self._losses_along(case_data, name, training_seed), analytic)
        return None if found is None else f"it is not the gradient of your own forward ({found})"

    def _diagnosis(self, case_data: ModelCase, name: str, grad, expected) -> str:
        try:
            analytic = checks.as_numeric(grad, name).reshape(case_data.params[name].shape)
            disagreement = gradients.find_disagreement(self._losses_along(case_data, name), analytic, expected)
        except Exception:
            return ""
        if disagreement is None:
            return "\n  It matches centred differences of your forward pass, so look at forward."
        return (
            f"\n  It does not match centred differences of your own forward pass either ({disagreement}), "
            "so the backward pass is wrong for this parameter."
        )


def rng(seed: int) -> FixtureRef:
    """A ``np.random.Generator`` built in the worker (generators do not travel)."""
    return FixtureRef("make_rng", (seed,))
