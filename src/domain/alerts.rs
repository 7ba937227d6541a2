//! The header's alerts, derived from what the overview read this session (nothing is stored
//! server side): one rule per function, each naming its reservation, most severe first.
//! A member's key is never shown payment wording (no "pay", "invoice", "overdue").

use crate::api::enums::{Funding, NodeState, ReservationStatus};
use crate::api::models::{NodesResponse, Reservation, ReservationDetail, Timestamp};
use crate::domain::nodes::capacity::runs_workloads;
use crate::domain::nodes::grid::state_meaning;
use crate::domain::status::settle_overdue;
use crate::domain::terms::amendments::AmendmentsOf;
use crate::domain::terms::at_risk::ANCHOR;
use crate::domain::terms::timeline::{renewal, unknown_renewal, Handover, Renewal};
use crate::domain::words::address::reservation_address;
use crate::domain::words::count;
use crate::domain::words::text::visible_controls;
use crate::domain::words::time::{format_time, format_utc_date, relative, Zone};
use chrono::TimeDelta;
use std::collections::BTreeMap;

/// How urgent an alert is. Ordered most severe first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Severity {
    /// Workloads stop, or have stopped: within 24 hours or now.
    Critical,
    Warning,
    Info,
}

impl Severity {
    pub fn label(self) -> &'static str {
        match self {
            Severity::Critical => "Critical",
            Severity::Warning => "Warning",
            Severity::Info => "Note",
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct Alert {
    pub severity: Severity,
    pub reservation: i64,
    pub text: String,
    /// When it happens or happened: orders alerts of one severity, soonest first.
    pub at: Option<Timestamp>,
    /// A deadline that stops workloads (`domain::terms::at_risk`): the alert links to what stops when.
    pub stops: bool,
    /// A watched question that now fits here (`domain::fleet::fit_watch`): the alert links to the
    /// launch page, prefilled.
    pub launch: Option<String>,
    /// The label of the account the reservation is of (empty: the connection's), which the
    /// alert's link names when several accounts are connected.
    pub account: String,
}

impl Alert {
    /// Where the alert leads: its reservation, at what stops when if it is such a deadline.
    pub fn href(&self) -> String {
        if let Some(launch) = &self.launch {
            return launch.clone();
        }
        let anchor = if self.stops { format!("#{ANCHOR}") } else { String::new() };
        format!("{}{anchor}", reservation_address(&self.account, self.reservation, "", &[]))
    }
}

/// A node going into or out of a state that takes no workloads, seen between two reads.
#[derive(Clone, Debug, PartialEq)]
pub struct NodeChange {
    pub reservation: i64,
    pub node: String,
    pub from: NodeState,
    pub to: NodeState,
    /// When the read that showed it arrived.
    pub at: Timestamp,
}

/// The states a change is told for: a node being worked on or set up.
fn watched(state: &NodeState) -> bool {
    matches!(state, NodeState::UnderMaintenance | NodeState::Preparing)
}

/// The changes into or out of maintenance or preparing between two answers for the same
/// reservation (nodes matched by name; a node that appears or disappears is no change).
pub fn node_changes(reservation: i64, before: &NodesResponse, after: &NodesResponse, at: Timestamp) -> Vec<NodeChange> {
    let earlier: BTreeMap<&str, &NodeState> =
        before.nodes.iter().map(|n| (n.display_name.as_str(), &n.state)).collect();
    after
        .nodes
        .iter()
        .filter_map(|node| {
            let from = *earlier.get(node.display_name.as_str())?;
            (from != &node.state && (watched(from) || watched(&node.state))).then(|| NodeChange {
                reservation,
                node: node.display_name.clone(),
                from: from.clone(),
                to: node.state.clone(),
                at,
            })
        })
        .collect()
}

/// Past this, a past-due reservation's stop is critical.
const CRITICAL_WITHIN: TimeDelta = TimeDelta::hours(24);
/// An amendment is announced this long before it takes effect.
const AMENDMENT_WITHIN: TimeDelta = TimeDelta::days(7);
/// A term's end is announced this long before.
const TERM_END_WITHIN: TimeDelta = TimeDelta::days(30);
/// Utilization under this share over [`LOW_USE_WINDOW`] is an alert.
pub const LOW_USE: f64 = 0.2;
/// The window low utilization is judged over (the session must have read for that long).
pub const LOW_USE_WINDOW: TimeDelta = TimeDelta::minutes(30);

/// What the alerts are derived from.
pub struct Inputs<'a> {
    pub reservations: &'a [Reservation],
    pub details: &'a BTreeMap<i64, ReservationDetail>,
    pub changes: &'a [NodeChange],
    /// Each reservation's mean utilization over the last [`LOW_USE_WINDOW`], for those read
    /// that long.
    pub recent_use: &'a BTreeMap<i64, f64>,
    /// Watched questions that now fit (`domain::fleet::fit_watch`), raised by the watch.
    pub fits: &'a [Alert],
}

/// Every alert, most severe first, then soonest, then by reservation.
pub fn alerts(inputs: &Inputs, now: Timestamp, owner: bool, zone: Zone) -> Vec<Alert> {
    let mut out: Vec<Alert> = Vec::new();
    let amendments = |id: i64| inputs.details.get(&id).map(|d| d.amendments.as_slice());
    for r in inputs.reservations {
        let detail = inputs.details.get(&r.id);
        let funding = detail.and_then(|d| d.payment.as_ref()).map(|p| &p.funding);
        out.extend(past_due(r, funding, now, owner, zone));
        out.extend(suspended(r, funding, owner));
        out.extend(awaiting_payment(r, detail, owner));
        // Every term end of a running reservation is in "what stops when", renewed or not.
        out.extend(
            term_ending_unrenewed(r, inputs.reservations, &amendments, now)
                .or_else(|| term_ending(r, now))
                .map(|a| Alert { stops: true, ..a }),
        );
        if let Some(detail) = detail {
            out.extend(amendments_soon(detail, now));
        }
        // Only where workloads can run: a reservation not started or suspended is idle by status.
        if let Some(share) = inputs.recent_use.get(&r.id).filter(|_| runs_workloads(&r.status)) {
            out.extend(low_use(r.id, *share));
        }
    }
    out.extend(latest_node_changes(inputs.changes, zone));
    out.extend(inputs.fits.iter().cloned());
    order(&mut out, now);
    out
}

/// Most severe first; within a severity, soonest (or most recent) first, then by
/// reservation: one order for one account's alerts and for several accounts' together.
pub fn order(alerts: &mut [Alert], now: Timestamp) {
    alerts.sort_by(|a, b| {
        let soonest = |alert: &Alert| alert.at.map_or(i64::MAX, |at| (at - now).num_seconds().abs());
        (a.severity, soonest(a), a.reservation).cmp(&(b.severity, soonest(b), b.reservation))
    });
}

fn alert(severity: Severity, reservation: i64, text: String, at: Option<Timestamp>) -> Option<Alert> {
    Some(Alert { severity, reservation, text, at, stops: false, launch: None, account: String::new() })
}

/// Past due: workloads stop at `stops_at`; critical under 24 h. The owner is told how to
/// settle it by the reservation's `funding` ([`settle_overdue`]).
pub fn past_due(r: &Reservation, funding: Option<&Funding>, now: Timestamp, owner: bool, zone: Zone) -> Option<Alert> {
    if r.status != ReservationStatus::PastDue {
        return None;
    }
    let id = r.id;
    let Some(at) = r.stops_at else {
        let text = if owner {
            format!(
                "Reservation #{id} is past due: its workloads will be stopped unless the overdue payment is made; {}.",
                settle_overdue(funding)
            )
        } else {
            format!("Reservation #{id}: its workloads will be stopped unless the account owner acts.")
        };
        return alert(Severity::Warning, id, text, None);
    };
    let severity = if at - now < CRITICAL_WITHIN { Severity::Critical } else { Severity::Warning };
    let when = if at > now {
        format!("stop {} ({})", relative(now, at), format_time(at, zone))
    } else {
        format!("were due to stop {} ({})", relative(now, at), format_time(at, zone))
    };
    let text = if owner {
        format!(
            "Reservation #{id} is past due: its workloads {when} unless the overdue payment is made; {}.",
            settle_overdue(funding)
        )
    } else {
        format!("Reservation #{id}: its workloads {when} unless the account owner acts.")
    };
    alert(severity, id, text, Some(at)).map(|a| Alert { stops: true, ..a })
}

/// Suspended: workloads were stopped. The owner is told how to settle it by `funding`.
pub fn suspended(r: &Reservation, funding: Option<&Funding>, owner: bool) -> Option<Alert> {
    if r.status != ReservationStatus::Suspended {
        return None;
    }
    let id = r.id;
    let text = if owner {
        format!(
            "Reservation #{id} is suspended: its workloads were stopped; {}, or contact EcoLink.",
            settle_overdue(funding)
        )
    } else {
        format!("Reservation #{id} is suspended: its workloads were stopped and it takes no launches.")
    };
    alert(Severity::Critical, id, text, None)
}

/// Awaiting payment: the owner is told the first invoice's due date (or that it is not
/// issued yet); a member only that the reservation has not started.
pub fn awaiting_payment(r: &Reservation, detail: Option<&ReservationDetail>, owner: bool) -> Option<Alert> {
    if r.status != ReservationStatus::AwaitingPayment {
        return None;
    }
    let id = r.id;
    if !owner {
        let text = format!("Reservation #{id} has not started: it waits for the account owner.");
        return alert(Severity::Warning, id, text, None);
    }
    let invoice = detail.and_then(ReservationDetail::first_invoice);
    let (due, at) = match invoice {
        Some(i) if !i.issued => ("; the invoice is not issued yet".to_owned(), None),
        Some(i) => match i.due_at {
            Some(due) => (format!(", due {}", format_utc_date(due)), Some(due)),
            None => (String::new(), None),
        },
        None => (String::new(), None),
    };
    let text = format!("Reservation #{id} starts when its first invoice is paid{due}.");
    alert(Severity::Warning, id, text, at)
}

/// A term ending within 30 days.
pub fn term_ending(r: &Reservation, now: Timestamp) -> Option<Alert> {
    let at = r.ends_at?;
    let running = matches!(r.status, ReservationStatus::Active | ReservationStatus::PastDue);
    if !running || at <= now || at - now > TERM_END_WITHIN {
        return None;
    }
    let text = format!("Reservation #{}'s term ends {} ({}).", r.id, relative(now, at), format_utc_date(at));
    alert(Severity::Warning, r.id, text, Some(at))
}

/// A term ending within 30 days that no renewal is known to take over by then ([`renewal`]
/// among `all`): none is reserved, it starts after the end, or it is not known
/// ([`unknown_renewal`], the wording "what stops when" and `/capacity` use). The workloads
/// there stop, so it is critical under 24 h. A renewal at or before the end is left to
/// [`term_ending`].
pub fn term_ending_unrenewed(
    r: &Reservation,
    all: &[Reservation],
    amendments: AmendmentsOf,
    now: Timestamp,
) -> Option<Alert> {
    let at = r.ends_at?;
    let running = matches!(r.status, ReservationStatus::Active | ReservationStatus::PastDue);
    if !running || at <= now || at - now > TERM_END_WITHIN {
        return None;
    }
    let (id, ends) = (r.id, format!("ends {} ({})", relative(now, at), format_utc_date(at)));
    let text = match renewal(r, all, amendments) {
        Renewal::None => format!(
            "Reservation #{id}'s term {ends} and no renewal is reserved in {} for {}: its workloads stop then.",
            r.region_id, r.gpu_type
        ),
        Renewal::Next { renewal, handover: Some(Handover::Gap { hours, .. }) } => format!(
            "Reservation #{id}'s term {ends} and its renewal #{} starts only on {}: {} without reserved GPUs in {}.",
            renewal.id,
            renewal.starts_at.map(format_utc_date).unwrap_or_default(),
            count(hours, "hour"),
            r.region_id
        ),
        Renewal::Unknown(candidate) => {
            format!("Reservation #{id}'s term {ends} and {}.", unknown_renewal(candidate.map(|c| c.id)))
        }
        Renewal::Next { .. } => return None,
    };
    let severity = if at - now < CRITICAL_WITHIN { Severity::Critical } else { Severity::Warning };
    alert(severity, id, text, Some(at))
}

/// Amendments taking effect within 7 days.
pub fn amendments_soon(detail: &ReservationDetail, now: Timestamp) -> Vec<Alert> {
    let id = detail.reservation.id;
    detail
        .amendments
        .iter()
        .filter(|a| a.effective_at > now && a.effective_at - now <= AMENDMENT_WITHIN)
        .filter_map(|a| {
            let nodes = if a.node_count_before == a.node_count_after {
                String::new()
            } else {
                format!(": {} → {} nodes", a.node_count_before, a.node_count_after)
            };
            let text = format!(
                "An amendment to reservation #{id} takes effect {} ({}){nodes}.",
                relative(now, a.effective_at),
                format_utc_date(a.effective_at)
            );
            let lowers = a.node_count_after < a.node_count_before;
            alert(Severity::Info, id, text, Some(a.effective_at)).map(|alert| Alert { stops: lowers, ..alert })
        })
        .collect()
}

/// Mean utilization under 20 % over the last 30 minutes.
pub fn low_use(reservation: i64, share: f64) -> Option<Alert> {
    if !(0.0..LOW_USE).contains(&share) {
        return None;
    }
    let percent = (share * 100.0).round();
    let text = format!(
        "Reservation #{reservation} used {percent} % of its GPUs over the last {} minutes.",
        LOW_USE_WINDOW.num_minutes()
    );
    alert(Severity::Warning, reservation, text, None)
}

/// The latest change of each node: going into maintenance or preparing is a warning that
/// says what the state means for the capacity, coming back an info. The node's name (and a
/// state the console does not know) are the API's text, their bidirectional controls shown
/// (also in a browser notification, which is plain text).
pub fn latest_node_changes(changes: &[NodeChange], zone: Zone) -> Vec<Alert> {
    let mut latest: BTreeMap<(i64, &str), &NodeChange> = BTreeMap::new();
    for change in changes {
        latest.insert((change.reservation, change.node.as_str()), change);
    }
    let words = |state: &NodeState| match state {
        NodeState::UnderMaintenance => "under maintenance".to_owned(),
        NodeState::Preparing => "preparing".to_owned(),
        NodeState::Ready => "ready".to_owned(),
        NodeState::Unknown(raw) => format!("in state {}", visible_controls(raw)),
    };
    latest
        .into_values()
        .filter_map(|c| {
            let when = format_time(c.at, zone);
            let (severity, text) = if watched(&c.to) {
                let meaning = state_meaning(&c.to).map(|m| format!(": {m}")).unwrap_or_default();
                (
                    Severity::Warning,
                    format!(
                        "{} of reservation #{} went {}{meaning} (seen {when}).",
                        visible_controls(&c.node),
                        c.reservation,
                        words(&c.to)
                    ),
                )
            } else {
                (
                    Severity::Info,
                    format!(
                        "{} of reservation #{} is {} again, no longer {} (seen {when}).",
                        visible_controls(&c.node),
                        c.reservation,
                        words(&c.to),
                        words(&c.from)
                    ),
                )
            };
            alert(severity, c.reservation, text, Some(c.at))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::models::Node;
    use crate::domain::fleet::tests::reservation;
    use chrono::TimeZone;

    fn now() -> Timestamp {
        chrono::Utc.with_ymd_and_hms(2026, 12, 2, 9, 30, 0).unwrap()
    }

    fn hours(h: i64) -> TimeDelta {
        TimeDelta::hours(h)
    }

    /// No payment words for a member.
    fn assert_no_payment_wording(text: &str) {
        for word in ["pay", "invoice", "overdue", "past due", "$"] {
            assert!(!text.to_lowercase().contains(word), "{word:?} in a member's alert: {text}");
        }
    }

    fn past_due_stopping_in(h: i64) -> Reservation {
        let mut r = reservation(8, ReservationStatus::PastDue, "sea", "RTX", 8);
        r.stops_at = Some(now() + hours(h));
        r
    }

    #[test]
    fn past_due_counts_down_to_the_stop_and_is_critical_under_24_hours() {
        let soon = past_due(&past_due_stopping_in(5), Some(&Funding::Wallet), now(), true, Zone::Utc).unwrap();
        assert_eq!(soon.severity, Severity::Critical);
        assert_eq!(
            soon.text,
            "Reservation #8 is past due: its workloads stop in 5 hours (2 Dec 2026, 14:30 UTC) unless the overdue payment is made; add credit to the account: this reservation's periods are taken from its credit."
        );
        let later = past_due(&past_due_stopping_in(30), None, now(), true, Zone::Utc).unwrap();
        assert_eq!(later.severity, Severity::Warning);
        let member = past_due(&past_due_stopping_in(5), None, now(), false, Zone::Utc).unwrap();
        assert_eq!(member.severity, Severity::Critical);
        assert_no_payment_wording(&member.text);
        assert!(member.text.contains("stop in 5 hours"), "{}", member.text);
        let active = reservation(8, ReservationStatus::Active, "sea", "RTX", 8);
        assert_eq!(past_due(&active, None, now(), true, Zone::Utc), None);
    }

    #[test]
    fn suspended_is_critical_and_a_member_gets_no_payment_words() {
        let r = reservation(5, ReservationStatus::Suspended, "dfw", "B200", 16);
        let owner = suspended(&r, Some(&Funding::Invoice), true).unwrap();
        assert_eq!((owner.severity, owner.reservation), (Severity::Critical, 5));
        assert!(owner.text.contains("pay the overdue invoice under Billing → Invoices"), "{}", owner.text);
        let wallet = suspended(&r, Some(&Funding::Wallet), true).unwrap().text;
        assert!(wallet.contains("add credit to the account") && !wallet.contains("invoice"), "{wallet}");
        assert_no_payment_wording(&suspended(&r, None, false).unwrap().text);
    }

    #[test]
    fn awaiting_payment_gives_the_owner_the_first_invoices_due_date() {
        let r = reservation(16, ReservationStatus::AwaitingPayment, "dfw", "H100", 8);
        let mut detail: ReservationDetail =
            serde_json::from_str(include_str!("../../fixtures/seed_004_detail.json")).unwrap();
        detail.reservation = r.clone();
        detail.first_invoice = Some(
            serde_json::from_str(r#"{"amount_usd": 100, "due_at": "2026-12-10T00:00:00Z", "issued": true}"#).unwrap(),
        );
        let owner = awaiting_payment(&r, Some(&detail), true).unwrap();
        assert_eq!(owner.text, "Reservation #16 starts when its first invoice is paid, due 10 Dec 2026.");
        detail.first_invoice.as_mut().unwrap().issued = false;
        let not_issued = awaiting_payment(&r, Some(&detail), true).unwrap();
        assert!(not_issued.text.ends_with("the invoice is not issued yet."), "{}", not_issued.text);
        let member = awaiting_payment(&r, None, false).unwrap();
        assert_no_payment_wording(&member.text);
        assert_eq!(member.severity, Severity::Warning);
    }

    fn nodes(states: &[NodeState]) -> NodesResponse {
        let node = |(i, state): (usize, &NodeState)| Node {
            display_name: format!("node-{}", i + 1),
            state: state.clone(),
            gpus: 8,
            gpus_in_use: Some(0),
            workloads: Vec::new(),
        };
        NodesResponse { nodes: states.iter().enumerate().map(node).collect(), ..NodesResponse::default() }
    }

    #[test]
    fn a_node_entering_or_leaving_maintenance_or_preparing_is_told_with_its_latest_change() {
        use NodeState::{Preparing, Ready, UnderMaintenance};
        let first = nodes(&[Ready, Ready, Preparing]);
        let second = nodes(&[UnderMaintenance, Ready, Ready]);
        let changes = node_changes(12, &first, &second, now());
        assert_eq!(changes.len(), 2);
        assert_eq!((changes[0].node.as_str(), &changes[0].to), ("node-1", &UnderMaintenance));
        let told = latest_node_changes(&changes, Zone::Utc);
        assert_eq!(told[0].severity, Severity::Warning);
        assert_eq!(
            told[0].text,
            "node-1 of reservation #12 went under maintenance: not usable now; still part of what is reserved \
             (seen 2 Dec 2026, 09:30 UTC)."
        );
        assert_eq!(told[1].severity, Severity::Info);
        assert!(told[1].text.starts_with("node-3 of reservation #12 is ready again, no longer preparing"));
        // Back to ready later: only the latest change of node-1 is told.
        let mut all = changes.clone();
        all.extend(node_changes(12, &second, &first, now() + hours(1)));
        let told = latest_node_changes(&all, Zone::Utc);
        assert_eq!(told.iter().filter(|a| a.text.starts_with("node-1 ")).count(), 1);
        assert!(told.iter().all(|a| a.severity != Severity::Warning || !a.text.starts_with("node-1 ")));
        assert!(node_changes(12, &first, &first, now()).is_empty(), "no change, nothing told");
    }

    #[test]
    fn a_node_name_or_state_with_a_right_to_left_override_is_told_with_the_control_shown() {
        let change = |to: NodeState| NodeChange {
            reservation: 12,
            node: "\u{202E}fdp.exe".into(),
            from: NodeState::Ready,
            to,
            at: now(),
        };
        let told = latest_node_changes(&[change(NodeState::UnderMaintenance)], Zone::Utc);
        assert!(told[0].text.starts_with("⟨RLO⟩fdp.exe of reservation #12 went under maintenance"), "{}", told[0].text);
        let told = latest_node_changes(&[change(NodeState::Unknown("\u{2067}x".into()))], Zone::Utc);
        assert!(told[0].text.contains("is in state ⟨RLI⟩x again"), "{}", told[0].text);
        assert!(!told[0].text.contains(['\u{202E}', '\u{2067}']), "{}", told[0].text);
    }

    #[test]
    fn an_amendment_within_7_days_is_announced_and_a_later_one_is_not() {
        let mut detail: ReservationDetail =
            serde_json::from_str(include_str!("../../fixtures/seed_004_detail.json")).unwrap();
        let effective = detail.amendments[0].effective_at;
        let soon = amendments_soon(&detail, effective - TimeDelta::days(3));
        assert_eq!(soon.len(), 1);
        assert_eq!(soon[0].text, "An amendment to reservation #12 takes effect in 3 days (1 Feb 2027): 4 → 6 nodes.");
        assert!(amendments_soon(&detail, effective - TimeDelta::days(8)).is_empty());
        assert!(amendments_soon(&detail, effective + hours(1)).is_empty(), "already in effect");
        detail.amendments.clear();
        assert!(amendments_soon(&detail, now()).is_empty());
    }

    #[test]
    fn a_term_ending_within_30_days_is_announced() {
        let mut r = reservation(9, ReservationStatus::Active, "ord", "H100", 24);
        r.ends_at = Some(now() + TimeDelta::days(12));
        let told = term_ending(&r, now()).unwrap();
        assert_eq!(told.text, "Reservation #9's term ends in 12 days (14 Dec 2026).");
        r.ends_at = Some(now() + TimeDelta::days(31));
        assert_eq!(term_ending(&r, now()), None);
        r.ends_at = Some(now() + TimeDelta::days(2));
        r.status = ReservationStatus::Ended;
        assert_eq!(term_ending(&r, now()), None, "an ended reservation is not announced");
    }

    #[test]
    fn a_term_ending_within_30_days_without_a_renewal_taking_over_says_its_workloads_stop() {
        let unread = |_: i64| None;
        let mut r = reservation(9, ReservationStatus::Active, "ord", "H100", 24);
        r.starts_at = Some(now() - TimeDelta::days(300));
        r.ends_at = Some(now() + TimeDelta::days(12));
        let alone = [r.clone()];
        let told = term_ending_unrenewed(&r, &alone, &unread, now()).unwrap();
        assert_eq!(told.severity, Severity::Warning);
        assert_eq!(
            told.text,
            "Reservation #9's term ends in 12 days (14 Dec 2026) and no renewal is reserved in ord for H100: its workloads stop then."
        );
        let mut renewal = reservation(21, ReservationStatus::Scheduled, "ord", "H100", 24);
        renewal.starts_at = Some(now() + TimeDelta::days(17));
        renewal.ends_at = Some(now() + TimeDelta::days(400));
        let late = [r.clone(), renewal.clone()];
        let told = term_ending_unrenewed(&r, &late, &unread, now()).unwrap();
        assert_eq!(
            told.text,
            "Reservation #9's term ends in 12 days (14 Dec 2026) and its renewal #21 starts only on 19 Dec 2026: 120 hours without reserved GPUs in ord."
        );
        renewal.starts_at = r.ends_at;
        let on_time = [r.clone(), renewal.clone()];
        assert_eq!(term_ending_unrenewed(&r, &on_time, &unread, now()), None, "renewed at the end");
        // Renewed on time, the end is still announced as before; alone, only the unrenewed alert is.
        let (details, recent) = (BTreeMap::new(), BTreeMap::new());
        let texts = |list: &[Reservation]| {
            let inputs = Inputs { reservations: list, details: &details, changes: &[], recent_use: &recent, fits: &[] };
            alerts(&inputs, now(), false, Zone::Utc).into_iter().map(|a| a.text).collect::<Vec<_>>()
        };
        assert_eq!(texts(&on_time), ["Reservation #9's term ends in 12 days (14 Dec 2026)."]);
        assert_eq!(texts(&alone).len(), 1);
        assert!(texts(&alone)[0].contains("no renewal is reserved"), "{:?}", texts(&alone));
        r.ends_at = Some(now() + hours(5));
        assert_eq!(term_ending_unrenewed(&r, &[r.clone()], &unread, now()).unwrap().severity, Severity::Critical);
        r.ends_at = Some(now() + TimeDelta::days(31));
        assert_eq!(term_ending_unrenewed(&r, &[r.clone()], &unread, now()), None, "not within 30 days");
    }

    #[test]
    fn the_alerts_of_a_deadline_that_stops_workloads_link_to_what_stops_when() {
        let due = past_due_stopping_in(20);
        let mut ending = reservation(9, ReservationStatus::Active, "ord", "H100", 24);
        ending.ends_at = Some(now() + TimeDelta::days(12));
        let mut detail: ReservationDetail =
            serde_json::from_str(include_str!("../../fixtures/seed_004_detail.json")).unwrap();
        let (before, after) = (detail.amendments[0].node_count_after, detail.amendments[0].node_count_before);
        detail.amendments[0].node_count_before = before;
        detail.amendments[0].node_count_after = after;
        detail.amendments[0].effective_at = now() + TimeDelta::days(3);
        let suspended = reservation(5, ReservationStatus::Suspended, "dfw", "B200", 16);
        let details = BTreeMap::from([(12, detail.clone())]);
        let mut list = vec![due, ending.clone(), suspended, detail.reservation.clone()];
        let links = |list: &[Reservation]| -> Vec<(i64, String)> {
            let inputs =
                Inputs { reservations: list, details: &details, changes: &[], recent_use: &BTreeMap::new(), fits: &[] };
            let mut all: Vec<_> =
                alerts(&inputs, now(), true, Zone::Utc).iter().map(|a| (a.reservation, a.href())).collect();
            all.sort();
            all
        };
        assert_eq!(
            links(&list),
            vec![
                (5, "/reservations/5".to_owned()),
                (8, "/reservations/8#at-risk".to_owned()),
                (9, "/reservations/9#at-risk".to_owned()),
                (12, "/reservations/12#at-risk".to_owned()),
            ]
        );
        // Renewed by a term starting at its end: #9's end is still in what stops when (its
        // workloads are on its own nodes); a raise is not.
        let mut renewal = ending.clone();
        renewal.id = 19;
        renewal.starts_at = ending.ends_at;
        list.push(renewal);
        let mut raised = details.clone();
        raised.get_mut(&12).unwrap().amendments[0].node_count_after = before + 2;
        let inputs =
            Inputs { reservations: &list, details: &raised, changes: &[], recent_use: &BTreeMap::new(), fits: &[] };
        let told = alerts(&inputs, now(), true, Zone::Utc);
        let href = |id| told.iter().find(|a| a.reservation == id).unwrap().href();
        assert_eq!((href(9), href(12)), ("/reservations/9#at-risk".to_owned(), "/reservations/12".to_owned()));
    }

    #[test]
    fn utilization_under_20_percent_over_the_window_is_a_warning() {
        let told = low_use(12, 0.125).unwrap();
        assert_eq!(told.text, "Reservation #12 used 13 % of its GPUs over the last 30 minutes.");
        assert_eq!(told.severity, Severity::Warning);
        assert_eq!(low_use(12, 0.2), None);
        assert_eq!(low_use(12, 0.9), None);
    }

    #[test]
    fn alerts_come_most_severe_first_then_soonest() {
        let later = past_due_stopping_in(20);
        let mut sooner = past_due_stopping_in(2);
        sooner.id = 3;
        let suspended = reservation(5, ReservationStatus::Suspended, "dfw", "B200", 16);
        let mut ending = reservation(9, ReservationStatus::Active, "ord", "H100", 24);
        ending.ends_at = Some(now() + TimeDelta::days(12));
        let list = [ending, later, suspended, sooner];
        // Reservation 5 is suspended: its low use is its status, not an alert.
        let recent = BTreeMap::from([(9, 0.05), (5, 0.0)]);
        let details = BTreeMap::new();
        let inputs = Inputs { reservations: &list, details: &details, changes: &[], recent_use: &recent, fits: &[] };
        let order: Vec<(Severity, i64)> =
            alerts(&inputs, now(), true, Zone::Utc).iter().map(|a| (a.severity, a.reservation)).collect();
        assert_eq!(
            order,
            [
                (Severity::Critical, 3),
                (Severity::Critical, 8),
                (Severity::Critical, 5),
                (Severity::Warning, 9),
                (Severity::Warning, 9)
            ]
        );
    }
}
