"""Place one order through the official MCP Python SDK, answering the server's approval form.

Usage: place_with_elicitation.py ANSWER ACCOUNT_ID_KEY PREVIEW_ID [--mode MODE] -- SERVER_COMMAND...
ANSWER is accept, decline or cancel. The server runs with this process's environment.
Without --mode the client is a ClientSession with the initialize handshake (the server asks
with elicitation/create); with --mode 2026-07-28 it is the SDK's Client pinned to that
revision (the server asks in an input request, and the SDK calls again with the answer).
Prints one JSON object: {"is_error", "payload", "asked"} (the form messages it saw).
"""

import asyncio
import json
import os
import sys

from mcp import ClientSession, types
from mcp.client.client import Client
from mcp.client.stdio import StdioServerParameters, stdio_client


async def main() -> None:
    answer, account, preview = sys.argv[1:4]
    command = sys.argv[sys.argv.index("--") + 1 :]
    asked: list[str] = []

    async def on_elicit(_context, params):
        asked.append(getattr(params, "message", ""))
        if answer == "accept":
            return types.ElicitResult(action="accept", content={"place_order": True})
        return types.ElicitResult(action=answer)

    server = StdioServerParameters(command=command[0], args=command[1:], env=dict(os.environ))
    arguments = {"account_id_key": account, "preview_id": preview}
    ours = sys.argv[: sys.argv.index("--")]
    mode = ours[ours.index("--mode") + 1] if "--mode" in ours else None
    if mode is not None:
        async with Client(server, mode=mode, elicitation_callback=on_elicit) as client:
            result = await client.call_tool("place_order", arguments)
    else:
        with open(os.devnull, "w") as errlog:
            async with stdio_client(server, errlog=errlog) as (read, write):
                async with ClientSession(read, write, elicitation_callback=on_elicit) as session:
                    await session.initialize()
                    result = await session.call_tool("place_order", arguments)
    payload = result.structured_content if hasattr(result, "structured_content") else None
    if payload is None:
        payload = json.loads(result.content[0].text)
    print(json.dumps({"is_error": bool(result.is_error), "payload": payload, "asked": asked}))


asyncio.run(main())
