"""`gpuwise serve`: the local web pages and JSON API (FastAPI + uvicorn, the `web` extra).

Bound to 127.0.0.1 unless told otherwise; any other address prints a warning that there is
no authentication. fastapi and uvicorn are imported only here, inside the command.
"""

from __future__ import annotations

import typer

from gpuwise.cli.numbers import number
from gpuwise.i18n import t


def register(app: typer.Typer) -> None:
    """Add `serve` to the root app."""

    @app.command("serve", help=t("serve.help"))
    def serve(
        host: str = typer.Option("127.0.0.1", "--host", help=t("serve.opt_host")),
        port: int = typer.Option(
            8000, "--port", help=t("serve.opt_port"), click_type=number("port")
        ),
    ) -> None:
        _run(host, port)


def need_extra(command: str, module: str) -> None:
    """One line naming the extra to install when `module` is missing."""
    import importlib.util

    from gpuwise.errors import UserError

    if importlib.util.find_spec(module) is None:
        raise UserError("serve.missing_extra", command=command, module=module)


def _run(host: str, port: int) -> None:
    import sys

    from gpuwise.errors import UserError

    for module in ("fastapi", "uvicorn"):
        need_extra("serve", module)
    import uvicorn

    from gpuwise.web.app import create_app, is_loopback

    if not is_loopback(host):
        sys.stderr.write(t("serve.no_auth", host=host) + "\n")
    sys.stderr.write(
        t("serve.listening", host=host if ":" not in host else f"[{host}]", port=port) + "\n"
    )
    config = uvicorn.Config(
        create_app(host), host=host, port=port, log_level="warning", server_header=False
    )
    try:
        uvicorn.Server(config).run()
    except OSError as exc:
        raise UserError(
            "serve.port_busy", host=host, port=port, problem=exc.strerror or str(exc)
        ) from exc
