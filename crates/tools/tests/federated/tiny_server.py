"""A tiny MCP server written with the official Python SDK, spoken to over stdio by the
federated tests: one read-only tool, one left unannotated (so destructive by the spec's
default), a slow one and a large one, one that adds a tool and announces it (tools/list_changed), and a line on stderr naming the
secret it was handed, which Marquee must scrub. `forget` logs each call to the file FORGET_LOG
names, and it answers an error (isError) for an empty item."""

import os
import sys

import anyio

from mcp.server.mcpserver import Context, MCPServer
from mcp.types import ToolAnnotations

server = MCPServer("tiny")


@server.tool(title="Shout", annotations=ToolAnnotations(readOnlyHint=True))
def shout(text: str) -> str:
    """Answers the text in capitals."""
    return text.upper()


@server.tool()
def forget(item: str) -> str:
    """Forgets an item (unannotated: destructive by default); each call is written as a line
    to the file FORGET_LOG names, when it names one, so a test counts the calls made."""
    if not item:
        raise ValueError("nothing to forget")
    if os.environ.get("FORGET_LOG"):
        with open(os.environ["FORGET_LOG"], "a") as f:
            f.write(item + "\n")
    return f"forgot {item}"


@server.tool(annotations=ToolAnnotations(readOnlyHint=True))
async def nap(seconds: float) -> str:
    """Answers after `seconds`."""
    await anyio.sleep(seconds)
    return "awake"


@server.tool(annotations=ToolAnnotations(readOnlyHint=True))
def big(size: int) -> str:
    """Answers `size` characters."""
    return "x" * size


def extra() -> str:
    """A tool that appears once `grow` is called."""
    return "extra"


@server.tool(annotations=ToolAnnotations(readOnlyHint=False, destructiveHint=False))
async def grow(ctx: Context) -> str:
    """Adds the tool `extra` and tells the client its tool list changed."""
    server.add_tool(extra, annotations=ToolAnnotations(readOnlyHint=True))
    await ctx.session.send_tool_list_changed()
    return "grown"


if os.environ.get("PID_FILE"):
    with open(os.environ["PID_FILE"], "w") as f:
        f.write(str(os.getpid()))
print(f"tiny server starting with token {os.environ.get('TINY_TOKEN', '')}", file=sys.stderr, flush=True)
server.run()
