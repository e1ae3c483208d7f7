"""A tiny MCP server written with the official Python SDK, spoken to over stdio by the
federated tests: one read-only tool, one left unannotated (so destructive by the spec's
default), and a line on stderr naming the secret it was handed, which Marquee must scrub."""

import os
import sys

from mcp.server.mcpserver import MCPServer
from mcp.types import ToolAnnotations

server = MCPServer("tiny")


@server.tool(title="Shout", annotations=ToolAnnotations(readOnlyHint=True))
def shout(text: str) -> str:
    """Answers the text in capitals."""
    return text.upper()


@server.tool()
def forget(item: str) -> str:
    """Forgets an item (unannotated: destructive by default)."""
    return f"forgot {item}"


if os.environ.get("PID_FILE"):
    with open(os.environ["PID_FILE"], "w") as f:
        f.write(str(os.getpid()))
print(f"tiny server starting with token {os.environ.get('TINY_TOKEN', '')}", file=sys.stderr, flush=True)
server.run()
