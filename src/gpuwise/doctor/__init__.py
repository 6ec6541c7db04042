"""`gpuwise doctor`: pure rules over the facts the probes gathered.

Nothing in this package touches the machine; rules take the probe results and the sourced
compatibility tables and return findings (id, level, what was seen, why it matters, the fix as
commands for this system). See :func:`gpuwise.doctor.engine.diagnose`.
"""
