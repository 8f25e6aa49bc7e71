"""The grading core, trusted: an assignment's tests and the checks they make, the reference and its
expected values, who owns each function (error carried forward), and the import check.
:func:`autograder.grading.grade.grade` grades one submission into results; nothing here runs student
code itself (that goes through :mod:`autograder.boundary`)."""
