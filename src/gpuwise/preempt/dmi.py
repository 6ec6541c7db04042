"""Which cloud a VM runs on, from its DMI (SMBIOS) strings (pure; rules from the catalog).

Each catalog `cloud_dmi` rule says "field F contains text T" (case-insensitive), with a source.
The first cloud with a matching rule wins; none matching means "not a known cloud" (a desktop,
an on-premises server, or a cloud whose DMI strings are not documented: pass `--cloud`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from gpuwise.catalog.schema_supervise import CloudDmiRule


def detect_cloud(dmi: Mapping[str, str], rules: Iterable[CloudDmiRule]) -> str | None:
    """The cloud whose rule matches the DMI values first, or None."""
    for rule in rules:
        value = dmi.get(rule.field, "")
        if value and rule.contains.lower() in value.lower():
            return rule.cloud
    return None


def dmi_fields(rules: Iterable[CloudDmiRule]) -> list[str]:
    """The DMI files the rules read, without repeats (so the edge reads only those)."""
    return list(dict.fromkeys(r.field for r in rules))
