"""Talk to the server as an MCP 2026-07-28 client with the official MCP Python SDK: no
initialize, no session. Sends server/discover itself, lists the tools twice, and calls
server_status, list_accounts (a read tool) and server_status with an unknown argument.

Usage: modern_client.py MODE --url URL
       modern_client.py MODE -- SERVER_COMMAND...
MODE is a client mode of the SDK: "2026-07-28" (pinned) or "auto" (probe server/discover,
fall back to initialize). The server runs with this process's environment.
Prints one JSON object: {"protocol_version", "discover", "lists": [[names, ttlMs, cacheScope],
...], "calls": {name: {"is_error", "payload"}}}.
"""

import asyncio
import json
import os
import sys

from mcp.client.client import Client
from mcp.client.stdio import StdioServerParameters


def result(r) -> dict:
    payload = r.structured_content
    if payload is None and r.content:
        payload = json.loads(r.content[0].text)
    text = [json.loads(c.text) for c in r.content if getattr(c, "type", "") == "text"]
    return {"is_error": bool(r.is_error), "payload": payload, "text": text}


async def main() -> None:
    mode = sys.argv[1]
    if sys.argv[2] == "--url":
        target = sys.argv[3]
    else:
        command = sys.argv[sys.argv.index("--") + 1 :]
        target = StdioServerParameters(command=command[0], args=command[1:], env=dict(os.environ))

    out: dict = {"lists": [], "calls": {}}
    async with Client(target, mode=mode) as client:
        out["protocol_version"] = client.protocol_version
        out["discover"] = await client.session.send_discover("2026-07-28")
        for _ in range(2):
            listed = await client.list_tools(cache_mode="bypass")
            out["lists"].append([[t.name for t in listed.tools], listed.ttl_ms, listed.cache_scope])
        out["calls"]["server_status"] = result(await client.call_tool("server_status", {}))
        out["calls"]["list_accounts"] = result(await client.call_tool("list_accounts", {}))
        out["calls"]["invalid"] = result(await client.call_tool("server_status", {"verbose": True}))
    print(json.dumps(out, default=str))


asyncio.run(main())
