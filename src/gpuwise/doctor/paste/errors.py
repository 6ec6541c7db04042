"""Python tracebacks and warnings that name a GPU-stack cause.

- "X with CUDA capability sm_NN is not compatible … supports CUDA capabilities sm_…": the GPU,
  its capability and the wheel's arch list in one line.
- "no kernel image is available for execution on the device": the wheel lacks this GPU.
- "The NVIDIA driver on your system is too old (found version 11040)": the driver's CUDA (11.4).
- "CUDA driver version is insufficient for CUDA runtime version": driver too old, no numbers.
- "Torch not compiled with CUDA enabled": a CPU build.
- "cuDNN version incompatibility: … compiled against (8, 7, 0) but found runtime version …".
- "HIP error: invalid device function": a ROCm build without this gfx target.
- NCCL errors and watchdog timeouts; "undefined symbol" from torch_npu.
- "CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 23.55 GiB of
  which 1.06 GiB is free" (and the older "(GPU 0; 23.65 GiB total capacity; …)" form).
"""

from __future__ import annotations

import re
from typing import Any

from gpuwise.doctor.paste.model import Block, hits, line_span

# Anchored on the literal text (a lazy name prefix tried at every offset is slow on 1 MB); the
# GPU name is what precedes it on its line, the arch list what follows on the next one.
_INCOMPATIBLE = re.compile(
    r" with CUDA capability sm_(?P<cc>\d+) is not compatible with the current"
    r" PyTorch installation\."
)
_SUPPORTS = re.compile(
    r"\s*(?:[^\n]{0,300}?\]:\s*)?The current PyTorch install supports CUDA capabilities "
    r"(?P<archs>[^\n.]{1,600})"
)
_NO_KERNEL = re.compile(r"no kernel image is available for execution on the device")
_TOO_OLD = re.compile(r"The NVIDIA driver on your system is too old \(found version (\d+)\)")
_INSUFFICIENT = re.compile(r"CUDA driver version is insufficient for CUDA runtime version")
_CPU = re.compile(r"Torch not compiled with CUDA enabled")
_CUDNN = re.compile(
    r"cuDNN version incompatibility: PyTorch was compiled\s+against \(([\d, ]+)\) but "
    r"(?:found runtime version|linked against) \(([\d, ]+)\)"
)
_HIP = re.compile(r"HIP error: invalid device function")
_NCCL = re.compile(
    r"(?:NCCL error[^\n]*|ncclSystemError[^\n]*|ncclUnhandledCudaError[^\n]*"
    r"|DistBackendError[^\n]*)"
)
_WATCHDOG = re.compile(r"Watchdog caught collective operation timeout[^\n]*")
_OOM = re.compile(r"(?:CUDA|HIP) out of memory\.(?P<rest>[^\n]{0,600})")
_SIZE = r"(\d+(?:\.\d+)?\s*[KMGT]iB)"
_OOM_FIELDS = {
    "tried": re.compile(r"Tried to allocate " + _SIZE),
    "total": re.compile(r"total capacity of " + _SIZE + r"|" + _SIZE + r" total capacity"),
    "free": re.compile(r"of which " + _SIZE + r" is free|" + _SIZE + r" free"),
    "gpu": re.compile(r"\bGPU (\d+)"),
    "unallocated": re.compile(_SIZE + r" is reserved by PyTorch but unallocated"),
}
_NPU_SYMBOL = re.compile(
    r"torch_npu[^\n]{0,300}undefined symbol[^\n]{0,300}"
    r"|undefined symbol: \w{0,40}(?:Msprof|atb|npu)\w*",
    re.I,
)
_LD_ECHO = re.compile(r"echo \$LD_LIBRARY_PATH[^\n]{0,200}\n\s*([^\n$#]{1,4000})")
_TORCH_TAGGED = re.compile(
    r"(?:\b(?:torch|pytorch|PyTorch|Torch)\b[^\n]{0,24}?|'|`)"
    r"(\d+\.\d+\.\d+(?:\.dev\d+)?)\+(cu\d+|cpu|rocm\d+(?:\.\d+)*)"
)
_PY_PROSE = re.compile(r"\bPython(?: version)?\s*[:：]\s*(3\.\d+(?:\.\d+)?)")
_DRIVER_PROSE = re.compile(r"\bdriver(?: version)?\s*[:：]?\s*\(?(\d{3}\.\d+(?:\.\d+)?)\b", re.I)
_PY_PATH = re.compile(
    r"/python(3\.\d+)/(?:site|dist)-packages/(?:torch|torch_npu|vllm|transformers)/"
)


def _mentions(text: str) -> list[Block]:
    """Versions people write out: "torch 2.8.0+cu128", "Python: 3.12", "driver 570.124.06",
    and the value of `echo $LD_LIBRARY_PATH`."""
    out: list[Block] = []
    m = _TORCH_TAGGED.search(text)
    if m:
        tag = m.group(2)
        cuda = f"{tag[2:-1]}.{tag[-1]}" if tag.startswith("cu") else ""
        facts: dict[str, Any] = {"version": f"{m.group(1)}+{tag}", "cuda": cuda}
        if tag == "cpu":
            facts["cpu_build"] = True
        if tag.startswith("rocm"):
            facts["hip"] = tag[4:]
        out.append(_block(text, m, "PyTorch version mentioned", facts))
    p = _PY_PROSE.search(text)
    if p:
        out.append(_block(text, p, "Python version mentioned", {"python_version": p.group(1)}))
    d = _DRIVER_PROSE.search(text)
    if d:
        out.append(_block(text, d, "driver version mentioned", {"driver_version": d.group(1)}))
    ld = _LD_ECHO.search(text)
    if ld:
        out.append(
            _block(text, ld, "echo $LD_LIBRARY_PATH", {"ld_library_path": ld.group(1).strip()})
        )
    return out


def _cc(digits: str) -> str:
    return f"{digits[:-1]}.{digits[-1]}"


def _block(text: str, m: re.Match[str], kind: str, facts: dict[str, Any]) -> Block:
    start, end = line_span(text, m.start())
    return Block(kind, start, max(end, m.end()), facts)


def find(text: str) -> list[Block]:
    out: list[Block] = []
    for m in hits(_INCOMPATIBLE, text):
        line_start = text.rfind("\n", max(0, m.start() - 300), m.start()) + 1
        line_start = line_start or max(0, m.start() - 300)
        prefix = text[line_start : m.start()]
        name = re.sub(r"^.*?(?:UserWarning:\s*)", "", prefix.rsplit(":", 1)[-1]).strip()
        supports = _SUPPORTS.match(text, m.end())
        archs = re.findall(r"(?:sm|compute)_\d+a?", supports.group("archs") if supports else "")
        facts: dict[str, Any] = {"device": {"name": name, "capability": _cc(m.group("cc"))}}
        if archs:
            facts["arch_list"] = archs
        end = supports.end() if supports else m.end()
        start, line_end = line_span(text, m.start())
        out.append(
            Block("PyTorch warning (sm_XX not compatible)", start, max(end, line_end), facts)
        )
    flags: tuple[tuple[re.Pattern[str], str, dict[str, Any]], ...] = (
        (_NO_KERNEL, "CUDA error: no kernel image", {"no_kernel_image": True}),
        (_INSUFFICIENT, "CUDA error: driver insufficient", {"driver_too_old": True}),
        (_CPU, "Torch not compiled with CUDA", {"cpu_build": True}),
        (_HIP, "HIP error: invalid device function", {"hip_invalid_function": True}),
    )
    for rx, kind, flag in flags:
        hit = rx.search(text)
        if hit:
            out.append(_block(text, hit, kind, dict(flag)))
    out += _more(text)
    return out


def _more(text: str) -> list[Block]:
    out: list[Block] = []
    m: re.Match[str] | None = _TOO_OLD.search(text)
    if m:
        code = int(m.group(1))
        cuda = f"{code // 1000}.{(code % 1000) // 10}"
        out.append(
            _block(
                text,
                m,
                "PyTorch: driver too old",
                {"driver_too_old": True, "driver_max_cuda": cuda},
            )
        )
    m = _CUDNN.search(text)
    if m:
        out.append(_block(text, m, "cuDNN version incompatibility", {"cudnn_error": m.group(0)}))
    nccl = [x.group(0).strip()[:500] for x in _NCCL.finditer(text)]
    if nccl:
        first = next(_NCCL.finditer(text))
        out.append(_block(text, first, "NCCL error", {"nccl_error": nccl[-1][:500]}))
    m = _WATCHDOG.search(text)
    if m:
        out.append(_block(text, m, "NCCL watchdog timeout", {"nccl_timeout": m.group(0)[:300]}))
    m = _OOM.search(text)
    if m:
        out.append(_block(text, m, "out of memory", {"oom": _oom_fields(m.group("rest"))}))
    out += _mentions(text)
    m = _PY_PATH.search(text)
    if m:
        out.append(_block(text, m, "Python path in a traceback", {"python_version": m.group(1)}))
    m = _NPU_SYMBOL.search(text)
    if m:
        out.append(
            _block(text, m, "torch_npu import error", {"npu_import_error": m.group(0)[:300]})
        )
    return out


def _oom_fields(rest: str) -> dict[str, str]:
    """What PyTorch's out-of-memory message says: size asked for, the GPU, its total and free
    memory, the reserved-but-unallocated part (empty strings where the message has none)."""
    out: dict[str, str] = {}
    for key, rx in _OOM_FIELDS.items():
        m = rx.search(rest)
        out[key] = next((g for g in m.groups() if g), "") if m else ""
    return out
