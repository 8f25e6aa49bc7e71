"""Written answers: reading them from a notebook or a Markdown file, checking them before
submission, grading the ones a program can grade, and exporting the rest for grading by hand."""
