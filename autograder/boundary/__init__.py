"""The trust boundary, seen from the trusted side: the session through which tests call the student's
code in a worker process, the fork server that starts workers, what confines them (isolation), the
wire format both sides speak (protocol, also imported by the worker), and the plain-subprocess
session of the self-check off Linux. Importing this package imports none of its modules."""
