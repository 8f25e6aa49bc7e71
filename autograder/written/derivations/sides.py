"""A side of an equation as the finder of final formulas hands it to the reader: a formula's
LaTeX (a ``str``), a formula by :class:`Cases`, or :class:`Words`."""

from __future__ import annotations

import re
from dataclasses import dataclass


@dataclass(frozen=True)
class Cases:
    """A formula by cases as written (``\\begin{cases}``, Mathpix's braced array, or cases in
    words): each row's formula (LaTeX) and its condition without its words (``w = o``,
    ``otherwise``; "" when the row says none)."""

    rows: tuple[tuple[str, str], ...]

    def shown(self) -> str:
        rows = " \\\\ ".join(f"{formula} & {condition}" for formula, condition in self.rows)
        return f"\\begin{{cases}} {rows} \\end{{cases}}"


@dataclass(frozen=True)
class Words:
    """A name defined in words (``$c_w$ is the number of times w is in the window``), which are
    not read."""

    text: str

    def shown(self) -> str:
        return self.text


Side = str | Cases | Words  # a side of an equation: a formula, one by cases, or words


OTHERWISE = re.compile(r"otherwise|else|elsewhere")
