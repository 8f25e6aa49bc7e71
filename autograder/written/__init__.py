"""Written answers: the handout's questions (its source and each assignment's answer formats), reading
answers from a notebook or a Markdown file, checking them before submission, and grading the ones a
program can grade. (The pages for grading the rest by hand are ``course/export_written``.)"""
