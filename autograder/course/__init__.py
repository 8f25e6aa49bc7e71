"""The course's tools around grading, one module per command: the student bundle (``release``) and
the starter it is made from, the Gradescope zip (``build``) and what runs in it (``gradescope``),
regrading a class (``grade-batch``) and its gradebook, the student's self-check (``check``) and zip
(``collect-submission``), the shipped dataset and the pinned dependencies."""
