"""Dockerfile and compose.yaml text for a plan.

Practices (hadolint-clean): a base tag from the sourced tag list, uv copied from its pinned
image, packages installed from the pinned requirements with a build cache mount (no cache left
in the image), a non-root user, a HEALTHCHECK where a server runs. compose.yaml reserves the GPUs
(NVIDIA device reservation; AMD /dev/kfd and /dev/dri), shares the host IPC namespace for
PyTorch/NCCL shared memory, and publishes servers on 127.0.0.1 only.
"""

from __future__ import annotations

from typing import Any

import yaml

from gpuwise.setup.model import Plan

HEADER = "# Written by gpuwise setup ({stack}, {target}). Why each pin: gpuwise setup --explain"
TORCH_CHECK = (
    "import torch; print(torch.__version__, torch.version.cuda or torch.version.hip, "
    "torch.cuda.is_available())"
)


def describe(plan: Plan) -> str:
    """A one-line target summary for file headers."""
    t = plan.target
    parts = [
        t.vendor,
        t.gpu or t.gpu_name,
        f"sm {t.compute_capability}" if t.compute_capability else "",
        t.gfx,
        f"CANN {t.cann}" if t.cann else "",
        f"driver {t.driver}" if t.driver else "",
        t.os,
        f"python {t.python}",
    ]
    return ", ".join(p for p in parts if p)


def _env_block(pairs: list[tuple[str, str]]) -> list[str]:
    lines = [f"    {k}={v}" for k, v in pairs]
    return ["ENV " + lines[0].strip() + (" \\" if len(lines) > 1 else "")] + [
        line + (" \\" if i < len(lines) - 2 else "") for i, line in enumerate(lines[1:])
    ]


def _user(plan: Plan, name: str) -> list[str]:
    """A non-root user; numeric USER (hadolint DL3066) when the image has a known free UID."""
    if plan.app_uid:
        return [
            f"RUN useradd --create-home --uid {plan.app_uid} --shell /bin/bash {name}",
            f"USER {plan.app_uid}",
        ]
    return [f"RUN useradd --create-home --shell /bin/bash {name}", f"USER {name}"]


def dockerfile(plan: Plan) -> str:
    """The Dockerfile of a plan (Ollama's own image for the ollama stack)."""
    assert plan.base_image is not None
    if plan.stack == "ollama":
        return _ollama_dockerfile(plan)
    assert plan.uv_image is not None
    base, uv = plan.base_image, plan.uv_image
    env = [
        ("UV_PYTHON_INSTALL_DIR", "/opt/python"),
        ("UV_LINK_MODE", "copy"),
        ("VIRTUAL_ENV", "/opt/venv"),
        ("PATH", "/opt/venv/bin:$PATH"),
        ("PYTHONUNBUFFERED", "1"),
        *plan.env,
    ]
    lines = [
        "# syntax=docker/dockerfile:1",
        HEADER.format(stack=plan.stack, target=describe(plan)),
        f"FROM {base.name}:{base.version}",
        f"COPY --from={uv.name}:{uv.version} /uv /uvx /bin/",
        *_env_block(env),
        "COPY requirements.txt /tmp/requirements.txt",
        "RUN --mount=type=cache,target=/root/.cache/uv \\",
        f"    uv venv --python {plan.target.python} /opt/venv \\",
        "    && uv pip install --python /opt/venv/bin/python -r /tmp/requirements.txt",
        *_user(plan, "app"),
        "WORKDIR /home/app",
    ]
    server = plan.server
    if server is not None:
        url = f"http://127.0.0.1:{server.port}{server.health_path}"
        check = f"import urllib.request; urllib.request.urlopen('{url}')"
        lines += [
            f"EXPOSE {server.port}",
            f"HEALTHCHECK --interval={server.interval_s}s --start-period={server.start_period_s}s"
            f' CMD ["python", "-c", "{check}"]',
            'ENTRYPOINT ["vllm", "serve"]',
        ]
    else:
        lines.append('CMD ["python"]')
    return "\n".join(lines) + "\n"


def _ollama_dockerfile(plan: Plan) -> str:
    assert plan.base_image is not None and plan.server is not None
    base, server = plan.base_image, plan.server
    env = [
        ("OLLAMA_HOST", f"0.0.0.0:{server.port}"),
        ("OLLAMA_MODELS", "/home/app/.ollama/models"),
        *plan.env,
    ]
    lines = [
        "# syntax=docker/dockerfile:1",
        HEADER.format(stack=plan.stack, target=describe(plan)),
        f"FROM {base.name}:{base.version}",
        *_env_block(env),
        *_user(plan, "app"),
        f"EXPOSE {server.port}",
        f"HEALTHCHECK --interval={server.interval_s}s --start-period={server.start_period_s}s"
        ' CMD ["ollama", "list"]',
    ]
    return "\n".join(lines) + "\n"


def compose(plan: Plan) -> str:
    """compose.yaml: one service built from the Dockerfile beside it."""
    name = "ollama" if plan.stack == "ollama" else "app"
    service: dict[str, Any] = {"build": ".", "image": f"gpuwise-{plan.stack}:local"}
    vendor = plan.target.vendor
    if plan.stack != "ollama":
        service["ipc"] = "host"  # PyTorch DataLoader workers and NCCL use /dev/shm
    if vendor == "nvidia":
        device = {"driver": "nvidia", "count": "all", "capabilities": ["gpu"]}
        service["deploy"] = {"resources": {"reservations": {"devices": [device]}}}
    if vendor == "amd":
        service["devices"] = ["/dev/kfd", "/dev/dri"]
        service["group_add"] = ["video"]
    if plan.env:
        service["environment"] = dict(plan.env)
    volume = "ollama-models" if plan.stack == "ollama" else "hf-cache"
    home = "/home/app/.ollama" if plan.stack == "ollama" else "/home/app/.cache/huggingface"
    service["volumes"] = [f"{volume}:{home}"]
    if plan.server is not None:
        port = plan.server.port
        service["ports"] = [f"127.0.0.1:{port}:{port}"]
        service["restart"] = "unless-stopped"
    if plan.stack == "vllm" and plan.server is not None:
        service["command"] = [
            "${VLLM_MODEL:?set VLLM_MODEL to a Hugging Face model id}",
            "--host",
            "0.0.0.0",
            "--port",
            str(plan.server.port),
        ]
    doc = {"name": f"gpuwise-{plan.stack}", "services": {name: service}, "volumes": {volume: {}}}
    head = HEADER.format(stack=plan.stack, target=describe(plan))
    return head + "\n" + yaml.safe_dump(doc, sort_keys=False, allow_unicode=True)
