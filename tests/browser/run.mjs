// End-to-end test of the MCP Apps in headless Chromium, under the official host side
// (AppBridge + PostMessageTransport from @modelcontextprotocol/ext-apps) and the official
// MCP client (@modelcontextprotocol/sdk) connected to `etrade serve --transport http`.
//
//   node tests/browser/run.mjs MCP_URL OUT_DIR
//
// The server must run the paper broker with --allow-trading and approval = "required".
// Exits non-zero with a message on the first failure. Screenshots go to OUT_DIR.
import { createServer } from "node:http";
import { mkdirSync, readFileSync, statSync } from "node:fs";
import { dirname, extname, join, normalize, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { chromium } from "playwright-core";

const HERE = dirname(fileURLToPath(import.meta.url));
const MIME = "text/html;profile=mcp-app";
const OVERVIEW = "ui://etrade/overview.html";
const TICKET = "ui://etrade/order-ticket.html";
const CHROMIUM = process.env.CHROMIUM_PATH || "/usr/bin/chromium";

const [mcpUrl, outDirArg] = process.argv.slice(2);
if (!mcpUrl || !outDirArg) {
  console.error("usage: node tests/browser/run.mjs MCP_URL OUT_DIR");
  process.exit(2);
}
const outDir = resolve(outDirArg);
mkdirSync(outDir, { recursive: true });

let step = "start";
const t0 = Date.now();
function say(msg) {
  console.log(`[${((Date.now() - t0) / 1000).toFixed(1)}s] ${msg}`);
}
function begin(name) {
  step = name;
  say(`== ${name}`);
}
class Failure extends Error {}
function check(cond, msg) {
  if (!cond) throw new Failure(msg);
}
const show = (v) => JSON.stringify(v, null, 0).slice(0, 1500);

// ---------- the MCP client (the "model" and the host's server connection) ----------
const client = new Client(
  { name: "etrade-apps-browser-test", version: "1.0.0" },
  { capabilities: { extensions: { "io.modelcontextprotocol/ui": { mimeTypes: [MIME] } } } },
);

async function call(name, args) {
  const r = await client.callTool({ name, arguments: args });
  const env = r.structuredContent || {};
  return { raw: r, isError: !!r.isError, data: env.data, error: env.error, env };
}
async function ok(name, args) {
  const r = await call(name, args);
  check(!r.isError, `${name} failed: ${show(r.env.error || r.raw)}`);
  return r;
}

// ---------- static server for the host page and node_modules (same origin) ----------
const TYPES = { ".html": "text/html", ".js": "text/javascript", ".mjs": "text/javascript", ".json": "application/json", ".cjs": "text/javascript" };
function startStatic() {
  const srv = createServer((req, res) => {
    const path = decodeURIComponent(new URL(req.url, "http://127.0.0.1").pathname);
    let file;
    if (path === "/favicon.ico") {
      res.writeHead(204).end();
      return;
    }
    if (path === "/" || path === "/host.html") file = join(HERE, "host.html");
    else if (path === "/host.js") file = join(HERE, "host.js");
    else if (path.startsWith("/node_modules/")) file = normalize(join(HERE, path));
    if (!file || !file.startsWith(HERE + sep)) {
      res.writeHead(404).end();
      return;
    }
    try {
      if (!statSync(file).isFile()) throw new Error("not a file");
      res.writeHead(200, { "content-type": TYPES[extname(file)] || "application/octet-stream", "cache-control": "no-store" });
      res.end(readFileSync(file));
    } catch {
      res.writeHead(404).end();
    }
  });
  return new Promise((ok_) => srv.listen(0, "127.0.0.1", () => ok_(srv)));
}

// Text of the app, with grouping commas removed (figures are shown grouped).
async function appText(frame) {
  return (await frame.evaluate(() => document.body.innerText)).replace(/,/g, "");
}

let lastPage = null;
async function appFrame(page) {
  lastPage = page;
  const handle = await page.waitForSelector("iframe#app", { timeout: 15000 });
  const frame = await handle.contentFrame();
  check(frame, "the app iframe has no frame");
  return frame;
}

// A fresh paper book has cash only: buy a few positions first, approving each preview
// through the app-only tools as the ticket would (this client advertises the UI extension).
async function seed(key) {
  const have = (await ok("get_account_overview", { account_id_key: key })).data.accounts[0].positions;
  if (have.length > 0) return;
  begin("seed the paper book (market buys, approved via answer_order_ticket)");
  for (const [symbol, quantity] of [
    ["AAPL", "12"],
    ["MSFT", "5"],
    ["SPY", "3"],
  ]) {
    const request = { order_type: "EQ", symbol, order_action: "BUY", quantity, price_type: "MARKET" };
    const pv = await ok("preview_order", { account_id_key: key, request });
    const id = pv.data.preview_id;
    const ticket = (await ok("get_order_ticket", { preview_id: id })).data;
    await ok("answer_order_ticket", { preview_id: id, preview_hash: ticket.preview_hash, decision: "approve" });
    await ok("place_order", { account_id_key: key, preview_id: id });
    say(`bought ${quantity} ${symbol}`);
  }
}

async function main() {
  begin("connect the MCP client (advertising io.modelcontextprotocol/ui)");
  // The host's bearer token: over HTTP only a client holding it may approve on the ticket.
  const token = process.env.MCP_BEARER_TOKEN;
  const options = token ? { requestInit: { headers: { Authorization: `Bearer ${token}` } } } : undefined;
  await client.connect(new StreamableHTTPClientTransport(new URL(mcpUrl), options));
  say(`server: ${show(client.getServerVersion())}`);

  begin("tools/list: _meta.ui on the app tools");
  const { tools } = await client.listTools();
  const byName = Object.fromEntries(tools.map((t) => [t.name, t]));
  for (const [name, uri] of [
    ["get_account_overview", OVERVIEW],
    ["preview_order", TICKET],
  ]) {
    check(byName[name], `${name} is not listed`);
    const got = byName[name]._meta?.ui?.resourceUri;
    check(got === uri, `${name}: _meta.ui.resourceUri is ${show(got)}, not ${uri}`);
  }
  if (byName.preview_change_order) {
    check(byName.preview_change_order._meta?.ui?.resourceUri === TICKET, `preview_change_order: _meta.ui is ${show(byName.preview_change_order._meta)}`);
  }
  for (const name of ["get_order_ticket", "answer_order_ticket"]) {
    check(byName[name], `${name} is not listed to a client that renders apps`);
    const vis = byName[name]._meta?.ui?.visibility;
    check(Array.isArray(vis) && vis.length === 1 && vis[0] === "app", `${name}: _meta.ui.visibility is ${show(vis)}, not ["app"]`);
  }

  begin("resources/list and resources/read");
  const { resources } = await client.listResources();
  const html = {};
  for (const uri of [OVERVIEW, TICKET]) {
    const listed = resources.find((r) => r.uri === uri);
    check(listed, `${uri} is not in resources/list (${resources.map((r) => r.uri).join(", ")})`);
    check(listed.mimeType === MIME, `${uri}: listed mimeType ${listed.mimeType}`);
    const read = await client.readResource({ uri });
    const c = read.contents?.[0];
    check(c && c.uri === uri && c.mimeType === MIME && typeof c.text === "string", `${uri}: resources/read gave ${show(read)}`);
    const urls = c.text.match(/https?:\/\/[^\s"'<>)]*/g);
    check(!urls, `${uri} contains outside addresses: ${urls && urls.join(", ")}`);
    check(!/<(script|link|img)[^>]+(src|href)=/i.test(c.text), `${uri} loads a file (src/href)`);
    const bytes = Buffer.byteLength(c.text);
    check(bytes < 100 * 1024, `${uri} is ${bytes} bytes (over 100 KB)`);
    say(`${uri}: ${bytes} bytes`);
    html[uri] = c.text;
  }

  begin("list_accounts, get_account_overview (as the model)");
  const accounts = (await ok("list_accounts", {})).data.accounts;
  check(accounts.length > 0, "no accounts");
  const key = accounts[0].accountIdKey;
  await seed(key);
  const overviewArgs = { account_id_key: key };
  const overview = await ok("get_account_overview", overviewArgs);
  const acct = overview.data.accounts[0];
  say(`${acct.positions.length} positions, total value ${acct.totals.total_account_value}`);
  check(acct.positions.length > 0, "the paper account has no positions to show");

  begin("browser: host page with AppBridge");
  const srv = await startStatic();
  const origin = `http://127.0.0.1:${srv.address().port}`;
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
  });
  const appCalls = [];
  const outside = [];
  const consoleErrors = [];
  try {
    const context = await browser.newContext({ viewport: { width: 800, height: 900 }, deviceScaleFactor: 1 });
    const page = await context.newPage();
    page.on("request", (r) => {
      const u = r.url();
      if (!u.startsWith(origin + "/") && !u.startsWith("about:") && !u.startsWith("data:")) outside.push(u);
    });
    page.on("console", (m) => {
      if (m.type() === "error") consoleErrors.push(m.text());
    });
    page.on("pageerror", (e) => consoleErrors.push(String(e)));
    await page.exposeFunction("hostCallTool", async (params) => {
      appCalls.push(params.name);
      // The host forwards the app's call to the server as it is.
      return await client.callTool({ name: params.name, arguments: params.arguments || {} });
    });
    await page.goto(`${origin}/host.html`);
    await page.waitForFunction(() => window.host && window.host.ready, null, { timeout: 15000 });

    // ----- overview -----
    begin("overview: render the real result (light)");
    await page.evaluate((a) => window.host.mount(a), {
      html: html[OVERVIEW],
      tool: "get_account_overview",
      args: overviewArgs,
      result: overview.raw,
      theme: "light",
    });
    let frame = await appFrame(page);
    await frame.waitForSelector(".account", { timeout: 15000 });
    let text = await appText(frame);
    for (const p of acct.positions) {
      check(p.symbol === null || text.includes(p.symbol), `symbol ${p.symbol} is not in the app`);
    }
    for (const [k, v] of Object.entries(acct.totals)) {
      if (v !== null) check(text.includes(v), `totals.${k} ${v} is not in the app`);
    }
    for (const a of acct.allocation) check(text.includes(a.security_type), `allocation ${a.security_type} missing`);
    check(await frame.$("svg.donut"), "no allocation chart");
    const themeAttr = await frame.evaluate(() => document.documentElement.getAttribute("data-theme"));
    check(themeAttr === "light", `data-theme is ${themeAttr} under a light host`);
    const hostBg = await frame.evaluate(() => getComputedStyle(document.documentElement).getPropertyValue("--color-background-primary").trim());
    check(hostBg === "#ffffff", `the host's style variables are not applied (${hostBg})`);
    const lightBg = await frame.evaluate(() => getComputedStyle(document.body).backgroundColor);
    const lightFg = await frame.evaluate(() => getComputedStyle(document.body).color);

    begin("overview: sort by market value (keyboard)");
    await frame.focus('button.sort[data-key="market_value"]');
    await page.keyboard.press("Enter");
    const sortState = await frame.$eval('button.sort[data-key="market_value"]', (b) => b.closest("th").getAttribute("aria-sort"));
    check(sortState === "descending", `aria-sort after sorting is ${sortState}`);
    const focused = await frame.evaluate(() => document.activeElement && document.activeElement.getAttribute("data-key"));
    check(focused === "market_value", "focus is lost after sorting");
    await page.screenshot({ path: join(outDir, "overview-light.png"), fullPage: true });

    begin("overview: Refresh calls get_account_overview through the host");
    const before = appCalls.length;
    await frame.click("#refresh");
    await frame.waitForFunction(() => {
      const b = document.getElementById("refresh");
      return b && !b.disabled && b.textContent.includes("Refresh");
    }, null, { timeout: 20000 });
    check(appCalls.slice(before).join() === "get_account_overview", `Refresh made ${show(appCalls.slice(before))}`);
    text = await appText(frame);
    check(!text.includes("Refresh failed"), `refresh failed: ${text.slice(0, 400)}`);
    for (const p of acct.positions) check(p.symbol === null || text.includes(p.symbol), `after refresh, ${p.symbol} is missing`);

    begin("overview: host switches to dark");
    await page.evaluate(() => window.host.setTheme("dark"));
    await frame.waitForFunction(() => document.documentElement.getAttribute("data-theme") === "dark", null, { timeout: 5000 });
    const darkBg = await frame.evaluate(() => getComputedStyle(document.body).backgroundColor);
    const darkFg = await frame.evaluate(() => getComputedStyle(document.body).color);
    say(`body background ${lightBg} -> ${darkBg}, text ${lightFg} -> ${darkFg}`);
    check(darkBg !== lightBg && darkFg !== lightFg, "the colours did not change with the dark theme");
    const scheme = await frame.evaluate(() => getComputedStyle(document.documentElement).colorScheme);
    check(scheme === "dark", `color-scheme is ${scheme}`);
    await page.screenshot({ path: join(outDir, "overview-dark.png"), fullPage: true });

    begin("overview: readable at 320 px wide");
    await page.setViewportSize({ width: 320, height: 900 });
    await page.waitForTimeout(300);
    const frameWidth = await frame.evaluate(() => document.documentElement.clientWidth);
    const overflow = await frame.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    say(`at 320 px: the app is ${frameWidth} px wide, overflowing by ${overflow} px`);
    check(frameWidth <= 320, `the app is ${frameWidth} px wide in a 320 px host`);
    const wide = await frame.evaluate(() => {
      const w = document.documentElement.clientWidth;
      return [...document.querySelectorAll("body *")]
        .filter((e) => e.getBoundingClientRect().right > w + 1)
        .slice(0, 5)
        .map((e) => `${e.tagName.toLowerCase()}.${[...e.classList].join(".")} (right ${Math.round(e.getBoundingClientRect().right)})`);
    });
    check(overflow <= 1, `the overview overflows a 320 px host by ${overflow} px: ${wide.join(", ")}`);
    await page.setViewportSize({ width: 800, height: 900 });

    // ----- the order ticket -----
    begin("preview_order (as the model)");
    const eq = acct.positions.find((p) => p.security_type === "EQ" && p.symbol && p.last_price);
    const symbol = eq ? eq.symbol : "AAPL";
    // A limit at the last price, to two places (E*TRADE's tick for a stock over $1).
    const limit = eq ? eq.last_price.replace(/^(\d+)(\.\d{1,2})?.*$/, "$1$2").replace(/\.$/, "") || "1.00" : "100.00";
    const request = { order_type: "EQ", symbol, order_action: "BUY", quantity: "1", price_type: "LIMIT", limit_price: limit, order_term: "GOOD_FOR_DAY" };
    const preview = await ok("preview_order", { account_id_key: key, request });
    const previewId = preview.data.preview_id;
    check(typeof previewId === "string" && previewId, `no preview_id: ${show(preview.data)}`);
    say(`preview ${previewId}: BUY 1 ${symbol} LIMIT ${limit}`);

    begin("place_order before approval is refused");
    const early = await call("place_order", { account_id_key: key, preview_id: previewId });
    check(early.isError && early.error?.code === "execution_disabled", `place_order before approval: ${show(early.env)}`);
    const ordersBefore = (await ok("list_orders", { account_id_key: key })).data.orders?.length ?? 0;
    const journalBefore = (await ok("list_order_journal", { limit: 50 })).data.entries;

    begin("order ticket: render the preview, approve in the iframe");
    await page.evaluate((a) => window.host.mount(a), {
      html: html[TICKET],
      tool: "preview_order",
      args: { account_id_key: key, request },
      result: preview.raw,
      theme: "light",
    });
    frame = await appFrame(page);
    await frame.waitForSelector('#app[data-status="awaiting_approval"]', { timeout: 20000 });
    text = await frame.evaluate(() => document.body.innerText);
    check(text.includes(symbol), `the ticket does not show ${symbol}`);
    check(text.includes("BUY"), "the ticket does not show the action");
    check(/expires in \d+:\d\d/.test(text), `no countdown in the ticket: ${text.slice(0, 300)}`);
    check(appCalls.includes("get_order_ticket"), "the ticket did not call get_order_ticket");
    const countdown1 = await frame.$eval(".timer", (e) => e.textContent);
    await page.waitForTimeout(1200);
    const countdown2 = await frame.$eval(".timer", (e) => e.textContent);
    check(countdown1 !== countdown2, `the countdown is not live (${countdown1})`);
    const pinField = await frame.$("#pin");
    if (pinField) throw new Failure("the ticket asks for a PIN, but none is set");
    await frame.click("#approve");
    await frame.waitForSelector('#app[data-status="approved"]', { timeout: 20000 });
    text = await frame.evaluate(() => document.body.innerText);
    check(text.includes("Approved — ask the assistant to place it"), `no approval note: ${text.slice(0, 500)}`);
    check(!(await frame.$("#approve")), "the Approve button is still there after approval");
    check(appCalls.includes("answer_order_ticket"), "the app did not call answer_order_ticket");
    check(!appCalls.includes("place_order"), "the app called place_order");
    await page.screenshot({ path: join(outDir, "order-ticket.png"), fullPage: true });
    const hostLog = await page.evaluate(() => window.hostLog);
    const ctx = hostLog.filter((e) => e.event === "update-model-context");
    say(`app → host: ${show(appCalls)}; model context updates: ${ctx.length}`);

    begin("place_order after approval: once, then refused");
    const placed = await call("place_order", { account_id_key: key, preview_id: previewId });
    check(!placed.isError, `place_order after approval failed: ${show(placed.env)}`);
    const again = await call("place_order", { account_id_key: key, preview_id: previewId });
    check(again.isError, `a second place_order of the same preview succeeded: ${show(again.env)}`);
    say(`second place_order refused: ${again.error?.code}: ${again.error?.message}`);
    const ordersAfter = (await ok("list_orders", { account_id_key: key })).data.orders?.length ?? 0;
    check(ordersAfter === ordersBefore + 1, `list_orders: ${ordersBefore} orders before, ${ordersAfter} after`);
    const journalAfter = (await ok("list_order_journal", { limit: 50 })).data.entries;
    const known = new Set(journalBefore.map((e) => e.id));
    const fresh = journalAfter.filter((e) => !known.has(e.id) && e.preview_id === previewId && e.kind === "place_order" && e.outcome?.order_id != null);
    check(fresh.length === 1, `order journal: ${fresh.length} orders placed from the preview: ${show(journalAfter.filter((e) => !known.has(e.id)))}`);
    const approval = journalAfter.find((e) => e.preview_id === previewId && e.approval)?.approval;
    check(approval?.decision === "approved" && approval?.channel === "app", `journal: the preview's approval is ${show(approval)}`);

    begin("the ticket after placement, and teardown");
    await page.evaluate(() => window.host.unmount());
    const log2 = await page.evaluate(() => window.hostLog);
    check(log2.some((e) => e.event === "teardown-answered"), `the app did not answer ui/resource-teardown: ${show(log2.slice(-3))}`);

    check(outside.length === 0, `requests left the host's origin: ${outside.join(", ")}`);
    const real = consoleErrors.filter((e) => !/favicon/.test(e));
    check(real.length === 0, `errors in the page: ${real.join(" | ")}`);
  } catch (e) {
    // What the app showed when it failed, and a screenshot of it.
    if (lastPage) {
      const f = await lastPage.$("iframe#app").then((h) => h && h.contentFrame()).catch(() => null);
      const shown = f ? await f.evaluate(() => document.body.innerText).catch(() => "") : "";
      console.error(`the app showed:\n${shown.slice(0, 3000)}`);
      console.error(`host log: ${show(await lastPage.evaluate(() => window.hostLog).catch(() => null))}`);
      await lastPage.screenshot({ path: join(outDir, "failure.png"), fullPage: true }).catch(() => {});
    }
    throw e;
  } finally {
    await browser.close().catch(() => {});
    srv.close();
  }
  await client.close().catch(() => {});
}

main().then(
  () => {
    say(`PASS: MCP Apps in headless Chromium (screenshots in ${outDir})`);
    process.exit(0);
  },
  (e) => {
    console.error(`FAIL at "${step}": ${e instanceof Failure ? e.message : e.stack || e}`);
    client.close().catch(() => {});
    process.exit(1);
  },
);
