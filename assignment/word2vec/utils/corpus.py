"""A tokenised corpus that serves training windows and negative samples.

All randomness goes through Python's `random` module, one `random.random()`
(or `random.randrange`) call per decision. Seeding `random` therefore
reproduces a training run, and restoring its state (as the gradient checker
does) reproduces the very same negative samples.
"""

from __future__ import annotations

import bisect
import random
from collections import Counter
from collections.abc import Iterable, Sequence
from os import PathLike

import conllu
import numpy as np

UNK = "<unk>"

# Negative samples are drawn from the unigram distribution raised to 3/4
# (Mikolov et al., 2013), which gives rare words a little more weight.
SAMPLING_POWER = 0.75

# Frequent words are sub-sampled (Mikolov et al., 2013): a word making up a
# fraction f of the corpus is kept with probability sqrt(t/f) + t/f (at most
# 1), with t = DEFAULT_SUBSAMPLE. "the", "." and "<unk>" then stop flooding
# every window, which gives visibly better vectors for the same training time.
DEFAULT_SUBSAMPLE = 1e-3

# Words seen fewer times become "<unk>". On UD English-EWT train (about
# 205k words) 15 keeps about 1,460 word types. Training time grows with the
# vocabulary, because every loss returns a dense (|V|, d) gradient.
DEFAULT_MIN_COUNT = 15


class Corpus:
    """Sentences of lower-cased words plus the statistics word2vec needs.

    Words seen fewer than `min_count` times are replaced by "<unk>": they
    would get too few updates to learn anything, and a smaller vocabulary
    makes every dense (|V|, d) gradient cheaper. `subsample` is the
    threshold t of frequent-word sub-sampling; None turns it off.
    """

    def __init__(
        self,
        sentences: Iterable[Sequence[str]],
        min_count: int = DEFAULT_MIN_COUNT,
        subsample: float | None = DEFAULT_SUBSAMPLE,
    ) -> None:
        sentences = [list(sentence) for sentence in sentences]
        counts = Counter(word for sentence in sentences for word in sentence)
        if not counts:
            raise ValueError("the corpus has no words")

        # Most frequent first; ties broken alphabetically so that the
        # indices do not depend on the order of the sentences.
        kept = sorted(
            (w for w, n in counts.items() if n >= min_count), key=lambda w: (-counts[w], w)
        )
        self._words: list[str] = [UNK] + [w for w in kept if w != UNK]
        self._word2ind: dict[str, int] = {w: i for i, w in enumerate(self._words)}

        self._tokens: list[str] = []  # every sentence, one after the other
        self._sentence_start: list[int] = []  # per token: where its sentence starts
        self._sentence_end: list[int] = []  # per token: one past where it ends
        has_context = False  # does some sentence hold two different words?
        for sentence in sentences:
            start, end = len(self._tokens), len(self._tokens) + len(sentence)
            words = [w if w in self._word2ind else UNK for w in sentence]
            self._tokens.extend(words)
            self._sentence_start.extend([start] * len(sentence))
            self._sentence_end.extend([end] * len(sentence))
            has_context = has_context or len(set(words)) > 1
        if not has_context:
            # get_random_context would search forever.
            raise ValueError("no sentence has two different words: there are no contexts")

        token_counts = Counter(self._tokens)
        self._counts = np.array([token_counts[w] for w in self._words], dtype=float)
        self._cumulative = self._cumulative_sampling_table(self._counts)
        self._keep_probability = self._keep_probabilities(self._counts, subsample)

    @classmethod
    def from_conllu(
        cls,
        path: str | PathLike,
        max_sentences: int | None = None,
        min_count: int = DEFAULT_MIN_COUNT,
        subsample: float | None = DEFAULT_SUBSAMPLE,
    ) -> Corpus:
        """Read the FORM column of a CoNLL-U file, lower-cased.

        Multi-word token ranges (ids like 3-4) and empty nodes (ids like
        8.1) are skipped: only the syntactic words themselves are kept.
        """
        sentences: list[list[str]] = []
        with open(path, encoding="utf-8") as handle:
            for token_list in conllu.parse_incr(handle):
                if max_sentences is not None and len(sentences) >= max_sentences:
                    break
                # conllu gives plain ints for word lines, tuples otherwise.
                words = [t["form"].lower() for t in token_list if isinstance(t["id"], int)]
                if words:
                    sentences.append(words)
        return cls(sentences, min_count=min_count, subsample=subsample)

    @staticmethod
    def _cumulative_sampling_table(counts: np.ndarray) -> list[float]:
        """Cumulative unigram**0.75 probabilities, as a plain Python list.

        A plain list because `bisect` on it is several times faster than a
        per-sample call of np.searchsorted, and the sampler runs millions of
        times during training.
        """
        weights = counts**SAMPLING_POWER
        cumulative = np.cumsum(weights / weights.sum())
        cumulative[-1] = 1.0  # so rounding can never leave a gap at the top
        return cumulative.tolist()

    def _keep_probabilities(self, counts: np.ndarray, subsample: float | None) -> dict[str, float]:
        """Word -> probability that sub-sampling keeps one of its tokens."""
        if subsample is None:
            keep = np.ones_like(counts)
        else:
            # max(...) only guards an unused "<unk>" with count 0.
            ratio = subsample / np.maximum(counts / counts.sum(), 1e-12)
            keep = np.minimum(1.0, np.sqrt(ratio) + ratio)
        return dict(zip(self._words, keep.tolist(), strict=True))

    # ----------------------------------------------------------- vocabulary

    def tokens(self) -> dict[str, int]:
        """A new dict mapping every vocabulary word (and "<unk>") to its index."""
        return dict(self._word2ind)

    def words(self) -> list[str]:
        """The vocabulary in index order: words()[i] is the word with index i."""
        return list(self._words)

    def count(self, word: str) -> int:
        """How often `word` occurs in the corpus (after the "<unk>" mapping)."""
        index = self._word2ind.get(word)
        return 0 if index is None else int(self._counts[index])

    @property
    def num_tokens(self) -> int:
        return len(self._tokens)

    # ------------------------------------------------------------- sampling

    def sample_token_idx(self) -> int:
        """Draw one word index from the unigram**0.75 distribution."""
        # Index i owns the interval [cumulative[i-1], cumulative[i]).
        return bisect.bisect_right(self._cumulative, random.random())

    def get_random_context(self, C: int) -> tuple[str, list[str]]:
        """Pick a random token and up to C words on each side of it.

        Sub-sampling acts first, as if the discarded tokens had been deleted
        from the sentence: a discarded center is replaced by another random
        token, and the window reaches past discarded neighbours. The window
        stops at the sentence boundaries, and copies of the center word are
        dropped from the context. If nothing is left (a one-word sentence,
        say) another token is tried.

        Returns:
            (center_word, context_words), all of them strings.
        """
        while True:
            i = random.randrange(len(self._tokens))
            center = self._tokens[i]
            if not self._keeps(center):
                continue
            before = self._kept_neighbours(i, -1, self._sentence_start[i] - 1, C)
            after = self._kept_neighbours(i, +1, self._sentence_end[i], C)
            context = [w for w in before[::-1] + after if w != center]
            if context:
                return center, context

    def _keeps(self, word: str) -> bool:
        """One sub-sampling decision; words that are always kept cost no draw."""
        probability = self._keep_probability[word]
        return probability >= 1.0 or random.random() < probability

    def _kept_neighbours(self, i: int, direction: int, stop: int, C: int) -> list[str]:
        """Up to C kept tokens met walking from token i towards `stop` (exclusive)."""
        words: list[str] = []
        for j in range(i + direction, stop, direction):
            if len(words) == C:
                break
            if self._keeps(self._tokens[j]):
                words.append(self._tokens[j])
        return words
