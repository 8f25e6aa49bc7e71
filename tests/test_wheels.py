"""Every supported Python on every supported platform installs our requirements from wheels, and each
Gradescope image's lock installs on that image: resolved against the package index (``-m index``).

The lock files' agreement with pyproject.toml needs no index and runs in the default suite.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from packaging.requirements import Requirement

from autograder.course.dependencies import (IMAGES, PLATFORMS, PYTHONS, Image, notebook_requirements, pins,
                                     requirements, resolve)

pytestmark = pytest.mark.smoke  # also run on Python 3.10 and the newest Python (.ci/run)


def _marker_environment(python: str) -> dict[str, str]:
    return {"python_version": python, "python_full_version": f"{python}.0"}


@pytest.mark.parametrize("image", IMAGES.values(), ids=list(IMAGES))
def test_each_image_lock_pins_our_requirements_as_pyproject_does_for_its_python(image: Image):
    locked = pins(image.lock())
    for line in requirements().splitlines():
        requirement = Requirement(line)
        if requirement.marker is None or requirement.marker.evaluate(_marker_environment(image.python)):
            wanted = str(requirement.specifier).removeprefix("==")
            name = requirement.name.lower().replace("_", "-")
            assert locked.get(name) == wanted, (f"{image.lock_path.name} pins {name}=={locked.get(name)}, "
                                                f"pyproject.toml {wanted}: run python -m autograder.course.dependencies")


def test_one_numpy_pin_for_every_supported_python():
    numpy = [Requirement(line) for line in requirements().splitlines() if line.startswith("numpy")]
    for python in PYTHONS:
        chosen = [r for r in numpy if r.marker is None or r.marker.evaluate(_marker_environment(python))]
        assert len(chosen) == 1, f"Python {python}: numpy pins {chosen}"


@pytest.fixture(scope="module")
def requirement_files(tmp_path_factory) -> Path:
    """The student bundle's two requirement files, as ``release`` writes them."""
    folder = tmp_path_factory.mktemp("requirements")
    (folder / "requirements.txt").write_text(requirements(), encoding="utf-8")
    (folder / "requirements-notebook.txt").write_text(notebook_requirements(), encoding="utf-8")
    return folder


@pytest.mark.index
@pytest.mark.parametrize("platform", PLATFORMS)
@pytest.mark.parametrize("python", PYTHONS)
def test_the_bundle_installs_from_wheels(requirement_files: Path, python: str, platform: str):
    resolved = pins(resolve(requirement_files / "requirements.txt", python, platform))
    assert {"numpy", "matplotlib", "pydantic-core"} <= set(resolved)
    with_notebook = pins(resolve(requirement_files / "requirements-notebook.txt", python, platform))
    assert with_notebook["notebook"] == notebook_requirements().split("==")[-1].strip()


@pytest.mark.index
@pytest.mark.parametrize("image", IMAGES.values(), ids=list(IMAGES))
def test_each_image_lock_is_complete(image: Image):
    """Resolving the lock adds nothing and changes nothing: every package it needs is pinned in it."""
    assert pins(resolve(image.lock_path, image.python, image.platform)) == pins(image.lock())


@pytest.mark.index
@pytest.mark.parametrize("image", IMAGES.values(), ids=list(IMAGES))
def test_each_image_lock_installs_from_wheels_with_pip(image: Image, tmp_path: Path):
    """What setup.sh runs on the image: pip, with the image's Python and platform tags. (pip checks
    Requires-Python against the Python running it, not the target: the wheels' tags and the
    resolution above check the target.)"""
    platforms = [option for tag in image.pip_platforms() for option in ("--platform", tag)]
    run = subprocess.run([sys.executable, "-m", "pip", "install", "--dry-run", "--ignore-installed",
                          "--no-deps", "--only-binary=:all:", "--ignore-requires-python", "--python-version", image.python, *platforms,
                          "--target", str(tmp_path / "target"), "-r", str(image.lock_path)],
                         capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stderr[-3000:]
    would_install = run.stdout.split("Would install", 1)[-1].split()
    assert len(would_install) == len(pins(image.lock()))
