//! Account tools: list accounts (more in issue 5).

use super::{Handlers, data, unreadable};
use runtime::dispatch::ToolResult;
use runtime::etrade::Module;
use runtime::etrade::models::accounts::AccountList;

pub async fn list_accounts(h: &Handlers) -> ToolResult {
    let body = h.read(Module::Accounts, "/v1/accounts/list", &[]).await?;
    data(&AccountList::from_wire(body).map_err(unreadable)?)
}
