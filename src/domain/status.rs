//! What each status of both APIs means, and what it means for launches.

use crate::api::enums::{ChargeStatus, Funding, OrgReservationStatus, ReservationStatus};
use crate::api::models::{Reservation, Timestamp};
use crate::api::org::OrgReservation;
use crate::domain::words::sentence;
use crate::domain::words::time::{countdown, format_time, Zone};

/// The colour family a status is shown in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tone {
    Ok,
    Info,
    Warning,
    Danger,
    Neutral,
    /// A value the console does not know: shown as sent.
    Unknown,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StatusText {
    /// Short, for a badge: `Active`, `Past due`, `hibernating (unrecognised)`.
    pub label: String,
    pub tone: Tone,
    /// One or two sentences on what the status means.
    pub explanation: String,
    /// What it means for launching workloads.
    pub launches: String,
}

fn status_text(label: &str, tone: Tone, explanation: String, launches: &str) -> StatusText {
    StatusText { label: label.to_owned(), tone, explanation, launches: launches.to_owned() }
}

fn unrecognised(raw: &str) -> StatusText {
    status_text(
        &format!("{raw} (unrecognised)"),
        Tone::Unknown,
        format!("The API reports the status “{raw}”, which this console does not know yet."),
        UNRECOGNISED_LAUNCHES,
    )
}

/// What a reservation's status means for launching on it (seed 004), with the sentence
/// that says so.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LaunchAccess {
    Open(&'static str),
    /// The status rules new launches out.
    Closed(&'static str),
    /// A status the console does not know: a launch may be tried; its answer will say.
    Unrecognised(&'static str),
}

impl LaunchAccess {
    pub fn words(self) -> &'static str {
        match self {
            LaunchAccess::Open(w) | LaunchAccess::Closed(w) | LaunchAccess::Unrecognised(w) => w,
        }
    }

    /// Whether a launch is worth offering: only a known status can rule it out.
    pub fn allows_launch(self) -> bool {
        !matches!(self, LaunchAccess::Closed(_))
    }
}

/// The Capacity panel's note beside the free figures when the status rules launches out:
/// free GPUs there are not GPUs one can launch on now.
pub fn closed_capacity_note(access: LaunchAccess) -> Option<String> {
    match access {
        LaunchAccess::Closed(words) => {
            Some(format!("Launches are closed on this reservation, so free GPUs cannot be launched on now. {words}"))
        }
        LaunchAccess::Open(_) | LaunchAccess::Unrecognised(_) => None,
    }
}

pub fn launch_access(status: &ReservationStatus) -> LaunchAccess {
    use LaunchAccess::{Closed, Open, Unrecognised};
    match status {
        ReservationStatus::Assigning => Closed("Not yet: launches open once the nodes are set up."),
        ReservationStatus::Scheduled => Closed("Not yet: launches open when the term starts."),
        ReservationStatus::AwaitingPayment => {
            Closed("Paused: launches and new storage wait until the first invoice is paid (Billing → Invoices).")
        }
        ReservationStatus::Active => Open("Open: launch on the reserved nodes at no hourly charge."),
        ReservationStatus::PastDue => Closed(
            "New launches paused until the overdue payment is made; running workloads keep running until the stop date.",
        ),
        ReservationStatus::Suspended => Closed("Closed: nothing runs here until the reservation is restored."),
        ReservationStatus::Ended => Closed("Closed: launch elsewhere, or renew (a renewal is a new reservation)."),
        ReservationStatus::Unknown(_) => Unrecognised(UNRECOGNISED_LAUNCHES),
    }
}

/// What a status closed to launches does to them, in a few words for a row beside the
/// badge (the overview's): "New launches paused" on a past-due reservation, "Launches and
/// workloads stopped" on a suspended one. `None` where launches are open or the status is
/// not known: exactly where [`launch_access`] is not `Closed`.
pub fn launches_in_brief(status: &ReservationStatus) -> Option<&'static str> {
    Some(match status {
        ReservationStatus::Assigning => "Launches not open yet",
        ReservationStatus::Scheduled => "Launches open when the term starts",
        ReservationStatus::AwaitingPayment => "Launches paused until the first invoice is paid",
        ReservationStatus::PastDue => PAST_DUE_LAUNCHES,
        ReservationStatus::Suspended => "Launches and workloads stopped",
        ReservationStatus::Ended => "Launches closed: the term is over",
        ReservationStatus::Active | ReservationStatus::Unknown(_) => return None,
    })
}

/// A past-due reservation's launches, in its row and in its status's explanation.
const PAST_DUE_LAUNCHES: &str = "New launches paused";

const UNRECOGNISED_LAUNCHES: &str = "Unknown: a launch may be refused; the launch answer will say why.";

/// A reservation's status (seed 004), with the past-due countdown when `stops_at` is known
/// and its times in `zone`.
pub fn reservation_status_in(r: &Reservation, now: Timestamp, zone: Zone) -> StatusText {
    let launches = launch_access(&r.status).words();
    match &r.status {
        ReservationStatus::Assigning => {
            status_text("Assigning", Tone::Info, "EcoLink is assigning nodes to this reservation.".to_owned(), launches)
        }
        ReservationStatus::Scheduled => status_text(
            "Scheduled",
            Tone::Info,
            match countdown(r, now) {
                Some(when) => format!("The nodes are being set up; the reservation {when}."),
                None => "The nodes are being set up.".to_owned(),
            },
            launches,
        ),
        ReservationStatus::AwaitingPayment => status_text(
            "Awaiting payment",
            Tone::Warning,
            "The reservation starts when its first invoice is paid; its start and end dates are set then.".to_owned(),
            launches,
        ),
        ReservationStatus::Active => status_text(
            "Active",
            Tone::Ok,
            match countdown(r, now) {
                Some(when) => format!("The reserved GPUs are yours; the term {when}."),
                None => "The reserved GPUs are yours.".to_owned(),
            },
            launches,
        ),
        ReservationStatus::PastDue => {
            status_text("Past due", Tone::Danger, past_due_explanation(r, now, zone), launches)
        }
        ReservationStatus::Suspended => status_text(
            "Suspended",
            Tone::Danger,
            "Payment stayed overdue, so the workloads on this reservation were stopped.".to_owned(),
            launches,
        ),
        ReservationStatus::Ended => status_text(
            "Ended",
            Tone::Neutral,
            match countdown(r, now) {
                Some(when) => format!("The term is over; it {when}."),
                None => "The term is over.".to_owned(),
            },
            launches,
        ),
        ReservationStatus::Unknown(raw) => unrecognised(raw),
    }
}

/// [`reservation_status_in`] with its times in UTC, for a badge (label and tone do not
/// depend on the zone).
pub fn reservation_status(r: &Reservation, now: Timestamp) -> StatusText {
    reservation_status_in(r, now, Zone::Utc)
}

/// "New launches paused; workloads stop in 2 days (4 Dec 2026, 00:00 UTC)."
fn past_due_explanation(r: &Reservation, now: Timestamp, zone: Zone) -> String {
    let mut text = "A payment is overdue".to_owned();
    if let Some(since) = r.past_due_since {
        text.push_str(&format!(" since {}", format_time(since, zone)));
    }
    text.push_str(". ");
    text.push_str(PAST_DUE_LAUNCHES);
    match (countdown(r, now), r.stops_at) {
        (Some(when), Some(at)) => text.push_str(&format!("; {when} ({}) unless it is paid.", format_time(at, zone))),
        _ => text.push_str("; running workloads will be stopped unless it is paid."),
    }
    text
}

/// An org reservation's status (seed 000).
pub fn org_status(r: &OrgReservation) -> StatusText {
    match &r.status {
        OrgReservationStatus::Pending => status_text(
            "Pending",
            Tone::Info,
            "Written but not in force yet: it grants its units from its start.".to_owned(),
            "Not yet: the audience cannot place workloads on these units.",
        ),
        OrgReservationStatus::Active => status_text(
            "Active",
            Tone::Ok,
            match r.ends_at {
                Some(_) => "In force for its audience until it ends.".to_owned(),
                None => "In force for its audience; open-ended until cancelled.".to_owned(),
            },
            "Open to the audience; released units run spot workloads and can be reclaimed at any time.",
        ),
        OrgReservationStatus::Expired => status_text(
            "Expired",
            Tone::Neutral,
            "Its end has passed; it grants nothing.".to_owned(),
            "Closed: the units are no longer reserved to the audience.",
        ),
        OrgReservationStatus::Cancelled => status_text(
            "Cancelled",
            Tone::Neutral,
            "Cancelled; it grants nothing.".to_owned(),
            "Closed: the units are no longer reserved to the audience.",
        ),
        OrgReservationStatus::NeedsReview => status_text(
            "Needs review",
            Tone::Warning,
            "The node's GPU topology changed under this reservation. It grants nothing and withholds its units from everyone until an operator re-affirms it.".to_owned(),
            "Withheld: nobody can place workloads on these units until it is re-affirmed.",
        ),
        OrgReservationStatus::Unknown(raw) => unrecognised(raw),
    }
}

/// A banner at the top of a reservation that needs the owner to act.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Banner {
    pub tone: Tone,
    pub title: String,
    pub body: String,
}

/// How the owner settles an overdue payment, by the reservation's `funding` (seed 004: a
/// wallet-funded period is taken from the account's credit, an invoiced one is paid under
/// Billing → Invoices); both ways when it is not known (the list has no payment, a funding
/// the console does not know). Lower case, to follow a colon or a semicolon.
pub fn settle_overdue(funding: Option<&Funding>) -> &'static str {
    match funding {
        Some(Funding::Invoice) => "pay the overdue invoice under Billing → Invoices",
        Some(Funding::Wallet) => "add credit to the account: this reservation's periods are taken from its credit",
        Some(Funding::Unknown(_)) | None => {
            "pay the overdue invoice under Billing → Invoices if the reservation is invoiced, or add credit to the account if its periods are taken from the wallet"
        }
    }
}

/// The banner for `past_due`, `awaiting_payment` and `suspended`; `None` otherwise; its
/// times in `zone`. Only the owner (`owner`) is told to pay, the way its `funding` takes
/// (see [`settle_overdue`]); anyone else reads that the account owner settles it.
pub fn needs_action(r: &Reservation, funding: Option<&Funding>, zone: Zone, owner: bool) -> Option<Banner> {
    let banner = |tone, title: &str, body: String| Some(Banner { tone, title: title.to_owned(), body });
    let pay = |owner_text: &str, member_text: &str| if owner { owner_text } else { member_text }.to_owned();
    let settle = if owner {
        format!("{}.", sentence(settle_overdue(funding)))
    } else {
        "The account owner settles the overdue payment.".to_owned()
    };
    match r.status {
        ReservationStatus::PastDue => banner(
            Tone::Danger,
            "Payment overdue: new launches are paused",
            match r.stops_at {
                Some(at) => format!(
                    "Running workloads will be stopped on {} unless the overdue payment is made. {settle}",
                    format_time(at, zone)
                ),
                None => format!("Running workloads will be stopped unless the overdue payment is made. {settle}"),
            },
        ),
        ReservationStatus::AwaitingPayment => banner(
            Tone::Warning,
            "Starts when the first invoice is paid",
            pay(
                "Pay the first invoice (the advance plus the first period) under Billing → Invoices; the term, and launches, start then.",
                "The term, and launches, start when the first invoice (the advance plus the first period) is paid; the account owner pays it under Billing → Invoices.",
            ),
        ),
        ReservationStatus::Suspended => banner(
            Tone::Danger,
            "Suspended: workloads were stopped",
            if owner {
                format!("Payment stayed overdue and the workloads on this reservation were stopped. {} Or contact EcoLink.", settle)
            } else {
                format!("Payment stayed overdue and the workloads on this reservation were stopped. {settle}")
            },
        ),
        _ => None,
    }
}

/// How a charge status reads, and its colour.
pub fn charge_status(status: &ChargeStatus) -> (String, Tone) {
    let known = |label: &str, tone| (label.to_owned(), tone);
    match status {
        ChargeStatus::Scheduled => known("Scheduled", Tone::Neutral),
        ChargeStatus::Invoiced => known("Invoiced", Tone::Warning),
        ChargeStatus::Paid => known("Paid", Tone::Ok),
        ChargeStatus::CoveredByAdvance => known("Covered by advance", Tone::Info),
        ChargeStatus::PastDue => known("Past due", Tone::Danger),
        ChargeStatus::Waived => known("Waived", Tone::Neutral),
        ChargeStatus::Unknown(raw) => (format!("{raw} (unrecognised)"), Tone::Unknown),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_row_says_in_brief_what_a_closed_status_does_to_launches_and_nothing_where_they_are_open() {
        assert_eq!(launches_in_brief(&ReservationStatus::PastDue), Some("New launches paused"));
        assert_eq!(launches_in_brief(&ReservationStatus::Suspended), Some("Launches and workloads stopped"));
        for status in [
            ReservationStatus::Assigning,
            ReservationStatus::Scheduled,
            ReservationStatus::AwaitingPayment,
            ReservationStatus::Active,
            ReservationStatus::PastDue,
            ReservationStatus::Suspended,
            ReservationStatus::Ended,
            ReservationStatus::from("frozen"),
        ] {
            let closed = matches!(launch_access(&status), LaunchAccess::Closed(_));
            assert_eq!(launches_in_brief(&status).is_some(), closed, "{status:?}");
        }
    }

    #[test]
    fn the_capacity_panel_says_when_launches_are_closed() {
        let note = closed_capacity_note(launch_access(&ReservationStatus::PastDue)).unwrap();
        assert!(
            note.starts_with("Launches are closed on this reservation, so free GPUs cannot be launched on now."),
            "{note}"
        );
        assert!(note.contains("overdue payment"), "{note}");
        assert_eq!(closed_capacity_note(launch_access(&ReservationStatus::Active)), None);
        assert_eq!(closed_capacity_note(launch_access(&ReservationStatus::from("frozen"))), None);
    }
    use crate::domain::words::time::tests::{at, seed_reservation};

    fn with_status(status: ReservationStatus) -> Reservation {
        Reservation { status, ..seed_reservation() }
    }

    fn past_due_since_25_nov_stopping_4_dec() -> Reservation {
        Reservation {
            past_due_since: Some(at(2026, 11, 25, 0, 0)),
            stops_at: Some(at(2026, 12, 4, 15, 0)),
            ..with_status(ReservationStatus::PastDue)
        }
    }

    fn org(status: OrgReservationStatus) -> OrgReservation {
        serde_json::from_value(serde_json::json!({
            "id": "rsv_1", "status": status.as_str(), "nodeId": "node-a",
            "reservedUnitIds": ["u1", "u2"], "allowedOrgIds": ["org_acme"], "startsAt": "2026-11-01T00:00:00Z"
        }))
        .unwrap()
    }

    #[test]
    fn every_known_reservation_status_has_its_own_label_and_explanation() {
        let now = at(2026, 12, 2, 14, 5);
        let texts: Vec<StatusText> =
            ReservationStatus::KNOWN.iter().map(|s| reservation_status(&with_status(s.clone()), now)).collect();
        let labels: Vec<&str> = texts.iter().map(|t| t.label.as_str()).collect();
        assert_eq!(labels, ["Assigning", "Scheduled", "Awaiting payment", "Active", "Past due", "Suspended", "Ended"]);
        for t in &texts {
            assert!(!t.explanation.is_empty() && !t.launches.is_empty());
            assert_ne!(t.tone, Tone::Unknown);
        }
    }

    #[test]
    fn active_is_open_for_launches_until_the_term_ends() {
        let t = reservation_status(&seed_reservation(), at(2026, 12, 2, 14, 5));
        assert_eq!(t.tone, Tone::Ok);
        assert_eq!(t.explanation, "The reserved GPUs are yours; the term ends in 10 months.");
        assert_eq!(t.launches, "Open: launch on the reserved nodes at no hourly charge.");
    }

    #[test]
    fn past_due_pauses_launches_and_counts_down_to_the_stop() {
        let r = past_due_since_25_nov_stopping_4_dec();
        let t = reservation_status(&r, at(2026, 12, 2, 14, 5));
        assert_eq!(t.tone, Tone::Danger);
        assert_eq!(
            t.explanation,
            "A payment is overdue since 25 Nov 2026, 00:00 UTC. New launches paused; workloads stop in 2 days (4 Dec 2026, 15:00 UTC) unless it is paid."
        );
        assert!(t.launches.starts_with("New launches paused"));
    }

    #[test]
    fn past_due_without_dates_still_says_launches_are_paused() {
        let t = reservation_status(&with_status(ReservationStatus::PastDue), at(2026, 12, 2, 14, 5));
        assert_eq!(
            t.explanation,
            "A payment is overdue. New launches paused; running workloads will be stopped unless it is paid."
        );
    }

    #[test]
    fn awaiting_payment_waits_for_the_first_invoice() {
        let r = Reservation { starts_at: None, ends_at: None, ..with_status(ReservationStatus::AwaitingPayment) };
        let t = reservation_status(&r, at(2026, 12, 2, 14, 5));
        assert_eq!(t.tone, Tone::Warning);
        assert!(t.launches.contains("wait until the first invoice is paid (Billing → Invoices)"));
    }

    #[test]
    fn an_unknown_reservation_status_is_shown_as_sent_and_marked() {
        let t =
            reservation_status(&with_status(ReservationStatus::Unknown("hibernating".into())), at(2026, 12, 2, 0, 0));
        assert_eq!(t.label, "hibernating (unrecognised)");
        assert_eq!(t.tone, Tone::Unknown);
        assert!(t.explanation.contains("“hibernating”"));
    }

    #[test]
    fn every_known_org_status_has_its_own_label() {
        let labels: Vec<String> =
            OrgReservationStatus::KNOWN.iter().map(|s| org_status(&org(s.clone())).label).collect();
        assert_eq!(labels, ["Pending", "Active", "Expired", "Cancelled", "Needs review"]);
    }

    #[test]
    fn needs_review_grants_nothing_and_withholds_its_units() {
        let t = org_status(&org(OrgReservationStatus::NeedsReview));
        assert_eq!(t.tone, Tone::Warning);
        assert!(t
            .explanation
            .contains("grants nothing and withholds its units from everyone until an operator re-affirms it"));
        assert!(t.launches.starts_with("Withheld"));
    }

    #[test]
    fn an_active_org_reservation_without_end_is_open_ended() {
        assert_eq!(
            org_status(&org(OrgReservationStatus::Active)).explanation,
            "In force for its audience; open-ended until cancelled."
        );
        let t = org_status(&org(OrgReservationStatus::Unknown("draining".into())));
        assert_eq!((t.label.as_str(), t.tone), ("draining (unrecognised)", Tone::Unknown));
    }

    #[test]
    fn banners_only_for_statuses_that_need_the_owner() {
        let past_due =
            Reservation { stops_at: Some(at(2026, 12, 4, 15, 0)), ..with_status(ReservationStatus::PastDue) };
        let b = needs_action(&past_due, None, Zone::Utc, true).unwrap();
        assert_eq!((b.tone, b.title.as_str()), (Tone::Danger, "Payment overdue: new launches are paused"));
        assert!(b.body.starts_with("Running workloads will be stopped on 4 Dec 2026, 15:00 UTC"));
        assert_eq!(
            needs_action(&with_status(ReservationStatus::AwaitingPayment), None, Zone::Utc, true).unwrap().tone,
            Tone::Warning
        );
        assert!(needs_action(&with_status(ReservationStatus::Suspended), None, Zone::Utc, true)
            .unwrap()
            .title
            .starts_with("Suspended"));
        for quiet in [
            ReservationStatus::Active,
            ReservationStatus::Ended,
            ReservationStatus::Scheduled,
            ReservationStatus::Unknown("x".into()),
        ] {
            assert_eq!(needs_action(&with_status(quiet), None, Zone::Utc, false), None);
        }
    }

    #[test]
    fn banners_shown_to_a_member_never_tell_them_to_pay() {
        let past_due =
            Reservation { stops_at: Some(at(2026, 12, 4, 15, 0)), ..with_status(ReservationStatus::PastDue) };
        for r in [past_due, with_status(ReservationStatus::AwaitingPayment), with_status(ReservationStatus::Suspended)]
        {
            let body = needs_action(&r, None, Zone::Utc, false).unwrap().body;
            assert!(!body.contains("Pay ") && !body.contains("add credit"), "{body}");
            assert!(body.contains("the account owner pays") || body.contains("The account owner settles"), "{body}");
        }
    }

    #[test]
    fn the_owner_is_told_to_settle_an_overdue_payment_the_way_the_reservation_is_funded() {
        let past_due = with_status(ReservationStatus::PastDue);
        let suspended = with_status(ReservationStatus::Suspended);
        for r in [&past_due, &suspended] {
            let wallet = needs_action(r, Some(&Funding::Wallet), Zone::Utc, true).unwrap().body;
            assert!(
                wallet.contains("Add credit to the account: this reservation's periods are taken from its credit."),
                "{wallet}"
            );
            assert!(!wallet.contains("Invoices"), "a wallet-funded period has no invoice: {wallet}");
            let invoice = needs_action(r, Some(&Funding::Invoice), Zone::Utc, true).unwrap().body;
            assert!(invoice.contains("Pay the overdue invoice under Billing → Invoices."), "{invoice}");
            assert!(!invoice.contains("credit"), "{invoice}");
            let unknown = needs_action(r, None, Zone::Utc, true).unwrap().body;
            assert!(unknown.contains("if the reservation is invoiced, or add credit to the account"), "{unknown}");
        }
    }

    #[test]
    fn past_due_times_follow_the_chosen_zone() {
        let r = past_due_since_25_nov_stopping_4_dec();
        let berlin = Zone::Local(chrono::FixedOffset::east_opt(3600).unwrap());
        assert_eq!(
            reservation_status_in(&r, at(2026, 12, 2, 14, 5), berlin).explanation,
            "A payment is overdue since 25 Nov 2026, 01:00 GMT+1. New launches paused; workloads stop in 2 days (4 Dec 2026, 16:00 GMT+1) unless it is paid."
        );
        assert!(needs_action(&r, None, berlin, true)
            .unwrap()
            .body
            .starts_with("Running workloads will be stopped on 4 Dec 2026, 16:00 GMT+1 unless"));
    }

    #[test]
    fn only_an_active_reservation_is_open_for_launches() {
        let open: Vec<bool> = ReservationStatus::KNOWN.iter().map(|s| launch_access(s).allows_launch()).collect();
        // assigning, scheduled, awaiting_payment, active, past_due, suspended, ended
        assert_eq!(open, [false, false, false, true, false, false, false]);
        assert_eq!(
            launch_access(&ReservationStatus::PastDue).words(),
            reservation_status(&with_status(ReservationStatus::PastDue), at(2026, 12, 2, 0, 0)).launches
        );
    }

    #[test]
    fn an_unknown_status_does_not_rule_a_launch_out() {
        let access = launch_access(&ReservationStatus::Unknown("hibernating".into()));
        assert!(matches!(access, LaunchAccess::Unrecognised(_)));
        assert!(access.allows_launch());
        assert!(access.words().contains("the launch answer will say why"));
    }
}
