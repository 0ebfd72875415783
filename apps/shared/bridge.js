// MCP Apps guest side (extension io.modelcontextprotocol/ui, revision 2026-01-26), by hand:
// JSON-RPC 2.0 over window.parent.postMessage, after the reference `App` class of
// @modelcontextprotocol/ext-apps. No dependency, no network: the host proxies tools/call.
//
// window.McpApp.start({name, version}, handlers) -> Promise<initialize result>
//   handlers: toolInput(args), toolInputPartial(args), toolResult(callToolResult),
//             toolCancelled(reason), context(hostContext), teardown()
// McpApp.callTool(name, args) -> Promise<CallToolResult>  (rejects on a JSON-RPC error)
// McpApp.envelope(result) -> {ok, data, error, meta}  (isError is authoritative)
// McpApp.updateModelContext(text), McpApp.sendMessage(text): only when the host offers them.
// Also: McpApp.h (element builder, text only), McpApp.num (exact decimal display helpers).
(function () {
  "use strict";

  var PROTOCOL_VERSION = "2026-01-26";
  var nextId = 1;
  var pending = new Map();
  var handlers = {};
  var started = false;
  var state = { hostContext: {}, hostCapabilities: {}, hostInfo: null };

  function post(message) {
    window.parent.postMessage(message, "*");
  }

  function request(method, params, timeoutMs) {
    var id = nextId++;
    return new Promise(function (resolve, reject) {
      var timer = setTimeout(function () {
        pending.delete(id);
        reject(new Error(method + ": the host did not answer"));
      }, timeoutMs || 60000);
      pending.set(id, { resolve: resolve, reject: reject, timer: timer });
      post({ jsonrpc: "2.0", id: id, method: method, params: params || {} });
    });
  }

  function notify(method, params) {
    post({ jsonrpc: "2.0", method: method, params: params || {} });
  }

  function call(name, arg) {
    var f = handlers[name];
    if (typeof f !== "function") return undefined;
    try {
      return f(arg);
    } catch (e) {
      console.error("[mcp-app] " + name + " handler failed", e);
      return undefined;
    }
  }

  // Theme and the host's style variables, on <html>.
  function applyContext(ctx) {
    if (!ctx || typeof ctx !== "object") return;
    var root = document.documentElement;
    if (ctx.theme === "light" || ctx.theme === "dark") {
      root.setAttribute("data-theme", ctx.theme);
      root.style.colorScheme = ctx.theme;
    }
    var vars = ctx.styles && ctx.styles.variables;
    if (vars && typeof vars === "object") {
      Object.keys(vars).forEach(function (k) {
        var v = vars[k];
        if (/^--[a-z0-9-]+$/.test(k) && typeof v === "string") root.style.setProperty(k, v);
      });
    }
  }

  function mergeContext(update) {
    var merged = Object.assign({}, state.hostContext, update);
    if (update && update.styles) {
      var prev = state.hostContext.styles || {};
      merged.styles = Object.assign({}, prev, update.styles);
      if (update.styles.variables) {
        merged.styles.variables = Object.assign({}, prev.variables, update.styles.variables);
      }
    }
    state.hostContext = merged;
  }

  function onRequest(msg) {
    var reply = function (result) {
      post({ jsonrpc: "2.0", id: msg.id, result: result || {} });
    };
    switch (msg.method) {
      case "ping":
        reply({});
        return;
      case "ui/resource-teardown":
        Promise.resolve(call("teardown")).then(function () {
          reply({});
        });
        return;
      default:
        post({
          jsonrpc: "2.0",
          id: msg.id,
          error: { code: -32601, message: "Method not found: " + msg.method },
        });
    }
  }

  function onNotification(msg) {
    var p = msg.params || {};
    switch (msg.method) {
      case "ui/notifications/tool-input":
        call("toolInput", p.arguments || {});
        break;
      case "ui/notifications/tool-input-partial":
        call("toolInputPartial", p.arguments || {});
        break;
      case "ui/notifications/tool-result":
        call("toolResult", p);
        break;
      case "ui/notifications/tool-cancelled":
        call("toolCancelled", p.reason || "cancelled");
        break;
      case "ui/notifications/host-context-changed":
        mergeContext(p);
        applyContext(p);
        call("context", state.hostContext);
        break;
      default:
        break;
    }
  }

  window.addEventListener("message", function (event) {
    if (event.source !== window.parent) return;
    var msg = event.data;
    if (!msg || typeof msg !== "object" || msg.jsonrpc !== "2.0") return;
    if (msg.method === undefined && msg.id !== undefined) {
      var p = pending.get(msg.id);
      if (!p) return;
      pending.delete(msg.id);
      clearTimeout(p.timer);
      if (msg.error) {
        var err = new Error(msg.error.message || "JSON-RPC error " + msg.error.code);
        err.code = msg.error.code;
        p.reject(err);
      } else {
        p.resolve(msg.result);
      }
    } else if (typeof msg.method === "string" && msg.id !== undefined) {
      onRequest(msg);
    } else if (typeof msg.method === "string") {
      onNotification(msg);
    }
  });

  // ui/notifications/size-changed whenever the document's size changes.
  function watchSize() {
    var lastW = 0;
    var lastH = 0;
    var queued = false;
    function measure() {
      if (queued) return;
      queued = true;
      requestAnimationFrame(function () {
        queued = false;
        var root = document.documentElement;
        var saved = root.style.height;
        root.style.height = "max-content";
        var h = Math.ceil(root.getBoundingClientRect().height);
        root.style.height = saved;
        var w = Math.ceil(window.innerWidth);
        if (w !== lastW || h !== lastH) {
          lastW = w;
          lastH = h;
          notify("ui/notifications/size-changed", { width: w, height: h });
        }
      });
    }
    measure();
    if (typeof ResizeObserver === "function") {
      var ro = new ResizeObserver(measure);
      ro.observe(document.documentElement);
      ro.observe(document.body);
    }
  }

  // Before the host says, follow the system's preference.
  (function initialTheme() {
    var dark = window.matchMedia && window.matchMedia("(prefers-color-scheme: dark)").matches;
    var theme = dark ? "dark" : "light";
    document.documentElement.setAttribute("data-theme", theme);
    document.documentElement.style.colorScheme = theme;
  })();

  function start(appInfo, hs) {
    if (started) throw new Error("McpApp.start called twice");
    started = true;
    handlers = hs || {};
    return request("ui/initialize", {
      appInfo: appInfo,
      appCapabilities: { availableDisplayModes: ["inline"] },
      protocolVersion: PROTOCOL_VERSION,
    }).then(function (result) {
      result = result || {};
      state.hostCapabilities = result.hostCapabilities || {};
      state.hostInfo = result.hostInfo || null;
      state.hostContext = {};
      mergeContext(result.hostContext || {});
      applyContext(state.hostContext);
      call("context", state.hostContext);
      notify("ui/notifications/initialized", {});
      watchSize();
      return result;
    });
  }

  function callTool(name, args) {
    return request("tools/call", { name: name, arguments: args || {} }, 120000);
  }

  // The server's envelope {data, error, meta}; isError is authoritative.
  function envelope(result) {
    var r = result || {};
    var sc = r.structuredContent;
    if (!sc || typeof sc !== "object") {
      var text = (r.content || []).filter(function (c) {
        return c && c.type === "text";
      })[0];
      try {
        sc = text ? JSON.parse(text.text) : null;
      } catch (e) {
        sc = null;
      }
    }
    sc = sc || {};
    var error = sc.error || null;
    if (r.isError && !error) {
      var t = (r.content || []).filter(function (c) {
        return c && c.type === "text";
      })[0];
      error = { code: "error", message: t ? t.text : "The tool failed." };
    }
    return {
      ok: !r.isError && !error,
      data: r.isError ? null : sc.data === undefined ? null : sc.data,
      error: error,
      meta: sc.meta || null,
    };
  }

  function textOnly(content) {
    return [{ type: "text", text: content }];
  }

  function updateModelContext(text) {
    if (!state.hostCapabilities.updateModelContext) return Promise.resolve(false);
    return request("ui/update-model-context", { content: textOnly(text) }).then(function () {
      return true;
    });
  }

  function sendMessage(text) {
    if (!state.hostCapabilities.message) return Promise.resolve(false);
    return request("ui/message", { role: "user", content: textOnly(text) }).then(function (r) {
      return !(r && r.isError);
    });
  }

  // Element builder: attributes, and children as nodes or text (never HTML).
  function h(tag, attrs) {
    var el = document.createElement(tag);
    if (attrs) {
      Object.keys(attrs).forEach(function (k) {
        var v = attrs[k];
        if (v === undefined || v === null || v === false) return;
        if (k === "class") el.className = v;
        else if (k.slice(0, 2) === "on" && typeof v === "function") {
          el.addEventListener(k.slice(2), v);
        } else if (k === "text") el.textContent = v;
        else el.setAttribute(k, v === true ? "" : String(v));
      });
    }
    for (var i = 2; i < arguments.length; i++) append(el, arguments[i]);
    return el;
  }

  function append(el, child) {
    if (child === undefined || child === null || child === false) return;
    if (Array.isArray(child)) {
      child.forEach(function (c) {
        append(el, c);
      });
    } else if (child instanceof Node) {
      el.appendChild(child);
    } else {
      el.appendChild(document.createTextNode(String(child)));
    }
  }

  // The SVG namespace, as the HTML parser gives it (no address written in the app).
  var SVG_NS = (function () {
    var d = document.createElement("div");
    d.innerHTML = "<svg></svg>";
    return d.firstChild.namespaceURI;
  })();
  function svg(tag, attrs) {
    var el = document.createElementNS(SVG_NS, tag);
    Object.keys(attrs || {}).forEach(function (k) {
      var v = attrs[k];
      if (k === "style" && typeof v === "object") {
        Object.keys(v).forEach(function (p) {
          el.style.setProperty(p, v[p]);
        });
      } else el.setAttribute(k, String(v));
    });
    for (var i = 2; i < arguments.length; i++) {
      if (arguments[i] instanceof Node) el.appendChild(arguments[i]);
      else if (arguments[i] != null) el.appendChild(document.createTextNode(String(arguments[i])));
    }
    return el;
  }

  // Exact decimal strings: shown as given, only grouped and signed, by string manipulation.
  var DECIMAL = /^-?[0-9]+(\.[0-9]+)?$/;
  var num = {
    isDecimal: function (s) {
      return typeof s === "string" && DECIMAL.test(s);
    },
    // -1, 0 or 1, from the digits.
    sign: function (s) {
      if (!num.isDecimal(s)) return 0;
      if (/^-?[0.]+$/.test(s)) return 0;
      return s.charAt(0) === "-" ? -1 : 1;
    },
    // "1234567.5" -> "1,234,567.5"; "-1234" -> "-1,234"; null -> "—".
    group: function (s) {
      if (s === null || s === undefined) return "—";
      if (!num.isDecimal(s)) return String(s);
      var neg = s.charAt(0) === "-";
      var body = neg ? s.slice(1) : s;
      var dot = body.indexOf(".");
      var ip = dot < 0 ? body : body.slice(0, dot);
      var fp = dot < 0 ? "" : body.slice(dot);
      var out = "";
      while (ip.length > 3) {
        out = "," + ip.slice(-3) + out;
        ip = ip.slice(0, -3);
      }
      return (neg ? "-" : "") + ip + out + fp;
    },
    // With an explicit "+" for a positive figure.
    signed: function (s) {
      var g = num.group(s);
      return num.sign(s) > 0 ? "+" + g : g;
    },
    // For drawing only (bar widths, chart arcs): never displayed.
    approx: function (s) {
      var f = num.isDecimal(s) ? parseFloat(s) : NaN;
      return isFinite(f) ? f : 0;
    },
    // Order of two decimal strings (nulls last), for sorting.
    compare: function (a, b) {
      var na = num.isDecimal(a);
      var nb = num.isDecimal(b);
      if (!na || !nb) return na === nb ? 0 : na ? -1 : 1;
      var fa = parseFloat(a);
      var fb = parseFloat(b);
      return fa < fb ? -1 : fa > fb ? 1 : 0;
    },
    tone: function (s) {
      var k = num.sign(s);
      return k > 0 ? "pos" : k < 0 ? "neg" : "flat";
    },
  };

  window.McpApp = {
    PROTOCOL_VERSION: PROTOCOL_VERSION,
    start: start,
    callTool: callTool,
    envelope: envelope,
    updateModelContext: updateModelContext,
    sendMessage: sendMessage,
    hostCapabilities: function () {
      return state.hostCapabilities;
    },
    hostContext: function () {
      return state.hostContext;
    },
    h: h,
    svg: svg,
    num: num,
  };
})();
