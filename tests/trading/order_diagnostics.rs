//! Property tests of the order-entry diagnostics end to end (schema rules, then the domain
//! rules the handler applies before any broker request), against an oracle written here
//! from the rules: price rules, expiration dates and spread strikes.

use etrade_mcp::generated::{self, TOOLS};
use etrade_mcp::handlers::order_ticket::ticket;
use proptest::prelude::*;
use runtime::contract::validation::{ClientReason, validate};
use runtime::trading::validate::check_ticket;
use serde_json::{Map, Value, json};

const TODAY: jiff::civil::Date = jiff::civil::date(2026, 12, 1);

/// (path, code) of every problem: schema first; the domain only when the schema passed.
fn diagnose(args: Value) -> Vec<(Value, String)> {
    let tool = TOOLS
        .iter()
        .find(|t| t.name == "preview_order")
        .expect("tool");
    let map: Map<String, Value> = args.as_object().cloned().unwrap_or_default();
    match validate(tool.input_table, map) {
        Err(errs) => errs
            .iter()
            .map(|e| {
                let v = serde_json::to_value(e).unwrap_or_default();
                (
                    v["path"].clone(),
                    v["code"].as_str().unwrap_or("").to_string(),
                )
            })
            .collect(),
        Ok(valid) => {
            let input: generated::PreviewOrderInput =
                serde_json::from_value(Value::Object(valid)).expect("validated input decodes");
            let t = match ticket(&input.request) {
                Ok(t) => t,
                Err(e) => return vec![(json!(["request"]), e.code.as_str().to_string())],
            };
            check_ticket(&t, TODAY)
                .into_iter()
                .map(|p| {
                    let code = match p.reason {
                        ClientReason::Rule { code, .. } => code.to_string(),
                        other => format!("{other:?}"),
                    };
                    (serde_json::to_value(&p.path).unwrap_or_default(), code)
                })
                .collect()
        }
    }
}

fn codes_at(d: &[(Value, String)], path: Value) -> Vec<String> {
    d.iter()
        .filter(|(p, _)| *p == path)
        .map(|(_, c)| c.clone())
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(600))]

    /// Price rules for EQ orders: which price fields each price type needs or refuses, MARKET
    /// is GOOD_FOR_DAY, IOC/FOK need a limit price, EXTENDED takes LIMIT GOOD_FOR_DAY only.
    #[test]
    fn equity_price_rules(
        pt in prop::sample::select(vec!["MARKET", "LIMIT", "STOP", "STOP_LIMIT"]),
        limit in any::<bool>(), stop in any::<bool>(),
        term in prop::option::of(prop::sample::select(vec!["GOOD_FOR_DAY", "GOOD_UNTIL_CANCEL", "IMMEDIATE_OR_CANCEL", "FILL_OR_KILL"])),
        session in prop::option::of(prop::sample::select(vec!["REGULAR", "EXTENDED"])),
        alias in any::<bool>(),
    ) {
        let mut r = json!({"order_type": "EQ", "symbol": "AAPL", "order_action": "BUY", "quantity": "10"});
        r[if alias { "priceType" } else { "price_type" }] = json!(pt);
        if limit { r[if alias { "limitPrice" } else { "limit_price" }] = json!("170.00"); }
        if stop { r["stop_price"] = json!("160.00"); }
        if let Some(t) = term { r["order_term"] = json!(t); }
        if let Some(s) = session { r["market_session"] = json!(s); }
        let d = diagnose(json!({"account_id_key": "K1", "request": r}));

        let needs_limit = matches!(pt, "LIMIT" | "STOP_LIMIT");
        let needs_stop = matches!(pt, "STOP" | "STOP_LIMIT");
        let schema_bad = (needs_limit && !limit) || (needs_stop && !stop)
            || (!needs_limit && limit) || (!needs_stop && stop);
        let at_request = codes_at(&d, json!(["request"]));
        if schema_bad {
            prop_assert!(!at_request.is_empty(), "{:?}", d);
            prop_assert!(at_request.iter().all(|c| c.starts_with("conditional_")), "{:?}", d);
            prop_assert!(d.iter().all(|(p, _)| *p == json!(["request"])), "{:?}", d);
        } else {
            let term = term.unwrap_or("GOOD_FOR_DAY");
            let session = session.unwrap_or("REGULAR");
            let mut expected = Vec::new();
            if pt == "MARKET" && term != "GOOD_FOR_DAY" { expected.push("market_term"); }
            if matches!(term, "IMMEDIATE_OR_CANCEL" | "FILL_OR_KILL") && pt != "LIMIT" { expected.push("term_needs_limit"); }
            if session == "EXTENDED" && (pt != "LIMIT" || term != "GOOD_FOR_DAY") { expected.push("extended_session"); }
            prop_assert_eq!(at_request, expected, "{:?}", d);
        }
    }

    /// Option expirations: a real calendar date (schema), not past and not a weekend
    /// (domain), reported at `request.expiration`.
    #[test]
    fn option_expirations(y in 2019i16..2031, m in 1i8..13, day in 1i8..32) {
        let text = format!("{y:04}-{m:02}-{day:02}");
        let r = json!({"order_type": "OPTN", "symbol": "AAPL", "order_action": "BUY_OPEN",
            "quantity": "1", "price_type": "LIMIT", "limit_price": "2.50", "call_put": "CALL",
            "expiration": text, "strike_price": "180"});
        let d = diagnose(json!({"account_id_key": "K1", "request": r}));
        let at = codes_at(&d, json!(["request", "expiration"]));
        match jiff::civil::Date::new(y, m, day) {
            Err(_) => prop_assert_eq!(at.len(), 1, "an impossible date is refused: {:?}", d),
            Ok(date) => {
                let weekend = matches!(date.weekday(), jiff::civil::Weekday::Saturday | jiff::civil::Weekday::Sunday);
                let expected: Vec<String> = if date < TODAY { vec!["expired".into()] }
                    else if weekend { vec!["not_an_expiration".into()] } else { vec![] };
                prop_assert_eq!(at, expected);
                prop_assert_eq!(d.len(), codes_at(&d, json!(["request", "expiration"])).len());
            }
        }
    }

    /// Vertical spreads and condors through the whole path: strike relationships decide.
    #[test]
    fn condor_strikes(s in prop::collection::vec(1i64..400, 4), buy_outer in any::<bool>()) {
        let (outer, inner) = if buy_outer { ("BUY_OPEN", "SELL_OPEN") } else { ("SELL_OPEN", "BUY_OPEN") };
        let mut sorted = s.clone();
        sorted.sort();
        let leg = |strike: i64, action: &str| json!({"symbol": "AAPL", "security_type": "OPTN",
            "call_put": "PUT", "expiration": "2026-12-18", "strike_price": strike.to_string(),
            "order_action": action, "quantity": "1"});
        let legs: Vec<Value> = sorted.iter().enumerate()
            .map(|(i, k)| leg(*k, if i == 0 || i == 3 { outer } else { inner })).collect();
        let d = diagnose(json!({"account_id_key": "K1", "request": {"order_type": "CONDOR",
            "price_type": "NET_DEBIT", "limit_price": "1.00", "legs": legs}}));
        let distinct = sorted.windows(2).all(|w| w[0] < w[1]);
        let even_wings = sorted[1] - sorted[0] == sorted[3] - sorted[2];
        let strikes_bad = codes_at(&d, json!(["request", "legs"])).contains(&"strike_relationship".to_string());
        prop_assert_eq!(strikes_bad, !(distinct && even_wings), "{:?} {:?}", sorted, d);
        prop_assert_eq!(d.is_empty(), distinct && even_wings, "{:?}", d);
    }
}

fn eq(price_type: &str, extra: Value) -> Vec<(Value, String)> {
    let mut r = json!({"order_type": "EQ", "symbol": "AAPL", "order_action": "SELL",
        "quantity": "10", "price_type": price_type});
    if let (Some(r), Some(extra)) = (r.as_object_mut(), extra.as_object()) {
        r.extend(extra.clone());
    }
    diagnose(json!({"account_id_key": "K1", "request": r}))
}

/// Trailing stops: the trail is trail_amount (TRAILING_STOP_CNST) or trail_percent
/// (TRAILING_STOP_PRCT), required, positive, a percent below 100, and nothing else prices them.
#[test]
fn trailing_stop_rules() {
    let ok_cnst = eq("TRAILING_STOP_CNST", json!({"trail_amount": "2.50"}));
    assert!(ok_cnst.is_empty(), "{ok_cnst:?}");
    let ok_prct = eq(
        "TRAILING_STOP_PRCT",
        json!({"trail_percent": "5", "order_term": "GOOD_UNTIL_CANCEL"}),
    );
    assert!(ok_prct.is_empty(), "{ok_prct:?}");
    let missing = eq("TRAILING_STOP_CNST", json!({}));
    assert_eq!(
        codes_at(&missing, json!(["request"])),
        ["conditional_required"]
    );
    let wrong_kind = eq("TRAILING_STOP_CNST", json!({"trail_percent": "5"}));
    assert!(
        codes_at(&wrong_kind, json!(["request"])).contains(&"conditional_required".to_string())
    );
    assert!(
        codes_at(&wrong_kind, json!(["request"])).contains(&"conditional_forbidden".to_string())
    );
    let with_stop = eq(
        "TRAILING_STOP_PRCT",
        json!({"trail_percent": "5", "stop_price": "150"}),
    );
    assert_eq!(
        codes_at(&with_stop, json!(["request"])),
        ["conditional_forbidden"]
    );
    let zero = eq("TRAILING_STOP_CNST", json!({"trail_amount": "0"}));
    assert_eq!(
        codes_at(&zero, json!(["request", "trail_amount"])),
        ["greater_than"]
    );
    let negative = eq("TRAILING_STOP_PRCT", json!({"trail_percent": "-3"}));
    assert_eq!(
        codes_at(&negative, json!(["request", "trail_percent"])),
        ["greater_than"]
    );
    let whole = eq("TRAILING_STOP_PRCT", json!({"trail_percent": "100"}));
    assert_eq!(
        whole,
        [(
            json!(["request", "trail_percent"]),
            "trail_percent_range".to_string()
        )]
    );
    let cents = eq("TRAILING_STOP_CNST", json!({"trail_amount": "0.125"}));
    assert_eq!(
        cents,
        [(
            json!(["request", "trail_amount"]),
            "trail_increment".to_string()
        )]
    );
    let ioc = eq(
        "TRAILING_STOP_CNST",
        json!({"trail_amount": "1", "order_term": "IMMEDIATE_OR_CANCEL"}),
    );
    assert_eq!(codes_at(&ioc, json!(["request"])), ["term_needs_limit"]);
    let on_limit = eq("LIMIT", json!({"limit_price": "170", "trail_amount": "1"}));
    assert_eq!(
        codes_at(&on_limit, json!(["request"])),
        ["conditional_forbidden"]
    );
}

/// On-open and on-close orders: LIMIT_ON_* need limit_price, MARKET_ON_* take none, all are
/// GOOD_FOR_DAY stock orders.
#[test]
fn auction_order_rules() {
    for pt in ["MARKET_ON_OPEN", "MARKET_ON_CLOSE"] {
        assert!(eq(pt, json!({})).is_empty());
        let priced = eq(pt, json!({"limit_price": "170"}));
        assert_eq!(
            codes_at(&priced, json!(["request"])),
            ["conditional_forbidden"],
            "{pt}"
        );
    }
    for pt in ["LIMIT_ON_OPEN", "LIMIT_ON_CLOSE"] {
        assert!(eq(pt, json!({"limit_price": "170"})).is_empty());
        let unpriced = eq(pt, json!({}));
        assert_eq!(
            codes_at(&unpriced, json!(["request"])),
            ["conditional_required"],
            "{pt}"
        );
        let stop = eq(pt, json!({"limit_price": "170", "stop_price": "160"}));
        assert_eq!(
            codes_at(&stop, json!(["request"])),
            ["conditional_forbidden"],
            "{pt}"
        );
    }
    let gtc = eq(
        "MARKET_ON_CLOSE",
        json!({"order_term": "GOOD_UNTIL_CANCEL"}),
    );
    assert_eq!(
        gtc,
        [(json!(["request", "order_term"]), "auction_term".to_string())]
    );
    let option = diagnose(
        json!({"account_id_key": "K1", "request": {"order_type": "OPTN",
        "symbol": "AAPL", "order_action": "BUY_OPEN", "quantity": "1", "price_type": "LIMIT_ON_CLOSE",
        "limit_price": "2.50", "call_put": "CALL", "expiration": "2099-01-16", "strike_price": "180"}}),
    );
    assert_eq!(
        option,
        [(
            json!(["request", "price_type"]),
            "auction_equity_only".to_string()
        )]
    );
}
