"""`gpuwise audit`: check this machine's security the way GPU boxes get attacked (listening
services, SSH, containers, toolkit and driver versions, credential files, firewall).

Reads only. The exit code is the worst finding's (catalog `audit_severity.exit_code`), so a CI
job can fail on it; `--sarif FILE` writes the findings for code-scanning tools.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import typer

from gpuwise.i18n import t

if TYPE_CHECKING:
    from pathlib import Path

LOOPBACK_ENV = "GPUWISE_AUDIT_LOOPBACK"
"""Comma-separated addresses to treat as loopback instead of 127.0.0.0/8 and ::1 (the tests
use it to let 127.0.0.2 stand for a public address)."""


def register(app: typer.Typer) -> None:
    """Add `audit` to the root app."""

    @app.command("audit", help=t("audit.help"))
    def audit(
        as_json: bool = typer.Option(False, "--json", help=t("cli.opt_json")),
        only: str = typer.Option(None, "--only", help=t("audit.opt_only")),
        sarif: str = typer.Option(None, "--sarif", help=t("audit.opt_sarif")),
        force: bool = typer.Option(False, "--force", help=t("audit.opt_force")),
        root: str = typer.Option(None, "--root", help=t("audit.opt_root")),
    ) -> None:
        raise typer.Exit(_run(as_json, only, sarif, force, root))


def parse_only(value: str | None) -> list[str]:
    """The areas to check, in the canonical order; an unknown one is bad input."""
    from gpuwise.catalog.schema_audit import AREAS
    from gpuwise.errors import UserError

    if value is None:
        return list(AREAS)
    wanted = [v.strip().lower() for v in value.split(",") if v.strip()]
    if not wanted:  # `--only ""` (an empty variable in a script) must not mean "everything"
        raise UserError("audit.empty_only", choices=", ".join(AREAS))
    for area in wanted:
        if area not in AREAS:
            raise UserError("audit.bad_area", value=area, choices=", ".join(AREAS))
    return [a for a in AREAS if a in wanted]


def _run(as_json: bool, only: str | None, sarif: str | None, force: bool, root: str | None) -> int:
    import json
    import os
    import time
    from pathlib import Path

    from gpuwise.audit.ports import probe_job
    from gpuwise.audit.report import make_report
    from gpuwise.audit.tables import tables_from_catalog
    from gpuwise.catalog import load_catalog
    from gpuwise.probe.audit_collect import collect
    from gpuwise.probe.context import ProbeContext
    from gpuwise.render import out
    from gpuwise.userfiles import check_output, write_text_output

    areas = parse_only(only)
    root_path = check_root(root)
    sarif_path = Path(sarif) if sarif else None
    if sarif_path is not None:
        check_output(sarif_path, force, "--sarif")  # before any work
    start = time.monotonic()
    tables = tables_from_catalog(load_catalog())
    ctx = ProbeContext(deadline=start + tables.settings["deadline_s"], root=root_path)
    as_root = hasattr(os, "geteuid") and os.geteuid() == 0
    loopback = _loopback_override()
    results = collect(ctx, probe_job(tables, loopback), areas, as_root, Path.cwd())
    report = make_report(results, tables, time.monotonic() - start, as_root, loopback)
    if sarif_path is not None:
        from gpuwise import __version__
        from gpuwise.audit.sarif import to_sarif

        text = json.dumps(to_sarif(report, tables, __version__), indent=2, ensure_ascii=False)
        write_text_output(sarif_path, text + "\n", force, "--sarif")
    if as_json:
        out.emit_json(report)
    else:
        from gpuwise.render.audit import render_audit

        render_audit(out.console(), report)
    if sarif_path is not None:
        import sys

        sys.stderr.write(t("audit.sarif_written", file=str(sarif_path)) + "\n")
    code = report["exit_code"]
    return code if isinstance(code, int) else 1


def check_root(root: str | None) -> Path:
    """`--root` must be a folder: a missing one (a typo, an unmounted image) or a file would
    make every file probe find nothing and the audit pass with "no findings", exit 0."""
    from pathlib import Path

    from gpuwise.errors import UserError

    if root is None:
        return Path("/")
    path = Path(root).expanduser()
    if not path.exists():
        raise UserError("audit.root_missing", path=str(path))
    if not path.is_dir():
        raise UserError("audit.root_not_dir", path=str(path))
    return path


def _loopback_override() -> frozenset[str] | None:
    import os

    raw = os.environ.get(LOOPBACK_ENV, "")
    items = frozenset(a.strip() for a in raw.split(",") if a.strip())
    return items or None
