"""Data, features and evaluation for the neural dependency parser (given code).

Everything a transition-based parser needs around its classifier lives here:

* reading CoNLL-U treebanks into `Sentence` records (`read_conllu`),
* the `Parser`: one vocabulary of word and POS-tag ids, the Chen & Manning
  (2014) feature template, the static arc-standard oracle that turns gold
  trees into training instances, and greedy parsing of whole data sets with
  your `minibatch_parse` and `ParserModel`,
* unlabeled attachment score (`uas`), and
* `load_and_preprocess_data`, which does all of the above for UD English-EWT.

Token positions: in a sentence of n words, word i (counting from 1, as in
CoNLL-U) is at position i and the artificial ROOT at position 0. Stacks,
buffers and arcs hold these positions. `PartialParse` writes ROOT as the
string "ROOT"; every function here accepts that as a synonym of 0.
"""

from __future__ import annotations

import os
import time
from bisect import insort
from collections import Counter
from dataclasses import dataclass
from os import PathLike
from pathlib import Path
from typing import Dict, Iterator, List, Optional, Sequence, Tuple, Union

import conllu
import numpy as np

# ----------------------------------------------------------------- constants

UNK = "<UNK>"  # a word (or tag) never seen in training
NULL = "<NULL>"  # an empty feature slot: no such stack word, buffer word or child
ROOT = "<ROOT>"  # the artificial root word at position 0
P_PREFIX = "<p>:"  # POS tags share the vocabulary with words, marked by this prefix

# Transition names and their class ids: the model's output row is
# (score of LA, score of RA, score of S).
TRANSITIONS = ("LA", "RA", "S")
TRANSITION_IDS = {name: i for i, name in enumerate(TRANSITIONS)}

# Feature slots that name no token hold this position; it picks NULL.
NO_TOKEN = -1

N_POSITIONS = 18  # stack, buffer and child slots of the template
N_FEATURES = 2 * N_POSITIONS  # a word id and a POS id per slot

EMBED_SIZE = 50
# Standard deviation of the random initial embeddings. There are no
# pretrained vectors for this assignment, so every row starts random. Large
# random vectors generalise better here than small ones: on EWT, std 0.1 let
# the network memorise the training words (dev UAS 1.5 points lower).
EMBED_INIT_STD = 1.0

# Words seen fewer times in training become <UNK>. With 2, the 7,800 words
# seen once train the <UNK> vector, which then serves the words of new
# text that training never saw (about 7% of EWT dev).
MIN_WORD_COUNT = 2

DATA_ENV_VARIABLE = "UD_EWT_DIR"
DATA_FOLDER = Path("shared") / "data" / "ud-english-ewt"
# Where the course's bundle puts the treebank: beside run.py, one folder above this file.
BUNDLED_DATA = Path(__file__).resolve().parent.parent / "data" / "ud-english-ewt"
SPLIT_FILES = {split: f"en_ewt-ud-{split}.conllu" for split in ("train", "dev", "test")}

# Subset sizes of the quick debugging run (train, dev, test sentences).
REDUCED_SIZES = (1000, 500, 500)


# ----------------------------------------------------------------- sentences


@dataclass
class Sentence:
    """One annotated sentence of n words, as read from a treebank.

    Attributes:
        words: the n word forms (lower-cased unless asked otherwise).
        upos: the n universal POS tags (NOUN, AUX, SCONJ, PUNCT, ...).
        xpos: the n language-specific tags (Penn Treebank tags in EWT);
            None for a word without one.
        heads: heads[i] is the position of the head of word i + 1;
            0 means the word hangs from ROOT.
        deprels: the n dependency relations (unused by this unlabeled
            parser, but kept so a treebank can be written back).
    """

    words: List[str]
    upos: List[str]
    xpos: List[Optional[str]]
    heads: List[int]
    deprels: List[str]

    def __len__(self) -> int:
        return len(self.words)

    @property
    def pos(self) -> List[str]:
        """The n tags the parser sees: "UPOS/XPOS", e.g. "AUX/VBZ" (see `parser_tag`)."""
        return [parser_tag(u, x) for u, x in zip(self.upos, self.xpos)]

    @property
    def punct(self) -> List[bool]:
        """Per word: is it punctuation? (UPOS PUNCT; used by UAS without punctuation)."""
        return [tag == "PUNCT" for tag in self.upos]


def parser_tag(upos: str, xpos: Optional[str]) -> str:
    """The POS tag the parser uses for a word: both tags joined, "UPOS/XPOS".

    Each tag set draws distinctions the other does not. The Penn tag IN
    covers prepositions (UD: ADP, attached to their noun) as well as
    subordinating conjunctions (SCONJ, attached to the verb of their
    clause); VBZ covers main verbs (VERB) and auxiliaries (AUX); UPOS in
    turn lumps all verb forms together. On EWT the pair gives about 1.5
    points more dev UAS than Penn tags alone. Without an XPOS, UPOS alone.
    """
    return f"{upos}/{xpos}" if xpos else upos


@dataclass
class EncodedSentence:
    """A sentence turned into vocabulary ids, ready for feature extraction.

    Attributes:
        word_ids: (n + 1,) int; word_ids[k] is the id of the word at
            position k, so word_ids[0] is the id of <ROOT>.
        pos_ids: (n + 1,) int; the same for POS tags (<p>:<ROOT> first).
        heads: (n,) int, the gold heads, as in `Sentence.heads`.
        punct: (n,) bool, which words are punctuation.
    """

    word_ids: np.ndarray
    pos_ids: np.ndarray
    heads: np.ndarray
    punct: np.ndarray

    def __len__(self) -> int:
        return len(self.heads)


AnySentence = Union[Sentence, EncodedSentence]


def read_conllu(
    path: Union[str, PathLike], lowercase: bool = True, max_sentences: Optional[int] = None
) -> List[Sentence]:
    """Read the basic dependency trees of a CoNLL-U file.

    Only syntactic words are kept: comment lines, multi-word token ranges
    (ids like 3-4) and empty nodes of enhanced graphs (ids like 8.1) are
    skipped, as the basic tree never points at them. Both tag columns are
    kept: UPOS (column 4) and XPOS (column 5, Penn Treebank tags in EWT);
    the parser uses the pair (`Sentence.pos`).

    Args:
        path: a .conllu file.
        lowercase: lower-case the word forms (fewer, better-trained words).
        max_sentences: stop after this many sentences (None: read them all).

    Returns:
        The sentences in file order.
    """

    def keep_raw(line: List[str], i: int) -> str:
        return line[i]

    # Morphological features and enhanced dependencies are not needed;
    # leaving them unparsed makes reading about twice as fast.
    skip_parsing = {"feats": keep_raw, "deps": keep_raw, "misc": keep_raw}
    sentences: List[Sentence] = []
    with open(path, encoding="utf-8") as handle:
        for token_list in conllu.parse_incr(handle, field_parsers=skip_parsing):
            if max_sentences is not None and len(sentences) >= max_sentences:
                break
            # conllu gives plain ints as ids of words, tuples otherwise.
            words = [t for t in token_list if isinstance(t["id"], int)]
            if words:
                sentences.append(_sentence_from_tokens(words, lowercase))
    return sentences


def _sentence_from_tokens(tokens: Sequence[dict], lowercase: bool) -> Sentence:
    forms = [t["form"] for t in tokens]
    return Sentence(
        words=[form.lower() for form in forms] if lowercase else forms,
        upos=[t["upos"] for t in tokens],
        xpos=[t["xpos"] if t["xpos"] != "_" else None for t in tokens],  # conllu reads "_" as None
        heads=[int(t["head"]) for t in tokens],
        deprels=[t["deprel"] for t in tokens],
    )


def is_projective(heads: Sequence[int]) -> bool:
    """Whether no two arcs of the tree cross (heads as in `Sentence.heads`)."""
    arcs = [tuple(sorted((head, dependent))) for dependent, head in enumerate(heads, start=1)]
    for left, right in arcs:
        for other_left, other_right in arcs:
            if left < other_left < right < other_right:
                return False
    return True


# ------------------------------------------------------------------- children


def _position(token: Union[int, str]) -> int:
    """The position of a stack, buffer or arc entry; "ROOT" is position 0."""
    return 0 if token == "ROOT" else token


class Children:
    """The dependents found so far of every token, split into left and right.

    Both lists of a head are kept sorted by position, so the leftmost left
    child is left[0] and the rightmost right child is right[-1]. Adding one
    arc at a time keeps feature extraction cheap during parsing: nothing
    is recomputed from the full list of arcs.
    """

    def __init__(self) -> None:
        self.left: Dict[int, List[int]] = {}
        self.right: Dict[int, List[int]] = {}

    @classmethod
    def from_arcs(cls, arcs: Sequence[Tuple[Union[int, str], Union[int, str]]]) -> "Children":
        children = cls()
        for head, dependent in arcs:
            children.add(head, dependent)
        return children

    def add(self, head: Union[int, str], dependent: Union[int, str]) -> None:
        head, dependent = _position(head), _position(dependent)
        side = self.left if dependent < head else self.right
        insort(side.setdefault(head, []), dependent)

    def leftmost(self, head: int, k: int = 1) -> int:
        """The k-th leftmost left child of `head` (k = 1 or 2), or NO_TOKEN."""
        left = self.left.get(head, ())
        return left[k - 1] if len(left) >= k else NO_TOKEN

    def rightmost(self, head: int, k: int = 1) -> int:
        """The k-th rightmost right child of `head` (k = 1 or 2), or NO_TOKEN."""
        right = self.right.get(head, ())
        return right[-k] if len(right) >= k else NO_TOKEN


# ------------------------------------------------------------------ features


def feature_positions(stack: Sequence, buffer: Sequence, children: Children) -> List[int]:
    """Positions of the 18 tokens the Chen & Manning template looks at.

    In this order: s1, s2, s3 (stack, top first), b1, b2, b3 (buffer, front
    first), then for s1 and again for s2: lc1, rc1, lc2, rc2, lc1(lc1),
    rc1(rc1), where lc1/lc2 are the leftmost and second leftmost left
    children and rc1/rc2 the rightmost and second rightmost right children.
    A slot with no such token holds NO_TOKEN.
    """
    s1, s2, s3 = (_position(stack[-k]) if len(stack) >= k else NO_TOKEN for k in (1, 2, 3))
    b1, b2, b3 = (buffer[k] if len(buffer) > k else NO_TOKEN for k in (0, 1, 2))
    positions = [s1, s2, s3, b1, b2, b3]
    for head in (s1, s2):
        # NO_TOKEN has no children, so a missing s2 gives six NO_TOKENs.
        lc1, rc1 = children.leftmost(head), children.rightmost(head)
        positions += [
            lc1,
            rc1,
            children.leftmost(head, 2),
            children.rightmost(head, 2),
            children.leftmost(lc1),
            children.rightmost(rc1),
        ]
    return positions


def legal_transitions(stack: Sequence, buffer: Sequence) -> Tuple[bool, bool, bool]:
    """Which of (LA, RA, S) may be applied: ROOT can never become a dependent."""
    return len(stack) > 2, len(stack) >= 2, len(buffer) > 0


# -------------------------------------------------------------------- parser


@dataclass
class Instances:
    """Training instances: one parser configuration and its gold transition per row.

    Attributes:
        features: (N, 36) int, the feature ids of each configuration.
        labels: (N,) int, the gold transition's class id (see TRANSITIONS).
        legal: (N, 3) bool, which transitions were legal in that configuration.
        n_dropped: sentences left out because their tree is non-projective.
    """

    features: np.ndarray
    labels: np.ndarray
    legal: np.ndarray
    n_dropped: int = 0

    def __len__(self) -> int:
        return len(self.labels)


class Parser:
    """Vocabulary, features, oracle and greedy parsing around a `ParserModel`.

    Words and POS tags share one id space (and so one embedding matrix):
    words from most to least frequent, then <UNK>, <NULL>, <ROOT>; then
    tags as "<p>:TAG", then <p>:<UNK>, <p>:<NULL>, <p>:<ROOT>. Only words
    seen at least `min_count` times in training get their own id.

    Attributes:
        tok2id, id2tok: the vocabulary, both ways.
        n_tokens: its size, the number of rows of the embedding matrix.
        n_features: 36, the length of a feature vector.
        transitions: ("LA", "RA", "S"); a transition's class id is its index.
        model: the ParserModel used by `parse` (set it after building one).
        rng: the random generator that shuffles training minibatches.
    """

    n_features = N_FEATURES
    transitions = TRANSITIONS

    def __init__(
        self, train_sentences: Sequence[Sentence], min_count: int = MIN_WORD_COUNT, seed: int = 0
    ) -> None:
        word_counts = Counter(word for sentence in train_sentences for word in sentence.words)
        tag_counts = Counter(tag for sentence in train_sentences for tag in sentence.pos)
        words = _by_frequency(word_counts, min_count) + [UNK, NULL, ROOT]
        tags = _by_frequency(tag_counts, 1) + [UNK, NULL, ROOT]
        self.id2tok: List[str] = words + [P_PREFIX + tag for tag in tags]
        self.tok2id: Dict[str, int] = {token: i for i, token in enumerate(self.id2tok)}
        self.n_tokens = len(self.id2tok)

        self.UNK, self.NULL, self.ROOT = (self.tok2id[t] for t in (UNK, NULL, ROOT))
        self.P_UNK, self.P_NULL, self.P_ROOT = (self.tok2id[P_PREFIX + t] for t in (UNK, NULL, ROOT))
        self.model = None
        self.rng = np.random.default_rng(seed)

    # ---------------------------------------------------------- ids

    def encode(self, sentence: AnySentence) -> EncodedSentence:
        """Word and tag ids of one sentence, with ROOT prepended."""
        if isinstance(sentence, EncodedSentence):
            return sentence
        word_ids = [self.ROOT] + [self.tok2id.get(word, self.UNK) for word in sentence.words]
        pos_ids = [self.P_ROOT] + [self.tok2id.get(P_PREFIX + tag, self.P_UNK) for tag in sentence.pos]
        return EncodedSentence(
            word_ids=np.array(word_ids),
            pos_ids=np.array(pos_ids),
            heads=np.array(sentence.heads, dtype=int),
            punct=np.array(sentence.punct, dtype=bool),
        )

    def vectorize(self, sentences: Sequence[AnySentence]) -> List[EncodedSentence]:
        """`encode` every sentence (encoded ones are passed through)."""
        return [self.encode(sentence) for sentence in sentences]

    def _ids_at(self, positions: np.ndarray, sentence: EncodedSentence) -> np.ndarray:
        """(..., 18) positions in `sentence` -> (..., 36) word ids then POS ids."""
        # One NULL appended at the end: position NO_TOKEN = -1 reads it.
        words = np.append(sentence.word_ids, self.NULL)
        tags = np.append(sentence.pos_ids, self.P_NULL)
        return np.concatenate([words[positions], tags[positions]], axis=-1)

    def extract_features(
        self, stack: Sequence, buf: Sequence, arcs: Sequence[Tuple], sentence: AnySentence
    ) -> List[int]:
        """The 36 feature ids of one parser configuration.

        Args:
            stack: positions on the stack, top last; ROOT as 0 or "ROOT".
            buf: positions in the buffer, front first.
            arcs: the (head, dependent) pairs found so far.
            sentence: the sentence being parsed (encoded or not).

        Returns:
            18 word ids, then 18 POS ids of the same slots (see
            `feature_positions` for their order). The inputs are not changed.
        """
        positions = feature_positions(stack, buf, Children.from_arcs(arcs))
        return self._ids_at(np.array(positions), self.encode(sentence)).tolist()

    # ---------------------------------------------------------- oracle

    @staticmethod
    def get_oracle(stack: Sequence, buf: Sequence, sentence: AnySentence) -> Optional[str]:
        """The static arc-standard oracle: the transition that rebuilds the gold tree.

        LA when s2 is a word (not ROOT) whose gold head is s1; RA when s1's
        gold head is s2 and no word left in the buffer has s1 as its head
        (reducing s1 earlier would orphan them); S otherwise. None when the
        buffer is empty and neither arc is gold: the tree is non-projective.
        """
        if len(stack) >= 2:
            s1, s2 = _position(stack[-1]), _position(stack[-2])
            if s2 != 0 and sentence.heads[s2 - 1] == s1:
                return "LA"
            if sentence.heads[s1 - 1] == s2 and all(sentence.heads[b - 1] != s1 for b in buf):
                return "RA"
        return "S" if buf else None

    def _oracle_run(self, sentence: EncodedSentence) -> Optional[Tuple[List[List[int]], List[int], List[Tuple]]]:
        """Feature positions, gold labels and legal masks of every oracle step, or None."""
        stack, buf, children = [0], list(range(1, len(sentence) + 1)), Children()
        positions, labels, legal = [], [], []
        while buf or len(stack) > 1:
            transition = self.get_oracle(stack, buf, sentence)
            if transition is None:
                return None
            positions.append(feature_positions(stack, buf, children))
            labels.append(TRANSITION_IDS[transition])
            legal.append(legal_transitions(stack, buf))
            _apply(transition, stack, buf, children)
        return positions, labels, legal

    def create_instances(self, sentences: Sequence[AnySentence]) -> Instances:
        """Run the oracle on every sentence and collect its configurations.

        Each sentence gives one instance per transition of its gold
        sequence.
        Non-projective sentences cannot be rebuilt by arc-standard
        transitions; they are dropped and counted in `n_dropped`.
        """
        features, labels, legal = [], [], []
        n_dropped = 0
        for sentence in self.vectorize(sentences):
            run = self._oracle_run(sentence)
            if run is None:
                n_dropped += 1
                continue
            features.append(self._ids_at(np.array(run[0]), sentence))
            labels.extend(run[1])
            legal.extend(run[2])
        return Instances(
            features=np.concatenate(features) if features else np.zeros((0, N_FEATURES), dtype=int),
            labels=np.array(labels, dtype=int),
            legal=np.array(legal, dtype=bool).reshape(-1, len(TRANSITIONS)),
            n_dropped=n_dropped,
        )

    # ---------------------------------------------------------- parsing

    def parse(
        self, sentences: Sequence[AnySentence], model=None, batch_size: int = 5000
    ) -> Tuple[float, float, List[np.ndarray]]:
        """Parse the sentences greedily with `minibatch_parse` and score them.

        Args:
            sentences: gold-annotated sentences (encoded or not).
            model: a ParserModel; default `self.model`.
            batch_size: how many sentences advance together; one forward
                pass scores a whole batch of configurations.

        Returns:
            (UAS, UAS without punctuation, predicted heads), both scores in
            percent; predicted heads hold one (n,) int array per sentence.
        """
        sentences = self.vectorize(sentences)
        dependencies = self.parse_arcs(sentences, model, batch_size)
        predicted = [
            _heads_from_arcs(arcs, len(s), i) for i, (arcs, s) in enumerate(zip(dependencies, sentences))
        ]
        return uas(predicted, sentences), uas(predicted, sentences, include_punct=False), predicted

    def parse_arcs(
        self, sentences: Sequence[AnySentence], model=None, batch_size: int = 5000
    ) -> List[List[Tuple]]:
        """The arcs `minibatch_parse` finds for each sentence, in the order of `sentences`.

        Words are numbered from 1 in each sentence; arcs are (head,
        dependent) pairs of those numbers, with "ROOT" as the root's head.
        """
        from parser_transitions import minibatch_parse  # your code, imported when needed

        sentences = self.vectorize(sentences)
        predictor = _BatchPredictor(self, model if model is not None else self.model, sentences)
        dependencies = minibatch_parse(predictor.token_lists, predictor, batch_size)
        if len(dependencies) != len(sentences):
            raise ValueError(
                f"minibatch_parse returned {len(dependencies)} dependency lists for {len(sentences)} sentences"
            )
        return dependencies


def _by_frequency(counts: Counter, min_count: int) -> List[str]:
    """Items seen at least min_count times, most frequent first, ties alphabetical."""
    return sorted((item for item, n in counts.items() if n >= min_count), key=lambda item: (-counts[item], item))


def _apply(transition: str, stack: List[int], buf: List[int], children: Children) -> None:
    """One arc-standard step on plain lists, recording any new arc in `children`."""
    if transition == "S":
        stack.append(buf.pop(0))
    elif transition == "LA":
        children.add(stack[-1], stack.pop(-2))
    else:
        dependent = stack.pop()
        children.add(stack[-1], dependent)


def _heads_from_arcs(arcs: Sequence[Tuple], n_words: int, index: int = 0) -> np.ndarray:
    """(n,) heads from (head, dependent) pairs; -1 for a word left without one.

    Raises ValueError for an arc to a word that sentence `index` (of
    n_words words) does not have, which is what the arcs of another
    sentence look like.
    """
    heads = np.full(n_words, -1)
    for head, dependent in arcs:
        position = _position(dependent)
        if not 1 <= position <= n_words:
            raise ValueError(
                f"minibatch_parse returned, for sentence {index} ({n_words} words), an arc to word "
                f"{position}, which that sentence does not have: are its results in the order of the "
                "sentences?"
            )
        heads[position - 1] = _position(head)
    return heads


class _BatchPredictor:
    """Lets `minibatch_parse` call the model on many partial parses at once.

    minibatch_parse only calls `predict(partial_parses)`. To find a parse's
    sentence, each sentence is handed over as its own list of positions
    [1, ..., n], which PartialParse keeps as `.sentence`. Children of every
    parse are updated from its newest arcs only, and the ids of all
    sentences live in one array so that a single fancy index (per call)
    turns the positions of the whole batch into feature ids.
    """

    def __init__(self, parser: Parser, model, sentences: Sequence[EncodedSentence]) -> None:
        if model is None:
            raise ValueError("no model to parse with: set parser.model or pass model=")
        self.model = model
        self.token_lists = [list(range(1, len(s) + 1)) for s in sentences]
        self._sentence_of = {id(tokens): i for i, tokens in enumerate(self.token_lists)}
        # Sentence i occupies [offsets[i], offsets[i] + n_i + 1); NULL is last.
        lengths = np.array([len(s) + 1 for s in sentences])
        self._offsets = (np.cumsum(lengths) - lengths).tolist()
        self._word_ids = np.concatenate([s.word_ids for s in sentences] + [[parser.NULL]])
        self._pos_ids = np.concatenate([s.pos_ids for s in sentences] + [[parser.P_NULL]])
        self._children: Dict[int, Tuple[object, Children, List[int]]] = {}

    def _children_of(self, parse) -> Children:
        """Children of `parse`, brought up to date with the arcs added since the last call."""
        entry = self._children.get(id(parse))
        if entry is None or entry[0] is not parse:
            entry = (parse, Children(), [0])
            self._children[id(parse)] = entry
        _, children, n_seen = entry
        for head, dependent in parse.dependencies[n_seen[0] :]:
            children.add(head, dependent)
        n_seen[0] = len(parse.dependencies)
        return children

    def _offset_of(self, parse) -> int:
        index = self._sentence_of.get(id(parse.sentence))
        if index is None:
            raise ValueError("PartialParse must keep the very list it was given as self.sentence")
        return self._offsets[index]

    def features(self, parses: Sequence) -> Tuple[np.ndarray, np.ndarray]:
        """(B, 36) feature ids and (B, 3) legal-transition masks of the parses."""
        positions, offsets, legal = [], [], []
        for parse in parses:
            positions.append(feature_positions(parse.stack, parse.buffer, self._children_of(parse)))
            offsets.append(self._offset_of(parse))
            legal.append(legal_transitions(parse.stack, parse.buffer))
        positions = np.array(positions)
        rows = np.where(positions == NO_TOKEN, -1, positions + np.array(offsets)[:, None])
        features = np.concatenate([self._word_ids[rows], self._pos_ids[rows]], axis=1)
        return features, np.array(legal, dtype=bool)

    def predict(self, parses: Sequence) -> List[str]:
        """The model's best legal transition for every partial parse."""
        features, legal = self.features(parses)
        logits = self.model.forward(features, training=False)
        best = np.where(legal, logits, -np.inf).argmax(axis=1)
        return [TRANSITIONS[i] for i in best]


# ---------------------------------------------------------------- evaluation


def uas(predicted_heads: Sequence[Sequence[int]], sentences: Sequence[AnySentence], include_punct: bool = True) -> float:
    """Unlabeled attachment score in percent: words whose predicted head is right.

    Args:
        predicted_heads: one sequence of n heads per sentence.
        sentences: the gold sentences, in the same order.
        include_punct: count punctuation words too (False: skip them).
    """
    correct = total = 0
    for predicted, sentence in zip(predicted_heads, sentences):
        hits = np.asarray(predicted) == np.asarray(sentence.heads)
        counted = np.ones(len(hits), dtype=bool) if include_punct else ~np.asarray(sentence.punct, dtype=bool)
        correct += int(hits[counted].sum())
        total += int(counted.sum())
    return 100.0 * correct / max(total, 1)


# ---------------------------------------------------------------- minibatches


def minibatches(
    data: Instances, batch_size: int, rng: Optional[np.random.Generator] = None
) -> Iterator[Tuple[np.ndarray, np.ndarray]]:
    """Yield (features (B, 36), labels (B,)) batches in a fresh random order.

    Every instance appears exactly once; the last batch may be smaller.
    """
    rng = rng if rng is not None else np.random.default_rng()
    order = rng.permutation(len(data))
    for start in range(0, len(order), batch_size):
        rows = order[start : start + batch_size]
        yield data.features[rows], data.labels[rows]


# ------------------------------------------------------------- data loading


def find_data_dir(data: Optional[Union[str, PathLike]] = None) -> Path:
    """The folder holding UD English-EWT.

    `data` if given, else $UD_EWT_DIR, else data/ud-english-ewt beside run.py
    (where the bundle from your course has it), else the first
    shared/data/ud-english-ewt found in this file's folder or one above it.

    Raises:
        FileNotFoundError: with advice on --data, if no folder is found.
    """
    if data is None and os.environ.get(DATA_ENV_VARIABLE):
        data = os.environ[DATA_ENV_VARIABLE]
    if data is None and BUNDLED_DATA.is_dir():
        data = BUNDLED_DATA
    if data is None:
        here = Path(__file__).resolve().parent
        for folder in [here, *here.parents]:
            if (folder / DATA_FOLDER).is_dir():
                return folder / DATA_FOLDER
        raise FileNotFoundError(
            "cannot find UD English-EWT. The bundle from your course has it in "
            "data/ud-english-ewt beside run.py; else download it from "
            "https://github.com/UniversalDependencies/UD_English-EWT and pass "
            f"--data PATH (the folder with {SPLIT_FILES['train']}), or set "
            f"{DATA_ENV_VARIABLE} to that folder."
        )
    folder = Path(data)
    if not (folder / SPLIT_FILES["train"]).is_file():
        raise FileNotFoundError(f"{folder} does not hold {SPLIT_FILES['train']}; pass --data with the EWT folder.")
    return folder


def random_embeddings(n_tokens: int, embed_size: int = EMBED_SIZE, seed: int = 0) -> np.ndarray:
    """(n_tokens, embed_size) initial embeddings drawn from N(0, EMBED_INIT_STD^2).

    The original assignment started from pretrained word vectors; none
    ship with this one, so all rows (words and tags alike) start random.
    """
    rng = np.random.default_rng(seed)
    return rng.normal(0.0, EMBED_INIT_STD, size=(n_tokens, embed_size))


def prepare_data(
    train: Sequence[Sentence],
    dev: Sequence[Sentence],
    test: Sequence[Sentence],
    seed: int = 0,
    embed_size: int = EMBED_SIZE,
    verbose: bool = True,
) -> Tuple[Parser, np.ndarray, Instances, List[EncodedSentence], List[EncodedSentence]]:
    """Build the parser and everything training needs from three lists of sentences.

    Returns:
        (parser, embeddings (n_tokens, embed_size), training instances,
        encoded dev sentences, encoded test sentences).
    """
    say = print if verbose else (lambda *args, **kwargs: None)
    began = time.perf_counter()
    parser = Parser(train, seed=seed)
    embeddings = random_embeddings(parser.n_tokens, embed_size, seed)
    instances = parser.create_instances(train)
    say(
        f"Vocabulary of {parser.n_tokens} words and tags; {len(instances)} training instances from "
        f"{len(train) - instances.n_dropped} sentences ({instances.n_dropped} non-projective ones dropped); "
        f"took {time.perf_counter() - began:.1f} s"
    )
    return parser, embeddings, instances, parser.vectorize(dev), parser.vectorize(test)


def load_and_preprocess_data(
    data_dir: Optional[Union[str, PathLike]] = None,
    reduced: bool = False,
    seed: int = 0,
    embed_size: int = EMBED_SIZE,
    lowercase: bool = True,
    verbose: bool = True,
) -> Tuple[Parser, np.ndarray, Instances, List[EncodedSentence], List[EncodedSentence]]:
    """Read UD English-EWT and prepare it for training (see `prepare_data`).

    Args:
        data_dir: the EWT folder (default: `find_data_dir()`).
        reduced: keep only the first REDUCED_SIZES sentences of train, dev
            and test, for a quick debugging run.
        seed: seeds the embeddings and the minibatch order.
    """
    folder = find_data_dir(data_dir)
    limits = REDUCED_SIZES if reduced else (None, None, None)
    began = time.perf_counter()
    train, dev, test = (
        read_conllu(folder / SPLIT_FILES[split], lowercase=lowercase, max_sentences=limit)
        for split, limit in zip(("train", "dev", "test"), limits)
    )
    if verbose:
        print(
            f"Read {len(train)} train, {len(dev)} dev and {len(test)} test sentences from {folder} "
            f"in {time.perf_counter() - began:.1f} s"
        )
    return prepare_data(train, dev, test, seed=seed, embed_size=embed_size, verbose=verbose)
