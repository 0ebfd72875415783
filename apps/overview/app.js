// Account overview app: renders get_account_overview's result; Refresh calls it again
// through the host. Every figure is the server's exact decimal string, only grouped/signed.
(function () {
  "use strict";

  var App = window.McpApp;
  var h = App.h;
  var svg = App.svg;
  var num = App.num;
  var root = document.getElementById("app");

  var state = {
    args: null, // the tool call's arguments, from tool-input
    result: null, // the last CallToolResult
    loading: false,
    refreshError: null,
    sort: {}, // per account_id_key: {key, dir}
  };

  var COLUMNS = [
    { key: "symbol", label: "Symbol", text: true },
    { key: "quantity", label: "Qty" },
    { key: "last_price", label: "Last" },
    { key: "market_value", label: "Market value" },
    { key: "weight_pct", label: "Weight" },
    { key: "days_gain", label: "Day's gain" },
    { key: "total_gain", label: "Total gain" },
  ];

  function money(s) {
    return h("span", { class: "num" }, num.group(s));
  }

  function gain(s, pct) {
    var tone = num.tone(s);
    return h(
      "span",
      { class: "num " + (tone === "flat" ? "" : tone) },
      num.signed(s),
      pct !== undefined && pct !== null ? h("span", { class: "pct" }, " (" + num.signed(pct) + "%)") : null,
    );
  }

  function stat(label, value, extraClass) {
    return h("div", { class: "card stat " + (extraClass || "") }, h("div", { class: "label" }, label), h("div", { class: "value" }, value));
  }

  // ---- allocation chart (inline SVG donut) ----
  function allocationChart(allocation) {
    var items = allocation.map(function (a, i) {
      return { a: a, w: Math.max(0, num.approx(a.weight_pct)), color: "var(--chart-" + ((i % 7) + 1) + ")" };
    });
    var total = items.reduce(function (s, x) {
      return s + x.w;
    }, 0);
    var size = 132;
    var r = 52;
    var c = size / 2;
    var circumference = 2 * Math.PI * r;
    var chart = svg("svg", {
      viewBox: "0 0 " + size + " " + size,
      width: size,
      height: size,
      role: "img",
      "aria-label": "Allocation by security type",
      class: "donut",
    });
    chart.appendChild(svg("circle", { cx: c, cy: c, r: r, fill: "none", "stroke-width": 18, style: { stroke: "var(--bg-3)" } }));
    var offset = 0;
    if (total > 0) {
      items.forEach(function (x) {
        var len = (x.w / total) * circumference;
        if (len <= 0) return;
        var seg = svg("circle", {
          cx: c,
          cy: c,
          r: r,
          fill: "none",
          style: { stroke: x.color },
          "stroke-width": 18,
          "stroke-dasharray": len + " " + (circumference - len),
          "stroke-dashoffset": -offset,
          transform: "rotate(-90 " + c + " " + c + ")",
        });
        seg.appendChild(svg("title", {}, x.a.security_type + ": " + num.group(x.a.weight_pct) + "%"));
        chart.appendChild(seg);
        offset += len;
      });
    }
    var legend = h(
      "table",
      { class: "legend" },
      h("caption", { class: "sr-only" }, "Allocation by security type"),
      h(
        "thead",
        null,
        h("tr", null, h("th", { scope: "col" }, "Type"), h("th", { scope: "col", class: "r" }, "Market value"), h("th", { scope: "col", class: "r" }, "Weight")),
      ),
      h(
        "tbody",
        null,
        items.map(function (x) {
          return h(
            "tr",
            null,
            h("th", { scope: "row" }, svg("svg", { class: "swatch", width: 10, height: 10, viewBox: "0 0 10 10", "aria-hidden": "true" }, svg("rect", { width: 10, height: 10, rx: 2, style: { fill: x.color } })), x.a.security_type),
            h("td", { class: "r" }, money(x.a.market_value)),
            h("td", { class: "r" }, h("span", { class: "num" }, x.a.weight_pct === null ? "—" : num.group(x.a.weight_pct) + "%")),
          );
        }),
      ),
    );
    return h("section", { class: "card allocation", "aria-labelledby": "alloc-h" }, h("h2", { id: "alloc-h" }, "Allocation"), h("div", { class: "alloc-body" }, chart, legend));
  }

  // ---- positions table ----
  function sortedPositions(positions, sort) {
    var rows = positions.map(function (p, i) {
      return { p: p, i: i };
    });
    if (!sort || !sort.key) return rows;
    var col = COLUMNS.filter(function (c) {
      return c.key === sort.key;
    })[0];
    rows.sort(function (x, y) {
      var a = x.p[sort.key];
      var b = y.p[sort.key];
      var d;
      if (col && col.text) {
        d = String(a || "").localeCompare(String(b || ""));
      } else {
        d = num.compare(a, b);
        // nulls stay last in both directions
        if (!num.isDecimal(a) || !num.isDecimal(b)) return d || x.i - y.i;
      }
      if (sort.dir === "descending") d = -d;
      return d || x.i - y.i;
    });
    return rows;
  }

  function positionsTable(acct) {
    var id = acct.account.account_id_key;
    var sort = state.sort[id] || { key: null, dir: "none" };
    var maxWeight = acct.positions.reduce(function (m, p) {
      return Math.max(m, Math.abs(num.approx(p.weight_pct)));
    }, 0);
    var head = h(
      "tr",
      null,
      COLUMNS.map(function (col) {
        var active = sort.key === col.key;
        var ariaSort = active ? sort.dir : "none";
        var arrow = active ? (sort.dir === "ascending" ? "▲" : "▼") : "↕";
        return h(
          "th",
          { scope: "col", "aria-sort": ariaSort, class: col.text ? "" : "r" },
          h(
            "button",
            {
              type: "button",
              class: "sort",
              "data-key": col.key,
              onclick: function () {
                var next;
                if (!active) next = col.text ? "ascending" : "descending";
                else next = sort.dir === "ascending" ? "descending" : "ascending";
                state.sort[id] = { key: col.key, dir: next };
                render();
                var again = root.querySelector('[data-account="' + cssEscape(id) + '"] button.sort[data-key="' + col.key + '"]');
                if (again) again.focus();
              },
            },
            col.label,
            h("span", { class: "arrow", "aria-hidden": "true" }, arrow),
          ),
        );
      }),
    );
    var body = sortedPositions(acct.positions, sort).map(function (row) {
      var p = row.p;
      var isOption = p.security_type === "OPTN" || !!p.underlier;
      var w = Math.abs(num.approx(p.weight_pct));
      var width = maxWeight > 0 ? Math.min(100, (w / maxWeight) * 100) : 0;
      return h(
        "tr",
        { class: isOption ? "option" : "" },
        h(
          "th",
          { scope: "row", class: "sym" },
          h("span", { class: "symbol" }, p.symbol === null ? "—" : p.symbol),
          h(
            "span",
            { class: "sub muted" },
            isOption ? "Option" + (p.underlier ? " on " + p.underlier : "") : p.security_type || "",
          ),
        ),
        h("td", { class: "r" }, h("span", { class: "num" + (num.sign(p.quantity) < 0 ? " neg" : "") }, num.group(p.quantity))),
        h("td", { class: "r" }, money(p.last_price)),
        h("td", { class: "r" }, money(p.market_value)),
        h(
          "td",
          { class: "r weight" },
          h("span", { class: "num" }, p.weight_pct === null ? "—" : num.group(p.weight_pct) + "%"),
          h(
            "span",
            { class: "bar", "aria-hidden": "true" },
            h("span", { class: "fill" + (num.sign(p.weight_pct) < 0 ? " short" : ""), style: { width: width.toFixed(2) + "%" } }),
          ),
        ),
        h("td", { class: "r" }, gain(p.days_gain, p.days_gain_pct)),
        h("td", { class: "r" }, gain(p.total_gain, p.total_gain_pct)),
      );
    });
    return h(
      "section",
      { class: "positions", "aria-labelledby": "pos-h-" + id },
      h("h2", { id: "pos-h-" + id }, "Positions ", h("span", { class: "muted small" }, "(" + acct.positions.length + ")")),
      acct.positions.length === 0
        ? h("p", { class: "muted" }, "No positions.")
        : h(
            "div",
            { class: "table-wrap", tabindex: "0", role: "region", "aria-label": "Positions table" },
            h("table", { class: "grid" }, h("thead", null, head), h("tbody", null, body)),
          ),
    );
  }

  function cssEscape(s) {
    return window.CSS && CSS.escape ? CSS.escape(s) : String(s).replace(/["\\]/g, "\\$&");
  }

  function exposureTable(exposure) {
    if (!exposure || exposure.length === 0) return null;
    return h(
      "section",
      { class: "exposure", "aria-labelledby": "exp-h" },
      h("h2", { id: "exp-h" }, "Delta exposure by underlier"),
      h(
        "div",
        { class: "table-wrap" },
        h(
          "table",
          { class: "grid" },
          h(
            "thead",
            null,
            h(
              "tr",
              null,
              h("th", { scope: "col" }, "Underlier"),
              h("th", { scope: "col", class: "r" }, "Shares"),
              h("th", { scope: "col", class: "r" }, "Option Δ shares"),
              h("th", { scope: "col", class: "r" }, "Net Δ shares"),
            ),
          ),
          h(
            "tbody",
            null,
            exposure.map(function (e) {
              return h(
                "tr",
                null,
                h("th", { scope: "row" }, e.underlier),
                h("td", { class: "r" }, h("span", { class: "num" }, num.group(e.shares))),
                h("td", { class: "r" }, e.option_delta_shares === null ? h("span", { class: "muted", title: "A delta is missing" }, "n/a") : gain(e.option_delta_shares)),
                h("td", { class: "r" }, e.net_delta_shares === null ? h("span", { class: "muted", title: "A delta is missing" }, "n/a") : gain(e.net_delta_shares)),
              );
            }),
          ),
        ),
      ),
    );
  }

  function accountSection(acct) {
    var a = acct.account;
    var t = acct.totals;
    var title = a.name || a.account_id_key;
    var kind = [a.type, a.mode].filter(Boolean).join(" · ");
    return h(
      "article",
      { class: "account", "data-account": a.account_id_key },
      h("header", { class: "acct-head" }, h("h2", { class: "acct-name" }, title), kind ? h("span", { class: "badge" }, kind) : null),
      acct.complete
        ? h("p", { class: "muted small completeness" }, "Complete · " + acct.portfolio_pages + " portfolio page" + (acct.portfolio_pages === 1 ? "" : "s") + " read")
        : h(
            "div",
            { class: "banner warn completeness", role: "status" },
            h("strong", null, "Incomplete: "),
            acct.incomplete_reason || "not every page could be read",
            ". Sums cover only what was read.",
          ),
      h(
        "div",
        { class: "stats" },
        stat("Total value", money(t.total_account_value), "big"),
        stat("Cash", money(t.cash)),
        stat("Buying power", money(t.buying_power)),
        stat("Day's gain", gain(t.days_gain, t.days_gain_pct)),
        stat("Total gain", gain(t.total_gain, t.total_gain_pct)),
        stat("Market value", money(t.market_value)),
        stat("Total cost", money(t.total_cost)),
      ),
      acct.allocation && acct.allocation.length ? allocationChart(acct.allocation) : null,
      positionsTable(acct),
      exposureTable(acct.option_exposure),
    );
  }

  function refreshArgs() {
    if (state.args) return state.args;
    var env = state.result && App.envelope(state.result);
    var accts = env && env.data && env.data.accounts;
    if (accts && accts.length === 1) return { account_id_key: accts[0].account.account_id_key };
    return {};
  }

  function refresh() {
    if (state.loading) return;
    state.loading = true;
    state.refreshError = null;
    render();
    App.callTool("get_account_overview", refreshArgs())
      .then(function (result) {
        var env = App.envelope(result);
        if (env.ok) state.result = result;
        else state.refreshError = env.error ? env.error.message : "The refresh failed.";
      })
      .catch(function (e) {
        state.refreshError = e.message || String(e);
      })
      .then(function () {
        state.loading = false;
        render();
        var btn = document.getElementById("refresh");
        if (btn) btn.focus();
      });
  }

  function toolbar(meta) {
    var when = meta && meta.observed_at ? meta.observed_at : null;
    return h(
      "header",
      { class: "top" },
      h("div", null, h("h1", null, "Account overview"), h("p", { class: "muted small as-of" }, when ? "As of " + when + (meta.environment ? " · " + meta.environment : "") + " · USD" : "USD")),
      h(
        "button",
        { type: "button", id: "refresh", onclick: refresh, disabled: state.loading || !state.result, "aria-busy": state.loading ? "true" : null },
        h("span", { class: "icon", "aria-hidden": "true" }, "↻ "),
        state.loading ? "Refreshing…" : "Refresh",
      ),
    );
  }

  function render() {
    root.replaceChildren();
    if (!state.result) {
      root.append(h("p", { class: "muted" }, state.cancelled ? "The call was cancelled." : "Waiting for the account overview…"));
      return;
    }
    var env = App.envelope(state.result);
    root.append(toolbar(env.meta));
    if (state.refreshError) root.append(h("div", { class: "banner error", role: "alert" }, "Refresh failed: ", state.refreshError));
    if (!env.ok) {
      root.append(
        h(
          "div",
          { class: "banner error", role: "alert" },
          h("strong", null, env.error && env.error.code ? env.error.code + ": " : "Error: "),
          env.error ? env.error.message : "The tool failed.",
        ),
      );
      return;
    }
    var data = env.data || { accounts: [] };
    if (!data.accounts || data.accounts.length === 0) {
      root.append(h("p", { class: "muted" }, "No accounts."));
      return;
    }
    data.accounts.forEach(function (acct) {
      root.append(accountSection(acct));
    });
  }

  App.start(
    { name: "etrade-overview", version: "1.0.0" },
    {
      toolInput: function (args) {
        state.args = args || {};
      },
      toolResult: function (result) {
        state.result = result;
        state.cancelled = false;
        state.refreshError = null;
        render();
      },
      toolCancelled: function () {
        state.cancelled = true;
        render();
      },
      teardown: function () {},
    },
  ).catch(function (e) {
    root.replaceChildren(h("div", { class: "banner error", role: "alert" }, "Could not connect to the host: " + (e.message || e)));
  });
  render();
})();
