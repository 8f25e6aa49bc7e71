"""Memory the student's code reads before writing it holds the same bytes in every grading.

``np.empty`` hands out memory as it is: glibc's freed blocks, whose first bytes hold addresses that
differ from one process to the next, and numpy's own cache of small freed blocks. A submission that
sums into ``np.empty`` would then score differently from one grading to the next. So glibc fills
every block it hands out with one byte (``MALLOC_PERTURB_``, with its per-thread cache off, which
would hand blocks out unfilled: :func:`autograder.boundary.fork_client.worker_env` sets both), and
numpy's cached blocks are filled with it here when a worker starts. The byte makes a float64 about
1.4e306, so a result built on such memory is far off, the same way every time; the grader grades a
question that lost points again with zeros there, and says so when the score changes.
"""

from __future__ import annotations

import ctypes
import os

import numpy as np

M_PERTURB = -6  # glibc's mallopt parameter: the byte that malloc fills with is its complement
_NUMPY_CACHE_BYTES = 1024  # numpy caches freed data blocks smaller than this...
_NUMPY_CACHE_DEPTH = 7  # ...up to this many of each size


def fill_uninitialised() -> None:
    """Make what malloc and numpy's cache hand out hold the byte of ``MALLOC_PERTURB_`` (its
    complement, as glibc fills), if the worker's environment sets it."""
    perturb = int(os.environ.get("MALLOC_PERTURB_", "0") or 0) & 0xFF
    if not perturb:
        return
    try:
        ctypes.CDLL(None).mallopt(M_PERTURB, perturb)  # the fork server read the variable before this worker's
    except (OSError, AttributeError):  # not glibc: numpy's blocks alone
        pass
    # Blocks of every size a float32, int32 or float64 array takes, filled, then given back to the cache.
    kept = [
        np.full(size, perturb ^ 0xFF, dtype=np.uint8)
        for size in range(4, _NUMPY_CACHE_BYTES, 4)
        for _ in range(_NUMPY_CACHE_DEPTH)
    ]
    del kept
