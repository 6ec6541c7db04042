"""README.md's Usage block runs: every `gpuwise …` line, against the built-in catalog, exits 0.

The review found the README's `cost` example failing ("runpod has no instance
'1x-A100-80GB-PCIe'"), and the start-up benchmark timing that error exit. Each line runs
in-process in an isolated home (config, cache and state under tmp), in a scratch folder, with no
network. A line that needs this machine's hardware, the network or runs until Ctrl-C runs in a
safe form, or is skipped; :data:`ADAPTED` and :data:`SKIPPED` say why for each.
"""

from __future__ import annotations

import re
import shlex
import shutil
import socket
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[1]
PY = [sys.executable, "-c", "pass"]

SKIPPED = {
    "doctor": "probes this machine (drivers, a PyTorch child); its exit code is this machine's "
    "verdict, not the README's: tests/doctor runs it on fake machines",
    "calibrate --runs": "needs recorded GPU runs with estimates; without a GPU it refuses with a "
    "hint (exit 2), as tests/bench/test_calibrate_runs.py checks",
    "serve": "a server that runs until Ctrl-C: tests/web/test_serve_cli.py starts it on a free "
    "loopback port, fetches a page and stops it",
    "mcp": "an MCP server that answers on stdin until its client closes it: tests/web/test_mcp.py "
    "starts it as a client does, lists its tools and calls one",
}
"""README lines not run here (key: the line's first words), and why."""

ADAPTED = {
    "prices refresh": "no network in tests: --offline skips the feeds, the command still runs",
    "setup": "this machine's GPU and driver vary: the README's own variant for another box "
    "(--gpu rtx-5090 --driver 570.86)",
    "watch": "watch runs until Ctrl-C: --count 1",
    "record": "the program after `--` is a Python no-op; a closed loopback port stands for the "
    "engine's metrics page",
    "supervise": "the program after `--` is a Python no-op; --cloud none (no metadata service)",
    "calibrate": "needs a GPU bench result, which a machine without a GPU cannot make: --show, "
    "named on the same line",
    "audit": "reads this machine (its exit code is this machine's verdict): --only ssh on a fake "
    "/etc with safe settings; the SARIF file is still written",
}
"""README lines run in a safe form, and why."""


def usage_lines() -> list[str]:
    """The `gpuwise …` lines of the first sh block under "## Usage", comments stripped."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    usage = text.split("## Usage", 1)[1]
    block = re.search(r"```sh\n(.*?)```", usage, re.S)
    assert block, "README.md: no ```sh block under ## Usage"
    lines = []
    for raw in block.group(1).splitlines():
        words = shlex.split(raw, comments=True)
        if words and words[0] == "gpuwise":
            lines.append(shlex.join(words[1:]))
    return lines


def _key(args: list[str]) -> str:
    two = " ".join(args[:2])
    return two if two in SKIPPED or two in ADAPTED else args[0]


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _adapt(args: list[str], tmp: Path) -> list[str]:
    """The safe form of a README line (the same line when it needs none)."""
    key = _key(args)
    if key == "prices refresh":
        return [*args, "--offline"]
    if key == "setup" and "--gpu" not in args:
        return [*args, "--gpu", "rtx-5090", "--driver", "570.86"]
    if key == "watch":
        return [*args, "--count", "1", "--interval", "0.1"]
    if key in ("record", "supervise"):
        cut = args.index("--")
        own = args[:cut]
        if "--tokens-from" in own:
            own[own.index("--tokens-from") + 1] = f"127.0.0.1:{_closed_port()}"
        if key == "supervise":
            own += ["--cloud", "none"]
        return [*own, "--", *PY]
    if key == "calibrate" and args == ["calibrate"]:
        return ["calibrate", "--show"]
    if key == "audit":
        etc = tmp / "fakeroot" / "etc" / "ssh"
        etc.mkdir(parents=True, exist_ok=True)
        (etc / "sshd_config").write_text(
            "PermitRootLogin no\nPasswordAuthentication no\nKbdInteractiveAuthentication no\n"
        )
        return [*args, "--only", "ssh", "--root", str(tmp / "fakeroot")]
    return args


def _inputs(tmp: Path) -> None:
    """The files the README's lines name: a scenario (from examples/), a price sheet, a model
    folder, the checkpoint folder."""
    shutil.copy(ROOT / "examples" / "qlora-7b-china.yaml", tmp / "my-scenario.yaml")
    (tmp / "console-prices.csv").write_text(
        "provider,instance,gpu,billing,price\nautodl,4090-x1,rtx-4090,on-demand,1.98\n",
        encoding="utf-8",
    )
    (tmp / "my-model").mkdir()
    (tmp / "my-model" / "config.json").write_text(
        '{"architectures": ["Qwen2ForCausalLM"], "model_type": "qwen2", "hidden_size": 896,'
        ' "intermediate_size": 4864, "num_hidden_layers": 24, "num_attention_heads": 14,'
        ' "num_key_value_heads": 2, "vocab_size": 151936, "max_position_embeddings": 32768,'
        ' "tie_word_embeddings": true, "torch_dtype": "bfloat16"}',
        encoding="utf-8",
    )
    (tmp / "out").mkdir()


def test_readme_lists_the_commands_it_documents() -> None:
    lines = usage_lines()
    assert len(lines) >= 20, lines
    firsts = {line.split()[0] for line in lines}
    assert {"plan", "estimate", "fit", "offers", "cost", "doctor", "setup", "audit"} <= firsts
    for key in (*SKIPPED, *ADAPTED):  # every reason still matches a README line
        assert any(_key(shlex.split(line)) == key for line in lines), key


def test_readme_usage_lines_exit_0(
    cli: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytest.importorskip("torch", reason="`bench --quick` needs gpuwise[bench] (the dev extra)")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    _inputs(tmp_path)
    failed = []
    for line in usage_lines():
        args = shlex.split(line)
        if _key(args) in SKIPPED:
            continue
        run = _adapt(args, tmp_path)
        res = cli(*run)
        if res.code != 0:
            failed.append((line, run, res.code, res.err[-500:]))
    assert not failed, failed
    assert (tmp_path / "plan.md").is_file() and (tmp_path / "audit.sarif").is_file()
    assert (tmp_path / "run1.png").is_file() and (tmp_path / "env" / "Dockerfile").is_file()
