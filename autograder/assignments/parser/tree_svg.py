"""Draws a dependency tree as a small hand-written SVG: words on a line, arcs above them.

Built from code rather than drawn by a plotting library so that the same tree always gives the
same bytes, which lets a test regenerate the figure and compare it with the committed one.
"""

from __future__ import annotations

from html import escape

from autograder.assignments.parser.arc_standard import DependencyTree

_SPACING = 96  # between word centres
_MARGIN = 60
_BASELINE_GAP = 20  # from the arcs' feet down to the words' baseline
_HEIGHT_PER_WORD = 22  # an arc spanning k words rises 26 + 22 k


def tree_svg(tree: DependencyTree, description: str) -> str:
    words = ("ROOT", *tree.words)
    spans = [abs(h - d) for d, h in enumerate(tree.heads, start=1)]
    # A cubic curve whose control points rise by r peaks at 3r/4: room for the highest arc.
    feet = round(0.75 * (26 + _HEIGHT_PER_WORD * max(spans))) + 20
    baseline = feet + _BASELINE_GAP
    width = 2 * _MARGIN + _SPACING * (len(words) - 1)
    x = [_MARGIN + _SPACING * i for i in range(len(words))]
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{baseline + 16}" '
        f'viewBox="0 0 {width} {baseline + 16}" role="img">',
        f"  <title>{escape(description)}</title>",
        "  <defs>",
        '    <marker id="head" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto">',
        '      <path d="M0,0 L10,5 L0,10 z" fill="#1f4e79"/>',
        "    </marker>",
        "  </defs>",
        '  <g fill="none" stroke="#1f4e79" stroke-width="1.6" marker-end="url(#head)">',
    ]
    for dependent, head in enumerate(tree.heads, start=1):
        rise = 26 + _HEIGHT_PER_WORD * abs(head - dependent)
        # Leave the head a little to the side of its centre, so that arcs in both directions
        # and the arrowheads arriving at a word do not meet in one point.
        start = x[head] + (10 if dependent > head else -10)
        end = x[dependent]
        parts.append(f'    <path d="M{start},{feet} C{start},{feet - rise} {end},{feet - rise} {end},{feet}"/>')
    parts.append("  </g>")
    parts.append('  <g font-family="Helvetica, Arial, sans-serif" font-size="16" text-anchor="middle" fill="#111111">')
    for position, word in enumerate(words):
        weight = ' font-weight="bold"' if position == 0 else ""
        parts.append(f'    <text x="{x[position]}" y="{baseline}"{weight}>{escape(word)}</text>')
    parts.append("  </g>")
    parts.append("</svg>")
    return "\n".join(parts) + "\n"
