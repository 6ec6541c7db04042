"""What every export target shares: the result type, the header that ties a file to its plan
option, YAML and shell rendering, and the sizes derived from the plan (disk, pod memory).

A file an export writes starts with a comment naming the plan option and the numbers it carries,
so a launch file found months later still says where its tensor-parallel size came from.
"""

from __future__ import annotations

import math
import shlex
from dataclasses import dataclass, field
from typing import Any

import yaml

from gpuwise.estimate.request import ALL_LINEAR
from gpuwise.export.tables import ExportTables
from gpuwise.export.view import ExportView

GIB = 1024**3
Note = tuple[str, dict[str, Any]]


@dataclass(frozen=True)
class Export:
    """The files of one target (name → text) and the notes to tell the user (i18n keys)."""

    target: str
    files: dict[str, str]
    notes: tuple[Note, ...] = field(default_factory=tuple)


def describe(v: ExportView) -> str:
    """One line naming the option: number, seller or own hardware, devices and the format."""
    where = v.label
    return (
        f"plan option {v.number}: {where}; {v.hardware} on {v.machines} machine(s); "
        f"{v.model_id} {v.quant} on {v.engine}"
    )


def header(v: ExportView, target: str, mark: str = "#") -> str:
    """The comment block every file starts with."""
    lines = [
        f"Written by gpuwise export --to {target} ({describe(v)}).",
        "The numbers below are the plan's; re-run gpuwise export after changing the scenario.",
    ]
    return "\n".join(f"{mark} {line}" for line in lines) + "\n"


def yaml_text(data: Any) -> str:
    """YAML in the order given, Unicode kept, no aliases."""

    return yaml.dump(data, Dumper=_Dumper, sort_keys=False, allow_unicode=True, width=100)


class _Dumper(yaml.SafeDumper):
    """No anchors or aliases; multi-line strings (scripts) as literal blocks."""

    def ignore_aliases(self, data: Any) -> bool:
        return True


def _text(dumper: yaml.SafeDumper, data: str) -> yaml.Node:
    style = "|" if "\n" in data else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", data, style=style)


_Dumper.add_representer(str, _text)


def yaml_docs(docs: list[dict[str, Any]]) -> str:
    """Several YAML documents separated by ---."""
    return "---\n".join(yaml_text(d) for d in docs)


def command_line(words: list[str], indent: str = "  ") -> str:
    """A shell command, one flag and its value per continued line (readable, `bash -n` clean).

    Words that are shell expansions (`"$MODEL"`, `"${NODE_RANK:-0}"`) are kept as written;
    everything else is quoted."""
    parts = [_word(w) for w in words]
    lines: list[str] = [parts[0]]
    value_next = False  # the word after a flag is its value; a word after that starts a line
    for part in parts[1:]:
        if part.startswith("-"):
            lines.append(part)
            value_next = True
        elif value_next or len(lines) == 1:
            lines[-1] += f" {part}"
            value_next = False
        else:
            lines.append(part)
    return f" \\\n{indent}".join(lines)


def _word(word: str) -> str:
    if word.startswith('"$') and word.endswith('"'):
        return word
    return shlex.quote(word)


def script(v: ExportView, target: str, body: list[str]) -> str:
    """A bash script: shebang, header, strict mode, the body."""
    return (
        "#!/usr/bin/env bash\n"
        + header(v, target)
        + "set -euo pipefail\n\n"
        + "\n".join(body)
        + "\n"
    )


def number_text(value: float) -> str:
    """A number as a flag value: 0.92, 8192 (no trailing .0)."""
    return str(int(value)) if float(value).is_integer() else f"{value:g}"


def disk_gb(v: ExportView, t: ExportTables) -> int:
    """Disk for a machine: room for the checkpoint's copies, never under SkyPilot's default."""
    need = math.ceil(v.checkpoint_gb * t.setting("disk_per_checkpoint"))
    return max(int(t.setting("skypilot_default_disk_gb")), need)


def shm_gib(v: ExportView, t: ExportTables) -> float:
    """Shared memory for the engine's processes (per vendor, from the engines' own manifests)."""
    key = f"k8s_shm_gib.{v.vendor}"
    return t.settings.get(key, t.setting("k8s_shm_gib.nvidia"))


def pod_memory_gib(v: ExportView, t: ExportTables) -> int:
    """Host memory for one pod: the checkpoint it loads, its memory-backed /dev/shm and the
    runtime beside them."""
    need = v.checkpoint_bytes / GIB + shm_gib(v, t) + t.setting("k8s_runtime_memory_gib")
    return math.ceil(need)


def lora_target(v: ExportView) -> str:
    """The LoRA targets as PEFT-based trainers name them: `all` for every linear layer."""
    if not v.lora_targets or set(v.lora_targets) >= set(ALL_LINEAR):
        return "all"
    return ",".join(f"{t}_proj" for t in v.lora_targets)


def slug(v: ExportView) -> str:
    """A name for jobs, services and files: lowercase, digits and dashes."""
    raw = f"gpuwise-{v.model_id}-{v.kind}"
    clean = "".join(c if c.isalnum() else "-" for c in raw.lower())
    return "-".join(p for p in clean.split("-") if p)[:63].rstrip("-")
