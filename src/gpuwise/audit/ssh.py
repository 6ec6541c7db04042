"""sshd: findings from the effective settings (sshd -T, or the config files read with sshd's own
rule that the first value obtained for a keyword wins; sshd_config(5)).

A keyword no file sets takes sshd's compiled-in default (data/audit.toml `audit_ssh_default`),
so a stock config with PasswordAuthentication unset still allows passwords.

The fix goes where it takes effect (first value wins): appended to the drop-in file when sshd
reads that file before the line that sets the value now (or anywhere, when nothing sets it);
otherwise that very line is replaced; with no line and no Include of the drop-in folder, the
setting is put on line 1 of sshd_config (never appended at its end, which may be inside a
`Match` block). Appending to the drop-in whatever the order left the hole open when
`PermitRootLogin yes` came before the Include (newcomer review #8).
"""

from __future__ import annotations

from typing import Any

from gpuwise.audit.model import Finding
from gpuwise.audit.tables import AuditTables

# keyword, value that fires, rule (severity and source in data/audit.toml), message key, fix
_RULES: tuple[tuple[str, str, str, str, str], ...] = (
    ("permitemptypasswords", "yes", "GPUW-SSH-EMPTY", "ssh_empty", "PermitEmptyPasswords no"),
    ("permitrootlogin", "yes", "GPUW-SSH-ROOT", "ssh_root", "PermitRootLogin prohibit-password"),
    ("passwordauthentication", "yes", "GPUW-SSH-PASSWORD", "ssh_password",
     "PasswordAuthentication no"),
    ("kbdinteractiveauthentication", "yes", "GPUW-SSH-KBD", "ssh_kbd",
     "KbdInteractiveAuthentication no"),
    ("pubkeyauthentication", "no", "GPUW-SSH-PUBKEY", "ssh_pubkey", "PubkeyAuthentication yes"),
)  # fmt: skip


def effective(facts: dict[str, Any], tables: AuditTables, keyword: str) -> tuple[str, str, int]:
    """(value, where it came from, line) of a keyword: a file, `sshd -T`, or "default"."""
    found = facts.get("settings", {}).get(keyword)
    if isinstance(found, dict):
        return (
            str(found.get("value", "")).lower(),
            str(found.get("file", "")),
            int(found.get("line") or 0),
        )
    return tables.ssh_defaults.get(keyword, "").lower(), "default", 0


def _where(where: str, line: int) -> str:
    if where == "default":
        return "@audit.render.ssh_default"
    return f"{where}:{line}" if line else where


def ssh_findings(facts: dict[str, Any], tables: AuditTables) -> list[Finding]:
    """One finding per risky effective setting."""
    out: list[Finding] = []
    port, _, _ = effective(facts, tables, "port")
    main_file = str(facts.get("main_file") or "/etc/ssh/sshd_config")
    for keyword, bad, rule, key, fix in _RULES:
        value, where, line = effective(facts, tables, keyword)
        if value != bad:
            continue
        location = where if where.startswith("/") else main_file
        out.append(
            Finding(
                rule=rule,
                area="ssh",
                severity=tables.severity(rule),
                key=key,
                params={
                    "value": value,
                    "where": _where(where, line),
                    "port": port,
                    "setting": fix,
                    "file": location,
                },
                commands=(
                    fix_command(facts, keyword, fix, main_file),
                    "sudo sshd -t && (sudo systemctl reload ssh || sudo systemctl reload sshd)",
                ),
                sources=tables.sources(rule),
                location=location,
            )
        )
    return out


def fix_command(facts: dict[str, Any], keyword: str, fix: str, main_file: str) -> str:
    """The shell command that makes `fix` the effective value of `keyword` (module docstring).

    `facts["placement"]` holds where each keyword is set now (file, line, rank: setting lines
    read before it) and `facts["dropin_rank"]` where the drop-in would be read (None: never).
    """
    placement = facts.get("placement") or {}
    current = placement.get(keyword) if isinstance(placement, dict) else None
    dropin = str(facts.get("dropin") or "")
    dropin_rank = facts.get("dropin_rank")
    read_first = isinstance(dropin_rank, int) and (
        not isinstance(current, dict)
        or (dropin_rank <= int(current.get("rank", 0)) and current.get("file") != dropin)
    )
    if dropin and read_first:
        return f"echo '{fix}' | sudo tee -a {dropin}"
    if isinstance(current, dict) and current.get("file") and current.get("line"):
        return f"sudo sed -i '{int(current['line'])}s/.*/{fix}/' {current['file']}"
    return f"sudo sed -i '1i {fix}' {main_file}"
