// Order ticket app: after preview_order / preview_change_order, fetches the ticket
// (get_order_ticket, app-only) through the host and, when a person must approve, offers
// Approve / Reject (answer_order_ticket, app-only). It never places an order: the assistant's
// place_order does, once approved.
(function () {
  "use strict";

  var App = window.McpApp;
  var h = App.h;
  var num = App.num;
  var root = document.getElementById("app");

  var state = {
    previewId: null,
    previewError: null,
    ticket: null,
    ticketError: null,
    loading: false,
    busy: false,
    feedback: null, // {kind: "ok"|"error"|"info", text}
    cancelled: false,
  };
  var timerEl = null;

  var STATUS = {
    awaiting_approval: { label: "Awaiting approval", tone: "warn" },
    approved: { label: "Approved", tone: "ok" },
    rejected: { label: "Rejected", tone: "bad" },
    placed: { label: "Placed", tone: "info" },
    expired: { label: "Expired", tone: "bad" },
    not_required: { label: "No approval needed", tone: "info" },
  };

  function words(s) {
    if (s === null || s === undefined || s === "") return "—";
    return String(s).replace(/_/g, " ");
  }

  function remainingMs(t) {
    var end = Date.parse(t.expires_at);
    return isFinite(end) ? end - Date.now() : NaN;
  }

  function countdownText(t) {
    var ms = remainingMs(t);
    if (!isFinite(ms)) return "expiry unknown";
    if (ms <= 0) return "expired";
    var s = Math.floor(ms / 1000);
    var hh = Math.floor(s / 3600);
    var mm = Math.floor((s % 3600) / 60);
    var ss = s % 60;
    var two = function (n) {
      return (n < 10 ? "0" : "") + n;
    };
    return "expires in " + (hh > 0 ? hh + ":" + two(mm) : mm) + ":" + two(ss);
  }

  function canAnswer(t) {
    return t.status === "awaiting_approval" && t.approval_required && t.app_approval && !(remainingMs(t) <= 0);
  }

  function legLine(leg) {
    var what;
    if (leg.security_type === "OPTN" || leg.call_put) {
      what = [leg.symbol, leg.expiration, leg.strike_price === null ? null : num.group(leg.strike_price), leg.call_put].filter(function (x) {
        return x !== null && x !== undefined && x !== "";
      }).join(" ");
    } else {
      what = leg.symbol;
    }
    return h(
      "li",
      { class: "leg" },
      h("span", { class: "action action-" + String(leg.order_action).toLowerCase() }, words(leg.order_action)),
      " ",
      h("span", { class: "num qty" }, num.group(leg.quantity)),
      " ",
      h("span", { class: "what" }, what),
      leg.security_type && leg.security_type !== "EQ" ? h("span", { class: "muted small" }, " (" + leg.security_type + ")") : null,
    );
  }

  function row(label, value) {
    if (value === null || value === undefined) return null;
    return [h("dt", null, label), h("dd", null, value)];
  }

  // A trailing stop's stop_price is its trail (E*TRADE's stopPrice): dollars for
  // TRAILING_STOP_CNST, percent for TRAILING_STOP_PRCT; never show it as a price.
  function stopRow(o) {
    if (o.price_type === "TRAILING_STOP_CNST") return row("Trail", price(o.stop_price));
    if (o.price_type === "TRAILING_STOP_PRCT") {
      return row("Trail", o.stop_price === null || o.stop_price === undefined ? "—" : String(o.stop_price) + "%");
    }
    return row("Stop price", price(o.stop_price));
  }

  function price(s) {
    return s === null || s === undefined ? null : h("span", { class: "num" }, num.group(s));
  }

  function accountText(acct) {
    if (!acct) return "—";
    var parts = [];
    if (acct.name) parts.push(acct.name);
    if (acct.last4) parts.push("…" + acct.last4);
    return parts.length ? parts.join(" ") : "—";
  }

  function approvalArea(t) {
    if (t.status !== "awaiting_approval" || !t.approval_required) return null;
    if (!t.app_approval) {
      return h(
        "section",
        { class: "approve-oob", "aria-labelledby": "oob-h" },
        h("h2", { id: "oob-h" }, "Approve outside the chat"),
        h("p", { class: "muted" }, "The operator accepts approval only from a terminal. Run:"),
        h("pre", { class: "command" }, h("code", null, t.approve_command)),
      );
    }
    var open = canAnswer(t);
    var pin = t.pin_required
      ? h(
          "div",
          { class: "pin" },
          h("label", { for: "pin" }, "Approval PIN"),
          h("input", { id: "pin", name: "pin", type: "password", autocomplete: "off", required: true, disabled: !open || state.busy }),
        )
      : null;
    function answer(decision) {
      var args = { preview_id: t.preview_id, preview_hash: t.preview_hash, decision: decision };
      if (decision === "approve" && t.pin_required) {
        var input = document.getElementById("pin");
        var v = input ? input.value : "";
        if (!v) {
          state.feedback = { kind: "error", text: "Enter the approval PIN." };
          render();
          var again = document.getElementById("pin");
          if (again) again.focus();
          return;
        }
        args.pin = v;
      }
      submit(args);
    }
    // Not a <form>: a sandboxed iframe without allow-forms never fires submit.
    if (pin) {
      pin.querySelector("input").addEventListener("keydown", function (e) {
        if (e.key === "Enter") {
          e.preventDefault();
          answer("approve");
        }
      });
    }
    return h(
      "div",
      { class: "approve", role: "group", "aria-labelledby": "approve-h" },
      h("h2", { id: "approve-h", class: "sr-only" }, "Approve or reject"),
      pin,
      h(
        "div",
        { class: "buttons" },
        h(
          "button",
          {
            type: "button",
            id: "approve",
            class: "primary",
            disabled: !open || state.busy,
            onclick: function () {
              answer("approve");
            },
          }, state.busy === "approve" ? "Approving…" : "Approve"),
        h(
          "button",
          {
            type: "button",
            id: "reject",
            class: "danger",
            disabled: !open || state.busy,
            onclick: function () {
              answer("reject");
            },
          },
          state.busy === "reject" ? "Rejecting…" : "Reject",
        ),
      ),
    );
  }

  function statusNote(t) {
    switch (t.status) {
      case "approved":
        return h("div", { class: "banner ok", role: "status" }, "Approved — ask the assistant to place it.");
      case "rejected":
        return h("div", { class: "banner error", role: "status" }, "Rejected: this preview will not be placed.");
      case "placed":
        return h("div", { class: "banner info", role: "status" }, "Placed.");
      case "expired":
        return h("div", { class: "banner error", role: "status" }, "This preview expired: ask the assistant for a new one.");
      case "not_required":
        return h("div", { class: "banner info", role: "status" }, "No approval is needed: the assistant can place it.");
      default:
        return null;
    }
  }

  function ticketView(t) {
    var st = STATUS[t.status] || { label: words(t.status), tone: "" };
    var o = t.order || {};
    timerEl = h("span", { class: "timer num", role: "timer", "aria-live": "off" }, countdownText(t));
    return h(
      "article",
      { class: "ticket" },
      h(
        "header",
        { class: "top" },
        h("h1", null, "Order ticket"),
        h("span", { class: "badge status " + st.tone, id: "status" }, st.label),
        t.status === "awaiting_approval" || t.status === "approved" ? timerEl : null,
      ),
      h("p", { class: "account" }, h("span", { class: "muted" }, "Account "), h("strong", null, accountText(t.account))),
      h("ul", { class: "legs", "aria-label": "Order legs" }, (o.legs || []).map(legLine)),
      h(
        "dl",
        { class: "details" },
        row("Order type", words(o.order_type)),
        row("Price type", words(o.price_type)),
        row("Limit price", price(o.limit_price)),
        stopRow(o),
        row("Term", words(o.order_term)),
        row("Session", words(o.market_session)),
        o.all_or_none ? row("All or none", "yes") : null,
        row("Estimated total", t.estimated_total === null ? "—" : price(t.estimated_total)),
        row("Commission", t.commission === null ? "—" : price(t.commission)),
      ),
      t.messages && t.messages.length
        ? h(
            "section",
            { class: "messages", "aria-labelledby": "msg-h" },
            h("h2", { id: "msg-h" }, "E*TRADE's messages"),
            h(
              "ul",
              null,
              t.messages.map(function (m) {
                return h("li", null, m);
              }),
            ),
          )
        : null,
      t.summary
        ? h("details", { class: "summary" }, h("summary", null, "As plain text"), h("pre", { class: "small" }, t.summary))
        : null,
      statusNote(t),
      approvalArea(t),
    );
  }

  function render() {
    root.replaceChildren();
    timerEl = null;
    var status = state.ticket ? state.ticket.status : state.previewError || state.ticketError ? "error" : "loading";
    root.setAttribute("data-status", status);
    if (state.previewError) {
      root.append(h("div", { class: "banner error", role: "alert" }, h("strong", null, "The preview failed: "), state.previewError));
      return;
    }
    if (state.ticket) root.append(ticketView(state.ticket));
    else if (state.ticketError) root.append(h("div", { class: "banner error", role: "alert" }, "Could not load the ticket: ", state.ticketError));
    else root.append(h("p", { class: "muted" }, state.cancelled ? "The preview was cancelled." : state.previewId ? "Loading the ticket…" : "Waiting for the preview…"));
    // A success is said by the ticket's own status once it is re-read.
    var said = state.feedback && state.feedback.kind !== "error" && state.ticket && state.ticket.status !== "awaiting_approval";
    if (state.feedback && !said) {
      root.append(
        h(
          "div",
          { class: "banner feedback " + state.feedback.kind, id: "feedback", role: state.feedback.kind === "error" ? "alert" : "status" },
          state.feedback.text,
        ),
      );
    }
  }

  function fetchTicket() {
    if (!state.previewId) return Promise.resolve();
    state.loading = true;
    return App.callTool("get_order_ticket", { preview_id: state.previewId })
      .then(function (result) {
        var env = App.envelope(result);
        if (env.ok && env.data) {
          state.ticket = env.data;
          state.ticketError = null;
        } else {
          state.ticketError = env.error ? env.error.message : "no ticket";
        }
      })
      .catch(function (e) {
        state.ticketError = e.message || String(e);
      })
      .then(function () {
        state.loading = false;
        render();
      });
  }

  function submit(args) {
    state.busy = args.decision;
    state.feedback = null;
    render();
    App.callTool("answer_order_ticket", args)
      .then(function (result) {
        var env = App.envelope(result);
        if (env.ok) {
          var approved = args.decision === "approve";
          state.feedback = approved
            ? { kind: "ok", text: "Approved — ask the assistant to place it." }
            : { kind: "info", text: "Rejected. The order will not be placed." };
          var note = approved
            ? "The user approved order preview " + args.preview_id + " in the order ticket. It may now be placed with place_order."
            : "The user rejected order preview " + args.preview_id + " in the order ticket. Do not place it.";
          App.updateModelContext(note).catch(function () {});
        } else {
          state.feedback = { kind: "error", text: env.error ? env.error.message : "The answer was refused." };
        }
      })
      .catch(function (e) {
        state.feedback = { kind: "error", text: e.message || String(e) };
      })
      .then(function () {
        state.busy = false;
        return fetchTicket();
      })
      .then(function () {
        var fb = document.getElementById("feedback") || root.querySelector(".ticket .banner");
        if (fb) {
          fb.setAttribute("tabindex", "-1");
          fb.focus();
        }
      });
  }

  setInterval(function () {
    var t = state.ticket;
    if (!t || !timerEl) return;
    var text = countdownText(t);
    if (timerEl.textContent !== text) timerEl.textContent = text;
    // At expiry, the buttons go.
    if (t.status === "awaiting_approval" && remainingMs(t) <= 0 && !state.expiredShown) {
      state.expiredShown = true;
      render();
    }
  }, 1000);

  App.start(
    { name: "etrade-order-ticket", version: "1.0.0" },
    {
      toolResult: function (result) {
        var env = App.envelope(result);
        state.ticket = null;
        state.feedback = null;
        state.cancelled = false;
        state.expiredShown = false;
        if (!env.ok) {
          state.previewError = (env.error && env.error.message) || "The preview failed.";
          state.previewId = null;
          render();
          return;
        }
        state.previewError = null;
        state.previewId = env.data && env.data.preview_id ? String(env.data.preview_id) : null;
        if (!state.previewId) state.previewError = "The preview has no preview_id.";
        render();
        fetchTicket();
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
