#!/usr/bin/env bash
# Creates .venv in the repository and installs the project with its pinned dependencies.
# Safe to run again: an existing .venv is reused and pip only installs what is missing.
set -euo pipefail
cd "$(dirname "$0")"
PYTHON="${PYTHON:-python3}"
if ! "$PYTHON" -c 'import sys; sys.exit(sys.version_info < (3, 10))'; then
    echo "error: Python 3.10 or newer is needed (found $("$PYTHON" --version 2>&1)); set PYTHON=/path/to/python3.x" >&2
    exit 1
fi
if [ ! -x .venv/bin/python ]; then
    "$PYTHON" -m venv .venv || {
        echo "error: could not create .venv; on Debian/Ubuntu install python3-venv first" >&2
        exit 1
    }
fi
.venv/bin/python -m pip install --quiet --upgrade pip
.venv/bin/python -m pip install --quiet -e .
echo "ready: .venv/bin/python -m autograder --help"
