// The official TypeScript client 2.x against `etrade serve`, in the modes a host uses:
// `auto` (probes with server/discover, lands on 2026-07-28) and pinned to 2026-07-28,
// over stdio (spawning the server) and over streamable HTTP. Each run lists the tools,
// calls server_status and a paper read, and checks the envelope. Prints one line per run
// and exits non-zero on the first failure.
//
// Usage: node ts_client.mjs ETRADE_BINARY HTTP_URL
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";

const [binary, httpUrl] = process.argv.slice(2);
if (!binary || !httpUrl) {
  console.error("usage: node ts_client.mjs ETRADE_BINARY HTTP_URL");
  process.exit(2);
}

function fail(what) {
  console.error(`FAIL ${what}`);
  process.exit(1);
}

function envelope(result, tool) {
  const text = result.content?.[0]?.text;
  if (typeof text !== "string") fail(`${tool}: no text block`);
  const parsed = JSON.parse(text);
  if (JSON.stringify(parsed) !== JSON.stringify(result.structuredContent)) {
    fail(`${tool}: the text differs from structuredContent`);
  }
  if (result.isError) fail(`${tool}: ${text}`);
  return parsed;
}

async function exercise(label, transport, mode) {
  const client = new Client(
    { name: "ts-client-tests", version: "1.0.0" },
    { versionNegotiation: { mode } },
  );
  await client.connect(transport);
  const version = client.getNegotiatedProtocolVersion();
  if (version !== "2026-07-28") fail(`${label}: negotiated ${version}`);
  const { tools } = await client.listTools();
  const names = tools.map((t) => t.name);
  for (const want of ["server_status", "list_accounts", "preview_order"]) {
    if (!names.includes(want)) fail(`${label}: ${want} not listed`);
  }
  const status = envelope(await client.callTool({ name: "server_status", arguments: {} }), "server_status");
  if (status.data?.environment !== "paper") fail(`${label}: environment ${status.data?.environment}`);
  const accounts = envelope(await client.callTool({ name: "list_accounts", arguments: {} }), "list_accounts");
  if (!Array.isArray(accounts.data?.accounts) || accounts.data.accounts.length === 0) {
    fail(`${label}: no paper account`);
  }
  await client.close();
  console.log(`ok ${label}: ${version}, ${names.length} tools`);
}

const modes = [["auto", "auto"], ["pinned 2026-07-28", { pin: "2026-07-28" }]];
for (const [name, mode] of modes) {
  const stdio = new StdioClientTransport({ command: binary, args: ["serve"], env: process.env, stderr: "ignore" });
  await exercise(`stdio ${name}`, stdio, mode);
  await exercise(`http ${name}`, new StreamableHTTPClientTransport(new URL(httpUrl)), mode);
}
