"""``python -m autograder``: see :mod:`autograder.cli.main`."""

import sys

from autograder.cli.main import main

sys.exit(main())
