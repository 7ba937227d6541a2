//! The term ledger: where the money committed for a reservation's term stands, and the same
//! for the account. Committed is Σ of the schedule. Each charge splits into what the advance
//! covered (its `advance_applied_usd`) and the rest by its status (paid, invoiced and unpaid,
//! scheduled, waived), so the parts add up to the committed total to the cent.
//!
//! Every figure is taken at its whole cents before it is added
//! ([`LEDGER_WHOLE_CENTS`]): parts rounded after summing could miss the rounded total by a
//! cent. Where the API's figures disagree, one ⚠ line names the part and by how much. What
//! is not known (a member's key, a schedule not laid out yet, a detail not read) is a named
//! [`Missing`], never zero, and makes the account's sums unknown.

use crate::api::assumptions::LEDGER_WHOLE_CENTS;
use crate::api::enums::{ChargeStatus, ReservationStatus};
use crate::api::models::{Charge, Payment, Reservation, ReservationDetail};
use crate::api::money::Usd;
use crate::domain::money::billing::period_name;

/// The amounts of a ledger, each at whole cents.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Sums {
    /// Σ of the schedule: every charge's amount.
    pub committed: Usd,
    /// Paid, less what the advance covered of those charges.
    pub paid: Usd,
    /// Invoiced or past due, not paid yet.
    pub invoiced_unpaid: Usd,
    /// What is owed of the past-due charges ([`overdue`]), within `invoiced_unpaid`.
    pub past_due: Usd,
    pub scheduled: Usd,
    pub waived: Usd,
    /// Σ `advance_applied_usd`, whatever the charge's status.
    pub covered_by_advance: Usd,
    /// Charges of a status this console does not know.
    pub unrecognised: Usd,
    /// The advance taken (0: none).
    pub advance: Usd,
    /// What is left of the advance, as the API reports it.
    pub advance_remaining: Usd,
}

/// A part of the committed total: its label on the page and its column in the CSV, named
/// `part_…` so that a spreadsheet adds those columns and no other.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Part {
    pub label: &'static str,
    pub column: &'static str,
    pub amount: Usd,
}

impl Sums {
    /// The parts of `committed` added up (past due is within invoiced and unpaid).
    pub fn parts(&self) -> Usd {
        self.labelled_parts().iter().map(|part| part.amount).sum()
    }

    /// The parts, in the order the ledger shows them. Past due is not one (it is within
    /// invoiced and unpaid), nor is the advance (it pays parts, it is not one).
    pub fn labelled_parts(&self) -> [Part; 6] {
        let part = |label, column, amount| Part { label, column, amount };
        [
            part("Paid", "part_paid_usd", self.paid),
            part("Invoiced, unpaid", "part_invoiced_unpaid_usd", self.invoiced_unpaid),
            part("Scheduled", "part_scheduled_usd", self.scheduled),
            part("Waived", "part_waived_usd", self.waived),
            part("Covered by the advance", "part_covered_by_advance_usd", self.covered_by_advance),
            part("Unrecognised status", "part_unrecognised_usd", self.unrecognised),
        ]
    }

    /// What no part accounts for: zero unless the API's figures disagree, and then each
    /// charge responsible has its ⚠ line.
    pub fn unaccounted(&self) -> Usd {
        self.committed - self.parts()
    }

    fn add(&mut self, other: &Sums) {
        for (sum, more) in [
            (&mut self.committed, other.committed),
            (&mut self.paid, other.paid),
            (&mut self.invoiced_unpaid, other.invoiced_unpaid),
            (&mut self.past_due, other.past_due),
            (&mut self.scheduled, other.scheduled),
            (&mut self.waived, other.waived),
            (&mut self.covered_by_advance, other.covered_by_advance),
            (&mut self.unrecognised, other.unrecognised),
            (&mut self.advance, other.advance),
            (&mut self.advance_remaining, other.advance_remaining),
        ] {
            *sum = *sum + more;
        }
    }
}

/// One reservation's ledger.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Ledger {
    pub sums: Sums,
    /// The statuses, as sent, of the charges counted `unrecognised`.
    pub unrecognised_statuses: Vec<String>,
    /// One ⚠ line per disagreement, naming the part and by how much.
    pub disagreements: Vec<String>,
    /// A figure had more than whole cents: said with [`LEDGER_WHOLE_CENTS`].
    pub rounded: bool,
}

impl Ledger {
    /// The assumption to show beside the figures when it changed one.
    pub fn assumed(&self) -> Option<&'static str> {
        self.rounded.then_some(LEDGER_WHOLE_CENTS)
    }
}

/// Why a ledger is not known.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Missing {
    /// The payment is the owner's: a member's key reads none.
    NotOwner,
    /// Awaiting payment: seed 004 lays the schedule out once the first invoice is paid.
    AwaitingFirstInvoice,
    /// The schedule lists no charge, so nothing says what the term commits.
    NoCharges,
    /// The reservation's detail is still to be read (the reads are paced).
    NotReadYet,
    /// The reservation's detail could not be read: why.
    NotRead(String),
}

impl Missing {
    pub fn words(&self) -> String {
        match self {
            Missing::NotOwner => "the payment is shown to the account owner only".to_owned(),
            Missing::AwaitingFirstInvoice => "its schedule is laid out once its first invoice is paid".to_owned(),
            Missing::NoCharges => "its schedule lists no charge".to_owned(),
            Missing::NotReadYet => "its detail is still being read".to_owned(),
            Missing::NotRead(why) => format!("its detail could not be read ({why})"),
        }
    }
}

/// Whole cents of `amount`, noting in `rounded` whether that changed it.
fn cents(amount: Usd, rounded: &mut bool) -> Usd {
    let whole = amount.round_to_cents();
    *rounded |= whole != amount;
    whole
}

/// What must be paid to settle the past-due charges, the one overdue sum the console shows
/// (the ledger's past due, the figure that averts a past-due stop): each past-due charge's
/// `amount_usd` less the `advance_applied_usd` already covering it (never below zero), at
/// whole cents as the ledger counts them. Said beside the figure as [`OVERDUE_RULE`].
pub fn overdue(payment: &Payment) -> Usd {
    let mut rounded = false;
    payment
        .charges
        .iter()
        .filter(|c| c.status == ChargeStatus::PastDue)
        .map(|c| (cents(c.amount_usd, &mut rounded) - cents(c.advance_applied_usd, &mut rounded)).max(Usd::default()))
        .sum()
}

/// How [`overdue`] is counted, in the words shown beside it.
pub const OVERDUE_RULE: &str = "owed on the past-due charges, less the advance applied to them";

/// `$5.00 more` / `$5.00 less`: how `a` stands against `b`.
fn off_by(a: Usd, b: Usd) -> String {
    let difference = a - b;
    if difference.is_negative() {
        format!("{} less", -difference)
    } else {
        format!("{difference} more")
    }
}

/// A charge named in a ⚠ line.
fn charge_name(c: &Charge) -> String {
    if c.adjustment {
        format!("the adjustment of {}", period_name(c))
    } else {
        period_name(c)
    }
}

/// The ledger of one reservation from its detail.
pub fn ledger(detail: &ReservationDetail) -> Result<Ledger, Missing> {
    let Some(payment) = &detail.payment else { return Err(Missing::NotOwner) };
    if payment.charges.is_empty() {
        let awaiting = detail.reservation.status == ReservationStatus::AwaitingPayment;
        return Err(if awaiting { Missing::AwaitingFirstInvoice } else { Missing::NoCharges });
    }
    let mut rounded = false;
    let mut sums = Sums {
        advance: cents(payment.advance_usd, &mut rounded),
        advance_remaining: cents(payment.advance_remaining_usd, &mut rounded),
        ..Sums::default()
    };
    let mut unrecognised_statuses: Vec<String> = Vec::new();
    let mut disagreements = Vec::new();
    let mut charges: Vec<&Charge> = payment.charges.iter().collect();
    charges.sort_by_key(|c| (c.period_start, c.adjustment, c.period_index));
    for c in charges {
        let amount = cents(c.amount_usd, &mut rounded);
        let applied = cents(c.advance_applied_usd, &mut rounded);
        sums.committed = sums.committed + amount;
        sums.covered_by_advance = sums.covered_by_advance + applied;
        let applied_within = !applied.is_negative() && applied <= amount;
        if !applied_within {
            disagreements.push(format!(
                "⚠ Covered by the advance: {} applies {applied} of the advance to a charge of {amount} ({}).",
                charge_name(c),
                off_by(applied, amount)
            ));
        }
        let rest = amount - applied;
        let part = match &c.status {
            ChargeStatus::Paid => &mut sums.paid,
            ChargeStatus::Invoiced => &mut sums.invoiced_unpaid,
            ChargeStatus::PastDue => &mut sums.invoiced_unpaid,
            ChargeStatus::Scheduled => &mut sums.scheduled,
            ChargeStatus::Waived => &mut sums.waived,
            ChargeStatus::CoveredByAdvance => {
                // All of it should be the advance's: what is not is in no part.
                if !rest.is_zero() && applied_within {
                    disagreements.push(format!(
                        "⚠ Covered by the advance: {} is marked covered by the advance, but {applied} of its {amount} was applied: {rest} is in no part.",
                        charge_name(c)
                    ));
                }
                continue;
            }
            ChargeStatus::Unknown(raw) => {
                if !unrecognised_statuses.contains(raw) {
                    unrecognised_statuses.push(raw.clone());
                }
                &mut sums.unrecognised
            }
        };
        *part = *part + rest;
    }
    sums.past_due = overdue(payment);
    let expected_remaining = sums.advance - sums.covered_by_advance;
    if sums.advance_remaining != expected_remaining {
        disagreements.push(format!(
            "⚠ Advance remaining: the API reports {}, but the advance {} less the {} the charges applied is {expected_remaining} ({}).",
            sums.advance_remaining,
            sums.advance,
            sums.covered_by_advance,
            off_by(sums.advance_remaining, expected_remaining)
        ));
    }
    Ok(Ledger { sums, unrecognised_statuses, disagreements, rounded })
}

/// A reservation of the account and its ledger.
#[derive(Clone, Debug, PartialEq)]
pub struct Row {
    pub reservation: Reservation,
    pub ledger: Result<Ledger, Missing>,
}

/// Every reservation's ledger and the account's sums.
#[derive(Clone, Debug, PartialEq)]
pub struct Account {
    pub rows: Vec<Row>,
    /// Σ over the reservations whose ledger is known.
    pub known: Sums,
}

impl Account {
    /// Sums the rows, in the order given.
    pub fn of(rows: Vec<Row>) -> Account {
        let mut known = Sums::default();
        for ledger in rows.iter().filter_map(|r| r.ledger.as_ref().ok()) {
            known.add(&ledger.sums);
        }
        Account { rows, known }
    }

    /// The account's sums: known only when every reservation's ledger is.
    pub fn total(&self) -> Option<Sums> {
        self.rows.iter().all(|r| r.ledger.is_ok()).then_some(self.known)
    }

    /// Why the account's sums are unknown, each reservation named; `None` when they are known.
    pub fn unknown_words(&self) -> Option<String> {
        let missing: Vec<String> = self
            .rows
            .iter()
            .filter_map(|r| r.ledger.as_ref().err().map(|why| format!("#{}: {}", r.reservation.id, why.words())))
            .collect();
        (!missing.is_empty()).then(|| format!("Unknown while a reservation's ledger is: {}.", missing.join("; ")))
    }

    /// Whether any reservation's ledger was shown at whole cents ([`Ledger::assumed`]).
    pub fn assumed(&self) -> Option<&'static str> {
        self.rows.iter().find_map(|r| r.ledger.as_ref().ok().and_then(Ledger::assumed))
    }

    /// Whether the key reads any payment: a member's reads none, and sees no money.
    pub fn shows_payment(&self) -> bool {
        self.rows.iter().any(|r| r.ledger != Err(Missing::NotOwner))
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::api::models::tests::SEED_DETAIL;
    use serde_json::json;

    fn usd(cents: i64) -> Usd {
        Usd::from_cents(cents)
    }

    /// A charge of `amount` with `applied` of the advance, in `status`, for `month` of 2027.
    fn charge(month: u32, amount: f64, applied: f64, status: &str) -> serde_json::Value {
        json!({
            "period_index": month, "adjustment": false,
            "period_start": format!("2027-{month:02}-01T00:00:00Z"), "period_end": format!("2027-{:02}-01T00:00:00Z", month + 1),
            "gpu_amount_usd": amount, "storage_amount_usd": 0, "amount_usd": amount,
            "advance_applied_usd": applied, "status": status
        })
    }

    /// Seed 004's detail with this schedule and advance.
    fn detail(charges: serde_json::Value, advance: f64, remaining: f64) -> ReservationDetail {
        let mut d: serde_json::Value = serde_json::from_str(SEED_DETAIL).unwrap();
        d["payment"]["charges"] = charges;
        d["payment"]["advance_usd"] = advance.into();
        d["payment"]["advance_remaining_usd"] = remaining.into();
        serde_json::from_value(d).unwrap()
    }

    /// A charge of $1,000 in each status (and an unrecognised one), with $1,500 of advance,
    /// $100 left: it paid 400 of June's charge (the rest was paid) and `covered` of July's,
    /// which is marked covered by the advance.
    pub(crate) fn one_of_each_status(covered: f64) -> ReservationDetail {
        detail(
            json!([
                charge(1, 1000.0, 0.0, "paid"),
                charge(2, 1000.0, 0.0, "invoiced"),
                charge(3, 1000.0, 0.0, "past_due"),
                charge(4, 1000.0, 0.0, "scheduled"),
                charge(5, 1000.0, 0.0, "waived"),
                charge(6, 1000.0, 400.0, "paid"),
                charge(7, 1000.0, covered, "covered_by_advance"),
                charge(8, 1000.0, 0.0, "refunded"),
            ]),
            1500.0,
            100.0,
        )
    }

    #[test]
    fn each_charge_splits_into_the_advance_and_its_status_and_the_parts_add_up_to_the_committed_total() {
        let d = one_of_each_status(1000.0);
        let l = ledger(&d).unwrap();
        let s = l.sums;
        assert_eq!(s.committed, usd(800_000));
        assert_eq!(
            [s.paid, s.invoiced_unpaid, s.past_due, s.scheduled, s.waived, s.covered_by_advance, s.unrecognised],
            [usd(160_000), usd(200_000), usd(100_000), usd(100_000), usd(100_000), usd(140_000), usd(100_000)]
        );
        assert_eq!(s.parts(), s.committed);
        assert!(s.unaccounted().is_zero());
        assert_eq!((s.advance, s.advance_remaining), (usd(150_000), usd(10_000)));
        assert_eq!(l.unrecognised_statuses, ["refunded"]);
        assert_eq!(l.disagreements, Vec::<String>::new());
        assert_eq!(l.assumed(), None);
    }

    #[test]
    fn figures_are_taken_at_whole_cents_so_the_parts_add_up_where_rounding_each_sum_would_miss_a_cent() {
        let d = detail(
            json!([
                charge(1, 0.333333, 0.0, "paid"),
                charge(2, 0.333333, 0.0, "scheduled"),
                charge(3, 0.333334, 0.0, "waived"),
            ]),
            0.0,
            0.0,
        );
        // Summed first and rounded after: $1.00 committed, but $0.33 + $0.33 + $0.33 = $0.99.
        let raw: Usd = d.payment.as_ref().unwrap().charges.iter().map(|c| c.amount_usd).sum();
        assert_eq!(raw.round_to_cents(), usd(100));
        let l = ledger(&d).unwrap();
        assert_eq!((l.sums.committed, l.sums.parts()), (usd(99), usd(99)));
        assert_eq!([l.sums.paid, l.sums.scheduled, l.sums.waived], [usd(33); 3]);
        assert_eq!(l.assumed(), Some(LEDGER_WHOLE_CENTS), "the figures changed: said assumed");
        // Half a cent rounds away from zero, as an invoice shows it.
        let half = ledger(&detail(json!([charge(1, 0.005, 0.0, "paid")]), 0.0, 0.0)).unwrap();
        assert_eq!(half.sums.committed, usd(1));
    }

    #[test]
    fn a_waived_charge_is_committed_and_waived_never_unpaid_nor_paid() {
        let l = ledger(&detail(json!([charge(1, 29760.0, 0.0, "paid"), charge(2, 26880.0, 0.0, "waived")]), 0.0, 0.0))
            .unwrap();
        assert_eq!((l.sums.committed, l.sums.paid, l.sums.waived), (usd(5_664_000), usd(2_976_000), usd(2_688_000)));
        assert!(l.sums.invoiced_unpaid.is_zero() && l.sums.scheduled.is_zero());
    }

    #[test]
    fn the_advance_covers_the_last_periods_and_what_is_left_of_it_is_checked() {
        // Seed 004's advance, $29,200: all of December (31 days, $29,760) cannot be covered;
        // November (30 days, $28,800) is, and $400 remains.
        let charges = json!([charge(10, 29760.0, 0.0, "paid"), charge(11, 28800.0, 28800.0, "covered_by_advance")]);
        let l = ledger(&detail(charges.clone(), 29200.0, 400.0)).unwrap();
        assert_eq!((l.sums.covered_by_advance, l.sums.advance_remaining), (usd(2_880_000), usd(40_000)));
        assert_eq!(l.disagreements, Vec::<String>::new());
        let off = ledger(&detail(charges, 29200.0, 29200.0)).unwrap();
        assert_eq!(off.disagreements, [
            "⚠ Advance remaining: the API reports $29,200.00, but the advance $29,200.00 less the $28,800.00 the charges applied is $400.00 ($28,800.00 more)."
        ]);
    }

    #[test]
    fn a_charge_marked_covered_but_not_applied_from_the_advance_is_one_warning_naming_it_and_the_amount_in_no_part() {
        let l = ledger(&detail(
            json!([charge(1, 1000.0, 0.0, "paid"), charge(2, 1000.0, 600.0, "covered_by_advance")]),
            600.0,
            0.0,
        ))
        .unwrap();
        assert_eq!(l.disagreements, [
            "⚠ Covered by the advance: period 2 (1 Feb 2027 – 28 Feb 2027) is marked covered by the advance, but $600.00 of its $1,000.00 was applied: $400.00 is in no part."
        ]);
        assert_eq!((l.sums.committed, l.sums.parts(), l.sums.unaccounted()), (usd(200_000), usd(160_000), usd(40_000)));
        let over = ledger(&detail(json!([charge(1, 1000.0, 1200.0, "paid")]), 1200.0, 0.0)).unwrap();
        assert_eq!(over.disagreements, [
            "⚠ Covered by the advance: period 1 (1 Jan 2027 – 31 Jan 2027) applies $1,200.00 of the advance to a charge of $1,000.00 ($200.00 more)."
        ]);
    }

    #[test]
    fn what_is_not_known_is_named_never_zero() {
        let mut member = detail(json!([charge(1, 1000.0, 0.0, "paid")]), 0.0, 0.0);
        member.payment = None;
        assert_eq!(ledger(&member), Err(Missing::NotOwner));
        let mut awaiting = detail(json!([]), 29200.0, 29200.0);
        awaiting.reservation.status = ReservationStatus::AwaitingPayment;
        assert_eq!(ledger(&awaiting), Err(Missing::AwaitingFirstInvoice));
        assert_eq!(ledger(&detail(json!([]), 0.0, 0.0)), Err(Missing::NoCharges));
    }

    fn row(id: i64, ledger: Result<Ledger, Missing>) -> Row {
        let mut reservation = detail(json!([]), 0.0, 0.0).reservation;
        reservation.id = id;
        Row { reservation, ledger }
    }

    #[test]
    fn the_account_adds_every_reservation_and_is_unknown_while_one_is_naming_it() {
        let a = ledger(&detail(json!([charge(1, 1000.0, 0.0, "paid"), charge(2, 500.0, 0.0, "scheduled")]), 0.0, 0.0));
        let b = ledger(&detail(json!([charge(1, 250.5, 250.5, "covered_by_advance")]), 300.0, 49.5));
        let known = Account::of(vec![row(12, a.clone()), row(8, b.clone())]);
        let total = known.total().unwrap();
        assert_eq!((total.committed, total.paid, total.scheduled), (usd(175_050), usd(100_000), usd(50_000)));
        assert_eq!(
            (total.covered_by_advance, total.advance, total.advance_remaining),
            (usd(25_050), usd(30_000), usd(4_950))
        );
        assert_eq!(total.parts(), total.committed);
        assert_eq!(known.unknown_words(), None);
        let partly = Account::of(vec![
            row(12, a),
            row(3, Err(Missing::AwaitingFirstInvoice)),
            row(7, Err(Missing::NotRead("HTTP 503".into()))),
        ]);
        assert_eq!(partly.total(), None, "never the known part passed off as the account's");
        assert_eq!(partly.known.committed, usd(150_000));
        assert_eq!(
            partly.unknown_words().as_deref(),
            Some("Unknown while a reservation's ledger is: #3: its schedule is laid out once its first invoice is paid; #7: its detail could not be read (HTTP 503).")
        );
        assert!(partly.shows_payment());
        assert!(!Account::of(vec![row(12, Err(Missing::NotOwner))]).shows_payment());
    }
}
