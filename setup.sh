#!/usr/bin/env bash
# Creates .venv in the repository and installs the project with its pinned dependencies and the
# tests' tools. Safe to run again: an existing venv is reused and pip only installs what is missing.
#   ./setup.sh                 what grading, the TAs' tools and the tests need, with python3
#                              (PYTHON=... to choose)
#   ./setup.sh --with-torch    also PyTorch (CPU), for the cross-checks of Adam and the parser's
#                              gradients against torch (tests/test_parser_torch.py; CI uses this)
#   ./setup.sh --python 3.10   the same in .venv-3.10, with Python 3.10 (found on PATH or in pyenv)
#   ./setup.sh --python newest the same in .venv-newest, with the newest Python 3.10-3.14 found
set -euo pipefail
cd "$(dirname "$0")"
SUPPORTED="3.14 3.13 3.12 3.11 3.10"
EXTRAS="test,staff"
VENV=.venv
WANTED=""
while [ $# -gt 0 ]; do
    case "$1" in
        --with-torch) EXTRAS="$EXTRAS,torch" ;;
        --python) WANTED="${2:-}"; shift || true ;;
        -h|--help) sed -n '2,9p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "error: unknown option $1 (try --help)" >&2; exit 2 ;;
    esac
    shift
done

# A Python of version $1 that can make venvs: pythonX.Y on PATH (a pyenv shim may be there and
# refuse to run), else pyenv's own copy.
find_python() {
    local candidate
    for candidate in "python$1" "$(pyenv root 2>/dev/null || echo /nonexistent)"/versions/"$1".*/bin/"python$1"; do
        if "$candidate" -c 'import venv, ensurepip' >/dev/null 2>&1; then
            command -v "$candidate"
            return 0
        fi
    done
    return 1
}

if [ -n "$WANTED" ]; then
    if [ "$WANTED" = newest ]; then
        for version in $SUPPORTED; do
            if PYTHON="$(find_python "$version")"; then break; fi
        done
        VENV=.venv-newest
    else
        case " $SUPPORTED " in
            *" $WANTED "*) ;;
            *) echo "error: --python takes one of $SUPPORTED or newest, not '$WANTED'" >&2; exit 2 ;;
        esac
        PYTHON="$(find_python "$WANTED")" || {
            echo "error: no Python $WANTED found (python$WANTED on PATH, or pyenv install $WANTED)" >&2
            exit 1
        }
        VENV=".venv-$WANTED"
    fi
fi
PYTHON="${PYTHON:-python3}"
if ! "$PYTHON" -c 'import sys; sys.exit(sys.version_info < (3, 10))'; then
    echo "error: Python 3.10 or newer is needed (found $("$PYTHON" --version 2>&1)); set PYTHON=/path/to/python3.x" >&2
    exit 1
fi
version() { "$1" -c 'import sys; print("%d.%d" % sys.version_info[:2])'; }
# --python newest finds a newer Python once one is installed: its venv is made again.
if [ -x "$VENV/bin/python" ] && [ "$VENV" != .venv ] && [ "$(version "$VENV/bin/python")" != "$(version "$PYTHON")" ]; then
    echo "$VENV has Python $(version "$VENV/bin/python"), not $(version "$PYTHON"): making it again"
    rm -rf "$VENV"
fi
if [ ! -x "$VENV/bin/python" ]; then
    "$PYTHON" -m venv "$VENV" || {
        echo "error: could not create $VENV; on Debian/Ubuntu install python3-venv first" >&2
        exit 1
    }
fi
"$VENV/bin/python" -m pip install --quiet --upgrade pip
# The browser tests run in the main venv only (the other Pythons run the smoke tests).
if [ "$VENV" = .venv ]; then EXTRAS="$EXTRAS,browser"; fi
"$VENV/bin/python" -m pip install --quiet -e ".[$EXTRAS]"
# Where PYTHONDONTWRITEBYTECODE is set, Python never caches the bytecode of our own modules, and every
# grading would compile the framework again (about 0.15 s).
"$VENV/bin/python" -m compileall -q autograder solutions
echo "ready: $VENV/bin/python -m autograder --help (Python $(version "$VENV/bin/python"))"
