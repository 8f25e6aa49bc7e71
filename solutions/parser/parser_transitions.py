"""Arc-standard transition system and batched parsing.

Run `python parser_transitions.py` to check your work: it runs the public tests of
this file's functions, as `check` and Gradescope do, and reports each as
passed, partial or failed ("not implemented yet" until you write it).

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

from utils.sanity import run_public_tests

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
        ### BEGIN SOLUTION
        self.stack: List[Token] = ["ROOT"]
        self.buffer: List[Token] = list(sentence)  # a copy: parsing empties the buffer
        self.dependencies: List[Arc] = []
        ### END SOLUTION

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
        ### BEGIN SOLUTION
        if transition == "S":
            self.stack.append(self.buffer.pop(0))
        elif transition == "LA":
            dependent = self.stack.pop(-2)
            self.dependencies.append((self.stack[-1], dependent))
        else:  # "RA"
            dependent = self.stack.pop()
            self.dependencies.append((self.stack[-1], dependent))
        ### END SOLUTION

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
    ### BEGIN SOLUTION
    parses = [PartialParse(sentence) for sentence in sentences]
    unfinished = [parse for parse in parses if not parse.is_finished]  # empty sentences are done at once
    while unfinished:
        batch = unfinished[:batch_size]
        for parse, transition in zip(batch, model.predict(batch)):
            parse.parse_step(transition)
        unfinished = [parse for parse in unfinished if not parse.is_finished]
    return [parse.dependencies for parse in parses]
    ### END SOLUTION


# --------------------------------------------------------------------------
# Self-check: `python parser_transitions.py` runs the public tests of this file's functions,
# with the same tests, messages and verdicts as the grader.
# --------------------------------------------------------------------------

if __name__ == "__main__":
    run_public_tests(__file__, "parser")
