//! Response bodies in E*TRADE's formats.

use axum::body::Body;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::Response;
use runtime::emulation::query_params::{self, ParamError};
use runtime::emulation::{EntryRefusal, codes};
use serde_json::{Value, json};

use crate::config::OauthErrorStyle;

pub(crate) const SERVICE_UNAVAILABLE: &str =
    "The requested service is not currently available, please try after sometime.";

fn with_type(status: StatusCode, content_type: &'static str, body: impl Into<Body>) -> Response {
    let mut r = Response::new(body.into());
    *r.status_mut() = status;
    r.headers_mut()
        .insert(header::CONTENT_TYPE, HeaderValue::from_static(content_type));
    r
}

pub(crate) fn json(status: StatusCode, v: &Value) -> Response {
    with_type(status, "application/json", v.to_string())
}

pub(crate) fn ok_json(v: &Value) -> Response {
    json(StatusCode::OK, v)
}

/// Appends `text` to every string member named in [`crate::faults::ECHO_FIELDS`], at any
/// depth.
pub(crate) fn append_to_text_fields(value: &mut Value, text: &str) {
    match value {
        Value::Array(items) => items
            .iter_mut()
            .for_each(|v| append_to_text_fields(v, text)),
        Value::Object(members) => {
            for (name, member) in members.iter_mut() {
                match member {
                    Value::String(s) if crate::faults::ECHO_FIELDS.contains(&name.as_str()) => {
                        s.push_str(text);
                    }
                    _ => append_to_text_fields(member, text),
                }
            }
        }
        _ => {}
    }
}

/// E*TRADE's `{"Error":{"code":…,"message":…}}`.
pub(crate) fn api_error(status: StatusCode, code: i64, message: &str) -> Response {
    json(
        status,
        &json!({"Error": {"code": code, "message": message}}),
    )
}

/// E*TRADE's 400 answer to an order entry the book refuses.
pub(crate) fn entry_refusal(refusal: EntryRefusal) -> Response {
    api_error(
        StatusCode::BAD_REQUEST,
        refusal.code(),
        &refusal.to_string(),
    )
}

/// 400 code 1: a query parameter has an invalid value.
pub(crate) fn invalid_param(name: &str) -> Response {
    api_error(
        StatusCode::BAD_REQUEST,
        codes::INVALID_PARAMETER,
        &codes::invalid_parameter(name),
    )
}

/// E*TRADE's answer to a refused query parameter.
pub(crate) fn param_refusal(e: &ParamError) -> Response {
    let status = StatusCode::from_u16(e.status()).unwrap_or(StatusCode::BAD_REQUEST);
    api_error(status, e.code(), &e.to_string())
}

/// 204 with an empty body (E*TRADE's "no records").
pub(crate) fn no_content() -> Response {
    let mut r = Response::new(Body::empty());
    *r.status_mut() = StatusCode::NO_CONTENT;
    r
}

pub(crate) fn text(status: StatusCode, body: impl Into<String>) -> Response {
    with_type(status, "text/plain;charset=UTF-8", body.into())
}

/// An OAuth token response body (`application/x-www-form-urlencoded`).
pub(crate) fn form(pairs: &[(&str, &str)]) -> Response {
    let body = query_params::query_string(pairs, runtime::etrade::oauth::encode);
    with_type(
        StatusCode::OK,
        "application/x-www-form-urlencoded;charset=UTF-8",
        body,
    )
}

/// A 401 from a `/v1/...` endpoint: `{"Error":{"message":"oauth_problem=token_expired"}}`.
pub(crate) fn api_unauthorized(problem: &str) -> Response {
    json(
        StatusCode::UNAUTHORIZED,
        &json!({"Error": {"message": format!("oauth_problem={problem}")}}),
    )
}

/// A 401 from an `/oauth/...` endpoint.
pub(crate) fn oauth_unauthorized(style: OauthErrorStyle, problem: &str) -> Response {
    let message = format!("oauth_problem={problem}");
    match style {
        OauthErrorStyle::Text => text(StatusCode::UNAUTHORIZED, message),
        OauthErrorStyle::TomcatHtml => tomcat_page(
            StatusCode::UNAUTHORIZED,
            &message,
            "This request requires HTTP authentication.",
        ),
    }
}

/// Apache Tomcat's default error report page.
pub(crate) fn tomcat_page(status: StatusCode, message: &str, description: &str) -> Response {
    let code = status.as_u16();
    let message = html_escape(message);
    let body = format!(
        "<html><head><title>Apache Tomcat/7.0.42 - Error report</title><style><!--H1 \
         {{font-family:Tahoma,Arial,sans-serif;color:white;background-color:#525D76;font-size:22px;}} \
         BODY {{font-family:Tahoma,Arial,sans-serif;color:black;background-color:white;}} --></style> \
         </head><body><h1>HTTP Status {code} - {message}</h1><HR size=\"1\" noshade=\"noshade\">\
         <p><b>type</b> Status report</p><p><b>message</b> <u>{message}</u></p>\
         <p><b>description</b> <u>{description}</u></p><HR size=\"1\" noshade=\"noshade\">\
         <h3>Apache Tomcat/7.0.42</h3></body></html>"
    );
    with_type(status, "text/html;charset=utf-8", body)
}

/// 5xx with `{"Error":{"code":100,"message":"The requested service is not currently available…"}}`.
pub(crate) fn service_unavailable(status: StatusCode) -> Response {
    api_error(status, 100, SERVICE_UNAVAILABLE)
}

/// E*TRADE's documented rate-limit answer: "Requests that exceed the limit are not
/// processed. Instead of the expected XML or JSON response, they return an HTML error page
/// containing the message: \"Number of requests exceeded the rate limit set\", with the HTTP
/// status code 400" (developer guide, rate limits). The page's markup is not documented;
/// this one is an ordinary HTML document around that sentence.
pub(crate) fn rate_limit_page() -> Response {
    with_type(
        StatusCode::BAD_REQUEST,
        "text/html;charset=utf-8",
        "<!DOCTYPE html>\n<html><head><title>Error</title></head><body>\n\
         <p> Number of requests exceeded the rate limit set </p>\n</body></html>\n",
    )
}

/// 406 from `/oauth/*` when the request's `Accept` admits neither form-encoded nor plain
/// text (Tomcat's wording).
pub(crate) fn not_acceptable() -> Response {
    tomcat_page(
        StatusCode::NOT_ACCEPTABLE,
        "Not Acceptable",
        "The resource identified by this request is only capable of generating responses with \
         characteristics not acceptable according to the request \"accept\" headers.",
    )
}

pub(crate) fn http_429() -> Response {
    text(StatusCode::TOO_MANY_REQUESTS, "Too Many Requests")
}

/// A gateway-style HTML 500 page (no JSON anywhere).
pub(crate) fn html_error_page() -> Response {
    with_type(
        StatusCode::INTERNAL_SERVER_ERROR,
        "text/html;charset=utf-8",
        "<!DOCTYPE html><html><head><title>500 Internal Server Error</title></head><body>\
         <h1>Internal Server Error</h1><p>The server encountered an internal error and was \
         unable to complete your request.</p></body></html>",
    )
}

pub(crate) fn not_found() -> Response {
    api_error(
        StatusCode::NOT_FOUND,
        404,
        "The requested resource was not found.",
    )
}

pub(crate) fn method_not_allowed() -> Response {
    api_error(
        StatusCode::METHOD_NOT_ALLOWED,
        405,
        "The requested method is not allowed for this resource.",
    )
}

pub(crate) fn html_escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}
