"""Measuring: sample GPUs and the host, record a command's run, export Prometheus metrics.

This package is edge code beside :mod:`gpuwise.probe`: it reads the machine (NVML, vendor tools
through :func:`gpuwise.probe.run.run_cmd`, psutil), runs the user's command (`record`) and
serves `/metrics` (`exporter`). The summaries it prints come from pure functions
(:mod:`gpuwise.monitor.summary`, :mod:`gpuwise.monitor.alerts`).

The sampling API (for `watch`, `record`, `exporter` and later `bench`/`calibrate`):

- :class:`gpuwise.monitor.model.Sample` — one moment: every GPU's :class:`GpuReading`, the host's
  :class:`HostReading` and each source's status. A value that could not be read is ``None``
  (shown as N/A), never 0.
- :class:`gpuwise.monitor.sampler.Sampler` — ``open()`` the sources found on this machine,
  ``sample()`` as often as needed, ``close()``.
- :class:`gpuwise.monitor.store.RunStore` — recorded runs in SQLite (schema in docs/monitor.md).
"""
