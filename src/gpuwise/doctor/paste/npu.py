"""Huawei Ascend: `npu-smi info` tables and its DCMI failures ("ret is -8005")."""

from __future__ import annotations

import re

from gpuwise.doctor.paste.model import Block, fresh_hits, hits, line_span
from gpuwise.parse.npu_smi import parse_dcmi_error, parse_npu_smi_info

_TABLE = re.compile(r"\|\s*npu-smi\s+\S+\s+Version:\s*\S+")
_DCMI = re.compile(r"dcmi[^\n]{0,80}?ret is -\d+")
_CANN = re.compile(r"(?:CANN|cann)[ _-]?(?:version)?[:= ]\s*(\d+\.\d+\.(?:\d+|RC\d+))", re.I)


def find(text: str) -> list[Block]:
    out: list[Block] = []
    tried = 0  # end of the last table tried (a table that did not parse is not tried again)
    for m in fresh_hits(_TABLE, text, out):
        if m.start() < tried:
            continue
        start, _ = line_span(text, m.start())
        end = text.find("\n\n", m.end())
        end = len(text) if end < 0 else end
        tried = end
        try:
            out.append(Block("npu-smi info", start, end, parse_npu_smi_info(text[start:end])))
        except ValueError:
            continue
    for m in hits(_DCMI, text):
        start, end = line_span(text, m.start())
        out.append(Block("npu-smi error", start, end, {"dcmi_code": parse_dcmi_error(m.group(0))}))
    cann = _CANN.search(text)
    if cann:
        start, end = line_span(text, cann.start())
        out.append(Block("CANN version", start, end, {"cann_version": cann.group(1)}))
    return out
