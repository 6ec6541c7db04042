"""`gpuwise mcp` as a client starts it: a subprocess speaking MCP over stdio. It lists the six
tools with typed schemas, and a call answers exactly what the CLI's --json prints."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("mcp", reason="gpuwise mcp needs the web extra (pip install '.[web]')")
import anyio
from mcp import Client
from mcp.client.stdio import StdioServerParameters

SRC = str(Path(__file__).parents[2] / "src")
TOOLS = {"plan", "estimate", "fit", "cost", "offers", "doctor_from_paste"}


def _server() -> StdioServerParameters:
    env = {k: v for k, v in os.environ.items() if k.startswith(("GPUWISE_", "HOME", "PATH"))}
    env["PYTHONPATH"] = SRC + os.pathsep + os.environ.get("PYTHONPATH", "")
    return StdioServerParameters(command=sys.executable, args=["-m", "gpuwise", "mcp"], env=env)


async def _session() -> dict[str, Any]:
    async with Client(_server(), read_timeout_seconds=60) as client:
        tools = (await client.list_tools()).tools
        plan = await client.call_tool("plan", {"persona": "individual", "months": "18"})
        bad = await client.call_tool("estimate", {"model": "qwen2.5-7b", "batch": -1, "lang": "zh"})
        path = await client.call_tool("estimate", {"model": "/etc/passwd"})
        return {"tools": tools, "plan": plan, "bad": bad, "path": path}


def test_mcp_stdio_server_lists_tools_and_answers_like_the_cli(cli: Any) -> None:
    got = anyio.run(_session)
    schemas = {tool.name: tool.input_schema for tool in got["tools"]}
    assert set(schemas) == TOOLS
    assert schemas["estimate"]["required"] == ["model"]
    assert "number" in json.dumps(schemas["plan"]["properties"]["months"])
    assert schemas["doctor_from_paste"]["properties"]["text"]["maxLength"] > 0
    assert not got["plan"].is_error
    want = cli("plan", "--persona", "individual", "--months", "18", "--json").json()
    assert json.loads(got["plan"].content[0].text) == want
    bad = got["bad"]
    assert bad.is_error and "--batch" in bad.content[0].text and "必须" in bad.content[0].text
    assert got["path"].is_error and "file" in got["path"].content[0].text
