"""The pages export-written writes, opened as a TA opens them: in a real browser (Debian's headless
Chromium, driven by Playwright), offline, at a laptop's width. The answers are the two labelled sets
of derivations (benchmarks/data/derivation_answers.yaml and derivation_answers_heldout.yaml), each
answer a student's answer file."""

from __future__ import annotations

import csv
import os
import re
import shutil
from pathlib import Path

import pytest
import yaml

from autograder.core.config import REPO_ROOT, load_assignment
from autograder.course.export_written import export_pages, gather
from autograder.course.hand_graded import read_hand_graded
from autograder.written.handout_data import derivation_questions

pytestmark = pytest.mark.slow  # the end-to-end tier: -m slow (README: "Set up and test")

SETS = ("derivation_answers.yaml", "derivation_answers_heldout.yaml")
LAPTOP = {"width": 1366, "height": 768}
INSTALL = (
    "these tests open the pages in Chromium: install Debian's package (apt-get install chromium; "
    ".ci/run does), or set CHROMIUM=/path/to/chromium or chrome"
)
# Without the background-networking flags Chromium tries to reach Google's hosts at every start.
FLAGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
         "--disable-sync", "--no-first-run"]  # fmt: skip


@pytest.fixture(scope="module")
def browser(pages):
    """Started once the pages are written: Python code run while Playwright's sync API is active runs
    several times slower (its event loop runs beside it), and writing them takes seconds of it."""
    chromium = os.environ.get("CHROMIUM") or shutil.which("chromium")
    if not chromium:
        pytest.fail(INSTALL)
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=chromium, args=FLAGS)
        yield launched
        launched.close()


def _answer_files(folder: Path, assignment: str) -> list[Path]:
    """One answer file per labelled answer of ``assignment``, under the question's heading."""
    files = []
    for name in SETS:
        for entry in yaml.safe_load((REPO_ROOT / "benchmarks" / "data" / name).read_text(encoding="utf-8")):
            if entry["assignment"] == assignment:
                path = folder / f"{entry['id']}.md"
                path.write_text(f"## {entry['question']}\n\n{entry['answer']}", encoding="utf-8")
                files.append(path)
    return files


@pytest.fixture(scope="module")
def pages(tmp_path_factory) -> dict[str, tuple[str, Path, list[Path]]]:
    """Each assignment's pages: (its name, their folder, the question pages)."""
    written = {}
    for name in ("word2vec", "parser"):
        folder = tmp_path_factory.mktemp(f"pages-{name}")
        assignment = load_assignment(name)
        (folder / "answers").mkdir()
        files = _answer_files(folder / "answers", name)
        # A student's images and links: a tracking pixel, a file of the TA's disk, a page elsewhere.
        files[0].write_text(files[0].read_text(encoding="utf-8") + "\n\n![me](https://i.example.net/pixel.gif?s=1) "
                            "![disk](/etc/hostname) [my notes](http://notes.example.net)\n", encoding="utf-8")
        students = gather(assignment, files)
        written[name] = name, folder / "pages", export_pages(assignment, students, folder / "pages")
    return written


@pytest.fixture(params=["word2vec", "parser"])
def exported(request, pages) -> tuple[str, Path, list[Path]]:
    return pages[request.param]


class Visit:
    """A page opened offline at a laptop's width, with every request it made."""

    def __init__(self, browser, url: str, context=None) -> None:
        self.context = context or browser.new_context(offline=True, viewport=LAPTOP, accept_downloads=True)
        self.requests: list[str] = []
        self.context.on("request", lambda request: self.requests.append(request.url))
        self.page = self.context.new_page()
        self.page.goto(url)


def test_every_formula_is_rendered_offline_and_nothing_is_fetched(browser, exported):
    name, folder, pages = exported
    derivations = 0
    for path in pages:
        visit = Visit(browser, path.as_uri())
        page = visit.page
        assert visit.requests == [path.as_uri()], f"{path.name} asked for more than itself: {visit.requests}"
        # Everything a TA sees: the math typeset, and how the machine read a formula in symbols.
        text = page.inner_text("body")
        left = [token for token in ("$", "\\frac", "\\hat", "\\partial", "\\theta") if token in text]
        assert left == [], f"{path.name}: raw LaTeX in the visible text: {left}"
        assert page.locator("code.latex").count() == 0, f"{path.name}: a formula shown as code"
        assert page.locator("math").count() > 0
        answers = page.locator("article[data-group]:not([data-group=unanswered])")
        for i in range(answers.count()):  # each answer says where it is: the student's file and line
            assert re.search(r"\.md, line \d+", answers.nth(i).locator(".source").inner_text())
        badges = page.locator(".verdict b")
        if badges.count():
            derivations += 1
            assert badges.count() == answers.count() and badges.first.is_visible()
            assert set(badges.all_inner_texts()) <= {"equal", "not equal", "unreadable"}
        width = page.evaluate("document.documentElement.scrollWidth")
        assert width <= LAPTOP["width"], f"{path.name} is {width} pixels wide: it scrolls sideways on a laptop"
        visit.context.close()
    assert derivations == len(derivation_questions(load_assignment(name)))  # each with its badges


def test_the_summary_shows_one_group_at_a_time(browser, exported):
    name, folder, _ = exported
    page = Visit(browser, (folder / ("2b-ii.html" if name == "word2vec" else "1c-i.html")).as_uri()).page
    counts = {b.get_attribute("data-show"): int(re.search(r"\((\d+)\)", b.inner_text())[1])
              for b in page.locator("[data-show]").all()}  # fmt: skip
    assert counts["all"] == page.locator("article").count() and counts.get("equal", 0) > 0
    for group, count in counts.items():
        page.click(f"[data-show='{group}']")
        shown = page.locator("article:visible")
        assert shown.count() == count, group
        if group != "all":
            assert {a.get_attribute("data-group") for a in shown.all()} == {group}
    page.screenshot(path=str(folder / "summary.png"), full_page=False)
    assert (folder / "summary.png").stat().st_size > 10_000


def test_points_entered_survive_a_reload_and_save_as_the_gradebooks_csv(browser, exported, tmp_path):
    name, folder, pages = exported
    context = Visit(browser, pages[0].as_uri()).context
    page = context.pages[0]
    first = page.locator("input.score-input").first
    submission, question = first.get_attribute("data-submission"), first.get_attribute("data-question")
    first.fill("1.5")
    second = page.locator("input.score-input").nth(1)
    second.fill("99")  # more than the question's points
    page.reload()
    assert page.locator("input.score-input").first.input_value() == "1.5"
    page.goto((folder / "index.html").as_uri())
    page.click("#save-csv")  # refused: nothing is downloaded, and the page says why
    assert "99 is not between 0 and" in page.inner_text("#save-problems")
    page.goto(pages[0].as_uri())
    page.locator("input.score-input").nth(1).fill("")  # emptied, it stays empty
    page.reload()
    assert page.locator("input.score-input").nth(1).input_value() == ""
    page.goto((folder / "index.html").as_uri())
    with page.expect_download() as download:
        page.click("#save-csv")
    assert page.inner_text("#save-problems") == ""
    saved = tmp_path / "hand_graded.csv"
    download.value.save_as(saved)
    rows = list(csv.DictReader(saved.open(encoding="utf-8")))
    assert [r[question] for r in rows if r["submission"] == submission] == ["1.5"]
    assert sum(1 for r in rows for q, v in r.items() if q not in ("submission", "name") and v) == 1
    scores = read_hand_graded(saved, load_assignment(name).config)  # what grade-batch --hand-graded reads
    assert scores[f"submission:{submission.lower()}"] == {question: 1.5}
    context.close()


def test_no_page_the_project_writes_refers_outside_its_folder(exported):
    """Every link, script, style and image of every page written is in the page or beside it."""
    _, folder, _ = exported
    for path in folder.glob("*.html"):
        text = path.read_text(encoding="utf-8")
        for reference in re.findall(r"""(?:src|href)\s*=\s*["']([^"']*)["']""", text, flags=re.IGNORECASE):
            assert not re.match(r"[a-z][a-z0-9+.-]*:|//|/", reference, flags=re.IGNORECASE), (path.name, reference)
            assert (folder / reference.split("#")[0]).exists() or reference.startswith("#"), (path.name, reference)
        assert "@import" not in text and "url(" not in text, path.name
