//! Money: the payment schedule checked against the terms, the term ledger, a launch's billing.

pub mod billing;
pub mod launched;
pub mod ledger;
