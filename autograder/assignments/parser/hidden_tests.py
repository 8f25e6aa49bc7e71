"""Hidden tests of the parser assignment: run on Gradescope, never released to students."""

from __future__ import annotations

import numpy as np
from gradescope_utils.autograder_utils.decorators import partial_credit, tags, weight

from autograder.assignments.parser.handout import ANSWER_FORMATS, GOLD_TREE
from autograder.assignments.parser.support import (
    ADAM,
    BACKWARD,
    DROPOUT,
    FORWARD,
    LOOKUP,
    MINIBATCH,
    PARAM_NAMES,
    PARTIAL_PARSE,
    TRAINING,
    AdamMixin,
    MinibatchMixin,
    ModelCase,
    ModelMixin,
    arcs,
    rng,
)
from autograder.assignments.parser.transition_table import TableError, grade_table
from autograder.grading import checks
from autograder.grading.testing import GradedTestCase
from autograder.grading.written_tests import WrittenTestCase


class AdamHidden(AdamMixin):
    question = "1a"
    functions = ADAM

    def test_weight_decay(self):
        """Adam with weight decay and other betas follows the reference for 30 steps"""
        case = "weight_decay 0.1, betas (0.8, 0.99), eps 1e-6, lr 0.05"
        got, expected = self.adam_case(
            {"w": (4, 3), "b": (3,)}, 30, 11, {"lr": 0.05, "betas": (0.8, 0.99), "eps": 1e-6, "weight_decay": 0.1}, case
        )
        self.check_trajectory(got, expected, case)

    def test_state_per_parameter(self):
        """Adam keeps separate moments for each parameter"""
        case = "two parameters of the same shape with gradients of very different sizes"
        got, expected = self.adam_case(
            {"big": (5,), "small": (5,)}, 20, 12, {"lr": 0.01}, case, scales={"big": 100.0, "small": 0.01}
        )
        self.check_trajectory(got, expected, case)

    def test_in_place(self):
        """Adam updates the very arrays it was given, and leaves the gradients alone"""
        case = "3 steps on one (4,) parameter"
        got, expected = self.adam_case({"p": (4,)}, 3, 13, {"lr": 0.1, "weight_decay": 0.5}, case)
        if not got["in_place"]:
            self.fail(
                f"Adam [{case}]: the arrays in params were replaced, not updated in place "
                "(write `param -= ...`, not `param = param - ...`, or model.params never changes)"
            )
        if not got["grads_untouched"]:
            self.fail(f"Adam.step [{case}]: modified the gradients it was given")
        # arrays that never change are trivially the same arrays: the update must be there too
        self.check_trajectory(got, expected, case)


class DropoutHidden(GradedTestCase):
    question = "1b"

    @tags(*DROPOUT)
    def test_drop_rate(self):
        """the fraction of dropped units is p_drop, within a 5-sigma bound"""
        n, p = 100_000, 0.4
        case = f"{n} units, p_drop = {p}"
        out = self.unpack(
            self.call("layers.dropout_forward", np.ones((400, 250)), p, True, rng(9), case=case),
            2,
            "dropout_forward",
            case=case,
        )[0]
        self.assert_shape(out, (400, 250), "out", case=case)
        dropped = float(np.mean(self.numbers(out, "out", case=case) == 0))
        bound = 5 * np.sqrt(p * (1 - p) / n)
        if abs(dropped - p) > bound:
            self.fail(
                f"dropout_forward [{case}]: dropped {dropped:.4f} of the units, expected "
                f"{p} +- {bound:.4f} (is p_drop the probability of DROPPING?)"
            )

    @tags(*DROPOUT)
    def test_backward_uses_the_same_mask(self):
        """dropout_backward multiplies by the forward pass's mask and scale"""
        x = np.random.default_rng(10).uniform(1.0, 2.0, size=(50, 40))
        dout = np.random.default_rng(11).standard_normal((50, 40))
        case = "x of shape (50, 40), p_drop = 0.25, training"
        got = self.call("fixtures:layer_round_trip", "dropout", [x, 0.25, True, rng(12)], dout, case=case)
        kept = (self.numbers(got["out"], "out", case=case) != 0) / 0.75
        self.assert_close(got["dx"], dout * kept, "dx (the mask of the forward pass, times dout)", case=case)

    @weight(0.5)
    @tags("layers.dropout_forward")
    def test_uses_the_given_generator(self):
        """dropout draws its mask from the generator it is given"""
        case = "three calls with generators seeded 5, 5 and 6"
        first, again, other = self.unpack(
            self.call("fixtures:dropout_masks", np.ones((30, 30)), 0.5, 5, case=case), 3, "masks", case=case
        )
        first, again, other = (self.numbers(mask, "mask", case=case) for mask in (first, again, other))
        if not checks.agree(again, first, rtol=0, atol=0):
            self.fail(
                f"dropout_forward [{case}]: two generators seeded alike gave different masks: draw the mask "
                f"from the rng you are given (the other masks differ{checks.first_difference(again, first)})"
            )
        if np.array_equal(first, other):
            self.fail(f"dropout_forward [{case}]: generators with different seeds gave the same mask")

    @weight(0.5)
    @tags("layers.dropout_forward")
    def test_draws_nothing_when_off(self):
        """dropout draws no random numbers when it is off (evaluation, or p_drop = 0)"""
        x = np.random.default_rng(15).standard_normal((6, 5))
        untouched = float(np.random.default_rng(16).random())
        for p_drop, training in ((0.5, False), (0.0, True)):
            case = f"x of shape (6, 5), p_drop = {p_drop}, training = {training}"
            after = self.call("fixtures:next_draw_after_dropout", x, p_drop, training, 16, case=case)
            if after != untouched:
                self.fail(
                    f"dropout_forward [{case}]: drew random numbers from rng although dropout is off; "
                    "its docstring asks for no draw then, so that evaluating the model never changes "
                    "the masks that training draws next"
                )


class TransitionsHidden(GradedTestCase):
    question = "2a"
    functions = PARTIAL_PARSE

    def test_sentence_untouched(self):
        """parsing leaves the input sentence list unchanged"""
        sentence = ["we", "parse", "words"]
        case = "'we parse words' with S S LA S RA RA"
        got = self.call("fixtures:parse_steps", sentence, ["S", "S", "LA", "S", "RA", "RA"], case=case)
        if got["sentence_after"] != sentence:
            self.fail(
                f"PartialParse [{case}]: the sentence passed in became {got['sentence_after']}; "
                "keep self.sentence as it is and work on a copy in self.buffer"
            )

    def test_gold_tree(self):
        """the transition sequence of a gold tree yields exactly its arcs"""
        gold = arcs(GOLD_TREE.arcs)
        case = "'" + " ".join(GOLD_TREE.words) + "' with its gold transition sequence"
        got = self.call("fixtures:parse_steps", list(GOLD_TREE.words), GOLD_TREE.oracle(), case=case)
        final = arcs(got["configurations"][-1]["dependencies"])
        if final != gold:
            self.fail(f"PartialParse [{case}]: ended with arcs {final}; the gold tree has {gold}")


class MinibatchHidden(MinibatchMixin):
    question = "2b"
    functions = MINIBATCH

    @partial_credit(1)
    def test_batch_larger_than_data(self, set_score=None):
        """minibatch_parse when batch_size exceeds the number of sentences, one of them empty"""
        case = "4 sentences, one empty (its parse is finished from the start), batch_size 10"
        self.minibatch_case([[3, 1], [], [2, 2, 4], [5]], 10, case, 1, set_score)

    @partial_credit(1)
    def test_order_with_staggered_finishes(self, set_score=None):
        """results stay in sentence order when short sentences finish first"""
        sentences = [[2 * i + 1 for i in range(n)] + [4] for n in (7, 1, 5, 0, 3, 9, 2)]
        self.minibatch_case(sentences, 3, "7 sentences of lengths 8, 2, 6, 1, 4, 10, 3, batch_size 3", 1, set_score)

    @partial_credit(1)
    def test_many_sentences(self, set_score=None):
        """minibatch_parse over 40 sentences with batch_size 7"""
        generator = np.random.default_rng(14)
        sentences = [generator.integers(1, 20, size=generator.integers(1, 12)).tolist() for _ in range(40)]
        self.minibatch_case(sentences, 7, "40 random sentences of 1 to 11 words, batch_size 7", 1, set_score)

    @partial_credit(1)
    def test_equal_sentences(self, set_score=None):
        """identical sentences are parsed independently, and the sentences are left unchanged"""
        sentence = [2, 5, 8]
        sentences = [sentence, list(sentence), [1, 2], list(sentence)]
        self.minibatch_case(sentences, 2, "the same sentence three times, batch_size 2", 1, set_score)


class EmbeddingHidden(GradedTestCase):
    question = "3a"
    functions = LOOKUP

    def test_default_sizes(self):
        """embedding_lookup at the real sizes: 36 features of 50 dimensions"""
        data = ModelCase(40, n_tokens=300, embed_size=50, n_features=36, hidden_size=20, batch=64, repeated=10)
        got = self.call("fixtures:model_lookup", *data.probe_args(), data.w, case=data.label)
        expected = self.expect("fixtures:model_lookup", *data.probe_args(), data.w)
        self.assert_close(got, expected, "embedding_lookup(w)", case=data.label, rows=True)


class ForwardHidden(GradedTestCase):
    question = "3b"
    functions = FORWARD

    def test_training_mode(self):
        """in training, dropout varies the logits, which average to the evaluation logits"""
        data = ModelCase(41, hidden_size=40, batch=4)
        repeats = 400
        case = data.label + f", {repeats} training passes"
        runs = self.numbers(
            self.call("fixtures:model_forward", *data.probe_args(), data.w, True, repeats, case=case),
            "logits of the training passes",
            case=case,
        )
        evaluation = np.asarray(self.expect("fixtures:model_forward", *data.probe_args(), data.w, False)[0])
        self.assert_shape(runs, (repeats, *evaluation.shape), "logits of the training passes", case=case)
        if np.allclose(runs[0], runs[1]):
            self.fail(f"forward [{case}]: two training passes gave the same logits; is dropout applied?")
        spread = runs.std(axis=0) / np.sqrt(repeats)
        gap = np.abs(runs.mean(axis=0) - evaluation)
        if (gap > 5 * spread + 1e-9).any():
            self.fail(
                f"forward [{case}]: the average of the training logits differs from the evaluation "
                f"logits by up to {gap.max():.3g} (5 standard errors: {5 * spread.max():.3g}); "
                "kept units must be scaled by 1 / (1 - p_drop)"
            )

    def test_model_dropout_prob(self):
        """in training, forward drops hidden units with the model's dropout_prob and scales the rest"""
        data = ModelCase(44, hidden_size=50, batch=64)
        p_drop = 0.2
        data.kwargs["dropout_prob"] = p_drop
        case = data.label + f", dropout_prob {p_drop}, forward(training=True) from self.rng seeded 45"
        got = self.call("fixtures:model_hidden", *data.probe_args(), data.w, 45, case=case)
        if not isinstance(got, dict):
            self.fail(f"forward [{case}]: the probe of the hidden layer returned {checks.describe(got)}")
        hidden = {
            k: self.numbers(got.get(k), f"the hidden layer in {k}", case=case) for k in ("evaluation", "training")
        }
        expected = np.asarray(self.expect("fixtures:model_hidden", *data.probe_args(), data.w, 45)["evaluation"])
        for name, values in hidden.items():
            self.assert_shape(values, expected.shape, f"the hidden layer in {name}", case=case)
        active = hidden["evaluation"] > 0
        ratio = hidden["training"][active] / hidden["evaluation"][active]
        dropped = float(np.mean(np.isclose(ratio, 0.0)))
        bound = 5 * np.sqrt(p_drop * (1 - p_drop) / max(1, ratio.size))
        if abs(dropped - p_drop) > bound:
            self.fail(
                f"forward [{case}]: dropped {dropped:.3f} of the active hidden units, expected "
                f"{p_drop} +- {bound:.3f}: forward must drop with the model's own dropout_prob"
            )
        kept = ratio[~np.isclose(ratio, 0.0)]
        if not np.allclose(kept, 1.0 / (1.0 - p_drop)):
            self.fail(
                f"forward [{case}]: kept hidden units are scaled by {np.unique(np.round(kept, 6))[:4].tolist()}, "
                f"expected 1 / (1 - dropout_prob) = {1 / (1 - p_drop):.6g}"
            )

    def test_cache_for_backward(self):
        """forward keeps in self.cache the tuple backward reads, (w, x, relu_cache, h_drop,
        dropout_cache) of its last call, in evaluation and in training"""
        data = ModelCase(46, hidden_size=6, batch=5)
        first = ModelCase(47, hidden_size=6, batch=3).w  # an earlier call, on another batch
        for seed, mode in ((None, "evaluation"), (46, "training, from self.rng seeded 46")):
            case = f"{data.label}, {mode}, after a call on another batch"
            got = self.call("fixtures:model_cache", *data.probe_args(), first, data.w, seed, case=case)
            if not isinstance(got, dict) or not got.get("logits_right"):
                continue  # logits that are wrong: the other checks of forward say why
            if got.get("missing") is None:
                self.fail(
                    f"forward [{case}]: self.cache holds a {got.get('kind')}, not the tuple that forward's "
                    "docstring gives, (w, x, relu_cache, h_drop, dropout_cache) of the last call: backward "
                    "reads it there"
                )
            if got["missing"]:
                self.fail(
                    f"forward [{case}]: self.cache lacks {', '.join(map(str, got['missing']))} of the last "
                    "call (it should hold w, x, relu_cache, h_drop and dropout_cache): backward reads them there"
                )


class BackwardHidden(ModelMixin):
    question = "3c"
    functions = BACKWARD

    @partial_credit(1)
    def test_default_sizes(self, set_score=None):
        """backward at the real sizes (36 features, embed 50, hidden 200), every parameter"""
        data = ModelCase(42, n_tokens=500, embed_size=50, n_features=36, hidden_size=200, batch=128, repeated=12)
        set_score(self.check_gradients(data, PARAM_NAMES))
        if self.gradient_problems:
            self.fail("\n".join(self.gradient_problems))

    @partial_credit(2)
    def test_training_mode(self, set_score=None):
        """backward in training mode, through the dropout mask of the forward pass (partial credit per
        parameter)"""
        data = ModelCase(43, n_tokens=30, embed_size=5, n_features=6, hidden_size=12, batch=16)
        reference = ReferenceLayers(self.ref, data)
        score = self.better_of(
            lambda: self.right_cache_score(
                data, PARAM_NAMES, lambda got: reference.gradients_with_scale(reference.scale_of(got["h_drop"])), 44
            ),
            lambda: self._training_pair_score(data, reference),
        )
        set_score(2 * score)
        if self.gradient_problems:
            self.fail("\n".join(self.gradient_problems))

    def _training_pair_score(self, data: ModelCase, reference: ReferenceLayers) -> float:
        """Fraction of the gradients right when backward follows the student's own forward in
        training mode, with the mask that forward drew."""
        case = data.label + ", forward(training=True) from self.rng seeded 44"
        got = self.call("fixtures:model_training_pass", *data.probe_args(), data.w, data.dlogits, 44, case=case)
        if not isinstance(got, dict) or not isinstance(got.get("grads"), dict):
            self.fail(f"backward [{case}]: expected a dict of gradients, got {checks.describe(got)}")
        reference_logits = self.expect("fixtures:model_forward", *data.probe_args(), data.w, False)[0]
        right = self.expect("fixtures:model_training_pass", *data.probe_args(), data.w, data.dlogits, 44)["grads"]
        own = self.own_forward_score(data, got["grads"], PARAM_NAMES, reference_logits, right, training_seed=44)
        if own is not None:  # the student's forward is wrong: judge backward against it
            return own
        scale = self.dropout_scale_used(got, reference, case)
        grads = got["grads"]
        return self.score_gradients(
            grads,
            reference.gradients_with_scale(scale),
            PARAM_NAMES,
            case,
            lambda name: reference.training_diagnosis(name, grads.get(name), scale),
        )

    def dropout_scale_used(self, got: dict, reference: ReferenceLayers, case: str) -> np.ndarray:
        """What the student's forward multiplied each hidden unit by (0 where the ReLU is off), from
        the hidden layer after dropout that the probe read; fails when that cannot be known."""
        params = reference.data.params
        shape = reference.h.shape
        h_drop = self.numbers(got.get("h_drop"), "the hidden layer after dropout", case=case)
        logits, again = (self.numbers(got.get(k), k, case=case) for k in ("logits", "logits_again"))
        if h_drop.shape != shape or logits.shape != again.shape:
            self.fail(
                f"forward [{case}]: the hidden layer after dropout read through the output layer has "
                f"shape {h_drop.shape}, expected {shape}; look at forward first (3b)"
            )
        if not np.allclose(logits, again, rtol=1e-12, atol=1e-12):
            self.fail(
                f"forward [{case}]: two calls of forward(training=True) that started from the same "
                "state of self.rng dropped different units. Draw the dropout mask from self.rng, and "
                "nothing else at random, as forward's docstring says: this test needs it to know which "
                "units your forward pass dropped"
            )
        if not np.allclose(logits, h_drop @ params["U"] + params["b2"], rtol=1e-9, atol=1e-9):
            self.fail(
                f"forward [{case}]: the logits are not h_drop @ U + b2 for the hidden layer after "
                "dropout; look at forward first (3b)"
            )
        return reference.scale_of(h_drop)


class ReferenceLayers:
    """The reference's layers for a :class:`ModelCase`, and the gradients of sum(dlogits * logits)
    for any dropout scale: what backward must give when forward multiplied the hidden layer by
    ``scale`` (a mask of 0 and gamma; None when dropout was off)."""

    def __init__(self, ref, data: ModelCase) -> None:
        self.ref, self.data = ref, data
        self.model = ref.parser_model.ParserModel(data.embeddings, **data.kwargs)
        for name, value in data.params.items():
            self.model.params[name][...] = value
        params = self.model.params
        self.x = self.model.embedding_lookup(data.w)
        self.h, self.relu_cache = ref.layers.relu_forward(self.x @ params["W"] + params["b1"])

    def scale_of(self, h_drop) -> np.ndarray:
        """What a forward pass multiplied each hidden unit by, from its hidden layer after dropout
        (0 where the ReLU is off)."""
        h_drop = checks.as_numeric(h_drop, "the hidden layer after dropout")
        if h_drop.shape != self.h.shape:
            raise AssertionError(f"the hidden layer after dropout has shape {h_drop.shape}, expected {self.h.shape}")
        if not np.isfinite(h_drop).all():  # the student's dropout_forward made it: their error, 1b's
            raise AssertionError(
                "the hidden layer after dropout is not finite (inf or NaN): look at dropout_forward first (1b)"
            )
        active = self.h > 0
        return np.where(active, h_drop / np.where(active, self.h, 1.0), 0.0)

    def gradients_with_scale(self, scale: np.ndarray | None) -> dict:
        params, dlogits, layers = self.model.params, self.data.dlogits, self.ref.layers
        h_drop = self.h if scale is None else self.h * scale
        dz = layers.relu_backward(layers.dropout_backward(dlogits @ params["U"].T, scale), self.relu_cache)
        return {
            "U": h_drop.T @ dlogits,
            "b2": dlogits.sum(axis=0),
            "W": self.x.T @ dz,
            "b1": dz.sum(axis=0),
            "embeddings": self.model.embedding_backward(self.data.w, dz @ params["W"].T),
        }

    def training_diagnosis(self, name: str, grad, scale: np.ndarray) -> str:
        """The likely cause of a wrong gradient in training mode, when it is a known one."""
        if grad is None:
            return ""
        if name == "U" and checks.is_close(grad, self.h.T @ self.data.dlogits):
            return (
                "\n  It is the gradient for the hidden layer BEFORE dropout: U multiplies h after "
                "dropout, so dU = h_drop.T @ dlogits."
            )
        if name != "U" and checks.is_close(grad, self.gradients_with_scale(None)[name]):
            return (
                "\n  It is the gradient without dropout: backward must send the gradient through the "
                "dropout mask of the forward pass (dropout_backward with the forward's cache), so "
                "that dropped units pass no gradient and kept ones are scaled like their values."
            )
        return (
            "\n  Evaluation mode is checked in 3c.1; here forward ran with training=True, so look "
            "at how backward handles dropout."
        )


class EndToEnd(GradedTestCase):
    question = "4"

    FULL_UAS, ZERO_UAS = 80.0, 40.0
    N_TRAIN, N_TEST, SEED = 400, 120, 5
    CASE = f"{N_TRAIN} synthetic sentences, 4 epochs, batch 128, lr 0.002, hidden 100"

    def trained(self) -> dict:
        """The facts the training probe reports (see fixtures.train_and_parse); one training run
        serves both tests, and their reruns with helpers carried forward share one of their own."""
        return self.reused("training", self._train)

    def _train(self) -> dict:
        got = self.call(
            "fixtures:train_and_parse",
            *(self.N_TRAIN, self.N_TEST, self.SEED, 4, 128, 0.002, 100),
            case=self.CASE,
            repeat=False,  # two seconds of training; what it must keep between steps is checked in it
        )
        if not isinstance(got, dict) or not all(k in got for k in ("heads", "dependents", "changed", "forward_calls")):
            self.fail(f"training [{self.CASE}]: the training probe returned {checks.describe(got)}")
        return got

    @partial_credit(6)
    @tags(*TRAINING)
    def test_training(self, set_score=None):
        """your model, Adam and training loop learn to parse a small synthetic treebank"""
        got = self.trained()
        gold = [s.heads for s in self.ref.run.make_treebank(self.N_TEST, seed=self.SEED + 1)]
        heads = got["heads"]
        if not isinstance(heads, list) or len(heads) != len(gold):
            self.fail(f"training [{self.CASE}]: expected predicted heads for {len(gold)} sentences")
        correct = total = 0
        for mine, theirs in zip(heads, gold):
            mine = list(mine) if isinstance(mine, (list, tuple)) else []
            correct += sum(int(a == b) for a, b in zip(mine, theirs))
            total += len(theirs)
        score = 100.0 * correct / total
        fraction = min(1.0, max(0.0, (score - self.ZERO_UAS) / (self.FULL_UAS - self.ZERO_UAS)))
        set_score(6 * fraction)
        if fraction < 1.0:
            causes = [
                c
                for c in (self.unchanged_parameters(got["changed"]), self.misplaced_parses(got["dependents"], gold))
                if c
            ]
            self.fail(
                f"training [{self.CASE}]: test UAS {score:.1f}; full credit from {self.FULL_UAS:.0f}, "
                f"none below {self.ZERO_UAS:.0f}." + "".join(f"\n{c}" for c in causes)
            )
        print(f"test UAS {score:.1f} on {total} words")

    @staticmethod
    def unchanged_parameters(changed: dict) -> str:
        if not isinstance(changed, dict) or all(changed.values()):
            return ""
        if not any(changed.values()):
            return (
                "Your training loop never changed the model's parameters (is optimizer.step called, "
                "with the gradients of every batch?)."
            )
        still = ", ".join(name for name, moved in changed.items() if not moved)
        return f"Training never changed these parameters: {still} (are their gradients given to the optimizer?)."

    @staticmethod
    def misplaced_parses(dependents: list, gold: list) -> str:
        """Which test sentences got arcs that do not attach exactly their own words."""
        if not isinstance(dependents, list) or len(dependents) != len(gold):
            return ""
        wrong = [
            i for i, (words, heads) in enumerate(zip(dependents, gold)) if list(words) != list(range(1, len(heads) + 1))
        ]
        if not wrong:
            return ""
        index = wrong[0]
        n_words, words = len(gold[index]), list(dependents[index])
        return (
            f"The parse of test sentence {index} ({n_words} words) came back with arcs to the words "
            f"{words}, not to each of its words 1..{n_words} once ({len(wrong)} of {len(gold)} sentences "
            "are like that): minibatch_parse must return one parse per sentence, in the order of the "
            "sentences (question 2b)."
        )

    @weight(2)
    @tags(*TRAINING)  # it reads test_training's run, and so reaches every function that run does
    def test_dropout_in_training(self):
        """the training step runs the model in training mode, so that dropout is on"""
        calls = self.trained()["forward_calls"]
        if not isinstance(calls, dict) or not calls.get("training"):
            seen = calls.get("evaluation", 0) if isinstance(calls, dict) else 0
            self.fail(
                f"training [{self.CASE}]: run.train called the model's forward {seen} times, never with "
                "training=True, so the model trained without dropout; the training step must call "
                "forward(features, training=True)"
            )

    @weight(2)
    @tags(*TRAINING)  # it reads test_training's run, and so reaches every function that run does
    def test_one_optimiser(self):
        """train makes one Adam with the given learning rate, and it steps once per minibatch"""
        got = self.trained()
        made, batches = got.get("optimizers"), got.get("batches")
        if not isinstance(made, list) or not all(isinstance(m, dict) for m in made):
            self.fail(f"training [{self.CASE}]: the training probe returned {checks.describe(made)}")
        if len(made) != 1:
            self.fail(
                f"training [{self.CASE}]: run.train made {len(made)} Adam optimisers; make one in train, "
                "before the epochs, and pass it to train_for_epoch: Adam's moments and step count must "
                "carry over from one minibatch to the next"
            )
        (adam,) = made
        if not np.isclose(adam["lr"], 0.002):
            self.fail(
                f"training [{self.CASE}]: run.train made its Adam with lr={adam['lr']:g}, not the "
                "lr=0.002 it was given: pass lr on to Adam"
            )
        if adam["steps"] != batches:
            self.fail(
                f"training [{self.CASE}]: the optimiser stepped {adam['steps']} times in {batches} "
                "minibatches; train_for_epoch must call optimizer.step once per minibatch"
            )


# ------------------------------------------------------------------------- written answers


class DropoutScaleAnswer(WrittenTestCase):
    question = "1b-i"
    functions = ("written.dropout_scale",)

    def test_gamma(self):
        """the scale gamma of dropout, as a formula in p_drop"""
        self.check_formula(
            ANSWER_FORMATS[self.question],
            lambda v: 1.0 / (1.0 - v["p_drop"]),
            [{"p_drop": p} for p in (0.1, 0.25, 0.6, 0.9)],
        )


class TransitionTableAnswer(WrittenTestCase):
    question = "2a-i"
    functions = ("written.transition_table",)

    @partial_credit(3)
    def test_table(self, set_score=None):
        """the transition table of the handout's sentence (partial credit per step and per arc)"""
        try:
            grade = grade_table(self.answer(), GOLD_TREE)
        except TableError as error:
            self.fail(f"{self.question}: {error}")
        set_score(3 * grade.fraction)
        if grade.fraction < 1:
            self.fail(grade.feedback())


class TransitionCountAnswer(WrittenTestCase):
    question = "2a-ii"
    functions = ("written.transition_count",)

    def test_count(self):
        """the number of transitions for a sentence of n words, as a formula in n"""
        self.check_formula(ANSWER_FORMATS[self.question], lambda v: 2 * v["n"], [{"n": n} for n in (1, 2, 3, 7)])
