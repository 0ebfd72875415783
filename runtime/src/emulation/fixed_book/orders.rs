//! The fixed book's orders: the seeded ones (copied in per account on first use, so they can
//! be cancelled or changed), those placed through the order API, and the preview table. The
//! book fills nothing by itself: an order stays as placed until [`FixedOrders::set_status`]
//! moves it, so every answer about it can be asserted.

use std::collections::{HashMap, HashSet};

use jiff::Timestamp;
use rust_decimal::{Decimal, RoundingStrategy};
use serde::Serialize;
use serde_json::Value;

use super::super::entry_rules::{EntryBook, StoredPreview};
use super::super::{
    Instrument, LegRequest, MarketSession, OrderAction, OrderRequest, OrderStatus, OrderTerm,
    OrderType, PriceType, QuantityType,
};

/// The first preview id and the first order id the book hands out.
pub const FIRST_PREVIEW_ID: i64 = 266_606_056_106;
pub const FIRST_ORDER_ID: i64 = 1_001;

/// One leg of an order the book starts with.
#[derive(Debug, Clone, PartialEq)]
pub struct SeedLeg {
    pub instrument: Instrument,
    pub description: String,
    pub action: OrderAction,
    pub quantity: Decimal,
    pub filled: Decimal,
    pub fill_price: Option<Decimal>,
}

/// An order the book starts with. Times are epoch milliseconds.
#[derive(Debug, Clone, PartialEq)]
pub struct SeedOrder {
    pub order_id: i64,
    pub order_type: OrderType,
    pub status: OrderStatus,
    pub price_type: PriceType,
    pub order_term: OrderTerm,
    pub limit_price: Option<Decimal>,
    pub stop_price: Option<Decimal>,
    pub market_session: MarketSession,
    pub placed_time: i64,
    pub executed_time: Option<i64>,
    pub commission: Decimal,
    pub legs: Vec<SeedLeg>,
}

/// One leg's progress: how its security is described, how much filled and at what average
/// price.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct BookLeg {
    pub symbol_description: String,
    pub filled_quantity: Decimal,
    pub average_execution_price: Option<Decimal>,
}

/// An order in the book, as list orders serves it. Times are epoch milliseconds.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct BookOrder {
    pub order_id: i64,
    /// The account number (`"84010429"`).
    pub account_id: String,
    pub account_key: String,
    /// What was ordered (a seeded order's `client_order_id` is empty).
    pub request: OrderRequest,
    /// One per leg of `request`, in its order.
    pub leg_states: Vec<BookLeg>,
    pub status: OrderStatus,
    /// The estimated (or, for seeded orders, listed) order value.
    pub order_value: Decimal,
    pub commission: Decimal,
    pub placed_time: i64,
    pub executed_time: Option<i64>,
    pub cancel_time: Option<i64>,
    /// The preview this order was placed from (`None` for seeded orders).
    pub preview_id: Option<i64>,
    pub replaces_order_id: Option<i64>,
    pub replaced_by_order_id: Option<i64>,
    /// Seeded rather than placed through the API.
    pub from_fixtures: bool,
}

impl BookOrder {
    /// An order placed now from preview `preview_id`: OPEN, nothing filled.
    pub fn placed(
        account: (&str, &str),
        request: OrderRequest,
        descriptions: Vec<String>,
        (value, commission): (Decimal, Decimal),
        placed_time: i64,
        preview_id: i64,
    ) -> BookOrder {
        let (account_id, account_key) = account;
        BookOrder {
            order_id: 0,
            account_id: account_id.into(),
            account_key: account_key.into(),
            request,
            leg_states: descriptions
                .into_iter()
                .map(|symbol_description| BookLeg {
                    symbol_description,
                    filled_quantity: Decimal::ZERO,
                    average_execution_price: None,
                })
                .collect(),
            status: OrderStatus::Open,
            order_value: value,
            commission,
            placed_time,
            executed_time: None,
            cancel_time: None,
            preview_id: Some(preview_id),
            replaces_order_id: None,
            replaced_by_order_id: None,
            from_fixtures: false,
        }
    }

    fn seeded(o: &SeedOrder, account_id: &str, account_key: &str) -> BookOrder {
        // The value as the book has always listed it: quantity × (limit or fill price).
        let value: Decimal = o
            .legs
            .iter()
            .map(|l| l.quantity * o.limit_price.or(l.fill_price).unwrap_or_default())
            .sum();
        BookOrder {
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
                limit_price: o.limit_price,
                stop_price: o.stop_price,
                legs: o
                    .legs
                    .iter()
                    .map(|l| LegRequest {
                        instrument: l.instrument.clone(),
                        action: l.action,
                        quantity_type: QuantityType::Quantity,
                        quantity: l.quantity,
                    })
                    .collect(),
            },
            leg_states: o
                .legs
                .iter()
                .map(|l| BookLeg {
                    symbol_description: l.description.clone(),
                    filled_quantity: l.filled,
                    average_execution_price: l.fill_price,
                })
                .collect(),
            status: o.status,
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

    /// The `clientOrderId` it was placed with (`None` for seeded orders).
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
    pub fn quantity(&self) -> Decimal {
        self.request
            .legs
            .first()
            .map_or(Decimal::ZERO, |l| l.quantity)
    }
}

/// What preview and change preview store, and place checks against.
#[derive(Debug, Clone, PartialEq)]
pub struct BookPreview {
    pub account_key: String,
    /// The request body in the door's canonical form: place must send it again.
    pub canonical: Value,
    pub created_at: Timestamp,
    pub used: bool,
    /// For a change preview: the order being changed.
    pub change_of: Option<i64>,
}

/// The orders and previews of the fixed book.
#[derive(Debug)]
pub struct FixedOrders {
    /// In insertion order.
    orders: Vec<BookOrder>,
    seeded: HashSet<String>,
    previews: HashMap<i64, BookPreview>,
    next_preview_id: i64,
    next_order_id: i64,
}

impl Default for FixedOrders {
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

impl FixedOrders {
    /// Copies the seeded orders of this account into the book, once.
    pub fn seed(
        &mut self,
        account_id: &str,
        account_key: &str,
        seeds: impl FnOnce() -> Vec<SeedOrder>,
    ) {
        if self.seeded.insert(account_id.to_string()) {
            self.orders.extend(
                seeds()
                    .iter()
                    .map(|o| BookOrder::seeded(o, account_id, account_key)),
            );
        }
    }

    pub fn for_account(&self, account_id: &str) -> impl Iterator<Item = &BookOrder> {
        self.orders
            .iter()
            .filter(move |o| o.account_id == account_id)
    }

    pub fn all(&self) -> &[BookOrder] {
        &self.orders
    }

    pub fn get(&self, order_id: i64) -> Option<&BookOrder> {
        self.orders.iter().find(|o| o.order_id == order_id)
    }

    fn get_mut(&mut self, order_id: i64) -> Option<&mut BookOrder> {
        self.orders.iter_mut().find(|o| o.order_id == order_id)
    }

    pub fn preview_count(&self) -> usize {
        self.previews.len()
    }

    /// Stores a preview under the next preview id, which it gives back.
    pub fn add_preview(&mut self, p: BookPreview) -> i64 {
        let id = self.next_preview_id;
        self.next_preview_id += 1;
        self.previews.insert(id, p);
        id
    }

    /// Places `order` from preview `preview_id` (which [`super::super::entry_rules::check_place`]
    /// accepted): the preview is used up, the order gets the next order id, and an order it
    /// replaces is cancelled and points at it. Gives the new order's id.
    pub fn place(&mut self, preview_id: i64, mut order: BookOrder, at_ms: i64) -> i64 {
        if let Some(p) = self.previews.get_mut(&preview_id) {
            p.used = true;
        }
        let id = self.next_order_id;
        self.next_order_id += 1;
        order.order_id = id;
        let replaces = order.replaces_order_id;
        self.orders.push(order);
        if let Some(old) = replaces.and_then(|o| self.get_mut(o)) {
            old.status = OrderStatus::Cancelled;
            old.cancel_time = Some(at_ms);
            old.replaced_by_order_id = Some(id);
        }
        id
    }

    /// Cancels the account's working order `order_id`; false if the account has no such
    /// order.
    pub fn cancel(&mut self, account_key: &str, order_id: i64, at_ms: i64) -> bool {
        match self
            .get_mut(order_id)
            .filter(|o| o.account_key == account_key)
        {
            Some(o) => {
                o.status = OrderStatus::Cancelled;
                o.cancel_time = Some(at_ms);
                true
            }
            None => false,
        }
    }

    /// Moves an order to `status`. EXECUTED fills every leg (at its fill price, else the
    /// limit or stop price, else the estimate per unit) and sets the executed time;
    /// CANCELLED sets the cancel time. False for an unknown order.
    pub fn set_status(&mut self, order_id: i64, status: OrderStatus, at_ms: i64) -> bool {
        let Some(o) = self.get_mut(order_id) else {
            return false;
        };
        o.status = status;
        match status {
            OrderStatus::Executed => {
                o.executed_time = Some(at_ms);
                let legs = Decimal::from(o.request.legs.len().max(1));
                let estimate = o.order_value / legs;
                let fixed = o.request.named_price();
                for (l, state) in o.request.legs.iter().zip(&mut o.leg_states) {
                    state.filled_quantity = l.quantity;
                    let per_unit = estimate
                        .checked_div(l.quantity * l.instrument.multiplier())
                        .map(|p| {
                            p.round_dp_with_strategy(4, RoundingStrategy::MidpointAwayFromZero)
                        });
                    state.average_execution_price =
                        state.average_execution_price.or(fixed).or(per_unit);
                }
            }
            OrderStatus::Cancelled => {
                o.cancel_time.get_or_insert(at_ms);
            }
            _ => {}
        }
        true
    }
}

impl EntryBook for FixedOrders {
    /// Place must repeat the preview's body in canonical form, members the book does not
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
            .map(|o| (o.status, &o.request))
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
