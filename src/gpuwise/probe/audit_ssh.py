"""sshd's effective settings: `sshd -T` when running as root (it needs the host keys), else the
config files read the way sshd reads them (sshd_config(5)): keywords are case-insensitive, the
first value obtained wins, `Include` takes globs (relative to /etc/ssh) and is read in place,
and lines after a `Match` apply only to some connections, so they are not global values.

The files are read in either case, for where a fix must go: each global setting carries its
`rank` (how many setting lines sshd read before it), and `dropin_rank` says where a new file
:data:`DROPIN` would be read (None when no global `Include` covers it). A line in the drop-in
only takes effect when it is read before the line that sets the value now; with
`PermitRootLogin yes` on line 1 and the Include after it, appending to the drop-in changes
nothing (newcomer review #8). A config that is not text is reported, not read as defaults.
"""

from __future__ import annotations

import fnmatch
import os
from typing import Any

from gpuwise.parse.result import Failed, Found, Missing, ProbeResult, TimedOut
from gpuwise.probe.context import ProbeContext
from gpuwise.probe.run import run_cmd, which

MAIN = "/etc/ssh/sshd_config"
DROPIN = "/etc/ssh/sshd_config.d/00-gpuwise.conf"
_ALIASES = {"challengeresponseauthentication": "kbdinteractiveauthentication"}
_MAX_DEPTH = 16  # Include nesting sshd itself allows before refusing


def probe_ssh(ctx: ProbeContext, as_root: bool, timeout_s: float) -> ProbeResult:
    """Effective settings with where each came from; `unreadable` lists files it could not
    read (as a normal user /etc/ssh/sshd_config.d/* is often root-only)."""
    files = _read_files(ctx) if ctx.exists(MAIN) else None
    if as_root:
        res = run_cmd(["sshd", "-T"], ctx.left(timeout_s), _sbin_env(ctx))
        if res.timed_out:
            return TimedOut(timeout_s)
        if res.ok and res.stdout.strip():
            placement = _placement(files) if files and not files["not_text"] else {}
            return Found(
                {"source": "sshd -T", "main_file": MAIN, **parse_sshd_t(res.stdout), **placement}
            )
    if files is None:
        return Missing("no_sshd_config")
    if files["not_text"]:
        return Failed("sshd_config_not_text", ", ".join(files["not_text"]))
    if MAIN in files["unreadable"]:
        return Failed("sshd_config_unreadable", MAIN, facts={"unreadable": files["unreadable"]})
    return Found(
        {
            "source": "files",
            "main_file": MAIN,
            "settings": files["settings"],
            "files": files["files"],
            "unreadable": files["unreadable"],
            **_placement(files),
        }
    )


def _read_files(ctx: ProbeContext) -> dict[str, Any]:
    """The config files as sshd reads them (see the module docstring)."""
    state: dict[str, Any] = {
        "settings": {},
        "files": [],
        "unreadable": [],
        "not_text": [],
        "in_match": False,
        "rank": 0,
        "dropin_rank": None,
    }
    _read(ctx, MAIN, state, 0)
    return state


def _placement(files: dict[str, Any]) -> dict[str, Any]:
    """Where settings were read, for placing a fix: each keyword's file, line and rank, and
    where the drop-in would be read."""
    return {"placement": files["settings"], "dropin": DROPIN, "dropin_rank": files["dropin_rank"]}


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
    if not _is_text(text):
        state["not_text"].append(path)
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
            _include(ctx, value, state, depth)
        elif not state["in_match"]:
            keyword = _ALIASES.get(keyword, keyword)
            if keyword not in state["settings"]:
                state["settings"][keyword] = {"value": value.split()[0], "file": path,
                                              "line": number, "rank": state["rank"]}  # fmt: skip
            state["rank"] += 1


def _include(ctx: ProbeContext, value: str, state: dict[str, Any], depth: int) -> None:
    """Read an Include's files in place, word by word; note where the drop-in would fall among
    the matches of a global word that covers it (before the first one that sorts after it)."""
    for word in value.split():
        covers = not state["in_match"] and state["dropin_rank"] is None and _covers_dropin(word)
        for included in _expand(ctx, word):
            if covers and included >= DROPIN and state["dropin_rank"] is None:
                state["dropin_rank"] = state["rank"]
            _read(ctx, included, state, depth + 1)
        if covers and state["dropin_rank"] is None:
            state["dropin_rank"] = state["rank"]


def _covers_dropin(word: str) -> bool:
    """Whether an Include word names the drop-in (a glob that matches it, or its path)."""
    pattern = word if word.startswith("/") else f"/etc/ssh/{word}"
    return fnmatch.fnmatchcase(DROPIN, pattern)


def _is_text(text: str) -> bool:
    """A config sshd could parse: no NUL bytes, and (decoded leniently) almost no replacement
    characters. A binary file is otherwise read as "nothing set", i.e. the compiled-in
    defaults, without a word."""
    if "\0" in text:
        return False
    return text.count("\ufffd") <= max(2, len(text) // 100)


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
