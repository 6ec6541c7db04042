"""Run inside the user's Python (`python -c <this file's text>`): what PyTorch really loaded.

Prints one line `GPUWISE_JSON:{…}` and nothing the parent relies on otherwise. Written for any
Python from 3.8 on and for any PyTorch version: every attribute is read defensively.
"""

from __future__ import annotations

import json
import os
import sys
import warnings
from typing import Any

MARKER = "GPUWISE_JSON:"
_PREFIXES = (
    "nvidia-",
    "torch",
    "pytorch-triton",
    "triton",
    "jax",
    "cupy",
    "vllm",
    "xformers",
    "flash-attn",
    "flash_attn",
    "bitsandbytes",
    "intel-extension-for-pytorch",
    "tensorflow",
    "paddlepaddle",
    "onnxruntime",
    "mindspore",
)


def packages() -> dict[str, str]:
    """GPU-related distributions installed for this Python, from *.dist-info folder names."""
    out: dict[str, str] = {}
    for folder in sys.path:
        try:
            names = os.listdir(folder or ".")
        except OSError:
            continue
        for name in names:
            if not name.endswith(".dist-info"):
                continue
            dist, _, version = name[: -len(".dist-info")].partition("-")
            key = dist.lower().replace("_", "-")
            if key.startswith(_PREFIXES) and key not in out:
                out[key] = version
    return out


def python_env() -> dict[str, Any]:
    """This interpreter and the environment it lives in (conda, venv)."""
    return {
        "version": "{}.{}.{}".format(*sys.version_info[:3]),
        "executable": sys.executable,
        "prefix": sys.prefix,
        "venv": sys.prefix != getattr(sys, "base_prefix", sys.prefix),
        "conda": os.path.isdir(os.path.join(sys.prefix, "conda-meta")),
    }


def _safe(fn: Any, default: Any = None) -> Any:
    try:
        return fn()
    except Exception:
        return default


def devices(torch: Any) -> list[dict[str, Any]]:
    """Name, compute capability and memory of each device PyTorch can see."""
    out = []
    for i in range(_safe(torch.cuda.device_count, 0)):
        props = _safe(lambda i=i: torch.cuda.get_device_properties(i))
        out.append(
            {
                "index": i,
                "name": getattr(props, "name", ""),
                "capability": f"{props.major}.{props.minor}" if props else None,
                "total_memory_bytes": getattr(props, "total_memory", None),
                "gcn_arch": getattr(props, "gcnArchName", None),
            }
        )
    return out


def torch_facts(torch: Any) -> dict[str, Any]:
    """Build, availability and the libraries PyTorch actually loaded."""
    version = getattr(torch, "version", None)
    t: dict[str, Any] = {
        "version": getattr(torch, "__version__", ""),
        "cuda": getattr(version, "cuda", None),
        "hip": getattr(version, "hip", None),
        "is_available": bool(_safe(torch.cuda.is_available, False)),
    }
    t["devices"] = devices(torch) if t["is_available"] else []
    t["arch_list"] = _safe(torch.cuda.get_arch_list, []) or []
    t["cudnn"], t["cudnn_error"] = cudnn_version(torch) if t["is_available"] else (None, "")
    nccl = _safe(lambda: torch.cuda.nccl.version()) if t["is_available"] else None
    t["nccl"] = ".".join(str(x) for x in nccl) if isinstance(nccl, tuple) else nccl
    t["distributed"] = bool(_safe(lambda: torch.distributed.is_available(), False))
    t["nccl_available"] = bool(_safe(lambda: torch.distributed.is_nccl_available(), False))
    mps = getattr(torch.backends, "mps", None)
    t["mps_built"] = bool(_safe(lambda: mps.is_built(), False)) if mps else False
    t["mps_available"] = bool(_safe(lambda: mps.is_available(), False)) if mps else False
    xpu = getattr(torch, "xpu", None)
    t["xpu_available"] = bool(_safe(lambda: xpu.is_available(), False)) if xpu else False
    if (t["cuda"] or t["hip"]) and not t["is_available"]:
        t["init_error"] = init_error(torch)
    return t


def cudnn_version(torch: Any) -> tuple[Any, str]:
    """cuDNN version PyTorch loaded, or the error it raised (e.g. "cuDNN version
    incompatibility: PyTorch was compiled against … but found runtime version …")."""
    try:
        return torch.backends.cudnn.version(), ""
    except Exception as exc:
        return None, f"{type(exc).__name__}: {exc}"[:500]


_LIBS = ("libcudnn", "libcublas", "libnccl", "libcudart", "libcuda.so", "libamdhip64", "librccl")


def loaded_libraries() -> dict[str, str]:
    """GPU libraries mapped into this process, from /proc/self/maps: name → path.

    Shows which copy the dynamic loader picked — the wheel's (site-packages/nvidia/…) or a
    system one that LD_LIBRARY_PATH or ld.so.conf put first.
    """
    out: dict[str, str] = {}
    try:
        with open("/proc/self/maps") as fh:
            for line in fh:
                path = line.rstrip("\n").split(None, 5)[-1] if line.count(" ") >= 5 else ""
                name = os.path.basename(path)
                if path.startswith("/") and name.startswith(_LIBS) and name not in out:
                    out[name] = path
    except OSError:
        pass
    return dict(sorted(out.items())[:40])


def init_error(torch: Any) -> str:
    """Why CUDA is unavailable, in PyTorch's own words (e.g. "driver … is too old")."""
    try:
        torch.cuda.init()
    except Exception as exc:
        return f"{type(exc).__name__}: {exc}"[:500]
    return ""


def main() -> None:
    out: dict[str, Any] = {"python": python_env(), "packages": packages()}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            import torch  # type: ignore[import-not-found,unused-ignore]
        except Exception as exc:  # ImportError, or a broken install raising OSError
            out["torch"] = None
            out["import_error"] = f"{type(exc).__name__}: {exc}"[:500]
        else:
            out["torch"] = torch_facts(torch)
        out["warnings"] = [str(w.message)[:600] for w in caught][:5]
    out["loaded_libs"] = loaded_libraries()
    out["ld_library_path"] = os.environ.get("LD_LIBRARY_PATH", "")
    sys.stdout.write("\n" + MARKER + json.dumps(out, default=str) + "\n")


if __name__ == "__main__":
    main()
