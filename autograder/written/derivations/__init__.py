"""Derivations checked by machine: the final formula of a written derivation, read from the
student's LaTeX and compared with the reference by evaluating both on random values.

:mod:`.notation` declares what a question's formulas may use, :mod:`.reader` turns LaTeX into a
:mod:`.tree`, :mod:`.evaluate` computes it with numpy on the random values of :mod:`.values`,
:mod:`.final` finds the final formula in an answer, and :mod:`.verdict` compares it with the
reference under each allowed convention.
"""
