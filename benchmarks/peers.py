"""Set up the benchmark's own environment for llm-analysis and run it on jobs (a subprocess)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).parent
VENV = HERE / ".venv-llm-analysis"


def ensure_venv() -> Path | None:
    """Create the peer venv once; None when llm-analysis cannot be installed (offline)."""
    python = VENV / "bin" / "python"
    if python.exists():
        return python
    try:
        subprocess.run([sys.executable, "-m", "venv", str(VENV)], check=True, timeout=120)
        subprocess.run(
            [str(python), "-m", "pip", "install", "-q", "llm-analysis==0.2.2"],
            check=True,
            timeout=600,
        )
    except (subprocess.SubprocessError, OSError) as exc:
        print(f"(llm-analysis not available: {exc})")
        return None
    return python


def run_llm_analysis(jobs: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Results by case id; empty when the peer cannot run."""
    python = ensure_venv()
    if python is None or not jobs:
        return {}
    proc = subprocess.run(
        [str(python), str(HERE / "peer_llm_analysis.py")],
        input=json.dumps(jobs),
        capture_output=True,
        text=True,
        timeout=600,
    )
    if proc.returncode != 0:
        print(proc.stderr[-2000:])
        return {}
    return {r["id"]: r for r in json.loads(proc.stdout)}


def gpu_job(gpu: Any) -> dict[str, Any]:
    """A GPU as the peer's GPUConfig fields (from gpuwise's catalog)."""
    tf = gpu.tflops
    return {
        "id": gpu.id,
        "memory_gb": gpu.memory_gb,
        "bandwidth": gpu.memory_bandwidth_gbps or 1,
        "fp16": tf.fp16 or tf.bf16 or tf.fp32 or 1,
        "link": (gpu.interconnect_gbps or 0) / 2,
    }


def model_job(m: Any) -> dict[str, Any]:
    """A model as the peer's ModelConfig fields (from gpuwise's catalog)."""
    return {
        "id": m.id,
        "layers": m.layers,
        "heads": m.heads,
        "hidden_size": m.hidden_size,
        "vocab_size": m.vocab_size,
        "max_context": m.max_context,
        "kv_heads": m.kv_heads,
        "intermediate_size": m.intermediate_size,
    }
