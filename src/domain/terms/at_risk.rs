//! What stops when: for each reservation that runs workloads and has a deadline ahead of
//! it, the workloads running there now that the deadline would stop. Three deadlines:
//! past due (`stops_at`: every workload stops unless the overdue payment is made), the
//! term's end (`ends_at`), with its renewal beside it (one taking over at the end runs on
//! nodes of its own: whether the workloads move to it is not documented, see
//! [`RENEWAL_CARRY_OVER`]), and an amendment lowering `node_count` (`effective_at`: which
//! workloads go is not documented, see [`NODES_LOWERED_WHICH`]).
//!
//! Placement that cannot be read (nodes not read yet, the region unreachable, nodes whose
//! figures are absurd) is said to be unknown, never "nothing at risk".

use crate::api::assumptions::{NODES_LOWERED_WHICH, RENEWAL_CARRY_OVER};
use crate::api::enums::{ReservationStatus, WorkloadKind};
use crate::api::models::{Amendment, NodesResponse, Payment, Reservation, Timestamp};
use crate::api::money::Usd;
use crate::domain::money::ledger::overdue;
use crate::domain::nodes::capacity::runs_workloads;
use crate::domain::status::settle_overdue;
use crate::domain::terms::amendments::AmendmentsOf;
use crate::domain::terms::timeline::{renewal, unknown_renewal, Renewal};
use crate::domain::words::count;
use std::collections::HashMap;

/// The id of the panel that shows them: the alerts of a deadline link to it.
pub const ANCHOR: &str = "at-risk";

/// What happens at the deadline.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Deadline {
    /// Past due: running workloads stop at `stops_at` unless the overdue payment is made.
    PastDue,
    /// The term ends; `renewal` is what follows it.
    TermEnds { renewal: Successor },
    /// An amendment lowers the nodes from `from` to `to`.
    NodesLowered { from: i64, to: i64 },
}

/// What follows a term's end, by [`renewal`]'s rule.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Successor {
    /// No reservation of its region and GPU type follows.
    None,
    /// `id` starts at `start`, after the end: hours without reserved GPUs.
    Later { id: i64, start: Timestamp },
    /// `id` starts at `start`, at or before the end: the GPUs stay reserved, on the nodes of
    /// another reservation.
    TakesOver { id: i64, start: Timestamp },
    /// Not known ([`unknown_renewal`]): `candidate`, without dates yet, could be it.
    Unknown { candidate: Option<i64> },
}

/// One workload running now, as a deadline would stop it: seed 004 lists a cluster once per
/// node, so its entries are gathered by kind and id.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Stopping {
    pub kind: WorkloadKind,
    pub id: i64,
    pub name: String,
    pub gpus: i64,
    /// The nodes it runs on, in the answer's order.
    pub nodes: Vec<String>,
}

/// Why the workloads at risk cannot be listed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UnknownWhy {
    NotRead,
    Unreachable,
}

/// What is known of the workloads a deadline stops.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Workloads {
    /// Every workload running there now (none: nothing runs there, as read).
    Known(Vec<Stopping>),
    /// Those of the nodes read, and `unreadable` nodes whose workloads are unknown.
    Partly {
        known: Vec<Stopping>,
        unreadable: usize,
    },
    Unknown(UnknownWhy),
}

/// One deadline of one reservation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Risk {
    pub reservation: i64,
    pub at: Timestamp,
    pub deadline: Deadline,
    pub workloads: Workloads,
}

/// A reservation and what was read of it.
#[derive(Clone, Copy, Debug)]
pub struct Subject<'a> {
    pub reservation: &'a Reservation,
    /// Its amendments, once its detail was read (`None` before).
    pub amendments: Option<&'a [Amendment]>,
    /// Its latest `/nodes` answer, `None` before the first.
    pub nodes: Option<&'a NodesResponse>,
}

/// Every deadline ahead of `subjects` at `now`, soonest first (then by reservation). `all`
/// is every reservation of the account, among which renewals are found.
pub fn at_risk(subjects: &[Subject], all: &[Reservation], now: Timestamp) -> Vec<Risk> {
    let read = |id: i64| subjects.iter().find(|s| s.reservation.id == id).and_then(|s| s.amendments);
    let mut out: Vec<Risk> = subjects.iter().flat_map(|s| deadlines(s, all, &read, now)).collect();
    out.sort_by_key(|risk| (risk.at, risk.reservation));
    out
}

/// One reservation's deadlines, with the workloads each would stop. Only a reservation whose
/// workloads run (active, past due) has any: the others stop nothing.
fn deadlines(subject: &Subject, all: &[Reservation], amendments: AmendmentsOf, now: Timestamp) -> Vec<Risk> {
    let r = subject.reservation;
    if !runs_workloads(&r.status) {
        return Vec::new();
    }
    let mut found: Vec<(Timestamp, Deadline)> = Vec::new();
    if r.status == ReservationStatus::PastDue {
        found.extend(r.stops_at.map(|at| (at, Deadline::PastDue)));
    }
    found.extend(term_end(r, all, amendments, now));
    for a in subject.amendments.unwrap_or_default() {
        if a.effective_at > now && a.node_count_after < a.node_count_before {
            found.push((a.effective_at, Deadline::NodesLowered { from: a.node_count_before, to: a.node_count_after }));
        }
    }
    let workloads = running(subject.nodes);
    found
        .into_iter()
        .map(|(at, deadline)| Risk { reservation: r.id, at, deadline, workloads: workloads.clone() })
        .collect()
}

/// `r`'s term end ahead of `now`, with what follows it among `all` ([`renewal`]): whether
/// the renewal takes over by then is [`Handover::covers_the_end`]'s rule, the one the alerts
/// and the timeline read. A renewal taking over does not make the end pass unsaid: it is a
/// new reservation on nodes of its own ([`RENEWAL_CARRY_OVER`]).
///
/// [`Handover::covers_the_end`]: crate::domain::terms::timeline::Handover::covers_the_end
fn term_end(
    r: &Reservation,
    all: &[Reservation],
    amendments: AmendmentsOf,
    now: Timestamp,
) -> Option<(Timestamp, Deadline)> {
    let end = r.ends_at.filter(|end| *end > now)?;
    let renewal = match renewal(r, all, amendments) {
        Renewal::Next { renewal, handover } => {
            let (id, start) = (renewal.id, renewal.starts_at?);
            match handover {
                Some(handover) if handover.covers_the_end() => Successor::TakesOver { id, start },
                _ => Successor::Later { id, start },
            }
        }
        Renewal::None => Successor::None,
        Renewal::Unknown(candidate) => Successor::Unknown { candidate: candidate.map(|c| c.id) },
    };
    Some((end, Deadline::TermEnds { renewal }))
}

/// The workloads running on `nodes` now, gathered by kind and id, in the order first seen:
/// one pass, each workload found by its key (a cluster on many nodes is listed on each).
pub fn running(nodes: Option<&NodesResponse>) -> Workloads {
    let Some(response) = nodes else {
        return Workloads::Unknown(UnknownWhy::NotRead);
    };
    if response.workloads_unknown {
        return Workloads::Unknown(UnknownWhy::Unreachable);
    }
    let mut known: Vec<Stopping> = Vec::new();
    let mut index: HashMap<(&WorkloadKind, i64), usize> = HashMap::new();
    for node in &response.nodes {
        for w in &node.workloads {
            match index.get(&(&w.kind, w.id)) {
                Some(&at) => {
                    let s = &mut known[at];
                    s.gpus += w.gpus;
                    // A node lists each workload once: only its own last entry can repeat it.
                    if s.nodes.last() != Some(&node.display_name) {
                        s.nodes.push(node.display_name.clone());
                    }
                }
                None => {
                    index.insert((&w.kind, w.id), known.len());
                    known.push(Stopping {
                        kind: w.kind.clone(),
                        id: w.id,
                        name: w.name.clone(),
                        gpus: w.gpus,
                        nodes: vec![node.display_name.clone()],
                    });
                }
            }
        }
    }
    match response.unreadable_nodes.len() {
        0 => Workloads::Known(known),
        unreadable => Workloads::Partly { known, unreadable },
    }
}

impl Risk {
    /// What happens, in a few words. A member (not `owner`) reads no payment words, as in
    /// the alerts: only that the account owner must act.
    pub fn title(&self, owner: bool) -> String {
        match &self.deadline {
            Deadline::PastDue if owner => "Workloads stop unless the overdue payment is made".to_owned(),
            Deadline::PastDue => "Workloads stop unless the account owner acts".to_owned(),
            Deadline::TermEnds { renewal: Successor::None } => "The term ends with no renewal".to_owned(),
            Deadline::TermEnds { renewal: Successor::Later { id, .. } } => {
                format!("The term ends before its renewal #{id} starts")
            }
            Deadline::TermEnds { renewal: Successor::TakesOver { id, .. } } => {
                format!("The term ends and its renewal #{id} takes over")
            }
            Deadline::TermEnds { renewal: Successor::Unknown { candidate } } => {
                format!("The term ends and {}", unknown_renewal(*candidate))
            }
            Deadline::NodesLowered { from, to } => format!("An amendment lowers the nodes from {from} to {to}"),
        }
    }

    /// Which of the workloads listed stop, in a sentence (the amendment's says it is assumed).
    pub fn scope(&self) -> String {
        let listed = match &self.workloads {
            Workloads::Unknown(UnknownWhy::NotRead) => {
                return "Which workloads would stop is unknown: the nodes are not read yet.".to_owned()
            }
            Workloads::Unknown(UnknownWhy::Unreachable) => {
                return "Which workloads would stop is unknown: the region could not be reached.".to_owned()
            }
            Workloads::Known(known) if known.is_empty() => {
                return "Nothing runs there now, as last read: no workload would stop.".to_owned()
            }
            Workloads::Known(known) | Workloads::Partly { known, .. } => known.len(),
        };
        let unread = match &self.workloads {
            Workloads::Partly { unreadable, .. } => format!(
                " The workloads of {} that could not be read are unknown.",
                count(i64::try_from(*unreadable).unwrap_or(i64::MAX), "node")
            ),
            _ => String::new(),
        };
        let them = count(i64::try_from(listed).unwrap_or(i64::MAX), "workload");
        match &self.deadline {
            Deadline::PastDue | Deadline::TermEnds { .. } => {
                format!("All {them} running there now would stop.{unread}")
            }
            Deadline::NodesLowered { from, to } => {
                let nodes = match from - to {
                    1 => "1 node's".to_owned(),
                    n => format!("{} nodes'", crate::domain::words::figure(n)),
                };
                format!("Up to {nodes} workloads would stop, of these {them}.{unread}")
            }
        }
    }

    /// The assumption the scope rests on (which workloads an amendment stops, whether they
    /// move to a renewal), said after it wherever it is shown, whatever was read.
    pub fn assumption(&self) -> Option<&'static str> {
        match self.deadline {
            Deadline::NodesLowered { .. } => Some(NODES_LOWERED_WHICH),
            Deadline::TermEnds { renewal: Successor::TakesOver { .. } } => Some(RENEWAL_CARRY_OVER),
            Deadline::PastDue | Deadline::TermEnds { .. } => None,
        }
    }
}

/// What would avert a past-due stop, for the owner (the one who has `payment`): what is owed
/// ([`overdue`], the ledger's past due) and where to pay it by `funding`. `None` for other
/// deadlines and for a member, who is never shown money.
pub fn averted_by(risk: &Risk, payment: Option<&Payment>) -> Option<(Usd, &'static str)> {
    let payment = payment.filter(|_| risk.deadline == Deadline::PastDue)?;
    Some((overdue(payment), settle_overdue(Some(&payment.funding))))
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::api::enums::{ChargeStatus, Funding, NodeState};
    use crate::api::models::{Node, UnreadableNode, Workload};
    use crate::domain::fleet::tests::reservation;
    use chrono::TimeDelta;

    /// `text` read as RFC 3339.
    pub(crate) fn at(text: &str) -> Timestamp {
        crate::api::timestamp::parse_rfc3339(text).unwrap()
    }

    fn now() -> Timestamp {
        at("2027-01-31T12:00:00Z")
    }

    fn workload(kind: WorkloadKind, id: i64, name: &str, gpus: i64) -> Workload {
        Workload { kind, id, name: name.into(), gpus, billing: None }
    }

    fn node(name: &str, workloads: Vec<Workload>) -> Node {
        let in_use = workloads.iter().map(|w| w.gpus).sum();
        Node { display_name: name.into(), state: NodeState::Ready, gpus: 8, gpus_in_use: Some(in_use), workloads }
    }

    /// Two nodes: a cluster on both, an instance on the first.
    fn placed() -> NodesResponse {
        NodesResponse {
            nodes: vec![
                node(
                    "node-1",
                    vec![
                        workload(WorkloadKind::GpuCluster, 418, "train", 4),
                        workload(WorkloadKind::GpuInstance, 902, "notebook", 2),
                    ],
                ),
                node("node-2", vec![workload(WorkloadKind::GpuCluster, 418, "train", 8)]),
            ],
            ..NodesResponse::default()
        }
    }

    fn stopping_now() -> Vec<Stopping> {
        vec![
            Stopping {
                kind: WorkloadKind::GpuCluster,
                id: 418,
                name: "train".into(),
                gpus: 12,
                nodes: vec!["node-1".into(), "node-2".into()],
            },
            Stopping {
                kind: WorkloadKind::GpuInstance,
                id: 902,
                name: "notebook".into(),
                gpus: 2,
                nodes: vec!["node-1".into()],
            },
        ]
    }

    /// Reservation `id`, active in `sea` on RTX, starting at `start` and ending at `end`.
    fn term(id: i64, start: &str, end: &str) -> Reservation {
        let mut r = reservation(id, ReservationStatus::Active, "sea", "RTX", 16);
        r.starts_at = Some(at(start));
        r.ends_at = Some(at(end));
        r
    }

    fn subject<'a>(r: &'a Reservation, nodes: Option<&'a NodesResponse>) -> Subject<'a> {
        Subject { reservation: r, amendments: None, nodes }
    }

    fn lowering(effective: &str, from: i64, to: i64) -> Amendment {
        Amendment {
            effective_at: at(effective),
            node_count_before: from,
            node_count_after: to,
            drive_quota_gib_before: 0.0,
            drive_quota_gib_after: 0.0,
            fs_quota_gib_before: 0.0,
            fs_quota_gib_after: 0.0,
            rate_usd_per_gpu_hour_before: None,
            rate_usd_per_gpu_hour_after: None,
        }
    }

    #[test]
    fn past_due_stops_every_workload_running_at_stops_at() {
        let mut r = term(8, "2026-11-01T00:00:00Z", "2027-11-01T00:00:00Z");
        r.status = ReservationStatus::PastDue;
        r.stops_at = Some(now() + TimeDelta::days(3));
        let nodes = placed();
        let all = [r.clone(), term(14, "2027-11-01T00:00:00Z", "2028-11-01T00:00:00Z")];
        let risks = at_risk(&[subject(&r, Some(&nodes))], &all, now());
        assert_eq!(risks.len(), 2, "the stop, then the term's end: {risks:?}");
        assert_eq!(
            risks[0],
            Risk {
                reservation: 8,
                at: now() + TimeDelta::days(3),
                deadline: Deadline::PastDue,
                workloads: Workloads::Known(stopping_now())
            }
        );
        assert_eq!(risks[0].scope(), "All 2 workloads running there now would stop.");
        assert_eq!(risks[0].assumption(), None);
        assert_eq!(risks[0].title(true), "Workloads stop unless the overdue payment is made");
        assert_eq!(risks[0].title(false), "Workloads stop unless the account owner acts", "no payment words");
    }

    #[test]
    fn a_term_ending_on_a_month_end_with_no_renewal_stops_its_workloads() {
        let r = term(9, "2026-02-28T00:00:00Z", "2027-02-28T00:00:00Z");
        let nodes = placed();
        let risks = at_risk(&[subject(&r, Some(&nodes))], std::slice::from_ref(&r), now());
        assert_eq!(risks.len(), 1);
        assert_eq!(risks[0].at, at("2027-02-28T00:00:00Z"));
        assert_eq!(risks[0].deadline, Deadline::TermEnds { renewal: Successor::None });
        assert_eq!(risks[0].workloads, Workloads::Known(stopping_now()));
        assert_eq!(risks[0].title(false), "The term ends with no renewal");
    }

    #[test]
    fn a_term_end_taken_over_by_a_renewal_is_listed_with_its_workloads_and_the_renewal_beside_it() {
        let r = term(12, "2026-01-31T00:00:00Z", "2027-02-28T00:00:00Z");
        let nodes = placed();
        for start in ["2027-02-28T00:00:00Z", "2027-02-01T00:00:00Z"] {
            let all = [r.clone(), term(14, start, "2028-02-29T00:00:00Z")];
            let risks = at_risk(&[subject(&r, Some(&nodes))], &all, now());
            assert_eq!(risks.len(), 1, "renewed from {start}: {risks:?}");
            assert_eq!(risks[0].at, at("2027-02-28T00:00:00Z"));
            assert_eq!(
                risks[0].deadline,
                Deadline::TermEnds { renewal: Successor::TakesOver { id: 14, start: at(start) } }
            );
            assert_eq!(risks[0].workloads, Workloads::Known(stopping_now()));
            assert_eq!(risks[0].title(false), "The term ends and its renewal #14 takes over");
            assert_eq!(risks[0].scope(), "All 2 workloads running there now would stop.");
            assert_eq!(risks[0].assumption(), Some(RENEWAL_CARRY_OVER), "the carry-over is an assumption, said");
        }
        // Leap-year month end: the renewal starts a day after the end, a gap.
        let after_end = term(14, "2027-03-01T00:00:00Z", "2028-02-29T00:00:00Z");
        let risks = at_risk(&[subject(&r, Some(&nodes))], &[r.clone(), after_end], now());
        assert_eq!(risks.len(), 1);
        assert_eq!(
            risks[0].deadline,
            Deadline::TermEnds { renewal: Successor::Later { id: 14, start: at("2027-03-01T00:00:00Z") } }
        );
        assert_eq!(risks[0].title(true), "The term ends before its renewal #14 starts");
        assert_eq!(risks[0].scope(), "All 2 workloads running there now would stop.");
        assert_eq!(risks[0].assumption(), None);
    }

    #[test]
    fn a_renewal_awaiting_payment_is_worded_alike_in_what_stops_when_and_the_alert() {
        use crate::domain::alerts::term_ending_unrenewed;
        let r = term(6, "2026-03-01T00:00:00Z", "2027-03-01T00:00:00Z");
        let mut awaiting = reservation(16, ReservationStatus::AwaitingPayment, "sea", "RTX", 16);
        (awaiting.starts_at, awaiting.ends_at) = (None, None);
        let all = [r.clone(), awaiting];
        let nodes = placed();
        let risks = at_risk(&[subject(&r, Some(&nodes))], &all, now());
        assert_eq!(risks[0].deadline, Deadline::TermEnds { renewal: Successor::Unknown { candidate: Some(16) } });
        let words = unknown_renewal(Some(16));
        assert_eq!(words, "its renewal is not known: #16 could be it, but has no dates yet");
        assert_eq!(risks[0].title(false), format!("The term ends and {words}"));
        let unread = |_: i64| None;
        let alert = term_ending_unrenewed(&r, &all, &unread, now()).expect("the alert says it too");
        assert!(alert.text.ends_with(&format!("and {words}.")), "{}", alert.text);
    }

    #[test]
    fn what_stops_when_the_timeline_and_the_alert_agree_on_which_renewal_covers_the_end() {
        use crate::domain::alerts::term_ending_unrenewed;
        use crate::domain::terms::timeline::Handover;
        let r = term(12, "2026-01-31T00:00:00Z", "2027-02-28T00:00:00Z");
        let nodes = placed();
        for (start, handover) in [
            ("2027-02-28T00:00:00Z", Handover::AtEnd),
            ("2027-02-28T01:00:00Z", Handover::Gap { hours: 1, gpus: 16 }),
            ("2027-02-27T00:00:00Z", Handover::Overlap { hours: 24, gpus: 16 }),
        ] {
            let all = [r.clone(), term(14, start, "2028-02-29T00:00:00Z")];
            let unread = |_: i64| None;
            let Renewal::Next { handover: Some(read), .. } = renewal(&r, &all, &unread) else {
                panic!("starting {start}, #14 renews #12");
            };
            assert_eq!(read, handover, "the timeline, starting {start}");
            let risks = at_risk(&[subject(&r, Some(&nodes))], &all, now());
            let taken_over = matches!(risks[0].deadline, Deadline::TermEnds { renewal: Successor::TakesOver { .. } });
            assert_eq!(taken_over, handover.covers_the_end(), "what stops when, starting {start}");
            let alerted = term_ending_unrenewed(&r, &all, &unread, now()).is_some();
            assert_eq!(alerted, !handover.covers_the_end(), "the alert, starting {start}");
        }
    }

    #[test]
    fn an_amendment_lowering_nodes_puts_up_to_the_removed_nodes_workloads_at_risk_as_assumed() {
        let r = term(12, "2026-11-01T00:00:00Z", "2027-11-01T00:00:00Z");
        let nodes = placed();
        let amendments = [
            lowering("2027-03-31T00:00:00Z", 4, 2),
            lowering("2027-02-01T00:00:00Z", 2, 6),
            lowering("2027-01-01T00:00:00Z", 6, 4),
        ];
        let subject = Subject { reservation: &r, amendments: Some(&amendments), nodes: Some(&nodes) };
        let all = [r.clone(), term(14, "2027-11-01T00:00:00Z", "2028-11-01T00:00:00Z")];
        let mut risks = at_risk(&[subject], &all, now());
        risks.retain(|risk| !matches!(risk.deadline, Deadline::TermEnds { .. }));
        // The raise and the past lowering are no deadline.
        assert_eq!(risks.len(), 1, "{risks:?}");
        assert_eq!(risks[0].at, at("2027-03-31T00:00:00Z"));
        assert_eq!(risks[0].deadline, Deadline::NodesLowered { from: 4, to: 2 });
        assert_eq!(risks[0].workloads, Workloads::Known(stopping_now()));
        assert_eq!(risks[0].assumption(), Some(NODES_LOWERED_WHICH));
        let one = Risk { deadline: Deadline::NodesLowered { from: 3, to: 2 }, ..risks[0].clone() };
        assert!(one.scope().starts_with("Up to 1 node's workloads would stop"), "{}", one.scope());
        assert_eq!(risks[0].scope(), "Up to 2 nodes' workloads would stop, of these 2 workloads.");
    }

    #[test]
    fn deadlines_are_listed_soonest_first_across_reservations() {
        let mut due = term(8, "2026-11-01T00:00:00Z", "2027-11-01T00:00:00Z");
        due.status = ReservationStatus::PastDue;
        due.stops_at = Some(at("2027-02-03T00:00:00Z"));
        due.region_id = "phx".into();
        let ending = term(9, "2026-03-31T00:00:00Z", "2027-03-31T00:00:00Z");
        let nodes = placed();
        let risks = at_risk(
            &[subject(&ending, Some(&nodes)), subject(&due, Some(&nodes))],
            &[due.clone(), ending.clone()],
            now(),
        );
        let order: Vec<_> = risks.iter().map(|r| (r.reservation, r.at)).collect();
        assert_eq!(
            order,
            vec![(8, at("2027-02-03T00:00:00Z")), (9, at("2027-03-31T00:00:00Z")), (8, at("2027-11-01T00:00:00Z"))]
        );
    }

    #[test]
    fn unknown_placement_is_unknown_never_nothing_at_risk() {
        let r = term(6, "2026-03-31T00:00:00Z", "2027-03-31T00:00:00Z");
        let all = std::slice::from_ref(&r);
        let not_read = &at_risk(&[subject(&r, None)], all, now())[0];
        assert_eq!(not_read.workloads, Workloads::Unknown(UnknownWhy::NotRead));
        assert_eq!(not_read.scope(), "Which workloads would stop is unknown: the nodes are not read yet.");

        let unreachable = NodesResponse { workloads_unknown: true, ..NodesResponse::default() };
        let risk = &at_risk(&[subject(&r, Some(&unreachable))], all, now())[0];
        assert_eq!(risk.workloads, Workloads::Unknown(UnknownWhy::Unreachable));
        assert_eq!(risk.scope(), "Which workloads would stop is unknown: the region could not be reached.");

        let mut partly = placed();
        partly.unreadable_nodes.push(UnreadableNode {
            display_name: "node-3".into(),
            state: NodeState::Ready,
            gpus: Some(8),
            why: "gpus_in_use: 9999999999 is out of range".into(),
        });
        let risk = &at_risk(&[subject(&r, Some(&partly))], all, now())[0];
        assert_eq!(risk.workloads, Workloads::Partly { known: stopping_now(), unreadable: 1 });
        assert_eq!(
            risk.scope(),
            "All 2 workloads running there now would stop. The workloads of 1 node that could not be read are unknown."
        );

        let idle = NodesResponse::default();
        let risk = &at_risk(&[subject(&r, Some(&idle))], all, now())[0];
        assert_eq!(risk.scope(), "Nothing runs there now, as last read: no workload would stop.");
    }

    #[test]
    fn reservations_that_run_nothing_and_passed_deadlines_are_not_at_risk() {
        let nodes = placed();
        for status in [ReservationStatus::Scheduled, ReservationStatus::Suspended, ReservationStatus::Ended] {
            let mut r = term(5, "2026-11-01T00:00:00Z", "2027-11-01T00:00:00Z");
            r.status = status;
            assert!(at_risk(&[subject(&r, Some(&nodes))], std::slice::from_ref(&r), now()).is_empty());
        }
        let ended_term = term(5, "2026-01-31T00:00:00Z", "2027-01-31T00:00:00Z");
        assert!(at_risk(&[subject(&ended_term, Some(&nodes))], std::slice::from_ref(&ended_term), now()).is_empty());
    }

    #[test]
    fn the_sum_that_averts_a_stop_is_what_is_owed_less_the_advance_applied_as_the_ledger_says() {
        let detail: crate::api::models::ReservationDetail =
            serde_json::from_str(crate::api::models::tests::SEED_DETAIL).unwrap();
        let mut payment = detail.payment.clone().unwrap();
        // December's $29,760 is past due, $29,200 of it covered by the advance: $560 is owed.
        let charge = payment.charges[0].clone();
        payment.charges = vec![crate::api::models::Charge {
            status: ChargeStatus::PastDue,
            advance_applied_usd: Usd::from_cents(2_920_000),
            ..charge
        }];
        let risk = Risk {
            reservation: 12,
            at: now(),
            deadline: Deadline::PastDue,
            workloads: Workloads::Unknown(UnknownWhy::NotRead),
        };
        let (owed, _) = averted_by(&risk, Some(&payment)).unwrap();
        assert_eq!(owed, Usd::from_cents(56_000));
        let ledger = crate::domain::money::ledger::ledger(&crate::api::models::ReservationDetail {
            payment: Some(payment),
            ..detail
        })
        .unwrap();
        assert_eq!(ledger.sums.past_due, owed, "the ledger's past due is the same sum");
    }

    #[test]
    fn the_owner_reads_the_overdue_sum_and_where_to_pay_by_funding_and_a_member_nothing() {
        let detail: crate::api::models::ReservationDetail =
            serde_json::from_str(crate::api::models::tests::SEED_DETAIL).unwrap();
        let mut payment = detail.payment.unwrap();
        // Two periods overdue and one paid: the sum is the two overdue.
        let charge = payment.charges[0].clone();
        let with = |status| crate::api::models::Charge { status, ..charge.clone() };
        payment.charges = vec![with(ChargeStatus::Paid), with(ChargeStatus::PastDue), with(ChargeStatus::PastDue)];
        let overdue = charge.amount_usd + charge.amount_usd;
        let risk = Risk {
            reservation: 12,
            at: now(),
            deadline: Deadline::PastDue,
            workloads: Workloads::Unknown(UnknownWhy::NotRead),
        };
        payment.funding = Funding::Wallet;
        assert_eq!(averted_by(&risk, Some(&payment)), Some((overdue, settle_overdue(Some(&Funding::Wallet)))));
        payment.funding = Funding::Invoice;
        assert_eq!(
            averted_by(&risk, Some(&payment)).map(|a| a.1),
            Some("pay the overdue invoice under Billing → Invoices")
        );
        assert_eq!(averted_by(&risk, None), None, "a member has no payment");
        let ending = Risk { deadline: Deadline::TermEnds { renewal: Successor::None }, ..risk };
        assert_eq!(averted_by(&ending, Some(&payment)), None, "money does not avert a term's end");
    }
}
