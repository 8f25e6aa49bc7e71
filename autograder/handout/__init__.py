"""Handouts: one Markdown + LaTeX source per assignment (``handouts/<name>.md``), and what is
generated from it: the notebook students answer in, a Markdown answer sheet, and the figures."""
