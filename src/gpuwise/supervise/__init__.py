"""Edge code of `gpuwise supervise -- CMD`: the child process group, signals, the metadata
poller, the checkpoint-directory scanner and the SQLite journal. Decisions are made by the pure
functions in gpuwise.preempt; this package only touches the machine.
"""
