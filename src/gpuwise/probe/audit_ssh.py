"""sshd's effective settings: `sshd -T` when running as root (it needs the host keys), else the
config files read the way sshd reads them (sshd_config(5)): keywords are case-insensitive, the
first value obtained wins, `Include` takes globs (relative to /etc/ssh) and is read in place,
and lines after a `Match` apply only to some connections, so they are not global values.
"""

from __future__ import annotations

import fnmatch
import os
from typing import Any

from gpuwise.probe.context import ProbeContext
from gpuwise.probe.result import Failed, Found, Missing, ProbeResult, TimedOut
from gpuwise.probe.run import run_cmd, which

MAIN = "/etc/ssh/sshd_config"
_ALIASES = {"challengeresponseauthentication": "kbdinteractiveauthentication"}
_MAX_DEPTH = 16  # Include nesting sshd itself allows before refusing


def probe_ssh(ctx: ProbeContext, as_root: bool, timeout_s: float) -> ProbeResult:
    """Effective settings with where each came from; `unreadable` lists files it could not
    read (as a normal user /etc/ssh/sshd_config.d/* is often root-only)."""
    if as_root:
        res = run_cmd(["sshd", "-T"], ctx.left(timeout_s), _sbin_env(ctx))
        if res.timed_out:
            return TimedOut(timeout_s)
        if res.ok and res.stdout.strip():
            return Found({"source": "sshd -T", "main_file": MAIN, **parse_sshd_t(res.stdout)})
    if not ctx.exists(MAIN):
        return Missing("no_sshd_config")
    state: dict[str, Any] = {"settings": {}, "files": [], "unreadable": [], "in_match": False}
    _read(ctx, MAIN, state, 0)
    if MAIN in state["unreadable"]:
        return Failed("sshd_config_unreadable", MAIN, facts={"unreadable": state["unreadable"]})
    return Found(
        {
            "source": "files",
            "main_file": MAIN,
            "settings": state["settings"],
            "files": state["files"],
            "unreadable": state["unreadable"],
        }
    )


def _sbin_env(ctx: ProbeContext) -> dict[str, str]:
    """sshd lives in /usr/sbin, often not on a normal user's PATH."""
    env = dict(ctx.env)
    if str(ctx.root) == "/" and which("sshd", env) is None:
        env["PATH"] = env.get("PATH", "") + os.pathsep + "/usr/sbin:/sbin"
    return env


def parse_sshd_t(text: str) -> dict[str, Any]:
    """`sshd -T` prints one lower-case `keyword value` per line, the effective values."""
    settings: dict[str, Any] = {}
    for line in text.splitlines():
        parts = line.strip().split(None, 1)
        if len(parts) == 2 and parts[0] not in settings:
            settings[_ALIASES.get(parts[0], parts[0])] = {
                "value": parts[1],
                "file": "sshd -T",
                "line": 0,
            }
    return {"settings": settings}


def _read(ctx: ProbeContext, path: str, state: dict[str, Any], depth: int) -> None:
    text = ctx.read(path)
    if text is None:
        state["unreadable"].append(path)
        return
    state["files"].append(path)
    for number, raw in enumerate(text.splitlines(), 1):
        words = raw.split("#", 1)[0].replace("=", " ", 1).split(None, 1)
        if len(words) < 2:
            continue
        keyword, value = words[0].lower(), words[1].strip().strip('"')
        if keyword == "match":
            state["in_match"] = value.lower() != "all"  # `Match all` returns to global lines
        elif keyword == "include" and depth < _MAX_DEPTH:
            for included in _expand(ctx, value):
                _read(ctx, included, state, depth + 1)
        elif not state["in_match"]:
            keyword = _ALIASES.get(keyword, keyword)
            if keyword not in state["settings"]:
                state["settings"][keyword] = {"value": value.split()[0], "file": path,
                                              "line": number}  # fmt: skip


def _expand(ctx: ProbeContext, value: str) -> list[str]:
    """The files an Include names: each word a path or glob, relative ones under /etc/ssh,
    matches in lexical order (as glob(3) returns them)."""
    out: list[str] = []
    for word in value.split():
        pattern = word if word.startswith("/") else f"/etc/ssh/{word}"
        folder, name = os.path.split(pattern)
        if any(ch in name for ch in "*?["):
            if ctx.exists(folder) and not os.access(ctx.path(folder), os.R_OK | os.X_OK):
                out.append(folder)  # not listable: reported as unreadable by _read
                continue
            out.extend(f"{folder}/{n}" for n in ctx.glob(folder, "*") if fnmatch.fnmatch(n, name))
        elif ctx.exists(pattern):
            out.append(pattern)
    return out
