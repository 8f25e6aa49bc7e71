"""The contract both sides of the trust boundary share: the wire format (protocol), the messages of
a call and of the fork server (messages, fork_messages), what a call runs (target), the confinement
plan (plan), how the worker's processes start and what their exit status means (launch), what a
helper call keeps in step (state_sync), and the memory cgroup the supervisor joins (memory_cgroup).
The worker imports nothing of the trusted side but this package (tests/test_layout.py). Importing it
imports none of its modules."""
