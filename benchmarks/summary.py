"""What every benchmark shares: its command line, the median of several runs with their spread, and the
machine they ran on."""

from __future__ import annotations

import argparse
import os
import platform
import statistics
from dataclasses import dataclass
from pathlib import Path

import numpy as np


@dataclass(frozen=True)
class Summary:
    """The median of several measurements and the lowest and highest of them."""

    median: float
    low: float
    high: float
    runs: int

    @classmethod
    def of(cls, values: list[float]) -> Summary:
        if not values:
            raise ValueError("no measurements to summarise")
        return cls(statistics.median(values), min(values), max(values), len(values))

    def show(self, unit: str = "s", digits: int = 2) -> str:
        spread = f"{self.low:.{digits}f}-{self.high:.{digits}f}" if self.runs > 1 else "one run"
        return f"{self.median:.{digits}f} {unit} ({spread})"


def _cpu_model() -> str:
    try:
        with open("/proc/cpuinfo") as stream:
            for line in stream:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.machine()


def machine() -> str:
    """One line for the top of a benchmark's output: where and under what load it ran."""
    cores = len(os.sched_getaffinity(0))
    return (f"{_cpu_model()}, {cores} of {os.cpu_count()} cores usable, "
            f"Python {platform.python_version()}, numpy {np.__version__}, "
            f"load average {os.getloadavg()[0]:.2f} at the start")


def argument_parser(doc: str, script: str, *examples: str) -> argparse.ArgumentParser:
    """A benchmark's command line: its docstring for ``--help``, then how to run it with the options of
    each of ``examples``."""
    lines = [f"  .venv/bin/python benchmarks/{Path(script).name} {options}".rstrip() for options in examples]
    return argparse.ArgumentParser(description=doc, formatter_class=argparse.RawDescriptionHelpFormatter,
                                   epilog="examples:\n" + "\n".join(lines))
