"""The summary table: one row per probe, saying in a few words what it saw."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from gpuwise.doctor.verdict import row_verdict
from gpuwise.i18n import t
from gpuwise.parse.result import Found, Missing, ProbeResult
from gpuwise.parse.view import (
    Facts,
    driver_max_cuda,
    driver_version,
    found,
    nvidia_gpus,
    torch_info,
)

GIB = 1024**3


def reason_text(reason: str) -> str:
    """A failure reason code in words (the code itself when it has no message)."""
    key = f"doctor.reason.{reason}"
    text = t(key)
    return reason if text == key else text


def _status_text(r: ProbeResult | None) -> str:
    """Generic words for a result without facts worth quoting."""
    if r is None:
        return t("doctor.sum.not_run")
    if isinstance(r, Missing):
        return reason_text(r.reason) if r.reason else t("doctor.sum.missing")
    if r.status == "timeout":
        return t("doctor.sum.timeout")
    if isinstance(r, Found):
        return t("doctor.sum.unknown")
    return t("doctor.sum.failed", reason=reason_text(r.reason), detail=r.detail)


def _system(facts: Facts) -> str:
    s = found(facts, "system")
    if not s.get("os"):
        return t("doctor.sum.unknown")  # pasted: only the package manager was implied
    distro = s.get("distro_name") or s.get("macos") or ""
    return f"{s.get('os', '?')} {s.get('kernel', '')} {f'({distro})' if distro else ''}".strip()


def _wsl(facts: Facts) -> str:
    w = found(facts, "wsl")
    if not w:
        return t("doctor.sum.no")
    dxg = "/dev/dxg ✓" if w.get("dxg") else "/dev/dxg ✗"
    return f"WSL{w.get('version')} {w.get('distro', '')} ({dxg})"


def _container(facts: Facts) -> str:
    c = found(facts, "container")
    d = c.get("docker") or {}
    inside = c.get("runtime") or ("kubernetes" if c.get("kubernetes") else "")
    where = t("doctor.sum.inside", runtime=inside) if c.get("in_container") else t("doctor.sum.no")
    if not d.get("installed"):
        return where
    state = ", ".join(d.get("runtimes") or []) if d.get("daemon") else t("doctor.sum.daemon_down")
    return f"{where}; docker: {state}"


def _nvidia(facts: Facts) -> str:
    gpus = nvidia_gpus(facts)
    driver = driver_version(facts)
    if not gpus and not driver:
        return _status_text(
            facts.get("nvml")
            if isinstance(facts.get("nvidia_smi"), Missing)
            else facts.get("nvidia_smi")
        )
    names: dict[str, int] = {}
    for g in gpus:
        mem = g.memory_total_bytes
        label = (g.name or "?") + (f" {mem / GIB:.0f} GiB" if mem else "")
        names[label] = names.get(label, 0) + 1
    listed = any(isinstance(facts.get(n), Found) for n in ("nvml", "nvidia_smi"))
    none = t("doctor.sum.zero_gpus") if listed else t("doctor.sum.gpus_unlisted")
    listing = ", ".join(f"{n}× {k}" for k, n in names.items()) or none
    return t(
        "doctor.sum.nvidia", gpus=listing, driver=driver or "?", cuda=driver_max_cuda(facts) or "?"
    )


def _toolkit(facts: Facts) -> str:
    r = facts.get("toolkit")
    tk = r.facts if r is not None else {}
    nvccs = [n for n in tk.get("nvcc") or [] if n.get("version")]
    if nvccs:
        return ", ".join(f"nvcc {n['version']} ({n['path']})" for n in nvccs)
    if isinstance(r, Missing) and r.reason == "not_on_path":
        return t(
            "doctor.sum.nvcc_not_on_path", installed=", ".join(tk.get("installed") or []) or "—"
        )
    return _status_text(r)


def _torch(facts: Facts) -> str:
    tt = torch_info(facts)
    if not tt:
        return _status_text(facts.get("torch"))
    unknown = tt.get("build_unknown") or not tt.get("version")  # a paste that showed no build
    build = (
        "?"
        if unknown and not tt.get("cuda") and not tt.get("hip")
        else f"CUDA {tt['cuda']}"
        if tt.get("cuda")
        else (f"ROCm {tt['hip']}" if tt.get("hip") else "CPU")
    )
    avail = (
        t("doctor.sum.available", n=len(tt.get("devices") or []))
        if tt.get("is_available")
        else t("doctor.sum.unavailable")
        if tt.get("is_available") is False
        else t("doctor.sum.availability_unknown")
    )
    return f"{tt.get('version', '?')} ({build}), {avail}"


def _python(facts: Facts) -> str:
    """The Python whose PyTorch was checked, and the environment it lives in."""
    r = facts.get("torch")
    py = (r.facts if r is not None else {}).get("python") or {}
    if not py:
        return _status_text(r)
    if "venv" not in py and "conda" not in py:  # pasted: only the version is known
        return str(py.get("version", "?"))
    kind = (
        "conda"
        if py.get("conda")
        else ("venv" if py.get("venv") else t("doctor.sum.system_python"))
    )
    return f"{py.get('version', '?')} ({kind}) {py.get('executable', '')}"


def _vendor(name: str, key: str, fmt: Callable[[dict[str, Any]], str]) -> Callable[[Facts], str]:
    def row(facts: Facts) -> str:
        f = found(facts, name)
        return fmt(f) if f.get(key) else _status_text(facts.get(name))

    return row


def _ollama(facts: Facts) -> str:
    r = facts.get("ollama")
    o = found(facts, "ollama")
    if not isinstance(r, Found):
        return _status_text(r)
    if "models" not in o:  # from a pasted log: the version is known, what is loaded is not
        return t("doctor.sum.ollama_log", version=o.get("version") or "?")
    return t(
        "doctor.sum.ollama",
        version=o.get("version", "?"),
        url=o.get("url", ""),
        n=len(o.get("models") or []),
    )


def _nccl(facts: Facts) -> str:
    n = found(facts, "nccl_env")
    smoke = facts.get("nccl_smoke")
    text = t("doctor.sum.nccl_vars", n=len(n.get("env") or {}))
    if isinstance(smoke, Found):
        bw = smoke.facts.get("busbw_gbps")
        text += f"; {smoke.facts.get('backend')} ×{smoke.facts.get('world_size')}" + (
            f", {bw:.1f} GB/s" if bw else ""
        )
    elif smoke is not None:
        text += "; " + _status_text(smoke)
    return text


ROWS: tuple[tuple[str, str, Callable[[Facts], str]], ...] = (
    ("system", "doctor.row.system", _system),
    ("wsl", "doctor.row.wsl", _wsl),
    ("container", "doctor.row.container", _container),
    ("nvidia_smi", "doctor.row.nvidia", _nvidia),
    ("toolkit", "doctor.row.toolkit", _toolkit),
    ("torch", "doctor.row.python", _python),
    ("torch", "doctor.row.torch", _torch),
    (
        "amd",
        "doctor.row.amd",
        _vendor(
            "amd", "cards", lambda f: ", ".join(c.get("name") or c["card"] for c in f["cards"])
        ),
    ),
    (
        "intel",
        "doctor.row.intel",
        _vendor("intel", "gpus", lambda f: f"{len(f['gpus'])}: {f['gpus'][0]}"),
    ),
    (
        "ascend",
        "doctor.row.ascend",
        _vendor("ascend", "npus", lambda f: f"{len(f['npus'])}× {f['npus'][0].get('name', '')}"),
    ),
    ("ollama", "doctor.row.ollama", _ollama),
    ("nccl_env", "doctor.row.nccl", _nccl),
)


def summary(facts: Facts, findings: list[dict[str, Any]] | None = None) -> list[dict[str, Any]]:
    """Rows of {probe, label, status, verdict, value} for the probes that ran.

    `verdict` is the worst level among the findings about that row's component (None when
    there is none), so the row never says "found" in green while a finding says it is broken.
    """
    out = []
    for probe, label, fn in ROWS:
        r = facts.get(probe)
        if r is None:
            continue
        try:
            value = fn(facts)
        except Exception as exc:  # a summary must never break the report
            value = f"({type(exc).__name__})"
        status = r.status
        if label == "doctor.row.python" and (r.facts or {}).get("python"):
            status = "found"  # the interpreter was there even when torch is not
        verdict = row_verdict(probe, findings or []) if label != "doctor.row.python" else None
        out.append(
            {
                "probe": probe,
                "row": label.rsplit(".", 1)[-1],
                "label": t(label),
                "status": status,
                "verdict": verdict,
                "value": value,
            }
        )
    return out
