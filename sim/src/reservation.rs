//! A GPU reservation as the simulator holds it: the contract terms (seed 004's list and detail
//! fields), from which the payment schedule and the nodes are derived.

use crate::billing::{self, ChargeStatus, Schedule, Usd};
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    Assigning,
    Scheduled,
    AwaitingPayment,
    #[default]
    Active,
    PastDue,
    Suspended,
    Ended,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum BillingPeriod {
    #[default]
    Monthly,
    Quarterly,
}

impl BillingPeriod {
    pub fn months(self) -> u32 {
        match self {
            BillingPeriod::Monthly => 1,
            BillingPeriod::Quarterly => 3,
        }
    }
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Funding {
    #[default]
    Wallet,
    Invoice,
}

/// The simulated accounts: the demo account (owner and member keys), another company's
/// account, and the demo company's second account (issue 48: owner and member keys, other
/// regions, ids the demo account uses too). Ordered: a hook that names no account finds the
/// first that holds the id ([`crate::state::World::find`]). Hooks name one as `demo`,
/// `other` or `europe`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Account {
    #[default]
    Demo,
    Other,
    Europe,
}

impl Account {
    /// Mixed into the seed of its reservations' workloads: the same id in two accounts must
    /// not run the same workloads. 0 for the accounts whose ids never collide, so that their
    /// data stays what it was.
    pub fn workload_salt(self) -> u64 {
        match self {
            Account::Demo | Account::Other => 0,
            Account::Europe => 0x4555_524f_5045,
        }
    }
}

/// Which reservation: an id is its account's own, and two accounts may use the same one.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Key {
    pub account: Account,
    pub id: u64,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum NodeState {
    #[default]
    Ready,
    Preparing,
    UnderMaintenance,
}

/// What an amendment can change: nodes and the storage quotas.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Terms {
    pub node_count: u32,
    pub drive_quota_gib: u32,
    pub fs_quota_gib: u32,
}

#[derive(Clone, Debug)]
pub struct Amendment {
    pub effective_at: DateTime<Utc>,
    pub before: Terms,
    pub after: Terms,
}

/// The invoice a reservation starts with, as far as it is settled.
#[derive(Clone, Copy, Debug, Default)]
pub struct FirstInvoiceTerms {
    pub issued: bool,
    pub due_at: Option<DateTime<Utc>>,
    pub paid_at: Option<DateTime<Utc>>,
}

/// Everything a demo reservation is defined by.
#[derive(Clone, Debug)]
pub struct Spec {
    pub id: u64,
    pub account: Account,
    pub status: Status,
    pub region_id: &'static str,
    pub gpu_type: &'static str,
    pub gpus_per_node: u32,
    pub term_months: u32,
    pub billing_period: BillingPeriod,
    /// `None` while awaiting payment: the term starts when the first invoice is paid.
    pub starts_at: Option<DateTime<Utc>>,
    pub contract_ref: String,
    pub funding: Funding,
    pub rate: Usd,
    pub drive_rate: Usd,
    pub fs_rate: Usd,
    /// Terms at the start, before any amendment.
    pub initial: Terms,
    pub amendments: Vec<Amendment>,
    /// Drive and filesystem GiB in use.
    pub storage_used: (u32, u32),
    /// Charges whose status is not the one the calendar implies (an unpaid or waived period),
    /// by `period_index` (0 = the first period).
    pub overrides: Vec<(u32, ChargeStatus)>,
    pub first_invoice: Option<FirstInvoiceTerms>,
    pub stops_at: Option<DateTime<Utc>>,
    pub ended_at: Option<DateTime<Utc>>,
    /// State of each node while the reservation runs (see `assumptions::node_presence`).
    pub node_states: Vec<NodeState>,
    /// Its lanes run steady workloads ([`STEADY_LANES`](crate::assumptions::STEADY_LANES))
    /// instead of churning: the demo's fragmented reservation.
    pub steady_lanes: bool,
    /// Lanes whose workload ended (`/api/__sim/end-workload`), by node index and lane: empty
    /// until a reset.
    pub ended_lanes: Vec<(usize, usize)>,
}

impl Default for Spec {
    fn default() -> Self {
        Spec {
            id: 0,
            account: Account::Demo,
            status: Status::Active,
            region_id: "",
            gpu_type: "",
            gpus_per_node: 8,
            term_months: 12,
            billing_period: BillingPeriod::Monthly,
            starts_at: None,
            contract_ref: String::new(),
            funding: Funding::Wallet,
            rate: Usd::ZERO,
            drive_rate: Usd::ZERO,
            fs_rate: Usd::ZERO,
            initial: Terms::default(),
            amendments: Vec::new(),
            storage_used: (0, 0),
            overrides: Vec::new(),
            first_invoice: None,
            stops_at: None,
            ended_at: None,
            node_states: Vec::new(),
            steady_lanes: false,
            ended_lanes: Vec::new(),
        }
    }
}

impl Spec {
    /// The terms in force at `at`: the latest amendment effective by then, else the initial.
    pub fn terms_at(&self, at: DateTime<Utc>) -> Terms {
        self.amendments
            .iter()
            .filter(|a| a.effective_at <= at)
            .max_by_key(|a| a.effective_at)
            .map_or(self.initial, |a| a.after)
    }

    pub fn key(&self) -> Key {
        Key { account: self.account, id: self.id }
    }

    pub fn ends_at(&self) -> Option<DateTime<Utc>> {
        self.starts_at.map(|start| crate::clock::add_months(start, self.term_months as i32))
    }
}

/// A reservation with what its terms imply as of the simulator's start.
pub struct Reservation {
    pub spec: Spec,
    /// Terms in force now: the list's `node_count` and quotas.
    pub current: Terms,
    pub schedule: Schedule,
}

impl Reservation {
    pub fn new(spec: Spec, as_of: DateTime<Utc>) -> Self {
        let current = spec.terms_at(as_of);
        let schedule = billing::schedule(&spec, as_of);
        Reservation { spec, current, schedule }
    }

    pub fn node_count(&self) -> u32 {
        self.current.node_count
    }
}
