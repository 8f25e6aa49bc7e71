"""Auto-grading framework for the numpy NLP assignments (``python -m autograder --help``)."""
