"""`gpuwise mcp`: an MCP server over stdio (the official `mcp` SDK, the `web` extra).

Named `mcp_server`, not `mcp`, so that `import mcp` always finds the SDK.
"""
