//! The payment schedule of a reservation, exact in integer cents, laid out the way seed 004's
//! example adds up: a period's GPU charge is hours × reserved GPUs × rate (December 2026:
//! 744 h × 32 × $1.25 = $29,760), a prorated adjustment is the hours from an amendment to
//! the period's end × the GPUs it added × rate, and the advance is one average month
//! (730 h × GPUs × rate = $29,200).

use crate::assumptions;
use crate::clock::add_months;
use crate::reservation::{FirstInvoiceTerms, Funding, Spec, Terms};
use chrono::{DateTime, Utc};
use serde::{Serialize, Serializer};
use std::ops::{Add, Sub};

/// CONTRACT.md: the advance is one average month, 365 d × 24 h / 12.
pub const ADVANCE_HOURS: i64 = 730;

/// US dollars held as integer cents; on the wire a JSON number with at most two decimals
/// (`29760`, `2.34`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord)]
pub struct Usd(pub i64);

impl Usd {
    pub const ZERO: Usd = Usd(0);

    pub fn times(self, factor: i64) -> Usd {
        Usd(self.0 * factor)
    }
}

impl Add for Usd {
    type Output = Usd;
    fn add(self, other: Usd) -> Usd {
        Usd(self.0 + other.0)
    }
}

impl Sub for Usd {
    type Output = Usd;
    fn sub(self, other: Usd) -> Usd {
        Usd(self.0 - other.0)
    }
}

impl Serialize for Usd {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        if self.0 % 100 == 0 {
            serializer.serialize_i64(self.0 / 100)
        } else {
            // The shortest decimal that round-trips a cents value has at most two decimals.
            serializer.serialize_f64(self.0 as f64 / 100.0)
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ChargeStatus {
    Scheduled,
    Invoiced,
    Paid,
    CoveredByAdvance,
    PastDue,
    Waived,
}

impl ChargeStatus {
    /// "next_charge is the earliest charge not yet paid": these still await a payment.
    fn unpaid(self) -> bool {
        matches!(self, ChargeStatus::Scheduled | ChargeStatus::Invoiced | ChargeStatus::PastDue)
    }
}

#[derive(Clone, Debug, Serialize)]
pub struct Charge {
    pub period_index: u32,
    pub adjustment: bool,
    pub period_start: DateTime<Utc>,
    pub period_end: DateTime<Utc>,
    pub gpu_amount_usd: Usd,
    pub storage_amount_usd: Usd,
    pub amount_usd: Usd,
    pub advance_applied_usd: Usd,
    pub status: ChargeStatus,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub due_at: Option<DateTime<Utc>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub paid_at: Option<DateTime<Utc>>,
    /// When the charge is taken or invoiced: the period's start, or the amendment's.
    #[serde(skip)]
    charged_at: DateTime<Utc>,
}

#[derive(Clone, Debug, Serialize)]
pub struct FirstInvoice {
    pub amount_usd: Usd,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub due_at: Option<DateTime<Utc>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub paid_at: Option<DateTime<Utc>>,
    pub issued: bool,
}

#[derive(Clone, Debug)]
pub struct Schedule {
    pub advance: Usd,
    pub advance_remaining: Usd,
    pub charges: Vec<Charge>,
    pub first_invoice: Option<FirstInvoice>,
}

impl Schedule {
    pub fn next_charge(&self) -> Option<&Charge> {
        self.charges.iter().find(|c| c.status.unpaid())
    }

    /// When the overdue charge fell due: the reservation's `past_due_since`.
    pub fn overdue_since(&self) -> Option<DateTime<Utc>> {
        self.charges.iter().find(|c| c.status == ChargeStatus::PastDue).and_then(|c| c.due_at)
    }
}

fn hours(from: DateTime<Utc>, to: DateTime<Utc>) -> i64 {
    (to - from).num_hours()
}

/// Storage included in a period: GiB quota × GiB-month rate × months.
fn storage_cost(spec: &Spec, terms: Terms, months: u32) -> Usd {
    (spec.drive_rate.times(terms.drive_quota_gib.into()) + spec.fs_rate.times(terms.fs_quota_gib.into()))
        .times(months.into())
}

fn gpus(spec: &Spec, node_count: u32) -> i64 {
    i64::from(node_count * spec.gpus_per_node)
}

/// The schedule as of `as_of`: every period of the term, the prorated adjustments, each
/// with the status the calendar (and the spec's overrides) gives it.
pub fn schedule(spec: &Spec, as_of: DateTime<Utc>) -> Schedule {
    // Whatever the funding, wallet too (an assumption, see `assumptions`).
    let advance = spec.rate.times(ADVANCE_HOURS * gpus(spec, spec.initial.node_count));
    let months = spec.billing_period.months();
    let Some(start) = spec.starts_at else {
        // Not started: no schedule yet; the first invoice prices the first period without dates.
        let period_one = spec
            .rate
            .times(assumptions::UNSTARTED_HOURS_PER_MONTH * i64::from(months) * gpus(spec, spec.initial.node_count))
            + storage_cost(spec, spec.initial, months);
        return Schedule {
            advance,
            advance_remaining: advance,
            charges: Vec::new(),
            first_invoice: spec.first_invoice.map(|terms| first_invoice(terms, advance + period_one)),
        };
    };
    let mut charges = lay_out(spec, start, months);
    for charge in &mut charges {
        settle(spec, charge, as_of);
    }
    let advance_remaining = draw_advance(&mut charges, advance, as_of);
    let first_invoice = spec.first_invoice.map(|terms| first_invoice(terms, advance + charges[0].amount_usd));
    Schedule { advance, advance_remaining, charges, first_invoice }
}

fn first_invoice(terms: FirstInvoiceTerms, amount: Usd) -> FirstInvoice {
    FirstInvoice { amount_usd: amount, due_at: terms.due_at, paid_at: terms.paid_at, issued: terms.issued }
}

fn charge(
    index: u32,
    adjustment: bool,
    (start, end): (DateTime<Utc>, DateTime<Utc>),
    gpu: Usd,
    storage: Usd,
    charged_at: DateTime<Utc>,
) -> Charge {
    Charge {
        period_index: index,
        adjustment,
        period_start: start,
        period_end: end,
        gpu_amount_usd: gpu,
        storage_amount_usd: storage,
        amount_usd: gpu + storage,
        advance_applied_usd: Usd::ZERO,
        status: ChargeStatus::Scheduled,
        due_at: None,
        paid_at: None,
        charged_at,
    }
}

/// Every period of the term at the terms in force at its start, each followed by the
/// adjustments of amendments that take effect inside it. Index 0 is the period starting at
/// `starts_at` (the one the first invoice pays), as in seed 004's example (see
/// `assumptions`).
fn lay_out(spec: &Spec, start: DateTime<Utc>, months: u32) -> Vec<Charge> {
    let periods = spec.term_months.div_ceil(months);
    let mut charges = Vec::new();
    for index in 0..periods {
        let period = (add_months(start, (index * months) as i32), add_months(start, ((index + 1) * months) as i32));
        let terms = spec.terms_at(period.0);
        let gpu = spec.rate.times(hours(period.0, period.1) * gpus(spec, terms.node_count));
        charges.push(charge(index, false, period, gpu, storage_cost(spec, terms, months), period.0));
        for amendment in spec.amendments.iter().filter(|a| a.effective_at > period.0 && a.effective_at < period.1) {
            let added = gpus(spec, amendment.after.node_count) - gpus(spec, amendment.before.node_count);
            let gpu = spec.rate.times(hours(amendment.effective_at, period.1) * added);
            charges.push(charge(index, true, period, gpu, assumptions::ADJUSTMENT_STORAGE, amendment.effective_at));
        }
    }
    charges
}

/// The status the calendar gives a charge (see the billing assumptions), then the spec's
/// overrides for the period's regular charge.
fn settle(spec: &Spec, charge: &mut Charge, as_of: DateTime<Utc>) {
    if charge.charged_at > as_of {
        return;
    }
    let paid_by_first_invoice = charge.period_index == 0 && !charge.adjustment;
    match (spec.funding, spec.first_invoice) {
        (_, Some(first)) if paid_by_first_invoice => {
            charge.status = ChargeStatus::Paid;
            charge.due_at = first.due_at;
            charge.paid_at = first.paid_at;
        }
        (Funding::Wallet, _) => {
            charge.status = ChargeStatus::Paid;
            charge.paid_at = Some(charge.charged_at);
        }
        (Funding::Invoice, _) => {
            let due = add_months(charge.charged_at, assumptions::INVOICE_TERM_MONTHS);
            charge.due_at = Some(due);
            if due <= as_of {
                charge.status = ChargeStatus::Paid;
                charge.paid_at = Some(due - assumptions::PAID_BEFORE_DUE);
            } else {
                charge.status = ChargeStatus::Invoiced;
            }
        }
    }
    let overridden = spec.overrides.iter().find(|(index, _)| *index == charge.period_index && !charge.adjustment);
    if let Some(&(_, status)) = overridden {
        charge.status = status;
        charge.paid_at = None;
        if status == ChargeStatus::Waived {
            charge.due_at = None;
        }
        if status == ChargeStatus::PastDue && charge.due_at.is_none() {
            // A wallet period not taken from credit fell due when it started (assumptions).
            charge.due_at = Some(charge.charged_at);
        }
    }
}

/// Applies the advance to the term's last charges, from the last backwards, once they are
/// charged (an **assumption**, listed in `assumptions`); answers what is left of it.
fn draw_advance(charges: &mut [Charge], advance: Usd, as_of: DateTime<Utc>) -> Usd {
    let mut left = advance;
    for charge in charges.iter_mut().rev() {
        if left == Usd::ZERO || charge.charged_at > as_of {
            break;
        }
        if charge.status == ChargeStatus::Waived {
            continue;
        }
        let applied = left.min(charge.amount_usd);
        charge.advance_applied_usd = applied;
        left = left - applied;
        if applied == charge.amount_usd {
            charge.status = ChargeStatus::CoveredByAdvance;
            charge.due_at = None;
            charge.paid_at = None;
        }
    }
    left
}
