"""The import check: modules that hang or end the worker at import are found once, then refused."""

from __future__ import annotations

import pytest

from autograder.core.config import Limits
from autograder.grading.preflight import broken_imports
from autograder.boundary.session import StudentRaised, WorkerSession, WorkerSpec

pytestmark = pytest.mark.smoke  # also run on Python 3.10 and the newest Python (.ci/run)

MODULES = {
    "fine": "def f():\n    return 1\n",
    "raises": "raise ValueError('at import')\n",
    "dies": "import os\nos._exit(3)\n",
    "uses_dies": "import dies\n\ndef f():\n    return 2\n",
    "hangs": "while True:\n    pass\n",
    "after_hangs": "def f():\n    return 3\n",
}


@pytest.fixture(scope="module")
def spec(tmp_path_factory) -> WorkerSpec:
    folder = tmp_path_factory.mktemp("submission")
    files = {}
    for name, text in MODULES.items():
        files[f"{name}.py"] = folder / f"{name}.py"
        files[f"{name}.py"].write_text(text)
    return WorkerSpec(files=files, fixtures_module=None, limits=Limits())


def test_hanging_and_dying_imports_are_reported_once(spec):
    broken = broken_imports(spec, list(MODULES), seconds=2)
    # an import that raises costs nothing and is reported by every test; after the hang the
    # budget is spent, so the modules after it are left to the questions' own workers
    assert sorted(broken) == ["dies", "hangs", "uses_dies"]
    assert broken["hangs"].startswith("not run: importing hangs.py did not finish within the 2 s")
    assert "dies.py could not be imported: the process running your code exited with status 3" \
        in broken["dies"]


def test_questions_refuse_a_broken_module_and_its_importers_at_once(spec):
    blocked = {"dies": "not run: dies.py could not be imported: it exited"}
    with WorkerSession(WorkerSpec(spec.files, None, spec.limits, blocked_modules=blocked), 5, "1") as worker:
        with pytest.raises(StudentRaised) as direct:
            worker.call("dies.anything")
        assert str(direct.value) == blocked["dies"]
        with pytest.raises(StudentRaised) as indirect:
            worker.call("uses_dies.f")
        assert indirect.value.kind == "import_error" and blocked["dies"] in str(indirect.value)
        assert worker.call("fine.f").value == 1  # the same worker is still alive and well
