"""Read logs written without gpuwise into samples: `nvidia-smi --query-gpu … --format=csv -l N`
and `nvidia-smi dmon` output (pure parsing; the CLI stores the result as a run).

CSV: the header names the fields (`timestamp, index, name, memory.used [MiB], …`); values carry
their unit ("2856 MiB", "36 %") or not (`nounits`); "N/A", "[N/A]" and "[Not Supported]" are
None. Timestamps are nvidia-smi's local "YYYY/MM/DD HH:MM:SS.mmm". A new sample starts when a GPU
(by index, UUID, bus id or name) shows up again. Logs without a timestamp column are spaced by
the interval the user gives (the N of `-l N`), ending at the file's modification time.

dmon: a "# gpu pwr gtemp …" header (with "#Date Time" first under `-o DT`), a units line, then
one whitespace-separated row per GPU per tick; "-" is None. Columns read: gpu, pwr (W),
gtemp/temp (°C), sm (%), mem (%), pclk/mclk (MHz), fb (MB, which nvidia-smi counts in MiB).

What nvidia-smi never writes is refused with the line, not averaged in or dropped without a
word (newcomer review): a negative reading (a −150 W row pulled a mean of 195 W to 180 W), a
value that is not a number ("nan", "inf"; nvidia-smi's own placeholders are bracketed, like
"[N/A]", and read as missing), and timestamps that go back (the run's duration came out 0 s).
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from gpuwise.errors import UserError
from gpuwise.monitor.model import GpuReading, Sample
from gpuwise.probe.nvml_lib import throttle_names

MIB = 1024 * 1024
_NUMBER = re.compile(r"-?\d+(?:\.\d+)?")
_READING = re.compile(r"\s*(-?\d+(?:\.\d+)?)\s*(%|[a-zA-Z]+)?\s*")
_NA = {"", "n/a", "[n/a]", "[not supported]", "not supported", "-", "[unknown error]"}


class BadValue(ValueError):
    """A cell nvidia-smi would never write (negative, not a number); the parser adds the line."""


CSV_FIELDS: dict[str, tuple[str, Callable[[str], Any]]] = {}
"""nvidia-smi query field → (GpuReading field, converter); filled below."""


def _num(text: str) -> float | None:
    """A reading ("2856 MiB", "36 %", "150.2 W", "1410"); None for nvidia-smi's placeholders."""
    raw = text.strip()
    if raw.lower() in _NA or (raw.startswith("[") and raw.endswith("]")):
        return None
    m = _READING.fullmatch(raw)
    if m is None:
        raise BadValue(raw)
    value = float(m.group(1))
    if value < 0:
        raise BadValue(raw)
    return value


def _mib(text: str) -> int | None:
    value = _num(text)
    return int(value * MIB) if value is not None else None


def _int(text: str) -> int | None:
    value = _num(text)
    return int(value) if value is not None else None


def _str(text: str) -> str:
    return "" if text.strip().lower() in _NA else text.strip()


def _mask(text: str) -> tuple[str, ...] | None:
    raw = text.strip()
    if raw.lower() in _NA:
        return None
    try:
        return tuple(throttle_names(int(raw, 16)))
    except ValueError:
        return None


for _names, _target, _conv in (
    (("index",), "index", _int),
    (("name", "gpu_name"), "name", _str),
    (("uuid", "gpu_uuid"), "uuid", _str),
    (("pci.bus_id", "gpu_bus_id"), "pci_bus_id", _str),
    (("memory.used",), "memory_used_bytes", _mib),
    (("memory.total",), "memory_total_bytes", _mib),
    (("utilization.gpu",), "utilization_pct", _num),
    (("utilization.memory",), "memory_utilization_pct", _num),
    (("temperature.gpu",), "temperature_c", _num),
    (("power.draw", "power.draw.instant", "power.draw.average"), "power_w", _num),
    (("power.limit", "enforced.power.limit"), "power_limit_w", _num),
    (("clocks.sm", "clocks.current.sm"), "sm_clock_mhz", _num),
    (("clocks.mem", "clocks.current.memory"), "memory_clock_mhz", _num),
    (("clocks_throttle_reasons.active", "clocks_event_reasons.active"), "throttle_reasons", _mask),
):
    for _name in _names:
        CSV_FIELDS[_name] = (_target, _conv)


@dataclass(frozen=True)
class ImportedLog:
    """Samples read from a log, what kind of log it was, and the spacing of its samples."""

    kind: str
    samples: list[Sample]
    interval_s: float


def detect_kind(text: str) -> str:
    """'dmon' or 'csv'; a clear error for anything else."""
    for line in text.splitlines():
        stripped = line.strip()
        if not stripped:
            continue
        head = stripped.lstrip("#").split()
        if stripped.startswith("#") and head and head[0].lower() in ("gpu", "date"):
            return "dmon"
        if "," in stripped and any(
            f in stripped.lower() for f in ("memory.used", "index", "timestamp")
        ):
            return "csv"
        break
    raise UserError("import.unknown_format")


def _header_name(cell: str) -> str:
    return cell.split("[", 1)[0].strip().lower()


def _parse_time(text: str) -> float | None:
    for fmt in ("%Y/%m/%d %H:%M:%S.%f", "%Y/%m/%d %H:%M:%S", "%Y%m%d %H:%M:%S"):
        try:
            return dt.datetime.strptime(text.strip(), fmt).timestamp()
        except ValueError:
            continue
    return None


def _device_key(values: Mapping[str, Any], position: int) -> Any:
    for field in ("index", "uuid", "pci_bus_id", "name"):
        if values.get(field) not in (None, ""):
            return values[field]
    return position


def _group(
    rows: Sequence[tuple[float | None, dict[str, Any]]],
) -> list[list[tuple[float | None, dict[str, Any]]]]:
    """Rows split into ticks: a tick ends when a device it already has appears again."""
    groups: list[list[tuple[float | None, dict[str, Any]]]] = []
    seen: set[Any] = set()
    for row in rows:
        key = _device_key(row[1], len(seen))
        if not groups or key in seen:
            groups.append([])
            seen = set()
        seen.add(key)
        groups[-1].append(row)
    return groups


def _samples(
    rows: Sequence[tuple[float | None, dict[str, Any]]], interval_s: float, end_t: float
) -> list[Sample]:
    groups = _group(rows)
    timed = all(g[0][0] is not None for g in groups)
    out = []
    for k, group in enumerate(groups):
        t = group[0][0] if timed else end_t - (len(groups) - 1 - k) * interval_s
        gpus = tuple(
            GpuReading(vendor="nvidia", **{"index": pos, **values})
            for pos, (_, values) in enumerate(group)
        )
        out.append(Sample(t=float(t or 0.0), gpus=gpus, sources={"nvidia": "ok"}))
    return out


def parse_query_csv(text: str, interval_s: float, end_t: float) -> ImportedLog:
    """Samples from an `nvidia-smi --query-gpu=… --format=csv` log (header required)."""
    header: list[str] | None = None
    rows: list[tuple[float | None, dict[str, Any]]] = []
    for number, line in enumerate(text.splitlines(), 1):
        cells = [c.strip() for c in line.split(",")]
        if not line.strip():
            continue
        names = [_header_name(c) for c in cells]
        if any(n in CSV_FIELDS or n == "timestamp" for n in names) and not any(
            _NUMBER.fullmatch(c) for c in cells
        ):
            header = names
            continue
        if header is None:
            raise UserError("import.csv_no_header")
        values: dict[str, Any] = {}
        t: float | None = None
        for name, cell in zip(header, cells, strict=False):
            if name == "timestamp":
                t = _parse_time(cell)
            elif name in CSV_FIELDS:
                target, conv = CSV_FIELDS[name]
                values[target] = _convert(conv, cell, number, name)
        if values.get("index") is None:
            values.pop("index", None)
        _check_order(rows, t, number)
        rows.append((t, values))
    if not rows:
        raise UserError("import.empty")
    return ImportedLog("nvidia-smi-csv", _samples(rows, interval_s, end_t), interval_s)


def _convert(conv: Callable[[str], Any], cell: str, line: int, field: str) -> Any:
    try:
        return conv(cell)
    except BadValue:
        raise UserError("import.bad_value", line=line, field=field, value=cell) from None


def _check_order(rows: Sequence[tuple[float | None, dict[str, Any]]], t: float | None,
                 line: int) -> None:  # fmt: skip
    """Timestamps must not go back: the log of one run is written in time order."""
    before = next((r[0] for r in reversed(rows) if r[0] is not None), None)
    if t is not None and before is not None and t < before:
        raise UserError("import.time_backwards", line=line)


DMON_FIELDS: dict[str, tuple[str, Callable[[str], Any]]] = {
    "gpu": ("index", _int),
    "pwr": ("power_w", _num),
    "gtemp": ("temperature_c", _num),
    "temp": ("temperature_c", _num),
    "sm": ("utilization_pct", _num),
    "mem": ("memory_utilization_pct", _num),
    "pclk": ("sm_clock_mhz", _num),
    "mclk": ("memory_clock_mhz", _num),
    "fb": ("memory_used_bytes", _mib),
}


def parse_dmon(text: str, interval_s: float, end_t: float) -> ImportedLog:
    """Samples from `nvidia-smi dmon` output (any `-s` selection, optional `-o DT`)."""
    header: list[str] | None = None
    rows: list[tuple[float | None, dict[str, Any]]] = []
    for number, line in enumerate(text.splitlines(), 1):
        tokens = line.split()
        if not tokens:
            continue
        if line.lstrip().startswith("#"):
            names = line.lstrip().lstrip("#").lower().split()
            if names and names[0] in ("gpu", "date"):
                header = names
            continue
        if header is None or len(tokens) != len(header):
            continue
        cells = dict(zip(header, tokens, strict=True))
        values = {
            DMON_FIELDS[k][0]: _convert(DMON_FIELDS[k][1], v, number, k)
            for k, v in cells.items()
            if k in DMON_FIELDS
        }
        stamp = f"{cells['date']} {cells['time']}" if "date" in cells and "time" in cells else ""
        t = _parse_time(stamp) if stamp else None
        _check_order(rows, t, number)
        rows.append((t, values))
    if not rows:
        raise UserError("import.empty")
    return ImportedLog("nvidia-smi-dmon", _samples(rows, interval_s, end_t), interval_s)


def parse_log(text: str, interval_s: float, end_t: float) -> ImportedLog:
    """Either kind of log, detected from its first line."""
    kind = detect_kind(text)
    return (
        parse_dmon(text, interval_s, end_t)
        if kind == "dmon"
        else parse_query_csv(text, interval_s, end_t)
    )
