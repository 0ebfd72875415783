//! `GET /v1/accounts/list` → `AccountListResponse.Accounts.Account[]`.

pub use super::generated::Account;
use crate::etrade::BrokerBody;
use crate::etrade::one_or_many;
use serde::{Deserialize, Serialize};

#[derive(Debug, Deserialize)]
pub struct AccountListResponse {
    #[serde(rename = "AccountListResponse")]
    pub response: AccountListBody,
}

#[derive(Debug, Default, Deserialize)]
pub struct AccountListBody {
    #[serde(rename = "Accounts", alias = "accounts")]
    pub accounts: AccountsContainer,
}

#[derive(Debug, Default, Deserialize)]
pub struct AccountsContainer {
    #[serde(
        rename = "Account",
        alias = "account",
        deserialize_with = "one_or_many"
    )]
    pub account: Vec<Account>,
}

/// The `list_accounts` data object.
#[derive(Debug, Serialize)]
pub struct AccountList {
    pub accounts: Vec<Account>,
}

impl AccountList {
    /// `None` is E*TRADE's empty answer (204).
    pub fn from_wire(
        body: Option<impl Into<BrokerBody>>,
    ) -> Result<AccountList, serde_json::Error> {
        let accounts = match body {
            None => Vec::new(),
            Some(v) => {
                let r: AccountListResponse = v.into().read()?;
                r.response.accounts.account
            }
        };
        Ok(AccountList { accounts })
    }
}
#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn reads_the_wire_shape_and_writes_the_output_names() {
        let wire = json!({"AccountListResponse": {"Accounts": {"Account": [
            {"accountId": "45249801", "accountIdKey": "idU1aBkPvD5n46JI_7S_2A", "accountMode": "MARGIN",
             "accountDesc": "Brokerage", "accountName": "", "accountType": "INDIVIDUAL",
             "institutionType": "BROKERAGE", "accountStatus": "ACTIVE", "closedDate": 0,
             "instNo": 1, "shareWorksAccount": false, "fcManagedMssbClosedAccount": false},
            {"accountId": "1", "accountIdKey": "k2", "accountStatus": "CLOSED", "closedDate": 1577836800}
        ]}}});
        let list = AccountList::from_wire(Some(wire)).expect("parses");
        assert_eq!(list.accounts.len(), 2);
        assert_eq!(list.accounts[0].closed_date, None);
        assert_eq!(
            list.accounts[1].closed_date.as_deref(),
            Some("2020-01-01T00:00:00Z")
        );
        let out = serde_json::to_value(&list).expect("serializes");
        assert_eq!(out["accounts"][0]["accountIdKey"], "idU1aBkPvD5n46JI_7S_2A");
        assert!(out["accounts"][0].get("account_id_key").is_none());
    }

    #[test]
    fn one_account_as_an_object_and_empty_answers() {
        let wire = json!({"AccountListResponse": {"Accounts": {"Account":
            {"accountId": "1", "accountIdKey": "k"}}}});
        assert_eq!(
            AccountList::from_wire(Some(wire))
                .expect("one")
                .accounts
                .len(),
            1
        );
        assert!(
            AccountList::from_wire(None::<serde_json::Value>)
                .expect("204")
                .accounts
                .is_empty()
        );
        let empty = json!({"AccountListResponse": {"Accounts": {"Account": []}}});
        assert!(
            AccountList::from_wire(Some(empty))
                .expect("empty")
                .accounts
                .is_empty()
        );
        // Without its containers the answer is unreadable, not "no accounts".
        for unreadable in [
            json!({"AccountListResponse": {}}),
            json!({"AccountListResponse": {"Accounts": {}}}),
            json!({"AccountListResponse": {"Accounts": {"Acct": []}}}),
        ] {
            assert!(AccountList::from_wire(Some(unreadable)).is_err());
        }
    }
}
