"""`gpuwise export SCENARIO --to TARGET`: the launch files of a plan option (SkyPilot, Kubernetes,
vLLM, SGLang, Ollama, torchrun, accelerate, DeepSpeed, LLaMA-Factory) with the plan's numbers.

Thin: plan the scenario as `gpuwise plan` does, hand option N to gpuwise.export, then print the
files or write them into --out (never replacing a file without --force, as `setup --out` does).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import typer

from gpuwise.i18n import t


def register(app: typer.Typer) -> None:
    """Add `export` to the root app."""

    @app.command("export", help=t("export.help"))
    def export(
        scenario: Path = typer.Argument(None, help=t("export.arg_scenario")),
        persona: str = typer.Option(None, "--persona", help=t("plan.opt_persona")),
        example: bool = typer.Option(False, "--example", help=t("plan.opt_example")),
        to: str = typer.Option(None, "--to", help=t("export.opt_to")),
        option: int = typer.Option(1, "--option", help=t("export.opt_option")),
        out: Path = typer.Option(None, "--out", help=t("export.opt_out")),
        force: bool = typer.Option(False, "--force", help=t("export.opt_force")),
        as_json: bool = typer.Option(False, "--json", help=t("cli.opt_json")),
    ) -> None:
        run(scenario, persona, example, to, option, out, force, as_json)


def run(
    scenario: Path | None,
    persona: str | None,
    example: bool,
    to: str | None,
    option: int,
    out: Path | None,
    force: bool,
    as_json: bool,
) -> None:
    """Check the flags, plan, export, then print or write."""
    import datetime as dt

    from gpuwise.advise.plan import make_plan
    from gpuwise.advise.scenario import parse_scenario
    from gpuwise.catalog import load_catalog
    from gpuwise.cli.cmd_plan import _source
    from gpuwise.errors import UserError
    from gpuwise.export import TARGETS, build
    from gpuwise.export.check import check_target
    from gpuwise.service.flags import check_plan_sources

    if to is None:
        raise UserError("export.no_target", known=", ".join(TARGETS))
    target = check_target(to)
    if option < 1:
        raise UserError("estimate.not_positive", flag="--option", value=option)
    if out is not None and out.exists() and not out.is_dir():
        raise UserError("export.out_is_file", path=str(out))
    check_plan_sources(scenario, persona, example)
    data, origin = _source(scenario, persona, example)
    if not data.get("workload", {}).get("model") or not data["workload"].get("kind"):
        raise UserError("plan.no_workload", file=origin)
    cat = load_catalog()
    plan = make_plan(cat, parse_scenario(data, origin), dt.date.today())
    view, result = build(cat, plan, option, target)
    written = _write(out, result.files, force) if out is not None else []
    notes = [{"id": key.removeprefix("export."), "text": t(key, **p)} for key, p in result.notes]
    if as_json:
        _emit_json(view, result, written, out, notes)
    else:
        _print(result.files, written, out, notes)


def _write(folder: Path, files: dict[str, str], force: bool) -> list[str]:
    """Every file checked before any is written; scripts made executable."""
    import os

    from gpuwise.errors import UserError
    from gpuwise.userfiles import check_output, write_text_output

    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise UserError(
            "export.out_unusable", path=str(folder), problem=exc.strerror or str(exc)
        ) from exc
    for name in files:
        check_output(folder / name, force, "--out")
    for name, text in files.items():
        path = folder / name
        write_text_output(path, text, force, "--out")
        if name.endswith(".sh"):
            os.chmod(path, 0o755)
    return [str(folder / name) for name in files]


def _emit_json(
    view: Any, result: Any, written: list[str], out: Path | None, notes: list[dict[str, str]]
) -> None:
    from gpuwise.render import out as render_out

    render_out.emit_json(
        {
            "target": result.target,
            "option": view.number,
            "label": view.label,
            "files": [{"name": n, "text": text} for n, text in result.files.items()],
            "written": written,
            "out": str(out) if out is not None else None,
            "notes": notes,
        }
    )


def _print(
    files: dict[str, str], written: list[str], out: Path | None, notes: list[dict[str, str]]
) -> None:
    """Written: one line naming the files. Printed: the file itself when there is one (so
    `> task.yaml` works), else each under a `==> name <==` line. Notes go to stderr."""
    import sys

    if out is not None:
        sys.stdout.write(t("export.wrote", folder=str(out), files=", ".join(files)) + "\n")
    elif len(files) == 1:
        sys.stdout.write(next(iter(files.values())))
    else:
        for name, text in files.items():
            sys.stdout.write(f"==> {name} <==\n{text}\n")
    for note in notes:
        sys.stderr.write(f"! {note['text']}\n")
