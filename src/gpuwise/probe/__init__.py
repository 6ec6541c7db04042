"""Probes: what doctor, audit and setup learn from this machine (tools run with deadlines,
NVML, /proc, files, HTTP to local servers). The parsers they share with `doctor --from` live in
gpuwise.parse; monitor/, supervise/ and bench/ are the other edges (docs/architecture.md).

Every probe has a timeout and returns a :mod:`gpuwise.parse.result` value (facts or a typed
failure); none raises. :func:`gpuwise.probe.collect.collect` runs them concurrently.
"""
