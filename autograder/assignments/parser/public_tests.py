"""Public tests of the parser assignment: students can run these themselves."""

from __future__ import annotations

import numpy as np
from gradescope_utils.autograder_utils.decorators import partial_credit, tags, weight

from autograder.assignments.parser.support import (
    ADAM,
    BACKWARD,
    CROSS_ENTROPY,
    DROPOUT,
    FORWARD,
    LOOKUP,
    MINIBATCH,
    PARAM_NAMES,
    PARTIAL_PARSE,
    RELU,
    AdamMixin,
    MinibatchMixin,
    ModelCase,
    ModelMixin,
    configuration,
    rng,
)
from autograder.grading import checks
from autograder.grading.testing import GradedTestCase


class AdamPublic(AdamMixin):
    question = "1a"
    functions = ADAM

    @weight(2)
    def test_trajectory(self):
        """Adam follows the reference for 50 steps on three parameters (one with tiny gradients)"""
        case = "shapes (3,), (2, 4), (5, 1); 'tiny' has gradients of size 1e-6"
        got, expected = self.adam_case(
            {"a": (3,), "b": (2, 4), "tiny": (5, 1)}, 50, 1, {"lr": 0.01}, case, scales={"tiny": 1e-6}
        )
        self.check_trajectory(got, expected, case)

    def test_first_step(self):
        """the first step moves every parameter by about lr (bias correction)"""
        case = "one step, lr 0.1, gradients from 0.01 to 100 in size"
        got, expected = self.adam_case(
            {"p": (6,)}, 1, 2, {"lr": 0.1}, case, scales={"p": np.array([0.01, 0.1, 1.0, 10.0, 100.0, -3.0])}
        )
        self.check_trajectory(got, expected, case)


class DropoutPublic(GradedTestCase):
    question = "1b"
    functions = DROPOUT

    def test_scaling(self):
        """dropped units are 0, kept ones all scaled by one gamma that keeps E[out] = x"""
        p_drop = 0.3
        x = np.random.default_rng(3).uniform(0.5, 2.0, size=(200, 50))
        case = f"x of shape (200, 50), p_drop = {p_drop}, training"
        call = self.call_full("layers.dropout_forward", x, p_drop, True, rng(7), return_args=True, case=case)
        result = self.unpack(call.value, 2, "dropout_forward", case=case)
        self.assert_shape(result[0], x.shape, "out", case=case)
        self.assert_close(
            call.args_after[0], x, "the input x after the call (it must not be modified)", case=case, rtol=0, atol=0
        )
        ratios = set(np.round(self.numbers(result[0], "out", case=case) / x, 9).ravel().tolist())
        scales = sorted(ratios - {0.0})
        if 0.0 not in ratios or len(scales) != 1:
            self.fail(
                f"dropout_forward [{case}]: out / x takes the values {sorted(ratios)[:6]}, expected "
                "exactly two: 0 for the dropped units and one scale gamma for all the kept ones"
            )
        # E[out] = gamma * P(kept) * x, and the handout's question 1b-i asks which gamma makes it x.
        mean_factor = scales[0] * (1 - p_drop)
        if abs(mean_factor - 1.0) > 1e-6:
            self.fail(
                f"dropout_forward [{case}]: the kept units are scaled by gamma = {scales[0]:.6g}, so "
                f"E[out] = {mean_factor:.6g} x; dropout must keep the expected value, E[out] = x "
                "(question 1b-i)"
            )

    def test_identity_at_evaluation(self):
        """dropout is the identity at evaluation, forward and backward"""
        x = np.random.default_rng(4).standard_normal((20, 10))
        dout = np.random.default_rng(5).standard_normal((20, 10))
        case = "x of shape (20, 10), p_drop = 0.5, training = False"
        got = self.call("fixtures:layer_round_trip", "dropout", [x, 0.5, False, rng(1)], dout, case=case)
        self.assert_close(got["out"], x, "out", case=case, rtol=0, atol=0)
        self.assert_close(got["dx"], dout, "dx", case=case, rtol=0, atol=0)


class LayersPublic(GradedTestCase):
    question = "1c"

    @tags(*RELU)
    def test_relu(self):
        """ReLU forward and backward (slope 0 at exactly x = 0, as the docstring says)"""
        x = np.array([[-2.0, 0.0, 0.5, 3.0], [1.0, -1.0, 0.0, -4.0]])
        dout = np.arange(8.0).reshape(2, 4) - 3.0
        case = "a (2, 4) x with both signs and zeros"
        got = self.call("fixtures:layer_round_trip", "relu", [x], dout, case=case)
        expected = self.expect("fixtures:layer_round_trip", "relu", [x], dout)
        self.assert_close(got["out"], expected["out"], "relu_forward out", case=case)
        self.assert_close(got["dx"], expected["dx"], "relu_backward dx", case=case)
        if not got["x_unchanged"]:
            self.fail(f"relu_forward [{case}]: modified its input x, which its docstring forbids")

    def cross_entropy(self, logits: np.ndarray, labels: np.ndarray, part: int, case: str) -> None:
        got = self.unpack(
            self.call("layers.softmax_cross_entropy", logits, labels, case=case), 2, "softmax_cross_entropy", case=case
        )
        expected = self.expect("layers.softmax_cross_entropy", logits, labels)
        self.assert_close(got[part], expected[part], ("mean loss", "dlogits")[part], case=case)

    @tags(*CROSS_ENTROPY)
    def test_cross_entropy_loss(self):
        """softmax cross-entropy: the mean loss"""
        rng_ = np.random.default_rng(6)
        self.cross_entropy(rng_.standard_normal((5, 3)), rng_.integers(0, 3, 5), 0, "5 examples, 3 classes")

    @tags(*CROSS_ENTROPY)
    def test_cross_entropy_gradient(self):
        """softmax cross-entropy: the gradient of the mean loss"""
        rng_ = np.random.default_rng(6)
        self.cross_entropy(rng_.standard_normal((5, 3)), rng_.integers(0, 3, 5), 1, "5 examples, 3 classes")

    @tags(*CROSS_ENTROPY)
    def test_huge_logits(self):
        """softmax cross-entropy stays finite and right for logits of size 1e4"""
        logits = np.array([[1e4, 0.0, -1e4], [-5e3, 5e3, 5e3 - 2.0], [3.0, 2.0, 1.0]])
        for part in (0, 1):
            self.cross_entropy(logits, np.array([1, 2, 0]), part, "logits up to 1e4")


class TransitionsPublic(GradedTestCase):
    question = "2a"
    functions = PARTIAL_PARSE

    def configurations(self, sentence: list, transitions: list, case: str) -> tuple:
        got = self.call("fixtures:parse_steps", sentence, transitions, case=case)
        expected = self.expect("fixtures:parse_steps", sentence, transitions)
        return got, [configuration(c) for c in expected["configurations"]]

    def compare(self, got: dict, expected: list, transitions: list, case: str) -> None:
        for index, (mine, theirs) in enumerate(zip(got["configurations"], expected)):
            mine = configuration(mine)
            if mine != theirs:
                step = "the initial configuration" if index == 0 else f"after {transitions[index - 1]} (step {index})"
                self.fail(
                    f"PartialParse [{case}]: {step} is stack {mine[0]}, buffer {mine[1]}, arcs "
                    f"{mine[2]}; expected stack {theirs[0]}, buffer {theirs[1]}, arcs {theirs[2]}"
                )

    def test_initial(self):
        """a new parse has ROOT on the stack and the whole sentence in the buffer"""
        sentence = ["parse", "this", "sentence"]
        got, expected = self.configurations(sentence, [], "'parse this sentence'")
        self.compare(got, expected, [], "'parse this sentence'")

    @weight(2)
    def test_each_transition(self):
        """SHIFT, LEFT-ARC and RIGHT-ARC from given configurations"""
        cases = [
            (["ROOT", "the", "cat"], ["sat", "down"], [], "S"),
            (["ROOT", "the", "cat"], ["sat", "down"], [], "LA"),
            (["ROOT", "sat", "down"], [], [["sat", "cat"]], "RA"),
            (["ROOT", "sat"], [], [["sat", "cat"], ["sat", "down"]], "RA"),
        ]
        for stack, buffer, dependencies, transition in cases:
            case = f"{transition} from stack {stack}, buffer {buffer}"
            got = self.call("fixtures:step_from", stack, buffer, dependencies, transition, case=case)
            mine = configuration(got)
            theirs = configuration(self.expect("fixtures:step_from", stack, buffer, dependencies, transition))
            if mine != theirs:
                self.fail(
                    f"parse_step [{case}]: gives stack {mine[0]}, buffer {mine[1]}, arcs {mine[2]}; "
                    f"expected stack {theirs[0]}, buffer {theirs[1]}, arcs {theirs[2]}"
                )

    def test_full_sequence(self):
        """a full transition sequence, checked after every step"""
        sentence = ["the", "old", "dog", "barked", "loudly"]
        transitions = ["S", "S", "S", "LA", "LA", "S", "LA", "S", "RA", "RA"]
        case = "'the old dog barked loudly'"
        got, expected = self.configurations(sentence, transitions, case)
        self.compare(got, expected, transitions, case)
        # A buffer that is the sentence itself empties the caller's list: minibatch_parse (2b) would
        # then change its argument, and only here is the cause.
        if got["sentence_after"] != sentence:
            self.fail(
                f"PartialParse [{case}]: the sentence passed in became {got['sentence_after']}; keep "
                "self.sentence as it is and work on a copy in self.buffer"
            )

    # Public, so that check sees a shared list where the grader does: else it takes PartialParse for
    # right and charges minibatch_parse (2b) for it.
    def test_parses_side_by_side(self):
        """two parses stepped in turns keep their own stack, buffer and arcs"""
        sentences = [["the", "old", "dog", "barked", "loudly"], ["we", "parse", "words"]]
        transitions = [["S", "S", "S", "LA", "LA", "S", "LA", "S", "RA", "RA"], ["S", "S", "LA", "S", "RA", "RA"]]
        case = "'the old dog barked loudly' and 'we parse words', made first, then stepped in turns"
        got = self.call("fixtures:parses_side_by_side", sentences, transitions, case=case)
        expected = self.expect("fixtures:parses_side_by_side", sentences, transitions)
        for sentence, mine, right in zip(sentences, got, expected):
            if mine != right:
                self.fail(
                    f"PartialParse [{case}]: the parse of {' '.join(sentence)!r} ended with {mine}, "
                    f"expected {right}: does every PartialParse make its own stack, buffer and "
                    "dependencies in __init__, rather than share a list (a default argument, a class "
                    "attribute) with the others?"
                )


class MinibatchPublic(MinibatchMixin):
    question = "2b"
    functions = MINIBATCH

    @partial_credit(1)
    def test_batch_of_one(self, set_score=None):
        """minibatch_parse with batch_size 1"""
        self.minibatch_case([[1, 2, 3], [4, 5], [6]], 1, "3 sentences, batch_size 1", 1, set_score)

    @partial_credit(1)
    def test_batch_of_two(self, set_score=None):
        """minibatch_parse with batch_size 2 and sentences of different lengths"""
        self.minibatch_case(
            [[1, 2, 3, 4], [2, 3], [5, 6, 8, 9, 10, 12], [7], [2, 4, 6]],
            2,
            "5 sentences of lengths 4, 2, 6, 1, 3, batch_size 2",
            1,
            set_score,
        )


class EmbeddingPublic(GradedTestCase):
    question = "3a"
    functions = LOOKUP

    def test_lookup(self):
        """embedding_lookup concatenates the embeddings of each row's ids"""
        data = ModelCase(30)
        got = self.call("fixtures:model_lookup", *data.probe_args(), data.w, case=data.label)
        expected = self.expect("fixtures:model_lookup", *data.probe_args(), data.w)
        self.assert_close(got, expected, "embedding_lookup(w)", case=data.label, rows=True)

    @tags("parser_model.ParserModel.__init__", "parser_model.xavier_uniform")
    def test_parameters(self):
        """the parameters have the documented shapes and dtype, with Xavier-uniform weights and zero biases"""
        case = "ParserModel(embeddings (30, 8), n_features 6, hidden_size 20, n_classes 4)"
        embeddings = np.random.default_rng(8).standard_normal((30, 8))
        sizes = {"n_features": 6, "hidden_size": 20, "n_classes": 4}
        got = self.call("fixtures:model_init", embeddings, sizes, case=case)
        params = got["params"] if isinstance(got, dict) else {}
        shapes = {"embeddings": (30, 8), "W": (48, 20), "b1": (20,), "U": (20, 4), "b2": (4,)}
        if sorted(params) != sorted(shapes):
            self.fail(f"ParserModel [{case}]: params has the keys {sorted(params)}, expected {sorted(shapes)}")
        for name, shape in shapes.items():
            self.assert_shape(params[name], shape, f"params[{name!r}]", case=case)
            if params[name].dtype != np.float64:
                self.fail(
                    f"ParserModel [{case}]: params[{name!r}] is {params[name].dtype}; the docstring asks "
                    "for float64 (gradient checks need the precision)"
                )
        self.assert_close(params["embeddings"], embeddings, "params['embeddings']", case=case)
        if got["embeddings_shared"]:
            self.fail(
                f"ParserModel [{case}]: params['embeddings'] is the caller's array, not a copy of it "
                "(training would change the caller's embeddings)"
            )
        for name in ("b1", "b2"):
            if np.any(params[name]):
                self.fail(f"ParserModel [{case}]: params[{name!r}] should start at zero")
        for name, (fan_in, fan_out) in {"W": (48, 20), "U": (20, 4)}.items():
            values = self.numbers(params[name], f"params[{name!r}]", case=case)
            bound = np.sqrt(6.0 / (fan_in + fan_out))
            if np.abs(values).max() > bound or values.min() >= 0 or values.max() <= 0 or values.std() < bound / 4:
                self.fail(
                    f"ParserModel [{case}]: params[{name!r}] should be Xavier-uniform in "
                    f"[-{bound:.4f}, {bound:.4f}]; its values lie in [{values.min():.4f}, {values.max():.4f}]"
                )
        expected = self.expect("fixtures:model_init", embeddings, sizes)["params"]
        for name in ("W", "U"):
            if not checks.is_close(params[name], expected[name]):
                self.fail(
                    f"ParserModel [{case}]: params[{name!r}] holds other values than the seed gives: __init__'s "
                    "docstring draws W first and then U, each with xavier_uniform from self.rng"
                )

    @tags("parser_model.xavier_uniform")
    def test_xavier_uniform(self):
        """xavier_uniform draws its matrix with one call of rng.uniform, within the Xavier bound"""
        for fan_in, fan_out, seed in ((7, 4, 5), (1, 30, 6)):
            self.check("parser_model.xavier_uniform", fan_in, fan_out, rng(seed), case=f"({fan_in}, {fan_out})")


class ForwardPublic(GradedTestCase):
    question = "3b"

    @weight(2)
    @tags(*FORWARD)
    def test_forward_evaluation(self):
        """forward at evaluation gives the reference logits for the same weights"""
        data = ModelCase(31)
        got = self.call("fixtures:model_forward", *data.probe_args(), data.w, False, case=data.label)
        expected = self.expect("fixtures:model_forward", *data.probe_args(), data.w, False)[0]
        self.assert_close(
            self.unpack(got, 1, "forward", case=data.label)[0], expected, "logits", case=data.label, rows=True
        )


class BackwardPublic(ModelMixin):
    question = "3c"
    functions = BACKWARD

    @partial_credit(1.5)
    def test_gradients(self, set_score=None):
        """backward: the gradient of every parameter (partial credit per parameter)"""
        fraction = self.check_gradients(ModelCase(32), PARAM_NAMES)
        set_score(1.5 * fraction)
        if self.gradient_problems:
            self.fail("\n".join(self.gradient_problems))

    def test_repeated_ids(self):
        """backward: the embedding gradient adds up over repeated ids"""
        data = ModelCase(33, n_tokens=6, repeated=4, batch=10)
        self.check_gradients(data, ("embeddings",))
        if self.gradient_problems:
            self.fail("\n".join(self.gradient_problems))
