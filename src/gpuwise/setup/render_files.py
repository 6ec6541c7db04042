"""requirements.txt, environment.yml, the Ollama systemd override, install-driver.sh and
verify.sh for a plan. Which files a plan gets: :func:`file_names`."""

from __future__ import annotations

import yaml

from gpuwise.setup.model import Plan
from gpuwise.setup.render_docker import HEADER, TORCH_CHECK, compose, describe, dockerfile

NPU_CHECK = "import torch, torch_npu; print(torch.__version__, torch.npu.is_available())"
MPS_CHECK = "import torch; print(torch.__version__, torch.backends.mps.is_available())"


def file_names(plan: Plan) -> list[str]:
    """The files a plan writes: no container files on macOS (no GPU inside Docker there), no
    Python files for Ollama, a driver script only for Linux hosts that install their own."""
    apple = plan.target.vendor in ("apple", "ascend")  # no container files (see notes)
    names = [] if apple else ["Dockerfile", "compose.yaml"]
    if plan.stack == "ollama":
        names += [] if apple else ["ollama-override.conf"]
    else:
        names += ["requirements.txt", "environment.yml", "pyproject.toml"]
    linux_host = plan.target.place == "native" and plan.target.os not in ("macos", "windows")
    if plan.target.vendor in ("nvidia", "amd") and linux_host:
        names.append("install-driver.sh")
    return [*names, "verify.sh"]


def render_all(plan: Plan) -> dict[str, str]:
    """File name → text, for every file of the plan."""
    makers = {
        "Dockerfile": dockerfile,
        "compose.yaml": compose,
        "requirements.txt": requirements,
        "environment.yml": environment,
        "pyproject.toml": uv_project,
        "ollama-override.conf": ollama_override,
        "install-driver.sh": install_driver,
        "verify.sh": verify,
    }
    return {name: makers[name](plan) for name in file_names(plan)}


def _header(plan: Plan) -> str:
    return HEADER.format(stack=plan.stack, target=describe(plan))


def _index_lines(plan: Plan) -> list[str]:
    if plan.index_url:
        return [f"--index-url {plan.index_url}"]
    if plan.extra_index_url:
        return [f"--extra-index-url {plan.extra_index_url}"]
    return []


def requirements(plan: Plan) -> str:
    """Pinned requirements with the wheel index of the chosen CUDA/ROCm/CPU variant."""
    pins = [f"{p.name}=={p.version}" for p in plan.pins]
    return "\n".join([_header(plan), *_index_lines(plan), *pins]) + "\n"


def environment(plan: Plan) -> str:
    """A conda-forge environment: Python from conda, the pinned wheels through pip."""
    pip = [*_index_lines(plan), *(f"{p.name}=={p.version}" for p in plan.pins)]
    doc = {
        "name": f"gpuwise-{plan.stack}",
        "channels": ["conda-forge"],
        "dependencies": [f"python={plan.target.python}", "pip", {"pip": pip}],
    }
    return _header(plan) + "\n" + yaml.safe_dump(doc, sort_keys=False)


def _toml_str(value: str) -> str:
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'


def uv_project(plan: Plan) -> str:
    """A pyproject.toml for `uv lock` / `uv sync`: the same pins, the PyTorch wheel index as an
    explicit index used only for the torch packages (uv's documented PyTorch pattern), and the
    lock limited to the target's platform."""
    index = plan.index_url or plan.extra_index_url
    platform = "darwin" if plan.target.vendor == "apple" else "linux"
    deps = ", ".join(_toml_str(f"{p.name}=={p.version}") for p in plan.pins)
    lines = [
        _header(plan),
        "# Lock and install with: uv lock && uv sync",
        "[project]",
        f"name = {_toml_str('gpuwise-' + plan.stack + '-env')}",
        'version = "0"',
        f"requires-python = {_toml_str('==' + plan.target.python + '.*')}",
        f"dependencies = [{deps}]",
        "",
        "[tool.uv]",
        "package = false",
        f"environments = [{_toml_str('sys_platform == ' + repr(platform))}]",
    ]
    if index:
        name = "pytorch-" + index.rstrip("/").rsplit("/", 1)[-1]
        lines += [
            "",
            "[[tool.uv.index]]",
            f"name = {_toml_str(name)}",
            f"url = {_toml_str(index)}",
            "explicit = true",
            "",
            "[tool.uv.sources]",
        ]
        torch_names = [
            p.name for p in plan.pins if p.name in ("torch", "torchvision", "torchaudio")
        ]
        lines += [f"{n} = [{{ index = {_toml_str(name)} }}]" for n in torch_names]
    return "\n".join(lines) + "\n"


def ollama_override(plan: Plan) -> str:
    """systemd drop-in for the Ollama service of the official Linux install: loopback only."""
    assert plan.server is not None
    env = [("OLLAMA_HOST", f"127.0.0.1:{plan.server.port}"), *plan.env]
    lines = [
        _header(plan),
        "# Install:",
        "#   sudo mkdir -p /etc/systemd/system/ollama.service.d",
        "#   sudo cp ollama-override.conf /etc/systemd/system/ollama.service.d/override.conf",
        "#   sudo systemctl daemon-reload && sudo systemctl restart ollama",
        "[Service]",
        *(f'Environment="{k}={v}"' for k, v in env),
    ]
    return "\n".join(lines) + "\n"


def _driver_package(plan: Plan) -> str:
    """nvidia-driver-<branch>[-open]: the branch setup chose (see resolve._driver_plan)."""
    if not plan.driver_branch:
        return ""
    return f"nvidia-driver-{plan.driver_branch}" + ("-open" if plan.open_modules_only else "")


def install_driver(plan: Plan) -> str:
    """A driver install script for Ubuntu hosts; gpuwise writes it and never runs it."""
    lines = [
        "#!/usr/bin/env bash",
        _header(plan),
        "# gpuwise never runs this script: read it, then run it yourself.",
        "set -euo pipefail",
        ". /etc/os-release",
        'if [ "${ID:-}" != "ubuntu" ]; then',
        '  echo "This script is for Ubuntu; follow your distribution\'s driver guide." >&2',
        "  exit 1",
        "fi",
        "sudo apt-get update",
    ]
    if plan.target.vendor == "nvidia":
        package = _driver_package(plan)
        need = plan.need_driver or "?"
        lines += [
            f"# The pinned wheels need NVIDIA driver >= {need}; DKMS rebuilds it per kernel.",
            'sudo apt-get install -y --no-install-recommends "linux-headers-$(uname -r)" dkms',
        ]
        if package:
            lines += [
                f"# Branch {plan.driver_branch}, the one gpuwise setup chose for these pins.",
                f"sudo apt-get install -y {package}",
            ]
        else:
            lines.append(
                "echo 'No driver branch is known for this GPU: see gpuwise setup --explain' >&2"
            )
            lines.append("exit 1")
    else:
        lines += [
            "# ROCm: install amdgpu-install for this Ubuntu release from AMD's repository",
            "# (https://rocm.docs.amd.com/projects/install-on-linux/), then:",
            'sudo apt-get install -y --no-install-recommends "linux-headers-$(uname -r)"',
            "sudo amdgpu-install -y --usecase=dkms",
            'sudo usermod -aG render,video "$USER"',
        ]
    lines.append('echo "Reboot, then run ./verify.sh"')
    return "\n".join(lines) + "\n"


def verify(plan: Plan) -> str:
    """Build and smoke-test the container (where there is one), then run `gpuwise doctor`."""
    lines = ["#!/usr/bin/env bash", _header(plan), "set -euo pipefail", 'cd "$(dirname "$0")"']
    if plan.target.vendor == "ascend":
        lines.append(f"\"${{PYTHON:-python3}}\" -c '{NPU_CHECK}'")
    elif plan.target.vendor != "apple":
        lines += [
            "if [ -f compose.yaml ] && command -v docker >/dev/null 2>&1; then",
            "  docker compose build",
        ]
        if plan.stack == "ollama":
            assert plan.server is not None
            url = f"http://127.0.0.1:{plan.server.port}{plan.server.health_path}"
            lines += ["  docker compose up -d --wait", f"  curl -fsS {url}"]
        else:
            lines.append(f"  docker compose run --rm --entrypoint python app -c '{TORCH_CHECK}'")
        lines.append("fi")
    elif plan.stack == "ollama":
        assert plan.server is not None
        lines.append(f"curl -fsS http://127.0.0.1:{plan.server.port}{plan.server.health_path}")
    else:
        lines.append(f"\"${{PYTHON:-python3}}\" -c '{MPS_CHECK}'")
    lines += [
        "# gpuwise doctor checks driver, wheel and GPU together; PYTHON= the environment's python",
        "if command -v gpuwise >/dev/null 2>&1; then",
        '  gpuwise doctor ${PYTHON:+--python "$PYTHON"}',
        "else",
        '  echo "gpuwise is not installed: pip install gpuwise, then run: gpuwise doctor" >&2',
        "fi",
    ]
    return "\n".join(lines) + "\n"
