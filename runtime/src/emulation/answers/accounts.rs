//! `GET /v1/accounts/list`.

use serde_json::{Value, json};

/// One account as the list names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AccountEntry<'a> {
    /// Digits (`"84010429"`).
    pub id: &'a str,
    /// The opaque key every per-account path uses.
    pub key: &'a str,
    /// CASH | MARGIN | IRA | …
    pub mode: &'a str,
    pub desc: &'a str,
    /// The nickname; may be empty.
    pub name: &'a str,
    pub account_type: &'a str,
    pub institution_type: &'a str,
    /// ACTIVE | CLOSED
    pub status: &'a str,
    /// Epoch seconds; 0 while open.
    pub closed_date: i64,
    pub inst_no: i64,
}

fn account_json(a: &AccountEntry<'_>) -> Value {
    json!({
        "accountId": a.id,
        "accountIdKey": a.key,
        "accountMode": a.mode,
        "accountDesc": a.desc,
        "accountName": a.name,
        "accountType": a.account_type,
        "institutionType": a.institution_type,
        "accountStatus": a.status,
        "closedDate": a.closed_date,
        "instNo": a.inst_no,
        "shareWorksAccount": false,
        "fcManagedMssbClosedAccount": false,
    })
}

/// The list, in the order given; None when there is no account (E*TRADE's 204).
pub fn account_list(accounts: &[AccountEntry<'_>]) -> Option<Value> {
    if accounts.is_empty() {
        return None;
    }
    let list: Vec<Value> = accounts.iter().map(account_json).collect();
    Some(json!({"AccountListResponse": {"Accounts": {"Account": list}}}))
}
