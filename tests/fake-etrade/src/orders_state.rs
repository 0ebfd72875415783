//! The mutable order book: the fixture orders (copied in per account on first use, so they
//! can be cancelled or changed), the orders placed through the API, and the preview table.

use std::collections::{HashMap, HashSet};

use jiff::Timestamp;
use serde::Serialize;
use serde_json::Value;

use crate::fixtures::round;
use crate::fixtures_market::{ALERTS, LegFx, OrderFx, orders_for};
use crate::state::Shared;

/// The order statuses the fake knows (also the list-orders `status` filter values).
pub(crate) const STATUSES: &[&str] = &[
    "OPEN",
    "EXECUTED",
    "CANCELLED",
    "INDIVIDUAL_FILLS",
    "CANCEL_REQUESTED",
    "EXPIRED",
    "REJECTED",
];

/// The option terms of an order leg.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FakeOptionLeg {
    /// CALL | PUT
    pub call_put: String,
    pub expiry_year: i64,
    pub expiry_month: i64,
    pub expiry_day: i64,
    pub strike_price: f64,
}

/// One leg (`Instrument`) of an order.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FakeOrderLeg {
    /// The symbol; for an option, its underlier.
    pub symbol: String,
    /// EQ | OPTN | MF | MMF
    pub security_type: String,
    pub symbol_description: String,
    pub option: Option<FakeOptionLeg>,
    /// BUY, SELL, BUY_TO_COVER, SELL_SHORT, BUY_OPEN, BUY_CLOSE, SELL_OPEN, SELL_CLOSE, EXCHANGE
    pub action: String,
    /// QUANTITY | DOLLAR | ALL_I_OWN
    pub quantity_type: String,
    pub quantity: f64,
    pub filled_quantity: f64,
    pub average_execution_price: Option<f64>,
}

impl FakeOrderLeg {
    pub fn multiplier(&self) -> f64 {
        if self.option.is_some() { 100.0 } else { 1.0 }
    }
}

/// An order in the fake's book, as served by list orders.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FakeOrder {
    pub order_id: i64,
    /// The account number (`"84010429"`).
    pub account_id: String,
    pub account_key: String,
    /// `None` for fixture orders.
    pub client_order_id: Option<String>,
    pub order_type: String,
    /// OPEN, EXECUTED, CANCELLED, INDIVIDUAL_FILLS, CANCEL_REQUESTED, EXPIRED, REJECTED
    pub status: String,
    pub price_type: String,
    pub order_term: String,
    pub market_session: String,
    pub all_or_none: bool,
    pub limit_price: Option<f64>,
    pub stop_price: Option<f64>,
    pub legs: Vec<FakeOrderLeg>,
    /// The estimated (or, for fixtures, listed) order value.
    pub order_value: f64,
    pub commission: f64,
    /// Epoch milliseconds (fake clock).
    pub placed_time: i64,
    pub executed_time: Option<i64>,
    pub cancel_time: Option<i64>,
    /// The preview this order was placed from (`None` for fixtures).
    pub preview_id: Option<i64>,
    pub replaces_order_id: Option<i64>,
    pub replaced_by_order_id: Option<i64>,
    /// Part of the built-in data rather than placed through the API.
    pub from_fixtures: bool,
}

impl FakeOrder {
    /// The first leg's symbol.
    pub fn symbol(&self) -> &str {
        self.legs.first().map_or("", |l| l.symbol.as_str())
    }

    /// Every leg's symbol.
    pub fn symbols(&self) -> Vec<&str> {
        self.legs.iter().map(|l| l.symbol.as_str()).collect()
    }

    /// The first leg's order action.
    pub fn action(&self) -> &str {
        self.legs.first().map_or("", |l| l.action.as_str())
    }

    /// The first leg's quantity.
    pub fn quantity(&self) -> f64 {
        self.legs.first().map_or(0.0, |l| l.quantity)
    }
}

fn leg_from_fixture(l: &LegFx) -> FakeOrderLeg {
    FakeOrderLeg {
        symbol: l.symbol.into(),
        security_type: l.security_type.into(),
        symbol_description: l.description.into(),
        option: l.option.map(|(cp, y, m, d, k)| FakeOptionLeg {
            call_put: cp.into(),
            expiry_year: y,
            expiry_month: m,
            expiry_day: d,
            strike_price: k,
        }),
        action: l.action.into(),
        quantity_type: "QUANTITY".into(),
        quantity: l.quantity,
        filled_quantity: l.filled,
        average_execution_price: l.fill_price,
    }
}

fn from_fixture(o: &OrderFx, account_id: &str, account_key: &str) -> FakeOrder {
    // The value as the read-only fake always listed it: quantity × (limit or fill price).
    let value: f64 = o
        .legs
        .iter()
        .map(|l| {
            l.quantity
                * if o.limit_price > 0.0 {
                    o.limit_price
                } else {
                    l.fill_price.unwrap_or(0.0)
                }
        })
        .sum();
    FakeOrder {
        order_id: o.order_id,
        account_id: account_id.into(),
        account_key: account_key.into(),
        client_order_id: None,
        order_type: o.order_type.into(),
        status: o.status.into(),
        price_type: o.price_type.into(),
        order_term: o.order_term.into(),
        market_session: o.market_session.into(),
        all_or_none: false,
        limit_price: (o.limit_price > 0.0).then_some(o.limit_price),
        stop_price: (o.stop_price > 0.0).then_some(o.stop_price),
        legs: o.legs.iter().map(leg_from_fixture).collect(),
        order_value: value,
        commission: o.commission,
        placed_time: o.placed_time,
        executed_time: o.executed_time,
        cancel_time: None,
        preview_id: None,
        replaces_order_id: None,
        replaced_by_order_id: None,
        from_fixtures: true,
    }
}

/// What preview and change preview store, and place checks against.
#[derive(Debug, Clone)]
pub(crate) struct Preview {
    pub account_key: String,
    /// `{"orderType", "clientOrderId", "Order"}` in canonical form.
    pub canonical: Value,
    pub created_at: Timestamp,
    pub used: bool,
    /// For a change preview: the order being changed.
    pub change_of: Option<i64>,
}

pub(crate) const FIRST_PREVIEW_ID: i64 = 266_606_056_106;
pub(crate) const FIRST_ORDER_ID: i64 = 1_001;

#[derive(Debug)]
pub(crate) struct OrderBook {
    /// In insertion order.
    orders: Vec<FakeOrder>,
    seeded: HashSet<String>,
    pub previews: HashMap<i64, Preview>,
    next_preview_id: i64,
    next_order_id: i64,
}

impl Default for OrderBook {
    fn default() -> Self {
        Self {
            orders: Vec::new(),
            seeded: HashSet::new(),
            previews: HashMap::new(),
            next_preview_id: FIRST_PREVIEW_ID,
            next_order_id: FIRST_ORDER_ID,
        }
    }
}

impl OrderBook {
    /// Copies the fixture orders of this account into the book, once.
    pub fn seed(&mut self, account_id: &str, account_key: &str) {
        if self.seeded.insert(account_id.to_string()) {
            let fx = orders_for(account_id);
            self.orders
                .extend(fx.iter().map(|o| from_fixture(o, account_id, account_key)));
        }
    }

    pub fn for_account(&self, account_id: &str) -> impl Iterator<Item = &FakeOrder> {
        self.orders
            .iter()
            .filter(move |o| o.account_id == account_id)
    }

    pub fn all(&self) -> &[FakeOrder] {
        &self.orders
    }

    pub fn get_mut(&mut self, order_id: i64) -> Option<&mut FakeOrder> {
        self.orders.iter_mut().find(|o| o.order_id == order_id)
    }

    pub fn get(&self, order_id: i64) -> Option<&FakeOrder> {
        self.orders.iter().find(|o| o.order_id == order_id)
    }

    pub fn add_preview(&mut self, p: Preview) -> i64 {
        let id = self.next_preview_id;
        self.next_preview_id += 1;
        self.previews.insert(id, p);
        id
    }

    /// Assigns the next order id and stores the order.
    pub fn add_order(&mut self, mut o: FakeOrder) -> i64 {
        let id = self.next_order_id;
        self.next_order_id += 1;
        o.order_id = id;
        self.orders.push(o);
        id
    }

    /// The ids of this order and of every order it (transitively) replaced.
    pub fn lineage(&self, order_id: i64) -> Vec<i64> {
        let mut ids = vec![order_id];
        let mut cur = self.get(order_id).and_then(|o| o.replaces_order_id);
        while let Some(id) = cur {
            if ids.contains(&id) {
                break;
            }
            ids.push(id);
            cur = self.get(id).and_then(|o| o.replaces_order_id);
        }
        ids
    }
}

/// Order and alert controls shared by [`crate::FakeEtrade`] and the `/__fake/` HTTP API.
impl Shared {
    pub fn orders(&self) -> Vec<FakeOrder> {
        self.lock().book().all().to_vec()
    }

    pub fn set_order_status(&self, order_id: i64, status: &str) -> bool {
        if !STATUSES.contains(&status) {
            return false;
        }
        let now_ms = self.now().as_millisecond();
        let mut inner = self.lock();
        let Some(o) = inner.book().get_mut(order_id) else {
            return false;
        };
        o.status = status.to_string();
        match status {
            "EXECUTED" => {
                o.executed_time = Some(now_ms);
                let legs = o.legs.len().max(1) as f64;
                let estimate = o.order_value / legs;
                let fixed = o.limit_price.or(o.stop_price);
                for l in &mut o.legs {
                    l.filled_quantity = l.quantity;
                    let per_unit = estimate / (l.quantity * l.multiplier()).max(f64::MIN_POSITIVE);
                    l.average_execution_price = l
                        .average_execution_price
                        .or(fixed)
                        .or(Some(round(per_unit, 4)));
                }
            }
            "CANCELLED" => {
                o.cancel_time.get_or_insert(now_ms);
            }
            _ => {}
        }
        true
    }

    pub fn alert_ids(&self, deleted: bool) -> Vec<i64> {
        let inner = self.lock();
        let mut ids: Vec<i64> = ALERTS
            .iter()
            .map(|a| a.id)
            .filter(|id| inner.deleted_alerts.contains_key(id) == deleted)
            .collect();
        ids.sort_unstable();
        ids
    }
}
