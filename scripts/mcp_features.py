#!/usr/bin/env python3
"""Drives Marquee's prompts, completions, progress, logging and elicitation with the official
Python SDK (the kit's venv) and prints one JSON document for scripts/e2e.sh to check.

  mcp_features.py --url URL --header 'Authorization: Bearer KEY' [--fixtures]
  mcp_features.py --stdio 'env MARQUEE_KEY=KEY marquee stdio --data-dir D' [--fixtures]
--fixtures also calls the conformance fixtures (a server with [mcp] conformance_fixtures on):
test_tool_with_progress, test_tool_with_logging and test_elicitation.
--long TOOL [--long-args JSON] [--long-level LEVEL] only calls that product tool at log level LEVEL
(info unless given) with a progress callback and prints {progress: [[progress, total, message]...], logs: [...], is_error, summary}.
--ask TOOL [--ask-args JSON] --pick VALUE [--mode legacy|2026-07-28] only calls that tool, answers
every elicitation by picking VALUE from the form's single-select field (nothing when VALUE is
"decline") and prints {asked: [message...], offered: [[value...]...], is_error, summary, data}.
"""
import argparse, asyncio, json, os, shlex, sys

# The kit's install location, as ../shared/mcp-clients/README.md says: $MCP_CLIENTS_HOME, else
# ../shared-cache/mcp-clients seen from the project root, else ~/.cache/mcp-clients.
def _kit_home():
    if os.environ.get("MCP_CLIENTS_HOME"):
        return os.environ["MCP_CLIENTS_HOME"]
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    beside = os.path.join(root, "..", "shared-cache", "mcp-clients")
    return beside if os.path.isdir(beside) else os.path.expanduser("~/.cache/mcp-clients")


KIT_VENV = os.path.join(_kit_home(), "venv", "bin", "python")
try:
    import httpx2
    from mcp import Client, StdioServerParameters, types
    from mcp.client.streamable_http import streamable_http_client
except ImportError:
    if os.path.exists(KIT_VENV) and os.path.realpath(sys.executable) != os.path.realpath(KIT_VENV):
        os.execv(KIT_VENV, [KIT_VENV, os.path.abspath(__file__), *sys.argv[1:]])
    sys.exit("mcp_features: the SDK is not installed; run ../shared/mcp-clients/install.sh")


async def run(a):
    logs, asked = [], []

    async def on_log(params):
        logs.append(params.data)

    async def on_elicit(context, params):
        asked.append(params.message)
        return types.ElicitResult(action="accept", content={"username": "ann", "email": "ann@example.org"})

    if a.url:
        headers = {k.strip(): v.strip() for k, v in (h.split(":", 1) for h in a.header)}
        server = streamable_http_client(a.url, http_client=httpx2.AsyncClient(headers=headers, timeout=30))
    else:
        argv = shlex.split(a.stdio)
        server = StdioServerParameters(command=argv[0], args=argv[1:])
    out = {}
    if a.ask:
        return await ask(server, a)
    async with Client(server, mode="legacy", logging_callback=on_log, elicitation_callback=on_elicit) as c:
        if a.long:
            seen = []

            async def on_long_progress(progress, total, message):
                seen.append([progress, total, message])

            await c.set_logging_level(a.long_level)
            res = await c.call_tool(a.long, json.loads(a.long_args), progress_callback=on_long_progress)
            return {"progress": seen, "logs": logs, "is_error": res.is_error,
                    "summary": res.content[0].text if res.content else None}
        out["prompts"] = [p.name for p in (await c.list_prompts()).prompts]
        got = await c.get_prompt("request-media", {"title": "Heat"})
        out["prompt_text"] = got.messages[0].content.text
        done = await c.complete(types.PromptReference(type="ref/prompt", name="request-media"),
                                {"name": "media_type", "value": "t"})
        out["media_type_completion"] = done.completion.values
        done = await c.complete(types.ResourceTemplateReference(type="ref/resource", uri="marquee://guides/{topic}"),
                                {"name": "topic", "value": "se"})
        out["topic_completion"] = done.completion.values
        if a.fixtures:
            seen = []

            async def on_progress(progress, total, message):
                seen.append(progress)

            await c.call_tool("test_tool_with_progress", {}, progress_callback=on_progress)
            out["progress"] = seen
            await c.set_logging_level("info")
            await c.call_tool("test_tool_with_logging", {})
            out["logs"] = logs
            res = await c.call_tool("test_elicitation", {"message": "Which one?"})
            out["elicitation_asked"] = asked
            out["elicitation_result"] = res.content[0].text
    return out


async def ask(server, a):
    asked, offered = [], []

    async def on_elicit(context, params):
        asked.append(params.message)
        fields = params.requested_schema["properties"]
        name, field = next(iter(fields.items()))
        offered.append([o["const"] for o in field.get("oneOf", [])])
        if a.pick == "decline":
            return types.ElicitResult(action="decline")
        return types.ElicitResult(action="accept", content={name: a.pick})

    async with Client(server, mode=a.mode, elicitation_callback=on_elicit) as c:
        res = await c.call_tool(a.ask, json.loads(a.ask_args))
        structured = res.structured_content or {}
        return {"asked": asked, "offered": offered, "is_error": res.is_error,
                "summary": res.content[0].text if res.content else None, "data": structured.get("data")}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    g = ap.add_mutually_exclusive_group(required=True)
    g.add_argument("--url")
    g.add_argument("--stdio")
    ap.add_argument("--header", action="append", default=[])
    ap.add_argument("--fixtures", action="store_true")
    ap.add_argument("--long")
    ap.add_argument("--long-args", default="{}")
    ap.add_argument("--long-level", default="info")
    ap.add_argument("--ask")
    ap.add_argument("--ask-args", default="{}")
    ap.add_argument("--pick", default="decline")
    ap.add_argument("--mode", default="legacy")
    a = ap.parse_args()
    print(json.dumps(asyncio.run(run(a))))


if __name__ == "__main__":
    main()
