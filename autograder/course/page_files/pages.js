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

function keepScore(input) {
  const key = stored(input.dataset.question, input.dataset.submission);
  const saved = localStorage.getItem(key);
  if (saved !== null) input.value = saved;
  input.addEventListener("input", () => {
    if (input.value === "") localStorage.removeItem(key);
    else localStorage.setItem(key, input.value);
  });
}

function csvCell(text) {
  return /[",\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

function saveCsv(button) {
  const questions = JSON.parse(button.dataset.questions);
  const students = JSON.parse(button.dataset.students);  // [submission, name, {question: points}]
  const rows = [["submission", "name", ...questions]];
  for (const [submission, name, given] of students) {
    rows.push([submission, name, ...questions.map((q) => localStorage.getItem(stored(q, submission)) ?? given[q] ?? "")]);
  }
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
