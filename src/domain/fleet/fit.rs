//! Where `R` replicas of `K` GPUs fit now: one verdict per reservation, from its status and
//! its latest `/nodes`. A launch runs on one node, so what counts is GPUs free together on
//! a ready node, not the total: `Σ ⌊free_i ÷ K⌋` over ready nodes is how many replicas fit
//! (placing them one by one can never do better, a property test holds the two together).
//!
//! Never "fits" on data that cannot be trusted: an unreachable region, a reservation not
//! read yet, a status the console does not know, and nodes whose figures do not add up or
//! whose state is unknown (they count for nothing, and when the answer would depend on them
//! the verdict is unknown).
//!
//! Each reservation is judged from its own status, as the launch page predicts: "Fits now"
//! carries the same caveat as its "Expected to succeed" ([`fits_caveat`]), since whether an
//! overdue payment elsewhere on the account pauses launches here is an assumption
//! ([`PAYMENT_DUE_SCOPE`](crate::api::assumptions::PAYMENT_DUE_SCOPE)).

use crate::api::enums::NodeState;
use crate::api::models::{NodesResponse, Reservation, Timestamp};
use crate::domain::nodes::capacity::{accepts_launches, free_gpus, gpus_text, is_inconsistent, success_caveat};
use crate::domain::status::{launch_access, LaunchAccess};
use crate::domain::words::address::{query_replacing, query_value, reservation_address};
use crate::domain::words::text::visible_controls;
use std::collections::BTreeSet;
use std::num::NonZeroU32;

/// The most GPUs or replicas a question may ask for: far above any node, small enough that
/// `K × R` never overflows.
pub const MAX_ASKED: u32 = 100_000;

/// What the user asks: room for `replicas` launches of `gpus` GPUs each, optionally only
/// on one GPU type or in one region.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Question {
    pub gpus: NonZeroU32,
    pub replicas: NonZeroU32,
    pub gpu_type: Option<String>,
    pub region: Option<String>,
}

impl Question {
    /// The question an address carries (`gpus`, `replicas`, `type`, `region`), or why it
    /// cannot be read, one sentence per key. Without `gpus` there is no question yet: `Ok(None)`.
    pub fn from_query(query: &str) -> Result<Option<Question>, Vec<String>> {
        let count = |key: &str, what: &str| -> Result<Option<NonZeroU32>, String> {
            match query_value(query, key).map(|v| v.trim().to_owned()).filter(|v| !v.is_empty()) {
                None => Ok(None),
                Some(raw) => raw
                    .parse::<u32>()
                    .ok()
                    .and_then(NonZeroU32::new)
                    .filter(|n| n.get() <= MAX_ASKED)
                    .map(Some)
                    // Not echoed: an address is anyone's text, never the console's words.
                    .ok_or_else(|| {
                        format!("The address's number of {what} is not a whole number from 1 to {MAX_ASKED}.")
                    }),
            }
        };
        let (gpus, replicas) = (count("gpus", "GPUs"), count("replicas", "replicas"));
        let errors: Vec<String> = [&gpus, &replicas].iter().filter_map(|r| r.as_ref().err().cloned()).collect();
        if !errors.is_empty() {
            return Err(errors);
        }
        let text = |key| query_value(query, key).map(|v| v.trim().to_owned()).filter(|v| !v.is_empty());
        Ok(gpus.ok().flatten().map(|gpus| Question {
            gpus,
            replicas: replicas.ok().flatten().unwrap_or(NonZeroU32::MIN),
            gpu_type: text("type"),
            region: text("region"),
        }))
    }

    /// The address's query that asks it (what [`Self::from_query`] reads).
    pub fn query(&self) -> String {
        let replicas = if self.replicas.get() == 1 { String::new() } else { self.replicas.to_string() };
        let pairs = [
            ("gpus", self.gpus.to_string()),
            ("replicas", replicas),
            ("type", self.gpu_type.clone().unwrap_or_default()),
            ("region", self.region.clone().unwrap_or_default()),
        ];
        query_replacing("", &pairs)
    }

    /// "2 × 4 GPUs", "4 GPUs".
    pub fn text(&self) -> String {
        let each = gpus_text(i64::from(self.gpus.get()));
        match self.replicas.get() {
            1 => each,
            r => format!("{r} × {each}"),
        }
    }
}

/// The launch page for reservation `id` of the account labelled `account` (empty: the
/// connection's), its GPUs prefilled with the question's.
pub fn launch_href(account: &str, id: i64, question: &Question) -> String {
    reservation_address(account, id, "/launch", &[("gpus", question.gpus.to_string())])
}

/// An option of the form's GPU type or region: the value it puts in the address, its words.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Choice {
    pub value: String,
    pub label: String,
}

/// The options offered: each value of the reservations `read`, its bidirectional controls
/// shown, then the address's `asked` value when none of them is it, quoted as the address's:
/// an address is anyone's text, and the page never says it as its own.
pub fn choices(read: BTreeSet<String>, asked: &str) -> Vec<Choice> {
    let shown = |value: &str| visible_controls(value).into_owned();
    let mut offered: Vec<Choice> =
        read.iter().map(|value| Choice { value: value.clone(), label: shown(value) }).collect();
    if !asked.is_empty() && !read.contains(asked) {
        offered
            .push(Choice { value: asked.to_owned(), label: format!("“{}” (asked by the address)", shown(asked)) });
    }
    offered
}

/// A reservation and what is known of its nodes.
#[derive(Clone, Copy, Debug)]
pub struct Subject<'a> {
    pub reservation: &'a Reservation,
    /// The latest `/nodes` answer and when it was read; `None` before the first.
    pub nodes: Option<(&'a NodesResponse, Timestamp)>,
}

/// A ready node that can take at least one replica.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Room {
    pub node: String,
    pub free: u64,
    /// Replicas of the question's size it takes: `⌊free ÷ K⌋`.
    pub replicas: u64,
}

/// Why the data cannot answer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum UnknownWhy {
    NotRead,
    Unreachable,
    /// The reservation's status is one the console does not know.
    Status(String),
    /// Without the nodes that cannot be counted it does not fit; with them it might.
    Untrusted {
        absurd: usize,
        unknown_state: usize,
        replicas_known: u64,
    },
}

/// One reservation's answer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// `replicas` fit (at least the question's), on `rooms`, fullest-fitting first.
    FitsNow {
        replicas: u64,
        rooms: Vec<Room>,
    },
    /// Enough free GPUs in total, but not `K` together often enough.
    Fragmented {
        free: u64,
        replicas: u64,
        largest: u64,
        stranded: u64,
        gpus_per_node: i64,
    },
    /// Fewer free GPUs on ready nodes than the question needs.
    Full {
        free: u64,
        needed: u64,
        replicas: u64,
        /// The most GPUs free together on one ready node.
        largest: u64,
        gpus_per_node: i64,
    },
    /// The status rules launches out; the sentence says why (domain::status).
    Closed(&'static str),
    Unknown(UnknownWhy),
    /// Another GPU type or region than asked.
    NotAsked {
        gpu_type: bool,
        region: bool,
    },
}

impl Verdict {
    /// Best first: fits (most replicas first), fragmented, full, unknown, closed, not asked.
    fn rank(&self) -> (u8, u64) {
        match self {
            Verdict::FitsNow { replicas, .. } => (0, u64::MAX - replicas),
            Verdict::Fragmented { .. } => (1, 0),
            Verdict::Full { .. } => (2, 0),
            Verdict::Unknown(_) => (3, 0),
            Verdict::Closed(_) => (4, 0),
            Verdict::NotAsked { .. } => (5, 0),
        }
    }

    /// The verdict in two or three words.
    pub fn label(&self) -> &'static str {
        match self {
            Verdict::FitsNow { .. } => "Fits now",
            Verdict::Fragmented { .. } => "Fragmented",
            Verdict::Full { .. } => "Full",
            Verdict::Closed(_) => "Closed",
            Verdict::Unknown(_) => "Unknown",
            Verdict::NotAsked { .. } => "Not asked",
        }
    }

    /// Why, in one or two sentences.
    pub fn reason(&self, question: &Question) -> String {
        let k = gpus_text(i64::from(question.gpus.get()));
        let per_node = |gpus_per_node: i64| {
            if gpus_per_node < i64::from(question.gpus.get()) {
                format!(" A launch runs on one node, and these nodes have {} each.", gpus_text(gpus_per_node))
            } else {
                String::new()
            }
        };
        match self {
            Verdict::FitsNow { replicas, rooms } => format!(
                "{} of {k} fit now, on {} ready {}.",
                replicas_text(*replicas),
                rooms.len(),
                if rooms.len() == 1 { "node" } else { "nodes" }
            ),
            Verdict::Fragmented { free, replicas, largest, stranded, gpus_per_node } => format!(
                "{free} GPUs are free in total, but {}: the largest block on one node is {}, and {} left over \
                 between nodes.{}",
                match replicas {
                    0 => format!("no ready node has {k} free together"),
                    n => format!("only {} of {k} can be placed", replicas_text(*n)),
                },
                gpus_text(to_i64(*largest)),
                stranded_text(*stranded),
                per_node(*gpus_per_node)
            ),
            Verdict::Full { free, needed, replicas, gpus_per_node, .. } => format!(
                "Full: {} free on ready nodes, {needed} needed; {} of {k} fit.{}",
                gpus_text(to_i64(*free)),
                replicas_text(*replicas),
                per_node(*gpus_per_node)
            ),
            Verdict::Closed(words) => (*words).to_owned(),
            Verdict::Unknown(UnknownWhy::NotRead) => "The nodes have not been read yet.".to_owned(),
            Verdict::Unknown(UnknownWhy::Unreachable) => {
                "The region cannot be reached right now, so free GPUs are unknown.".to_owned()
            }
            Verdict::Unknown(UnknownWhy::Status(status)) => {
                format!("The reservation is “{status}”, a status the console does not know; a launch will tell.")
            }
            Verdict::Unknown(UnknownWhy::Untrusted { absurd, unknown_state, replicas_known }) => {
                let mut parts = Vec::new();
                if *absurd > 0 {
                    parts.push(format!("{} whose GPU figures do not add up", nodes_text(*absurd)));
                }
                if *unknown_state > 0 {
                    parts.push(format!("{} in a state the console does not know", nodes_text(*unknown_state)));
                }
                format!(
                    "{} of {k} fit on the nodes whose figures can be trusted; the answer depends on {}.",
                    replicas_text(*replicas_known),
                    parts.join(" and ")
                )
            }
            Verdict::NotAsked { gpu_type, region } => match (gpu_type, region) {
                (true, true) => "Another GPU type and region than asked.",
                (true, false) => "Another GPU type than asked.",
                _ => "Another region than asked.",
            }
            .to_owned(),
        }
    }
}

fn to_i64(n: u64) -> i64 {
    i64::try_from(n).unwrap_or(i64::MAX)
}

fn replicas_text(n: u64) -> String {
    crate::domain::words::count(to_i64(n), "replica")
}

fn nodes_text(n: usize) -> String {
    crate::domain::words::count(i64::try_from(n).unwrap_or(i64::MAX), "node")
}

fn stranded_text(n: u64) -> String {
    match n {
        1 => "1 GPU is".to_owned(),
        n => format!("{} are", gpus_text(to_i64(n))),
    }
}

/// One reservation's verdict, with what it was judged from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Judged {
    pub reservation_id: i64,
    pub verdict: Verdict,
    /// When the nodes judged were read.
    pub read_at: Option<Timestamp>,
}

/// Every reservation's verdict, best first (ties by id).
pub fn judge_all(subjects: &[Subject<'_>], question: &Question) -> Vec<Judged> {
    let mut out: Vec<Judged> = subjects
        .iter()
        .map(|s| Judged {
            reservation_id: s.reservation.id,
            verdict: judge(s.reservation, s.nodes.map(|(n, _)| n), question),
            read_at: s.nodes.map(|(_, at)| at),
        })
        .collect();
    out.sort_by_key(|j| (j.verdict.rank(), j.reservation_id));
    out
}

/// The caveat said under the verdicts when any of them fits now: the one the launch page
/// says beside its "Expected to succeed" ([`success_caveat`]).
pub fn fits_caveat<'a>(verdicts: impl IntoIterator<Item = &'a Verdict>) -> Option<&'static str> {
    verdicts.into_iter().any(|v| matches!(v, Verdict::FitsNow { .. })).then(success_caveat)
}

/// One reservation's verdict. The filter comes first, then the status (its launch rule is
/// domain::status's), then the nodes.
pub fn judge(r: &Reservation, nodes: Option<&NodesResponse>, q: &Question) -> Verdict {
    let other_type = q.gpu_type.as_ref().is_some_and(|t| *t != r.gpu_type);
    let other_region = q.region.as_ref().is_some_and(|g| *g != r.region_id);
    if other_type || other_region {
        return Verdict::NotAsked { gpu_type: other_type, region: other_region };
    }
    match launch_access(&r.status) {
        LaunchAccess::Open(_) => {}
        LaunchAccess::Closed(words) => return Verdict::Closed(words),
        LaunchAccess::Unrecognised(_) => return Verdict::Unknown(UnknownWhy::Status(r.status.to_string())),
    }
    let Some(nodes) = nodes else { return Verdict::Unknown(UnknownWhy::NotRead) };
    if nodes.workloads_unknown {
        return Verdict::Unknown(UnknownWhy::Unreachable);
    }
    judge_nodes(nodes, q, r.gpus_per_node)
}

fn judge_nodes(nodes: &NodesResponse, q: &Question, gpus_per_node: i64) -> Verdict {
    let k = u64::from(q.gpus.get());
    let wanted = u64::from(q.replicas.get());
    // A node whose own counts the decoder set apart (`unreadable_nodes`) cannot be counted.
    let (mut absurd, mut unknown_state) = (nodes.unreadable_nodes.len(), 0);
    let (mut free, mut replicas, mut largest, mut stranded) = (0u64, 0u64, 0u64, 0u64);
    let mut rooms = Vec::new();
    for node in &nodes.nodes {
        if matches!(node.state, NodeState::Unknown(_)) {
            unknown_state += 1;
            continue;
        }
        if !accepts_launches(node) {
            continue;
        }
        if is_inconsistent(node) {
            absurd += 1;
            continue;
        }
        let node_free = free_gpus(node, false).and_then(|f| u64::try_from(f).ok()).unwrap_or(0);
        let takes = node_free / k;
        free = free.saturating_add(node_free);
        replicas = replicas.saturating_add(takes);
        largest = largest.max(node_free);
        stranded = stranded.saturating_add(node_free % k);
        if takes > 0 {
            rooms.push(Room { node: node.display_name.clone(), free: node_free, replicas: takes });
        }
    }
    if replicas >= wanted {
        // The tightest rooms first: where a launch wastes the least.
        rooms.sort_by(|a, b| a.free.cmp(&b.free).then_with(|| a.node.cmp(&b.node)));
        return Verdict::FitsNow { replicas, rooms };
    }
    if absurd + unknown_state > 0 {
        return Verdict::Unknown(UnknownWhy::Untrusted { absurd, unknown_state, replicas_known: replicas });
    }
    let needed = k * wanted;
    if free >= needed {
        Verdict::Fragmented { free, replicas, largest, stranded, gpus_per_node }
    } else {
        Verdict::Full { free, needed, replicas, largest, gpus_per_node }
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::api::enums::ReservationStatus;
    use crate::api::models::{Node, UnreadableNode};
    use crate::domain::words::time::tests::seed_reservation;
    use proptest::prelude::*;

    fn node(name: &str, state: NodeState, gpus: i64, in_use: Option<i64>) -> Node {
        Node { display_name: name.into(), state, gpus, gpus_in_use: in_use, workloads: Vec::new() }
    }

    fn nodes(list: Vec<Node>) -> NodesResponse {
        NodesResponse { nodes: list, workloads_unknown: false, ..Default::default() }
    }

    /// Room for `replicas` × `gpus` GPUs, anywhere.
    pub(crate) fn ask(gpus: u32, replicas: u32) -> Question {
        Question {
            gpus: NonZeroU32::new(gpus).unwrap(),
            replicas: NonZeroU32::new(replicas).unwrap(),
            gpu_type: None,
            region: None,
        }
    }

    #[test]
    fn replicas_fit_by_whole_blocks_on_ready_nodes() {
        let n = nodes(vec![
            node("a", NodeState::Ready, 8, Some(0)),
            node("b", NodeState::Ready, 8, Some(3)),
            node("c", NodeState::Preparing, 8, Some(0)),
        ]);
        let verdict = judge(&seed_reservation(), Some(&n), &ask(4, 3));
        assert_eq!(
            verdict,
            Verdict::FitsNow {
                replicas: 3,
                rooms: vec![
                    Room { node: "b".into(), free: 5, replicas: 1 },
                    Room { node: "a".into(), free: 8, replicas: 2 }
                ]
            }
        );
        assert_eq!(verdict.reason(&ask(4, 3)), "3 replicas of 4 GPUs fit now, on 2 ready nodes.");
    }

    #[test]
    fn fits_now_carries_the_launch_pages_payment_caveat_and_nothing_else_does() {
        let (roomy, full) = (
            nodes(vec![node("a", NodeState::Ready, 8, Some(0))]),
            nodes(vec![node("a", NodeState::Ready, 8, Some(8))]),
        );
        let (r, other) = (seed_reservation(), Reservation { id: 13, ..seed_reservation() });
        let judged = |a: &NodesResponse, b: &NodesResponse| {
            judge_all(
                &[
                    Subject { reservation: &r, nodes: Some((a, r.starts_at.unwrap())) },
                    Subject { reservation: &other, nodes: Some((b, r.starts_at.unwrap())) },
                ],
                &ask(4, 1),
            )
        };
        let fits = judged(&roomy, &full);
        assert_eq!(fits_caveat(fits.iter().map(|j| &j.verdict)), Some(crate::api::assumptions::PAYMENT_DUE_SCOPE));
        assert_eq!(fits_caveat(judged(&full, &full).iter().map(|j| &j.verdict)), None);
    }

    #[test]
    fn free_gpus_split_between_nodes_are_fragmented_and_name_the_largest_block() {
        let n = nodes(vec![node("a", NodeState::Ready, 8, Some(5)), node("b", NodeState::Ready, 8, Some(5))]);
        let verdict = judge(&seed_reservation(), Some(&n), &ask(4, 1));
        assert_eq!(verdict, Verdict::Fragmented { free: 6, replicas: 0, largest: 3, stranded: 6, gpus_per_node: 8 });
        assert_eq!(
            verdict.reason(&ask(4, 1)),
            "6 GPUs are free in total, but no ready node has 4 GPUs free together: the largest block on one node is 3 \
             GPUs, and 6 GPUs are left over between nodes."
        );
    }

    #[test]
    fn too_few_free_gpus_is_full_and_says_how_many_are_needed() {
        let n = nodes(vec![node("a", NodeState::Ready, 8, Some(6))]);
        let verdict = judge(&seed_reservation(), Some(&n), &ask(2, 2));
        assert_eq!(verdict, Verdict::Full { free: 2, needed: 4, replicas: 1, largest: 2, gpus_per_node: 8 });
        assert_eq!(verdict.reason(&ask(2, 2)), "Full: 2 GPUs free on ready nodes, 4 needed; 1 replica of 2 GPUs fit.");
    }

    #[test]
    fn a_question_larger_than_a_node_says_a_launch_runs_on_one_node() {
        let n = nodes(vec![node("a", NodeState::Ready, 8, Some(0)), node("b", NodeState::Ready, 8, Some(0))]);
        let verdict = judge(&seed_reservation(), Some(&n), &ask(12, 1));
        assert!(verdict.reason(&ask(12, 1)).ends_with("A launch runs on one node, and these nodes have 8 GPUs each."));
    }

    #[test]
    fn a_node_set_apart_as_unreadable_makes_a_reservation_that_does_not_fit_without_it_unknown() {
        let mut response = nodes(vec![node("node-1", NodeState::Ready, 8, Some(6))]);
        response.unreadable_nodes = vec![UnreadableNode {
            display_name: "node-2".into(),
            state: NodeState::Ready,
            gpus: Some(8),
            why: "GPUs in use out of range".into(),
        }];
        assert!(matches!(
            judge_nodes(&response, &ask(4, 1), 8),
            Verdict::Unknown(UnknownWhy::Untrusted { absurd: 1, unknown_state: 0, replicas_known: 0 })
        ));
    }

    #[test]
    fn each_closed_status_gives_the_status_rule_of_launches() {
        for status in [
            ReservationStatus::PastDue,
            ReservationStatus::Suspended,
            ReservationStatus::AwaitingPayment,
            ReservationStatus::Scheduled,
            ReservationStatus::Assigning,
            ReservationStatus::Ended,
        ] {
            let r = Reservation { status: status.clone(), ..seed_reservation() };
            let n = nodes(vec![node("a", NodeState::Ready, 8, Some(0))]);
            let LaunchAccess::Closed(words) = launch_access(&status) else { panic!("{status} is closed") };
            assert_eq!(judge(&r, Some(&n), &ask(1, 1)), Verdict::Closed(words));
        }
    }

    #[test]
    fn unread_unreachable_and_unknown_status_are_unknown_never_fits() {
        let r = seed_reservation();
        assert_eq!(judge(&r, None, &ask(1, 1)), Verdict::Unknown(UnknownWhy::NotRead));
        let mut n = nodes(vec![node("a", NodeState::Ready, 8, Some(0))]);
        n.workloads_unknown = true;
        assert_eq!(judge(&r, Some(&n), &ask(1, 1)), Verdict::Unknown(UnknownWhy::Unreachable));
        let odd = Reservation { status: ReservationStatus::Unknown("frozen".into()), ..seed_reservation() };
        assert_eq!(
            judge(&odd, Some(&nodes(vec![])), &ask(1, 1)),
            Verdict::Unknown(UnknownWhy::Status("frozen".into()))
        );
    }

    #[test]
    fn another_type_or_region_than_asked_is_not_asked() {
        let q = Question { gpu_type: Some("H100".into()), region: Some("atl".into()), ..ask(1, 1) };
        assert_eq!(judge(&seed_reservation(), None, &q), Verdict::NotAsked { gpu_type: true, region: false });
    }

    #[test]
    fn verdicts_are_sorted_best_first() {
        let a = Reservation { id: 1, status: ReservationStatus::Ended, ..seed_reservation() };
        let b = Reservation { id: 2, ..seed_reservation() };
        let c = Reservation { id: 3, ..seed_reservation() };
        let n = nodes(vec![node("a", NodeState::Ready, 8, Some(0))]);
        let at = Timestamp::UNIX_EPOCH;
        let subjects = [
            Subject { reservation: &a, nodes: None },
            Subject { reservation: &b, nodes: None },
            Subject { reservation: &c, nodes: Some((&n, at)) },
        ];
        let order: Vec<(i64, &str)> =
            judge_all(&subjects, &ask(2, 1)).iter().map(|j| (j.reservation_id, j.verdict.label())).collect();
        assert_eq!(order, [(3, "Fits now"), (2, "Unknown"), (1, "Closed")]);
    }

    #[test]
    fn the_address_carries_the_question_and_explains_invalid_values() {
        assert_eq!(Question::from_query("?type=H100"), Ok(None));
        let q = Question::from_query("?gpus=4&replicas=2&type=H100&region=atl").unwrap().unwrap();
        assert_eq!((q.gpus.get(), q.replicas.get(), q.text()), (4, 2, "2 × 4 GPUs".to_owned()));
        assert_eq!((q.gpu_type.as_deref(), q.region.as_deref()), (Some("H100"), Some("atl")));
        assert_eq!(Question::from_query("?gpus=4").unwrap().unwrap().replicas.get(), 1);
        assert_eq!(
            Question::from_query("?gpus=0&replicas=-1"),
            Err(vec![
                "The address's number of GPUs is not a whole number from 1 to 100000.".to_owned(),
                "The address's number of replicas is not a whole number from 1 to 100000.".to_owned()
            ])
        );
        assert!(Question::from_query("?gpus=99999999999999999999").is_err());
        for asked in ["?gpus=4", "?gpus=4&replicas=2&type=H100&region=atl"] {
            let q = Question::from_query(asked).unwrap().unwrap();
            assert_eq!(Question::from_query(&q.query()), Ok(Some(q)), "{asked}");
        }
    }

    #[test]
    fn the_options_show_controls_and_quote_a_value_only_the_address_asks_as_the_addresss() {
        let read: BTreeSet<String> = ["atl".to_owned(), "\u{202E}001A".to_owned()].into();
        let labels = |asked| choices(read.clone(), asked).into_iter().map(|c| (c.value, c.label)).collect::<Vec<_>>();
        assert_eq!(labels("atl"), [("atl".into(), "atl".into()), ("\u{202E}001A".into(), "⟨RLO⟩001A".into())]);
        assert_eq!(
            labels("Reconnect at evil.example")[2],
            ("Reconnect at evil.example".into(), "“Reconnect at evil.example” (asked by the address)".into())
        );
        assert_eq!(labels("").len(), 2);
    }

    #[test]
    fn ten_thousand_nodes_are_judged() {
        let n = nodes((0..10_000).map(|i| node(&format!("n{i}"), NodeState::Ready, 8, Some(i % 9))).collect());
        // Free per node cycles 8..=0; one in nine nodes has 8 - 0 free, ... (i % 9 == 8 is 0 free).
        let Verdict::FitsNow { replicas, rooms } = judge(&seed_reservation(), Some(&n), &ask(4, 1)) else {
            panic!("fits")
        };
        let expected: u64 = (0..10_000i64).map(|i| u64::try_from((8 - i % 9) / 4).unwrap()).sum();
        assert_eq!(replicas, expected);
        assert_eq!(rooms.len(), (0..10_000).filter(|i| 8 - i % 9 >= 4).count());
    }

    /// The oracle: each node's free GPUs computed from the fields alone, and replicas placed
    /// one by one, trying every node for each, backtracking.
    fn oracle_free(n: &Node) -> Option<i128> {
        let used = n.gpus_in_use.map_or_else(|| n.workloads.iter().map(|w| i128::from(w.gpus)).sum(), i128::from);
        (0..=i128::from(n.gpus)).contains(&used).then(|| i128::from(n.gpus) - used)
    }

    fn place(free: &mut [i128], k: i128, left: u32) -> bool {
        if left == 0 {
            return true;
        }
        for i in 0..free.len() {
            if free[i] >= k {
                free[i] -= k;
                let placed = place(free, k, left - 1);
                free[i] += k;
                if placed {
                    return true;
                }
            }
        }
        false
    }

    fn any_state() -> impl Strategy<Value = NodeState> {
        prop_oneof![
            4 => Just(NodeState::Ready),
            1 => Just(NodeState::Preparing),
            1 => Just(NodeState::UnderMaintenance),
            1 => Just(NodeState::Unknown("rebooting".into())),
        ]
    }

    fn any_count() -> impl Strategy<Value = i64> {
        prop_oneof![8 => 0i64..=8, 1 => Just(-1i64), 1 => Just(9i64), 1 => Just(i64::MAX), 1 => Just(i64::MIN)]
    }

    fn any_node() -> impl Strategy<Value = Node> {
        (
            any_state(),
            prop_oneof![6 => Just(8i64), 1 => any_count()],
            prop_oneof![6 => Just(None), 6 => any_count().prop_map(Some)],
        )
            .prop_map(|(state, gpus, in_use)| node("n", state, gpus, in_use))
    }

    proptest! {
        #[test]
        fn verdicts_agree_with_placing_replicas_one_by_one(
            list in proptest::collection::vec(any_node(), 0..6),
            k in 1u32..=9,
            r in 1u32..=4,
        ) {
            let n = nodes(list);
            let verdict = judge(&seed_reservation(), Some(&n), &ask(k, r));
            let ready: Vec<&Node> = n.nodes.iter().filter(|n| n.state == NodeState::Ready).collect();
            let mut trusted: Vec<i128> = ready.iter().filter_map(|n| oracle_free(n)).collect();
            let untrusted = ready.len() - trusted.len()
                + n.nodes.iter().filter(|n| matches!(n.state, NodeState::Unknown(_))).count();
            let fits = place(&mut trusted, i128::from(k), r);
            let total: i128 = trusted.iter().sum();
            match verdict {
                Verdict::FitsNow { replicas, rooms } => {
                    prop_assert!(fits);
                    prop_assert!(replicas >= u64::from(r));
                    // As many as counted can be placed one by one, and no more (where small
                    // enough to enumerate).
                    if replicas < 8 {
                        let c = u32::try_from(replicas).unwrap();
                        prop_assert!(place(&mut trusted.clone(), i128::from(k), c));
                        prop_assert!(!place(&mut trusted.clone(), i128::from(k), c + 1));
                    }
                    prop_assert!(rooms.iter().all(|room| room.free >= u64::from(k)));
                }
                Verdict::Unknown(UnknownWhy::Untrusted { .. }) => prop_assert!(!fits && untrusted > 0),
                Verdict::Fragmented { free, .. } => {
                    prop_assert!(!fits && untrusted == 0);
                    prop_assert!(i128::from(free) == total.min(i128::from(u64::MAX)) && total >= i128::from(k) * i128::from(r));
                }
                Verdict::Full { free, .. } => {
                    prop_assert!(!fits && untrusted == 0);
                    prop_assert!(i128::from(free) == total.min(i128::from(u64::MAX)) && total < i128::from(k) * i128::from(r));
                }
                other => prop_assert!(false, "unexpected {other:?}"),
            }
        }
    }
}
