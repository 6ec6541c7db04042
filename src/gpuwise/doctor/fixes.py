"""Fix commands that fit where they must run: apt vs dnf vs zypper, the host of a container,
Windows for WSL 2, a cloud VM, and the user's Python.

Lines starting with "#" are comments in the user's language; everything else is meant to be
pasted into a shell (PowerShell where a comment says so). Inside a container the NVIDIA driver
is the host's: nothing installed or loaded inside the container can change it, so driver fixes
say "on the host" and container fixes are `docker run` options, never `modprobe` or `reboot`.
"""

from __future__ import annotations

import shlex
from typing import Any

from gpuwise.doctor.recommend import Advice
from gpuwise.i18n import t
from gpuwise.parse.view import Host

GPU_QUERY = "nvidia-smi --query-gpu=name,compute_cap,driver_version --format=csv"


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


def _native_driver(host: Host, branch: str = "") -> tuple[str, ...]:
    """Install a driver on a Linux machine we are running on (or the unknown one pasted)."""
    if host.distro == "ubuntu":
        pkg = f"nvidia-driver-{branch}" if branch else ""
        first = f"sudo apt-get install -y {pkg}" if pkg else "sudo ubuntu-drivers install"
        return (first, "sudo reboot")
    if host.package_manager in ("apt", "dnf", "yum", "zypper"):
        pkg = f"cuda-drivers-{branch}" if branch else "cuda-drivers"
        return (comment("cuda_repo"), install(host, pkg), "sudo reboot")
    return (comment("driver_vendor"),)


def driver_install(host: Host, need: str = "", branch: str = "") -> tuple[str, ...]:
    """How to install or upgrade the NVIDIA driver where the driver actually lives.

    `need` is the minimum version the job needs (shown in a comment); `branch` pins a driver
    branch (old GPUs whose support ended, e.g. "470").
    """
    want = need or (f"{branch}.xx" if branch else "")
    place = host.place
    if place == "container":
        cmds = [comment("host_side"), comment("host_driver", need=want or "?")]
        return (*cmds, "nvidia-smi", comment("restart_container"))
    if place.startswith("wsl"):
        return (
            comment("on_windows"),
            comment("wsl_driver_windows"),
            "wsl --update",
            "wsl --shutdown",
        )
    if place == "windows":
        return (comment("windows_driver", need=want or "?"),)
    lead = [comment("need_driver", need=want)] if want else []
    if place == "unknown":
        return (*lead, comment("driver_unknown_place"))
    if host.cloud:
        lead.append(comment("cloud_image", cloud=host.cloud))
    return (*lead, *_native_driver(host, branch))


def module_reload(host: Host) -> tuple[str, ...]:
    """Load the NVIDIA kernel modules and show why they would not load (on the right machine)."""
    if host.place == "container":
        return (
            comment("host_side"),
            "sudo modprobe nvidia",
            "sudo dmesg | grep -iE 'nvrm|nvidia' | tail -n 20",
        )
    if host.place.startswith("wsl"):
        return driver_install(host)
    return ("sudo modprobe nvidia", "sudo dmesg | grep -iE 'nvrm|nvidia' | tail -n 20")


def repair_driver_packages(host: Host) -> tuple[str, ...]:
    """Finish a half-done driver upgrade so kernel module and libraries match, then reload.

    A version mismatch after an unattended upgrade is fixed by completing the package state
    first; rebooting with broken packages brings the mismatch back.
    """
    if host.place == "container":
        return (comment("host_side"), comment("repair_on_host"), comment("restart_container"))
    pm = host.package_manager
    if pm == "apt":
        steps = [
            "sudo dpkg --configure -a",
            "sudo apt-get install -f",
            "dpkg -l | grep -E '^.. +(nvidia|libnvidia)' | awk '{print $1, $2, $3}'",
        ]
    elif pm in ("dnf", "yum"):
        steps = [f"sudo {pm} distro-sync 'nvidia*' 'kmod-nvidia*'", "rpm -qa | grep -i nvidia"]
    elif pm == "zypper":
        steps = ["sudo zypper verify", "rpm -qa | grep -i nvidia"]
    else:
        steps = [comment("repair_packages")]
    return (
        *steps,
        comment("reboot_or_reload"),
        "sudo reboot",
    )


def pip_install_torch(host: Host, advice: Advice) -> tuple[str, ...]:
    """Install PyTorch into the Python that was checked, only from known facts.

    No wheel is named when the GPU or the driver is unknown (the command that reveals them is
    shown instead), and never `pip install --upgrade torch`: the default PyPI wheel may need a
    newer driver than the one present.
    """
    py = shlex.quote(host.python)
    wheel = advice.wheel
    if wheel is not None:
        return (f"{py} -m pip install 'torch=={wheel.torch}.*' --index-url {wheel.index_url}",)
    if advice.newest is not None and advice.missing:
        return (comment("check_driver", need=advice.need_driver or "?"), GPU_QUERY)
    if advice.newest is not None:
        return (comment("driver_first", need=advice.need_driver or "?"),)
    if advice.missing:
        queries = [GPU_QUERY] if {"gpu", "driver"} & set(advice.missing) else []
        queries += [f"{py} --version"] if "python" in advice.missing else []
        return (comment("facts_first"), *queries)
    return (comment("no_wheel"),)


def pip_install_torch_cpu(host: Host) -> tuple[str, ...]:
    """CPU-only PyTorch (no GPU here)."""
    py = shlex.quote(host.python)
    return (f"{py} -m pip install torch --index-url https://download.pytorch.org/whl/cpu",)


def container_toolkit(host: Host) -> tuple[str, ...]:
    """Install NVIDIA Container Toolkit and register it with Docker (on the Docker host)."""
    return (
        comment("ctk_repo"),
        install(host, "nvidia-container-toolkit"),
        "sudo nvidia-ctk runtime configure --runtime=docker",
        "sudo systemctl restart docker",
        "docker run --rm --gpus all ubuntu nvidia-smi",
    )


def gpu_into_container() -> tuple[str, ...]:
    """Start the container with the GPU passed in (host side), in each runtime's words."""
    return (
        comment("host_side"),
        "docker run --gpus all …",
        "docker run --device nvidia.com/gpu=all …   # CDI (Podman, Docker 25+)",
        comment("k8s_gpu"),
        comment("if_docker_fails"),
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
    """Set an environment variable for the Ollama server (systemd, else the shell/container)."""
    if host.place == "container":
        return (comment("host_side"), f"docker run -e {assignment} …")
    if host.os == "Linux" and host.place == "native":
        return (
            "sudo systemctl edit ollama.service",
            comment("systemd_env", line=f'Environment="{assignment}"'),
            "sudo systemctl daemon-reload && sudo systemctl restart ollama",
        )
    return (f"export {assignment}", "ollama serve")


def service_unset(host: Host, name: str) -> tuple[str, ...]:
    """Remove a variable from the shell and from the Ollama service."""
    lines = [f"unset {name}"]
    if host.os == "Linux" and host.place == "native":
        lines += [
            "sudo systemctl edit ollama.service",
            comment("systemd_remove", name=name),
            "sudo systemctl daemon-reload && sudo systemctl restart ollama",
        ]
    return tuple(lines)
