//! `PreviewOrderRequest` / `PlaceOrderRequest` bodies (the change forms too): checked
//! against E*TRADE's order grammar and reduced to an [`OrderRequest`].
//!
//! Both emulators check with the same rules; the paper book adds the limits of the paper
//! account ([`OrderScope::PaperAccount`]). Numbers may come as JSON numbers or numeric
//! strings and are read as exact decimals, so `170`, `170.00` and `"170.0"` are the same
//! price.

use std::str::FromStr;

use jiff::civil::Date;
use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::OrderAction;
use super::instrument::{CallPut, Instrument, SecurityType};
use super::request_error::{RequestError, Unsupported};
use super::{MarketSession, OrderTerm, OrderType, PriceType, QuantityType};

/// Which orders the emulated account takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OrderScope {
    /// Every order E*TRADE's grammar allows (the fake server).
    Etrade,
    /// The paper account: equities and options by whole quantity, market, limit, stop and
    /// trailing stop orders, on-open and on-close orders (net prices for spreads), no
    /// GOOD_TILL_DATE, and IMMEDIATE_OR_CANCEL or
    /// FILL_OR_KILL only with a limit price. A request keeps only the prices its price type
    /// uses (NET_EVEN's is 0), so a place compares equal to its preview by what it orders.
    PaperAccount,
}

/// The root member of an order-entry body.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OrderRoot {
    Preview,
    Place,
}

impl OrderRoot {
    pub fn as_str(self) -> &'static str {
        match self {
            OrderRoot::Preview => "PreviewOrderRequest",
            OrderRoot::Place => "PlaceOrderRequest",
        }
    }
}

/// One `Instrument` of the order.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LegRequest {
    pub instrument: Instrument,
    pub action: OrderAction,
    #[serde(default, skip_serializing_if = "QuantityType::is_quantity")]
    pub quantity_type: QuantityType,
    pub quantity: Decimal,
}

/// A checked order request.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct OrderRequest {
    pub order_type: OrderType,
    pub client_order_id: String,
    pub price_type: PriceType,
    pub order_term: OrderTerm,
    pub market_session: MarketSession,
    pub all_or_none: bool,
    pub limit_price: Option<Decimal>,
    pub stop_price: Option<Decimal>,
    pub legs: Vec<LegRequest>,
}

impl OrderRequest {
    pub fn is_spread(&self) -> bool {
        self.order_type.is_spread()
    }

    pub fn extended(&self) -> bool {
        self.market_session == MarketSession::Extended
    }

    /// The price the order names, if any: its limit, else a stop's trigger. A trailing
    /// stop's `stopPrice` is a trail, never a price.
    pub fn named_price(&self) -> Option<Decimal> {
        self.limit_price.or(self
            .stop_price
            .filter(|_| self.price_type.stop_is_a_price()))
    }

    /// A change may alter prices, terms and quantities but not the order type nor any leg's
    /// instrument or action.
    pub fn keeps_shape_of(&self, old: &OrderRequest) -> bool {
        self.order_type == old.order_type
            && self.legs.len() == old.legs.len()
            && self
                .legs
                .iter()
                .zip(&old.legs)
                .all(|(a, b)| a.instrument == b.instrument && a.action == b.action)
    }
}

/// A checked body: the request and, for a place, its `PreviewIds` member as sent.
#[derive(Debug, Clone, PartialEq)]
pub struct ParsedOrder {
    pub request: OrderRequest,
    pub preview_ids: Option<Value>,
}

/// The JSON of a request body.
pub fn json_body(bytes: &[u8]) -> Result<Value, RequestError> {
    serde_json::from_slice(bytes).map_err(|_| RequestError::invalid("the body is not JSON"))
}

/// The price types the paper account works: market, limit and stop orders, and for spreads
/// market and net prices.
fn paper_supports(price_type: PriceType, spread: bool) -> bool {
    match price_type {
        PriceType::Market => true,
        PriceType::Limit
        | PriceType::Stop
        | PriceType::StopLimit
        | PriceType::TrailingStopConstant
        | PriceType::TrailingStopPercent
        | PriceType::MarketOnOpen
        | PriceType::MarketOnClose
        | PriceType::LimitOnOpen
        | PriceType::LimitOnClose => !spread,
        PriceType::NetDebit | PriceType::NetCredit | PriceType::NetEven => spread,
        PriceType::TrailingStopConstantByLowerTrigger
        | PriceType::UpperTriggerByTrailingStopConstant
        | PriceType::TrailingStopPercentByLowerTrigger
        | PriceType::UpperTriggerByTrailingStopPercent
        | PriceType::HiddenStop
        | PriceType::HiddenStopByLowerTrigger
        | PriceType::UpperTriggerByHiddenStop => false,
    }
}

/// Checks the body `{root: {...}}`.
pub fn parse(
    body: &Value,
    root: OrderRoot,
    scope: OrderScope,
) -> Result<ParsedOrder, RequestError> {
    let root = root.as_str();
    let Some(req) = body.get(root).and_then(Value::as_object) else {
        return Err(RequestError::invalid(format!(
            "the body has no {root} object"
        )));
    };
    let order_type = order_type(req, scope)?;
    let client_order_id = client_order_id(req)?;
    let orders = objects(req.get("Order"), "Order")?;
    let [order] = orders.as_slice() else {
        return Err(RequestError::invalid("exactly one Order is supported"));
    };
    let all_or_none = match order.get("allOrNone") {
        None | Some(Value::Null) => false,
        Some(Value::Bool(b)) => *b,
        Some(Value::String(b)) if b.eq_ignore_ascii_case("true") => true,
        Some(Value::String(b)) if b.eq_ignore_ascii_case("false") => false,
        Some(_) => return Err(RequestError::invalid("allOrNone must be a boolean")),
    };
    let price_type = price_type(order, order_type, scope)?;
    let order_term = one_of(order, "orderTerm", OrderTerm::parse)?;
    if order_term == OrderTerm::GoodTillDate && scope == OrderScope::PaperAccount {
        return Err(Unsupported::GoodTillDate.into());
    }
    let market_session = one_of(order, "marketSession", MarketSession::parse)?;
    let limit_price = price(order, "limitPrice")?;
    let stop_price = price(order, "stopPrice")?;
    let p = price_type.as_str();
    if price_type.needs_limit() && limit_price.is_none() {
        return Err(RequestError::invalid(format!(
            "limitPrice is required for {p}"
        )));
    }
    if price_type.needs_stop() && stop_price.is_none() {
        return Err(RequestError::invalid(format!(
            "stopPrice is required for {p}"
        )));
    }
    if market_session == MarketSession::Extended && price_type != PriceType::Limit {
        return Err(RequestError::ExtendedHoursLimitOnly);
    }
    if price_type.auction().is_some() && order_term != OrderTerm::GoodForDay {
        return Err(RequestError::invalid(format!(
            "{p} orders must be GOOD_FOR_DAY"
        )));
    }
    if price_type == PriceType::TrailingStopPercent
        && stop_price.is_some_and(|pct| pct >= Decimal::ONE_HUNDRED)
    {
        return Err(RequestError::invalid(
            "the trailing percent in stopPrice must be less than 100",
        ));
    }
    if scope == OrderScope::PaperAccount
        && order_term.decided_when_placed()
        && !price_type.needs_limit()
    {
        return Err(RequestError::invalid(
            "IMMEDIATE_OR_CANCEL and FILL_OR_KILL need a limit price",
        ));
    }
    let legs = objects(order.get("Instrument"), "Instrument")?
        .into_iter()
        .map(|m| leg(m, scope))
        .collect::<Result<Vec<_>, _>>()?;
    if !legs_fit(order_type, &legs) {
        return Err(RequestError::invalid(format!(
            "the Instrument legs do not fit orderType {}",
            order_type.as_str()
        )));
    }
    let (limit_price, stop_price) = match scope {
        OrderScope::Etrade => (limit_price, stop_price),
        OrderScope::PaperAccount if price_type == PriceType::NetEven => (Some(Decimal::ZERO), None),
        OrderScope::PaperAccount => (
            limit_price.filter(|_| price_type.needs_limit() || order_type.is_spread()),
            stop_price.filter(|_| price_type.needs_stop()),
        ),
    };
    Ok(ParsedOrder {
        request: OrderRequest {
            order_type,
            client_order_id,
            price_type,
            order_term,
            market_session,
            all_or_none,
            limit_price,
            stop_price,
            legs,
        },
        preview_ids: req.get("PreviewIds").cloned(),
    })
}

/// The `previewId` a place names: `PreviewIds` must be an array of one object whose
/// `previewId` is an integer (or a string holding one).
pub fn preview_id(preview_ids: Option<&Value>) -> Option<i64> {
    let Some(Value::Array(ids)) = preview_ids else {
        return None;
    };
    let [Value::Object(entry)] = ids.as_slice() else {
        return None;
    };
    match entry.get("previewId")? {
        Value::Number(n) => n.as_i64(),
        Value::String(v) => v.parse().ok(),
        _ => None,
    }
}

fn order_type(req: &Map<String, Value>, scope: OrderScope) -> Result<OrderType, RequestError> {
    let order_type = one_of(req, "orderType", OrderType::parse)?;
    if order_type.is_fund() && scope == OrderScope::PaperAccount {
        return Err(Unsupported::MutualFunds.into());
    }
    Ok(order_type)
}

fn client_order_id(req: &Map<String, Value>) -> Result<String, RequestError> {
    let id = match req.get("clientOrderId") {
        Some(Value::String(c)) => c.clone(),
        Some(Value::Number(n)) if n.is_u64() => n.to_string(),
        _ => String::new(),
    };
    if (1..=20).contains(&id.len()) && id.bytes().all(|b| b.is_ascii_alphanumeric()) {
        Ok(id)
    } else {
        Err(RequestError::ClientOrderId)
    }
}

/// The paper account refuses a price type it does not work (or one E*TRADE does not know)
/// as unsupported; E*TRADE's grammar refuses only unknown ones.
fn price_type(
    order: &Map<String, Value>,
    order_type: OrderType,
    scope: OrderScope,
) -> Result<PriceType, RequestError> {
    let text = text(order, "priceType")?;
    match (PriceType::parse(text), scope) {
        (Some(p), OrderScope::Etrade) => Ok(p),
        (Some(p), OrderScope::PaperAccount) if paper_supports(p, order_type.is_spread()) => Ok(p),
        (_, OrderScope::PaperAccount) => Err(Unsupported::PriceType(text.to_string()).into()),
        (None, OrderScope::Etrade) => Err(RequestError::invalid("priceType has an invalid value")),
    }
}

fn text<'a>(m: &'a Map<String, Value>, k: &str) -> Result<&'a str, RequestError> {
    match m.get(k) {
        Some(Value::String(s)) => Ok(s.as_str()),
        Some(_) => Err(RequestError::invalid(format!("{k} has an invalid value"))),
        None => Err(RequestError::invalid(format!("{k} is missing"))),
    }
}

fn one_of<T>(
    m: &Map<String, Value>,
    k: &str,
    parse: impl Fn(&str) -> Option<T>,
) -> Result<T, RequestError> {
    parse(text(m, k)?).ok_or_else(|| RequestError::invalid(format!("{k} has an invalid value")))
}

/// A decimal from a JSON number or numeric string: `Ok(None)` for null or an empty string,
/// `Err` for anything that is not a finite number both as a decimal and as a float.
fn decimal(v: &Value) -> Result<Option<Decimal>, ()> {
    let text = match v {
        Value::Null => return Ok(None),
        Value::Number(n) => n.to_string(),
        Value::String(s) if s.trim().is_empty() => return Ok(None),
        Value::String(s) => s.trim().to_string(),
        _ => return Err(()),
    };
    if !text.parse::<f64>().is_ok_and(f64::is_finite) {
        return Err(());
    }
    Decimal::from_str(&text)
        .or_else(|_| Decimal::from_scientific(&text))
        .map(|d| Some(d.normalize()))
        .map_err(|_| ())
}

/// A number member: absent, null or empty → None.
fn number(m: &Map<String, Value>, k: &str) -> Result<Option<Decimal>, RequestError> {
    match m.get(k).map(decimal) {
        None => Ok(None),
        Some(Ok(d)) => Ok(d),
        Some(Err(())) => Err(RequestError::invalid(format!("{k} is not a number"))),
    }
}

/// A price member: absent, empty or 0 → None; negative → refused.
fn price(m: &Map<String, Value>, k: &str) -> Result<Option<Decimal>, RequestError> {
    match number(m, k)? {
        Some(p) if p.is_sign_negative() && !p.is_zero() => {
            Err(RequestError::invalid(format!("{k} must not be negative")))
        }
        Some(p) if p.is_zero() => Ok(None),
        p => Ok(p),
    }
}

/// A part of an option's expiry date: a whole number from 1 to 9999.
fn date_part(m: &Map<String, Value>, k: &str) -> Result<i16, RequestError> {
    match number(m, k)? {
        None => Err(RequestError::invalid(format!("{k} is missing"))),
        Some(d) => i16::try_from(d)
            .ok()
            .filter(|n| d.fract().is_zero() && (1..=9999).contains(n))
            .ok_or_else(|| RequestError::invalid(format!("{k} has an invalid value"))),
    }
}

/// The single object or the non-empty array of objects E*TRADE accepts for
/// `Order`/`Instrument`.
fn objects<'a>(v: Option<&'a Value>, k: &str) -> Result<Vec<&'a Map<String, Value>>, RequestError> {
    match v {
        Some(Value::Object(m)) => Ok(vec![m]),
        Some(Value::Array(a)) if !a.is_empty() => a
            .iter()
            .map(|x| {
                x.as_object()
                    .ok_or_else(|| RequestError::invalid(format!("{k} entries must be objects")))
            })
            .collect(),
        _ => Err(RequestError::invalid(format!("{k} is missing"))),
    }
}

fn option_terms(
    product: &Map<String, Value>,
    underlying: String,
) -> Result<Instrument, RequestError> {
    let right = one_of(product, "callPut", CallPut::parse)?;
    let (y, mo, d) = (
        date_part(product, "expiryYear")?,
        date_part(product, "expiryMonth")?,
        date_part(product, "expiryDay")?,
    );
    let expiry = match (i8::try_from(mo), i8::try_from(d)) {
        (Ok(mo), Ok(d)) => Date::new(y, mo, d).ok(),
        _ => None,
    }
    .ok_or_else(|| RequestError::invalid("the option expiry date is not a date"))?;
    let Some(strike) = price(product, "strikePrice")? else {
        return Err(RequestError::invalid("Product.strikePrice is missing"));
    };
    Ok(Instrument::Option {
        underlying,
        expiry,
        right,
        strike,
    })
}

fn leg(m: &Map<String, Value>, scope: OrderScope) -> Result<LegRequest, RequestError> {
    let Some(product) = m.get("Product").and_then(Value::as_object) else {
        return Err(RequestError::invalid("Instrument.Product is missing"));
    };
    let security_type = one_of(product, "securityType", SecurityType::parse)?;
    let symbol = match product.get("symbol").and_then(Value::as_str) {
        Some(v) if !v.trim().is_empty() && v.len() <= 24 => v.trim().to_ascii_uppercase(),
        _ => {
            return Err(RequestError::invalid(
                "Product.symbol is missing or invalid",
            ));
        }
    };
    let action = one_of(m, "orderAction", OrderAction::parse)?;
    let fund = matches!(
        security_type,
        SecurityType::MutualFund | SecurityType::MoneyMarketFund
    );
    if fund && scope == OrderScope::PaperAccount {
        return Err(Unsupported::MutualFunds.into());
    }
    if !action.fits(security_type) {
        return Err(RequestError::invalid(match security_type {
            SecurityType::Equity => "orderAction does not fit an equity",
            SecurityType::Option => "orderAction does not fit an option",
            SecurityType::MutualFund | SecurityType::MoneyMarketFund => {
                "orderAction does not fit a mutual fund"
            }
        }));
    }
    let instrument = match security_type {
        SecurityType::Equity => Instrument::Equity { symbol },
        SecurityType::Option => option_terms(product, symbol)?,
        SecurityType::MutualFund | SecurityType::MoneyMarketFund => Instrument::Fund {
            symbol,
            money_market: security_type == SecurityType::MoneyMarketFund,
        },
    };
    let quantity_type = one_of(m, "quantityType", QuantityType::parse)?;
    if quantity_type != QuantityType::Quantity && scope == OrderScope::PaperAccount {
        return Err(Unsupported::QuantityType.into());
    }
    let quantity = match number(m, "quantity")? {
        None => return Err(RequestError::invalid("quantity is missing")),
        Some(q) if q.is_zero() && quantity_type == QuantityType::AllIOwn => q,
        Some(q) if q <= Decimal::ZERO => {
            return Err(RequestError::invalid("quantity must be positive"));
        }
        Some(q) if scope == OrderScope::PaperAccount && !q.fract().is_zero() => {
            return Err(RequestError::invalid("quantity must be a whole number"));
        }
        Some(q) => q,
    };
    Ok(LegRequest {
        instrument,
        action,
        quantity_type,
        quantity,
    })
}

fn legs_fit(order_type: OrderType, legs: &[LegRequest]) -> bool {
    let count = |t: SecurityType| {
        legs.iter()
            .filter(|l| l.instrument.security_type() == t)
            .count()
    };
    let single = |t: SecurityType| legs.len() == 1 && count(t) == 1;
    match order_type {
        OrderType::Equity => single(SecurityType::Equity),
        OrderType::Option => single(SecurityType::Option),
        OrderType::MutualFund => single(SecurityType::MutualFund),
        OrderType::MoneyMarketFund => single(SecurityType::MoneyMarketFund),
        OrderType::BuyWrites => {
            legs.len() == 2 && count(SecurityType::Equity) == 1 && count(SecurityType::Option) == 1
        }
        _ => (2..=4).contains(&legs.len()) && count(SecurityType::Option) == legs.len(),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::emulation::codes;

    fn body(order: Value) -> Value {
        json!({"PreviewOrderRequest": {"orderType": "EQ", "clientOrderId": "c1",
            "Order": [order]}})
    }

    fn limit_buy() -> Value {
        json!({"allOrNone": false, "priceType": "LIMIT", "orderTerm": "GOOD_FOR_DAY",
            "marketSession": "REGULAR", "limitPrice": 170.00,
            "Instrument": [{"Product": {"securityType": "EQ", "symbol": "aapl"},
                "orderAction": "BUY", "quantityType": "QUANTITY", "quantity": 10}]})
    }

    fn with(mut order: Value, path: &[&str], value: Value) -> Value {
        let mut at = &mut order;
        for key in path {
            at = match key.parse::<usize>() {
                Ok(i) => &mut at[i],
                Err(_) => &mut at[*key],
            };
        }
        *at = value;
        order
    }

    fn check(order: Value, scope: OrderScope) -> Result<OrderRequest, RequestError> {
        parse(&body(order), OrderRoot::Preview, scope).map(|p| p.request)
    }

    fn code(order: Value, scope: OrderScope) -> i64 {
        check(order, scope).err().map_or(0, |e| e.code())
    }

    #[test]
    fn both_scopes_read_the_same_order_and_numbers_as_text_are_the_same() {
        for scope in [OrderScope::Etrade, OrderScope::PaperAccount] {
            let r = check(limit_buy(), scope).expect("accepted");
            assert_eq!(r.order_type, OrderType::Equity);
            assert_eq!(r.limit_price, Some(Decimal::from(170)));
            assert_eq!(
                r.legs[0].instrument,
                Instrument::Equity {
                    symbol: "AAPL".into()
                }
            );
            let texts = with(limit_buy(), &["limitPrice"], json!("170.0"));
            let texts = with(texts, &["Instrument", "0", "quantity"], json!("10"));
            assert_eq!(check(texts, scope).ok(), Some(r));
        }
    }

    #[test]
    fn the_paper_account_refuses_what_it_does_not_offer() {
        let (etrade, paper) = (OrderScope::Etrade, OrderScope::PaperAccount);
        let trailing = with(
            limit_buy(),
            &["priceType"],
            json!("TRAILING_STOP_CNST_BY_LOWER_TRIGGER"),
        );
        let gtd = with(limit_buy(), &["orderTerm"], json!("GOOD_TILL_DATE"));
        let dollars = with(
            limit_buy(),
            &["Instrument", "0", "quantityType"],
            json!("DOLLAR"),
        );
        for unsupported in [trailing, gtd, dollars] {
            assert_eq!(code(unsupported.clone(), etrade), 0, "{unsupported}");
            assert_eq!(code(unsupported, paper), codes::NOT_SUPPORTED);
        }
        let fractional = with(limit_buy(), &["Instrument", "0", "quantity"], json!(1.5));
        let ioc_market = with(limit_buy(), &["priceType"], json!("MARKET"));
        let ioc_market = with(ioc_market, &["orderTerm"], json!("IMMEDIATE_OR_CANCEL"));
        for invalid in [fractional, ioc_market] {
            assert_eq!(code(invalid.clone(), etrade), 0, "{invalid}");
            assert_eq!(code(invalid, paper), codes::INVALID_ORDER_REQUEST);
        }
        let fund = json!({"PreviewOrderRequest": {"orderType": "MF", "clientOrderId": "c1",
            "Order": [with(limit_buy(), &["Instrument", "0", "Product", "securityType"],
                json!("MF"))]}});
        assert!(parse(&fund, OrderRoot::Preview, etrade).is_ok());
        let refused = parse(&fund, OrderRoot::Preview, paper).err();
        assert_eq!(refused, Some(Unsupported::MutualFunds.into()));
    }

    #[test]
    fn trailing_stops_carry_their_trail_in_stop_price() {
        let order = with(limit_buy(), &["priceType"], json!("TRAILING_STOP_PRCT"));
        let order = with(order, &["stopPrice"], json!(5));
        let order = with(order, &["orderTerm"], json!("GOOD_UNTIL_CANCEL"));
        for scope in [OrderScope::Etrade, OrderScope::PaperAccount] {
            let r = check(order.clone(), scope).expect("a trailing stop");
            assert_eq!(r.stop_price, Some(Decimal::from(5)));
            // The trail is not a price: the order names none but its limit (paper drops it).
            let named = r.named_price();
            assert!(named.is_none() || named == Some(Decimal::from(170)));
        }
        let paper = check(order.clone(), OrderScope::PaperAccount).expect("paper");
        assert_eq!((paper.limit_price, paper.named_price()), (None, None));
        let no_trail = with(order.clone(), &["stopPrice"], json!(null));
        let whole = with(order.clone(), &["stopPrice"], json!(100));
        for invalid in [no_trail, whole] {
            for scope in [OrderScope::Etrade, OrderScope::PaperAccount] {
                assert_eq!(
                    code(invalid.clone(), scope),
                    codes::INVALID_ORDER_REQUEST,
                    "{invalid}"
                );
            }
        }
        let dollars = with(order, &["priceType"], json!("TRAILING_STOP_CNST"));
        let dollars = with(dollars, &["stopPrice"], json!(150));
        assert!(check(dollars, OrderScope::PaperAccount).is_ok());
    }

    #[test]
    fn on_open_and_on_close_orders_are_day_orders_and_limits_need_a_price() {
        for p in [
            "MARKET_ON_OPEN",
            "MARKET_ON_CLOSE",
            "LIMIT_ON_OPEN",
            "LIMIT_ON_CLOSE",
        ] {
            let order = with(limit_buy(), &["priceType"], json!(p));
            for scope in [OrderScope::Etrade, OrderScope::PaperAccount] {
                let r = check(order.clone(), scope).expect(p);
                let kept = p.starts_with("LIMIT") || scope == OrderScope::Etrade;
                assert_eq!(r.limit_price.is_some(), kept, "{p}");
                let gtc = with(order.clone(), &["orderTerm"], json!("GOOD_UNTIL_CANCEL"));
                assert_eq!(code(gtc, scope), codes::INVALID_ORDER_REQUEST, "{p}");
            }
            if p.starts_with("LIMIT") {
                let unpriced = with(order, &["limitPrice"], json!(null));
                assert_eq!(
                    code(unpriced, OrderScope::Etrade),
                    codes::INVALID_ORDER_REQUEST
                );
            }
        }
    }

    #[test]
    fn the_paper_account_keeps_only_the_prices_its_price_type_uses() {
        let market = with(limit_buy(), &["priceType"], json!("MARKET"));
        let paper = check(market.clone(), OrderScope::PaperAccount).expect("paper");
        let etrade = check(market, OrderScope::Etrade).expect("etrade");
        assert_eq!(paper.limit_price, None);
        assert_eq!(etrade.limit_price, Some(Decimal::from(170)));
    }

    #[test]
    fn refusals_both_scopes_share() {
        let cases = [
            (with(limit_buy(), &["marketSession"], json!("EXTENDED")), 0),
            (
                with(
                    with(limit_buy(), &["priceType"], json!("MARKET")),
                    &["marketSession"],
                    json!("EXTENDED"),
                ),
                codes::EXTENDED_HOURS_LIMIT_ONLY,
            ),
            (
                with(
                    limit_buy(),
                    &["Instrument", "0", "quantityType"],
                    json!(null),
                ),
                codes::INVALID_ORDER_REQUEST,
            ),
            (
                with(
                    limit_buy(),
                    &["Instrument", "0", "orderAction"],
                    json!("BUY_OPEN"),
                ),
                codes::INVALID_ORDER_REQUEST,
            ),
            (
                with(limit_buy(), &["limitPrice"], json!("abc")),
                codes::INVALID_ORDER_REQUEST,
            ),
            (
                with(limit_buy(), &["limitPrice"], json!(-1)),
                codes::INVALID_ORDER_REQUEST,
            ),
        ];
        for (order, expected) in cases {
            for scope in [OrderScope::Etrade, OrderScope::PaperAccount] {
                assert_eq!(code(order.clone(), scope), expected, "{order}");
            }
        }
        let bad_id = json!({"PreviewOrderRequest": {"orderType": "EQ",
            "clientOrderId": "has space", "Order": [limit_buy()]}});
        let refused = parse(&bad_id, OrderRoot::Preview, OrderScope::Etrade).err();
        assert_eq!(refused, Some(RequestError::ClientOrderId));
    }

    #[test]
    fn option_legs_need_a_real_expiry() {
        let call = |month: Value| {
            json!({"allOrNone": false, "priceType": "MARKET", "orderTerm": "GOOD_FOR_DAY",
                "marketSession": "REGULAR",
                "Instrument": [{"Product": {"securityType": "OPTN", "symbol": "AAPL",
                    "callPut": "CALL", "expiryYear": 2027, "expiryMonth": month,
                    "expiryDay": 15, "strikePrice": "180"},
                    "orderAction": "BUY_OPEN", "quantityType": "QUANTITY", "quantity": 1}]})
        };
        let order = |month| {
            json!({"PreviewOrderRequest": {"orderType": "OPTN",
            "clientOrderId": "o1", "Order": call(month)}})
        };
        let ok = parse(&order(json!("1")), OrderRoot::Preview, OrderScope::Etrade)
            .expect("accepted")
            .request;
        assert_eq!(
            ok.legs[0].instrument.osi_key().as_deref(),
            Some("AAPL--270115C00180000")
        );
        for month in [json!(0), json!(13), json!(1.5)] {
            let refused = parse(
                &order(month.clone()),
                OrderRoot::Preview,
                OrderScope::Etrade,
            );
            assert_eq!(
                refused.err().map(|e| e.code()),
                Some(codes::INVALID_ORDER_REQUEST)
            );
        }
    }

    #[test]
    fn a_place_names_its_preview_in_an_array_of_one() {
        assert_eq!(preview_id(Some(&json!([{"previewId": 7}]))), Some(7));
        assert_eq!(preview_id(Some(&json!([{"previewId": "7"}]))), Some(7));
        assert_eq!(preview_id(Some(&json!({"previewId": 7}))), None);
        assert_eq!(
            preview_id(Some(&json!([{"previewId": 7}, {"previewId": 8}]))),
            None
        );
        assert_eq!(preview_id(None), None);
    }

    #[test]
    fn stored_requests_keep_their_form() {
        let stored = json!({"order_type": "EQ", "client_order_id": "c1", "price_type": "LIMIT",
            "order_term": "GOOD_FOR_DAY", "market_session": "REGULAR", "all_or_none": false,
            "limit_price": "170", "stop_price": null,
            "legs": [{"instrument": {"kind": "equity", "symbol": "AAPL"}, "action": "BUY",
                "quantity": "10"}]});
        let r: OrderRequest = serde_json::from_value(stored.clone()).expect("reads");
        assert_eq!(Some(r), check(limit_buy(), OrderScope::PaperAccount).ok());
        let written = serde_json::to_value(check(limit_buy(), OrderScope::PaperAccount).ok());
        assert_eq!(written.ok(), Some(stored));
    }
}
