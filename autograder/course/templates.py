"""The files the course tools fill in for one assignment: the bundle's README (``bundle_files/``) and the
zip's scripts (``gradescope_files/``). ``@KEY@`` marks where a value goes."""

from __future__ import annotations

from pathlib import Path


def fill(template: Path, values: dict[str, str]) -> str:
    """``template``'s text with every ``@KEY@`` of ``values`` replaced by its value."""
    text = template.read_text(encoding="utf-8")
    for key, value in values.items():
        text = text.replace(f"@{key}@", value)
    return text
