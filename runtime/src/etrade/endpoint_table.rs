// Every E*TRADE endpoint the runtime calls, once: its name, HTTP method, pacing module and
// path with E*TRADE's parameter names. `request.rs` expands these rows into `Endpoint`, its
// `ALL` list and `Endpoint::shape`; the code generator reads the same rows as data (parsed
// with syn) to check the spec's bindings. One row per endpoint: `Name = VERB MODULE "path";`.
endpoints! {
    AccountList = GET ACCOUNTS "/v1/accounts/list";
    Balance = GET ACCOUNTS "/v1/accounts/{accountIdKey}/balance";
    Portfolio = GET ACCOUNTS "/v1/accounts/{accountIdKey}/portfolio";
    PositionLots = GET ACCOUNTS "/v1/accounts/{accountIdKey}/portfolio/{positionId}";
    Transactions = GET ACCOUNTS "/v1/accounts/{accountIdKey}/transactions";
    TransactionDetails = GET ACCOUNTS "/v1/accounts/{accountIdKey}/transactions/{transactionId}";
    Orders = GET ORDERS "/v1/accounts/{accountIdKey}/orders";
    PreviewOrder = POST ORDERS "/v1/accounts/{accountIdKey}/orders/preview";
    PlaceOrder = POST ORDERS "/v1/accounts/{accountIdKey}/orders/place";
    CancelOrder = PUT ORDERS "/v1/accounts/{accountIdKey}/orders/cancel";
    PreviewChangeOrder = PUT ORDERS "/v1/accounts/{accountIdKey}/orders/{orderId}/change/preview";
    PlaceChangeOrder = PUT ORDERS "/v1/accounts/{accountIdKey}/orders/{orderId}/change/place";
    Quotes = GET MARKET "/v1/market/quote/{symbols}";
    Lookup = GET MARKET "/v1/market/lookup/{search}";
    OptionChains = GET MARKET "/v1/market/optionchains";
    OptionExpireDates = GET MARKET "/v1/market/optionexpiredate";
    Alerts = GET ALERTS "/v1/user/alerts";
    AlertDetails = GET ALERTS "/v1/user/alerts/{alertId}";
    DeleteAlerts = DELETE ALERTS "/v1/user/alerts/{alertIds}";
}
