"""NVIDIA Container Toolkit and GPU driver versions against the fixed versions of published
vulnerabilities (data/audit.toml `audit_fixed_version`, each cited to its bulletin).

Drivers are compared only within the fixed version's branch (the major number): NVIDIA fixes
each supported branch separately, so an older branch is not "below" a newer branch's fix.
"""

from __future__ import annotations

import re
from typing import Any

from gpuwise.audit.model import Finding
from gpuwise.audit.tables import AuditTables


def version_tuple(text: str) -> tuple[int, ...] | None:
    """(1, 17, 3) from "1.17.3" (leading digits of each part); None when not a version."""
    m = re.match(r"^\s*v?(\d+(?:\.\d+)*)", text)
    return tuple(int(p) for p in m.group(1).split(".")) if m else None


def version_findings(facts: dict[str, Any], tables: AuditTables) -> list[Finding]:
    """One finding per component that is below a fixed version."""
    out: list[Finding] = []
    for component, fact, rule, key, upgrade in (
        (
            "nvidia-container-toolkit",
            "toolkit",
            "GPUW-VER-NCT",
            "ver_toolkit",
            "sudo apt-get install --only-upgrade nvidia-container-toolkit",
        ),
        ("nvidia-driver", "driver", "GPUW-VER-DRIVER", "ver_driver", "nvidia-smi"),
    ):
        seen = facts.get(fact)
        installed = str((seen or {}).get("version") or "")
        have = version_tuple(installed)
        if have is None:
            continue
        open_ = [
            fv
            for fv in tables.fixed
            if fv.component == component
            and (not fv.branch or str(have[0]) == fv.branch)
            and have < (version_tuple(fv.fixed) or ())
        ]
        if not open_:
            continue
        worst = min(open_, key=lambda fv: tables.rank(fv.severity))
        target = max(open_, key=lambda fv: version_tuple(fv.fixed) or ())
        sources = tuple(dict.fromkeys(s for fv in open_ for s in fv.source_ids()))
        out.append(
            Finding(
                rule=rule,
                area="versions",
                severity=worst.severity,
                key=key,
                params={
                    "version": installed,
                    "fixed": target.fixed,
                    "cves": ", ".join(c for fv in open_ for c in fv.cves),
                    "via": str((seen or {}).get("via", "")),
                },
                sources=sources,
                commands=(upgrade,),
            )
        )
    return out
