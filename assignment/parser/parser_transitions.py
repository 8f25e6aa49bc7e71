"""Arc-standard transition system and batched parsing.

Run `python parser_transitions.py` to check your work; each check reports
"passed", "FAILED", "ERROR" or "not implemented yet".

Two rules hold for every function you write, and `python
parser_transitions.py`, the autograder's `check` and the grader all hold
you to them: a function
changes none of the arrays and lists it is given (unless its docstring
says so), and it gives the same result whenever it gets the same inputs.
A right result that changes an input earns half a test's points; one that
changes from one call to the next earns none. Stacks, buffers and
arcs are compared exactly.

A parse in progress (a "configuration") has three parts:

    stack         words being worked on; starts as ["ROOT"], its top is
                  its LAST element
    buffer        words not read yet; starts as the whole sentence, the
                  next word is its FIRST element
    dependencies  arcs found so far, a list of (head, dependent) pairs

and three transitions change it:

    "S"   shift:      move the first word of the buffer onto the stack
    "LA"  left-arc:   the second item from the top becomes a dependent of
                      the top item and leaves the stack
    "RA"  right-arc:  the top item becomes a dependent of the second item
                      and leaves the stack

A parse is finished when the buffer is empty and only ROOT is left on the
stack.
"""

from __future__ import annotations

from typing import Hashable, List, Protocol, Sequence, Tuple

from utils.sanity import run_checks

TRANSITIONS = ("S", "LA", "RA")

Token = Hashable  # a word, or an integer id as used by the parser
Arc = Tuple[Token, Token]  # (head, dependent)


class PartialParse:
    """The configuration of one sentence that is being parsed.

    Attributes:
        sentence: the sentence given to __init__, unchanged.
        stack, buffer: sequences of tokens. A list is the simplest choice;
            any sequence that supports len(), indexing from both ends and
            the changes your parse_step makes will do (collections.deque,
            for instance). The checks, here and in the autograder, set up
            configurations with the same types as your __init__ chose.
        dependencies: a list of (head, dependent) pairs, oldest first.
    """

    def __init__(self, sentence: Sequence[Token]) -> None:
        """Start a parse: ROOT alone on the stack, the whole sentence in the buffer.

        Args:
            sentence: the tokens of the sentence, in order. Kept as
                `self.sentence` and never modified; the buffer is a copy.
        """
        self.sentence = sentence
        ### YOUR CODE HERE (about 3 lines)
        raise NotImplementedError("PartialParse.__init__ is not implemented yet")
        ### END YOUR CODE

    @property
    def is_finished(self) -> bool:
        """True once the buffer is empty and only one item (ROOT) is left on the stack."""
        return not self.buffer and len(self.stack) == 1

    def parse_step(self, transition: str) -> None:
        """Apply one transition ("S", "LA" or "RA") to this configuration.

        Raises:
            ValueError: for any other transition.
        """
        if transition not in TRANSITIONS:
            raise ValueError(f"unknown transition {transition!r}; expected one of {TRANSITIONS}")
        ### YOUR CODE HERE (about 8 lines)
        raise NotImplementedError("PartialParse.parse_step is not implemented yet")
        ### END YOUR CODE

    def parse(self, transitions: Sequence[str]) -> List[Arc]:
        """Apply the transitions in order and return the dependencies found."""
        for transition in transitions:
            self.parse_step(transition)
        return self.dependencies


class TransitionModel(Protocol):
    """Anything with a `predict` method, e.g. the parser's neural network."""

    def predict(self, partial_parses: List[PartialParse]) -> List[str]:
        """One transition per parse, in the same order."""
        ...


def minibatch_parse(
    sentences: Sequence[Sequence[Token]], model: TransitionModel, batch_size: int
) -> List[List[Arc]]:
    """Parse many sentences, asking the model about batch_size parses at a time.

    Asking a neural network about many configurations at once is much
    faster than asking about one at a time: one big matrix product instead
    of many small ones.

    Algorithm:
        1. Make one PartialParse per sentence.
        2. Keep a separate list of the unfinished parses.
        3. While there are unfinished parses:
           - take the first batch_size of them,
           - ask model.predict for one transition per parse in the batch,
           - apply each transition to its parse,
           - remove the parses that are now finished from the unfinished
             list.
        4. Return the dependencies of every parse.

    Args:
        sentences: the sentences (lists of tokens). Not modified.
        model: has `predict(partial_parses) -> list of transitions`.
        batch_size: how many parses to hand the model at once (>= 1).

    Returns:
        One list of (head, dependent) arcs per sentence, in the order of
        `sentences` (however soon each parse finished).

    Hint: `unfinished = parses` makes a second NAME for the same list, so
    removing from one removes from the other. Copy the list (or rebuild
    it with a list comprehension) instead.
    """
    if batch_size < 1:
        raise ValueError(f"batch_size must be at least 1, got {batch_size}")
    ### YOUR CODE HERE (about 8 lines)
    raise NotImplementedError("minibatch_parse is not implemented yet")
    ### END YOUR CODE


# --------------------------------------------------------------------------
# Sanity checks: run `python parser_transitions.py`.
# --------------------------------------------------------------------------


def _like(template: object, items: List) -> object:
    """`items` in the container type of `template` (a list, a deque, ...)."""
    try:
        return type(template)(items)
    except Exception:  # a type that cannot be built from a list: a list will do
        return list(items)


def _configuration(stack: List[Token], buffer: List[Token], dependencies: List[Arc]) -> PartialParse:
    """A PartialParse put directly into the given state, in the containers __init__ chose."""
    parse = PartialParse(list(buffer))
    parse.stack = _like(parse.stack, stack)
    parse.buffer = _like(parse.buffer, buffer)
    parse.dependencies = _like(parse.dependencies, dependencies)
    return parse


def _check_step(transition: str, before: Tuple, after: Tuple) -> None:
    parse = _configuration(*before)
    parse.parse_step(transition)
    got = (list(parse.stack), list(parse.buffer), list(parse.dependencies))
    expected = tuple(list(part) for part in after)
    assert got == expected, (
        f"{transition} from stack={before[0]}, buffer={before[1]}, dependencies={before[2]} gave "
        f"stack={got[0]}, buffer={got[1]}, dependencies={got[2]}; "
        f"expected stack={expected[0]}, buffer={expected[1]}, dependencies={expected[2]}"
    )


def check_initial_configuration() -> None:
    sentence = ["The", "cat", "sat"]
    parse = PartialParse(sentence)
    assert list(parse.stack) == ["ROOT"], f"initial stack {parse.stack}, expected ['ROOT']"
    assert list(parse.buffer) == sentence, f"initial buffer {parse.buffer}, expected {sentence}"
    assert parse.buffer is not sentence, "the buffer must be a copy of the sentence, not the same list"
    assert parse.dependencies == [], f"initial dependencies {parse.dependencies}, expected []"


def check_shift() -> None:
    _check_step("S", (["ROOT", "the"], ["cat", "sat"], []), (["ROOT", "the", "cat"], ["sat"], []))


def check_left_arc() -> None:
    _check_step("LA", (["ROOT", "the", "cat"], ["sat"], []), (["ROOT", "cat"], ["sat"], [("cat", "the")]))


def check_right_arc() -> None:
    _check_step(
        "RA",
        (["ROOT", "run", "fast"], [], [("run", "I")]),
        (["ROOT", "run"], [], [("run", "I"), ("run", "fast")]),
    )


def check_full_parse() -> None:
    # Worked out by hand: "watched" heads "We" and "movie"; "movie" heads "a"
    # and "whales"; "whales" heads "about". The right-arc watched -> movie
    # waits until "movie" has its own right dependent, "whales".
    sentence = ["We", "watched", "a", "movie", "about", "whales"]
    original = list(sentence)
    transitions = ["S", "S", "LA", "S", "S", "LA", "S", "S", "LA", "RA", "RA", "RA"]
    expected = [
        ("watched", "We"),
        ("movie", "a"),
        ("whales", "about"),
        ("movie", "whales"),
        ("watched", "movie"),
        ("ROOT", "watched"),
    ]
    parse = PartialParse(sentence)
    dependencies = parse.parse(transitions)
    assert list(dependencies) == expected, f"parse gave {dependencies}, expected {expected}"
    assert list(parse.stack) == ["ROOT"] and not parse.buffer, (
        f"after the last transition stack={parse.stack}, buffer={parse.buffer}; expected ['ROOT'] and []"
    )
    assert sentence == original, f"parsing modified the input sentence: it is now {sentence}"


class _DummyModel:
    """Shifts everything, then adds arcs: all right-arcs for sentences of
    even length, left-arcs (then a final right-arc to ROOT) for odd ones.

    Records the size of every batch it is asked about.
    """

    def __init__(self) -> None:
        self.batch_sizes: List[int] = []

    def predict(self, partial_parses: List[PartialParse]) -> List[str]:
        self.batch_sizes.append(len(partial_parses))
        return [self._choose(parse) for parse in partial_parses]

    @staticmethod
    def _choose(parse: PartialParse) -> str:
        if parse.buffer:
            return "S"
        if len(parse.stack) == 2 or len(parse.sentence) % 2 == 0:
            return "RA"
        return "LA"


def _expected_arcs(sentence: Sequence[Token]) -> List[Arc]:
    """The arcs _DummyModel produces for `sentence`, worked out directly."""
    words = list(sentence)
    if not words:
        return []
    if len(words) % 2 == 0:  # right-arcs: each word heads the next one
        arcs = [(words[i - 1], words[i]) for i in range(len(words) - 1, 0, -1)]
        return arcs + [("ROOT", words[0])]
    last = words[-1]  # left-arcs: the last word heads all the others
    return [(last, words[i]) for i in range(len(words) - 2, -1, -1)] + [("ROOT", last)]


def _wrong_arcs(sentences: List, index: int, arcs: List[Arc], expected_all: List[List[Arc]]) -> str:
    """Why the arcs of sentence `index` are wrong: the order of the results, or the parse itself."""
    others = [i for i, expected in enumerate(expected_all) if i != index and expected == arcs]
    if others:
        return (f"the arcs returned for sentence {index} {sentences[index]} are those of sentence "
                f"{others[0]} {sentences[others[0]]}: return the results in the order of the "
                f"sentences, however soon each parse finished")
    return (f"sentence {index} {sentences[index]} got {arcs}, expected {expected_all[index]} "
            f"(they are no other sentence's arcs either, so the parse itself went wrong)")


def check_minibatch_parse() -> None:
    sentences = [
        ["right", "arcs", "only"],
        ["a", "longer", "sentence", "with", "six", "words"],
        ["one"],
        ["two", "words"],
        ["the", "last", "sentence", "of", "five"],
        [7, 3, 7, 9],  # the parser itself uses integer ids
    ]
    originals = [list(s) for s in sentences]
    for batch_size in (1, 2, 4, 100):
        model = _DummyModel()
        result = minibatch_parse(sentences, model, batch_size)
        assert isinstance(result, list) and len(result) == len(sentences), (
            f"batch_size {batch_size}: expected a list of {len(sentences)} dependency lists, got {result!r}"
        )
        expected_all = [_expected_arcs(sentence) for sentence in sentences]
        for index, (sentence, arcs) in enumerate(zip(sentences, result)):
            if list(arcs) != expected_all[index]:
                why = _wrong_arcs(sentences, index, list(arcs), expected_all)
                raise AssertionError(f"batch_size {batch_size}: {why}")
        assert max(model.batch_sizes) <= batch_size, f"predict got {max(model.batch_sizes)} parses at once, batch_size {batch_size}"
        assert model.batch_sizes[0] == min(batch_size, len(sentences)), (
            f"batch_size {batch_size}: the first batch had {model.batch_sizes[0]} parses, expected full batches"
        )
        assert sentences == originals, "minibatch_parse modified the input sentences"


CHECKS = [
    ("PartialParse: initial configuration", check_initial_configuration),
    ("parse_step: shift", check_shift),
    ("parse_step: left-arc", check_left_arc),
    ("parse_step: right-arc", check_right_arc),
    ("parse: 'We watched a movie about whales'", check_full_parse),
    ("minibatch_parse: dummy model, several batch sizes", check_minibatch_parse),
]


if __name__ == "__main__":
    run_checks(CHECKS, title="parser_transitions sanity checks")
