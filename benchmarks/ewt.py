"""Where the training benchmarks find UD English-EWT: ``--data``, else ``$UD_EWT_DIR``, else
``shared/data/ud-english-ewt`` in the nearest folder above the repository (tests/fixtures/ewt.py)."""

from __future__ import annotations

import argparse
from pathlib import Path

from tests.fixtures.ewt import FOLDER, find_ewt


def add_data_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--data", type=Path, default=find_ewt() or Path("..") / FOLDER,
                        help=f"the UD English-EWT folder (default: $UD_EWT_DIR, else {FOLDER} in the nearest "
                             "folder above the repository)")
