"""AMD GPUs: the amdsmi library when ROCm's libamd_smi.so loads, else `rocm-smi --json`.

Sources (research notes wave2.md §1, amdsmi 7.0.2 source read there): the library gives VRAM in
MB (`amdsmi_get_gpu_vram_usage`), power in W (`amdsmi_get_power_info`), an energy accumulator
times its resolution in µJ (`amdsmi_get_energy_count`; the unit is unverified, so energy from it
is labelled by the summary as a counter reading) and a process list with VRAM per process.
`rocm-smi … --json` prints one object per card with string values whose key spelling changed
between ROCm releases ("Card series"/"Card Series", average vs current socket power); values it
does not print stay None. The tool runs through :func:`gpuwise.probe.run.run_cmd`, so a hung
`rocm-smi` is killed at the timeout.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any, TypeVar

from gpuwise.monitor.model import GpuProcess, GpuReading
from gpuwise.monitor.policy import TOOL_TIMEOUT_S
from gpuwise.parse.rocm_smi import rocm_smi_object
from gpuwise.probe.run import run_cmd, which

T = TypeVar("T")
MB = 1024 * 1024
ROCM_SMI_ARGS = (
    "--showproductname",
    "--showmeminfo",
    "vram",
    "--showtemp",
    "--showpower",
    "--showuse",
    "--json",
)
_NUMBER = re.compile(r"-?\d+(?:\.\d+)?")


def _try(fn: Callable[[], T]) -> T | None:
    try:
        return fn()
    except Exception:
        return None


def _value(card: Mapping[str, Any], *keys: str) -> float | None:
    """The first key present with a number in it ("36.0", "(1200Mhz)"); N/A gives None."""
    for key in keys:
        raw = card.get(key)
        if isinstance(raw, (int, float)):
            return float(raw)
        if isinstance(raw, str) and (m := _NUMBER.search(raw)):
            return float(m.group(0))
    return None


def _name(card: Mapping[str, Any]) -> str:
    for key in ("Card Series", "Card series", "Device Name", "Card SKU", "Card Model"):
        value = card.get(key)
        if isinstance(value, str) and value and value != "N/A":
            return value
    return ""


def parse_rocm_smi_sample(text: str) -> list[GpuReading]:
    """Readings from `rocm-smi … --json`; ValueError when the text holds no JSON object."""
    data = rocm_smi_object(text)
    cards = sorted(
        (k for k in data if k.startswith("card") and k[4:].isdigit()), key=lambda k: int(k[4:])
    )
    return [_card_reading(int(k[4:]), data[k]) for k in cards if isinstance(data[k], dict)]


def _card_reading(index: int, card: Mapping[str, Any]) -> GpuReading:
    used = _value(card, "VRAM Total Used Memory (B)")
    total = _value(card, "VRAM Total Memory (B)")
    return GpuReading(
        vendor="amd",
        index=index,
        name=_name(card),
        uuid=str(card.get("Unique ID", "")) if card.get("Unique ID") not in (None, "N/A") else "",
        memory_used_bytes=int(used) if used is not None else None,
        memory_total_bytes=int(total) if total is not None else None,
        utilization_pct=_value(card, "GPU use (%)"),
        memory_utilization_pct=_value(card, "GPU memory use (%)", "GPU Memory Allocated (VRAM%)"),
        temperature_c=_value(
            card, "Temperature (Sensor edge) (C)", "Temperature (Sensor junction) (C)"
        ),
        power_w=_value(
            card,
            "Current Socket Graphics Package Power (W)",
            "Average Graphics Package Power (W)",
        ),
        power_limit_w=_value(card, "Max Graphics Package Power (W)"),
        sm_clock_mhz=_value(card, "sclk clock speed:"),
        memory_clock_mhz=_value(card, "mclk clock speed:"),
    )


class AmdSource:
    """Sample AMD GPUs; ``env`` gives the PATH; ``lib`` is the amdsmi module (None: import it
    if installed; False: use rocm-smi only)."""

    vendor = "amd"

    def __init__(
        self,
        env: Mapping[str, str] | None = None,
        lib: Any | None = None,
        timeout_s: float = TOOL_TIMEOUT_S,
    ) -> None:
        self._env = env
        self.timeout_s = timeout_s
        self._lib: Any = lib
        self._handles: list[Any] = []
        self._mode = ""

    def open(self) -> str:
        """Prefer the library; fall back to rocm-smi; 'missing:not_present' without either."""
        lib = self._lib if self._lib is not None else _import_amdsmi()
        if lib is not None and self._init_quietly(lib):
            self._lib, self._mode = lib, "lib"
            self._handles = list(_try(lib.amdsmi_get_processor_handles) or [])
            return "ok" if self._handles else "missing:no_device"
        if which("rocm-smi", self._env) is not None:
            self._mode = "cli"
            return "ok"
        return "missing:not_present"

    @staticmethod
    def _init_quietly(lib: Any) -> bool:
        """amdsmi_init returns None on success in the binding, so success is 'did not raise'."""
        try:
            lib.amdsmi_init()
        except Exception:
            return False
        return True

    def close(self) -> None:
        """Shut the library down (the CLI needs nothing)."""
        if self._mode == "lib" and self._lib is not None:
            _try(self._lib.amdsmi_shut_down)
        self._mode = ""

    def read(self) -> list[GpuReading]:
        """One reading per GPU; TimeoutError when rocm-smi hangs, ValueError on garbage."""
        if self._mode == "lib":
            return [self._lib_reading(i, h) for i, h in enumerate(self._handles)]
        res = run_cmd(["rocm-smi", *ROCM_SMI_ARGS], self.timeout_s, self._env)
        if res.timed_out:
            raise TimeoutError("rocm-smi")
        return parse_rocm_smi_sample(res.stdout)

    def _lib_reading(self, i: int, h: Any) -> GpuReading:
        lib = self._lib
        vram = _try(lambda: lib.amdsmi_get_gpu_vram_usage(h)) or {}
        power = _try(lambda: lib.amdsmi_get_power_info(h)) or {}
        activity = _try(lambda: lib.amdsmi_get_gpu_activity(h)) or {}
        asic = _try(lambda: lib.amdsmi_get_gpu_asic_info(h)) or {}
        return GpuReading(
            vendor=self.vendor,
            index=i,
            name=str(asic.get("market_name", "")),
            memory_used_bytes=_mb(vram.get("vram_used")),
            memory_total_bytes=_mb(vram.get("vram_total")),
            utilization_pct=_num(activity.get("gfx_activity")),
            temperature_c=self._temperature(h),
            power_w=_first_num(power, "current_socket_power", "average_socket_power"),
            power_limit_w=_num(power.get("power_limit")),
            energy_j=self._energy(h),
            processes=self._processes(h),
        )

    def _temperature(self, h: Any) -> float | None:
        lib = self._lib
        kind = getattr(getattr(lib, "AmdSmiTemperatureType", None), "EDGE", None)
        metric = getattr(getattr(lib, "AmdSmiTemperatureMetric", None), "CURRENT", None)
        if kind is None or metric is None:
            return None
        return _num(_try(lambda: lib.amdsmi_get_temp_metric(h, kind, metric)))

    def _energy(self, h: Any) -> float | None:
        count = _try(lambda: self._lib.amdsmi_get_energy_count(h)) or {}
        acc, res = _num(count.get("energy_accumulator")), _num(count.get("counter_resolution"))
        return acc * res * 1e-6 if acc is not None and res is not None else None

    def _processes(self, h: Any) -> tuple[GpuProcess, ...] | None:
        procs = _try(lambda: self._lib.amdsmi_get_gpu_process_list(h))
        if procs is None:
            return None
        out = []
        for p in procs:
            usage = p.get("memory_usage") or {}
            vram = usage.get("vram_mem", p.get("mem"))
            out.append(
                GpuProcess(
                    pid=int(p["pid"]), gpu_memory_bytes=_int(vram), name=str(p.get("name", ""))
                )
            )
        return tuple(out)


def _import_amdsmi() -> Any:
    """The amdsmi module, or None (not installed, or ROCm's library absent: OSError)."""
    try:
        import amdsmi  # type: ignore[import-not-found]
    except (ImportError, OSError):
        return None
    return amdsmi


def _num(value: Any) -> float | None:
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return float(value)
    if isinstance(value, str) and (m := _NUMBER.search(value)):
        return float(m.group(0))
    return None


def _first_num(data: Mapping[str, Any], *keys: str) -> float | None:
    for key in keys:
        if (number := _num(data.get(key))) is not None:
            return number
    return None


def _int(value: Any) -> int | None:
    number = _num(value)
    return int(number) if number is not None else None


def _mb(value: Any) -> int | None:
    number = _num(value)
    return int(number * MB) if number is not None else None
