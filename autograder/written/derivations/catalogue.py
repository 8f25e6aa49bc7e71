"""The notations the derivation reader accepts, one row each: how students write it, what it is read
as, and an answer that uses it, which the reader must judge equal to the course's formula.

``python -m autograder handouts`` writes the notations (never the examples, which answer the
questions) into each handout after ``<!-- notation table -->``, and ``tests/test_derivations.py``
judges every row's example, so students read the list the reader is tested on. A notation the
reader learns gets its row here, with an example, or students are not told about it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass


@dataclass(frozen=True)
class Spelling:
    written: str  # how students write it (Markdown, code spans)
    read_as: str  # what the reader takes it for
    example: str  # an answer that uses it, right for ``question``
    assignment: str
    question: str


SPELLINGS: tuple[Spelling, ...] = (
    Spelling(
        r"`\frac{\partial J}{\partial v_c}`, `\partial J / \partial v_c`, `\frac{dJ}{dv_c}`, "
        r"`\nabla_{v_c} J`, `D_{v_c} J`, `\operatorname{grad}_{v_c} J`, `grad_vc`, `dJ/dvc`, `J'(v_c)`",
        "the derivative the question asks for",
        r"$$\nabla_{v_c} J = U^\top(\hat y - y)$$",
        "word2vec",
        "2b-ii",
    ),
    Spelling(
        r"the handout's symbols: `\hat y`, `\hat{y}`, `ŷ`, `yhat`; `W_1`, `W1`; `u_w`, `uw`, `u_{w_k}`, `u_wk`; "
        r"an equation editor's letters (`𝒚̂`, `𝑾₁`)",
        "those symbols",
        "So dJ/dvc = U^T (yhat - y).",
        "word2vec",
        "2b-ii",
    ),
    Spelling(
        r"`^\top`, `^T`, `^{\mathsf T}`, `'`, `ᵀ`",
        "a transpose",
        "∂J/∂U = (ŷ − y) v_cᵀ",
        "word2vec",
        "2b-iv",
    ),
    Spelling(
        r"`\odot`, `\circ`, `⊙`; a product side by side or with `\cdot`",
        "the product entry by entry; the matrix product",
        r"$$\frac{\partial J}{\partial x} = \big((\hat y - y) W_2^\top \odot h \odot (1 - h)\big) W_1^\top$$",
        "word2vec",
        "1d-i",
    ),
    Spelling(
        r"`\sigma`, `\sigma'`, `\mathrm{ReLU}'`, `\max(0, z)`",
        "the sigmoid, its derivative, the ReLU's derivative, the ReLU",
        r"$$\frac{\partial J}{\partial x} = \big((\hat y - y) W_2^\top \circ \sigma'(z_1)\big) W_1^\top$$",
        "word2vec",
        "1d-i",
    ),
    Spelling(
        r"`\tanh`, `\tanh'`, `\mathrm{sech}`, `\operatorname{sech}` (`\mathrm{sech}^2(z)`, `1 - \tanh^2(z)`)",
        "tanh, its derivative, the hyperbolic secant (so all three are the derivative of tanh)",
        r"$$\frac{\partial J}{\partial x} = \big((\hat y - y) W_2^\top \odot \tfrac{1}{4}\tanh'(z_1 / 2)\big) "
        r"W_1^\top$$",
        "word2vec",
        "1d-i",
    ),
    Spelling(
        r"`\mathbb{1}[\dots > 0]`, `\mathbf{1}\{\dots\}`, `\mathrm{diag}`, `\operatorname{diag}`",
        "the indicator, entry by entry; the diagonal matrix of a vector",
        r"$$\frac{\partial h}{\partial x} = \operatorname{diag}\big(\mathbb{1}[xW + b_1 > 0]\big) W^\top$$",
        "parser",
        "1c-i",
    ),
    Spelling(
        r"`\sum_w`, `\sum_{w \in V}`, `\sum_{k=1}^{K}`, `\sum_{k \in \{1, \dots, K\}}`, `sum_{k=1..K}`, `sum_w`, "
        r"`Σ_w` (their limits count)",
        "sums",
        r"$$\frac{\partial J}{\partial v_c} = -u_o + \sum_{w \in V} \hat y_w u_w$$",
        "word2vec",
        "2b-ii",
    ),
    Spelling(
        r"numpy's `@` (of two vectors, their dot product), `*` and `.T` in a formula with `@` (`*` is then entry by "
        r"entry), `np.outer(a, b)`, a mask "
        r"`(z > 0)`, an index `yhat[w]`, `W[j, i]`, `U[w]` (a row), a comparison `(w == o)` (1 where it holds); "
        r"Julia's and Matlab's `.*`, `.-`, `'`, an entry `yhat(w)`; R's `%*%` and `t(A)`; `u . v` typed for a dot "
        r"product; a gradient "
        r"named as code names it (`dX = ...`, `grad_vc = ...`)",
        "the matrix product, the product entry by entry, a transpose, the outer product, 1 where it holds, an "
        "entry; the dot product",
        "dJ/dx = ((yhat - y) @ W2.T * h * (1 - h)) @ W1.T",
        "word2vec",
        "1d-i",
    ),
    Spelling(
        r"LaTeX typed without `$`, as an OCR of handwriting gives it (`\frac { \partial J } { \partial v _ { c } }`); "
        r"GitHub's ```` ```math ```` block; Google Docs' Markdown, which escapes `b\_1` and `1\[...\]`",
        "math",
        r"i.e. \frac { \partial J } { \partial v _ { c } } = U ^ { T } ( \hat { y } - y )",
        "word2vec",
        "2b-ii",
    ),
    Spelling(
        r"Typst's math between `$` (`(partial J)/(partial v_c)`, `hat(y)`, `sum_(w in V)`, `dot.circle`, "
        r'`op("diag")`, `bb(1)`)',
        "the same in LaTeX",
        r"$ (partial J)/(partial v_c) = -u_o + sum_(w in V) hat(y)_w u_w $",
        "word2vec",
        "2b-ii",
    ),
    Spelling(
        r"AsciiMath between backticks (`(del J)/(del v_c)`, `hat y`, `sum_(k=1)^K`, `xx`, `o.`, "
        r'cases as `{(a, "if " w = o), (b, "if " w != o):}`)',
        "the same in LaTeX",
        r'`(del J)/(del u_w) = {((hat y_o - 1) v_c, "if " w = o), (hat y_w v_c, "if " w != o):}`',
        "word2vec",
        "2b-iii",
    ),
    Spelling(
        r"LibreOffice Math's source on lines of their own (`{partial J} over {partial u_w}`, `%theta`, `<>`, "
        r'cases as `left lbrace stack{ a " for " w = o # b " for " w <> o } right none`)',
        "the same in LaTeX",
        r'{partial J} over {partial u_w} = left lbrace stack{ ( hat y_o - 1 ) v_c " for " w = o # hat y_w v_c '
        r'" for " w <> o } right none',
        "word2vec",
        "2b-iii",
    ),
    Spelling(
        r"`\mathbb{E}_{w \sim \hat y}[\dots]`, `𝔼_{w∼ŷ}[...]`",
        r"the expectation: $\sum_w \hat y_w [\dots]$",
        r"$$\nabla_{v_c} J = \mathbb{E}_{w \sim \hat y}[u_w] - u_o$$",
        "word2vec",
        "2b-ii",
    ),
    Spelling(
        r"`P(w \mid c)`, `p(x | c)`",
        r"$\hat y_w$, $\hat y_x$",
        r"$$\frac{\partial J}{\partial v_c} = -u_o + \sum_{w} P(w \mid c)\, u_w$$",
        "word2vec",
        "2b-ii",
    ),
    Spelling(
        r"`\#\{\dots\}`, `|\{\dots\}|` (typed `#{k : ...}`, `|{k : ...}|`), `\sum_{k: \dots}`; `[w_k = w]` and "
        r"`\delta_{w, w_k}` (1 where it holds, else 0); a count you name and say in words, also after code "
        r"(`m = (idx == w).sum()  # how many times w was drawn`, `count(w) = number of k with w_k = w`)",
        "the number of elements of a set; a sum over the indices that satisfy a condition",
        r"$$\frac{\partial J}{\partial u_w} = \#\{k : w_k = w\}\,\sigma(u_w^\top v_c)\,v_c$$",
        "word2vec",
        "2c-ii",
    ),
    Spelling(
        r"`[u_{w_1}; \dots; u_{w_K}]` (rows), `[u_{w_1}, \dots, u_{w_K}]` (columns); a matrix you name whose rows "
        r"you say in words (`row $k$ of $U_K$ is $u_{w_k}^\top$`, `UK = U[idx]  # one sample per row`)",
        "the matrix of the samples' vectors",
        r"Let $U_K = [u_{w_1}; \dots; u_{w_K}]$. $$\frac{\partial J}{\partial v_c} = (\sigma(u_o^\top v_c) - 1)u_o "
        r"+ U_K^\top \sigma(U_K v_c)$$ $$\frac{\partial J}{\partial u_o} = (\sigma(u_o^\top v_c) - 1) v_c$$ "
        r"$$\frac{\partial J}{\partial u_{w_k}} = \sigma(u_{w_k}^\top v_c) v_c$$",
        "word2vec",
        "2c-i",
    ),
    Spelling(
        r"`\begin{cases}` (Mathpix's `\left\{\begin{array}`, Word's `\left\{\begin{matrix}`), "
        r"or each case after it is named (`for $w = o$:`; "
        r"in plain text `for w = o:` on its line or the line above)",
        "one formula per case",
        r"$$\frac{\partial J}{\partial u_w} = \begin{cases} (\hat y_o - 1)\, v_c & w = o \\ \hat y_w\, v_c & "
        r"w \neq o \end{cases}$$",
        "word2vec",
        "2b-iii",
    ),
    Spelling(
        r"an equation for one entry (`\frac{\partial J}{\partial x_j} = ...`, `U_{w,i}`, `v_{c,i}`, with indices of "
        r"your own)",
        "that equation for every entry",
        r"$$\frac{\partial J}{\partial \theta_j} = \hat y_j - y_j$$",
        "word2vec",
        "1c-i",
    ),
    Spelling(
        r"names you define, above or below the formula, in any order (`where \delta_1 = ...`; in a sentence, "
        r"`Let s = ...`, `I write p for ŷ`; in plain text, `probs = ...`; in a table of names); a vector you "
        r"define entry by entry (`d_i = 1` if `z_i > 0`, `0` otherwise) and then use whole",
        "what you define them as; a name of the handout that you define too",
        r"$$\frac{\partial J}{\partial x} = \delta_1 W_1^\top$$ where $\delta_1 = \delta_2 W_2^\top \odot "
        r"\sigma'(z_1)$ and $\delta_2 = \hat y - y$.",
        "word2vec",
        "1d-i",
    ),
    Spelling(
        r"functions you define (`\sigma'(t) = ...`, `\mathrm{ReLU}'(z) = ...`, `g(z) = ...`)",
        "what you define them as, not the true ones",
        r"Here $\sigma'(t) = \sigma(t)(1 - \sigma(t))$, so "
        r"$$\frac{\partial J}{\partial x} = \big((\hat y - y) W_2^\top \odot \sigma'(z_1)\big) W_1^\top$$",
        "word2vec",
        "1d-i",
    ),
    Spelling(
        r"a definition by cases in words: `$y_i = 1$ if $i = o$ and $0$ otherwise`; in plain text, "
        r"`H(t) = 1 for t > 0 and H(t) = 0 for t ≤ 0`",
        "those cases",
        r"$$\frac{\partial J}{\partial v_c} = U^\top(\hat y - y)$$ where $y_i = 1$ if $i = o$ and $0$ otherwise.",
        "word2vec",
        "2b-ii",
    ),
    Spelling(
        r"row or column vectors, said in words (`with column vectors`); the handout's when you say nothing",
        "the formula in that convention",
        r"With column vectors, $$\frac{\partial J}{\partial x} = W_1\big(\sigma'(z_1) \odot W_2(\hat y - y)\big)$$",
        "word2vec",
        "1d-i",
    ),
)


def notation_table() -> str:
    """The catalogue as a Markdown table, for the handouts."""
    rows = ["| you may write | it is read as |", "| --- | --- |"]
    for spelling in SPELLINGS:
        cells = (spelling.written, spelling.read_as)
        rows.append("| " + " | ".join(cell.replace("|", "\\|") for cell in cells) + " |")
    return "\n".join(rows)


def with_notation_table(source: str) -> str:
    """``source`` with the table written after its marker, so that a student who reads the Markdown
    source sees it as the notebook shows it."""
    return with_region(source, "notation table", notation_table())


def with_region(source: str, name: str, text: str) -> str:
    """``source`` with ``text`` written after each ``<!-- name -->``, up to the end marker written
    with it (what an earlier run wrote there is replaced)."""
    start, end = f"<!-- {name} -->", f"<!-- end of the {name} -->"
    region = f"{start}\n\n{text}\n\n{end}"
    if end in source:
        return re.sub(re.escape(start) + r".*?" + re.escape(end), lambda _: region, source, flags=re.DOTALL)
    return source.replace(start, region)
