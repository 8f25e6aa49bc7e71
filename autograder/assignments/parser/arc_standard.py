"""The arc-standard transition system on the words of one sentence, for written answers.

:mod:`parser_transitions` is what students implement; this is the grader's own small copy for
judging a transition table typed by hand, where a step may be illegal or a configuration wrong.
Words are identified by their text, so a sentence used here must not repeat a word.
"""

from __future__ import annotations

from dataclasses import dataclass

from pydantic import BaseModel, ConfigDict, model_validator

ROOT = "ROOT"
NAMES = {"S": "SHIFT", "LA": "LEFT-ARC", "RA": "RIGHT-ARC"}

Arc = tuple[str, str]  # (head, dependent)


class DependencyTree(BaseModel):
    """A sentence and the position of each word's head (1-based; 0 is ROOT)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    words: tuple[str, ...]
    heads: tuple[int, ...]

    @model_validator(mode="after")
    def _well_formed(self) -> DependencyTree:
        if len(self.words) != len(self.heads) or not self.words:
            raise ValueError("a tree needs one head per word")
        if len({w.lower() for w in self.words} | {ROOT.lower()}) != len(self.words) + 1:
            raise ValueError("words are compared by their text, so they must be distinct (and not ROOT)")
        if sorted(self.heads).count(0) != 1 or not all(0 <= h <= len(self.words) for h in self.heads):
            raise ValueError("exactly one word has head 0 (ROOT), the others a position 1..n")
        return self

    def word(self, position: int) -> str:
        return ROOT if position == 0 else self.words[position - 1]

    @property
    def arcs(self) -> set[Arc]:
        return {(self.word(h), w) for w, h in zip(self.words, self.heads)}

    def oracle(self) -> list[str]:
        """The transitions that build this tree (static oracle: arc as soon as it is complete)."""
        stack, buffer, sequence = [0], list(range(1, len(self.words) + 1)), []
        while buffer or len(stack) > 1:
            if len(stack) > 2 and self.heads[stack[-2] - 1] == stack[-1]:
                stack.pop(-2)
                sequence.append("LA")
            elif (
                len(stack) > 1
                and self.heads[stack[-1] - 1] == stack[-2]
                and all(self.heads[b - 1] != stack[-1] for b in buffer)
            ):
                stack.pop()
                sequence.append("RA")
            elif buffer:
                stack.append(buffer.pop(0))
                sequence.append("S")
            else:
                raise ValueError("the tree is not projective: arc-standard cannot build it")
        return sequence


@dataclass(frozen=True)
class Configuration:
    stack: tuple[str, ...]
    buffer: tuple[str, ...]

    @classmethod
    def initial(cls, words: tuple[str, ...]) -> Configuration:
        return cls((ROOT,), tuple(words))

    def why_illegal(self, transition: str) -> str | None:
        """Why ``transition`` ("S", "LA", "RA") cannot be taken here, or None when it can."""
        if transition == "S" and not self.buffer:
            return "SHIFT needs a word in the buffer, and the buffer is empty"
        if transition == "LA" and len(self.stack) < 3:
            return "LEFT-ARC needs two words above ROOT on the stack (ROOT can never be a dependent)"
        if transition == "RA" and len(self.stack) < 2:
            return "RIGHT-ARC needs a word above ROOT on the stack"
        return None

    def apply(self, transition: str) -> tuple[Configuration, Arc | None]:
        """The next configuration and the arc the transition adds; the transition must be legal."""
        if transition == "S":
            return Configuration(self.stack + self.buffer[:1], self.buffer[1:]), None
        if transition == "LA":
            after = Configuration(self.stack[:-2] + self.stack[-1:], self.buffer)
            return after, (self.stack[-1], self.stack[-2])
        return Configuration(self.stack[:-1], self.buffer), (self.stack[-2], self.stack[-1])


def show(items: tuple[str, ...]) -> str:
    return "[" + ", ".join(items) + "]"
