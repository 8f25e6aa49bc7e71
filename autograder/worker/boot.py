"""The first thing a trusted process of the Linux worker's side runs (:data:`autograder.contract.launch.LINUX_BOOT`):
the fork server (``mode: forkserver``), or a probe (``mode: probe``) that tries the confinement steps in
itself and prints which ones failed, as JSON: that is how the grader learns what this machine allows."""

from __future__ import annotations

import resource

from autograder.contract.plan import Plan
from autograder.worker import forkserver, supervisor


def main(config: dict) -> None:
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))  # mirroring a crash must not dump our memory
    if config["mode"] == "probe":
        supervisor.probe(Plan.from_json(config["plan"]), config["trusted_paths"])
    else:
        forkserver.serve(config)
