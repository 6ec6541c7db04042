"""Pure parts of `gpuwise supervise`: read a preemption notice, plan the wait, judge checkpoints,
decide restarts and summarise the journal. No I/O here; the edge code lives in gpuwise.supervise.
"""
