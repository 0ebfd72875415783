// Test host page: renders an MCP App in a sandboxed iframe under the official AppBridge and
// proxies its tools/call to the node runner's MCP client (window.hostCallTool, exposed by
// playwright). The runner drives it through window.host.
import { AppBridge, PostMessageTransport } from "@modelcontextprotocol/ext-apps/app-bridge";

const VARS = {
  light: {
    "--color-background-primary": "#ffffff",
    "--color-background-secondary": "#f6f7f9",
    "--color-text-primary": "#16181c",
    "--color-text-secondary": "#4a5260",
    "--color-border-primary": "#d3d8df",
    "--font-sans": "system-ui, sans-serif",
  },
  dark: {
    "--color-background-primary": "#17191d",
    "--color-background-secondary": "#20242a",
    "--color-text-primary": "#eceef1",
    "--color-text-secondary": "#b0b7c2",
    "--color-border-primary": "#3b414b",
    "--font-sans": "system-ui, sans-serif",
  },
};

const log = (window.hostLog = []);
let current = null;

function context(theme) {
  return {
    theme,
    styles: { variables: VARS[theme] },
    displayMode: "inline",
    availableDisplayModes: ["inline"],
    platform: "web",
    locale: "en-US",
    containerDimensions: { width: 760, maxHeight: 4000 },
  };
}

async function unmount() {
  if (!current) return;
  const { bridge, iframe } = current;
  current = null;
  try {
    await bridge.teardownResource({});
    log.push({ event: "teardown-answered" });
  } catch (e) {
    log.push({ event: "teardown-failed", message: String(e) });
  }
  await bridge.close().catch(() => {});
  iframe.remove();
}

/** Render `html` as the app of a call of `tool` with `args`, then send `result`. */
async function mount({ html, tool, args, result, theme }) {
  await unmount();
  document.body.classList.toggle("dark", theme === "dark");
  const iframe = document.createElement("iframe");
  iframe.id = "app";
  iframe.setAttribute("sandbox", "allow-scripts");
  iframe.setAttribute("title", tool);
  document.getElementById("frame-box").appendChild(iframe);

  const bridge = new AppBridge(
    null,
    { name: "etrade-apps-test-host", version: "1.0.0" },
    { serverTools: {}, updateModelContext: { text: {} }, logging: {} },
    { hostContext: { ...context(theme), toolInfo: { tool: { name: tool, inputSchema: { type: "object" } } } } },
  );
  bridge.oncalltool = async (params) => {
    log.push({ event: "tools/call", name: params.name, arguments: params.arguments });
    return await window.hostCallTool(params);
  };
  bridge.onupdatemodelcontext = async (params) => {
    log.push({ event: "update-model-context", params });
    return {};
  };
  bridge.onmessage = async (params) => {
    log.push({ event: "message", params });
    return {};
  };
  bridge.onsizechange = ({ height }) => {
    if (height) iframe.style.height = `${Math.min(height, 4000)}px`;
  };
  bridge.onloggingmessage = (params) => log.push({ event: "log", params });
  const initialized = new Promise((resolve) => {
    bridge.oninitialized = () => {
      log.push({ event: "initialized", app: bridge.getAppVersion?.() });
      resolve();
    };
  });
  const transport = new PostMessageTransport(iframe.contentWindow, iframe.contentWindow);
  await bridge.connect(transport);
  iframe.srcdoc = html;
  await initialized;
  await bridge.sendToolInput({ arguments: args });
  await bridge.sendToolResult(result);
  current = { bridge, iframe, theme };
  return true;
}

function setTheme(theme) {
  if (!current) throw new Error("no app");
  document.body.classList.toggle("dark", theme === "dark");
  current.bridge.setHostContext(context(theme));
  current.theme = theme;
  return true;
}

window.host = { mount, unmount, setTheme, ready: true };
