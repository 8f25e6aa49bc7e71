"""Training speed of the numpy reference parser against the same model in PyTorch on the CPU.

Both sides train the Chen & Manning network of ``solutions/parser`` (36 feature ids, embeddings of 50,
one ReLU layer with dropout 0.5, 3 transitions, softmax cross-entropy, Adam with lr 1e-3) from the same
initial weights, on the same batches of UD English-EWT, in float64. The PyTorch side is written as
CS224n's ``ParserModel`` (2020 onward) and ``train_for_epoch`` are: parameters indexed directly,
``torch.optim.Adam`` with its defaults, ``F.cross_entropy``.

Two measurements:

- step: forward, loss, backward and Adam on one batch of full size; the median over ``--batches``
  batches, the same batches on every side;
- epoch: ``--epochs`` full epochs per side from the initial weights (training on every instance, then
  parsing dev with the reference's ``minibatch_parse``), the numpy side through the reference's own
  ``run.train_for_epoch``.

Each side runs in a process of its own, so that the thread pools of numpy's BLAS and of PyTorch never
compete for the cores; the sides take turns, a chunk of batches (or one epoch) at a time, so that both
see the same machine. The ratio numpy / PyTorch of the medians is the figure of merit: below 1 numpy is
faster. Both sides use the machine's default threads. Needs PyTorch (``./setup.sh --with-torch``).
"""

from __future__ import annotations

import argparse
import contextlib
import copy
import importlib
import io
import json
import subprocess
import sys
import time
from pathlib import Path
from types import SimpleNamespace
from typing import Any, Callable

import numpy as np

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from benchmarks.ewt import add_data_argument  # noqa: E402
from benchmarks.summary import Summary, argument_parser, machine  # noqa: E402

SIDES = ("numpy float64", "torch float64", "torch float32")
CHUNK = 20  # batches a side trains before the next side takes its turn


# ------------------------------------------------------------------------ one side, in its own process


def import_reference(folder: Path) -> SimpleNamespace:
    """The numpy parser's modules from ``folder`` (the reference, or another version to compare)."""
    sys.path.insert(0, str(folder))
    names = ("layers", "optim", "parser_model", "run", "utils.parser_utils")
    return SimpleNamespace(**{name.split(".")[-1]: importlib.import_module(name) for name in names})


def torch_parser(params: dict[str, np.ndarray], dtype: Any) -> Any:
    """The reference's network in PyTorch, parameter for parameter, as CS224n writes it."""
    import torch

    class TorchParser(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            for name, value in params.items():
                setattr(self, name, torch.nn.Parameter(torch.tensor(value, dtype=dtype)))
            self.dropout = torch.nn.Dropout(0.5)

        def forward(self, w: torch.Tensor) -> torch.Tensor:
            x = self.embeddings[w].reshape(w.shape[0], -1)
            h = self.dropout(torch.relu(x @ self.W + self.b1))
            return h @ self.U + self.b2

    return TorchParser()


class TorchForParsing:
    """Lets the reference's ``Parser.parse`` call the torch model as it calls a ``ParserModel``."""

    def __init__(self, model: Any) -> None:
        self.model = model

    def forward(self, w: np.ndarray, training: bool = False) -> np.ndarray:
        import torch

        self.model.eval()
        with torch.no_grad():
            return self.model(torch.from_numpy(w)).numpy()


def numpy_trainer(ref: SimpleNamespace, data: SimpleNamespace, args: argparse.Namespace
                  ) -> tuple[Callable[[np.ndarray, np.ndarray], None], Callable[[], float]]:
    """(train on one batch, train one epoch and return dev UAS) for a fresh numpy model."""
    model = ref.parser_model.ParserModel(data.embeddings, n_features=data.parser.n_features,
                                         hidden_size=args.hidden_size, seed=args.seed)
    optimizer = ref.optim.Adam(model.params, lr=args.lr)
    parser = copy.copy(data.parser)  # the same vocabulary, with this model and its own batch order
    parser.model, parser.rng = model, np.random.default_rng(args.seed)

    def step(features: np.ndarray, labels: np.ndarray) -> None:
        _, dlogits = ref.layers.softmax_cross_entropy(model.forward(features, training=True), labels)
        optimizer.step(model.backward(dlogits))

    def epoch() -> float:
        with contextlib.redirect_stdout(io.StringIO()):  # it prints its progress
            return ref.run.train_for_epoch(parser, data.train, data.dev, optimizer, args.batch_size)

    return step, epoch


def torch_trainer(ref: SimpleNamespace, data: SimpleNamespace, args: argparse.Namespace, dtype: Any
                  ) -> tuple[Callable[[np.ndarray, np.ndarray], None], Callable[[], float]]:
    """The same for a fresh torch model with the numpy model's initial weights."""
    import torch

    initial = ref.parser_model.ParserModel(data.embeddings, n_features=data.parser.n_features,
                                           hidden_size=args.hidden_size, seed=args.seed).params
    model = torch_parser(initial, dtype)
    optimizer = torch.optim.Adam(model.parameters(), lr=args.lr)
    batch_order = np.random.default_rng(args.seed)

    def step(features: np.ndarray, labels: np.ndarray) -> None:
        model.train()
        logits = model(torch.from_numpy(features))
        loss = torch.nn.functional.cross_entropy(logits, torch.from_numpy(labels))
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        loss.item()  # as a training loop that records its losses does

    def epoch() -> float:
        for features, labels in ref.parser_utils.minibatches(data.train, args.batch_size, batch_order):
            step(features, labels)
        return data.parser.parse(data.dev, TorchForParsing(model))[0]

    return step, epoch


def serve(side: str, args: argparse.Namespace) -> None:
    """Answers the parent's commands on stdin with one JSON line each on stdout."""
    ref = import_reference(args.numpy_dir.resolve())
    with contextlib.redirect_stdout(io.StringIO()):
        parser, embeddings, train, dev, _ = ref.parser_utils.load_and_preprocess_data(
            args.data, reduced=args.quick, seed=args.seed)
    data = SimpleNamespace(parser=parser, embeddings=embeddings, train=train, dev=dev)

    if side.startswith("numpy"):
        # As run.py does before it trains (a version of the reference without it is run as it is).
        getattr(ref.run, "keep_freed_memory", lambda: None)()

    def trainer() -> tuple[Callable[[np.ndarray, np.ndarray], None], Callable[[], float]]:
        if side.startswith("numpy"):
            return numpy_trainer(ref, data, args)
        import torch

        return torch_trainer(ref, data, args, torch.float64 if side.endswith("64") else torch.float32)

    step, _ = trainer()
    _, epoch = trainer()  # epochs start from the initial weights, whatever the steps did
    batches = [b for b in ref.parser_utils.minibatches(train, args.batch_size, np.random.default_rng(args.seed))
               if len(b[1]) == args.batch_size]  # a last, smaller batch would skew the median
    answer({"instances": len(train), "dev": len(dev), "tokens": parser.n_tokens})
    for line in sys.stdin:
        command, *numbers = line.split()
        if command == "steps":
            start, count = map(int, numbers)
            seconds = []
            for index in range(start, start + count):
                began = time.perf_counter()
                step(*batches[index % len(batches)])
                seconds.append(time.perf_counter() - began)
            answer({"seconds": seconds})
        elif command == "epoch":
            began = time.perf_counter()
            uas = epoch()
            answer({"seconds": time.perf_counter() - began, "dev_uas": uas})


def answer(reply: dict) -> None:
    print(json.dumps(reply), flush=True)


# ------------------------------------------------------------------------------------- the parent


class Child:
    """A side's process; ``ask`` sends one command and waits for its reply."""

    def __init__(self, side: str, forwarded: list[str]) -> None:
        self.side = side
        self.process = subprocess.Popen([sys.executable, __file__, "--serve", side, *forwarded],
                                        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        self.info = self.read()

    def read(self) -> dict:
        line = self.process.stdout.readline()
        if not line:
            sys.exit(f"the {self.side} process ended (status {self.process.wait()}); see its error above")
        return json.loads(line)

    def ask(self, command: str) -> dict:
        self.process.stdin.write(command + "\n")
        self.process.stdin.flush()
        return self.read()

    def close(self) -> None:
        self.process.stdin.close()
        self.process.wait()


def in_turns(children: list[Child], rounds: int, command: Callable[[int], str]) -> dict[str, list[dict]]:
    """Every child's replies to ``command(round)``, round after round, who goes first rotating."""
    replies: dict[str, list[dict]] = {child.side: [] for child in children}
    for index in range(rounds):
        shift = index % len(children)
        for child in children[shift:] + children[:shift]:
            replies[child.side].append(child.ask(command(index)))
    return replies


def report(title: str, values: dict[str, list[float]], unit: str, digits: int) -> None:
    print(title)
    summaries = {side: Summary.of(v) for side, v in values.items()}
    numpy_median = summaries[SIDES[0]].median
    for side, summary in summaries.items():
        ratio = "" if side == SIDES[0] else f"   numpy / {side} = {numpy_median / summary.median:.2f}"
        print(f"  {side:14} {summary.show(unit, digits)}{ratio}")


def parse_args() -> tuple[argparse.Namespace, list[str]]:
    parser = argument_parser(__doc__, __file__, "", "--batches 200 --epochs 12 --float32", "--quick")
    add_data_argument(parser)
    parser.add_argument("--batches", type=int, default=200, help="batches timed per side (default 200)")
    parser.add_argument("--epochs", type=int, default=2, help="full epochs timed per side (default 2; 0: none)")
    parser.add_argument("--batch-size", type=int, default=1024, help="(default 1024, as run.py)")
    parser.add_argument("--hidden-size", type=int, default=300, help="(default 300, as run.py)")
    parser.add_argument("--lr", type=float, default=1e-3, help="(default 1e-3, as run.py)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--float32", action="store_true", help="also time the torch model in float32")
    parser.add_argument("--numpy-dir", type=Path, default=REPO / "solutions" / "parser",
                        help="the numpy parser to time (default: the reference, solutions/parser)")
    parser.add_argument("--quick", action="store_true",
                        help="a smoke run: the first 1000 EWT sentences, 20 batches, one epoch")
    parser.add_argument("--serve", choices=SIDES, help=argparse.SUPPRESS)  # a side's own process
    args = parser.parse_args()
    forwarded = [f"--data={args.data}", f"--batch-size={args.batch_size}", f"--hidden-size={args.hidden_size}",
                 f"--lr={args.lr}", f"--seed={args.seed}", f"--numpy-dir={args.numpy_dir}"]
    if args.quick:
        args.batches, args.epochs = CHUNK, 1
        forwarded.append("--quick")
    return args, forwarded


def main() -> None:
    args, forwarded = parse_args()
    if args.serve:
        serve(args.serve, args)
        return
    try:
        import torch
    except ImportError:
        sys.exit("This benchmark compares with PyTorch, which is not installed: run ./setup.sh --with-torch "
                 "(or pip install -e '.[torch]').")
    print(machine())
    children = [Child(side, forwarded) for side in SIDES[: 3 if args.float32 else 2]]
    info = children[0].info
    print(f"{info['instances']} training instances, {info['dev']} dev sentences, {info['tokens']} token ids; "
          f"batch {args.batch_size}, hidden {args.hidden_size}; numpy from {args.numpy_dir}; "
          f"torch {torch.__version__} with {torch.get_num_threads()} threads")
    try:
        in_turns(children, 1, lambda _: "steps 0 3")  # warm-up, not timed
        rounds = -(-args.batches // CHUNK)
        replies = in_turns(children, rounds, lambda r: f"steps {3 + r * CHUNK} {CHUNK}")
        report(f"One training step (batch {args.batch_size}), median (min-max) over {rounds * CHUNK} batches:",
               {side: [1e3 * s for r in rs for s in r["seconds"]] for side, rs in replies.items()}, "ms", 1)
        if args.epochs:
            epochs = in_turns(children, args.epochs, lambda _: "epoch")
            report(f"One epoch (training on {info['instances']} instances, then parsing dev), "
                   f"median (min-max) of {args.epochs}:",
                   {side: [r["seconds"] for r in rs] for side, rs in epochs.items()}, "s", 1)
            for side, rs in epochs.items():
                scores = ", ".join(f"{r['dev_uas']:.2f}" for r in rs)
                print(f"  dev UAS after each epoch, {side}: {scores}")
    finally:
        for child in children:
            child.close()


if __name__ == "__main__":
    main()
