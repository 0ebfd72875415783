"""The Python baseline of benches/http_status.rs: a FastMCP server with one trivial tool,
`ping`, returning the same payload as the bare rmcp baseline, over streamable HTTP at /mcp.
Prints the same "listening" line on stderr once the port accepts connections.

Needs `pip install fastmcp`; the bench skips this target when it is missing."""

import socket
import sys
import threading
import time

from fastmcp import FastMCP

mcp = FastMCP("bare-fastmcp")


@mcp.tool
def ping() -> dict:
    """Answer at once."""
    return {"ok": True, "server": "bare"}


def free_port() -> int:
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def announce(port: int) -> None:
    while True:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            break
        except OSError:
            time.sleep(0.02)
    print(f"etrade-mcp: listening on http://127.0.0.1:{port}/mcp", file=sys.stderr, flush=True)


if __name__ == "__main__":
    port = free_port()
    threading.Thread(target=announce, args=(port,), daemon=True).start()
    mcp.run(transport="http", host="127.0.0.1", port=port, show_banner=False, log_level="warning")
