//! The payment schedule checked against the terms: every period's GPU charge is
//! hours × reserved GPUs × rate, exactly, and a prorated adjustment from an amendment is
//! the hours from its `effective_at` to the period's end × the GPUs it added × the rate.
//!
//! `check_charge` takes the `Payment` beside the detail (the agreed interface left the
//! second argument open): charges exist only where a payment does, so no rate is guessed.

use crate::api::assumptions::{
    not_yet_paid, STORAGE_NOT_ON_ADJUSTMENTS, STORAGE_ONLY_ASSUMED, STORAGE_PRORATED, STORAGE_WHOLE_MONTHS,
};
use crate::api::enums::{BillingPeriod, ChargeStatus, Funding, ReservationStatus};
use crate::api::models::{Amendment, Charge, Payment, ReservationDetail, Timestamp};
use crate::api::money::Usd;
use crate::domain::words::time::format_utc_date;

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
    /// Every part that was checked matches (GPUs, storage, the total).
    pub matches: bool,
    /// How the expected figure comes about, and by how much the charge differs if it does.
    pub note: String,
    /// Why a part could not be checked: then the row is not a ✓ even when `matches`.
    pub unchecked: Option<String>,
}

impl ChargeCheck {
    /// ✓ only when every part was checked and matches.
    pub fn verified(&self) -> bool {
        self.matches && self.unchecked.is_none()
    }
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
        (Some(a), _) => {
            Terms { gpus: a.node_count_after * per_node, rate: a.rate_usd_per_gpu_hour_after.unwrap_or(rate) }
        }
        (None, Some(first)) => {
            Terms { gpus: first.node_count_before * per_node, rate: first.rate_usd_per_gpu_hour_before.unwrap_or(rate) }
        }
        (None, None) => Terms { gpus: detail.reservation.reserved_gpus, rate },
    }
}

/// `rate × gpus × seconds / 3600`, exact to the micro-dollar; `None` past what an `i128` of
/// micro-dollars holds (absurd figures from the API), flagged by [`out_of_range`].
fn gpu_cost(rate: Usd, gpus: i64, seconds: i64) -> Option<Usd> {
    let micros = rate.micros().checked_mul(i128::from(gpus))?.checked_mul(i128::from(seconds))?;
    Some(Usd::from_micros(micros / 3600))
}

/// A check that could not be made because a figure is out of the range the console computes
/// with: never a ✓, never a wrapped or panicked sum.
fn out_of_range(what: &str) -> ChargeCheck {
    ChargeCheck {
        expected: Usd::ZERO,
        hours: 0,
        gpus: 0,
        matches: false,
        note: String::new(),
        unchecked: Some(format!("{what} could not be checked: a figure is out of range (too large to compute with).")),
    }
}

/// Checks one charge against the terms. `payment` supplies the current rate.
pub fn check_charge(charge: &Charge, detail: &ReservationDetail, payment: &Payment) -> ChargeCheck {
    let rate = payment.rate_usd_per_gpu_hour;
    let mut check =
        if charge.adjustment { check_adjustment(charge, detail, rate) } else { check_period(charge, detail, rate) };
    let gpus_match = check.matches;
    if !charge.adjustment {
        check_storage(charge, detail, payment, &mut check);
    } else if !charge.storage_amount_usd.is_zero() {
        check.matches = false;
        check.note.push_str(&format!(
            " Storage {} on an adjustment ({STORAGE_NOT_ON_ADJUSTMENTS}).",
            charge.storage_amount_usd
        ));
    }
    let storage_alone = gpus_match && !check.matches;
    let parts = charge.gpu_amount_usd + charge.storage_amount_usd;
    if parts != charge.amount_usd {
        check.matches = false;
        check.note.push_str(&format!(
            " The total {} is not GPUs {} + storage {} = {parts}.",
            charge.amount_usd, charge.gpu_amount_usd, charge.storage_amount_usd
        ));
    }
    if storage_alone && parts == charge.amount_usd {
        check.note.push_str(&format!(" {STORAGE_ONLY_ASSUMED}"));
    }
    check
}

/// Drive and filesystem quotas (GiB) in force at `at`, like [`terms_at`].
fn quotas_at(detail: &ReservationDetail, at: Timestamp) -> (f64, f64) {
    let amendments = sorted(&detail.amendments);
    match (amendments.iter().rev().find(|a| a.effective_at <= at), amendments.first()) {
        (Some(a), _) => (a.drive_quota_gib_after, a.fs_quota_gib_after),
        (None, Some(first)) => (first.drive_quota_gib_before, first.fs_quota_gib_before),
        (None, None) => (detail.reservation.drive_quota_gib, detail.reservation.fs_quota_gib),
    }
}

/// A quota in thousandths of a GiB, so that `rate × GiB` is exact to the micro-dollar;
/// `None` for a quota that is not a finite, non-negative figure.
fn milli_gib(gib: f64) -> Option<i128> {
    let milli = (gib * 1000.0).round();
    (0.0..1e15).contains(&milli).then_some(milli as i128)
}

/// Storage of a regular charge (the rule in `assumptions::STORAGE_WHOLE_MONTHS`): (drive quota ×
/// drive rate + fs quota × fs rate) per month, × the months of `billing_period` for a whole
/// period, else prorated by hours over 730 h a month like the GPU hours.
fn check_storage(charge: &Charge, detail: &ReservationDetail, payment: &Payment, check: &mut ChargeCheck) {
    let months: i64 = match detail.reservation.billing_period {
        BillingPeriod::Monthly => 1,
        BillingPeriod::Quarterly => 3,
        BillingPeriod::Unknown(_) => {
            check.unchecked.get_or_insert_with(|| {
                "Storage not checked: the billing period is one this console does not know.".into()
            });
            return;
        }
    };
    let (Some(drive_rate), Some(fs_rate)) = (payment.drive_rate_usd_per_gib_month, payment.fs_rate_usd_per_gib_month)
    else {
        let missing = if payment.drive_rate_usd_per_gib_month.is_none() { "cloud drive" } else { "shared filesystem" };
        check.unchecked.get_or_insert_with(|| format!("Storage not checked: the API sends no {missing} rate."));
        return;
    };
    let (drive, fs) = quotas_at(detail, charge.period_start);
    let (Some(drive_milli), Some(fs_milli)) = (milli_gib(drive), milli_gib(fs)) else {
        check.unchecked.get_or_insert_with(|| "Storage not checked: a quota is not a usable figure.".into());
        return;
    };
    let whole = charge.period_start.checked_add_months(chrono::Months::new(months as u32)) == Some(charge.period_end);
    let seconds = (charge.period_end - charge.period_start).num_seconds();
    let per_month = drive_rate.micros().checked_mul(drive_milli).and_then(|d| {
        let f = fs_rate.micros().checked_mul(fs_milli)?;
        Some(d / 1000 + f / 1000)
    });
    let expected = per_month.and_then(|per_month| {
        if whole {
            per_month.checked_mul(i128::from(months))
        } else {
            Some(per_month.checked_mul(i128::from(seconds))? / i128::from(ADVANCE_HOURS * 3600))
        }
    });
    let Some(expected) = expected.map(Usd::from_micros) else {
        let unchecked = out_of_range("Storage").unchecked;
        check.unchecked = check.unchecked.take().or(unchecked);
        return;
    };
    let (span, assumed) = if whole {
        (crate::domain::words::count(months, "month"), STORAGE_WHOLE_MONTHS)
    } else {
        (format!("{} h of 730 h a month", seconds / 3600), STORAGE_PRORATED)
    };
    check.note.push_str(&format!(
        " Storage ({assumed}): ({drive} GiB × {} + {fs} GiB × {}) per GiB-month × {span} = {expected}.",
        drive_rate, fs_rate
    ));
    if charge.storage_amount_usd != expected {
        check.matches = false;
        check.note.push_str(&format!(" The storage charge {} differs.", charge.storage_amount_usd));
    }
}

fn check_period(charge: &Charge, detail: &ReservationDetail, rate: Usd) -> ChargeCheck {
    let seconds = (charge.period_end - charge.period_start).num_seconds();
    let terms = terms_at(detail, rate, charge.period_start);
    let Some(expected) = gpu_cost(terms.rate, terms.gpus, seconds) else {
        return out_of_range("The GPU charge");
    };
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
            let (Some(after_cost), Some(before_cost)) =
                (gpu_cost(after.rate, after.gpus, seconds), gpu_cost(before.rate, before.gpus, seconds))
            else {
                return out_of_range("The adjustment");
            };
            let expected = after_cost - before_cost;
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
        unchecked: None,
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
    ChargeCheck { expected, hours, gpus, matches, note, unchecked: None }
}

/// The GPU-hours a charge is for by the terms: a period's whole hours × the GPUs in force at
/// its start; an adjustment's hours from its amendment to the period's end × the GPUs it
/// added (negative when removed). `None` when that is not known: an adjustment with no
/// amendment, or more than one, taking effect within its period, or a figure out of range.
pub fn gpu_hours(charge: &Charge, detail: &ReservationDetail) -> Option<i64> {
    let hours_to_end = |from: Timestamp| (charge.period_end - from).num_seconds() / 3600;
    if !charge.adjustment {
        return terms_at(detail, Usd::ZERO, charge.period_start).gpus.checked_mul(hours_to_end(charge.period_start));
    }
    let within: Vec<&Amendment> = sorted(&detail.amendments)
        .into_iter()
        .filter(|a| a.effective_at > charge.period_start && a.effective_at < charge.period_end)
        .collect();
    let [a] = within.as_slice() else { return None };
    let before = terms_at(detail, Usd::ZERO, a.effective_at - chrono::TimeDelta::nanoseconds(1));
    let after = terms_at(detail, Usd::ZERO, a.effective_at);
    after.gpus.checked_sub(before.gpus)?.checked_mul(hours_to_end(a.effective_at))
}

/// `31 days`, `30 days 1 hour`: the period's length as a person reads it.
fn describe_span(seconds: i64) -> String {
    let days = seconds / 86_400;
    let hours = seconds % 86_400 / 3600;
    let plural = crate::domain::words::count::<i64>;
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
    let Some(expected) = gpu_cost(terms.rate, terms.gpus, ADVANCE_HOURS * 3600) else {
        return out_of_range("The advance");
    };
    if payment.advance_usd.is_zero() {
        let note = crate::api::assumptions::ZERO_ADVANCE.to_string();
        return ChargeCheck { expected: Usd::ZERO, hours: 0, gpus: terms.gpus, matches: true, note, unchecked: None };
    }
    let difference = payment.advance_usd - expected;
    let how =
        format!("One average month: {ADVANCE_HOURS} h × {} GPUs × {}/GPU-hour = {expected}.", terms.gpus, terms.rate);
    let note = if difference.is_zero() {
        how
    } else {
        format!(
            "{how} The advance {} differs by {}.",
            payment.advance_usd,
            if difference.is_negative() { -difference } else { difference }
        )
    };
    ChargeCheck {
        expected,
        hours: ADVANCE_HOURS,
        gpus: terms.gpus,
        matches: difference.is_zero(),
        note,
        unchecked: None,
    }
}

/// The months of one billing period, `None` for a period the console does not know.
fn period_months(detail: &ReservationDetail) -> Option<u32> {
    match detail.reservation.billing_period {
        BillingPeriod::Monthly => Some(1),
        BillingPeriod::Quarterly => Some(3),
        BillingPeriod::Unknown(_) => None,
    }
}

/// A charge as a ⚠ line names it: `period 1 (1 Dec 2026 – 31 Dec 2026)`, its index as sent.
pub fn period_name(c: &Charge) -> String {
    format!("period {} ({})", c.period_index, crate::domain::words::time::format_period(c.period_start, c.period_end))
}

/// The schedule as a whole: regular periods tile the term without gap or overlap, each one
/// billing period long (calendar months, so month ends and leap years follow), and the first
/// invoice is the advance plus the first period. One ⚠ line per disagreement, naming the
/// periods by their dates and their index as sent.
pub fn check_schedule(detail: &ReservationDetail, payment: &Payment) -> Vec<String> {
    let name = period_name;
    let mut periods: Vec<&Charge> = payment.charges.iter().filter(|c| !c.adjustment).collect();
    periods.sort_by_key(|c| c.period_start);
    let mut issues = Vec::new();
    let (Some(first), Some(last)) = (periods.first(), periods.last()) else { return issues };
    if let Some(start) = detail.reservation.starts_at.filter(|s| *s != first.period_start) {
        issues.push(format!(
            "⚠ The first charge, {}, does not start at the term's start, {}.",
            name(first),
            format_utc_date(start)
        ));
    }
    if let Some(end) = detail.reservation.ends_at.filter(|e| *e != last.period_end) {
        issues.push(format!(
            "⚠ The last charge, {}, does not end at the term's end, {}.",
            name(last),
            format_utc_date(end)
        ));
    }
    for pair in periods.windows(2) {
        let (a, b) = (pair[0], pair[1]);
        if b.period_start > a.period_end {
            issues.push(format!("⚠ Gap: nothing is charged between {} and {}.", name(a), name(b)));
        } else if b.period_start < a.period_end {
            issues.push(format!("⚠ Overlap: {} and {} both charge for the same time.", name(a), name(b)));
        }
    }
    if let Some(months) = period_months(detail) {
        for c in &periods {
            let full = c.period_start.checked_add_months(chrono::Months::new(months)) == Some(c.period_end);
            let last_cut_short = std::ptr::eq(*c, *last) && detail.reservation.ends_at == Some(c.period_end);
            if !full && !last_cut_short {
                issues.push(format!(
                    "⚠ {} is not one billing period ({}) long.",
                    name(c),
                    crate::domain::words::count(i64::from(months), "month")
                ));
            }
        }
    }
    if let Some(invoice) = detail.first_invoice() {
        let expected = payment.advance_usd + first.amount_usd;
        if invoice.amount_usd != expected {
            issues.push(format!(
                "⚠ The first invoice {} is not the advance {} + {}'s {} = {expected}.",
                invoice.amount_usd,
                payment.advance_usd,
                name(first),
                first.amount_usd
            ));
        }
    }
    issues
}

/// What the console says of `next_charge` after checking it against `charges`.
#[derive(Clone, Debug, PartialEq)]
pub enum NextCharge {
    /// Present and equal to the earliest unpaid entry of `charges` (or `charges` is empty).
    Agrees(Charge),
    /// Present but not the earliest unpaid charge: both values, for a ⚠ line.
    Disagrees { sent: Charge, earliest_unpaid: Option<Charge> },
    /// Null while awaiting payment: no charge exists until the first invoice is paid.
    NoneUntilFirstInvoicePaid,
    /// Null, not awaiting payment, and the schedule lists no charge.
    NoneNoChargeListed,
    /// Null and no charge of the schedule is unpaid: how many were paid, covered by the
    /// advance or waived (or of a status the console does not know), to say which.
    NoneLeftToPay { paid: usize, covered_by_advance: usize, waived: usize, other: usize },
    /// Null although `charges` holds an unpaid one.
    NoneButUnpaid(Charge),
}

/// Checks `next_charge` against the earliest unpaid entry of `charges` (which statuses are
/// unpaid is an assumption, [`not_yet_paid`]), and words a null one by the reservation's state.
pub fn check_next_charge(payment: &Payment, status: &ReservationStatus) -> NextCharge {
    let earliest = payment
        .charges
        .iter()
        .filter(|c| not_yet_paid(&c.status))
        .min_by_key(|c| (c.period_start, c.adjustment, c.period_index))
        .cloned();
    match (payment.next_charge.clone(), earliest) {
        (Some(sent), Some(earliest)) if sent == earliest => NextCharge::Agrees(sent),
        (Some(sent), None) if payment.charges.is_empty() => NextCharge::Agrees(sent),
        (Some(sent), earliest_unpaid) => NextCharge::Disagrees { sent, earliest_unpaid },
        (None, Some(earliest)) => NextCharge::NoneButUnpaid(earliest),
        (None, None) if *status == ReservationStatus::AwaitingPayment => NextCharge::NoneUntilFirstInvoicePaid,
        (None, None) if payment.charges.is_empty() => NextCharge::NoneNoChargeListed,
        (None, None) => {
            let count = |status: ChargeStatus| payment.charges.iter().filter(|c| c.status == status).count();
            let (paid, covered_by_advance, waived) =
                (count(ChargeStatus::Paid), count(ChargeStatus::CoveredByAdvance), count(ChargeStatus::Waived));
            let other = payment.charges.len() - paid - covered_by_advance - waived;
            NextCharge::NoneLeftToPay { paid, covered_by_advance, waived, other }
        }
    }
}

impl NextCharge {
    /// The words for a null `next_charge` (`None` when one was sent): "every charge is paid"
    /// only when each one was, never for charges waived or covered by the advance.
    pub fn none_words(&self) -> Option<String> {
        match self {
            NextCharge::Agrees(_) | NextCharge::Disagrees { .. } | NextCharge::NoneButUnpaid(_) => None,
            NextCharge::NoneUntilFirstInvoicePaid => Some("None until the first invoice is paid".to_owned()),
            NextCharge::NoneNoChargeListed => Some("None: the schedule lists no charge yet".to_owned()),
            NextCharge::NoneLeftToPay { covered_by_advance: 0, waived: 0, other: 0, .. } => {
                Some("None: every charge is paid".to_owned())
            }
            NextCharge::NoneLeftToPay { paid, covered_by_advance, waived, other } => {
                let parts: Vec<String> = [
                    (*paid, "paid"),
                    (*covered_by_advance, "covered by the advance"),
                    (*waived, "waived"),
                    (*other, "of a status this console does not know"),
                ]
                .into_iter()
                .filter(|(n, _)| *n > 0)
                .map(|(n, what)| format!("{n} {what}"))
                .collect();
                Some(format!("None: nothing is left to pay ({})", parts.join(", ")))
            }
        }
    }
}

/// What is said of an unpaid charge's due date when the API states none (seed 004: "due_at
/// and paid_at appear when they apply"): what is expected, marked so; `None` when a due
/// date is sent or nothing is due.
pub fn unstated_due(charge: &Charge, funding: &Funding) -> Option<&'static str> {
    if charge.due_at.is_some() || !not_yet_paid(&charge.status) {
        return None;
    }
    Some(match (&charge.status, funding) {
        // Seed 004 documents this one: "taken from the account's credit when it starts".
        (ChargeStatus::Scheduled, Funding::Wallet) => "taken from the account's credit when the period starts",
        (ChargeStatus::Scheduled, _) => "no due date stated yet: expected once it is invoiced",
        _ => "no due date stated",
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_due_date_the_api_does_not_state_is_said_to_be_expected_never_invented() {
        let (_, p) = detail(json!([]), json!([]));
        let mut december: Charge = serde_json::from_value(json!({
            "period_index": 1, "adjustment": false,
            "period_start": "2026-12-01T00:00:00Z", "period_end": "2027-01-01T00:00:00Z",
            "gpu_amount_usd": 29760, "storage_amount_usd": 0, "amount_usd": 29760,
            "advance_applied_usd": 0, "status": "scheduled"
        }))
        .unwrap();
        assert_eq!(unstated_due(&december, &p.funding), Some("no due date stated yet: expected once it is invoiced"));
        assert_eq!(
            unstated_due(&december, &Funding::Wallet),
            Some("taken from the account's credit when the period starts")
        );
        december.status = ChargeStatus::Invoiced;
        assert_eq!(unstated_due(&december, &p.funding), Some("no due date stated"));
        december.due_at = Some(december.period_end);
        assert_eq!(unstated_due(&december, &p.funding), None, "a stated due date is shown as sent");
        december.due_at = None;
        december.status = ChargeStatus::Paid;
        assert_eq!(unstated_due(&december, &p.funding), None, "nothing is due");
    }

    /// Seed 004's detail as owner, with `amendments` and `charges` supplied.
    fn detail(amendments: serde_json::Value, charges: serde_json::Value) -> (ReservationDetail, Payment) {
        let mut seed: serde_json::Value = serde_json::from_str(crate::api::models::tests::SEED_DETAIL).unwrap();
        seed["amendments"] = amendments;
        seed["payment"]["next_charge"] = serde_json::Value::Null;
        seed["payment"]["charges"] = charges;
        let d: ReservationDetail = serde_json::from_value(seed).unwrap();
        let p = d.payment.clone().unwrap();
        (d, p)
    }

    fn seed_amendment(effective_at: &str) -> serde_json::Value {
        json!([{
            "effective_at": effective_at, "node_count_before": 4, "node_count_after": 6,
            "drive_quota_gib_before": 5000, "drive_quota_gib_after": 5000,
            "fs_quota_gib_before": 20000, "fs_quota_gib_after": 30000,
            "rate_usd_per_gpu_hour_before": 1.25, "rate_usd_per_gpu_hour_after": 1.25
        }])
    }

    fn charge(start: &str, end: &str, gpu: f64, adjustment: bool) -> Charge {
        serde_json::from_value(json!({
            "period_index": 1, "adjustment": adjustment, "period_start": start, "period_end": end,
            "gpu_amount_usd": gpu, "storage_amount_usd": 0, "amount_usd": gpu, "advance_applied_usd": 0, "status": "scheduled"
        }))
        .unwrap()
    }

    fn usd(dollars: i64) -> Usd {
        Usd::from_cents(dollars * 100)
    }

    #[test]
    fn seed_december_charge_is_31_days_of_32_gpus_at_the_rate() {
        let (d, p) = detail(seed_amendment("2027-02-01T00:00:00Z"), json!([]));
        let c = charge("2026-12-01T00:00:00Z", "2027-01-01T00:00:00Z", 29760.0, false);
        let check = check_charge(&c, &d, &p);
        assert_eq!((check.expected, check.hours, check.gpus, check.matches), (usd(29_760), 744, 32, true));
        assert_eq!(
            check.note,
            "31 days (744 h) × 32 GPUs × $1.25/GPU-hour = $29,760.00. \
             Storage (assumed: the quotas at the period's start, for whole months): \
             (5000 GiB × $0.00 + 20000 GiB × $0.00) per GiB-month × 1 month = $0.00."
        );
    }

    #[test]
    fn seed_advance_is_one_average_month_of_730_hours() {
        let (d, p) = detail(seed_amendment("2027-02-01T00:00:00Z"), json!([]));
        let check = check_advance(&d, &p);
        assert_eq!((check.expected, check.hours, check.gpus, check.matches), (usd(29_200), 730, 32, true));
        assert_eq!(check.note, "One average month: 730 h × 32 GPUs × $1.25/GPU-hour = $29,200.00.");
    }

    fn with_storage(mut c: Charge, storage: i64) -> Charge {
        c.storage_amount_usd = usd(storage);
        c.amount_usd = c.gpu_amount_usd + c.storage_amount_usd;
        c
    }

    #[test]
    fn storage_is_drive_and_fs_quota_times_their_rates_per_gib_month() {
        let (d, mut p) = detail(seed_amendment("2027-02-01T00:00:00Z"), json!([]));
        p.drive_rate_usd_per_gib_month = Some(Usd::from_cents(2));
        p.fs_rate_usd_per_gib_month = Some(Usd::from_cents(1));
        // 5000 GiB × $0.02 + 20000 GiB × $0.01 = $300 a month; after the amendment 30000 GiB of fs.
        let dec = charge("2026-12-01T00:00:00Z", "2027-01-01T00:00:00Z", 29760.0, false);
        let check = check_charge(&with_storage(dec.clone(), 300), &d, &p);
        assert!(check.verified(), "{}", check.note);
        assert!(check.note.ends_with("per GiB-month × 1 month = $300.00."), "{}", check.note);
        let check = check_charge(&with_storage(dec, 299), &d, &p);
        assert!(!check.matches);
        assert!(check.note.contains("The storage charge $299.00 differs."), "{}", check.note);
        let feb = charge("2027-02-01T00:00:00Z", "2027-03-01T00:00:00Z", 40320.0, false);
        assert!(check_charge(&with_storage(feb, 400), &d, &p).verified(), "the amended quotas");
    }

    #[test]
    fn a_storage_check_says_what_it_assumes_and_a_warning_only_it_raises_says_so() {
        let (d, mut p) = detail(seed_amendment("2027-02-01T00:00:00Z"), json!([]));
        p.drive_rate_usd_per_gib_month = Some(Usd::from_cents(2));
        p.fs_rate_usd_per_gib_month = Some(Usd::from_cents(1));
        let dec = charge("2026-12-01T00:00:00Z", "2027-01-01T00:00:00Z", 29760.0, false);
        let whole = check_charge(&with_storage(dec.clone(), 300), &d, &p);
        assert!(
            whole.note.contains("Storage (assumed: the quotas at the period's start, for whole months)"),
            "{}",
            whole.note
        );
        let differs = check_charge(&with_storage(dec, 299), &d, &p);
        assert!(
            differs.note.ends_with(
                "The storage charge $299.00 differs. Only the assumed storage rule raises this ⚠: \
                 the API documents no storage formula, and the GPU charge matches."
            ),
            "{}",
            differs.note
        );
        // 15 days of December: prorated by its hours.
        let part = charge("2026-12-01T00:00:00Z", "2026-12-16T00:00:00Z", 14400.0, false);
        let partial = check_charge(&part, &d, &p);
        assert!(partial.note.contains("prorated by hours ÷ 730 h a month): "), "{}", partial.note);
        assert!(partial.note.contains("× 360 h of 730 h a month"), "{}", partial.note);
        // An adjustment with storage: the ⚠ is the assumption's.
        let adjustment = with_storage(charge("2027-02-01T00:00:00Z", "2027-03-01T00:00:00Z", 0.0, true), 5);
        let adjusted = check_charge(&adjustment, &d, &p);
        assert!(adjusted.note.contains("(assumed: an adjustment charges no storage"), "{}", adjusted.note);
    }

    #[test]
    fn a_storage_rate_not_sent_leaves_the_storage_unchecked_and_the_row_not_verified() {
        let (d, mut p) = detail(json!([]), json!([]));
        p.fs_rate_usd_per_gib_month = None;
        let dec = charge("2026-12-01T00:00:00Z", "2027-01-01T00:00:00Z", 29760.0, false);
        let check = check_charge(&dec, &d, &p);
        assert!(check.matches, "the GPU hours still check: {}", check.note);
        assert!(!check.verified(), "a part unchecked is never ✓");
        assert_eq!(check.unchecked.as_deref(), Some("Storage not checked: the API sends no shared filesystem rate."));
    }

    #[test]
    fn figures_too_large_to_compute_with_are_flagged_out_of_range_never_wrapped() {
        let (mut d, mut p) = detail(json!([]), json!([]));
        // Each within what decodes (counts up to a billion each, money up to 10¹² dollars);
        // rate × GPUs × seconds is past an i128 of micro-dollars.
        d.reservation.reserved_gpus = 1_000_000_000 * 1_000_000_000;
        p.rate_usd_per_gpu_hour = Usd::from_f64(1e12).unwrap();
        p.drive_rate_usd_per_gib_month = Some(Usd::from_f64(1e12).unwrap());
        d.reservation.drive_quota_gib = 1e11;
        let dec = charge("2026-12-01T00:00:00Z", "2027-01-01T00:00:00Z", 29760.0, false);
        let check = check_charge(&dec, &d, &p);
        assert!(!check.verified(), "{check:?}");
        assert!(check.unchecked.as_deref().is_some_and(|u| u.contains("out of range")), "{check:?}");
        let advance = check_advance(&d, &p);
        assert!(!advance.verified());
        assert_eq!(
            advance.unchecked.as_deref(),
            Some("The advance could not be checked: a figure is out of range (too large to compute with).")
        );
    }

    #[test]
    fn a_storage_check_that_cannot_be_made_says_so_and_is_not_verified() {
        let (mut d, p) = detail(json!([]), json!([]));
        d.reservation.billing_period = BillingPeriod::Unknown("fortnightly".into());
        let check = check_charge(&charge("2026-12-01T00:00:00Z", "2027-01-01T00:00:00Z", 29760.0, false), &d, &p);
        assert!(check.matches && !check.verified());
        assert_eq!(
            check.unchecked.as_deref(),
            Some("Storage not checked: the billing period is one this console does not know.")
        );
    }

    fn schedule(d: &mut ReservationDetail, p: &mut Payment, periods: &[(&str, &str)]) {
        p.charges = periods.iter().enumerate().map(|(i, (a, b))| full_charge(a, b, i as i64, "scheduled")).collect();
        d.reservation.starts_at = p.charges.first().map(|c| c.period_start);
        d.reservation.ends_at = p.charges.last().map(|c| c.period_end);
    }

    #[test]
    fn a_schedule_that_tiles_the_term_by_calendar_months_has_no_issue() {
        let (mut d, mut p) = detail(json!([]), json!([]));
        schedule(
            &mut d,
            &mut p,
            &[("2028-01-31T00:00:00Z", "2028-02-29T00:00:00Z"), ("2028-02-29T00:00:00Z", "2028-03-29T00:00:00Z")],
        );
        assert_eq!(check_schedule(&d, &p), Vec::<String>::new());
    }

    #[test]
    fn gaps_overlaps_and_wrong_lengths_are_one_line_each_naming_the_periods() {
        let (mut d, mut p) = detail(json!([]), json!([]));
        schedule(
            &mut d,
            &mut p,
            &[
                ("2026-11-01T00:00:00Z", "2026-12-01T00:00:00Z"),
                ("2026-12-02T00:00:00Z", "2027-01-02T00:00:00Z"),
                ("2027-01-01T00:00:00Z", "2027-02-01T00:00:00Z"),
                ("2027-02-01T00:00:00Z", "2027-02-15T00:00:00Z"),
                ("2027-02-15T00:00:00Z", "2027-03-15T00:00:00Z"),
            ],
        );
        assert_eq!(check_schedule(&d, &p), [
            "⚠ Gap: nothing is charged between period 0 (1 Nov 2026 – 30 Nov 2026) and period 1 (2 Dec 2026 – 1 Jan 2027).",
            "⚠ Overlap: period 1 (2 Dec 2026 – 1 Jan 2027) and period 2 (1 Jan 2027 – 31 Jan 2027) both charge for the same time.",
            "⚠ period 3 (1 Feb 2027 – 14 Feb 2027) is not one billing period (1 month) long.",
        ]);
    }

    #[test]
    fn the_first_invoice_is_the_advance_plus_the_first_period() {
        let (mut d, mut p) = detail(json!([]), json!([]));
        schedule(&mut d, &mut p, &[("2026-11-01T00:00:00Z", "2026-12-01T00:00:00Z")]);
        d.first_invoice = Some(serde_json::from_value(json!({ "amount_usd": 29300, "issued": true })).unwrap());
        assert_eq!(check_schedule(&d, &p), Vec::<String>::new());
        d.first_invoice = Some(serde_json::from_value(json!({ "amount_usd": 29400, "issued": true })).unwrap());
        assert_eq!(check_schedule(&d, &p), [
            "⚠ The first invoice $29,400.00 is not the advance $29,200.00 + period 0 (1 Nov 2026 – 30 Nov 2026)'s $100.00 = $29,300.00."
        ]);
    }

    #[test]
    fn a_zero_advance_is_no_advance_taken_not_a_mismatch() {
        let (d, mut p) = detail(json!([]), json!([]));
        p.advance_usd = Usd::ZERO;
        let check = check_advance(&d, &p);
        assert!(check.matches, "{}", check.note);
        assert!(check.note.starts_with("No advance taken"), "{}", check.note);
    }

    fn full_charge(start: &str, end: &str, index: i64, status: &str) -> Charge {
        serde_json::from_value(json!({
            "period_index": index, "adjustment": false, "period_start": start, "period_end": end,
            "gpu_amount_usd": 100, "storage_amount_usd": 0, "amount_usd": 100, "advance_applied_usd": 0, "status": status
        }))
        .unwrap()
    }

    #[test]
    fn a_null_next_charge_while_awaiting_payment_is_none_until_the_first_invoice_is_paid() {
        let (_, p) = detail(json!([]), json!([]));
        assert_eq!(check_next_charge(&p, &ReservationStatus::AwaitingPayment), NextCharge::NoneUntilFirstInvoicePaid);
    }

    #[test]
    fn a_null_next_charge_is_every_charge_paid_only_when_none_is_unpaid() {
        let paid = full_charge("2026-11-01T00:00:00Z", "2026-12-01T00:00:00Z", 0, "paid");
        let dec = full_charge("2026-12-01T00:00:00Z", "2027-01-01T00:00:00Z", 1, "scheduled");
        let (_, mut p) = detail(json!([]), json!([]));
        p.charges = vec![paid.clone()];
        let none = check_next_charge(&p, &ReservationStatus::Active);
        assert_eq!(none.none_words().as_deref(), Some("None: every charge is paid"));
        p.charges = vec![paid, dec.clone()];
        assert_eq!(check_next_charge(&p, &ReservationStatus::Active), NextCharge::NoneButUnpaid(dec));
    }

    #[test]
    fn a_null_next_charge_after_waived_or_advance_covered_charges_is_not_every_charge_paid() {
        let (_, mut p) = detail(json!([]), json!([]));
        p.charges = vec![
            full_charge("2026-10-01T00:00:00Z", "2026-11-01T00:00:00Z", 0, "paid"),
            full_charge("2026-11-01T00:00:00Z", "2026-12-01T00:00:00Z", 1, "covered_by_advance"),
            full_charge("2026-12-01T00:00:00Z", "2027-01-01T00:00:00Z", 2, "waived"),
        ];
        let words = check_next_charge(&p, &ReservationStatus::Active).none_words();
        assert_eq!(words.as_deref(), Some("None: nothing is left to pay (1 paid, 1 covered by the advance, 1 waived)"));
    }

    #[test]
    fn none_until_the_first_invoice_is_paid_only_while_awaiting_payment() {
        let (_, p) = detail(json!([]), json!([]));
        let words = check_next_charge(&p, &ReservationStatus::Active).none_words();
        assert_eq!(words.as_deref(), Some("None: the schedule lists no charge yet"));
    }

    #[test]
    fn a_next_charge_other_than_the_earliest_unpaid_one_is_flagged_with_both() {
        let nov = full_charge("2026-11-01T00:00:00Z", "2026-12-01T00:00:00Z", 0, "paid");
        let dec = full_charge("2026-12-01T00:00:00Z", "2027-01-01T00:00:00Z", 1, "scheduled");
        let jan = full_charge("2027-01-01T00:00:00Z", "2027-02-01T00:00:00Z", 2, "scheduled");
        let (_, mut p) = detail(json!([]), json!([]));
        p.charges = vec![jan.clone(), nov, dec.clone()];
        p.next_charge = Some(dec.clone());
        assert_eq!(check_next_charge(&p, &ReservationStatus::Active), NextCharge::Agrees(dec.clone()));
        p.next_charge = Some(jan.clone());
        assert_eq!(
            check_next_charge(&p, &ReservationStatus::Active),
            NextCharge::Disagrees { sent: jan, earliest_unpaid: Some(dec) }
        );
    }

    #[test]
    fn an_advance_that_differs_says_by_how_much() {
        let (d, mut p) = detail(json!([]), json!([]));
        p.advance_usd = usd(30_000);
        let check = check_advance(&d, &p);
        assert!(!check.matches);
        assert!(check.note.ends_with("The advance $30,000.00 differs by $800.00."), "{}", check.note);
    }

    #[test]
    fn a_period_after_an_amendment_is_charged_for_the_new_node_count() {
        let (d, p) = detail(seed_amendment("2027-02-01T00:00:00Z"), json!([]));
        let feb = charge("2027-02-01T00:00:00Z", "2027-03-01T00:00:00Z", 40320.0, false);
        let check = check_charge(&feb, &d, &p);
        assert_eq!((check.expected, check.gpus, check.matches), (usd(40_320), 48, true));
        let jan = charge("2027-01-01T00:00:00Z", "2027-02-01T00:00:00Z", 29760.0, false);
        assert_eq!(check_charge(&jan, &d, &p).gpus, 32);
    }

    #[test]
    fn a_mid_period_amendment_is_a_prorated_adjustment_of_the_gpus_added() {
        let (d, p) = detail(seed_amendment("2027-02-15T00:00:00Z"), json!([]));
        let feb = charge("2027-02-01T00:00:00Z", "2027-03-01T00:00:00Z", 26880.0, false);
        assert!(check_charge(&feb, &d, &p).matches, "the period itself is charged at the terms of its start");
        let adjustment = charge("2027-02-01T00:00:00Z", "2027-03-01T00:00:00Z", 6720.0, true);
        let check = check_charge(&adjustment, &d, &p);
        assert_eq!((check.expected, check.hours, check.gpus, check.matches), (usd(6_720), 336, 16, true));
        assert_eq!(
            check.note,
            "Prorated from the amendment of 15 Feb 2027: 336 h to the period's end × 16 GPUs added × $1.25/GPU-hour = $6,720.00."
        );
    }

    #[test]
    fn an_adjustment_with_a_rate_change_charges_the_difference_of_both_terms() {
        let mut amendments = seed_amendment("2027-02-15T00:00:00Z");
        amendments[0]["rate_usd_per_gpu_hour_after"] = json!(1.0);
        let (d, p) = detail(amendments, json!([]));
        // 336 h × (48 × $1.00 − 32 × $1.25) = 336 × 8 = $2,688.
        let check = check_charge(&charge("2027-02-01T00:00:00Z", "2027-03-01T00:00:00Z", 2688.0, true), &d, &p);
        assert!(check.matches, "{}", check.note);
        assert!(check.note.contains("(48 GPUs × $1.00 − 32 GPUs × $1.25)"), "{}", check.note);
    }

    #[test]
    fn an_adjustment_without_an_amendment_in_its_period_is_flagged() {
        let (d, p) = detail(seed_amendment("2027-02-01T00:00:00Z"), json!([]));
        let check = check_charge(&charge("2026-12-01T00:00:00Z", "2027-01-01T00:00:00Z", 100.0, true), &d, &p);
        assert!(!check.matches);
        assert_eq!(check.note, "A prorated adjustment, but no amendment takes effect within 1 Dec 2026 – 1 Jan 2027.");
    }

    #[test]
    fn a_charge_that_does_not_match_says_by_how_much() {
        let (d, p) = detail(json!([]), json!([]));
        let check = check_charge(&charge("2026-12-01T00:00:00Z", "2027-01-01T00:00:00Z", 29000.0, false), &d, &p);
        assert!(!check.matches);
        assert!(
            check.note.contains("The GPU charge $29,000.00 is $760.00 less than that. Storage ("),
            "{}",
            check.note
        );
        let check = check_charge(&charge("2026-12-01T00:00:00Z", "2027-01-01T00:00:00Z", 29760.01, false), &d, &p);
        assert!(check.note.contains("is $0.01 more than that. Storage ("), "{}", check.note);
    }

    #[test]
    fn a_total_that_is_not_gpus_plus_storage_is_flagged() {
        let (d, p) = detail(json!([]), json!([]));
        let mut c = charge("2026-12-01T00:00:00Z", "2027-01-01T00:00:00Z", 29760.0, false);
        c.amount_usd = usd(29_770);
        let check = check_charge(&c, &d, &p);
        assert!(!check.matches);
        assert!(
            check.note.ends_with("The total $29,770.00 is not GPUs $29,760.00 + storage $0.00 = $29,760.00."),
            "{}",
            check.note
        );
    }

    #[test]
    fn an_amendment_without_rates_uses_the_payment_rate() {
        let mut amendments = seed_amendment("2027-02-01T00:00:00Z");
        let a = amendments[0].as_object_mut().unwrap();
        a.remove("rate_usd_per_gpu_hour_before");
        a.remove("rate_usd_per_gpu_hour_after");
        let (d, p) = detail(amendments, json!([]));
        let check = check_charge(&charge("2027-02-01T00:00:00Z", "2027-03-01T00:00:00Z", 40320.0, false), &d, &p);
        assert!(check.matches, "{}", check.note);
    }

    #[test]
    fn a_period_with_a_partial_hour_is_charged_to_the_second() {
        let (d, p) = detail(json!([]), json!([]));
        // 30 min × 32 GPUs × $1.25 = $20.
        let check = check_charge(&charge("2026-12-01T00:00:00Z", "2026-12-01T00:30:00Z", 20.0, false), &d, &p);
        assert!(check.matches, "{}", check.note);
        assert_eq!(check.hours, 0);
    }
}
