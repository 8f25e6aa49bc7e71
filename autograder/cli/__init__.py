"""``python -m autograder``: a thin command line, one module per audience (student, staff) that only
parses arguments, calls the package that does the job and prints its result."""
