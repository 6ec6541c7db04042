"""`doctor --from`: diagnose pasted nvidia-smi output, collect_env, logs from another machine."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from gpuwise.errors import UserError

if TYPE_CHECKING:
    from gpuwise.doctor.paste.model import Text
    from gpuwise.doctor.report_model import DoctorReport


def paste_report(texts: list[Text], started: float | None = None) -> DoctorReport:
    """The `gpuwise doctor --from … --json` report; nothing recognised is one clear line."""
    from gpuwise.catalog import load_catalog
    from gpuwise.catalog.compat import CompatTables
    from gpuwise.doctor.paste.report import make_paste_report

    start = time.monotonic() if started is None else started
    tables = CompatTables.from_catalog(load_catalog())
    report = make_paste_report(texts, tables, time.monotonic() - start)
    if report.paste is None or not report.paste.blocks:
        raise UserError("doctor.paste_nothing", files=", ".join(t.name for t in texts))
    return report


def pasted_text(text: str, label: str, limit_bytes: int) -> Text:
    """Text given in a request (a form field, an MCP argument) as a paste: size-limited, and
    binary data refused as the CLI refuses a binary file."""
    from gpuwise.doctor.paste.model import Text

    size = len(text.encode("utf-8", errors="replace"))
    if size > limit_bytes:
        raise UserError("doctor.paste_too_large", file=label, mib=max(1, limit_bytes >> 20))
    if "\x00" in text[:4096]:
        raise UserError("doctor.paste_binary", file=label)
    return Text.of(label, text.removeprefix("\ufeff"))
