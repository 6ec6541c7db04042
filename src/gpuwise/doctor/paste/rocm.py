"""AMD: `rocm-smi` (JSON or text), `amd-smi`, `rocminfo`, and /dev/kfd permission messages."""

from __future__ import annotations

import json
import re
from typing import Any

from gpuwise.doctor.paste.model import Block, fresh_hits, hits, line_span
from gpuwise.parse.rocm_smi import parse_rocm_smi_json

_JSON = re.compile(r'\{\s*"card\d+"\s*:')
_SMI_TEXT = re.compile(r"=+ ?ROCm System Management Interface ?=+")
_TEXT_CARD = re.compile(
    r"^GPU\[(\d+)\]\s*:\s*(Card [Ss]eries|Card SKU|Device Name|GFX Version)\s*:\s*(.+?)\s*$", re.M
)
_AGENT_GFX = re.compile(r"^\s*Name:\s+(gfx[0-9a-f]+)\s*$", re.M)
_MARKETING = re.compile(r"^\s*Marketing Name:\s+(.+?)\s*$", re.M)
_AMDSMI_GFX = re.compile(
    r"^\s*(?:TARGET_GRAPHICS_VERSION|GFX_VERSION|gfx_version)\s*:\s*(gfx[0-9a-f]+)", re.M
)
_LSPCI = re.compile(
    r"(?:VGA compatible controller|Display controller|3D controller)\s*(?:\[[0-9a-f]{4}\])?:\s*"
    r"Advanced Micro Devices, Inc\. \[AMD/ATI\] (Navi \d+)[^\n\[]{0,40}(?:\[([^\]\n]{1,120})\])?"
)
_KFD = re.compile(r"Unable to open /dev/kfd read-write:\s*([^\n]+)")
_MEMBER = re.compile(r" is member of (\S+) group")  # rocminfo: "<user> is member of render group"
_GROUPS_CMD = re.compile(r"^\s*(?:\$|#)?\s*groups\s*\n\s*([^\n#$]+)$", re.M)
_LS_KFD = re.compile(r"^c[rwx-]{9}\S*\s+\d+\s+(\S+)\s+(\S+)\s+\d+,\s*\d+.*?/dev/kfd\s*$", re.M)


def find(text: str) -> list[Block]:
    out: list[Block] = []
    for m in fresh_hits(_JSON, text, out):
        try:
            _, end = json.JSONDecoder().raw_decode(text, m.start())
            facts = parse_rocm_smi_json(text[m.start() : end])
        except (ValueError, RecursionError):  # not JSON, or nested beyond the parser's depth
            continue
        out.append(Block("rocm-smi --json", m.start(), end, facts))
    cards: dict[int, dict[str, Any]] = {}
    for m in _TEXT_CARD.finditer(text):
        card = cards.setdefault(
            int(m.group(1)), {"card": f"card{m.group(1)}", "name": "", "gfx": ""}
        )
        card["gfx" if m.group(2) == "GFX Version" else "name"] = m.group(3)
    if cards:
        first = _SMI_TEXT.search(text) or _TEXT_CARD.search(text)
        start = first.start() if first else 0
        out.append(Block("rocm-smi", start, start + 1, {"cards": list(cards.values())}))
    gfx = [m.group(1) for m in _AGENT_GFX.finditer(text)] + [
        m.group(1) for m in _AMDSMI_GFX.finditer(text)
    ]
    if gfx:
        names = [m.group(1) for m in _MARKETING.finditer(text) if "CPU" not in m.group(1)]
        pos = text.find(gfx[0])
        start, end = line_span(text, pos)
        cards_found = [
            {"card": f"card{i}", "name": names[i] if i < len(names) else "", "gfx": g}
            for i, g in enumerate(dict.fromkeys(gfx))
        ]
        out.append(Block("rocminfo / amd-smi", start, end, {"cards": cards_found}))
    lspci = [
        {"card": f"card{i}", "name": m.group(2) or m.group(1), "gfx": "", "codename": m.group(1)}
        for i, m in enumerate(hits(_LSPCI, text))
    ]
    if lspci:
        start, end = line_span(text, text.find(lspci[0]["codename"]))
        out.append(Block("lspci (AMD GPU)", start, end, {"cards": lspci}))
    access = _access(text)
    if access:
        out.append(access)
    return out


def _access(text: str) -> Block | None:
    """/dev/kfd refused (rocminfo's message), the user's groups, the device's group (ls -l)."""
    kfd = _KFD.search(text)
    ls = _LS_KFD.search(text)
    if not kfd and not ls:
        return None
    pos = (kfd or ls).start()  # type: ignore[union-attr]
    start, end = line_span(text, pos)
    reason = kfd.group(1).strip() if kfd else ""
    denied = bool(re.search(r"Permission denied|Operation not permitted", reason))
    seen = {m.group(1) for m in _MEMBER.finditer(text)}
    listed = _GROUPS_CMD.search(text)
    if listed:
        words = listed.group(1).replace(":", " ").split()
        seen |= set(words[1:] if len(words) > 1 else words)  # "user g1 g2" → groups
    groups = sorted(seen)
    facts: dict[str, Any] = {
        "kfd_error": reason,
        "kfd_rw": False if denied else None,
        "kfd_group": ls.group(2) if ls else "",
        "groups": groups,
    }
    return Block("/dev/kfd access", start, end, facts)
