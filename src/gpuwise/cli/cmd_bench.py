"""`gpuwise bench`: measure this machine's accelerator beside its datasheet (needs PyTorch)."""

from __future__ import annotations

import typer

from gpuwise.i18n import t

DEVICES = ("auto", "cuda", "xpu", "npu", "mps", "cpu")


def register(app: typer.Typer) -> None:
    """Add `bench` to the root app."""

    @app.command("bench", help=t("bench.help"))
    def bench(
        quick: bool = typer.Option(False, "--quick", help=t("bench.opt_quick")),
        device: str = typer.Option("auto", "--device", help=t("bench.opt_device")),
        index: int = typer.Option(0, "--index", help=t("bench.opt_index")),
        gpu: str = typer.Option(None, "--gpu", help=t("bench.opt_gpu")),
        model: str = typer.Option("llama3.1:8b", "--model", help=t("bench.opt_model")),
        no_save: bool = typer.Option(False, "--no-save", help=t("bench.opt_no_save")),
        as_json: bool = typer.Option(False, "--json", help=t("cli.opt_json")),
    ) -> None:
        from gpuwise.bench.runner import BenchOptions
        from gpuwise.errors import UserError

        if device not in DEVICES:
            raise UserError("bench.bad_device", value=device, choices=", ".join(DEVICES))
        if index < 0:
            raise UserError("bench.bad_index", value=index)
        opts = BenchOptions(quick=quick, device=device, index=index, gpu=gpu, model=model)
        _run(opts, not no_save, as_json)


def _run(opts: object, save: bool, as_json: bool) -> None:
    import sys

    from rich.console import Console
    from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

    from gpuwise.bench.runner import BenchOptions, run_bench
    from gpuwise.bench.runner import save as save_result
    from gpuwise.render import out

    assert isinstance(opts, BenchOptions)
    bar = Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        TimeElapsedColumn(),
        console=Console(file=sys.stderr),
        transient=True,
        disable=not sys.stderr.isatty(),
    )
    task = bar.add_task(t("bench.progress"), total=None)
    with bar:
        result = run_bench(
            opts,
            lambda label: bar.update(task, advance=1, description=label),
            lambda steps: bar.update(task, total=steps),
        )
    path = str(save_result(result)) if save else None
    if as_json:
        out.emit_json({**result, "saved": path})
        return
    from gpuwise.render.bench import bench_view

    out.console().print(bench_view(result, path))
