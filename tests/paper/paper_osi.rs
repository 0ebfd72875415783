//! Options named by OSI symbol in paper: a contract from a chain, previewed by its osiKey
//! alone, is the contract previewed by its fields; quotes and chains take the same symbol.

use crate::common;

use common::paper::Paper;
use serde_json::{Value, json};

#[tokio::test]
async fn an_osi_symbol_names_the_same_contract_as_its_fields_in_paper() {
    let p = Paper::start(&["--allow-trading"]).await;
    let accounts = p.ok("list_accounts", json!({})).await;
    let key = accounts["accounts"][0]["accountIdKey"]
        .as_str()
        .expect("key")
        .to_string();
    let chain = p
        .ok(
            "get_option_chains",
            json!({"symbol": "AAPL", "no_of_strikes": 2, "chain_type": "CALL"}),
        )
        .await;
    let call = chain["optionPairs"][0]["call"].clone();
    let osi = call["osiKey"].as_str().expect("an osiKey").to_string();
    let ed = &chain["selectedED"];
    let expiration = format!(
        "{:04}-{:02}-{:02}",
        ed["year"].as_i64().unwrap_or_default(),
        ed["month"].as_i64().unwrap_or_default(),
        ed["day"].as_i64().unwrap_or_default()
    );
    let fields = json!({"order_type": "OPTN", "symbol": "AAPL", "call_put": "CALL",
        "expiration": expiration, "strike_price": call["strikePrice"], "order_action": "BUY_OPEN",
        "quantity": "1", "price_type": "LIMIT", "limit_price": "1.00"});
    let by_osi = |osi: &str| {
        json!({"order_type": "OPTN", "osi": osi, "order_action": "BUY_OPEN",
            "quantity": "1", "price_type": "LIMIT", "limit_price": "1.00"})
    };
    let leg = |pv: &Value| pv["broker_preview"]["order"][0]["instrument"][0].clone();
    let want = leg(&p
        .ok(
            "preview_order",
            json!({"account_id_key": key, "request": fields}),
        )
        .await);
    assert_eq!(want["osiKey"], osi, "{want}");
    let occ = format!("{:<6}{}", osi[..6].trim_end_matches('-'), &osi[6..]);
    for symbol in [osi.as_str(), occ.as_str()] {
        let got = leg(&p
            .ok(
                "preview_order",
                json!({"account_id_key": key, "request": by_osi(symbol)}),
            )
            .await);
        assert_eq!(got["product"], want["product"], "{symbol}");
        assert_eq!(got["osiKey"], want["osiKey"], "{symbol}");
        assert_eq!(
            got["symbolDescription"], want["symbolDescription"],
            "{symbol}"
        );
    }

    // The journal names the previewed contract by the same OSI symbol.
    let journal = p.ok("list_order_journal", json!({"limit": 1})).await;
    assert_eq!(
        journal["entries"][0]["order"]["legs"][0]["osi_key"], osi,
        "{journal}"
    );

    // A quote by OSI symbol is the quote by E*TRADE's quote form, and names its contract.
    let quote_form = call["quoteDetail"]
        .as_str()
        .and_then(|u| u.rsplit('/').next())
        .expect("a quote symbol")
        .to_string();
    let by_form = p
        .ok(
            "get_quotes",
            json!({"symbols": [quote_form], "detail_flag": "OPTIONS"}),
        )
        .await;
    let by_osi_quote = p
        .ok(
            "get_quotes",
            json!({"symbols": [occ], "detail_flag": "OPTIONS"}),
        )
        .await;
    assert_eq!(
        by_osi_quote["quotes"][0]["product"],
        by_form["quotes"][0]["product"]
    );
    assert_eq!(by_osi_quote["quotes"][0]["osiKey"], osi);

    // The chain by osi: the contract's underlier and expiry.
    let again = p
        .ok(
            "get_option_chains",
            json!({"osi": osi, "chain_type": "CALL"}),
        )
        .await;
    assert_eq!(again["selectedED"], chain["selectedED"]);
    let strikes: Vec<&Value> = again["optionPairs"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|pair| &pair["call"]["osiKey"])
        .collect();
    assert!(strikes.contains(&&Value::from(osi.clone())), "{again}");
}
