"""Docker: `docker info` text, `docker run --gpus` refusals, and signs of being inside a
container (a shell prompt whose hostname is a 12-hex container id, /.dockerenv)."""

from __future__ import annotations

import re

from gpuwise.doctor.paste.model import Block, hits, line_span

_INFO = re.compile(r"^\s*Server Version:\s*(\S+)", re.M)
_RUNTIMES = re.compile(r"^\s*Runtimes:\s*(.+?)\s*$", re.M)
_DEFAULT = re.compile(r"^\s*Default Runtime:\s*(\S+)", re.M)
_CGROUP = re.compile(r"^\s*Cgroup Driver:\s*(\S+)", re.M)
_REFUSED = re.compile(
    r'could not select device driver "[^"]*" with capabilities: \[\[gpu\]\]'
    r"|unknown or invalid runtime name: nvidia"
    r"|nvidia-container-cli: initialization error:[^\n]*"
)
_PROMPT = re.compile(r"^\s*(\w[\w.-]*)@([0-9a-f]{12}):\S*[#$]", re.M)
_RUN = re.compile(r"^\s*(?:\$\s*)?(?:sudo\s+)?docker run\b", re.M)
_IT = re.compile(r"\s-(?:it|ti)\b|\s--interactive\b")
_DAEMON_ERROR = re.compile(r"docker: Error response from daemon")


def _interactive_run(text: str) -> tuple[int, int] | None:
    """An interactive `docker run -it …` (backslash-continued lines included) that started:
    what follows it in the paste ran inside that container."""
    for m in hits(_RUN, text):
        end = m.start()
        for _ in range(64):  # continuation lines of one command
            line_start, line_end = line_span(text, end)
            if not text[line_start:line_end].rstrip().endswith("\\") or line_end >= len(text):
                break
            end = line_end + 1
        command = text[m.start() : line_end]
        if _IT.search(command) and not _DAEMON_ERROR.search(text, line_end):
            return m.start(), line_end
    return None


def find(text: str) -> list[Block]:
    out = []
    info = _INFO.search(text)
    if info:
        window = text[info.start() : info.start() + 6000]
        rt = _RUNTIMES.search(window)
        df = _DEFAULT.search(window)
        cg = _CGROUP.search(window)
        facts = {
            "daemon": True,
            "installed": True,
            "server_version": info.group(1),
            "runtimes": sorted(rt.group(1).split()) if rt else [],
            "default_runtime": df.group(1) if df else "",
            "cgroup_driver": cg.group(1) if cg else "",
        }
        out.append(Block("docker info", info.start(), info.start() + len(window), facts))
    for m in hits(_REFUSED, text):
        start, end = line_span(text, m.start())
        out.append(Block("docker run error", start, end, {"gpu_request_error": m.group(0)}))
    interactive = _interactive_run(text)
    if interactive is not None:
        start, end = interactive
        out.append(
            Block("docker run -it (the rest ran inside)", start, end, {"in_container": True})
        )
    prompt = _PROMPT.search(text)
    if prompt:
        start, end = line_span(text, prompt.start())
        out.append(
            Block(
                "container shell prompt",
                start,
                end,
                {"in_container": True, "container_id": prompt.group(2)},
            )
        )
    return out
