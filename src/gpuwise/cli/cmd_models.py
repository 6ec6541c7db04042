"""`gpuwise models`: list models and show one (catalog id, HF repo, Ollama tag, or a local path)."""

from __future__ import annotations

import typer

from gpuwise.i18n import t


def register(app: typer.Typer) -> None:
    """Add the `models` group to the root app."""
    group = typer.Typer(help=t("models.help"), invoke_without_command=True, no_args_is_help=False)

    @group.callback()
    def list_models(
        ctx: typer.Context,
        family: str = typer.Option(None, "--family", help=t("models.opt_family")),
        as_json: bool = typer.Option(False, "--json", help=t("cli.opt_json")),
    ) -> None:
        if ctx.invoked_subcommand is not None:
            return
        from gpuwise.catalog.listing import load_listing
        from gpuwise.errors import UserError
        from gpuwise.render import out

        everything = load_listing()["models"]
        models = [m for m in everything if not family or m["family"] == family.lower()]
        if family and not models:
            families = sorted({m["family"] for m in everything})
            raise UserError("models.bad_family", value=family, choices=", ".join(families))
        models.sort(key=lambda m: (m["family"], m["params_b"], m["id"]))
        if as_json:
            out.emit_json(models)
            return
        from gpuwise.render.models import model_table

        out.console().print(model_table(models))

    @group.command("show", help=t("models.show_help"))
    def show(
        name: str = typer.Argument(..., help=t("models.arg_name")),
        as_json: bool = typer.Option(False, "--json", help=t("cli.opt_json")),
    ) -> None:
        from pathlib import Path

        from gpuwise.catalog import load_catalog
        from gpuwise.catalog.local import local_source
        from gpuwise.catalog.reading import read_model_name
        from gpuwise.catalog.serialize import model_dict
        from gpuwise.render import out

        cat = load_catalog()
        reading = read_model_name(cat, name)
        local = local_source(Path(name).expanduser()) if reading.kind == "path" else None
        data = model_dict(cat, reading.model, local)
        data["reading"] = reading.as_dict(training=False, engine=None, quant=None)
        if data["reading"]["note"]:  # no --quant here: say what the other commands do with it
            data["reading"]["note"]["key"] = "model.reading.ollama_show"
        if as_json:
            out.emit_json(data)
            return
        from gpuwise.render.models import model_detail

        out.console().print(model_detail(data))

    app.add_typer(group, name="models")
