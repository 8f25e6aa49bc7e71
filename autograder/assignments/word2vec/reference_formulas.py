"""The reference's final formula of every derivation question of ``handout.DERIVATIONS``, keyed by
what it differentiates with respect to. Staff only: ``release`` leaves this file out of the bundle."""

REFERENCE_FORMULAS = {
    "1c-i": {"\\theta": "\\hat y - y"},
    "1d-i": {"x": "((\\hat y - y) W_2^\\top \\odot h \\odot (1 - h)) W_1^\\top"},
    "2b-ii": {"v_c": "U^\\top (\\hat y - y)"},
    "2b-iii": {"u_w": "(\\hat y_w - y_w) v_c"},
    "2b-iv": {"U": "(\\hat y - y) v_c^\\top"},
    "2c-i": {
        "v_c": "(\\sigma(u_o^\\top v_c) - 1) u_o + \\sum_{k=1}^{K} \\sigma(u_{w_k}^\\top v_c) u_{w_k}",
        "u_o": "(\\sigma(u_o^\\top v_c) - 1) v_c",
        "u_{w_k}": "\\sigma(u_{w_k}^\\top v_c) v_c",
    },
    "2c-ii": {"u_w": "n_w \\sigma(u_w^\\top v_c) v_c"},
}
