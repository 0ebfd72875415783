//! The mutable order book: the fixture orders (copied in per account on first use, so they
//! can be cancelled or changed), the orders placed through the API, and the preview table.

use std::collections::{HashMap, HashSet};

use jiff::Timestamp;
use runtime::emulation::entry_rules::{EntryBook, StoredPreview};
use runtime::emulation::json_number::{from_f64, to_f64};
use runtime::emulation::{LegRequest, OrderRequest, OrderStatus, QuantityType};
use serde::Serialize;
use serde_json::Value;

use crate::fixtures::round;
use crate::fixtures_market::{OrderFx, orders_for};
use crate::state::Shared;

/// One leg's progress in the fake's book: how its security is described, how much filled
/// and at what average price.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FakeLegState {
    pub symbol_description: String,
    pub filled_quantity: f64,
    pub average_execution_price: Option<f64>,
}

/// An order in the fake's book, as served by list orders.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FakeOrder {
    pub order_id: i64,
    /// The account number (`"84010429"`).
    pub account_id: String,
    pub account_key: String,
    /// What was ordered (a fixture order's `client_order_id` is empty).
    pub request: OrderRequest,
    /// One per leg of `request`, in its order.
    pub leg_states: Vec<FakeLegState>,
    /// An [`OrderStatus`] as E*TRADE spells it (`OPEN`, `EXECUTED`, ...).
    pub status: String,
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
    /// The `clientOrderId` it was placed with (`None` for fixtures).
    pub fn client_order_id(&self) -> Option<&str> {
        Some(self.request.client_order_id.as_str()).filter(|id| !id.is_empty())
    }

    /// The first leg's symbol.
    pub fn symbol(&self) -> &str {
        self.request
            .legs
            .first()
            .map_or("", |l| l.instrument.symbol())
    }

    /// Every leg's symbol.
    pub fn symbols(&self) -> Vec<&str> {
        self.request
            .legs
            .iter()
            .map(|l| l.instrument.symbol())
            .collect()
    }

    /// The first leg's order action.
    pub fn action(&self) -> &str {
        self.request.legs.first().map_or("", |l| l.action.as_str())
    }

    /// The first leg's quantity.
    pub fn quantity(&self) -> f64 {
        self.request
            .legs
            .first()
            .map_or(0.0, |l| to_f64(l.quantity))
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
    let price = |p: f64| (p > 0.0).then(|| from_f64(p));
    FakeOrder {
        order_id: o.order_id,
        account_id: account_id.into(),
        account_key: account_key.into(),
        request: OrderRequest {
            order_type: o.order_type,
            client_order_id: String::new(),
            price_type: o.price_type,
            order_term: o.order_term,
            market_session: o.market_session,
            all_or_none: false,
            limit_price: price(o.limit_price),
            stop_price: price(o.stop_price),
            legs: o
                .legs
                .iter()
                .map(|l| LegRequest {
                    instrument: l.instrument.clone(),
                    action: l.action,
                    quantity_type: QuantityType::Quantity,
                    quantity: from_f64(l.quantity),
                })
                .collect(),
        },
        leg_states: o
            .legs
            .iter()
            .map(|l| FakeLegState {
                symbol_description: l.description.into(),
                filled_quantity: l.filled,
                average_execution_price: l.fill_price,
            })
            .collect(),
        status: o.status.as_str().into(),
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
}

impl EntryBook for OrderBook {
    /// Place must repeat the preview's body in canonical form, members the fake does not
    /// know included.
    type Sent = Value;

    fn stored_preview(&self, preview_id: i64) -> Option<StoredPreview<'_, Value>> {
        self.previews.get(&preview_id).map(|p| StoredPreview {
            account_key: &p.account_key,
            change_of: p.change_of,
            sent: &p.canonical,
            created_at: p.created_at,
            used: p.used,
        })
    }

    fn account_order(
        &self,
        account_key: &str,
        order_id: i64,
    ) -> Option<(OrderStatus, &OrderRequest)> {
        self.get(order_id)
            .filter(|o| o.account_key == account_key)
            .and_then(|o| Some((OrderStatus::parse(&o.status)?, &o.request)))
    }

    fn replaces(&self, order_id: i64) -> Option<i64> {
        self.get(order_id).and_then(|o| o.replaces_order_id)
    }

    fn client_order_id_used(
        &self,
        account_key: &str,
        client_order_id: &str,
        except: &[i64],
    ) -> bool {
        self.orders.iter().any(|o| {
            o.account_key == account_key
                && o.client_order_id() == Some(client_order_id)
                && !except.contains(&o.order_id)
        })
    }
}

/// Order and alert controls shared by [`crate::FakeEtrade`] and the `/__fake/` HTTP API.
impl Shared {
    pub fn orders(&self) -> Vec<FakeOrder> {
        self.lock().book().all().to_vec()
    }

    pub fn set_order_status(&self, order_id: i64, status: &str) -> bool {
        let Some(status) = OrderStatus::parse(status) else {
            return false;
        };
        let now_ms = self.now().as_millisecond();
        let mut inner = self.lock();
        let Some(o) = inner.book().get_mut(order_id) else {
            return false;
        };
        o.status = status.as_str().to_string();
        match status {
            OrderStatus::Executed => {
                o.executed_time = Some(now_ms);
                let legs = o.request.legs.len().max(1) as f64;
                let estimate = o.order_value / legs;
                let fixed = o.request.limit_price.or(o.request.stop_price).map(to_f64);
                for (l, state) in o.request.legs.iter().zip(&mut o.leg_states) {
                    let quantity = to_f64(l.quantity);
                    state.filled_quantity = quantity;
                    let units = quantity * to_f64(l.instrument.multiplier());
                    let per_unit = estimate / units.max(f64::MIN_POSITIVE);
                    state.average_execution_price = state
                        .average_execution_price
                        .or(fixed)
                        .or(Some(round(per_unit, 4)));
                }
            }
            OrderStatus::Cancelled => {
                o.cancel_time.get_or_insert(now_ms);
            }
            _ => {}
        }
        true
    }

    pub fn alert_ids(&self, deleted: bool) -> Vec<i64> {
        self.lock().alerts.ids(deleted)
    }
}
