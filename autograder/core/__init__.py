"""What every other part builds on: an assignment's validated config, where a submission's files are,
Gradescope's results.json, and removing or writing files without following links."""
