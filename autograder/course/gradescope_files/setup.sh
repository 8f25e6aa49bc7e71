#!/usr/bin/env bash
# Gradescope runs this once, as root, when it builds the autograder's image; `autograder build`
# put it at the top of the zip, which Gradescope unpacks into ROOT/source (ROOT is /autograder).
# It installs the pinned requirements into ROOT/venv, not into the system python3 that Gradescope's
# own harness uses, and creates the unprivileged user that runs the students' code.
#   AUTOGRADER_ROOT  the layout's root (default: the folder above this script)
#   PYTHON           the Python to build the venv from (default: /usr/bin/python3, else python3);
#                    it must not live in a private folder such as /root, or the worker's user
#                    could not run it
#   AUTOGRADER_ANY_PYTHON=1  install the pins even if PYTHON is not the image's Python (the zip was
#                    built for Gradescope's @IMAGE@ image, Python @PYTHON@: `build --image`)
set -euo pipefail
SOURCE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="${AUTOGRADER_ROOT:-$(dirname "$SOURCE")}"
WORKER_USER=ag-worker
if [ -z "${PYTHON:-}" ]; then
    if [ -x /usr/bin/python3 ]; then PYTHON=/usr/bin/python3; else PYTHON=python3; fi
fi
if ! "$PYTHON" -c 'import sys; sys.exit(sys.version_info < (3, 10))'; then
    echo "setup.sh: error: Python 3.10 or newer is needed (found $("$PYTHON" --version 2>&1)); set PYTHON" >&2
    exit 1
fi
FOUND="$("$PYTHON" -c 'import sys; print("%d.%d" % sys.version_info[:2])')"
if [ "$FOUND" != "@PYTHON@" ] && [ -z "${AUTOGRADER_ANY_PYTHON:-}" ]; then
    echo "setup.sh: error: this autograder was built for Gradescope's @IMAGE@ image (Python @PYTHON@), and its" \
         "requirements.txt pins every package for that Python, but $PYTHON is Python $FOUND. Choose" \
         "@IMAGE@ as the base image in the autograder settings, or build the zip for your image:" \
         "python -m autograder build @ASSIGNMENT@ --image IMAGE --out ZIP (IMAGE: one of @IMAGES@)." \
         "AUTOGRADER_ANY_PYTHON=1 installs the pins anyway (to try the zip on a machine that is not" \
         "the image)." >&2
    exit 1
fi
if [ ! -x "$ROOT/venv/bin/python" ]; then
    if ! "$PYTHON" -c 'import ensurepip, venv' 2>/dev/null; then
        if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
            apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q python3-venv
        else
            echo "setup.sh: error: $PYTHON cannot create virtual environments; install python3-venv" >&2
            exit 1
        fi
    fi
    "$PYTHON" -m venv "$ROOT/venv"
fi
"$ROOT/venv/bin/python" -m pip install --quiet --disable-pip-version-check -r "$SOURCE/requirements.txt"
# Compiled once here: every submission is graded in a fresh container, which would otherwise compile
# the framework and the reference again (about 0.15 s of every grading).
"$ROOT/venv/bin/python" -m compileall -q "$SOURCE/autograder" "$SOURCE/solutions"
# The worker's user runs this venv's Python: everyone may pass through ROOT and read the venv
# (run_autograder makes the rest of ROOT private before each grading).
chmod o+x "$ROOT"
chmod -R o+rX "$ROOT/venv"
if [ "$(id -u)" = 0 ]; then
    id -u "$WORKER_USER" >/dev/null 2>&1 ||
        useradd --system --user-group --no-create-home --shell /usr/sbin/nologin "$WORKER_USER"
    setpriv --reuid="$WORKER_USER" --regid="$WORKER_USER" --clear-groups -- \
        "$ROOT/venv/bin/python" -c 'import numpy' || {
        echo "setup.sh: error: the user $WORKER_USER cannot run $ROOT/venv/bin/python; is a folder above it private?" >&2
        exit 1
    }
else
    echo "setup.sh: not root, so no user $WORKER_USER: students' code will run as $(id -un)" >&2
fi
cd "$SOURCE" && "$ROOT/venv/bin/python" -m autograder --help >/dev/null
echo "setup.sh: ready ($ROOT/venv, user $WORKER_USER)"
