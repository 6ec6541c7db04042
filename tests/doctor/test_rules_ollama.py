"""Ollama rules: CPU execution and why, and the guide's myths (OLLAMA_CUDA, --log-level)."""

from __future__ import annotations

from gpuwise.parse.result import Failed
from tests.doctor import build as b

GIB = 1024**3
ON_CPU = [{"name": "qwen2.5:32b", "size_bytes": 21 * GIB, "size_vram_bytes": 0, "cpu_percent": 100}]
SPLIT = [
    {"name": "llama3.1:70b", "size_bytes": 43 * GIB, "size_vram_bytes": 22 * GIB, "cpu_percent": 49}
]


def test_ollama_cuda_myth_in_shell_and_systemd() -> None:
    o = b.ollama(
        shell_env={"OLLAMA_CUDA": "1"}, unit_env={"OLLAMA_CUDA": "1", "OLLAMA_NUM_GPU": "1"}
    )
    findings = b.run(b.machine(ollama=o))
    f = b.by_id(findings, "ollama.myth_ollama_cuda")
    assert f.params["where"] == "shell, systemd"
    assert "unset OLLAMA_CUDA" in f.commands
    assert "ollama.myth_num_gpu" in b.ids(findings)


def test_log_level_flag_in_the_service() -> None:
    o = b.ollama(unit_exec_start="/usr/local/bin/ollama serve --log-level debug")
    f = b.by_id(b.run(b.machine(ollama=o)), "ollama.myth_log_level")
    assert f.level == "error"
    assert any("OLLAMA_DEBUG=1" in c for c in f.commands)


def test_cpu_because_gpus_hidden() -> None:
    o = b.ollama(
        "found",
        version="0.12.3",
        models=ON_CPU,
        server={"pid": 1, "cmdline": ["ollama", "serve"], "env": {"CUDA_VISIBLE_DEVICES": "-1"}},
    )
    f = b.by_id(
        b.run(b.machine(ollama=o, nvml=b.nvml("590.44.01", "13.1", [b.gpu()]))), "ollama.cpu_only"
    )
    assert "CUDA_VISIBLE_DEVICES='-1'" in f.params["why"]


def test_cpu_because_no_gpu_and_zh_text() -> None:
    from gpuwise.i18n import set_lang

    o = b.ollama("found", version="0.12.3", models=ON_CPU)
    f = b.by_id(b.run(b.machine(ollama=o)), "ollama.cpu_only")
    assert "no GPU" in f.params["why"]
    set_lang("zh")
    try:
        g = b.by_id(b.run(b.machine(ollama=o)), "ollama.cpu_only")
        assert "没有" in g.params["why"] and "CPU" in g.text("title")
    finally:
        set_lang("en")


def test_cpu_because_driver_too_old_for_ollama() -> None:
    o = b.ollama("found", version="0.12.3", models=ON_CPU)
    facts = b.machine(ollama=o, nvml=b.nvml("535.183.01", "12.2", [b.gpu()]))
    f = b.by_id(b.run(facts), "ollama.cpu_only")
    assert "535.183.01" in f.params["why"] and "550" in f.params["why"]


def test_partial_offload_because_model_too_big() -> None:
    o = b.ollama("found", version="0.12.3", models=SPLIT)
    gpu = b.gpu(memory_total_bytes=24 * GIB, memory_used_bytes=23 * GIB)
    f = b.by_id(
        b.run(b.machine(ollama=o, nvml=b.nvml("590.44.01", "13.1", [gpu]))),
        "ollama.partial_offload",
    )
    assert f.params["cpu"] == 49 and "larger than the GPU memory" in f.params["why"]


def test_running_on_gpu_and_not_running() -> None:
    on_gpu = [
        {
            "name": "mistral:latest",
            "size_bytes": 5137025024,
            "size_vram_bytes": 5137025024,
            "cpu_percent": 0,
        }
    ]
    ok = b.run(b.machine(ollama=b.ollama("found", version="0.5.1", models=on_gpu)))
    assert b.by_id(ok, "ollama.ok").params["version"] == "0.5.1"
    assert "ollama.not_running" in b.ids(
        b.run(b.machine(ollama=b.ollama(binary="/usr/local/bin/ollama")))
    )
    assert not [f for f in b.run(b.machine()) if f.id.startswith("ollama.")]


def test_unreachable_and_host_without_port() -> None:
    broken = b.run(
        b.machine(ollama=Failed("bad_reply", "Expecting value", {"url": "http://127.0.0.1:11434"}))
    )
    assert "ollama.unreachable" in b.ids(broken)
    o = b.ollama(
        "found",
        version="0.5.1",
        models=[],
        shell_env={"OLLAMA_HOST": "http://0.0.0.0"},
        url="http://127.0.0.1:80",
    )
    assert "ollama.host_port" in b.ids(b.run(b.machine(ollama=o)))
