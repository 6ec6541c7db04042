"""Helpers for probe tests: fake tools on PATH, a fake filesystem root, a probe context."""

from __future__ import annotations

import os
import time
from pathlib import Path

from gpuwise.probe.context import ProbeContext

TESTS = Path(__file__).resolve().parent.parent
FIXTURES = TESTS / "fixtures"
FAKEBIN = TESTS / "fakebin"
SYSTEM_PATH = "/usr/bin:/bin"  # sh, sleep, cat — and no real GPU tools


def fake_path(tmp: Path, *tools: str) -> str:
    """A PATH whose first folder holds only the named fake tools."""
    folder = tmp / "bin"
    folder.mkdir(parents=True, exist_ok=True)
    for tool in tools:
        link = folder / tool
        if not link.exists():
            link.symlink_to(FAKEBIN / "_fake.sh")
    return f"{folder}{os.pathsep}{SYSTEM_PATH}"


def make_ctx(
    tmp: Path,
    tools: tuple[str, ...] = (),
    env: dict[str, str] | None = None,
    seconds: float = 5.0,
    root: Path | None = None,
    python: str | None = None,
    ollama_url: str | None = None,
) -> ProbeContext:
    """A context with fake tools first on PATH, a private root and HOME."""
    full_env = {"PATH": fake_path(tmp, *tools), "HOME": str(tmp / "home"), **(env or {})}
    return ProbeContext(
        deadline=time.monotonic() + seconds,
        env=full_env,
        root=root or (tmp / "root"),
        python=python or str(FAKEBIN / "fake-python"),
        ollama_url=ollama_url or "http://127.0.0.1:9",
        home=tmp / "home",
    )


def write_tree(root: Path, files: dict[str, str]) -> Path:
    """Create files under `root` (paths are absolute system paths, re-rooted)."""
    for path, text in files.items():
        target = root / path.lstrip("/")
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text)
    return root
