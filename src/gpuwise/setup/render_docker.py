"""Dockerfile and compose.yaml text for a plan.

Practices (hadolint-clean): a base tag from the sourced tag list, uv copied from its pinned
image, packages installed from the pinned requirements with a build cache mount (no cache left
in the image), a non-root user, a HEALTHCHECK where a server runs. compose.yaml reserves the GPUs
(NVIDIA device reservation; AMD /dev/kfd and /dev/dri), shares the host IPC namespace for
PyTorch/NCCL shared memory, and publishes servers on 127.0.0.1 only.

The named volume's mount point is created and given to the app user before `USER`: Docker
creates a missing mount point (and its parents) as root, and copies an existing folder's owner
into a new volume, so only a folder made in the image keeps the cache writable. vLLM images get
a C compiler: Triton builds its launcher with the system compiler at the first model load.
"""

from __future__ import annotations

from typing import Any

import yaml

from gpuwise.setup.model import Plan

HEADER = "# Written by gpuwise setup ({stack}, {target}). Why each pin: gpuwise setup --explain"
APP_HOME = "/home/app"
# stack → (named volume, where it is mounted): the model caches that outlive the container
VOLUMES = {
    "ollama": ("ollama-models", APP_HOME + "/.ollama"),
}
DEFAULT_VOLUME = ("hf-cache", APP_HOME + "/.cache/huggingface")
# Debian/Ubuntu packages Triton needs to build its launcher (gcc and the C library headers);
# left to the distribution's current security release, like the base image's own packages.
C_COMPILER = ("gcc", "libc6-dev")
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


def volume_of(stack: str) -> tuple[str, str]:
    """(named volume, mount point) of a stack."""
    return VOLUMES.get(stack, DEFAULT_VOLUME)


def _user(plan: Plan, name: str) -> list[str]:
    """A non-root user that owns the volume's mount point; numeric USER (hadolint DL3066)
    when the image has a known free UID."""
    mount = volume_of(plan.stack)[1]
    uid = f"--uid {plan.app_uid} " if plan.app_uid else ""
    owner = f"{plan.app_uid}:{plan.app_uid}" if plan.app_uid else f"{name}:{name}"
    return [
        f"RUN useradd --create-home {uid}--shell /bin/bash {name} \\",
        f"    && mkdir -p {mount} \\",
        f"    && chown -R {owner} {APP_HOME}",
        f"USER {plan.app_uid or name}",
    ]


def _compiler(plan: Plan) -> list[str]:
    """gcc for Triton's launcher (vLLM); the apt lists are not kept in the image."""
    if plan.stack != "vllm":
        return []
    return [
        "# hadolint ignore=DL3008",
        "RUN apt-get update \\",
        f"    && apt-get install -y --no-install-recommends {' '.join(C_COMPILER)} \\",
        "    && rm -rf /var/lib/apt/lists/*",
    ]


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
        *_compiler(plan),
        "COPY requirements.txt /tmp/requirements.txt",
        "RUN --mount=type=cache,target=/root/.cache/uv \\",
        f"    uv venv --python {plan.target.python} /opt/venv \\",
        "    && uv pip install --python /opt/venv/bin/python -r /tmp/requirements.txt",
        *_user(plan, "app"),
        f"WORKDIR {APP_HOME}",
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
        ("OLLAMA_MODELS", volume_of("ollama")[1] + "/models"),
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
    volume, mount = volume_of(plan.stack)
    service["volumes"] = [f"{volume}:{mount}"]
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
