//! Orders: list (filters, `count` ≤ 100, opaque `marker` paging with `next`, 204 when none)
//! over the order book (fixture orders and those placed through the API, newest first).

use std::collections::HashMap;
use std::sync::Arc;

use axum::extract::{Path, Query, State};
use axum::http::StatusCode;
use axum::response::Response;
use runtime::emulation::answers::Style;
use runtime::emulation::answers::orders::{ListedLeg, ListedOrder, closing_event, listed_order};
use runtime::emulation::fixed_book::BookOrder;
use runtime::emulation::json_number::from_f64;
use runtime::emulation::order_list::{self, OrderLinks, OrderListQuery};
use runtime::emulation::{NumberStyle, OrderStatus, codes};
use rust_decimal::{Decimal, RoundingStrategy};
use serde_json::Value;

use crate::responses::{api_error, no_content, ok_json, param_refusal};
use crate::state::Shared;

type Params = Query<HashMap<String, String>>;

fn order_json(base_url: &str, o: &BookOrder, echo_client_order_id: bool) -> Value {
    let r = &o.request;
    let multiplier = r
        .legs
        .first()
        .map_or(Decimal::ONE, |l| l.instrument.multiplier());
    let legs = o
        .leg_states
        .iter()
        .map(|state| ListedLeg {
            description: state.symbol_description.clone(),
            filled: state.filled_quantity,
            cancelled: None,
            estimated_commission: if state.filled_quantity > Decimal::ZERO {
                o.commission
            } else {
                Decimal::ZERO
            },
            estimated_fees: Decimal::ZERO,
            average_execution_price: state.average_execution_price,
        })
        .collect();
    let mut events = vec![("ORDER_PLACED", o.placed_time)];
    if let Some(name) = closing_event(o.status) {
        let at = o
            .cancel_time
            .filter(|_| o.status == OrderStatus::Cancelled)
            .or(o.executed_time)
            .unwrap_or(o.placed_time + 60_000);
        events.push((name, at));
    }
    let listed = ListedOrder {
        order_id: o.order_id,
        account_id: &o.account_id,
        account_key: &o.account_key,
        request: r,
        legs,
        status: o.status,
        order_value: cents(
            o.order_value
                * if o.from_fixtures {
                    multiplier
                } else {
                    Decimal::ONE
                },
        ),
        total_order_value: cents(o.order_value),
        total_commission: o.commission,
        preview_time: None,
        placed_time: o.placed_time,
        executed_time: o.executed_time,
        preview_id: o.preview_id,
        replaces_order_id: o.replaces_order_id,
        replaced_by_order_id: o.replaced_by_order_id,
        trigger_price: None,
        client_order_id: o.client_order_id().filter(|_| echo_client_order_id),
        events,
    };
    let style = Style {
        numbers: NumberStyle::Float,
        base_url,
    };
    listed_order(&listed, style)
}

fn cents(d: Decimal) -> Decimal {
    d.round_dp_with_strategy(2, RoundingStrategy::MidpointAwayFromZero)
}

/// What order endpoints need to know about an account.
#[derive(Debug, Clone)]
pub(crate) struct Acct {
    pub id: String,
    pub cash: Decimal,
    pub margin: bool,
    /// `optionLevelCd`: 0 for NO_OPTIONS, n for LEVEL_n.
    pub option_level: i64,
}

impl Acct {
    pub fn cash_margin(&self) -> &'static str {
        if self.margin { "MARGIN" } else { "CASH" }
    }
    pub fn margin_level(&self) -> &'static str {
        if self.margin {
            "MARGIN_TRADING_ALLOWED"
        } else {
            "MARGIN_TRADING_NOT_ALLOWED"
        }
    }
}

/// The account with this key, or E*TRADE's 400 code 100.
pub(crate) fn account(s: &Shared, key: &str) -> Result<Acct, Response> {
    let inner = s.lock();
    match inner.fixtures.account_by_key(key) {
        Some(a) => Ok(Acct {
            id: a.account_id.clone(),
            cash: from_f64(a.cash_balance),
            margin: a.is_margin(),
            option_level: a
                .option_level
                .strip_prefix("LEVEL_")
                .and_then(|n| n.parse().ok())
                .unwrap_or(0),
        }),
        None => Err(api_error(
            StatusCode::BAD_REQUEST,
            codes::ACCOUNT_KEY,
            codes::ACCOUNT_KEY_MESSAGE,
        )),
    }
}

/// `GET /v1/accounts/{key}/orders`
pub(crate) async fn list(
    State(s): State<Arc<Shared>>,
    Path(key): Path<String>,
    Query(q): Params,
) -> Response {
    let account_id = match account(&s, &key) {
        Ok(a) => a.id,
        Err(r) => return r,
    };
    let query = match OrderListQuery::parse(|name| q.get(name).cloned()) {
        Ok(query) => query,
        Err(e) => return param_refusal(&e),
    };
    let tz = s.tz.clone();
    let orders: Vec<BookOrder> = s
        .lock()
        .book()
        .for_account(&account_id)
        .filter(|o| {
            let day = jiff::Timestamp::from_millisecond(o.placed_time)
                .map(|t| t.to_zoned_datetime(tz.clone()).date())
                .ok();
            query.filter.admits(&o.request, o.status.as_str(), day)
        })
        .cloned()
        .collect();
    let links = OrderLinks {
        base_url: &s.base_url,
        account_key: &key,
    };
    let page = order_list::orders_page(
        orders,
        &query,
        |o| (o.placed_time, o.order_id),
        &links,
        |o| order_json(&s.base_url, o, s.config.echo_client_order_id),
    );
    page.map_or_else(no_content, |body| ok_json(&body))
}
