"""The feed-forward network that scores the next transition of the parser.

Run `python parser_model.py` to check your work: it runs the public tests of
this file's functions, as `check` and Gradescope do, and reports each as
passed, partial or failed ("not implemented yet" until you write it).

Two rules hold for every function you write, and `python parser_model.py`, the
autograder's `check` and the grader all hold you to them: a function
changes none of the arrays and lists it is given (unless its docstring
says so), and it gives the same result whenever it gets the same inputs.
A right result that changes an input earns half a test's points; one that
changes from one call to the next earns none. Numbers are compared
with the reference's within a relative 1e-5 (an absolute 1e-7 near zero;
for a gradient, 1e-6 of its largest entry).

The parser describes a configuration by n_features token ids (words near
the top of the stack and the front of the buffer, their part-of-speech
tags and arc labels). For a batch of B configurations the network computes

    x      = the embeddings of the B * n_features ids, one row per
             configuration: (B, n_features * embed_size)
    h      = relu(x @ W + b1)                            (B, hidden_size)
    h_drop = dropout(h)          (while training only)   (B, hidden_size)
    logits = h_drop @ U + b2                             (B, n_classes)

and is trained with softmax cross-entropy on the logits (layers.py). The
embeddings are parameters too: back-propagation updates the word vectors.

Everything is float64, so that gradient checks are meaningful.
"""

from __future__ import annotations

from typing import Dict, Optional

import numpy as np

from layers import dropout_backward, dropout_forward, relu_backward, relu_forward
from utils.sanity import run_public_tests

Params = Dict[str, np.ndarray]


def xavier_uniform(fan_in: int, fan_out: int, rng: np.random.Generator) -> np.ndarray:
    """A (fan_in, fan_out) weight matrix with Xavier/Glorot uniform initialisation.

    Entries are drawn independently and uniformly from [-limit, limit] with

        limit = sqrt(6 / (fan_in + fan_out)).

    This choice keeps the variance of the activations (forward) and of the
    gradients (backward) roughly the same from one layer to the next, so
    neither explodes nor vanishes at the start of training.

    Args:
        fan_in, fan_out: number of inputs and outputs of the layer.
        rng: the generator to draw from (one call of rng.uniform).
    """
    ### BEGIN SOLUTION
    limit = np.sqrt(6.0 / (fan_in + fan_out))
    return rng.uniform(-limit, limit, size=(fan_in, fan_out))
    ### END SOLUTION


class ParserModel:
    """Embedding layer, one ReLU hidden layer with dropout, linear output layer.

    Attributes:
        params: name -> float64 array, exactly these five:
            "embeddings" (n_tokens, embed_size)
            "W"          (n_features * embed_size, hidden_size)
            "b1"         (hidden_size,)
            "U"          (hidden_size, n_classes)
            "b2"         (n_classes,)
        rng: the generator used for the initial weights and for dropout.
        cache: what the last call of `forward` kept for `backward`: the tuple
            (w, x, relu_cache, h_drop, dropout_cache), see `forward`.
    """

    dtype = np.float64

    def __init__(
        self,
        embeddings: np.ndarray,
        n_features: int = 36,
        hidden_size: int = 200,
        n_classes: int = 3,
        dropout_prob: float = 0.5,
        seed: int = 0,
    ) -> None:
        """Create the parameters.

        Args:
            embeddings: (n_tokens, embed_size) initial vectors, one row per
                token id (e.g. pretrained word vectors). Copied, not shared.
            n_features: number of token ids describing one configuration.
            hidden_size: number of hidden units.
            n_classes: number of transitions to choose from.
            dropout_prob: probability of dropping a hidden unit while training.
            seed: seeds self.rng, so the same seed gives the same model and
                the same dropout masks.

        Set self.params (see the class docstring): W and U with
        xavier_uniform, drawing W FIRST and then U from self.rng; b1 and b2
        start at zero (the random weights already make the hidden units
        differ from each other, so biases need no randomness).
        """
        embeddings = np.array(embeddings, dtype=self.dtype)  # a private copy
        if embeddings.ndim != 2:
            raise ValueError(f"embeddings must be (n_tokens, embed_size), got shape {embeddings.shape}")
        self.n_tokens, self.embed_size = embeddings.shape
        self.n_features = n_features
        self.hidden_size = hidden_size
        self.n_classes = n_classes
        self.dropout_prob = dropout_prob
        self.rng = np.random.default_rng(seed)
        self.cache: Optional[tuple] = None
        ### BEGIN SOLUTION
        self.params: Params = {
            "embeddings": embeddings,
            "W": xavier_uniform(n_features * self.embed_size, hidden_size, self.rng),
            "b1": np.zeros(hidden_size, dtype=self.dtype),
            "U": xavier_uniform(hidden_size, n_classes, self.rng),
            "b2": np.zeros(n_classes, dtype=self.dtype),
        }
        ### END SOLUTION

    def _check_ids(self, w: np.ndarray) -> np.ndarray:
        w = np.asarray(w)
        if w.ndim != 2 or w.shape[1] != self.n_features or not np.issubdtype(w.dtype, np.integer):
            raise ValueError(f"expected integer ids of shape (batch, {self.n_features}), got {w.dtype} {w.shape}")
        if w.size and (w.min() < 0 or w.max() >= self.n_tokens):
            raise ValueError(f"token ids must lie in [0, {self.n_tokens}), got {w.min()}..{w.max()}")
        return w

    def embedding_lookup(self, w: np.ndarray) -> np.ndarray:
        """Concatenated embeddings of the ids of each configuration.

        Args:
            w: (batch, n_features) integer token ids.

        Returns:
            (batch, n_features * embed_size): row i is the embedding of
            w[i, 0], then that of w[i, 1], and so on.

        Hint: no loop needed. Indexing an (n_tokens, embed_size) array with
        an integer array of shape (batch, n_features) gives an array of
        shape (batch, n_features, embed_size); then reshape.
        """
        w = self._check_ids(w)
        ### BEGIN SOLUTION
        vectors = self.params["embeddings"][w]  # (batch, n_features, embed_size)
        return vectors.reshape(w.shape[0], self.n_features * self.embed_size)
        ### END SOLUTION

    def embedding_backward(self, w: np.ndarray, dx: np.ndarray) -> np.ndarray:
        """Gradient with respect to the embedding matrix, given dL/dx.

        Each looked-up row x[i, f*E:(f+1)*E] is a copy of embedding row
        w[i, f], so its gradient is added to that row. An id that appears
        several times (NULL, ROOT and the tag ids do in almost every
        configuration) receives the SUM of all its gradients.

        Args:
            w: (batch, n_features) the ids given to `embedding_lookup`.
            dx: (batch, n_features * embed_size) gradient of the loss with
                respect to the output of `embedding_lookup`.

        Returns:
            (n_tokens, embed_size), zero in the rows of ids not in w.

        Hint: `grad[ids] += rows` is WRONG when ids repeat: only one of the
        repeated additions survives. `np.add.at(grad, ids, rows)` adds them
        all. (np.bincount, with the `weights` argument, adds them all too,
        and is faster.)
        """
        w = self._check_ids(w)
        ### BEGIN SOLUTION
        ids = w.ravel()  # (batch * n_features,)
        rows = dx.reshape(ids.size, self.embed_size)  # gradient of each looked-up row
        # Same sums as np.add.at(grad, ids, rows), about 3x faster: number every
        # cell (id, column) of the gradient matrix and let bincount add per cell.
        cells = (ids[:, None] * self.embed_size + np.arange(self.embed_size)).ravel()
        grad = np.bincount(cells, weights=rows.ravel(), minlength=self.n_tokens * self.embed_size)
        return grad.reshape(self.n_tokens, self.embed_size)
        ### END SOLUTION

    def forward(self, w: np.ndarray, training: bool = False) -> np.ndarray:
        """Logits of the transitions for a batch of configurations.

        Args:
            w: (batch, n_features) integer token ids.
            training: apply dropout when True.

        Returns:
            logits, (batch, n_classes).

        Dropout draws its mask from self.rng (one call of dropout_forward),
        and nothing else in forward is random: two calls that start from
        the same state of self.rng drop the same units. The checks, here and
        in the autograder, rely on it to compare your backward pass with the
        mask your forward pass used.

        Store in self.cache the tuple (w, x, relu_cache, h_drop, dropout_cache):
        the ids w, the embedded batch x (batch, n_features * embed_size),
        the cache relu_forward returned, the hidden layer after dropout
        h_drop (batch, hidden_size) and the cache dropout_forward returned.
        `backward` reads that tuple. The autograder also gives your backward
        such a tuple made by a right forward pass (with your layers), in
        this order and in the order your own forward keeps, so that a bug in
        forward costs points in forward's question only.
        """
        ### BEGIN SOLUTION
        params = self.params
        x = self.embedding_lookup(w)  # (batch, n_features * embed_size)
        h, relu_cache = relu_forward(x @ params["W"] + params["b1"])  # (batch, hidden_size)
        h_drop, dropout_cache = dropout_forward(h, self.dropout_prob, training, self.rng)
        logits = h_drop @ params["U"] + params["b2"]  # (batch, n_classes)
        self.cache = (np.asarray(w), x, relu_cache, h_drop, dropout_cache)
        return logits
        ### END SOLUTION

    def backward(self, dlogits: np.ndarray) -> Params:
        """Gradients of the loss with respect to every parameter.

        Args:
            dlogits: (batch, n_classes) gradient of the loss with respect to
                the logits of the last `forward` call (e.g. the second
                output of softmax_cross_entropy). After a forward call in
                training mode, the gradient goes through the very dropout
                mask that call drew.

        Returns:
            name -> gradient, the same names and shapes as self.params.

        Read what forward stored in self.cache, the tuple its docstring
        gives, and nothing else from the forward pass.

        Hint: go through forward in reverse. For out = inp @ M + b:
        dM = inp.T @ dout, db = dout summed over the batch, and
        dinp = dout @ M.T.
        """
        if self.cache is None:
            raise RuntimeError("backward needs the cache of a forward call; call forward first")
        ### BEGIN SOLUTION
        w, x, relu_cache, h_drop, dropout_cache = self.cache
        params = self.params
        grads: Params = {}
        grads["U"] = h_drop.T @ dlogits  # (hidden_size, n_classes)
        grads["b2"] = dlogits.sum(axis=0)
        dh = dropout_backward(dlogits @ params["U"].T, dropout_cache)  # (batch, hidden_size)
        dh_pre = relu_backward(dh, relu_cache)
        grads["W"] = x.T @ dh_pre  # (n_features * embed_size, hidden_size)
        grads["b1"] = dh_pre.sum(axis=0)
        grads["embeddings"] = self.embedding_backward(w, dh_pre @ params["W"].T)
        return grads
        ### END SOLUTION


# --------------------------------------------------------------------------
# Self-check: `python parser_model.py` runs the public tests of this file's functions,
# with the same tests, messages and verdicts as the grader.
# --------------------------------------------------------------------------

if __name__ == "__main__":
    run_public_tests(__file__, "parser")
