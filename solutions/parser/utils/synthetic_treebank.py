"""A small, deterministic, made-up treebank for quick runs and tests (given code).

Sentences come from a toy English grammar: a subject noun phrase, a verb
(maybe with an auxiliary or an adverb), an object or a "that" clause,
prepositional phrases and an optional final full stop. Trees follow UD
conventions (determiners, adjectives and prepositions hang from their
noun, the verb is the root) and are projective by construction.

Heads are learnable from words and tags alone: a prepositional phrase
with "of" or "with" attaches to the noun just before it, one with "in",
"near" or "after" to the verb. A parser trained on a few hundred
sentences for a couple of epochs should reach a UAS well above 80 on
held-out ones.

    from utils.synthetic_treebank import make_treebank, write_conllu
    train = make_treebank(500, seed=0)          # list of Sentence records
    write_conllu(train, "/tmp/synthetic-train.conllu")
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from os import PathLike
from pathlib import Path
from typing import List, Sequence, Tuple, Union

from .parser_utils import SPLIT_FILES, Sentence

# (form, XPOS, UPOS) entries of the lexicon, by role.
DETERMINERS = [(w, "DT", "DET") for w in ("the", "a", "this", "every", "that")]
ADJECTIVES = [(w, "JJ", "ADJ") for w in ("big", "small", "old", "young", "red", "happy", "quiet", "strange")]
NOUNS = [
    (w, "NN", "NOUN")
    for w in ("dog", "cat", "man", "woman", "child", "teacher", "house", "garden", "park", "river",
              "book", "letter", "car", "city", "friend", "table", "hat", "song")
]
NAMES = [(w, "NNP", "PROPN") for w in ("john", "mary", "paris", "alice")]
PRONOUNS = [(w, "PRP", "PRON") for w in ("he", "she", "they", "we")]
TRANSITIVE = [(w, "VBD", "VERB") for w in ("saw", "liked", "found", "took", "watched", "painted")]
INTRANSITIVE = [(w, "VBD", "VERB") for w in ("slept", "laughed", "arrived", "waited", "sang")]
CLAUSAL = [(w, "VBD", "VERB") for w in ("said", "thought", "knew")]
BARE_TRANSITIVE = [(w, "VB", "VERB") for w in ("see", "like", "find", "take", "watch")]
BARE_INTRANSITIVE = [(w, "VB", "VERB") for w in ("sleep", "laugh", "wait")]
AUXILIARIES = [(w, "MD", "AUX") for w in ("will", "can", "might")]
PRE_ADVERBS = [(w, "RB", "ADV") for w in ("often", "never", "quietly")]
POST_ADVERBS = [(w, "RB", "ADV") for w in ("yesterday", "quickly", "again")]
NOUN_PREPOSITIONS = [(w, "IN", "ADP") for w in ("of", "with")]  # attach to the noun before
VERB_PREPOSITIONS = [(w, "IN", "ADP") for w in ("in", "near", "after")]  # attach to the verb
COMPLEMENTIZER = ("that", "IN", "SCONJ")
FULL_STOP = (".", ".", "PUNCT")

MAX_NOUN_DEPTH = 2  # how deeply noun phrases may nest through "of"/"with" phrases


@dataclass
class _Node:
    """A word with its dependents on each side, each list in sentence order."""

    form: str
    xpos: str
    upos: str
    deprel: str
    left: List["_Node"] = field(default_factory=list)
    right: List["_Node"] = field(default_factory=list)


def _node(entry: Tuple[str, str, str], deprel: str) -> _Node:
    return _Node(*entry, deprel=deprel)


# ------------------------------------------------------------------ grammar


def _noun_phrase(rng: random.Random, deprel: str, depth: int = 0) -> _Node:
    """A pronoun (subjects only), a name, or DET ADJ* NOUN with maybe one PP."""
    roll = rng.random()
    if deprel == "nsubj" and roll < 0.15:
        return _node(rng.choice(PRONOUNS), deprel)
    if roll < 0.25:
        return _node(rng.choice(NAMES), deprel)
    noun = _node(rng.choice(NOUNS), deprel)
    noun.left.append(_node(rng.choice(DETERMINERS), "det"))
    for _ in range(rng.choice((0, 0, 1, 1, 2))):
        noun.left.append(_node(rng.choice(ADJECTIVES), "amod"))
    if depth < MAX_NOUN_DEPTH and rng.random() < 0.3:
        noun.right.append(_prepositional_phrase(rng, NOUN_PREPOSITIONS, "nmod", depth + 1))
    return noun


def _prepositional_phrase(rng: random.Random, prepositions: Sequence, deprel: str, depth: int) -> _Node:
    """PREP NP in UD style: the noun heads the phrase, the preposition is its `case`."""
    noun = _noun_phrase(rng, deprel, depth)
    noun.left.insert(0, _node(rng.choice(prepositions), "case"))
    return noun


def _clause(rng: random.Random, deprel: str, embedded: bool = False) -> _Node:
    """Subject, verb and what follows the verb; the verb heads the clause."""
    kind = rng.choices(("transitive", "intransitive", "clausal"), weights=(5, 3, 0 if embedded else 2))[0]
    with_auxiliary = kind != "clausal" and rng.random() < 0.2
    if with_auxiliary:
        verb = _node(rng.choice(BARE_TRANSITIVE if kind == "transitive" else BARE_INTRANSITIVE), deprel)
    else:
        verb = _node(rng.choice({"transitive": TRANSITIVE, "intransitive": INTRANSITIVE, "clausal": CLAUSAL}[kind]), deprel)

    verb.left.append(_noun_phrase(rng, "nsubj"))
    if with_auxiliary:
        verb.left.append(_node(rng.choice(AUXILIARIES), "aux"))
    if rng.random() < 0.1:
        verb.left.append(_node(rng.choice(PRE_ADVERBS), "advmod"))

    if kind == "transitive":
        verb.right.append(_noun_phrase(rng, "obj"))
    while len(verb.right) < 3 and rng.random() < 0.35:
        verb.right.append(_prepositional_phrase(rng, VERB_PREPOSITIONS, "obl", depth=1))
    if rng.random() < 0.15:
        verb.right.append(_node(rng.choice(POST_ADVERBS), "advmod"))
    if kind == "clausal":
        complement = _clause(rng, "ccomp", embedded=True)
        complement.left.insert(0, _node(COMPLEMENTIZER, "mark"))
        verb.right.append(complement)
    return verb


def _linearize(node: _Node) -> List[Tuple[_Node, _Node]]:
    """(word, its head node or None) pairs in sentence order; in-order walks stay projective."""
    pairs: List[Tuple[_Node, _Node]] = []

    def visit(current: _Node, head: _Node) -> None:
        for child in current.left:
            visit(child, current)
        pairs.append((current, head))
        for child in current.right:
            visit(child, current)

    visit(node, None)
    return pairs


def _sentence(rng: random.Random) -> Sentence:
    root = _clause(rng, "root")
    if rng.random() < 0.8:
        root.right.append(_node(FULL_STOP, "punct"))
    pairs = _linearize(root)
    position = {id(node): i for i, (node, _) in enumerate(pairs, start=1)}
    return Sentence(
        words=[node.form for node, _ in pairs],
        upos=[node.upos for node, _ in pairs],
        xpos=[node.xpos for node, _ in pairs],
        heads=[0 if head is None else position[id(head)] for _, head in pairs],
        deprels=[node.deprel for node, _ in pairs],
    )


# ------------------------------------------------------------------ public


def make_treebank(n_sentences: int, seed: int = 0) -> List[Sentence]:
    """`n_sentences` random sentences of the toy grammar; the same seed gives the same ones.

    The records have the format `read_conllu` returns, with lower-case
    words. Sentences are 2 to about 45 words long, 11 on average.
    """
    rng = random.Random(seed)
    return [_sentence(rng) for _ in range(n_sentences)]


def write_conllu(sentences: Sequence[Sentence], path: Union[str, PathLike]) -> None:
    """Write sentences as CoNLL-U; `read_conllu(path)` gives them back unchanged."""
    lines: List[str] = []
    for number, sentence in enumerate(sentences, start=1):
        lines.append(f"# sent_id = synthetic-{number}")
        lines.append(f"# text = {' '.join(sentence.words)}")
        for i in range(len(sentence)):
            columns = [
                str(i + 1), sentence.words[i], "_", sentence.upos[i], sentence.xpos[i] or "_", "_",
                str(sentence.heads[i]), sentence.deprels[i], "_", "_",
            ]
            lines.append("\t".join(columns))
        lines.append("")
    Path(path).write_text("\n".join(lines) + "\n", encoding="utf-8")


def write_synthetic_ewt(folder: Union[str, PathLike], n_train: int = 500, n_dev: int = 200,
                        n_test: int = 200, seed: int = 0) -> Path:
    """Write a synthetic train/dev/test split under EWT's file names.

    Anything that takes the EWT folder (`run.py --data FOLDER`,
    `load_and_preprocess_data(FOLDER)`) then runs on it without real data.
    The three splits use different seeds, so they share no sampling.
    """
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    for offset, (split, size) in enumerate((("train", n_train), ("dev", n_dev), ("test", n_test))):
        write_conllu(make_treebank(size, seed=seed * 3 + offset), folder / SPLIT_FILES[split])
    return folder
