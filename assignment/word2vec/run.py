"""Train skip-gram word vectors on UD English-EWT and plot a few of them.

Run this once word2vec.py and sgd.py pass their self-checks:

    python run.py                          # full run, about 5 minutes
    python run.py --max-sentences 2000 --iterations 2000   # quick smoke test

It writes, into --out (default: the current folder):
    word_vectors.npy      the trained (2|V|, d) matrix: center vectors in the
                          first |V| rows, outside vectors in the last |V|
    vocabulary.txt        the |V| words, one per line, in row order
    word_vectors.png      a 2-D projection of some chosen words
    saved_params_*.npy    checkpoints (with saved_state_*.json), for --resume
"""

from __future__ import annotations

import os

# The vectors are tiny (d = 10), so BLAS threads cost more than they save.
# This must happen before numpy is imported.
for _variable in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_variable, "1")

import argparse  # noqa: E402
import random  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from collections.abc import Callable, Sequence  # noqa: E402
from pathlib import Path  # noqa: E402

import matplotlib  # noqa: E402

matplotlib.use("Agg")  # draw into files; no display needed
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
from matplotlib.transforms import Bbox  # noqa: E402
from tqdm import tqdm  # noqa: E402

from sgd import latest_checkpoint, load_checkpoint, sgd  # noqa: E402
from utils.corpus import DEFAULT_MIN_COUNT, Corpus  # noqa: E402
from word2vec import neg_sampling_loss_and_gradient, skipgram, word2vec_sgd_wrapper  # noqa: E402

TRAIN_FILE = "en_ewt-ud-train.conllu"

# The original course trained 40000 iterations (about an hour there). With
# frequent-word sub-sampling, 30000 give nearly the same picture in about
# three quarters of the time; pass --iterations 40000 to compare.
DEFAULT_ITERATIONS = 30000
DATA_ENV_VARIABLE = "UD_EWT_DIR"

# Frequent words of EWT (each occurs 40 times or more in train), in groups
# whose members we hope end up near each other. Each group gets a colour.
PLOT_GROUPS = {
    "opinions": ["good", "great", "nice", "best", "bad", "friendly"],
    "time": ["day", "night", "week", "year", "time"],
    "service": ["food", "service", "staff", "price", "money"],
    "places, things": ["hotel", "restaurant", "house", "school", "car"],
    "pronouns": ["he", "she", "his", "her", "we", "they"],
}


# ------------------------------------------------------------------- data


def find_default_data() -> Path | None:
    """$UD_EWT_DIR, else data/ud-english-ewt beside this file (the bundle's
    copy), else the first shared/data/ud-english-ewt above this file."""
    from_env = os.environ.get(DATA_ENV_VARIABLE)
    if from_env:
        return Path(from_env)
    here = Path(__file__).resolve().parent
    if (here / "data" / "ud-english-ewt").is_dir():
        return here / "data" / "ud-english-ewt"
    for folder in [here, *here.parents]:
        candidate = folder / "shared" / "data" / "ud-english-ewt"
        if candidate.is_dir():
            return candidate
    return None


def resolve_train_file(data: Path | None) -> Path:
    """The .conllu file to train on, given --data (a file or a folder)."""
    if data is None:
        data = find_default_data()
    if data is None:
        raise SystemExit(
            "error: cannot find UD English-EWT. The bundle from your course has "
            "it in data/ud-english-ewt beside run.py; else download it from "
            "https://github.com/UniversalDependencies/UD_English-EWT and pass "
            f"--data PATH (the file {TRAIN_FILE} or its folder), or set "
            f"{DATA_ENV_VARIABLE} to that folder."
        )
    path = data / TRAIN_FILE if data.is_dir() else data
    if not path.is_file():
        raise SystemExit(
            f"error: {path} does not exist; pass --data with the file {TRAIN_FILE} or its folder."
        )
    return path


# --------------------------------------------------------------- training


def initial_vectors(n_words: int, dim: int) -> np.ndarray:
    """Small random center vectors and all-zero outside vectors, (2|V|, d)."""
    center = (np.random.rand(n_words, dim) - 0.5) / dim
    outside = np.zeros((n_words, dim))
    return np.concatenate([center, outside], axis=0)


class ProgressObjective:
    """Wraps the training objective: each call advances a progress bar.

    It also keeps the exponential moving average of the loss (the number
    sgd would print) in `smoothed_loss`.
    """

    def __init__(self, f: Callable[[np.ndarray], tuple[float, np.ndarray]], bar: tqdm) -> None:
        self.f = f
        self.bar = bar
        self.smoothed_loss: float | None = None

    def __call__(self, x: np.ndarray) -> tuple[float, np.ndarray]:
        loss, grad = self.f(x)
        if self.smoothed_loss is None:
            self.smoothed_loss = loss
        else:
            self.smoothed_loss = 0.95 * self.smoothed_loss + 0.05 * loss
        self.bar.update(1)
        if self.bar.n % 100 == 0:  # updating the text every call would slow us down
            self.bar.set_postfix(loss=f"{self.smoothed_loss:.3f}", refresh=False)
        return loss, grad


def check_resumable(out: Path, expected_shape: tuple[int, int]) -> int:
    """Iteration to resume from; refuse a checkpoint of another shape."""
    start = latest_checkpoint(out)
    if start == 0:
        return 0
    state = random.getstate()  # load_checkpoint sets it; sgd will load again
    saved = load_checkpoint(start, out)
    random.setstate(state)
    if saved.shape != expected_shape:
        raise SystemExit(
            f"error: the checkpoint at iteration {start} in {out} has shape {saved.shape}, "
            f"but this corpus needs {expected_shape}. Use the same --data, --max-sentences, "
            "--min-count and --dim, or another --out."
        )
    return start


def train(
    corpus: Corpus, word2ind: dict[str, int], args: argparse.Namespace
) -> tuple[np.ndarray, float | None]:
    """Run SGD on the skip-gram objective; returns the vectors and the final smoothed loss."""
    word_vectors = initial_vectors(len(word2ind), args.dim)
    start = check_resumable(args.out, word_vectors.shape) if args.resume else 0

    def objective(x: np.ndarray) -> tuple[float, np.ndarray]:
        return word2vec_sgd_wrapper(
            skipgram, word2ind, x, corpus, args.window, neg_sampling_loss_and_gradient
        )

    with tqdm(
        total=args.iterations, initial=min(start, args.iterations), desc="training", unit="it"
    ) as bar:
        tracked = ProgressObjective(objective, bar)
        word_vectors = sgd(
            tracked,
            word_vectors,
            args.step,
            args.iterations,
            use_saved=args.resume,
            print_every=0,  # the progress bar shows the loss instead
            checkpoint_dir=args.out,
        )
    return word_vectors, tracked.smoothed_loss


# --------------------------------------------------------------- plotting


def project_2d(vectors: np.ndarray) -> np.ndarray:
    """Coordinates of the rows on their first two principal components, (n, 2)."""
    centred = vectors - vectors.mean(axis=0)
    # The right singular vectors of the centred data are the principal axes.
    _, _, axes = np.linalg.svd(centred, full_matrices=False)
    return centred @ axes[:2].T


# Where a label may go relative to its point: offset in typographic points
# and alignment. Tried in this order; the first that overlaps no earlier
# label wins, else the one with the least overlap.
LABEL_POSITIONS = [
    ((5, 0), "left", "center"),
    ((-5, 0), "right", "center"),
    ((0, 6), "center", "bottom"),
    ((0, -6), "center", "top"),
    ((4, 4), "left", "bottom"),
    ((4, -4), "left", "top"),
    ((-4, 4), "right", "bottom"),
    ((-4, -4), "right", "top"),
]


def _overlap_area(box: Bbox, others: Sequence[Bbox]) -> float:
    """Total area (in pixels) that `box` shares with the boxes in `others`."""
    area = 0.0
    for other in others:
        width = min(box.x1, other.x1) - max(box.x0, other.x0)
        height = min(box.y1, other.y1) - max(box.y0, other.y0)
        if width > 0 and height > 0:
            area += width * height
    return area


def place_labels(
    ax: plt.Axes, words: Sequence[str], points: np.ndarray, colours: Sequence[str]
) -> None:
    """Label every point where its label collides least with earlier labels."""
    renderer = ax.figure.canvas.get_renderer()
    # Start with a small square around every dot, so labels avoid the dots too.
    taken = [Bbox.from_bounds(x - 4, y - 4, 8, 8) for x, y in ax.transData.transform(points)]
    for word, point, colour in zip(words, points, colours, strict=True):
        best = None  # (overlap, label, box)
        for offset, ha, va in LABEL_POSITIONS:
            label = ax.annotate(
                word, point, xytext=offset, textcoords="offset points",
                ha=ha, va=va, fontsize=11, color=colour,
            )  # fmt: skip
            box = label.get_window_extent(renderer)
            overlap = _overlap_area(box, taken)
            if best is None or overlap < best[0]:
                if best is not None:
                    best[1].remove()
                best = (overlap, label, box)
            else:
                label.remove()
            if overlap == 0:
                break
        taken.append(best[2])


def plot_words(
    word_vectors: np.ndarray, word2ind: dict[str, int], groups: dict[str, list[str]], path: Path
) -> list[str]:
    """Scatter-plot the words of `groups` in 2-D, one colour per group.

    Returns the words actually drawn (those in the vocabulary).
    """
    n_words = word_vectors.shape[0] // 2
    # Sum of a word's two vectors: both were trained, and together they
    # are a little less noisy than either alone.
    combined = word_vectors[:n_words] + word_vectors[n_words:]
    shown = [(w, group) for group, words in groups.items() for w in words if w in word2ind]
    if len(shown) < 3:
        return []  # too few words for a meaningful picture
    points = project_2d(combined[[word2ind[w] for w, _ in shown]])

    figure, ax = plt.subplots(figsize=(9, 7), dpi=110)
    colours = {group: f"C{k}" for k, group in enumerate(groups)}
    for group, colour in colours.items():
        rows = [k for k, (_, g) in enumerate(shown) if g == group]
        ax.scatter(points[rows, 0], points[rows, 1], s=20, color=colour, label=group)
    ax.set_title(f"Skip-gram vectors (d = {word_vectors.shape[1]}), first two principal components")
    ax.legend(loc="best", fontsize=9)
    ax.margins(0.12)
    figure.tight_layout()
    # Labels last, once the layout has fixed where everything is.
    place_labels(ax, [w for w, _ in shown], points, [colours[g] for _, g in shown])
    figure.savefig(path)
    plt.close(figure)
    return [w for w, _ in shown]


# -------------------------------------------------------------------- CLI


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description="Train skip-gram word2vec with negative sampling on UD English-EWT "
        "and plot a 2-D projection of some word vectors.",
        formatter_class=argparse.ArgumentDefaultsHelpFormatter,
        epilog="example: python run.py --data ~/data/ud-english-ewt --out results "
        "(quick check: --max-sentences 2000 --iterations 2000)",
    )
    parser.add_argument(
        "--data",
        type=Path,
        default=None,
        help=f"{TRAIN_FILE} or the folder holding it; default: ${DATA_ENV_VARIABLE}, "
        "else data/ud-english-ewt beside this script (the bundle's copy), "
        "else shared/data/ud-english-ewt in a folder above it",
    )
    parser.add_argument(
        "--iterations",
        type=int,
        default=DEFAULT_ITERATIONS,
        help="SGD iterations of 50 windows each",
    )
    parser.add_argument("--dim", type=int, default=10, help="word vector dimension d")
    parser.add_argument("--window", type=int, default=5, help="largest window size C")
    parser.add_argument("--step", type=float, default=0.3, help="initial SGD step size")
    parser.add_argument(
        "--min-count",
        type=int,
        default=DEFAULT_MIN_COUNT,
        help="rarer words become <unk>; lower is slower",
    )
    parser.add_argument(
        "--out", type=Path, default=Path("."), help="folder for vectors, plot and checkpoints"
    )
    parser.add_argument(
        "--resume", action="store_true", help="continue from the newest checkpoint in --out"
    )
    parser.add_argument(
        "--max-sentences", type=int, default=None, help="read only this many sentences"
    )
    parser.add_argument("--seed", type=int, default=314, help="seed for random and numpy.random")
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> None:
    args = parse_args(argv)
    train_file = resolve_train_file(args.data)
    args.out.mkdir(parents=True, exist_ok=True)
    random.seed(args.seed)
    np.random.seed(args.seed)

    print(f"Reading {train_file} ...")
    corpus = Corpus.from_conllu(
        train_file, max_sentences=args.max_sentences, min_count=args.min_count
    )
    word2ind = corpus.tokens()
    print(f"{corpus.num_tokens} words, vocabulary of {len(word2ind)} (min count {args.min_count})")

    began = time.perf_counter()
    try:
        word_vectors, final_loss = train(corpus, word2ind, args)
    except NotImplementedError:
        raise SystemExit(
            "error: some functions are not written yet. Make `python word2vec.py` and "
            "`python sgd.py` pass their self-checks first."
        ) from None
    elapsed = time.perf_counter() - began

    np.save(args.out / "word_vectors.npy", word_vectors)
    (args.out / "vocabulary.txt").write_text("\n".join(corpus.words()) + "\n", encoding="utf-8")
    shown = plot_words(word_vectors, word2ind, PLOT_GROUPS, args.out / "word_vectors.png")
    if not shown:
        print("Too few of the plot words are in the vocabulary: no word_vectors.png.")

    minutes, seconds = divmod(elapsed, 60)
    print(f"Training took {int(minutes)} min {seconds:.0f} s.")
    if final_loss is not None:
        print(f"Final loss (moving average): {final_loss:.4f}")
    missing = sorted({w for words in PLOT_GROUPS.values() for w in words} - set(shown))
    if missing:
        print(f"Not in the vocabulary, so not plotted: {', '.join(missing)}")
    print(f"Wrote word_vectors.npy, vocabulary.txt and word_vectors.png to {args.out.resolve()}")


if __name__ == "__main__":
    main(sys.argv[1:])
