"""Run inside the user's Python: a real torch.distributed all-reduce smoke test.

One process per local GPU with NCCL (over CPU processes with gloo when there is no GPU), a
correctness check (the sum of ones equals the world size), then timed all-reduces to estimate
bus bandwidth the way nccl-tests does: busbw = algbw × 2(n−1)/n. Prints one line
`GPUWISE_JSON:{…}`. Settings come from GPUWISE_NCCL_* environment variables set by the parent.
"""

from __future__ import annotations

import datetime
import json
import os
import socket
import sys
import tempfile
import time
import traceback
from typing import Any

MARKER = "GPUWISE_JSON:"


def _env_int(name: str, default: int) -> int:
    try:
        return int(os.environ.get(name, default))
    except ValueError:
        return default


def free_port() -> int:
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = int(s.getsockname()[1])
    s.close()
    return port


def worker(rank: int, world: int, backend: str, port: int, out_path: str) -> None:
    import torch  # type: ignore[import-not-found,unused-ignore]
    import torch.distributed as dist  # type: ignore[import-not-found,unused-ignore]

    os.environ["MASTER_ADDR"] = "127.0.0.1"
    os.environ["MASTER_PORT"] = str(port)
    timeout = datetime.timedelta(seconds=_env_int("GPUWISE_NCCL_PG_TIMEOUT_S", 30))
    device = torch.device("cpu")
    if backend == "nccl":
        torch.cuda.set_device(rank)
        device = torch.device("cuda", rank)
    dist.init_process_group(backend, rank=rank, world_size=world, timeout=timeout)
    n = _env_int("GPUWISE_NCCL_BYTES", 64 * 1024 * 1024) // 4
    x = torch.ones(n, dtype=torch.float32, device=device)
    dist.all_reduce(x)
    _sync(torch, backend)
    correct = bool(x[0].item() == world)
    iters = _env_int("GPUWISE_NCCL_ITERS", 5)
    start = time.perf_counter()
    for _ in range(iters):
        dist.all_reduce(x)
    _sync(torch, backend)
    seconds = (time.perf_counter() - start) / iters
    dist.barrier()
    if rank == 0:
        algbw = 4 * n / seconds / 1e9
        result = {
            "ok": correct,
            "correct": correct,
            "size_bytes": 4 * n,
            "time_s": seconds,
            "algbw_gbps": algbw,
            "busbw_gbps": algbw * 2 * (world - 1) / world if world > 1 else None,
        }
        with open(out_path, "w") as fh:
            json.dump(result, fh)
    dist.destroy_process_group()


def _sync(torch: Any, backend: str) -> None:
    if backend == "nccl":
        torch.cuda.synchronize()


def main() -> None:
    out: dict[str, Any] = {}
    try:
        import torch  # type: ignore[import-not-found,unused-ignore]
        import torch.multiprocessing as mp  # type: ignore[import-not-found,unused-ignore]
    except Exception as exc:
        out = {"torch": None, "error": f"{type(exc).__name__}: {exc}"}
        sys.stdout.write("\n" + MARKER + json.dumps(out) + "\n")
        return
    gpus = torch.cuda.device_count() if torch.cuda.is_available() else 0
    backend = "nccl" if gpus > 0 else "gloo"
    world = gpus if gpus > 0 else 2
    out = {"torch": torch.__version__, "backend": backend, "world_size": world, "ok": False}
    if backend == "nccl":
        nccl = getattr(torch.cuda, "nccl", None)
        version = nccl.version() if nccl is not None else None
        out["nccl_version"] = (
            ".".join(str(v) for v in version) if isinstance(version, tuple) else version
        )
    path = os.path.join(tempfile.mkdtemp(prefix="gpuwise-nccl-"), "result.json")
    try:
        mp.spawn(worker, args=(world, backend, free_port(), path), nprocs=world, join=True)
        with open(path) as fh:
            out.update(json.load(fh))
    except Exception as exc:
        text = "".join(traceback.format_exception_only(type(exc), exc))
        out["error"] = text.strip()[-2000:]
    sys.stdout.write("\n" + MARKER + json.dumps(out, default=str) + "\n")


if __name__ == "__main__":
    main()
