"""Place one order through the official MCP Python SDK, answering the server's approval form.

Usage: place_with_elicitation.py ANSWER ACCOUNT_ID_KEY PREVIEW_ID -- SERVER_COMMAND...
ANSWER is accept, decline or cancel. The server runs with this process's environment.
Prints one JSON object: {"is_error", "payload", "asked"} (the form messages it saw).
"""

import asyncio
import json
import os
import sys

from mcp import ClientSession, types
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
    with open(os.devnull, "w") as errlog:
        async with stdio_client(server, errlog=errlog) as (read, write):
            async with ClientSession(read, write, elicitation_callback=on_elicit) as session:
                await session.initialize()
                result = await session.call_tool(
                    "place_order", {"account_id_key": account, "preview_id": preview}
                )
    payload = result.structured_content if hasattr(result, "structured_content") else None
    if payload is None:
        payload = json.loads(result.content[0].text)
    print(json.dumps({"is_error": bool(result.is_error), "payload": payload, "asked": asked}))


asyncio.run(main())
