#!/usr/bin/env bash
# Creates .venv in the repository and installs the project with its pinned dependencies.
# Safe to run again: an existing .venv is reused and pip only installs what is missing.
#   ./setup.sh               what grading and the tests need
#   ./setup.sh --with-torch  also PyTorch (CPU), for the cross-checks of Adam and the parser's
#                            gradients against torch (tests/test_parser_torch.py; CI uses this)
set -euo pipefail
cd "$(dirname "$0")"
EXTRAS=""
for argument in "$@"; do
    case "$argument" in
        --with-torch) EXTRAS="[torch]" ;;
        -h|--help) sed -n '2,6p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "error: unknown option $argument (try --help)" >&2; exit 2 ;;
    esac
done
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
.venv/bin/python -m pip install --quiet -e ".$EXTRAS"
# Where PYTHONDONTWRITEBYTECODE is set, Python never caches the bytecode of our own modules, and every
# grading would compile the framework again (about 0.15 s).
.venv/bin/python -m compileall -q autograder solutions
echo "ready: .venv/bin/python -m autograder --help"
