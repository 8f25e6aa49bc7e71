"""The untrusted side: the processes that import and run the student's code (the fork server, each
worker's supervisor and its confined child, or the portable path's plain worker). It imports nothing of
the grader but :mod:`autograder.contract`: tests/test_layout.py."""
