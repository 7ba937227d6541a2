//! The payment schedule checked against the terms: every period's GPU charge is
//! hours × reserved GPUs × rate, exactly, and a prorated adjustment from an amendment is
//! the hours from its `effective_at` to the period's end × the GPUs it added × the rate.

use super::money::Usd;
use crate::api::enums::ChargeStatus;
use crate::api::models::{Amendment, Charge, Payment, ReservationDetail, Timestamp};
use super::time::format_utc_date;

/// CONTRACT.md: the advance is one average month of the reserved GPUs, 730 h
/// (365 d × 24 h / 12).
pub const ADVANCE_HOURS: i64 = 730;

/// What a charge should be, and whether it is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ChargeCheck {
    pub expected: Usd,
    /// Whole hours charged for (of the period, or from the amendment on).
    pub hours: i64,
    /// GPUs charged for (for an adjustment: the GPUs added, negative when removed).
    pub gpus: i64,
    pub matches: bool,
    /// How the expected figure comes about, and by how much the charge differs if it does.
    pub note: String,
}

/// The terms in force at one instant.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Terms {
    gpus: i64,
    rate: Usd,
}

/// Amendments in the order they took effect.
fn sorted(amendments: &[Amendment]) -> Vec<&Amendment> {
    let mut sorted: Vec<&Amendment> = amendments.iter().collect();
    sorted.sort_by_key(|a| a.effective_at);
    sorted
}

/// Reserved GPUs and rate in force at `at`: the latest amendment effective by then, else
/// the terms before the first amendment, else the reservation's own. A member's
/// amendments carry no rates; the payment's rate fills in.
fn terms_at(detail: &ReservationDetail, rate: Usd, at: Timestamp) -> Terms {
    let per_node = detail.reservation.gpus_per_node;
    let amendments = sorted(&detail.amendments);
    let in_force = amendments.iter().rev().find(|a| a.effective_at <= at);
    match (in_force, amendments.first()) {
        (Some(a), _) => Terms { gpus: a.node_count_after * per_node, rate: a.rate_usd_per_gpu_hour_after.unwrap_or(rate) },
        (None, Some(first)) => {
            Terms { gpus: first.node_count_before * per_node, rate: first.rate_usd_per_gpu_hour_before.unwrap_or(rate) }
        }
        (None, None) => Terms { gpus: detail.reservation.reserved_gpus, rate },
    }
}

/// `rate × gpus × seconds / 3600`, exact to the micro-dollar.
fn gpu_cost(rate: Usd, gpus: i64, seconds: i64) -> Usd {
    Usd::from_micros(rate.micros() * i128::from(gpus) * i128::from(seconds) / 3600)
}

/// Checks one charge against the terms. `payment` supplies the current rate.
pub fn check_charge(charge: &Charge, detail: &ReservationDetail, payment: &Payment) -> ChargeCheck {
    let rate = payment.rate_usd_per_gpu_hour;
    let mut check = if charge.adjustment { check_adjustment(charge, detail, rate) } else { check_period(charge, detail, rate) };
    let parts = charge.gpu_amount_usd + charge.storage_amount_usd;
    if parts != charge.amount_usd {
        check.matches = false;
        check.note.push_str(&format!(
            " The total {} is not GPUs {} + storage {} = {parts}.",
            charge.amount_usd, charge.gpu_amount_usd, charge.storage_amount_usd
        ));
    }
    check
}

fn check_period(charge: &Charge, detail: &ReservationDetail, rate: Usd) -> ChargeCheck {
    let seconds = (charge.period_end - charge.period_start).num_seconds();
    let terms = terms_at(detail, rate, charge.period_start);
    let expected = gpu_cost(terms.rate, terms.gpus, seconds);
    let hours = seconds / 3600;
    let how = format!(
        "{} ({} h) × {} GPUs × {}/GPU-hour = {expected}.",
        describe_span(seconds),
        hours,
        terms.gpus,
        terms.rate
    );
    finish(charge, expected, hours, terms.gpus, how)
}

/// The amendment a prorated charge comes from: one taking effect inside the period. If
/// several do, the one whose figure the charge matches, else the first.
fn check_adjustment(charge: &Charge, detail: &ReservationDetail, rate: Usd) -> ChargeCheck {
    let candidates: Vec<ChargeCheck> = sorted(&detail.amendments)
        .into_iter()
        .filter(|a| a.effective_at > charge.period_start && a.effective_at < charge.period_end)
        .map(|a| {
            let before = terms_at(detail, rate, a.effective_at - chrono::TimeDelta::nanoseconds(1));
            let after = terms_at(detail, rate, a.effective_at);
            let seconds = (charge.period_end - a.effective_at).num_seconds();
            let expected = gpu_cost(after.rate, after.gpus, seconds) - gpu_cost(before.rate, before.gpus, seconds);
            let added = after.gpus - before.gpus;
            let how = if before.rate == after.rate {
                format!(
                    "Prorated from the amendment of {}: {} h to the period's end × {added} GPUs added × {}/GPU-hour = {expected}.",
                    format_utc_date(a.effective_at),
                    seconds / 3600,
                    after.rate
                )
            } else {
                format!(
                    "Prorated from the amendment of {}: {} h to the period's end × ({} GPUs × {} − {} GPUs × {}) = {expected}.",
                    format_utc_date(a.effective_at),
                    seconds / 3600,
                    after.gpus,
                    after.rate,
                    before.gpus,
                    before.rate
                )
            };
            finish(charge, expected, seconds / 3600, added, how)
        })
        .collect();
    let matching = candidates.iter().position(|c| c.matches).unwrap_or(0);
    candidates.into_iter().nth(matching).unwrap_or_else(|| ChargeCheck {
        expected: Usd::ZERO,
        hours: 0,
        gpus: 0,
        matches: false,
        note: format!(
            "A prorated adjustment, but no amendment takes effect within {} – {}.",
            format_utc_date(charge.period_start),
            format_utc_date(charge.period_end)
        ),
    })
}

fn finish(charge: &Charge, expected: Usd, hours: i64, gpus: i64, how: String) -> ChargeCheck {
    let difference = charge.gpu_amount_usd - expected;
    let matches = difference.is_zero();
    let note = if matches {
        how
    } else {
        let (word, by) = if difference.is_negative() { ("less", -difference) } else { ("more", difference) };
        format!("{how} The GPU charge {} is {by} {word} than that.", charge.gpu_amount_usd)
    };
    ChargeCheck { expected, hours, gpus, matches, note }
}

/// `31 days`, `30 days 1 hour`: the period's length as a person reads it.
fn describe_span(seconds: i64) -> String {
    let days = seconds / 86_400;
    let hours = seconds % 86_400 / 3600;
    let plural = |n: i64, unit: &str| format!("{n} {unit}{}", if n == 1 { "" } else { "s" });
    match (days, hours) {
        (0, h) => plural(h, "hour"),
        (d, 0) => plural(d, "day"),
        (d, h) => format!("{} {}", plural(d, "day"), plural(h, "hour")),
    }
}

/// The advance expected from the terms at the start: [`ADVANCE_HOURS`] × reserved GPUs
/// × rate (seed 004: 730 h × 32 × $1.25 = $29,200).
pub fn check_advance(detail: &ReservationDetail, payment: &Payment) -> ChargeCheck {
    let start = detail.reservation.starts_at.or_else(|| payment.charges.iter().map(|c| c.period_start).min());
    let terms = match start {
        Some(at) => terms_at(detail, payment.rate_usd_per_gpu_hour, at),
        None => Terms { gpus: detail.reservation.reserved_gpus, rate: payment.rate_usd_per_gpu_hour },
    };
    let expected = gpu_cost(terms.rate, terms.gpus, ADVANCE_HOURS * 3600);
    let difference = payment.advance_usd - expected;
    let how = format!(
        "One average month: {ADVANCE_HOURS} h × {} GPUs × {}/GPU-hour = {expected}.",
        terms.gpus, terms.rate
    );
    let note = if difference.is_zero() {
        how
    } else {
        format!("{how} The advance {} differs by {}.", payment.advance_usd, if difference.is_negative() { -difference } else { difference })
    };
    ChargeCheck { expected, hours: ADVANCE_HOURS, gpus: terms.gpus, matches: difference.is_zero(), note }
}

/// Amounts of the schedule by charge status.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Totals {
    pub paid: Usd,
    pub scheduled: Usd,
    pub invoiced: Usd,
    pub past_due: Usd,
    pub waived: Usd,
    pub covered_by_advance: Usd,
    /// Charges with a status the console does not know, so that the parts add up to `total`.
    pub unrecognised: Usd,
    /// Every charge's `amount_usd`.
    pub total: Usd,
    /// Σ `advance_applied_usd` over the charges.
    pub advance_applied: Usd,
    /// `advance_remaining_usd` as the API reports it.
    pub advance_remaining: Usd,
}

impl Totals {
    /// The advance minus what the charges say was applied, against what the API reports
    /// as remaining: `None` when they agree, else the reported remainder's difference.
    pub fn advance_discrepancy(&self, advance: Usd) -> Option<Usd> {
        let difference = self.advance_remaining - (advance - self.advance_applied);
        (!difference.is_zero()).then_some(difference)
    }
}

pub fn totals(payment: &Payment) -> Totals {
    let mut t = Totals { advance_remaining: payment.advance_remaining_usd, ..Totals::default() };
    for charge in &payment.charges {
        let bucket = match charge.status {
            ChargeStatus::Paid => &mut t.paid,
            ChargeStatus::Scheduled => &mut t.scheduled,
            ChargeStatus::Invoiced => &mut t.invoiced,
            ChargeStatus::PastDue => &mut t.past_due,
            ChargeStatus::Waived => &mut t.waived,
            ChargeStatus::CoveredByAdvance => &mut t.covered_by_advance,
            ChargeStatus::Unknown(_) => &mut t.unrecognised,
        };
        *bucket = *bucket + charge.amount_usd;
        t.total = t.total + charge.amount_usd;
        t.advance_applied = t.advance_applied + charge.advance_applied_usd;
    }
    t
}
