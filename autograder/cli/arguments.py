"""What several commands' arguments share: the assignment, named one way everywhere."""

from __future__ import annotations

import argparse

from autograder.core.config import available_assignments

Commands = argparse._SubParsersAction  # what add_subparsers returns; argparse names it nowhere public


def assignment_names() -> str:
    return ", ".join(available_assignments())


def add_assignment(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("assignment", help=f"assignment name ({assignment_names()})")
