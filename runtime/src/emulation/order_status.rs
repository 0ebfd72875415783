//! An order's `status`, as E*TRADE lists it (also the list-orders `status` filter).

use super::wire_enum::wire_enum;

wire_enum! {
    /// `status` of an order.
    pub enum OrderStatus {
        Open = "OPEN",
        Executed = "EXECUTED",
        Cancelled = "CANCELLED",
        IndividualFills = "INDIVIDUAL_FILLS",
        CancelRequested = "CANCEL_REQUESTED",
        Expired = "EXPIRED",
        Rejected = "REJECTED",
    }
}

impl OrderStatus {
    /// Still working: it can fill, be cancelled or expire.
    pub fn is_open(self) -> bool {
        matches!(self, OrderStatus::Open | OrderStatus::IndividualFills)
    }
}
