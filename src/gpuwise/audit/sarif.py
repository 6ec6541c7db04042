"""SARIF 2.1.0 for CI systems (GitHub code scanning reads `level` and the rule property
`security-severity`; data/audit.toml `audit_severity` holds both per severity)."""

from __future__ import annotations

from typing import Any

from gpuwise.audit.tables import AuditTables

SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"


def to_sarif(report: dict[str, Any], tables: AuditTables, version: str) -> dict[str, Any]:
    """One run of the `gpuwise` tool: a rule per rule id, a result per finding."""
    rules: dict[str, dict[str, Any]] = {}
    results: list[dict[str, Any]] = []
    for f in report["findings"]:
        level = tables.severities[f["severity"]]
        rule = rules.setdefault(
            f["rule"],
            {
                "id": f["rule"],
                "name": f["rule"].title().replace("-", ""),
                "shortDescription": {"text": f["title"]},
                "help": {"text": f["fix"]},
                "properties": {
                    "security-severity": f"{level.security_severity:.1f}",
                    "tags": ["security", f["area"]],
                },
            },
        )
        current = float(rule["properties"]["security-severity"])
        if level.security_severity > current:  # a rule's score is its worst result's
            rule["properties"]["security-severity"] = f"{level.security_severity:.1f}"
        result: dict[str, Any] = {
            "ruleId": f["rule"],
            "level": level.sarif_level,
            "message": {"text": f"{f['title']}: {f['evidence']}"},
            "properties": {"severity": f["severity"], "commands": f["commands"]},
        }
        if f["refs"]:
            rule.setdefault("helpUri", f["refs"][0])
        result["locations"] = [_location(f)]
        results.append(result)
    return {
        "$schema": SARIF_SCHEMA,
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "gpuwise",
                        "version": version,
                        "rules": list(rules.values()),
                    }
                },
                "results": results,
            }
        ],
    }


def _location(f: dict[str, Any]) -> dict[str, Any]:
    """A file when the finding is about one, else a logical location (the host's area)."""
    if f["location"]:
        return {"physicalLocation": {"artifactLocation": {"uri": "file://" + f["location"]}}}
    return {"logicalLocations": [{"name": f["area"], "kind": "module"}]}
