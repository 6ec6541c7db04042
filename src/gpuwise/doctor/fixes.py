"""Fix commands that fit this system: apt vs dnf vs zypper, WSL vs native, the user's Python.

Lines starting with "#" are comments in the user's language; everything else is meant to be
pasted into a shell (PowerShell where a comment says so).
"""

from __future__ import annotations

import shlex
from typing import Any

from gpuwise.doctor.recommend import Wheel
from gpuwise.doctor.view import Host
from gpuwise.i18n import t


def comment(key: str, **params: Any) -> str:
    """A translated comment line."""
    return "# " + t(f"doctor.cmd.{key}", **params)


def install(host: Host, *packages: str) -> str:
    """The package-manager command that installs `packages` on this host."""
    pkgs = " ".join(packages)
    return {
        "apt": f"sudo apt-get install -y {pkgs}",
        "dnf": f"sudo dnf install -y {pkgs}",
        "yum": f"sudo yum install -y {pkgs}",
        "zypper": f"sudo zypper install -y {pkgs}",
        "pacman": f"sudo pacman -S --needed {pkgs}",
    }.get(host.package_manager, f"<package manager> install {pkgs}")


def driver_install(host: Host) -> tuple[str, ...]:
    """How to install the NVIDIA driver here (on Windows for WSL)."""
    if host.wsl:
        return (
            comment("on_windows"),
            comment("wsl_driver_windows"),
            "wsl --update",
            "wsl --shutdown",
        )
    if host.distro == "ubuntu":
        return ("sudo ubuntu-drivers install", "sudo reboot")
    if host.package_manager in ("apt", "dnf", "yum", "zypper"):
        return (comment("cuda_repo"), install(host, "cuda-drivers"), "sudo reboot")
    return (comment("driver_vendor"), "sudo reboot")


def module_reload() -> tuple[str, ...]:
    """Load the NVIDIA kernel modules and show why they would not load."""
    return ("sudo modprobe nvidia", "sudo dmesg | grep -iE 'nvrm|nvidia' | tail -n 20")


def pip_install_torch(host: Host, wheel: Wheel | None) -> tuple[str, ...]:
    """Install PyTorch into the Python that was checked, from the right wheel index."""
    py = shlex.quote(host.python)
    if wheel is None:
        return (f"{py} -m pip install --upgrade torch",)
    return (
        f"{py} -m pip install --upgrade 'torch=={wheel.torch}.*' --index-url {wheel.index_url}",
    )


def pip_install_torch_cpu(host: Host) -> tuple[str, ...]:
    """CPU-only PyTorch (no GPU here)."""
    py = shlex.quote(host.python)
    return (f"{py} -m pip install torch --index-url https://download.pytorch.org/whl/cpu",)


def container_toolkit(host: Host) -> tuple[str, ...]:
    """Install NVIDIA Container Toolkit and register it with Docker."""
    return (
        comment("ctk_repo"),
        install(host, "nvidia-container-toolkit"),
        "sudo nvidia-ctk runtime configure --runtime=docker",
        "sudo systemctl restart docker",
        "docker run --rm --gpus all ubuntu nvidia-smi",
    )


def remove_packages(host: Host, packages: list[str]) -> str:
    """Remove packages with this host's package manager."""
    pkgs = " ".join(shlex.quote(p) for p in packages)
    if host.package_manager == "apt":
        return f"sudo apt-get purge -y {pkgs}"
    return {
        "dnf": f"sudo dnf remove -y {pkgs}",
        "yum": f"sudo yum remove -y {pkgs}",
        "zypper": f"sudo zypper remove -y {pkgs}",
    }.get(host.package_manager, f"<package manager> remove {pkgs}")


def service_env(host: Host, assignment: str) -> tuple[str, ...]:
    """Set an environment variable for the Ollama server (systemd, else the shell)."""
    if host.os == "Linux" and not host.in_container:
        return (
            "sudo systemctl edit ollama.service",
            comment("systemd_env", line=f'Environment="{assignment}"'),
            "sudo systemctl daemon-reload && sudo systemctl restart ollama",
        )
    return (f"export {assignment}", "ollama serve")


def service_unset(host: Host, name: str) -> tuple[str, ...]:
    """Remove a variable from the shell and from the Ollama service."""
    lines = [f"unset {name}"]
    if host.os == "Linux" and not host.in_container:
        lines += [
            "sudo systemctl edit ollama.service",
            comment("systemd_remove", name=name),
            "sudo systemctl daemon-reload && sudo systemctl restart ollama",
        ]
    return tuple(lines)
