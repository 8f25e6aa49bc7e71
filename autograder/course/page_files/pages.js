// The pages of export-written: one group of answers at a time, and the points a TA enters, kept in
// the browser's storage (so they survive a reload) and saved from the index as hand_graded.csv.
"use strict";

// Scores are kept per folder of pages, so two exports of one assignment do not share them.
const folder = location.pathname.replace(/[^/]*$/, "");
const stored = (question, submission) => `hand-graded:${folder}:${question}:${submission}`;

function showGroup(button) {
  for (const other of document.querySelectorAll("[data-show]")) {
    other.setAttribute("aria-pressed", String(other === button));
  }
  const group = button.dataset.show;
  for (const answer of document.querySelectorAll("article[data-group]")) {
    answer.hidden = group !== "all" && answer.dataset.group !== group;
  }
}

// A box shows what this browser keeps, else the points already in hand_graded.csv (its value when
// the page was written); where the two differ the box says so, as the CSV may have been corrected.
function keepScore(input) {
  const key = stored(input.dataset.question, input.dataset.submission);
  const inCsv = input.defaultValue;
  const saved = localStorage.getItem(key);
  if (saved !== null) input.value = saved;
  const note = input.parentElement.querySelector(".differs");
  const show = () => {
    const differs = localStorage.getItem(key) !== null && inCsv !== "" && input.value !== inCsv;
    note.textContent = differs ? `hand_graded.csv has ${inCsv}` : "";
  };
  show();
  // An emptied box is kept empty (not given back the CSV's points): "" is stored, not removed.
  input.addEventListener("input", () => { localStorage.setItem(key, input.value); show(); });
}

// The points of a box, or why they cannot be saved.
function problem(value, question, points) {
  if (value === "") return "";
  const number = Number(value);
  return Number.isFinite(number) && number >= 0 && number <= points ? "" : `${value} is not between 0 and ${points}`;
}

function csvCell(text) {
  return /[",\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

function saveCsv(button) {
  const questions = JSON.parse(button.dataset.questions);  // [[id, points]]
  const students = JSON.parse(button.dataset.students);  // [submission, name, {question: points}]
  const rows = [["submission", "name", ...questions.map(([q]) => q)]];
  const problems = [];
  for (const [submission, name, given] of students) {
    const cells = questions.map(([q]) => localStorage.getItem(stored(q, submission)) ?? String(given[q] ?? ""));
    questions.forEach(([q, points], i) => {
      const why = problem(cells[i], q, points);
      if (why) problems.push(`${name}, ${q}: ${why}`);
    });
    rows.push([submission, name, ...cells]);
  }
  const report = document.getElementById("save-problems");
  report.textContent = problems.length ? `Not saved; fix these points first: ${problems.join("; ")}` : "";
  if (problems.length) return;
  const text = rows.map((row) => row.map(csvCell).join(",")).join("\n") + "\n";
  const link = document.createElement("a");
  link.href = URL.createObjectURL(new Blob([text], { type: "text/csv" }));
  link.download = "hand_graded.csv";
  link.click();
  URL.revokeObjectURL(link.href);
}

document.querySelectorAll("[data-show]").forEach((b) => b.addEventListener("click", () => showGroup(b)));
document.querySelectorAll("input.score-input").forEach(keepScore);
document.querySelectorAll("#save-csv").forEach((b) => b.addEventListener("click", () => saveCsv(b)));
