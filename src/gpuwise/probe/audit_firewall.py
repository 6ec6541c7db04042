"""Which host firewall is on: ufw (/etc/ufw/ufw.conf ENABLED=yes), firewalld (`firewall-cmd
--state`), nftables (`nft list ruleset`, root only: input chains counted)."""

from __future__ import annotations

import re
from typing import Any

from gpuwise.parse.result import Found, ProbeResult
from gpuwise.probe.context import ProbeContext
from gpuwise.probe.run import run_cmd, which


def probe_firewall(ctx: ProbeContext, as_root: bool, timeout_s: float) -> ProbeResult:
    """ufw, firewalld and nftables state; `unreadable` says when the rules need root."""
    conf = ctx.read("/etc/ufw/ufw.conf")
    facts: dict[str, Any] = {
        "ufw": {
            "present": conf is not None or which("ufw", ctx.env) is not None,
            "enabled": bool(conf and re.search(r"^\s*ENABLED\s*=\s*yes\s*$", conf, re.M)),
        },
        "firewalld": {"present": which("firewall-cmd", ctx.env) is not None, "running": False},
        "nftables": {"present": which("nft", ctx.env) is not None},
    }
    if facts["firewalld"]["present"]:
        res = run_cmd(["firewall-cmd", "--state"], ctx.left(timeout_s), ctx.env)
        facts["firewalld"]["running"] = res.stdout.strip() == "running"
    if facts["nftables"]["present"]:
        if as_root:
            res = run_cmd(["nft", "list", "ruleset"], ctx.left(timeout_s), ctx.env)
            facts["nftables"]["input_chains"] = len(re.findall(r"hook input", res.stdout))
        else:
            facts["nftables"]["unreadable"] = True
            facts["unreadable"] = ["nft list ruleset"]
    return Found(facts)
