"""/etc/os-release and the package manager it implies (pure: the live probe reads the file,
`doctor --from` reads a pasted copy).
"""

from __future__ import annotations

# os-release ID / ID_LIKE words → the package manager that distribution uses.
_PKG_BY_ID = {
    "ubuntu": "apt",
    "debian": "apt",
    "linuxmint": "apt",
    "pop": "apt",
    "fedora": "dnf",
    "rhel": "dnf",
    "centos": "dnf",
    "rocky": "dnf",
    "almalinux": "dnf",
    "ol": "dnf",
    "amzn": "dnf",
    "openeuler": "dnf",
    "anolis": "dnf",
    "opensuse": "zypper",
    "sles": "zypper",
    "suse": "zypper",
    "arch": "pacman",
    "manjaro": "pacman",
}


def parse_os_release(text: str) -> dict[str, str]:
    """KEY=value lines of /etc/os-release, quotes removed."""
    out: dict[str, str] = {}
    for line in text.splitlines():
        key, sep, value = line.strip().partition("=")
        if sep and key and not key.startswith("#"):
            out[key] = value.strip().strip('"').strip("'")
    return out


def package_manager(os_release: dict[str, str], have: dict[str, bool]) -> str:
    """apt / dnf / yum / zypper / pacman / brew / "" from os-release, checked against PATH."""
    words = [os_release.get("ID", ""), *os_release.get("ID_LIKE", "").split()]
    for word in words:
        pm = _PKG_BY_ID.get(word.lower())
        if pm == "dnf" and not have.get("dnf") and have.get("yum"):
            return "yum"
        if pm:
            return pm
    for pm in ("apt", "dnf", "yum", "zypper", "pacman", "brew"):
        if have.get(pm):
            return pm
    return ""
