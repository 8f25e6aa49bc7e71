"""Where the training benchmarks find UD English-EWT: ``--data``, else ``$UD_EWT_DIR``, else the shared copy."""

from __future__ import annotations

import argparse
import os
from pathlib import Path

SHARED = Path(__file__).resolve().parent.parent.parent / "shared" / "data" / "ud-english-ewt"


def add_data_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--data", type=Path, default=Path(os.environ.get("UD_EWT_DIR", SHARED)),
                        help="the UD English-EWT folder (default: $UD_EWT_DIR or ../shared/data/ud-english-ewt)")
