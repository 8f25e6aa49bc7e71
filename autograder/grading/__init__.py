"""The grading core, trusted: an assignment's config, its tests and the checks they make, the
reference's expected values, and the results. :func:`autograder.grading.grade.grade` grades one
submission; nothing here runs student code itself (that goes through :mod:`autograder.boundary`)."""
