"""Probes: the only code that touches the machine (subprocesses, NVML, /proc, files, HTTP).

Every probe has a timeout and returns a :mod:`gpuwise.parse.result` value (facts or a typed
failure); none raises. :func:`gpuwise.probe.collect.collect` runs them concurrently.
"""
