"""Handouts: from one Markdown + LaTeX source per assignment (``handouts/<name>.md``, read by
:mod:`autograder.written.handout_source`), the notebook students answer in, a Markdown answer sheet,
and the figures."""
