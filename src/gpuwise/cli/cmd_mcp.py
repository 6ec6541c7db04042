"""`gpuwise mcp`: an MCP server over stdio for Claude Desktop, Cursor or any MCP client.

The `mcp` SDK (the `web` extra) is imported only here, inside the command.
"""

from __future__ import annotations

import typer

from gpuwise.i18n import t


def register(app: typer.Typer) -> None:
    """Add `mcp` to the root app."""

    @app.command("mcp", help=t("mcp.help"))
    def mcp() -> None:
        from gpuwise.cli.cmd_serve import need_extra

        need_extra("mcp", "mcp")
        from gpuwise.mcp_server.server import run_stdio

        run_stdio()
