"""The MCP tools: one per call of service/requests.REQUESTS (plan, estimate, fit, cost, offers,
doctor_from_paste), each taking the request's fields as typed arguments and answering with the
CLI's `--json` text. Bad input is a tool error carrying the CLI's one-line message.

The tool signatures are made from the request models, so the web API, the MCP tools and the
CLI flags cannot drift apart: a field added to a request appears in all of them.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Annotated, Any, Literal

from pydantic import Field, ValidationError

from gpuwise.errors import UserError
from gpuwise.i18n import get_lang, t, using_lang
from gpuwise.service.requests import REQUESTS, Request

LangArg = Annotated[Literal["en", "zh"] | None, Field(description=t("mcp.opt_lang", "en"))]


def _parameters(model: type[Request]) -> list[inspect.Parameter]:
    """The model's fields as keyword parameters (type, bounds, description, default)."""
    params = []
    for name, info in model.model_fields.items():
        annotation: Any = Annotated[
            (info.annotation, *info.metadata, Field(description=info.description))
        ]
        default = (
            inspect.Parameter.empty
            if info.is_required()
            else info.get_default(call_default_factory=True)
        )
        params.append(
            inspect.Parameter(
                name, inspect.Parameter.KEYWORD_ONLY, default=default, annotation=annotation
            )
        )
    params.append(
        inspect.Parameter("lang", inspect.Parameter.KEYWORD_ONLY, default=None, annotation=LangArg)
    )
    return params


def answer(name: str, model: type[Request], arguments: dict[str, Any], lang: str | None) -> str:
    """The CLI's JSON for the call, or the one-line error as a ToolError."""
    from mcp.server.mcpserver.exceptions import ToolError

    from gpuwise.render.out import json_text
    from gpuwise.service.calls import call
    from gpuwise.service.problems import one_line

    with using_lang("zh" if lang == "zh" else "en" if lang == "en" else get_lang()):
        try:
            request = model.model_validate(arguments)
            return json_text(call(name, request))
        except ValidationError as exc:
            raise ToolError(one_line(exc.errors(), list(model.model_fields))) from None
        except UserError as exc:
            raise ToolError(exc.render()) from None


def make_tool(name: str, model: type[Request]) -> Callable[..., str]:
    """A function whose signature is the request's fields (the SDK reads it for the schema)."""

    def tool(**kwargs: Any) -> str:
        lang = kwargs.pop("lang", None)
        return answer(name, model, kwargs, lang)

    tool.__name__ = name
    tool.__doc__ = t(f"mcp.tool_{name}", "en")
    tool.__signature__ = inspect.Signature(_parameters(model), return_annotation=str)  # type: ignore[attr-defined]
    return tool


def build_server() -> Any:
    """The MCP server with every tool registered."""
    from mcp.server.mcpserver import MCPServer

    from gpuwise import __version__

    server: Any = MCPServer(
        "gpuwise",
        version=__version__,
        log_level="WARNING",  # a failed call is the client's to show, not a log line
        instructions=(
            "Buy or rent GPUs, which card, which cloud, for LLM fine-tuning and serving. "
            "Every tool answers with the JSON `gpuwise <command> --json` prints."
        ),
    )
    for name, model in REQUESTS.items():
        server.add_tool(
            make_tool(name, model),
            name=name,
            description=t(f"mcp.tool_{name}", "en"),
            structured_output=False,
        )
    return server


def run_stdio() -> None:
    """Serve on stdin/stdout until the client closes them."""
    build_server().run("stdio")
