"""An MCP Apps host's view of the server, with the official MCP Python SDK: a 2026-07-28
client that advertises the UI extension (`io.modelcontextprotocol/ui`) lists the tools (with
their `_meta.ui`), lists and reads the app resources, and calls an app-only tool; then a
client that does not advertise it lists the tools and calls the same app-only tool.

Usage: apps_host.py -- SERVER_COMMAND...
Prints one JSON object: {"ui_tools": {name: _meta.ui}, "resources": [{uri, mimeType,
_meta}], "documents": {uri: {"mimeType", "length", "outside"}}, "app_call": payload,
"plain_tools": [names], "plain_call": payload}.
"""

import asyncio
import json
import os
import sys

from mcp.client.client import Client
from mcp.client.extension import advertise
from mcp.client.stdio import StdioServerParameters

UI = "io.modelcontextprotocol/ui"
MIME = "text/html;profile=mcp-app"


def dump(model) -> dict:
    return model.model_dump(by_alias=True, exclude_none=True, mode="json")


def payload(r):
    if r.structured_content is not None:
        return r.structured_content
    return json.loads(r.content[0].text)


async def main() -> None:
    command = sys.argv[sys.argv.index("--") + 1 :]
    target = StdioServerParameters(command=command[0], args=command[1:], env=dict(os.environ))
    out: dict = {}
    ticket_args = {"preview_id": "pv-unknown"}
    async with Client(target, mode="2026-07-28", extensions=[advertise(UI, {"mimeTypes": [MIME]})]) as client:
        tools = await client.list_tools(cache_mode="bypass")
        out["ui_tools"] = {t.name: dump(t).get("_meta", {}).get("ui") for t in tools.tools}
        listed = await client.list_resources()
        out["resources"] = [dump(r) for r in listed.resources]
        out["documents"] = {}
        for r in listed.resources:
            read = await client.read_resource(r.uri)
            c = dump(read.contents[0])
            text = c.get("text", "")
            out["documents"][str(r.uri)] = {
                "mimeType": c.get("mimeType"),
                "length": len(text),
                "outside": [s for s in ("http://", "https://") if s in text],
            }
        out["app_call"] = payload(await client.call_tool("get_order_ticket", ticket_args))
    async with Client(target, mode="2026-07-28") as client:
        tools = await client.list_tools(cache_mode="bypass")
        out["plain_tools"] = [t.name for t in tools.tools]
        out["plain_call"] = payload(await client.call_tool("get_order_ticket", ticket_args))
    print(json.dumps(out, default=str))


asyncio.run(main())
