"""`gpuwise calibrate`: this machine's measured rates as a user catalog override."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import typer

from gpuwise.i18n import t


def register(app: typer.Typer) -> None:
    """Add `calibrate` to the root app."""

    @app.command("calibrate", help=t("calibrate.help"))
    def calibrate(
        source: Path = typer.Option(None, "--from", help=t("calibrate.opt_from")),
        gpu: str = typer.Option(None, "--gpu", help=t("calibrate.opt_gpu")),
        show: bool = typer.Option(False, "--show", help=t("calibrate.opt_show")),
        reset: bool = typer.Option(False, "--reset", help=t("calibrate.opt_reset")),
        runs: bool = typer.Option(False, "--runs", help=t("calibrate.opt_runs")),
        as_json: bool = typer.Option(False, "--json", help=t("cli.opt_json")),
    ) -> None:
        from gpuwise.errors import UserError

        if sum((show, reset, runs)) > 1 or (source is not None and (show or reset or runs)):
            raise UserError("calibrate.show_and_reset")
        if runs:
            _runs(as_json)
        elif reset:
            _reset(as_json)
        elif show:
            _show(as_json)
        else:
            _write(source, gpu, as_json)


def _show(as_json: bool) -> None:
    from gpuwise.calibrate import store
    from gpuwise.catalog import load_catalog
    from gpuwise.render import out
    from gpuwise.render.bench import calibration_table

    cat = load_catalog()
    entries, engines = store.shown(cat), store.fitted_engines(cat)
    if as_json:
        out.emit_json({"file": str(store.path()), "entries": entries, "engines": engines})
        return
    con = out.console()
    con.print(calibration_table(entries, str(store.path())))
    for e in engines:
        reserve = f"{e['allocator_reserve_fraction']:.3f}"
        con.print(
            t("calibrate.engine_line", engine=e["engine"], title=e["source_title"], reserve=reserve)
        )


def _reset(as_json: bool) -> None:
    from gpuwise.calibrate import store
    from gpuwise.render import out

    removed = store.reset()
    if as_json:
        out.emit_json({"removed": str(removed) if removed else None})
        return
    msg = t("calibrate.removed", path=str(removed)) if removed else t("calibrate.nothing_to_reset")
    out.console().print(msg)


def _load_result(source: Path | None) -> tuple[dict[str, Any], str]:
    """The bench result to calibrate from: the file given, else the newest kept GPU result."""
    import json

    from gpuwise.bench.runner import saved_results
    from gpuwise.errors import UserError
    from gpuwise.userfiles import read_structured

    if source is not None:
        data = read_structured(source)
        if not isinstance(data, dict) or "results" not in data or "device" not in data:
            raise UserError("calibrate.not_a_result", file=str(source))
        return data, source.resolve().as_uri()
    for p in reversed(saved_results()):
        data = json.loads(p.read_text(encoding="utf-8"))
        if not data.get("smoke"):
            return data, p.resolve().as_uri()
    raise UserError("calibrate.no_result")


def _write(source: Path | None, gpu_name: str | None, as_json: bool) -> None:
    from gpuwise.calibrate import entries as E
    from gpuwise.calibrate import store
    from gpuwise.catalog import load_catalog
    from gpuwise.errors import UserError
    from gpuwise.estimate.speed_constants import SpeedConstants
    from gpuwise.render import out
    from gpuwise.render.bench import calibration_table

    result, origin = _load_result(source)
    cat = load_catalog()
    name = gpu_name or result.get("gpu")
    if not name:
        raise UserError("calibrate.unknown_gpu", name=result["device"]["name"])
    gpu = cat.gpu(name)
    day = store.today()
    rates = E.measured_rates(result, gpu, day)
    if not rates:
        raise UserError("calibrate.nothing", gpu=gpu.id)
    before = SpeedConstants.from_catalog(cat)
    sources = {E.source_id(gpu.id, day): E.source_entry(result, origin, day)}
    path = store.write(
        {"measured_rate": rates},
        lambda kind, e: kind == "measured_rate" and e.get("gpu") == gpu.id,
        sources,
    )
    after = SpeedConstants.from_catalog(load_catalog())
    changes = _changes(before, after, gpu)
    if as_json:
        out.emit_json({"file": str(path), "gpu": gpu.id, "entries": rates, "changes": changes})
        return
    con = out.console()
    con.print(calibration_table(rates, str(path)))
    for c in changes:
        con.print(
            t(
                "calibrate.change",
                what=t(f"calibrate.change_{c['what']}"),
                engine=c["engine"],
                before=f"{c['before']:.3f}",
                after=f"{c['after']:.3f}",
            )
        )


def _changes(before: Any, after: Any, gpu: Any) -> list[dict[str, Any]]:
    """The speed model's shares for this GPU before and after (matmul ceiling, decode shares)."""
    from gpuwise.estimate.speed_constants import backend_of, decode_memory_key

    out = []
    b, a = before.matmul_entry(gpu), after.matmul_entry(gpu)
    out.append(
        {
            "what": "matmul",
            "engine": "any",
            "before": b.fraction if b else 1.0,
            "after": a.fraction if a else 1.0,
        }
    )
    for engine in ("transformers", "vllm", "llama.cpp"):
        kind = decode_memory_key(gpu, backend_of(gpu))
        db = before.decode_on(gpu, engine, before.decode_fraction(engine, kind))
        da = after.decode_on(gpu, engine, after.decode_fraction(engine, kind))
        out.append(
            {
                "what": "decode",
                "engine": engine,
                "before": db.bandwidth_fraction,
                "after": da.bandwidth_fraction,
            }
        )
    return out


def _runs(as_json: bool) -> None:
    """Fit each engine's allocator reserve (peak memory) and, from runs that carry the engine's
    token counters, its decode share on this GPU, to the recorded runs with an estimate."""
    from gpuwise.calibrate import decode_runs as D
    from gpuwise.calibrate import runs as R
    from gpuwise.calibrate import store
    from gpuwise.catalog import load_catalog
    from gpuwise.cli.monitor_common import open_store
    from gpuwise.errors import UserError
    from gpuwise.estimate.speed_constants import SpeedConstants
    from gpuwise.monitor.report import run_summary
    from gpuwise.render import out

    cat = load_catalog()
    pre = {e.id for e in cat.extra("engine") if e.preallocate_fraction}
    db = open_store(create=False)
    try:
        recorded = [r for r in db.runs() if r.options.get("estimate")]
        points = [
            p
            for run in recorded
            if (p := R.point(run.id, run_summary(db, run.id), run.options["estimate"], pre))
        ]
    finally:
        db.close()
    fitted = R.fit(points)
    decode = D.fit(
        (d for run in recorded if (d := _decode_run(cat, run))), SpeedConstants.from_catalog(cat)
    )
    if not fitted and not decode["fitted"] and not decode["unfit"]:
        raise UserError("calibrate.no_runs")
    url = store.path().resolve().as_uri()
    path = store.write(*R.override(fitted, store.today(), url)) if fitted else store.path()
    if decode["fitted"]:
        path = store.write(*D.override(decode["fitted"], store.today(), url))
    if as_json:
        out.emit_json({"file": str(path), "engines": fitted, "decode": decode})
        return
    _print_runs(fitted, decode, str(path))


def _decode_run(cat: Any, run: Any) -> Any:
    """The run as a decode fit point, or None: it needs the job with a known GPU, the engine's
    counters with one request at a time, and no weights offloaded to the CPU."""
    from gpuwise.calibrate.decode_runs import DecodeRun
    from gpuwise.errors import UserError
    from gpuwise.estimate.constants import MemoryConstants
    from gpuwise.estimate.resolve import resolve
    from gpuwise.monitor.tokens import token_rates
    from gpuwise.service.job import JobOptions, build_request

    est, stored = run.options["estimate"], run.options.get("tokens")
    job = est.get("job") or {}
    if not stored or not job.get("gpu") or (est.get("speed") or {}).get("offload_fraction"):
        return None
    rates = token_rates(stored)
    measured = rates["decode_tokens_per_s_per_sequence"]
    if not measured or not rates["one_at_a_time"]:
        return None
    try:
        options = JobOptions(**job["options"])
        _, req = build_request(job["model"], options)
        gpu = cat.gpu_by_id(job["gpu"])
    except (UserError, KeyError, TypeError):  # the catalog changed since the run was recorded
        return None
    if not gpu.memory_bandwidth_gbps:
        return None
    r = resolve(req, MemoryConstants.from_catalog(cat))
    return DecodeRun(run.id, r, gpu, int(options.gen_tokens or 128), float(measured))


def _print_runs(fitted: dict[str, Any], decode: dict[str, Any], path: str) -> None:
    from gpuwise.render import out

    con = out.console()
    for name, f in fitted.items():
        con.print(
            t(
                "calibrate.runs_line",
                engine=name,
                n=len(f["runs"]),
                reserve=f"{f['allocator_reserve_fraction']:.3f}",
                before=f"{f['mean_abs_error_pct_before']:.1f}",
                after=f"{f['mean_abs_error_pct_after']:.1f}",
            )
        )
    for f in decode["fitted"]:
        con.print(
            t(
                "calibrate.decode_runs_line",
                gpu=f["gpu"],
                engine=f["engine"],
                n=len(f["runs"]),
                share=f"{f['share']:.3f}",
                before=f"{f['mean_abs_error_pct_before']:.1f}",
                after=f"{f['mean_abs_error_pct_after']:.1f}",
            )
        )
    for u in decode["unfit"]:
        con.print(
            t(
                "calibrate.decode_unfit",
                run=u["run"],
                measured=f"{u['measured_tokens_per_s']:.1f}",
                most=f"{u['max_tokens_per_s']:.1f}",
            )
        )
    if fitted or decode["fitted"]:
        con.print(t("calibrate.written", path=path))
