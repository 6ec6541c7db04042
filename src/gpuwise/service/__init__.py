"""What each command computes, as plain data: the one layer the CLI, `gpuwise serve` and
`gpuwise mcp` all call, so a page, the JSON API, an MCP tool and `--json` give the same answer.

No printing and no paths from the caller here: the CLI reads files and prints, the web app and
the MCP server pass text they were given. Bad input is a :class:`gpuwise.errors.UserError`.
"""
