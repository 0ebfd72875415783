#!/usr/bin/env python3
"""Checks what `bash packaging/build` wrote into dist/, the way users and hosts meet it.

  - every .sha256 and sha256.sum matches its file; the archives hold etrade, README, licences;
  - the MCP Bundle: the official CLI (`mcpb unpack`, `mcpb validate`) accepts it, and,
    unpacked as a host unpacks it (${__dirname} and the user_config defaults substituted as
    @anthropic-ai/mcpb's config.ts does), it starts and answers an MCP session on paper
    through the official MCP Python SDK: trading off by default (the trading tools not
    listed), on when the bundle's switch is on; what it lists is the manifest's `tools`;
  - the wheel installs into a fresh venv, and its `etrade serve` and `etrade-mcp` answer an MCP
    session;
  - server.json validates against the vendored registry schema (packaging/registry/), names
    this version, and its .mcpb hashes are the files'.

Usage: test_artifacts.py [--dist DIR] [--expect-windows]
Prints "ok   NAME" or "FAIL NAME: why" per check; exits 1 if any failed, or if dist/ is
missing or incomplete (nothing is skipped). Only loopback: every server runs paper, with its
own throwaway home and the in-memory credential store.
"""

import argparse
import asyncio
import copy
import hashlib
import json
import os
import re
import subprocess
import sys
import tarfile
import tempfile
import tomllib
import venv
import zipfile
from pathlib import Path

import jsonschema
from mcp import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

ROOT = Path(__file__).resolve().parents[1]
MCPB = ROOT / "packaging" / "node_modules" / ".bin" / "mcpb"
TRADING_NOTE = "Listed only when trading is allowed."
FAILED: list[str] = []
# sha256 of the binary in each artifact, for the one-build check.
BINARIES: dict[str, dict[str, str]] = {"linux": {}, "windows": {}}


def check(name: str, ok: bool, why: str = "") -> bool:
    if ok:
        print(f"ok   {name}", flush=True)
    else:
        FAILED.append(name)
        print(f"FAIL {name}: {why}", flush=True)
    return ok


def sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def server_env(home: str, extra: dict | None = None) -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith("ETRADE_MCP_")}
    env["ETRADE_MCP_HOME"] = home
    env["ETRADE_MCP_CREDENTIAL_STORE"] = "memory"
    env.update(extra or {})
    return env


async def session(command: str, args: list[str], env: dict) -> dict:
    """initialize, tools/list, server_status and list_accounts over stdio."""
    server = StdioServerParameters(command=command, args=args, env=env)
    with open(os.devnull, "w") as errlog:
        async with stdio_client(server, errlog=errlog) as (read, write):
            async with ClientSession(read, write) as s:
                init = await asyncio.wait_for(s.initialize(), 30)
                listed = [t.name for t in (await s.list_tools()).tools]
                status = await s.call_tool("server_status", {})
                accounts = await s.call_tool("list_accounts", {})
                return {
                    "server": init.server_info.name,
                    "listed": listed,
                    "status": status.structured_content or {},
                    "accounts": accounts.structured_content or {},
                    "accounts_error": bool(accounts.is_error),
                }


def run_session(name: str, command: str, args: list[str], env: dict) -> dict | None:
    try:
        return asyncio.run(asyncio.wait_for(session(command, args, env), 120))
    except Exception as e:  # noqa: BLE001 - the check reports it
        check(name, False, f"{type(e).__name__}: {e}")
        return None


def granted(status: dict) -> set:
    data = status.get("data") or {}
    return {p["name"] for p in data.get("permissions", []) if p.get("granted")}


def check_session(name: str, got: dict | None, environment: str, trading: bool) -> None:
    if got is None:
        return
    data = got["status"].get("data") or {}
    check(
        f"{name}: server_status says {environment}, trade {'granted' if trading else 'not granted'}",
        data.get("environment") == environment and ("trade" in granted(got["status"])) == trading,
        json.dumps(got["status"])[:600],
    )
    accounts = (got["accounts"].get("data") or {}).get("accounts") or []
    check(
        f"{name}: list_accounts answers with the paper account",
        not got["accounts_error"] and len(accounts) >= 1 and bool(accounts[0].get("accountIdKey")),
        json.dumps(got["accounts"])[:600],
    )
    check(
        f"{name}: place_order {'listed' if trading else 'not listed'}",
        ("place_order" in got["listed"]) == trading,
        str(got["listed"]),
    )


# --- host-style substitution, as @anthropic-ai/mcpb src/shared/config.ts ---------------------


def substitute(value, variables: dict):
    if isinstance(value, str):
        def one(m):
            key = m.group(1)
            return str(variables[key]) if key in variables else m.group(0)
        return re.sub(r"\$\{([^}]+)\}", one, value)
    if isinstance(value, list):
        return [substitute(v, variables) for v in value]
    if isinstance(value, dict):
        return {k: substitute(v, variables) for k, v in value.items()}
    return value


def host_config(manifest: dict, bundle_dir: Path, user: dict | None = None) -> dict:
    """The command a host runs: defaults merged under the user's values, booleans as
    "true"/"false", ${__dirname} the unpacked folder."""
    values = {}
    for key, option in (manifest.get("user_config") or {}).items():
        if "default" in option:
            values[key] = option["default"]
    values.update(user or {})
    for key, option in (manifest.get("user_config") or {}).items():
        if option.get("required") and key not in values:
            raise ValueError(f"required user_config {key} has no value")
    variables = {
        "__dirname": str(bundle_dir),
        "HOME": os.environ.get("HOME", ""),
        "pathSeparator": os.sep,
        "/": os.sep,
    }
    for key, v in values.items():
        variables[f"user_config.{key}"] = ("true" if v else "false") if isinstance(v, bool) else v
    config = copy.deepcopy(manifest["server"]["mcp_config"])
    override = (config.pop("platform_overrides", None) or {}).get(sys.platform)
    config.update(override or {})
    return substitute(config, variables)


# --- the checks ------------------------------------------------------------------------------


def check_checksums(dist: Path) -> None:
    for side in sorted(dist.glob("*.sha256")):
        want, name = side.read_text().split()
        check(f"checksum {name}", sha256(dist / name) == want, f"{side} says {want}")
    listed = (dist / "sha256.sum").read_text().splitlines()
    bad = [line for line in listed if sha256(dist / line.split()[1]) != line.split()[0]]
    check("sha256.sum matches every file it lists", listed and not bad, str(bad or "empty"))


def check_tarball(dist: Path, version: str, work: Path) -> None:
    name = f"etrade-mcp-{version}-x86_64-unknown-linux-gnu"
    with tarfile.open(dist / f"{name}.tar.gz") as tar:
        members = {m.name: m for m in tar.getmembers()}
        want = {f"{name}/{f}" for f in ("etrade", "README.md", "LICENSE-MIT", "LICENSE-APACHE")}
        check("tar.gz holds etrade, README and the licences", want <= set(members), str(sorted(members)))
        exe = members.get(f"{name}/etrade")
        check("tar.gz: etrade is executable", exe is not None and exe.mode & 0o111 == 0o111, "")
        tar.extractall(work, filter="data")
    BINARIES["linux"]["tar.gz"] = sha256(work / name / "etrade")
    out = subprocess.run([work / name / "etrade", "--version"], capture_output=True, text=True)
    check("tar.gz: etrade --version", out.returncode == 0 and version in out.stdout, out.stdout + out.stderr)


def check_windows_zip(dist: Path, version: str) -> None:
    name = f"etrade-mcp-{version}-x86_64-pc-windows-gnu.zip"
    with zipfile.ZipFile(dist / name) as z:
        names = set(z.namelist())
        check("windows zip holds etrade.exe, README and the licences",
              {"etrade.exe", "README.md", "LICENSE-MIT", "LICENSE-APACHE"} <= names, str(names))
        exe = z.read("etrade.exe")
        check("windows zip: etrade.exe is a Windows executable", exe[:2] == b"MZ", "")
        BINARIES["windows"]["zip"] = hashlib.sha256(exe).hexdigest()


def unpack_bundle(dist: Path, file: str, work: Path) -> tuple[Path, dict] | None:
    out = work / file
    run = subprocess.run([MCPB, "unpack", dist / file, out], capture_output=True, text=True)
    if not check(f"{file}: mcpb unpack", run.returncode == 0, run.stdout + run.stderr):
        return None
    valid = subprocess.run([MCPB, "validate", out / "manifest.json"], capture_output=True, text=True)
    check(f"{file}: mcpb validate", valid.returncode == 0 and "valid" in valid.stdout.lower(),
          valid.stdout + valid.stderr)
    return out, json.loads((out / "manifest.json").read_text())


def check_linux_bundle(dist: Path, version: str, work: Path) -> None:
    file = f"etrade-mcp-{version}-linux-x64.mcpb"
    unpacked = unpack_bundle(dist, file, work)
    if unpacked is None:
        return
    folder, manifest = unpacked
    server = manifest["server"]
    check(f"{file}: binary server, version {version}, linux only",
          server["type"] == "binary" and manifest["version"] == version
          and manifest["compatibility"]["platforms"] == ["linux"], json.dumps(server))
    entry = folder / server["entry_point"]
    if entry.is_file():
        BINARIES["linux"]["mcpb"] = sha256(entry)
    check(f"{file}: the entry point is in the bundle and executable",
          entry.is_file() and os.access(entry, os.X_OK), str(entry))
    check(f"{file}: icon", (folder / manifest["icon"]).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n", "")
    defaults = {k: o.get("default") for k, o in manifest["user_config"].items()}
    check(f"{file}: user_config defaults: paper, trading off",
          defaults.get("environment") == "paper" and defaults.get("allow_trading") is False, str(defaults))
    all_tools = {t["name"] for t in manifest["tools"]}
    untraded = {t["name"] for t in manifest["tools"] if not t["description"].endswith(TRADING_NOTE)}

    with tempfile.TemporaryDirectory(prefix="etrade-bundle-home-") as home:
        config = host_config(manifest, folder)
        check(f"{file}: mcp_config substituted (no ${{...}} left)",
              "${" not in json.dumps(config), json.dumps(config))
        got = run_session(f"{file}: MCP session", config["command"], config.get("args", []),
                          server_env(home, config.get("env")))
        check_session(f"bundle (defaults)", got, "paper", trading=False)
        if got:
            check("bundle (defaults): lists the manifest's tools that need no trading",
                  set(got["listed"]) == untraded, f"{sorted(got['listed'])} vs {sorted(untraded)}")

    with tempfile.TemporaryDirectory(prefix="etrade-bundle-home-") as home:
        config = host_config(manifest, folder, {"allow_trading": True})
        got = run_session(f"{file}: MCP session, trading on", config["command"],
                          config.get("args", []), server_env(home, config.get("env")))
        check_session("bundle (trading on)", got, "paper", trading=True)
        if got:
            check("bundle (trading on): lists exactly the manifest's tools",
                  set(got["listed"]) == all_tools, f"{sorted(got['listed'])} vs {sorted(all_tools)}")


def check_windows_bundle(dist: Path, version: str, work: Path) -> None:
    file = f"etrade-mcp-{version}-win-x64.mcpb"
    unpacked = unpack_bundle(dist, file, work)
    if unpacked is None:
        return
    folder, manifest = unpacked
    server = manifest["server"]
    if (folder / server["entry_point"]).is_file():
        BINARIES["windows"]["mcpb"] = sha256(folder / server["entry_point"])
    check(f"{file}: win32 only, command is the bundled etrade.exe",
          manifest["compatibility"]["platforms"] == ["win32"]
          and server["mcp_config"]["command"] == "${__dirname}/server/etrade.exe"
          and (folder / server["entry_point"]).read_bytes()[:2] == b"MZ", json.dumps(server))


def check_wheel(dist: Path, version: str, work: Path) -> None:
    wheels = sorted(dist.glob(f"etrade_mcp-{version}-py3-none-*.whl"))
    if not check("one wheel for this version", len(wheels) == 1, str(wheels)):
        return
    env_dir = work / "venv"
    venv.create(env_dir, with_pip=True)
    py = env_dir / "bin" / "python"
    pip = subprocess.run([py, "-m", "pip", "install", "--quiet", "--no-index", "--no-deps", wheels[0]],
                         capture_output=True, text=True)
    if not check("wheel installs into a fresh venv", pip.returncode == 0, pip.stdout + pip.stderr):
        return
    etrade = env_dir / "bin" / "etrade"
    if etrade.is_file():
        BINARIES["linux"]["wheel"] = sha256(etrade)
    check("wheel: etrade is on the venv's PATH", etrade.is_file() and os.access(etrade, os.X_OK), str(etrade))
    with tempfile.TemporaryDirectory(prefix="etrade-wheel-home-") as home:
        got = run_session("wheel: etrade serve", str(etrade), ["serve"], server_env(home))
        check_session("wheel: etrade serve", got, "paper", trading=False)
    with tempfile.TemporaryDirectory(prefix="etrade-wheel-home-") as home:
        # `uvx etrade-mcp` / `pipx run etrade-mcp` run this with no arguments.
        got = run_session("wheel: etrade-mcp", str(env_dir / "bin" / "etrade-mcp"), [], server_env(home))
        check_session("wheel: etrade-mcp (no arguments: serve)", got, "paper", trading=False)


def check_server_json(dist: Path, version: str) -> None:
    doc = json.loads((dist / "server.json").read_text())
    schema = json.loads((ROOT / "packaging" / "registry" / "server.schema.json").read_text())
    validator = jsonschema.Draft7Validator(schema, format_checker=jsonschema.FormatChecker())
    errors = [f"{list(e.path)}: {e.message}" for e in validator.iter_errors(doc)]
    check("server.json validates against the vendored registry schema", not errors, "; ".join(errors))
    check("server.json $schema is the vendored schema's $id", doc.get("$schema") == schema.get("$id"),
          f"{doc.get('$schema')} vs {schema.get('$id')}")
    broken = dict(doc, description="x" * 101)
    check("the schema check can fail (a 101-character description is rejected)",
          any(True for _ in validator.iter_errors(broken)), "")
    check("server.json version is Cargo.toml's", doc["version"] == version, doc["version"])
    for p in doc["packages"]:
        if p["registryType"] == "mcpb":
            file = dist / p["identifier"].rsplit("/", 1)[1]
            check(f"server.json: {file.name} sha256", file.exists() and sha256(file) == p["fileSha256"], p["fileSha256"])
        else:
            check(f"server.json: {p['registryType']} {p['identifier']} {p.get('version')}",
                  p["registryType"] == "pypi" and p["identifier"] == "etrade-mcp" and p.get("version") == version, json.dumps(p))
    readme = (ROOT / "packaging" / "python" / "README.md").read_text()
    check("PyPI README names the registry server (mcp-name)",
          f"mcp-name: {doc['name']}" in readme, doc["name"])


def check_crate_versions(version: str) -> None:
    """The internal path dependencies carry a version for `cargo publish`; it must be the
    workspace's, or the published crates would ask for another release of each other."""
    wrong = []
    for manifest in ("Cargo.toml", "runtime/Cargo.toml", "codegen/Cargo.toml"):
        doc = tomllib.loads((ROOT / manifest).read_text())
        for table in ("dependencies", "build-dependencies"):
            for name, dep in (doc.get(table) or {}).items():
                if isinstance(dep, dict) and "path" in dep and dep.get("version") != version:
                    wrong.append(f"{manifest} {table}.{name} = {dep.get('version')}")
    check(f"path dependencies name version {version}", not wrong, "; ".join(wrong))


def main() -> int:
    p = argparse.ArgumentParser()
    p.add_argument("--dist", default=str(ROOT / "dist"))
    p.add_argument("--expect-windows", action="store_true",
                   help="fail unless the Windows zip and bundle are in dist/")
    args = p.parse_args()
    dist = Path(args.dist)
    version = tomllib.loads((ROOT / "Cargo.toml").read_text())["workspace"]["package"]["version"]
    v = version
    expected = [f"etrade-mcp-{v}-x86_64-unknown-linux-gnu.tar.gz", f"etrade-mcp-{v}-linux-x64.mcpb",
                "server.json", "sha256.sum"]
    if args.expect_windows:
        expected += [f"etrade-mcp-{v}-x86_64-pc-windows-gnu.zip", f"etrade-mcp-{v}-win-x64.mcpb"]
    missing = [f for f in expected if not (dist / f).exists()]
    if not check(f"{dist} holds every artifact", not missing, f"missing {missing} (bash packaging/build)"):
        return 1
    check("mcpb CLI installed (npm ci --prefix packaging)", MCPB.exists(), str(MCPB))
    with tempfile.TemporaryDirectory(prefix="etrade-artifacts-") as tmp:
        work = Path(tmp)
        check_checksums(dist)
        check_tarball(dist, v, work)
        check_linux_bundle(dist, v, work)
        check_wheel(dist, v, work)
        check_server_json(dist, v)
        check_crate_versions(v)
        if (dist / f"etrade-mcp-{v}-x86_64-pc-windows-gnu.zip").exists():
            check_windows_zip(dist, v)
        if (dist / f"etrade-mcp-{v}-win-x64.mcpb").exists():
            check_windows_bundle(dist, v, work)
        for platform, seen in BINARIES.items():
            if seen:
                check(f"one {platform} binary in every artifact ({', '.join(sorted(seen))})",
                      len(set(seen.values())) == 1 and len(seen) == (3 if platform == "linux" else 2),
                      json.dumps(seen))
    print(f"{'FAILED: ' + ', '.join(FAILED) if FAILED else 'all artifact checks passed'}")
    return 1 if FAILED else 0


if __name__ == "__main__":
    sys.exit(main())
