#!/usr/bin/env python3
"""The parts of `bash packaging/build` that are easier in Python (standard library only).

  artifacts.py catalog BINARY OUT.json
      Asks the built binary for its tools over MCP (stdio, paper, a throwaway home): the
      tools it lists with trading off and with trading on. The bundle's `tools` come from
      here, not from a hand-written list.
  artifacts.py manifest --platform linux|win32 --version V --catalog C.json --release R OUT
      Writes an MCP Bundle manifest.json (MCPB manifest 0.3, server type `binary`).
  artifacts.py icon OUT.png
      Draws the bundle's 512x512 icon.
  artifacts.py zip OUT.zip ROOT FILE...
      A zip of FILEs (relative to ROOT) with fixed dates, so the same inputs give the same
      bytes; executables keep their mode.
  artifacts.py server-json --version V --release R --dist DIR OUT
      Writes server.json for the official MCP Registry: the .mcpb bundles in DIR (with their
      SHA-256) and the PyPI package.

R is packaging/release.json: where releases are published and the registry name.
"""

import argparse
import hashlib
import json
import os
import struct
import subprocess
import sys
import tempfile
import zipfile
import zlib

PROTOCOL_VERSION = "2025-11-25"
ZIP_DATE = (2026, 1, 1, 0, 0, 0)


# --- catalog: tools/list from the binary ------------------------------------------------------


def list_tools(binary, extra_args):
    """tools/list (every page) from `BINARY serve --environment paper EXTRA_ARGS`."""
    with tempfile.TemporaryDirectory(prefix="etrade-catalog-") as home:
        env = {k: v for k, v in os.environ.items() if not k.startswith("ETRADE_MCP_")}
        env["ETRADE_MCP_HOME"] = home
        env["ETRADE_MCP_CREDENTIAL_STORE"] = "memory"
        proc = subprocess.Popen(
            [binary, "serve", "--environment", "paper", *extra_args],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env=env,
            text=True,
        )
        next_id = 0

        def request(method, params):
            nonlocal next_id
            next_id += 1
            msg = {"jsonrpc": "2.0", "id": next_id, "method": method, "params": params}
            proc.stdin.write(json.dumps(msg) + "\n")
            proc.stdin.flush()
            while True:
                line = proc.stdout.readline()
                if not line:
                    raise SystemExit(f"catalog: {binary} closed its output during {method}")
                answer = json.loads(line)
                if answer.get("id") == next_id:
                    if "error" in answer:
                        raise SystemExit(f"catalog: {method}: {answer['error']}")
                    return answer["result"]

        try:
            request(
                "initialize",
                {
                    "protocolVersion": PROTOCOL_VERSION,
                    "capabilities": {},
                    "clientInfo": {"name": "etrade-mcp-packaging", "version": "1"},
                },
            )
            proc.stdin.write(
                json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}) + "\n"
            )
            tools, cursor = [], None
            while True:
                page = request("tools/list", {"cursor": cursor} if cursor else {})
                tools.extend(page["tools"])
                cursor = page.get("nextCursor")
                if not cursor:
                    break
        finally:
            proc.stdin.close()
            try:
                proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        return tools


def catalog(args):
    off = list_tools(args.binary, [])
    on = list_tools(args.binary, ["--allow-trading"])
    off_names = {t["name"] for t in off}
    if not off_names <= {t["name"] for t in on}:
        raise SystemExit("catalog: trading on lists fewer tools than trading off")
    entries = [
        {
            "name": t["name"],
            "description": t.get("description", ""),
            "trading_only": t["name"] not in off_names,
        }
        for t in on
    ]
    if not any(e["trading_only"] for e in entries):
        raise SystemExit("catalog: --allow-trading listed no more tools than without it")
    with open(args.out, "w") as f:
        json.dump(entries, f, indent=2)
        f.write("\n")


# --- the MCP Bundle manifest --------------------------------------------------------------------


def first_sentence(text):
    head = text.strip().split(". ")[0].strip().rstrip(".")
    return head + "."


def manifest(args):
    release = json.load(open(args.release))
    tools = json.load(open(args.catalog))
    exe = "etrade.exe" if args.platform == "win32" else "etrade"
    repo = release["repository_url"]
    doc = {
        "manifest_version": "0.3",
        "name": "etrade-mcp",
        "display_name": "E*TRADE (etrade-mcp)",
        "version": args.version,
        "description": (
            "E*TRADE accounts for your assistant, with a local paper broker: paper by "
            "default, no trading unless you allow it, a person approves every order."
        ),
        "long_description": (
            "etrade-mcp serves E*TRADE accounts, quotes, option chains, orders and alerts to "
            "your assistant with exact decimals. It starts on the local paper broker, which "
            "needs no E*TRADE keys and no network. Trading tools are not even listed until "
            "you switch trading on, and then each order waits for a person's approval in the "
            "order ticket, a local page or `etrade approve`. Sandbox and production need a "
            "daily E*TRADE login (`etrade auth`)."
        ),
        "author": {"name": release["author"]},
        "repository": {"type": "git", "url": repo},
        "homepage": repo,
        "documentation": repo + "/blob/main/docs/guide/README.md",
        "support": repo + "/issues",
        "icon": "icon.png",
        "server": {
            "type": "binary",
            "entry_point": "server/" + exe,
            "mcp_config": {
                "command": "${__dirname}/server/" + exe,
                "args": [
                    "serve",
                    "--environment",
                    "${user_config.environment}",
                    "--allow-trading=${user_config.allow_trading}",
                    "--confirm-production=${user_config.confirm_production}",
                    "--profile",
                    "${user_config.profile}",
                ],
            },
        },
        "tools": [
            {
                "name": t["name"],
                "description": first_sentence(t["description"])
                + (" Listed only when trading is allowed." if t["trading_only"] else ""),
            }
            for t in tools
        ],
        "keywords": ["etrade", "brokerage", "trading", "paper-trading", "portfolio", "options"],
        "license": "MIT OR Apache-2.0",
        "compatibility": {"platforms": [args.platform]},
        "user_config": {
            "environment": {
                "type": "string",
                "title": "Environment",
                "description": (
                    "paper (the local paper broker: no E*TRADE keys, no real money), sandbox "
                    "or production (E*TRADE: log in first with `etrade auth`)."
                ),
                "default": "paper",
                "required": False,
            },
            "allow_trading": {
                "type": "boolean",
                "title": "Allow trading",
                "description": (
                    "Off: the tools that place, change or cancel orders are not listed. On: "
                    "they are, and each order still waits for a person's approval."
                ),
                "default": False,
                "required": False,
            },
            "confirm_production": {
                "type": "boolean",
                "title": "Confirm production trading",
                "description": (
                    "Trading in the production environment places real orders with real "
                    "money; the server starts with trading there only when this is on too."
                ),
                "default": False,
                "required": False,
            },
            "profile": {
                "type": "string",
                "title": "Profile",
                "description": (
                    "A profile from etrade-mcp's config.toml (it also names the keyring "
                    "entry); `default` is the one used when none is named."
                ),
                "default": "default",
                "required": False,
            },
        },
    }
    with open(args.out, "w") as f:
        json.dump(doc, f, indent=2)
        f.write("\n")


# --- icon ----------------------------------------------------------------------------------------


def icon(args):
    """512x512 RGBA (the size Claude Desktop recommends): a dark green rounded square with a
    white rising line."""
    size = 512
    k = size / 128  # drawn on a 128-unit grid
    radius = 24 * k
    bg, fg = (21, 87, 54, 255), (255, 255, 255, 255)
    points = [(22 * k, 96 * k), (50 * k, 70 * k), (70 * k, 82 * k), (106 * k, 36 * k)]
    width, dot = 5 * k, 9 * k
    segments = list(zip(points, points[1:]))

    def inside_rounded(x, y):
        cx = min(max(x, radius), size - 1 - radius)
        cy = min(max(y, radius), size - 1 - radius)
        return (x - cx) ** 2 + (y - cy) ** 2 <= radius**2

    def near_line(x, y):
        for (x0, y0), (x1, y1) in segments:
            dx, dy = x1 - x0, y1 - y0
            t = max(0.0, min(1.0, ((x - x0) * dx + (y - y0) * dy) / (dx * dx + dy * dy)))
            px, py = x0 + t * dx, y0 + t * dy
            if (x - px) ** 2 + (y - py) ** 2 <= width**2:
                return True
        return False

    end_x, end_y = points[-1]
    rows = bytearray()
    for y in range(size):
        rows.append(0)
        for x in range(size):
            if not inside_rounded(x, y):
                rows.extend((0, 0, 0, 0))
            elif near_line(x, y) or (x - end_x) ** 2 + (y - end_y) ** 2 <= dot**2:
                rows.extend(fg)
            else:
                rows.extend(bg)

    def chunk(kind, data):
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    png = b"\x89PNG\r\n\x1a\n"
    png += chunk(b"IHDR", struct.pack(">IIBBBBB", size, size, 8, 6, 0, 0, 0))
    png += chunk(b"IDAT", zlib.compress(bytes(rows), 9))
    png += chunk(b"IEND", b"")
    with open(args.out, "wb") as f:
        f.write(png)


# --- zip -----------------------------------------------------------------------------------------


def make_zip(args):
    with zipfile.ZipFile(args.out, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as z:
        for rel in args.files:
            path = os.path.join(args.root, rel)
            info = zipfile.ZipInfo(rel, ZIP_DATE)
            info.compress_type = zipfile.ZIP_DEFLATED
            mode = 0o755 if os.access(path, os.X_OK) else 0o644
            info.external_attr = (0o100000 | mode) << 16
            info.create_system = 3
            with open(path, "rb") as f:
                z.writestr(info, f.read())


# --- server.json ---------------------------------------------------------------------------------


def sha256(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def server_json(args):
    release = json.load(open(args.release))
    repo = release["repository_url"]
    v = args.version
    stdio = {"type": "stdio"}
    packages = []
    for platform in ("linux-x64", "win-x64"):
        name = f"etrade-mcp-{v}-{platform}.mcpb"
        path = os.path.join(args.dist, name)
        if os.path.exists(path):
            packages.append(
                {
                    "registryType": "mcpb",
                    "identifier": f"{repo}/releases/download/v{v}/{name}",
                    "version": v,
                    "fileSha256": sha256(path),
                    "transport": stdio,
                }
            )
    if not packages:
        raise SystemExit(f"server-json: no .mcpb bundle in {args.dist}")
    packages.append(
        {
            "registryType": "pypi",
            "identifier": "etrade-mcp",
            "version": v,
            "runtimeHint": "uvx",
            "transport": stdio,
            "packageArguments": [
                {"type": "positional", "value": "serve"},
                {
                    "type": "named",
                    "name": "--allow-trading",
                    "description": (
                        "true lists the tools that place, change and cancel orders (each "
                        "order still waits for a person's approval); false does not."
                    ),
                    "format": "boolean",
                    "default": "false",
                    "choices": ["false", "true"],
                },
            ],
            "environmentVariables": [
                {
                    "name": "ETRADE_MCP_ENVIRONMENT",
                    "description": "paper (local, no keys), sandbox or production (etrade auth first).",
                    "default": "paper",
                    "choices": ["paper", "sandbox", "production"],
                },
                {
                    "name": "ETRADE_MCP_PROFILE",
                    "description": "A profile from etrade-mcp's config.toml; unset: the default.",
                },
            ],
        }
    )
    doc = {
        "$schema": "https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json",
        "name": release["registry_name"],
        "title": "E*TRADE (etrade-mcp)",
        "description": "E*TRADE accounts with a local paper broker; trades only if allowed, a person approves",
        "version": v,
        "repository": {"url": repo, "source": "github"},
        "websiteUrl": repo,
        "packages": packages,
    }
    with open(args.out, "w") as f:
        json.dump(doc, f, indent=2)
        f.write("\n")


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    sub = p.add_subparsers(dest="command", required=True)
    c = sub.add_parser("catalog")
    c.add_argument("binary")
    c.add_argument("out")
    c.set_defaults(run=catalog)
    m = sub.add_parser("manifest")
    m.add_argument("--platform", choices=["linux", "win32"], required=True)
    m.add_argument("--version", required=True)
    m.add_argument("--catalog", required=True)
    m.add_argument("--release", required=True)
    m.add_argument("out")
    m.set_defaults(run=manifest)
    i = sub.add_parser("icon")
    i.add_argument("out")
    i.set_defaults(run=icon)
    z = sub.add_parser("zip")
    z.add_argument("out")
    z.add_argument("root")
    z.add_argument("files", nargs="+")
    z.set_defaults(run=make_zip)
    s = sub.add_parser("server-json")
    s.add_argument("--version", required=True)
    s.add_argument("--release", required=True)
    s.add_argument("--dist", required=True)
    s.add_argument("out")
    s.set_defaults(run=server_json)
    args = p.parse_args()
    args.run(args)


if __name__ == "__main__":
    sys.exit(main())
