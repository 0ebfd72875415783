//! The router table. Each API area is a module; add a new endpoint with one `.route(...)`
//! line here and a handler in its area's module. Every `/v1/...` route sits behind
//! [`auth::gate_api`] (an active access token); paths arrive with `.json` suffixes already
//! removed, so one route serves both forms.

use std::collections::HashMap;
use std::sync::Arc;

use axum::Router;
use axum::middleware::from_fn_with_state;
use axum::response::Response;
use axum::routing::{get, post, put};

use crate::auth;
use crate::responses;
use crate::state::Shared;

pub(crate) mod accounts;
pub(crate) mod alerts;
pub(crate) mod market;
pub(crate) mod order_cancel;
pub(crate) mod order_entry;
pub(crate) mod order_request;
pub(crate) mod orders;

/// A `true`/`false` query parameter (any case); absent → `default`.
pub(crate) fn bool_param(
    q: &HashMap<String, String>,
    name: &str,
    default: bool,
) -> Result<bool, Response> {
    match q.get(name).map(|v| v.to_ascii_lowercase()) {
        None => Ok(default),
        Some(v) if v == "true" => Ok(true),
        Some(v) if v == "false" => Ok(false),
        Some(_) => Err(responses::invalid_param(name)),
    }
}

pub(crate) fn router(s: Arc<Shared>) -> Router {
    let oauth = Router::new()
        .route(
            "/oauth/request_token",
            get(auth::request_token)
                .route_layer(from_fn_with_state(s.clone(), auth::gate_consumer)),
        )
        .route(
            "/oauth/access_token",
            get(auth::access_token)
                .route_layer(from_fn_with_state(s.clone(), auth::gate_request_token)),
        )
        .route(
            "/oauth/renew_access_token",
            get(auth::renew)
                .route_layer(from_fn_with_state(s.clone(), auth::gate_any_access_token)),
        )
        .route(
            "/oauth/revoke_access_token",
            get(auth::revoke)
                .route_layer(from_fn_with_state(s.clone(), auth::gate_any_access_token)),
        )
        .route("/e/t/etws/authorize", get(auth::authorize));

    let v1 = Router::new()
        // Accounts
        .route("/v1/accounts/list", get(accounts::list))
        .route("/v1/accounts/{key}/balance", get(accounts::balance))
        .route("/v1/accounts/{key}/portfolio", get(accounts::portfolio))
        .route(
            "/v1/accounts/{key}/portfolio/{position_id}",
            get(accounts::position_lots),
        )
        .route(
            "/v1/accounts/{key}/transactions",
            get(accounts::transactions),
        )
        .route(
            "/v1/accounts/{key}/transactions/{transaction_id}",
            get(accounts::transaction_details),
        )
        // Market, orders and alerts reads
        .route("/v1/market/quote/{symbols}", get(market::quote))
        .route("/v1/market/lookup/{search}", get(market::lookup))
        .route("/v1/market/optionchains", get(market::option_chains))
        .route(
            "/v1/market/optionexpiredate",
            get(market::option_expire_dates),
        )
        .route("/v1/accounts/{key}/orders", get(orders::list))
        .route("/v1/user/alerts", get(alerts::list))
        .route(
            "/v1/user/alerts/{id}",
            get(alerts::details).delete(alerts::delete),
        )
        // Order entry and alert deletion (mutations)
        .route(
            "/v1/accounts/{key}/orders/preview",
            post(order_entry::preview),
        )
        .route("/v1/accounts/{key}/orders/place", post(order_entry::place))
        .route(
            "/v1/accounts/{key}/orders/cancel",
            put(order_cancel::cancel),
        )
        .route(
            "/v1/accounts/{key}/orders/{order_id}/change/preview",
            put(order_entry::change_preview),
        )
        .route(
            "/v1/accounts/{key}/orders/{order_id}/change/place",
            put(order_entry::change_place),
        )
        .route_layer(from_fn_with_state(s.clone(), auth::gate_api));

    Router::new()
        .merge(oauth)
        .merge(v1)
        .fallback(|| async { responses::not_found() })
        .method_not_allowed_fallback(|| async { responses::method_not_allowed() })
        .with_state(s)
}
