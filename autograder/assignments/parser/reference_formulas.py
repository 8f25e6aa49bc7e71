"""The reference's final formula of every derivation question of ``handout.DERIVATIONS``, keyed by
what it differentiates with respect to. Staff only: ``release`` leaves this file out of the bundle."""

REFERENCE_FORMULAS = {
    "1c-i": {"x": "\\mathrm{diag}(\\mathbb{1}[x W + b_1 > 0]) W^\\top"},
    "1c-ii": {"l": "\\hat y - y"},
}
