"""What a call runs: a :class:`Target`, read once from the text tests and the wire use.

Tests name a call as text: the student's ``"module.function"`` or ``"module.Class.method"``, or a
probe, ``"fixtures:name"`` (the assignment's public fixtures) or ``"probes:name"``
(:mod:`autograder.worker.probes`). :meth:`Target.parse` is the one reader of that grammar; the
grader, the reference's answers and the worker all take the parsed value.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

PROBE_SOURCES = ("fixtures", "probes")


@dataclass(frozen=True)
class Target:
    """``module`` is the student's module, or for a probe where it lives (``fixtures``, ``probes``);
    ``path`` the attributes below it: ``("softmax",)``, ``("Adam", "step")``, a probe's name."""

    module: str
    path: tuple[str, ...]
    probe: bool = False

    @classmethod
    def parse(cls, text: str) -> Target:
        """The target ``text`` names; ValueError if it is none."""
        where, colon, name = text.partition(":")
        if colon:
            # A probe's name is public: `_helpers` of the fixtures module are not for calling.
            if where not in PROBE_SOURCES or not name.isidentifier() or name.startswith("_"):
                raise ValueError(f"not a probe: {text!r} (fixtures:name or probes:name)")
            return cls(where, (name,), probe=True)
        module, *path = text.split(".")
        if not path or not all(part.isidentifier() for part in (module, *path)):
            raise ValueError(f"not a call target: {text!r} (module.function or module.Class.method)")
        return cls(module, tuple(path))

    @classmethod
    def names_function(cls, text: str) -> bool:
        """Whether ``text`` names a student's function or method (as tests tag them), not a probe."""
        try:
            return not cls.parse(text).probe
        except ValueError:
            return False

    @classmethod
    def of(cls, target: Target | str) -> Target:
        """A target as a test may give it: parsed already, or as text."""
        return target if isinstance(target, Target) else cls.parse(target)

    def __str__(self) -> str:
        return f"{self.module}:{self.name}" if self.probe else ".".join((self.module, *self.path))

    @property
    def name(self) -> str:
        """The function's or method's own name: ``softmax``, ``step``."""
        return self.path[-1]

    @property
    def qualname(self) -> str:
        """Its name within the module: ``softmax``, ``Adam.step``."""
        return ".".join(self.path)

    @property
    def owner(self) -> Target | None:
        """The class of a method (``module.Class``); None for a function or a probe."""
        return Target(self.module, self.path[:-1]) if len(self.path) > 1 and not self.probe else None

    def resolve(self, module: Any) -> Any:
        """The object this names in ``module`` (the student's or the reference's); AttributeError if none."""
        value = module
        for part in self.path:
            value = getattr(value, part)
        return value
