"""Settings of the monitor (policy, not facts: change them freely).

These numbers decide when something is worth a warning and how much history is kept; facts
(tariffs, GPU specs) come from the catalog with their sources.
"""

from __future__ import annotations

MEMORY_WARN_FRACTION = 0.95
"""Warn when a GPU's used memory passes this share of its total (the issue's 95 %): the next
allocation of a growing job is likely to fail with "out of memory"."""

THROTTLE_WARN_REASONS = frozenset(
    {
        "sw_power_cap",
        "hw_slowdown",
        "sw_thermal_slowdown",
        "hw_thermal_slowdown",
        "hw_power_brake_slowdown",
    }
)
"""Clock-event reasons that mean lost speed from heat or power (idle, application clocks,
sync boost and display clocks are normal and not warned about)."""

TOOL_TIMEOUT_S = 5.0
"""Longest a vendor tool (rocm-smi, npu-smi, ioreg) may take for one sample before it is killed."""

POWERMETRICS_WINDOW_MS = 500
"""Apple `powermetrics` averaging window for one GPU power reading (only run when allowed)."""

RAW_WINDOW_S = 3600.0
"""A recorded run keeps every sample of its last hour; older samples are merged into buckets."""

BUCKET_S = 60.0
"""Length of a merged bucket of history (mean, maximum, last energy counter kept)."""

COMPACT_EVERY_S = 600.0
"""How often a long recording merges its old samples into buckets."""

ENERGY_COUNTER_MIN_S = 1.0
"""Below this run length the NVML energy counter is not trusted: it updates only every
20–100 ms (PETSc docs, https://petsc.org/main/manualpages/Log/PetscLogGpuEnergyMeter, read
2026-12-02), so ∫power dt is used instead, as zeus's approx_instant_energy does."""

DEFAULT_INTERVAL_S = 1.0
"""Sampling interval of `watch` and `record` when none is given."""

EXPORTER_INTERVAL_S = 5.0
"""Sampling interval of the exporter (Prometheus usually scrapes every 15–60 s)."""

EXPORTER_PORT = 9835
"""Default port of `gpuwise exporter` (an assumption: chosen to stay clear of dcgm-exporter's
9400, node_exporter's 9100 and nvitop-exporter's 8000)."""
