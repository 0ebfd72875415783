"""Runs the Windows build of etrade under Wine, in a fresh Wine prefix, as a Windows user
would meet it: the CLI, an MCP session over stdio driven by the official MCP Python SDK,
streamable HTTP on loopback, and the Windows Credential Manager store.

Usage: wine_smoke.py --exe PATH/etrade.exe
The Wine loader comes from $WINE (default: wine64 on PATH, else /usr/lib/wine/wine64).
Nothing reaches beyond loopback: the server runs the local paper broker, and `etrade auth`
logs in to a stand-in for E*TRADE's OAuth endpoints on 127.0.0.1.

Prints one line per check ("ok   NAME" or "FAIL NAME: why") and exits 1 if any failed. The
prefix is deleted afterwards unless ETRADE_WINE_KEEP=1 (it is printed either way).
"""

import argparse
import base64
import hashlib
import hmac
import http.server
import json
import os
import re
import shutil
import subprocess
import sys
import threading
import time
import tomllib
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path

import anyio
from mcp import ClientSession, types
from mcp.shared.message import SessionMessage

REPO = Path(__file__).resolve().parents[2]
FAILED: list[str] = []


def check(name: str, ok: bool, why: str = "") -> bool:
    if ok:
        print(f"ok   {name}", flush=True)
    else:
        FAILED.append(name)
        print(f"FAIL {name}: {why}", flush=True)
    return ok


def wine_loader() -> str:
    if os.environ.get("WINE"):
        return os.environ["WINE"]
    found = shutil.which("wine64")
    if found:
        return found
    if Path("/usr/lib/wine/wine64").exists():
        return "/usr/lib/wine/wine64"
    sys.exit("wine_smoke: no wine64 (apt-get install wine64)")


class Wine:
    """One fresh prefix; every Windows process of the run shares it (and its registry, where
    Wine keeps the Credential Manager's entries)."""

    def __init__(self, exe: Path) -> None:
        self.loader = wine_loader()
        self.exe = exe
        made = subprocess.run(
            [str(REPO / "tests" / "windows" / "new-prefix")],
            env=dict(os.environ, WINE=self.loader),
            capture_output=True,
            text=True,
            check=True,
        )
        self.prefix = Path(made.stdout.strip().splitlines()[-1])
        self.env = {
            k: v
            for k, v in os.environ.items()
            # The server must find its folders the Windows way, from the prefix.
            if not k.startswith("ETRADE_MCP_") and k not in ("DISPLAY", "WAYLAND_DISPLAY")
        }
        self.env.update(
            WINEPREFIX=str(self.prefix),
            WINEDEBUG="-all",
            # No Mono or Gecko installer dialogs while the prefix is made.
            WINEDLLOVERRIDES="mscoree=;mshtml=",
        )

    def command(self, *args: str) -> list[str]:
        return [self.loader, str(self.exe), *args]

    def run(self, *args: str, timeout: float = 120):
        return subprocess.run(
            self.command(*args),
            env=self.env,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=timeout,
        )

    def user_dir(self) -> Path:
        users = [
            p
            for p in (self.prefix / "drive_c" / "users").iterdir()
            if p.name.lower() not in ("public", "default")
        ]
        if len(users) != 1:
            raise RuntimeError(f"expected one Wine user folder, found {users}")
        return users[0]

    def close(self) -> None:
        wineserver = Path(self.loader).with_name("wineserver")
        server = str(wineserver) if wineserver.exists() else "wineserver"
        subprocess.run([server, "-k"], env=self.env, check=False)
        subprocess.run([server, "-w"], env=self.env, check=False, timeout=60)
        if os.environ.get("ETRADE_WINE_KEEP") == "1":
            print(f"wine prefix kept: {self.prefix}")
        else:
            shutil.rmtree(self.prefix, ignore_errors=True)


def both(p: subprocess.CompletedProcess) -> str:
    return f"exit {p.returncode}\n--- stdout\n{p.stdout}\n--- stderr\n{p.stderr}"


# ---------------------------------------------------------------------------------------
# The trading vault: `etrade vault run` on a named pipe, the person's commands through it
# ---------------------------------------------------------------------------------------


def vault_checks(wine: Wine) -> None:
    state = wine.prefix / "drive_c" / "vault-state"
    state.mkdir(parents=True, exist_ok=True)
    (state / "vault.toml").write_text(
        '[profiles.default]\nenvironment = "paper"\ncredential_store = "file"\n\n'
        '[profiles.default.trading]\napproval = "required"\n'
    )
    pipe = "\\\\.\\pipe\\etrade-wine-vault"
    vault = subprocess.Popen(
        wine.command("vault", "run", "--state", "C:\\vault-state", "--socket", pipe),
        env=wine.env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        line = ""
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            line = vault.stderr.readline() if vault.stderr else ""
            if "serving" in line or not line:
                break
        if not check("vault run listens on a named pipe", "serving" in line, line):
            return
        person = dict(wine.env, ETRADE_MCP_VAULT=pipe)

        def through(*args: str, stdin: str = "") -> subprocess.CompletedProcess:
            return subprocess.run(
                wine.command(*args),
                env=person,
                input=stdin,
                capture_output=True,
                text=True,
                timeout=120,
            )

        p = through("paper", "status")
        shown = {}
        try:
            shown = json.loads(p.stdout)
        except ValueError:
            pass
        check(
            "vault: paper status through the pipe prints the vault's book",
            p.returncode == 0 and bool(shown.get("accounts")) and (state / "paper-default.redb").exists(),
            both(p),
        )
        p = through("approve", "--set-pin", stdin="correct horse battery\ncorrect horse battery\n")
        check("vault: set the PIN through the pipe", p.returncode == 0 and "PIN is set" in p.stdout, both(p))
        p = through("approve", "--list")
        check("vault: approve --list through the pipe", p.returncode == 0 and "waiting" in p.stdout, both(p))
        p = through("serve", "--environment", "production")
        check(
            "vault: a command line that points the vault elsewhere is refused",
            p.returncode == 2 and "the vault's profile decides" in p.stderr,
            both(p),
        )
    finally:
        vault.kill()
        vault.wait(timeout=30)


# ---------------------------------------------------------------------------------------
# The CLI
# ---------------------------------------------------------------------------------------


def cli_checks(wine: Wine) -> None:
    version = tomllib.loads((REPO / "Cargo.toml").read_text())["workspace"]["package"]["version"]
    p = wine.run("--version")
    check("--version", p.returncode == 0 and p.stdout.strip() == f"etrade {version}", both(p))

    p = wine.run("tools")
    names = set(re.findall(r"^\s*([a-z_]+)\b", p.stdout, re.M))
    wanted = {"server_status", "list_accounts", "preview_order", "place_order"}
    check("tools", p.returncode == 0 and wanted <= names, f"missing {wanted - names}\n{both(p)}")

    # docs/guide/install.md: config in %APPDATA%\etrade-mcp, state in %LOCALAPPDATA%\etrade-mcp. A config
    # placed where Windows users are told to put it must be the one doctor finds and reads.
    user = wine.user_dir()
    roaming = user / "AppData" / "Roaming" / "etrade-mcp"
    local = user / "AppData" / "Local" / "etrade-mcp"
    roaming.mkdir(parents=True, exist_ok=True)
    (roaming / "config.toml").write_text('[profiles.default]\nenvironment = "paper"\n')

    p = wine.run("doctor")
    text = p.stdout + p.stderr
    win_user = f"C:\\users\\{user.name}"
    check("doctor exits 0", p.returncode == 0, both(p))
    config_line = next((l for l in text.splitlines() if "config:" in l), "")
    check(
        "doctor reads config.toml from %APPDATA%",
        f"{win_user}\\AppData\\Roaming\\etrade-mcp\\config.toml".lower() in config_line.lower()
        and "not found" not in config_line,
        text,
    )
    check(
        "doctor keeps state in %LOCALAPPDATA%",
        f"{win_user}\\AppData\\Local\\etrade-mcp".lower() in text.lower() and local.is_dir(),
        f"{text}\nstate folder exists: {local.is_dir()}",
    )
    check(
        "doctor uses the Windows Credential Manager",
        "credential manager" in text.lower(),
        text,
    )


# ---------------------------------------------------------------------------------------
# MCP over stdio: the Python SDK's ClientSession on the server's pipes
# ---------------------------------------------------------------------------------------


def envelope(result: types.CallToolResult) -> dict:
    if result.structured_content is not None:
        return result.structured_content
    return json.loads(result.content[0].text)


def payload(result: types.CallToolResult) -> dict:
    """The tool's data, from the envelope every tool answers with ({data, error, meta})."""
    return envelope(result).get("data") or {}


async def stdio_session(wine: Wine) -> None:
    # The SDK's own stdio_client gives a server two seconds after closing stdin and then
    # kills it, without telling the caller how it ended; this transport is the same line
    # framing, and keeps the process so its exit after EOF is seen.
    process = await anyio.open_process(
        wine.command("serve", "--allow-trading"),
        env=wine.env,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    to_session, from_server = anyio.create_memory_object_stream[SessionMessage | Exception](16)
    to_server, from_session = anyio.create_memory_object_stream[SessionMessage](16)
    stderr_chunks: list[bytes] = []

    async def read_stdout() -> None:
        buffer = b""
        async with to_session:
            async for chunk in process.stdout:
                buffer += chunk
                while b"\n" in buffer:
                    line, buffer = buffer.split(b"\n", 1)
                    if line.strip():
                        message = types.jsonrpc_message_adapter.validate_json(line, by_name=False)
                        await to_session.send(SessionMessage(message))

    async def read_stderr() -> None:
        async for chunk in process.stderr:
            stderr_chunks.append(chunk)

    async def write_stdin() -> None:
        async with from_session:
            async for m in from_session:
                data = m.message.model_dump_json(by_alias=True, exclude_unset=True) + "\n"
                await process.stdin.send(data.encode())

    try:
        await drive(process, from_server, to_server, read_stdout, read_stderr, write_stdin, stderr_chunks)
    finally:
        if process.returncode is None:
            process.kill()
            await process.wait()


async def drive(process, from_server, to_server, read_stdout, read_stderr, write_stdin, stderr_chunks) -> None:
    async with anyio.create_task_group() as tg:
        tg.start_soon(read_stdout)
        tg.start_soon(read_stderr)
        tg.start_soon(write_stdin)
        with anyio.fail_after(180):
            async with ClientSession(from_server, to_server) as session:
                init = await session.initialize()
                check("stdio: initialize", init.server_info.name != "", str(init))
                listed = await session.list_tools()
                names = {t.name for t in listed.tools}
                check(
                    "stdio: tools/list",
                    {"server_status", "preview_order", "place_order"} <= names,
                    str(sorted(names)),
                )
                status = payload(await session.call_tool("server_status", {}))
                granted = {p["name"] for p in status.get("permissions", []) if p.get("granted")}
                check(
                    "stdio: server_status (paper, stdio, trading granted, Credential Manager)",
                    status.get("environment") == "paper"
                    and status.get("transport") == "stdio"
                    and "trade" in granted
                    and status.get("credentials", {}).get("backend") == "windows-credential-manager",
                    json.dumps(status),
                )
                accounts = payload(await session.call_tool("list_accounts", {}))
                key = accounts["accounts"][0]["accountIdKey"]
                order = {
                    "order_type": "EQ",
                    "symbol": "AAPL",
                    "order_action": "BUY",
                    "quantity": "3",
                    "price_type": "MARKET",
                }
                pv = await session.call_tool(
                    "preview_order", {"account_id_key": key, "request": order}
                )
                preview = payload(pv)
                check(
                    "stdio: preview_order",
                    not pv.is_error and bool(preview.get("preview_id")),
                    json.dumps(envelope(pv)),
                )
                args = {"account_id_key": key, "preview_id": preview.get("preview_id")}
                placed = await session.call_tool("place_order", args)
                placed_body = payload(placed)
                check(
                    "stdio: place_order",
                    not placed.is_error and isinstance(placed_body.get("order_id"), int),
                    json.dumps(envelope(placed)),
                )
                again = await session.call_tool("place_order", args)
                check(
                    "stdio: the same preview is not placed twice",
                    bool(again.is_error) and bool(envelope(again).get("error")),
                    json.dumps(envelope(again)),
                )
                orders = payload(await session.call_tool("list_orders", {"account_id_key": key}))
                ids = [o.get("orderId") for o in orders.get("orders", [])]
                check(
                    "stdio: one order in the book",
                    ids == [placed_body.get("order_id")],
                    json.dumps(orders),
                )
        # The client is done: close the server's stdin and let it go.
        await process.stdin.aclose()
        start = time.monotonic()
        with anyio.move_on_after(60):
            while process.returncode is None:
                await anyio.sleep(0.1)
        took = time.monotonic() - start
        if process.returncode is None:
            process.kill()
        tg.cancel_scope.cancel()
    stderr = b"".join(stderr_chunks).decode(errors="replace")
    check(
        "stdio: exits 0 when the client closes stdin",
        process.returncode == 0 and "panicked" not in stderr,
        f"exit {process.returncode} after {took:.1f} s\n{stderr}",
    )
    print(f"     (exit after EOF: {took:.1f} s)")


def state_after_session(wine: Wine) -> None:
    local = wine.user_dir() / "AppData" / "Local" / "etrade-mcp"
    files = sorted(p.name for p in local.rglob("*") if p.is_file()) if local.is_dir() else []
    check(
        "the paper book lives in %LOCALAPPDATA%\\etrade-mcp",
        "paper-default.redb" in files and "trading.redb" in files,
        f"{local}: {files}",
    )


# ---------------------------------------------------------------------------------------
# Streamable HTTP on loopback
# ---------------------------------------------------------------------------------------

MODERN = "2026-07-28"


def post(url: str, body: dict, headers: dict | None = None) -> tuple[int, str]:
    request = urllib.request.Request(
        url,
        data=json.dumps(body).encode(),
        method="POST",
        headers={
            "content-type": "application/json",
            "accept": "application/json, text/event-stream",
            **(headers or {}),
        },
    )
    try:
        with urllib.request.urlopen(request, timeout=60) as r:
            return r.status, r.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode(errors="replace")


def answer(text: str) -> dict:
    """The JSON-RPC answer in a body: plain JSON or the data of one SSE event."""
    text = text.strip()
    if text.startswith("{"):
        return json.loads(text)
    data = [line[5:].strip() for line in text.splitlines() if line.startswith("data:")]
    for d in data:
        if d.startswith("{"):
            return json.loads(d)
    raise ValueError(f"no JSON-RPC answer in {text!r}")


def http_checks(wine: Wine) -> None:
    server = subprocess.Popen(
        wine.command("serve", "--transport", "http", "--listen", "127.0.0.1:0"),
        env=wine.env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    url = None
    seen: list[str] = []
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            line = server.stderr.readline()
            if not line:
                break
            seen.append(line)
            if line.startswith("etrade-mcp: listening on "):
                url = line.removeprefix("etrade-mcp: listening on ").strip()
                break
        if not check("http: listening on 127.0.0.1", bool(url) and "127.0.0.1:" in url, "".join(seen)):
            return
        # Keep the pipe drained so that the server never blocks on stderr.
        threading.Thread(target=lambda: [None for _ in server.stderr], daemon=True).start()

        init = {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {
                "protocolVersion": "2025-11-25",
                "capabilities": {},
                "clientInfo": {"name": "wine-smoke", "version": "1"},
            },
        }
        status, body = post(url, init)
        result = answer(body).get("result", {}) if status == 200 else {}
        check(
            "http: 2025-11-25 initialize",
            status == 200 and result.get("protocolVersion") == "2025-11-25",
            f"{status} {body}",
        )

        meta = {
            "io.modelcontextprotocol/protocolVersion": MODERN,
            "io.modelcontextprotocol/clientCapabilities": {},
            "io.modelcontextprotocol/clientInfo": {"name": "wine-smoke", "version": "1"},
        }
        discover = {"jsonrpc": "2.0", "id": 2, "method": "server/discover", "params": {"_meta": meta}}
        status, body = post(
            url, discover, {"mcp-protocol-version": MODERN, "mcp-method": "server/discover"}
        )
        versions = answer(body).get("result", {}).get("supportedVersions", []) if status == 200 else []
        check(
            "http: 2026-07-28 server/discover",
            status == 200 and MODERN in versions and "2025-11-25" in versions,
            f"{status} {body}",
        )

        status, body = post(url, init, {"origin": "http://evil.example"})
        check("http: a foreign Origin gets 403", status == 403, f"{status} {body}")
        status, body = post(url, init, {"origin": "http://localhost:5173"})
        check("http: a loopback Origin gets 200", status == 200, f"{status} {body}")
    finally:
        server.kill()
        server.wait(timeout=30)


# ---------------------------------------------------------------------------------------
# The Windows Credential Manager, through `etrade auth`
# ---------------------------------------------------------------------------------------

# Not real keys: values that show up nowhere else, so a leak would be plain.
CONSUMER_KEY = "wineProbeKey4417"
CONSUMER_SECRET = "wine-probe-CONSUMER/+=9c1e"
REQUEST = ("wineRequestTok", "wine-request-SECRET")
ACCESS = ("wineAccessTok", "wine-access-SECRET/+=")
VERIFIER = "WINE42VERIFY"


def oauth_encode(s: str) -> str:
    return urllib.parse.quote(s, safe="-._~")


class FakeOAuth(http.server.BaseHTTPRequestHandler):
    """E*TRADE's three token endpoints on loopback, as `etrade auth` meets them. Each request
    is kept, with whether its OAuth 1.0a signature checks out against the secrets issued."""

    seen: list[dict] = []

    def do_GET(self) -> None:
        url = urllib.parse.urlsplit(self.path)
        header = self.headers.get("authorization", "")
        params = dict(
            (k, urllib.parse.unquote(v))
            for k, v in re.findall(r'(oauth_[a-z_]+)="([^"]*)"', header)
        )
        token = params.get("oauth_token")
        token_secret = {REQUEST[0]: REQUEST[1], ACCESS[0]: ACCESS[1]}.get(token or "", "")
        signed = dict(params)
        signature = signed.pop("oauth_signature", "")
        signed.update(urllib.parse.parse_qsl(url.query))
        normalized = "&".join(
            f"{oauth_encode(k)}={oauth_encode(v)}" for k, v in sorted(signed.items())
        )
        base = "&".join(
            oauth_encode(x) for x in ("GET", f"http://{self.headers['host']}{url.path}", normalized)
        )
        key = f"{oauth_encode(CONSUMER_SECRET)}&{oauth_encode(token_secret)}".encode()
        expected = base64.b64encode(hmac.new(key, base.encode(), hashlib.sha1).digest()).decode()
        FakeOAuth.seen.append(
            {"path": url.path, "params": params, "signature_ok": signature == expected}
        )
        bodies = {
            "/oauth/request_token": f"oauth_token={REQUEST[0]}&oauth_token_secret={oauth_encode(REQUEST[1])}"
            "&oauth_callback_confirmed=true",
            "/oauth/access_token": f"oauth_token={ACCESS[0]}&oauth_token_secret={oauth_encode(ACCESS[1])}",
            "/oauth/revoke_access_token": "Revoked Access Token",
        }
        body = bodies.get(url.path)
        self.send_response(200 if body else 404)
        self.send_header("content-type", "application/x-www-form-urlencoded")
        data = (body or "not found").encode()
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args) -> None:
        pass


def store_checks(wine: Wine) -> None:
    fake = http.server.ThreadingHTTPServer(("127.0.0.1", 0), FakeOAuth)
    threading.Thread(target=fake.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{fake.server_address[1]}"
    profile = "wineprobe"
    config = wine.user_dir() / "AppData" / "Roaming" / "etrade-mcp" / "config.toml"
    config.write_text(
        config.read_text()
        + f'\n[profiles.{profile}]\nenvironment = "sandbox"\napi_base_url = "{base}"\n'
        f'authorize_url = "{base}/authorize"\n'
    )
    secrets = [CONSUMER_SECRET, REQUEST[1], ACCESS[0], ACCESS[1], VERIFIER]

    def auth(command: str, stdin: str | None = None, env=None) -> subprocess.CompletedProcess:
        p = subprocess.run(
            wine.command("auth", command, "--profile", profile, "--credential-store", "windows"),
            env=dict(wine.env, **(env or {})),
            input=stdin or "",
            capture_output=True,
            text=True,
            timeout=120,
        )
        leaked = [x for x in secrets if x in p.stdout + p.stderr]
        check(f"store: etrade auth {command} prints no secret", not leaked, f"{leaked}\n{both(p)}")
        return p

    try:
        p = auth("status")
        check("store: nothing stored in a fresh prefix", "state: missing" in p.stdout, both(p))

        p = auth(
            "login",
            stdin=VERIFIER + "\n",
            env={"ETRADE_CONSUMER_KEY": CONSUMER_KEY, "ETRADE_CONSUMER_SECRET": CONSUMER_SECRET},
        )
        check(
            "store: etrade auth login stores the token (CredWriteW)",
            p.returncode == 0 and "Logged in" in p.stdout and "state: active" in p.stdout,
            both(p),
        )

        # Another process, no consumer key in its environment: all from the Credential Manager.
        p = auth("status")
        check(
            "store: a second process reads it back (CredReadW)",
            p.returncode == 0
            and "state: active" in p.stdout
            and "windows-credential-manager" in p.stdout,
            both(p),
        )

        p = auth("logout")
        revoke = [r for r in FakeOAuth.seen if r["path"] == "/oauth/revoke_access_token"]
        # The revocation is signed with the consumer secret and the access token's secret:
        # a good signature shows both came back from the store intact.
        check(
            "store: logout signs with what was stored (key, token, both secrets)",
            len(revoke) == 1
            and revoke[0]["params"].get("oauth_consumer_key") == CONSUMER_KEY
            and revoke[0]["params"].get("oauth_token") == ACCESS[0]
            and revoke[0]["signature_ok"],
            f"{revoke}\n{both(p)}",
        )
        check(
            "store: etrade auth logout deletes it (CredDeleteW)",
            p.returncode == 0 and "stored entry is deleted" in p.stdout,
            both(p),
        )
        p = auth("status")
        check("store: gone in the next process", "state: missing" in p.stdout, both(p))
        check(
            "store: every OAuth request was signed correctly",
            [r["path"] for r in FakeOAuth.seen]
            == ["/oauth/request_token", "/oauth/access_token", "/oauth/revoke_access_token"]
            and all(r["signature_ok"] for r in FakeOAuth.seen),
            json.dumps(FakeOAuth.seen),
        )
    finally:
        fake.shutdown()


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--exe", required=True, type=Path)
    args = parser.parse_args()
    made = time.monotonic()
    wine = Wine(args.exe.resolve())
    print(f"     (the prefix made in {time.monotonic() - made:.1f} s)")
    print(f"wine: {subprocess.run([wine.loader, '--version'], capture_output=True, text=True).stdout.strip()}")
    print(f"prefix: {wine.prefix}")
    started = time.monotonic()
    try:
        cli_checks(wine)
        anyio.run(stdio_session, wine)
        state_after_session(wine)
        http_checks(wine)
        store_checks(wine)
        vault_checks(wine)
    except Exception as e:  # a crash of the harness is a failure too, with its reason
        check("harness", False, repr(e))
    finally:
        wine.close()
    print(f"wine smoke: {len(FAILED)} failed; the checks took {time.monotonic() - started:.0f} s")
    return 1 if FAILED else 0


if __name__ == "__main__":
    sys.exit(main())
