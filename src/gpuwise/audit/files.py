"""Credential files and model/data folders that other users can read: the path and its mode,
never the content (the probe only calls stat()).

A secret readable by every user (GPUW-FILE-WORLD) or by the file's group (GPUW-FILE-GROUP), and
a model or dataset folder every user can list and reach (GPUW-FILE-DATA), take their severities
from data/audit.toml; when the folder a secret lies in cannot be entered by others (a 0700/0750
home), the "every user" finding is one step lower (they cannot reach it today; one chmod of the
home would expose it).
"""

from __future__ import annotations

import stat
from dataclasses import replace
from typing import Any

from gpuwise.audit.model import Finding, lower
from gpuwise.audit.tables import AuditTables


def file_findings(facts: dict[str, Any], tables: AuditTables) -> list[Finding]:
    """One finding per file or folder with loose permissions."""
    by_id = {f.id: f for f in tables.files}
    out: list[Finding] = []
    for item in facts.get("files", []):
        entry = by_id.get(str(item.get("id")))
        if entry is None:
            continue
        mode = int(item["mode"])
        finding = (
            _data(item, entry.tool, mode, tables)
            if entry.kind == "data"
            else _secret(item, entry.tool, mode, tables)
        )
        if finding is not None:
            sources = tuple(dict.fromkeys((*entry.source_ids(), *finding.sources)))
            out.append(replace(finding, sources=sources))
    return out


def _params(item: dict[str, Any], tool: str, mode: int) -> dict[str, Any]:
    return {"path": item["path"], "mode": f"{stat.S_IMODE(mode):04o}", "tool": tool}


def _secret(item: dict[str, Any], tool: str, mode: int, tables: AuditTables) -> Finding | None:
    if mode & stat.S_IROTH:
        rule, key = "GPUW-FILE-WORLD", "file_world"
        severity = tables.severity(rule)
        if not item.get("parent_traversable", True):
            severity = lower(severity, tables.order)
            key = "file_world_closed"
    elif mode & stat.S_IRGRP:
        rule, key = "GPUW-FILE-GROUP", "file_group"
        severity = tables.severity(rule)
    else:
        return None
    return Finding(
        rule=rule,
        area="files",
        severity=severity,
        key=key,
        params=_params(item, tool, mode),
        commands=(f"chmod 600 '{item['path']}'",),
        sources=tables.sources(rule),
        location=str(item["path"]),
    )


def _data(item: dict[str, Any], tool: str, mode: int, tables: AuditTables) -> Finding | None:
    if not (mode & stat.S_IROTH and mode & stat.S_IXOTH) or not item.get("parent_traversable"):
        return None  # others cannot list it, or cannot reach it through the folders above
    return Finding(
        rule="GPUW-FILE-DATA",
        area="files",
        severity=tables.severity("GPUW-FILE-DATA"),
        key="data_world",
        params=_params(item, tool, mode),
        commands=(f"chmod o-rwx '{item['path']}'",),
        sources=tables.sources("GPUW-FILE-DATA"),
        location=str(item["path"]),
    )
