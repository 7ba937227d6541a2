//! GPU capacity of a reservation's nodes: what is free, the largest launch that fits on one
//! node, and which documented answer a launch would get.
//!
//! Figures are shown as the API reports them, never corrected: an inconsistency (more in
//! use than exists, a sum that does not match) is flagged beside them. When the region
//! cannot be reached (`workloads_unknown`), use and free are unknown (`None`), never zero.
//!
//! Differs from the agreed interface: `free_gpus` takes `workloads_unknown` too, because a
//! node alone cannot tell "idle" from "unknown" (the API may send 0 in use then).

use crate::api::assumptions::PAYMENT_DUE_SCOPE;
use crate::api::enums::{NodeState, ReservationStatus};
use crate::api::error::codes;
use crate::api::models::{Node, NodesResponse, Reservation};

/// GPUs in use on the node: as reported, or the sum of its workloads if the count is
/// missing; `None` when the region could not be read.
pub fn in_use(node: &Node, workloads_unknown: bool) -> Option<i64> {
    if workloads_unknown {
        return None;
    }
    Some(node.gpus_in_use.unwrap_or_else(|| workload_gpus(node)))
}

fn workload_gpus(node: &Node) -> i64 {
    node.workloads.iter().map(|w| w.gpus).sum()
}

/// `gpus − in use`; 0 for a node whose counts disagree (more in use than it has, or a
/// negative count, which [`inconsistencies`] flags), so no total or launch relies on it.
pub fn free_gpus(node: &Node, workloads_unknown: bool) -> Option<i64> {
    in_use(node, workloads_unknown).map(|used| if counts_agree(node, used) { node.gpus - used } else { 0 })
}

/// Whether `used` GPUs in use can be true of the node: between 0 and its GPUs.
fn counts_agree(node: &Node, used: i64) -> bool {
    (0..=node.gpus).contains(&used)
}

/// A node reporting more GPUs in use than it has (or a negative count): counted 0 free.
pub fn is_inconsistent(node: &Node) -> bool {
    in_use(node, false).is_some_and(|used| !counts_agree(node, used))
}

/// Only a ready node takes new workloads; a preparing one will shortly, one under
/// maintenance is not usable now but still part of what is reserved (an assumption,
/// [`MAINTENANCE_MEANING`](crate::api::assumptions::MAINTENANCE_MEANING)).
pub fn accepts_launches(node: &Node) -> bool {
    node.state == NodeState::Ready
}

/// "1 GPU", "8 GPUs": a count of GPUs in words.
pub fn gpus_text(n: i64) -> String {
    crate::domain::words::count(n, "GPU")
}

/// Capacity over all nodes. `gpus = in_use + free + unavailable` holds when known and no
/// node is inconsistent.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Totals {
    /// The GPUs of the nodes read; `None` when no node's figures could be read: unknown,
    /// never 0.
    pub gpus: Option<i64>,
    pub in_use: Option<i64>,
    /// Free GPUs on ready nodes.
    pub free: Option<i64>,
    /// GPUs not in use on nodes that do not take launches (preparing, under maintenance,
    /// a state the console does not know).
    pub unavailable: Option<i64>,
    /// The most GPUs one launch can get on a single node now.
    pub largest_fit: Option<i64>,
    /// Nodes whose counts disagree ([`is_inconsistent`]): counted 0 free, never the
    /// largest launch, named by the totals.
    pub inconsistent_nodes: usize,
    /// Nodes whose figures could not be read (`unreadable_nodes`): outside the figures
    /// above, their GPUs unknown ([`Totals::unreadable_text`]).
    pub unreadable: Unreadable,
}

/// The nodes of an answer whose figures could not be read, for the totals' note.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Unreadable {
    /// Each node's name and why.
    pub nodes: Vec<(String, String)>,
    /// Their GPUs, `None` when a node's GPU count itself is absurd.
    pub gpus: Option<i64>,
}

/// None: no node, no GPU.
impl Default for Unreadable {
    fn default() -> Self {
        Unreadable { nodes: Vec::new(), gpus: Some(0) }
    }
}

impl Unreadable {
    fn of(response: &NodesResponse) -> Self {
        Unreadable {
            nodes: response.unreadable_nodes.iter().map(|u| (u.display_name.clone(), u.why.clone())).collect(),
            gpus: response.unreadable_nodes.iter().map(|u| u.gpus).sum::<Option<i64>>(),
        }
    }
}

pub fn totals(response: &NodesResponse) -> Totals {
    // No node read: nothing is known to be there, in use, free or launchable, so nothing is 0.
    let none_read = response.nodes.is_empty() && !response.unreadable_nodes.is_empty();
    let gpus = (!none_read).then(|| response.nodes.iter().map(|n| n.gpus).sum());
    if response.workloads_unknown || none_read {
        return Totals {
            gpus,
            in_use: None,
            free: None,
            unavailable: None,
            largest_fit: None,
            inconsistent_nodes: 0,
            unreadable: Unreadable::of(response),
        };
    }
    let mut t = Totals {
        gpus,
        in_use: Some(0),
        free: Some(0),
        unavailable: Some(0),
        largest_fit: Some(0),
        inconsistent_nodes: response.nodes.iter().filter(|n| is_inconsistent(n)).count(),
        unreadable: Unreadable::of(response),
    };
    for node in &response.nodes {
        let (used, free) = (in_use(node, false).unwrap_or(0), free_gpus(node, false).unwrap_or(0));
        t.in_use = t.in_use.map(|s| s + used);
        if accepts_launches(node) {
            t.free = t.free.map(|s| s + free);
            t.largest_fit = t.largest_fit.map(|m| m.max(free));
        } else {
            t.unavailable = t.unavailable.map(|s| s + free);
        }
    }
    t
}

impl Totals {
    /// Why the figures leave nodes out, when they do: nodes whose counts disagree, and
    /// nodes whose figures could not be read at all.
    pub fn inconsistent_text(&self) -> Option<String> {
        let n = self.inconsistent_nodes;
        let disagree = (n > 0).then(|| {
            format!(
                "{} more GPUs in use than {} {}: counted 0 free and left out of the largest launch.",
                if n == 1 { "1 node reports".to_owned() } else { format!("{n} nodes report") },
                if n == 1 { "it" } else { "they" },
                if n == 1 { "has" } else { "have" }
            )
        });
        let texts: Vec<String> = disagree.into_iter().chain(self.unreadable_text()).collect();
        (!texts.is_empty()).then(|| texts.join(" "))
    }

    /// "node-2's figures could not be read (gpus_in_use: …): its 8 GPUs are unknown,
    /// outside these totals."
    pub fn unreadable_text(&self) -> Option<String> {
        let Unreadable { nodes, gpus } = &self.unreadable;
        (!nodes.is_empty()).then(|| {
            let named: Vec<String> = nodes.iter().map(|(name, why)| format!("{name} ({why})")).collect();
            let (whose, its) = if nodes.len() == 1 { ("figures", "its") } else { ("figures", "their") };
            let unknown = match gpus {
                Some(gpus) => format!("{its} {} are unknown", gpus_text(*gpus)),
                None => format!("how many GPUs {} is unknown", if nodes.len() == 1 { "it has" } else { "they have" }),
            };
            format!("The {whose} of {} could not be read: {unknown}, outside these totals.", named.join("; "))
        })
    }
}

/// Which statuses run workloads: an assumption, see [`runs_workloads`].
pub use crate::api::assumptions::runs_workloads;

/// GPUs in use of those reserved, for a reservation's summary line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum InUseOfReserved {
    /// `reserved` is the terms' `node_count × gpus_per_node`.
    Known { in_use: i64, reserved: i64 },
    /// The region could not be read: unknown, never zero.
    Unknown,
    /// A node's figures could not be read: its use, and so the sum, is unknown.
    NodeUnreadable,
}

impl InUseOfReserved {
    pub fn of(r: &Reservation, response: &NodesResponse) -> Self {
        match totals(response).in_use {
            None => InUseOfReserved::Unknown,
            Some(_) if !response.unreadable_nodes.is_empty() => InUseOfReserved::NodeUnreadable,
            Some(in_use) => InUseOfReserved::Known { in_use, reserved: r.node_count * r.gpus_per_node },
        }
    }
}

impl std::fmt::Display for InUseOfReserved {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            InUseOfReserved::Known { in_use, reserved } => write!(f, "{in_use} of {reserved} GPUs in use"),
            InUseOfReserved::Unknown => f.write_str("placement unknown (region unreachable)"),
            InUseOfReserved::NodeUnreadable => f.write_str("placement unknown (a node's figures could not be read)"),
        }
    }
}

/// What does not add up on a node, in plain words (empty when all is consistent).
pub fn inconsistencies(node: &Node) -> Vec<String> {
    let mut out = Vec::new();
    if node.gpus < 0 {
        out.push(format!("The API reports a negative GPU count ({}).", node.gpus));
    }
    if let Some(used) = node.gpus_in_use {
        if used < 0 {
            out.push(format!("The API reports a negative number of GPUs in use ({used})."));
        }
        if used > node.gpus {
            out.push(format!("The API reports {used} GPUs in use on a node with {}.", node.gpus));
        }
        let sum = workload_gpus(node);
        if used != sum {
            out.push(format!("{used} GPUs are reported in use, but the workloads listed add up to {sum}."));
        }
    }
    for w in node.workloads.iter().filter(|w| w.gpus < 0) {
        out.push(format!("Workload {} reports a negative GPU count ({}).", w.name, w.gpus));
    }
    out
}

/// What a launch of `gpus` GPUs on the reservation would get, judged from the data at hand.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Prediction {
    Fits {
        node: String,
    },
    WouldFail {
        status: u16,
        code: Option<&'static str>,
        explanation: String,
    },
    /// The data cannot tell (placement not loaded, region unreachable, a status the API
    /// documents no launch answer for).
    Unknown(String),
}

/// The caveat said wherever the console expects a launch to succeed (the launch page's
/// "Expected to succeed", /fit's "Fits now"): both judge a reservation from its own status,
/// and whether an overdue payment on another reservation of the account pauses launches
/// there too is an assumption ([`PAYMENT_DUE_SCOPE`]).
pub fn success_caveat() -> &'static str {
    PAYMENT_DUE_SCOPE
}

/// The answer the current data implies, checked in the order the documented errors are
/// listed: `interruptible`, payment, then capacity on a single node.
pub fn predict_launch(r: &Reservation, nodes: Option<&NodesResponse>, gpus: i64, interruptible: bool) -> Prediction {
    let fail = |status, code, explanation: String| Prediction::WouldFail { status, code, explanation };
    if interruptible {
        return fail(409, None, "Reserved capacity is never interruptible; launch without “interruptible”.".to_owned());
    }
    match &r.status {
        ReservationStatus::Active => {}
        ReservationStatus::PastDue => {
            return fail(
                402,
                Some(codes::RESERVATION_PAYMENT_DUE),
                "A payment is overdue, so new launches are paused until it is paid.".to_owned(),
            )
        }
        ReservationStatus::AwaitingPayment => {
            return fail(
                402,
                Some(codes::RESERVATION_AWAITING_PAYMENT),
                "The reservation starts when its first invoice is paid; launches wait until then.".to_owned(),
            )
        }
        other => {
            return Prediction::Unknown(format!(
                "The reservation is “{other}”; the API documents no launch answer for that, so the launch will tell."
            ))
        }
    }
    if gpus < 1 {
        return fail(400, None, "Ask for at least one GPU.".to_owned());
    }
    if gpus > r.gpus_per_node {
        return fail(
            409,
            Some(codes::GPU_CAPACITY),
            format!("A launch runs on one node, and this reservation's nodes have {} GPUs each.", r.gpus_per_node),
        );
    }
    let Some(response) = nodes else {
        return Prediction::Unknown("The node placement is not loaded yet.".to_owned());
    };
    if response.workloads_unknown {
        return Prediction::Unknown("The region cannot be reached right now, so free GPUs are unknown.".to_owned());
    }
    // Best fit: the ready node with the fewest free GPUs that are still enough.
    let best = response
        .nodes
        .iter()
        .filter(|n| accepts_launches(n))
        .filter_map(|n| free_gpus(n, false).map(|free| (free, n)))
        .filter(|(free, _)| *free >= gpus)
        .min_by_key(|(free, _)| *free);
    if let Some((_, node)) = best {
        return Prediction::Fits { node: node.display_name.clone() };
    }
    if !response.unreadable_nodes.is_empty() {
        return Prediction::Unknown(format!(
            "No node read has room, and the figures of {} could not be read: one of them may.",
            crate::domain::words::count(response.unreadable_nodes.len(), "node")
        ));
    }
    let t = totals(response);
    let (free, largest) = (t.free.unwrap_or(0), t.largest_fit.unwrap_or(0));
    let explanation = if free >= gpus {
        format!("{free} GPUs are free in total, but no single node has {gpus} free together; the largest launch that fits now is {largest}.")
    } else if largest > 0 {
        let verb = if free == 1 { "is" } else { "are" };
        format!("Only {} {verb} free on ready nodes; the largest launch that fits now is {largest}.", gpus_text(free))
    } else {
        "No GPUs are free on a ready node right now.".to_owned()
    };
    fail(409, Some(codes::GPU_CAPACITY), explanation)
}

/// "4 nodes × 8 GPUs", and a warning when the API's total disagrees with the product.
pub fn capacity_text(r: &Reservation) -> (String, Option<String>) {
    let product = r.node_count * r.gpus_per_node;
    let nodes = format!("{} × {}", crate::domain::words::count(r.node_count, "node"), gpus_text(r.gpus_per_node));
    let mismatch = (product != r.reserved_gpus)
        .then(|| format!("The API reports {} reserved GPUs, not {product}.", r.reserved_gpus));
    (nodes, mismatch)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::words::time::tests::seed_reservation;
    use serde_json::json;

    #[test]
    fn when_no_node_could_be_read_nothing_is_counted_zero() {
        let answer: NodesResponse = serde_json::from_value(json!({ "nodes": [
            { "display_name": "node-1", "state": "ready", "gpus": 8, "gpus_in_use": 18446744073709551615u64, "workloads": [] }
        ], "workloads_unknown": false }))
        .unwrap();
        let t = totals(&answer);
        assert_eq!((t.gpus, t.in_use, t.free, t.unavailable, t.largest_fit), (None, None, None, None, None), "{t:?}");
        assert_eq!(t.unreadable.gpus, Some(8));
        // Nor is a launch predicted to fail: the unread node may have the room.
        match predict_launch(&seed_reservation(), Some(&answer), 1, false) {
            Prediction::Unknown(why) => assert!(why.contains("1 node could not be read"), "{why}"),
            other => panic!("predicted {other:?}"),
        }
    }

    /// Seed 004's nodes example, plus two ready nodes so a launch has a choice.
    #[test]
    fn the_reserved_capacity_is_said_with_singular_and_plural_nouns() {
        assert_eq!(capacity_text(&seed_reservation()).0, "4 nodes × 8 GPUs");
        let one = Reservation { node_count: 1, gpus_per_node: 1, reserved_gpus: 1, ..seed_reservation() };
        assert_eq!(capacity_text(&one).0, "1 node × 1 GPU");
    }

    fn seed_nodes() -> NodesResponse {
        serde_json::from_value(json!({
            "nodes": [
                { "display_name": "node-1", "state": "ready", "gpus": 8, "gpus_in_use": 6, "workloads": [
                    { "kind": "gpu_cluster", "id": 418, "name": "train-run-7", "gpus": 4 },
                    { "kind": "gpu_instance", "id": 902, "name": "notebook", "gpus": 2 } ] },
                { "display_name": "node-2", "state": "under_maintenance", "gpus": 8, "gpus_in_use": 0, "workloads": [] },
                { "display_name": "node-3", "state": "ready", "gpus": 8, "gpus_in_use": 3, "workloads": [
                    { "kind": "fine_tune", "id": 5, "name": "ft", "gpus": 3 } ] },
                { "display_name": "node-4", "state": "preparing", "gpus": 8, "gpus_in_use": 0, "workloads": [] }
            ],
            "workloads_unknown": false
        }))
        .unwrap()
    }

    fn unreachable() -> NodesResponse {
        let mut n = seed_nodes();
        n.workloads_unknown = true;
        for node in &mut n.nodes {
            node.gpus_in_use = Some(0);
            node.workloads.clear();
        }
        n
    }

    #[test]
    fn free_per_node_is_gpus_minus_in_use() {
        let n = seed_nodes();
        let free: Vec<Option<i64>> = n.nodes.iter().map(|node| free_gpus(node, false)).collect();
        assert_eq!(free, [Some(2), Some(8), Some(5), Some(8)]);
    }

    #[test]
    fn totals_add_up_and_only_ready_nodes_count_as_free() {
        let t = totals(&seed_nodes());
        assert_eq!(
            t,
            Totals {
                gpus: Some(32),
                in_use: Some(9),
                free: Some(7),
                unavailable: Some(16),
                largest_fit: Some(5),
                inconsistent_nodes: 0,
                unreadable: Unreadable::default()
            }
        );
        assert_eq!(t.gpus, Some(t.in_use.unwrap() + t.free.unwrap() + t.unavailable.unwrap()));
    }

    #[test]
    fn an_unreachable_region_is_unknown_never_zero() {
        let n = unreachable();
        assert_eq!(free_gpus(&n.nodes[0], true), None);
        assert_eq!(
            totals(&n),
            Totals {
                gpus: Some(32),
                in_use: None,
                free: None,
                unavailable: None,
                largest_fit: None,
                inconsistent_nodes: 0,
                unreadable: Unreadable::default()
            }
        );
        assert!(matches!(predict_launch(&seed_reservation(), Some(&n), 1, false), Prediction::Unknown(_)));
    }

    #[test]
    fn a_missing_in_use_count_is_the_sum_of_the_workloads() {
        let mut n = seed_nodes();
        n.nodes[0].gpus_in_use = None;
        assert_eq!(in_use(&n.nodes[0], false), Some(6));
        assert!(inconsistencies(&n.nodes[0]).is_empty());
    }

    #[test]
    fn inconsistent_counts_are_flagged_and_shown_as_reported() {
        let mut node = seed_nodes().nodes[0].clone();
        node.gpus_in_use = Some(10);
        assert_eq!(
            inconsistencies(&node),
            [
                "The API reports 10 GPUs in use on a node with 8.",
                "10 GPUs are reported in use, but the workloads listed add up to 6."
            ]
        );
        assert_eq!(free_gpus(&node, false), Some(0), "an inconsistent node counts 0 free");
        node.gpus = -1;
        node.gpus_in_use = Some(-1);
        node.workloads[0].gpus = -5;
        let issues = inconsistencies(&node);
        assert!(issues.contains(&"The API reports a negative GPU count (-1).".to_owned()));
        assert!(issues.contains(&"The API reports a negative number of GPUs in use (-1).".to_owned()));
        assert!(issues.contains(&"Workload train-run-7 reports a negative GPU count (-5).".to_owned()));
    }

    #[test]
    fn a_node_reporting_more_in_use_than_it_has_never_makes_the_largest_fit_negative() {
        let mut n = seed_nodes();
        n.nodes.retain(|node| node.display_name == "node-1");
        n.nodes[0].gpus_in_use = Some(12);
        assert_eq!(totals(&n).largest_fit, Some(0));
    }

    #[test]
    fn an_inconsistent_node_counts_0_free_and_is_excluded_from_the_largest_launch() {
        let mut n = seed_nodes();
        let ready: Vec<usize> = (0..n.nodes.len()).filter(|&i| accepts_launches(&n.nodes[i])).collect();
        let before = totals(&n);
        // The ready node with the most free GPUs now reports one more in use than it has.
        let i = *ready.iter().max_by_key(|&&i| free_gpus(&n.nodes[i], false)).unwrap();
        let freed = free_gpus(&n.nodes[i], false).unwrap();
        n.nodes[i].gpus_in_use = Some(n.nodes[i].gpus + 1);
        n.nodes[i].workloads.clear();
        let t = totals(&n);
        assert_eq!(free_gpus(&n.nodes[i], false), Some(0));
        assert_eq!(t.free, before.free.map(|f| f - freed), "its free GPUs are not counted, never negative");
        assert!(t.largest_fit < before.largest_fit, "{t:?}");
        assert_eq!(t.inconsistent_nodes, 1);
        assert_eq!(
            t.inconsistent_text().as_deref(),
            Some("1 node reports more GPUs in use than it has: counted 0 free and left out of the largest launch.")
        );
        assert_eq!(before.inconsistent_text(), None);
    }

    #[test]
    fn a_launch_goes_to_the_ready_node_that_fits_it_best() {
        let r = seed_reservation();
        let n = seed_nodes();
        assert_eq!(predict_launch(&r, Some(&n), 2, false), Prediction::Fits { node: "node-1".into() });
        assert_eq!(predict_launch(&r, Some(&n), 5, false), Prediction::Fits { node: "node-3".into() });
    }

    #[test]
    fn more_than_any_single_node_has_free_is_gpu_capacity() {
        let p = predict_launch(&seed_reservation(), Some(&seed_nodes()), 6, false);
        assert_eq!(
            p,
            Prediction::WouldFail {
                status: 409,
                code: Some("gpu_capacity"),
                explanation: "7 GPUs are free in total, but no single node has 6 free together; the largest launch that fits now is 5.".into()
            }
        );
        let p = predict_launch(&seed_reservation(), Some(&seed_nodes()), 8, false);
        assert!(
            matches!(p, Prediction::WouldFail { explanation, .. } if explanation.starts_with("Only 7 GPUs are free"))
        );
    }

    #[test]
    fn more_gpus_than_a_node_holds_can_never_fit() {
        let p = predict_launch(&seed_reservation(), None, 9, false);
        assert!(matches!(p, Prediction::WouldFail { status: 409, code: Some("gpu_capacity"), .. }));
    }

    #[test]
    fn interruptible_is_refused_before_anything_else() {
        let r = Reservation { status: ReservationStatus::PastDue, ..seed_reservation() };
        assert!(matches!(predict_launch(&r, None, 1, true), Prediction::WouldFail { status: 409, code: None, .. }));
    }

    #[test]
    fn payment_statuses_predict_their_402() {
        let past_due = Reservation { status: ReservationStatus::PastDue, ..seed_reservation() };
        assert!(matches!(
            predict_launch(&past_due, Some(&seed_nodes()), 1, false),
            Prediction::WouldFail { status: 402, code: Some("reservation_payment_due"), .. }
        ));
        let awaiting = Reservation { status: ReservationStatus::AwaitingPayment, ..seed_reservation() };
        assert!(matches!(
            predict_launch(&awaiting, None, 1, false),
            Prediction::WouldFail { status: 402, code: Some("reservation_awaiting_payment"), .. }
        ));
    }

    #[test]
    fn undocumented_cases_are_unknown_or_a_plain_400() {
        let suspended = Reservation { status: ReservationStatus::Suspended, ..seed_reservation() };
        assert!(matches!(predict_launch(&suspended, Some(&seed_nodes()), 1, false), Prediction::Unknown(_)));
        assert!(matches!(predict_launch(&seed_reservation(), None, 1, false), Prediction::Unknown(_)));
        assert!(matches!(
            predict_launch(&seed_reservation(), None, 0, false),
            Prediction::WouldFail { status: 400, code: None, .. }
        ));
    }

    #[test]
    fn nothing_free_on_a_ready_node_says_so() {
        let mut n = seed_nodes();
        for node in &mut n.nodes {
            node.state = NodeState::UnderMaintenance;
        }
        let p = predict_launch(&seed_reservation(), Some(&n), 1, false);
        assert!(
            matches!(p, Prediction::WouldFail { explanation, .. } if explanation == "No GPUs are free on a ready node right now.")
        );
    }

    #[test]
    fn in_use_of_reserved_counts_against_nodes_times_gpus_per_node() {
        let figure = InUseOfReserved::of(&seed_reservation(), &seed_nodes());
        assert_eq!(figure, InUseOfReserved::Known { in_use: 9, reserved: 32 });
        assert_eq!(figure.to_string(), "9 of 32 GPUs in use");
    }

    #[test]
    fn a_node_whose_figures_could_not_be_read_is_named_by_the_totals_and_its_gpus_unknown() {
        let body = r#"{"nodes":[
            {"display_name":"node-1","state":"ready","gpus":8,"gpus_in_use":6,"workloads":[]},
            {"display_name":"node-2","state":"ready","gpus":8,"gpus_in_use":18446744073709551615,"workloads":[]}
        ],"workloads_unknown":false}"#;
        let answer: NodesResponse = serde_json::from_str(body).expect("the sane node is read");
        let t = totals(&answer);
        assert_eq!((t.gpus, t.in_use, t.free), (Some(8), Some(6), Some(2)), "the sane node's figures");
        assert_eq!(
            t.inconsistent_text().as_deref(),
            Some(
                "The figures of node-2 (gpus_in_use: the count 18,446,744,073,709,551,615 is out of range \
                 (the console reads counts up to 1,000,000,000)) could not be read: its 8 GPUs are unknown, \
                 outside these totals."
            )
        );
        let figure = InUseOfReserved::of(&seed_reservation(), &answer);
        assert_eq!(figure.to_string(), "placement unknown (a node's figures could not be read)");
    }

    #[test]
    fn in_use_of_an_unreachable_region_is_unknown_not_zero() {
        let figure = InUseOfReserved::of(&seed_reservation(), &unreachable());
        assert_eq!(figure, InUseOfReserved::Unknown);
        assert_eq!(figure.to_string(), "placement unknown (region unreachable)");
    }

    #[test]
    fn only_active_and_past_due_reservations_run_workloads() {
        let running: Vec<bool> = ReservationStatus::KNOWN.iter().map(runs_workloads).collect();
        // assigning, scheduled, awaiting_payment, active, past_due, suspended, ended
        assert_eq!(running, [false, false, false, true, true, false, false]);
        assert!(!runs_workloads(&ReservationStatus::Unknown("hibernating".into())));
    }

    #[test]
    fn a_count_of_one_gpu_is_singular() {
        assert_eq!(gpus_text(1), "1 GPU");
        assert_eq!(gpus_text(0), "0 GPUs");
        assert_eq!(gpus_text(8), "8 GPUs");
    }
}
