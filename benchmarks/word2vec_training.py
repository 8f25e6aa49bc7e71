"""word2vec training speed: the reference's skip-gram step against a straightforward per-window loop
implementation of the same algorithm, and the time of a full ``run.py``.

Both sides train skip-gram with negative sampling as ``run.py`` does: the given ``Corpus`` of UD
English-EWT train with run.py's defaults (words seen at least 15 times, frequent words sub-sampled),
d = 10, windows of up to 5 words on each side, batches of 50 windows, K = 10 negatives, plain SGD with
step 0.3, through the given ``word2vec_sgd_wrapper`` and the reference's ``sgd`` and ``skipgram``. They
differ only in how one (center, outside) pair's loss and gradients are computed:

- reference: ``solutions/word2vec``'s ``neg_sampling_loss_and_gradient`` (the outside word and its K
  negatives as one (K+1, d) block, ``np.add.at`` for repeated negatives);
- loop: the same formulas one sample at a time, with a Python loop and a row update per sample, as
  the algorithm reads on paper and as the course's original code computes it.

Every chunk of ``--chunk`` iterations starts from the same vectors and the same seed on both sides, so
both draw the very same windows and negatives and do the same work; the sides take turns. Before
timing, the script checks that one batch gives both the same loss and gradient, so the comparison is
between two implementations of one algorithm. ``--full-run`` also times ``python run.py`` with its
defaults (30,000 iterations), as a student runs it.
"""

from __future__ import annotations

import os

# As run.py: the vectors are tiny (d = 10), so BLAS threads cost more than they save. Before numpy.
for _name in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_name, "1")

import importlib  # noqa: E402
import random  # noqa: E402
import re  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402
from types import SimpleNamespace  # noqa: E402

import numpy as np  # noqa: E402

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from benchmarks.ewt import add_data_argument  # noqa: E402
from benchmarks.summary import Summary, argument_parser, machine  # noqa: E402

REFERENCE = REPO / "solutions" / "word2vec"
WINDOW, STEP, K = 5, 0.3, 10


def import_reference() -> SimpleNamespace:
    sys.path.insert(0, str(REFERENCE))
    names = ("run", "sgd", "word2vec", "utils.corpus")
    return SimpleNamespace(**{name.split(".")[-1]: importlib.import_module(name) for name in names})


def loop_loss(ref: SimpleNamespace):
    """Negative sampling one sample at a time: the reference's loss and gradients, with a loop."""
    sigmoid, get_negative_samples = ref.word2vec.sigmoid, ref.word2vec.get_negative_samples

    def neg_sampling_loss_and_gradient(center_word_vec, outside_word_idx, outside_vectors, dataset, K=K):
        negatives = get_negative_samples(outside_word_idx, dataset, K)
        loss = 0.0
        grad_center_vec = np.zeros(center_word_vec.shape)
        grad_outside_vecs = np.zeros(outside_vectors.shape)
        for index, sign in [(outside_word_idx, 1.0)] + [(k, -1.0) for k in negatives]:
            probability = sigmoid(sign * outside_vectors[index] @ center_word_vec)
            loss -= np.log(probability)
            grad_center_vec += sign * (probability - 1.0) * outside_vectors[index]
            grad_outside_vecs[index] += sign * (probability - 1.0) * center_word_vec
        return float(loss), grad_center_vec, grad_outside_vecs

    return neg_sampling_loss_and_gradient


class Training:
    """Chunks of SGD iterations on the corpus, with either loss function, from the same start."""

    def __init__(self, ref: SimpleNamespace, corpus, seed: int) -> None:
        self.ref, self.corpus = ref, corpus
        self.word2ind = corpus.tokens()
        np.random.seed(seed)
        self.start = ref.run.initial_vectors(len(self.word2ind), 10)
        self.losses = {"reference": ref.word2vec.neg_sampling_loss_and_gradient, "loop": loop_loss(ref)}

    def objective(self, side: str):
        def f(x: np.ndarray) -> tuple[float, np.ndarray]:
            return self.ref.word2vec.word2vec_sgd_wrapper(self.ref.word2vec.skipgram, self.word2ind, x,
                                                          self.corpus, WINDOW, self.losses[side])
        return f

    def batch(self, side: str, seed: int) -> tuple[float, np.ndarray]:
        random.seed(seed)
        np.random.seed(seed)
        return self.objective(side)(self.start)

    def chunk(self, side: str, iterations: int, seed: int, folder: str) -> float:
        """Seconds for ``iterations`` SGD iterations from the start vectors."""
        random.seed(seed)
        np.random.seed(seed)
        began = time.perf_counter()
        self.ref.sgd.sgd(self.objective(side), self.start, STEP, iterations, print_every=0, checkpoint_dir=folder)
        return time.perf_counter() - began


def check_same_algorithm(training: Training) -> None:
    for seed in range(3):
        (loss_a, grad_a), (loss_b, grad_b) = (training.batch(side, seed) for side in ("reference", "loop"))
        same = abs(loss_a - loss_b) <= 1e-10 * max(1.0, abs(loss_a)) and np.allclose(grad_a, grad_b, rtol=1e-10,
                                                                                     atol=1e-12)
        if not same:
            sys.exit(f"the two sides disagree on batch {seed} (loss {loss_a!r} against {loss_b!r}): "
                     "they are not the same algorithm, so their speeds cannot be compared")


def time_sides(training: Training, chunk: int, rounds: int) -> dict[str, list[float]]:
    rate: dict[str, list[float]] = {"reference": [], "loop": []}
    with tempfile.TemporaryDirectory(prefix="word2vec-training-") as folder:
        training.chunk("reference", 5, 0, folder)  # warm-up, not timed
        for index in range(rounds):
            for side in (["reference", "loop"] if index % 2 == 0 else ["loop", "reference"]):
                rate[side].append(chunk / training.chunk(side, chunk, 100 + index, folder))
    return rate


def full_run(ref: SimpleNamespace, data: Path) -> None:
    """``python run.py`` with its defaults, in a temporary folder; prints what it took."""
    with tempfile.TemporaryDirectory(prefix="word2vec-run-") as folder:
        began = time.perf_counter()
        run = subprocess.run([sys.executable, "run.py", "--data", str(data), "--out", folder],
                             cwd=REFERENCE, capture_output=True, text=True)
        seconds = time.perf_counter() - began
        if run.returncode != 0 or not Path(folder, "word_vectors.png").exists():
            sys.exit(f"run.py failed (exit status {run.returncode}):\n{run.stdout}\n{run.stderr}")
    training = re.search(r"Training took (\d+ min )?([\d.]+) s", run.stdout)
    loss = re.search(r"Final loss \(moving average\): ([\d.]+)", run.stdout)
    print(f"python run.py (its defaults: {ref.run.DEFAULT_ITERATIONS} iterations): {seconds / 60:.1f} min "
          f"in all, of which training {training.group(0).split('took ')[1]}; final loss (moving average) "
          f"{loss.group(1)}")


def main() -> None:
    parser = argument_parser(__doc__, __file__, "", "--full-run", "--quick")
    add_data_argument(parser)
    parser.add_argument("--chunk", type=int, default=200, help="SGD iterations per timed chunk (default 200)")
    parser.add_argument("--rounds", type=int, default=5, help="chunks per side (default 5)")
    parser.add_argument("--seed", type=int, default=314, help="seed of the initial vectors (run.py's default)")
    parser.add_argument("--full-run", action="store_true", help="also time python run.py with its defaults")
    parser.add_argument("--quick", action="store_true",
                        help="a smoke run: the first 2000 sentences, two chunks of 20 iterations per side")
    args = parser.parse_args()
    train_file = args.data / "en_ewt-ud-train.conllu"
    if not train_file.is_file():
        sys.exit(f"cannot find {train_file}; pass --data with the UD English-EWT folder")
    if args.quick:
        args.chunk, args.rounds = 20, 2
    ref = import_reference()
    print(machine())
    corpus = ref.corpus.Corpus.from_conllu(train_file, max_sentences=2000 if args.quick else None)
    training = Training(ref, corpus, args.seed)
    print(f"{corpus.num_tokens} words, vocabulary of {len(training.word2ind)}; d = 10, windows of up to "
          f"{WINDOW}, 50 windows per iteration, K = {K}")
    check_same_algorithm(training)
    print("both sides give the same loss and gradient on the same batches")
    rate = time_sides(training, args.chunk, args.rounds)
    summaries = {side: Summary.of(values) for side, values in rate.items()}
    print(f"SGD iterations per second, median (min-max) of {args.rounds} chunks of {args.chunk}:")
    for side, summary in summaries.items():
        print(f"  {side:9} {summary.show('it/s', 1)}; 30,000 iterations (run.py's default) in about "
              f"{30000 / summary.median / 60:.1f} min")
    print(f"  reference / loop: {summaries['reference'].median / summaries['loop'].median:.2f}x")
    if args.full_run:
        full_run(ref, args.data)


if __name__ == "__main__":
    main()
