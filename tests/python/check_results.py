"""Call every tool through the official MCP Python SDK on a paper server and check each result
(errors too) against the tool's advertised outputSchema with the SDK's own validator.

Usage: check_results.py -- SERVER_COMMAND...
The server runs with this process's environment; it must grant every permission.
Prints one JSON object: {"listed": [names], "checked": [[tool, is_error], ...], "problems": [...]}.
"""

import asyncio
import json
import os
import sys

from mcp import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

BUY = {"order_type": "EQ", "symbol": "AAPL", "order_action": "BUY", "quantity": "10",
       "price_type": "LIMIT", "limit_price": "1.00"}


async def main() -> None:
    command = sys.argv[sys.argv.index("--") + 1 :]
    checked: list[list] = []
    problems: list[str] = []

    server = StdioServerParameters(command=command[0], args=command[1:], env=dict(os.environ))
    with open(os.devnull, "w") as errlog:
        async with stdio_client(server, errlog=errlog) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                listed = [t.name for t in (await session.list_tools()).tools]

                async def call(name: str, args: dict) -> dict:
                    try:
                        result = await session.call_tool(name, args)
                        # call_tool checks successes only; errors are checked here too.
                        await session.validate_tool_result(name, result)
                    except Exception as e:  # noqa: BLE001 - every failure is reported
                        problems.append(f"{name} {json.dumps(args)}: {e}")
                        return {}
                    checked.append([name, bool(result.is_error)])
                    return result.structured_content or {}

                accounts = await call("list_accounts", {})
                key = accounts["data"]["accounts"][0]["accountIdKey"]
                acct = {"account_id_key": key}
                await call("server_status", {})
                await call("server_status", {"verbose": True})
                await call("get_account_balances", acct)
                await call("get_quotes", {"symbols": ["AAPL", "NOPE1"]})
                await call("get_quotes", {"symbols": []})
                await call("lookup_product", {"search": "apple"})
                await call("get_option_expire_dates", {"symbol": "AAPL"})
                await call("get_option_chains", {"symbol": "AAPL"})
                await call("list_alerts", {})
                await call("delete_alerts", {"alert_ids": [1]})
                preview = await call("preview_order", {**acct, "request": BUY})
                preview_id = (preview.get("data") or {}).get("preview_id", "pv-0")
                placed = await call("place_order", {**acct, "preview_id": preview_id})
                order_id = (placed.get("data") or {}).get("order_id", 1)
                change = {**acct, "order_id": order_id, "request": {**BUY, "limit_price": "1.01"}}
                changed = await call("preview_change_order", change)
                changed_id = (changed.get("data") or {}).get("preview_id", "pv-0")
                replaced = await call(
                    "place_change_order", {**acct, "order_id": order_id, "preview_id": changed_id}
                )
                order_id = (replaced.get("data") or {}).get("order_id", order_id)
                await call("list_orders", acct)
                await call("cancel_order", {**acct, "order_id": order_id})
                await call("get_portfolio", acct)
                await call("get_position_lots", {**acct, "position_id": 1})
                await call("list_transactions", acct)
                await call("get_transaction_details", {**acct, "transaction_id": 1})
                await call("get_alert_details", {"alert_id": 1})
                await call("list_order_journal", {})
                # Whatever the scenario did not reach is called with no arguments.
                for name in listed:
                    if not any(c[0] == name for c in checked):
                        await call(name, {})
    print(json.dumps({"listed": listed, "checked": checked, "problems": problems}))


asyncio.run(main())
