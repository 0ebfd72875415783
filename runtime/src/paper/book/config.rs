//! The book's configuration (accounts, starting cash, commissions and fees) and the fresh
//! book seeded from it: account keys and numbers, and each account's opening deposit.

use base64::Engine as _;
use jiff::Timestamp;
use rust_decimal::Decimal;
use sha2::{Digest, Sha256};

use super::PaperError;
use super::state::{self, AccountRec, LedgerKind, LedgerRec, State, TransactionRec, TxKind};

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PaperConfig {
    pub accounts: Vec<PaperAccountConfig>,
    pub commission_per_trade: Decimal,
    pub commission_per_contract: Decimal,
    /// Charged on sales: rate × principal, rounded to cents.
    pub fee_per_sale_rate: Decimal,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PaperAccountConfig {
    pub name: String,
    pub starting_cash: Decimal,
    pub margin: bool,
}

impl Default for PaperConfig {
    fn default() -> Self {
        PaperConfig {
            accounts: vec![
                PaperAccountConfig {
                    name: "Paper Margin".into(),
                    starting_cash: Decimal::new(10_000_000, 2),
                    margin: true,
                },
                PaperAccountConfig {
                    name: "Paper IRA".into(),
                    starting_cash: Decimal::new(2_500_000, 2),
                    margin: false,
                },
            ],
            commission_per_trade: Decimal::ZERO,
            commission_per_contract: Decimal::new(65, 2),
            fee_per_sale_rate: Decimal::ZERO,
        }
    }
}

/// `accountIdKey`: 22 URL-safe characters, deterministic from the name.
fn account_key(name: &str) -> String {
    let h = Sha256::digest(format!("etrade-paper account key\x1f{name}").as_bytes());
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(&h[..16])
}

/// `accountId`: 8 digits, deterministic from the name.
fn account_number(name: &str) -> u64 {
    let h = Sha256::digest(format!("etrade-paper account id\x1f{name}").as_bytes());
    let mut b = [0u8; 8];
    b.copy_from_slice(&h[..8]);
    10_000_000 + u64::from_be_bytes(b) % 90_000_000
}

/// A fresh book: the configured accounts, each with its opening deposit.
pub(super) fn seed(
    config: &PaperConfig,
    cash: Option<Decimal>,
    now: Timestamp,
    mut meta: state::Meta,
) -> Result<State, PaperError> {
    meta.last_eval = Some(now);
    let mut s = State::with_meta(meta);
    let mut numbers = Vec::new();
    for (seq, a) in config.accounts.iter().enumerate() {
        let key = account_key(&a.name);
        if s.accounts.contains_key(&key) {
            return Err(PaperError::Store(format!(
                "two paper accounts are named {:?}",
                a.name
            )));
        }
        let mut number = account_number(&a.name);
        while numbers.contains(&number) {
            number = if number >= 99_999_999 {
                10_000_000
            } else {
                number + 1
            };
        }
        numbers.push(number);
        let starting_cash = cash.unwrap_or(a.starting_cash);
        s.put_account(AccountRec {
            key: key.clone(),
            id: number.to_string(),
            name: a.name.clone(),
            margin: a.margin,
            starting_cash,
            cash: starting_cash,
            created_at: now,
            seq: u32::try_from(seq).unwrap_or(u32::MAX),
        });
        if !starting_cash.is_zero() {
            let transaction_id = s.new_transaction_id();
            s.put_transaction(TransactionRec {
                transaction_id,
                account_key: key.clone(),
                at: now,
                amount: starting_cash,
                kind: TxKind::Deposit,
                description: "OPENING DEPOSIT".into(),
                instrument: None,
                quantity: Decimal::ZERO,
                price: Decimal::ZERO,
                fee: Decimal::ZERO,
                order_id: None,
            });
            let entry_id = s.new_ledger_id();
            s.put_ledger(LedgerRec {
                entry_id,
                account_key: key,
                at: now,
                amount: starting_cash,
                kind: LedgerKind::Deposit,
                transaction_id: Some(transaction_id),
                order_id: None,
            });
        }
    }
    s.mark_all();
    Ok(s)
}
