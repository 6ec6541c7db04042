"""`gpuwise setup`: write a pinned, working GPU environment (Dockerfile, compose.yaml,
requirements, conda environment, driver script, verify.sh) for this machine or a described one,
or refuse with the reason and the nearest combination that works."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import typer

from gpuwise.i18n import t

PROBE_TIMEOUT_S = 10.0  # the doctor's default probing budget (cmd_doctor.DEFAULT_TIMEOUT_S)


def register(app: typer.Typer) -> None:
    """Add `setup` to the root app."""

    @app.command("setup", help=t("setup.help"))
    def setup(
        stack: str = typer.Option(None, "--stack", help=t("setup.opt_stack")),
        out: str = typer.Option(None, "--out", help=t("setup.opt_out")),
        force: bool = typer.Option(False, "--force", help=t("setup.opt_force")),
        explain: bool = typer.Option(False, "--explain", help=t("setup.opt_explain")),
        as_json: bool = typer.Option(False, "--json", help=t("cli.opt_json")),
        gpu: str = typer.Option(None, "--gpu", help=t("setup.opt_gpu")),
        vendor: str = typer.Option(None, "--vendor", help=t("setup.opt_vendor")),
        cc: str = typer.Option(None, "--cc", help=t("setup.opt_cc")),
        gfx: str = typer.Option(None, "--gfx", help=t("setup.opt_gfx")),
        driver: str = typer.Option(None, "--driver", help=t("setup.opt_driver")),
        rocm: str = typer.Option(None, "--rocm", help=t("setup.opt_rocm")),
        os_name: str = typer.Option(None, "--os", help=t("setup.opt_os")),
        python: str = typer.Option(None, "--python", help=t("setup.opt_python")),
        cpu: bool = typer.Option(False, "--cpu", help=t("setup.opt_cpu")),
        torch: str = typer.Option(None, "--torch", help=t("setup.opt_torch")),
        cuda: str = typer.Option(None, "--cuda", help=t("setup.opt_cuda")),
        flash_attn: bool = typer.Option(False, "--flash-attn", help=t("setup.opt_flash_attn")),
        ascend: str = typer.Option(None, "--ascend", help=t("setup.opt_ascend")),
        cann: str = typer.Option(None, "--cann", help=t("setup.opt_cann")),
        from_plan: str = typer.Option(None, "--from-plan", help=t("setup.opt_from_plan")),
        option: int = typer.Option(None, "--option", help=t("setup.opt_option")),
    ) -> None:
        from gpuwise.setup.target import TargetFlags

        if from_plan:
            gpu, stack = _from_plan(from_plan, option, gpu, vendor, cpu, cc, gfx, stack)
        elif option is not None:
            from gpuwise.errors import UserError

            raise UserError("setup.option_needs_plan")

        flags = TargetFlags(
            gpu=gpu,
            vendor=vendor,
            cc=cc,
            gfx=gfx,
            driver=driver,
            rocm=rocm,
            os=os_name,
            python=python,
            cpu=cpu,
            ascend=ascend,
            cann=cann,
        )
        code = run(stack, flags, torch or "", cuda or "", flash_attn, out, force, explain, as_json)
        raise typer.Exit(code)


def _from_plan(
    path: str,
    option: int | None,
    gpu: str | None,
    vendor: str | None,
    cpu: bool,
    cc: str | None,
    gfx: str | None,
    stack: str | None,
) -> tuple[str, str]:
    """The GPU and stack of a plan option; flags that name another GPU contradict it."""
    from gpuwise.errors import UserError
    from gpuwise.setup.fromplan import option_of
    from gpuwise.userfiles import read_structured

    for flag, value in (
        ("--gpu", gpu),
        ("--vendor", vendor),
        ("--cpu", cpu),
        ("--cc", cc),
        ("--gfx", gfx),
        ("--stack", stack),
    ):
        if value:
            raise UserError("setup.conflict", first="--from-plan", second=flag)
    doc = read_structured(Path(path))
    plan_gpu, plan_stack, _ = option_of(doc, 1 if option is None else option, path)
    return plan_gpu, plan_stack


def normalize_stack(name: str) -> str:
    """A known stack name (aliases accepted), else a UserError listing them."""
    from gpuwise.errors import UserError
    from gpuwise.setup.model import STACK_ALIASES, STACKS

    key = name.strip().lower()
    key = STACK_ALIASES.get(key, key)
    if key not in STACKS:
        raise UserError("setup.unknown_stack", value=name, known=", ".join(STACKS))
    return key


def _check_version(value: str, flag: str) -> str:
    import re

    from gpuwise.errors import UserError

    if value and not re.match(r"^\d+\.\d+(\.\d+)?$", value.strip()):
        raise UserError("setup.bad_version", flag=flag, value=value)
    return value.strip()


def run(
    stack_name: str | None,
    flags: Any,
    torch: str,
    cuda: str,
    flash_attn: bool,
    out: str | None,
    force: bool,
    explain: bool,
    as_json: bool,
) -> int:
    """Resolve, then print (and write into --out); 1 when the combination is refused."""
    import sys

    from gpuwise.catalog import load_catalog
    from gpuwise.render import out as render_out
    from gpuwise.setup.render_files import render_all
    from gpuwise.setup.report import plan_dict
    from gpuwise.setup.resolve import resolve
    from gpuwise.setup.tables import SetupTables
    from gpuwise.setup.target import from_facts, from_flags

    stack = normalize_stack(stack_name or "pytorch")
    torch, cuda = _check_version(torch, "--torch"), _check_version(cuda, "--cuda")
    folder = _check_out(out, force) if out else None
    cat = load_catalog()
    here = f"{sys.version_info.major}.{sys.version_info.minor}"
    if flags.any_machine_flag():
        target = from_flags(flags, cat, here)
    else:
        from gpuwise.setup.target import check_python

        python = check_python(flags.python) or None
        target = from_facts(_probe(), python)
        if flags.os:
            from gpuwise.errors import UserError

            raise UserError("setup.os_needs_target")
    tables = SetupTables.from_catalog(cat)
    plan = resolve(tables, target, stack, torch, cuda, flash_attn)
    files = render_all(plan) if plan.refusal is None else {}
    report = plan_dict(tables, plan, sorted(files))
    if folder is not None and files:
        _write(folder, files, force)
        report["out"] = str(folder)
    if as_json:
        render_out.emit_json(report)
    else:
        _print(report, explain, folder)
    return 0 if plan.refusal is None else 1


def _probe() -> dict[str, Any]:
    """This machine's facts through the doctor's probes (same budget as `gpuwise doctor`)."""
    import sys
    import time

    from gpuwise.probe.collect import collect, default_probes
    from gpuwise.probe.context import ProbeContext
    from gpuwise.probe.run import reopen

    reopen()
    ctx = ProbeContext(deadline=time.monotonic() + PROBE_TIMEOUT_S, python=sys.executable)
    return dict(collect(ctx, default_probes()))


def _check_out(out: str, force: bool) -> Path:
    """--out must be a folder (created when missing), never an existing file."""
    from gpuwise.errors import UserError

    folder = Path(out)
    if folder.exists() and not folder.is_dir():
        raise UserError("setup.out_is_file", path=out)
    return folder


def _write(folder: Path, files: dict[str, str], force: bool) -> None:
    """Refuse before writing anything when a file exists (unless --force: `.bak` kept)."""
    import os

    from gpuwise.errors import UserError
    from gpuwise.userfiles import check_output, write_text_output

    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise UserError(
            "setup.out_unusable", path=str(folder), problem=exc.strerror or str(exc)
        ) from exc
    for name in files:
        if (folder / name).exists() and not force:  # a folder of files: name the folder
            raise UserError("setup.out_exists", file=str(folder / name), folder=str(folder))
        check_output(folder / name, force, "--out")
    for name, text in files.items():
        path = folder / name
        write_text_output(path, text, force, "--out")
        if name.endswith(".sh"):
            os.chmod(path, 0o755)


def _shown(key: str, value: Any) -> bool:
    """Target facts worth a word: set, and not the defaults (origin; place=native, which says
    only that the target is not WSL 2 or Windows)."""
    return bool(value) and key != "origin" and not (key == "place" and value == "native")


def _print(report: dict[str, Any], explain: bool, folder: Path | None) -> None:
    from gpuwise.render.out import console

    con = console()
    target = ", ".join(f"{k}={v}" for k, v in report["target"].items() if _shown(k, v))
    con.print(t("setup.target", stack=report["stack"], target=target), highlight=False)
    refusal = report["refusal"]
    if refusal:
        con.print(t("setup.refused", reason=refusal["reason"]), highlight=False)
        con.print(t("setup.nearest_line", nearest=refusal["nearest"]), highlight=False)
        if explain:
            for s in refusal["sources"]:
                con.print(f"    {s['url']} ({s['retrieved']})", highlight=False)
        return
    pins = [(p, "==") for p in report["pins"]] + [(p, ":") for p in report["images"]]
    for pin, sep in pins:
        con.print(f"  {pin['name']}{sep}{pin['version']}", highlight=False)
        if explain:
            con.print(f"    {pin['why']}", highlight=False)
            for s in pin["sources"]:
                con.print(f"    {s['url']} ({s['retrieved']})", highlight=False)
    index = report["index_url"] or report["extra_index_url"]
    if index:
        con.print(t("setup.index", url=index), highlight=False)
    for note in report["notes"]:
        con.print(f"! {note}", highlight=False)
    if folder is not None:
        con.print(
            t("setup.wrote", folder=str(folder), files=", ".join(report["files"])), highlight=False
        )
    else:
        con.print(t("setup.dry_run", files=", ".join(report["files"])), highlight=False)
