"""The trust boundary, seen from the trusted side: the session through which tests call the student's
code in a worker process, the fork server that starts workers, what confines them (isolation), and the
plain-subprocess session of the self-check off Linux. What both sides share is in
:mod:`autograder.contract`. Importing this package imports none of its modules."""
