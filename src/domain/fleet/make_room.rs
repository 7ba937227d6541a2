//! Make room: which running workloads to stop on one ready node so that one launch of `K`
//! GPUs fits there, and where each stopped workload could then be launched again. Advisory
//! only: the API has no call to stop or move a workload, so the console says what would
//! work and sends nothing.
//!
//! The best plan displaces the fewest GPUs, then stops the fewest workloads, then leaves the
//! most of them room to be launched again ([`BEST_ORDER`]). A workload that runs on several
//! nodes (a `gpu_cluster`) displaces its GPUs on every one of them when stopped, and frees
//! them all.
//!
//! It never touches what it cannot trust: a reservation whose status does not open launches,
//! an answer whose region could not be read (`workloads_unknown`), nodes that are not ready
//! or whose figures do not add up ([`capacity::inconsistencies`]); a workload that also runs
//! on such a node is never stopped, and neither is a kind the user keeps ([`Keep`]). The
//! placement it relies on is an assumption
//! ([`LAUNCH_LANDS_ON_ROOM`](crate::api::assumptions::LAUNCH_LANDS_ON_ROOM)).

use crate::api::enums::WorkloadKind;
use crate::api::models::{Node, NodesResponse, Reservation};
use crate::domain::fleet::fit::Verdict;
use crate::domain::nodes::capacity::{self, accepts_launches, free_gpus, is_inconsistent};
use crate::domain::status::{launch_access, LaunchAccess};
use crate::domain::words::address::query_value;
use std::collections::{BTreeSet, HashMap};
use std::num::NonZeroU32;

/// The most (workloads on a node × GPUs still needed there) weighed: far above real nodes
/// (a few workloads, 8 GPUs), it bounds the time and memory a hostile answer could take.
pub const MAX_WEIGHED: i64 = 1 << 20;

/// How plans are ranked, as the page says it.
pub const BEST_ORDER: &str =
    "Best: the fewest GPUs displaced, then the fewest workloads stopped, then the most of them that fit again.";

/// The workload kinds the user keeps running (`?keep=inference_instance,gpu_cluster`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Keep(Vec<WorkloadKind>);

impl Keep {
    /// The kinds the address's `keep` lists, comma separated; a kind the console does not
    /// know is kept as written (it never matches a stopped workload of a known kind).
    pub fn from_query(query: &str) -> Keep {
        let listed = query_value(query, "keep").unwrap_or_default();
        let mut kinds: Vec<WorkloadKind> = Vec::new();
        for kind in listed.split(',').map(str::trim).filter(|k| !k.is_empty()).map(WorkloadKind::from) {
            if !kinds.contains(&kind) {
                kinds.push(kind);
            }
        }
        Keep(kinds)
    }

    pub fn keeps(&self, kind: &WorkloadKind) -> bool {
        self.0.contains(kind)
    }

    /// The same, with `kind` kept or not.
    pub fn with(&self, kind: &WorkloadKind, kept: bool) -> Keep {
        let mut kinds: Vec<WorkloadKind> = self.0.iter().filter(|k| *k != kind).cloned().collect();
        if kept {
            kinds.push(kind.clone());
        }
        Keep(kinds)
    }

    /// The `keep` value of the address, known kinds in their documented order first.
    pub fn query_value(&self) -> String {
        let known = WorkloadKind::KNOWN.iter().filter(|k| self.keeps(k));
        let unknown = self.0.iter().filter(|k| !k.is_known());
        known.chain(unknown).map(WorkloadKind::as_str).collect::<Vec<_>>().join(",")
    }
}

/// A workload the plan stops.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Stopped {
    pub kind: WorkloadKind,
    pub id: i64,
    pub name: String,
    /// Its GPUs on the plan's node.
    pub gpus_here: i64,
    /// Its GPUs on every node it runs on, each displaced by stopping it.
    pub gpus: i64,
    /// Where it fits again once the `K` GPUs are placed: one node per node it ran on (a
    /// cluster's part each), `None` when there is no room for it in this reservation.
    pub relaunch: Option<Vec<(String, i64)>>,
}

/// The best way to free `K` GPUs together on one node.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Plan {
    pub node: String,
    /// Largest first.
    pub stop: Vec<Stopped>,
    /// GPUs of the stopped workloads on every node.
    pub displaced: i64,
    /// How many ready nodes could host a plan (this one's included).
    pub hosts: usize,
}

/// Why there is no plan.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NoPlan {
    /// The status does not open launches (its rule's sentence, domain::status).
    LaunchesNotOpen(&'static str),
    /// The region could not be read: what runs where is unknown.
    Unreachable,
    /// A ready node already has `K` free together: nothing needs to stop.
    FitsAlready,
    /// No ready node can get `K` free by stopping what may be stopped.
    NoWay,
    /// A node runs so many workloads, for so many GPUs asked, that weighing every way of
    /// stopping them ([`MAX_WEIGHED`]) would hold the page up.
    TooMany,
}

impl NoPlan {
    pub fn text(&self) -> &'static str {
        match self {
            NoPlan::LaunchesNotOpen(words) => words,
            NoPlan::Unreachable => "The region cannot be reached right now, so what runs where is unknown.",
            NoPlan::FitsAlready => "It fits already: nothing needs to stop.",
            NoPlan::TooMany => "A node runs too many workloads to weigh every way of stopping them for this many GPUs.",
            NoPlan::NoWay => {
                "No ready node can free enough GPUs by stopping the workloads that may be stopped (kinds kept, and \
                 nodes whose figures do not add up, are left alone)."
            }
        }
    }
}

/// Whether `/fit` offers a plan for a verdict: fragmented (enough free, not together) always
/// says what would make room or why nothing can; full only when stopping would make room;
/// every other verdict never (it fits, or the data or the status rules a plan out).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Offer {
    Always,
    IfAny,
}

impl Offer {
    pub fn of(verdict: &Verdict) -> Option<Offer> {
        match verdict {
            Verdict::Fragmented { .. } => Some(Offer::Always),
            Verdict::Full { .. } => Some(Offer::IfAny),
            _ => None,
        }
    }
}

/// A node that can be counted on: ready, and its figures add up.
fn trusted(node: &Node) -> bool {
    accepts_launches(node) && !is_inconsistent(node) && capacity::inconsistencies(node).is_empty()
}

/// One workload across the answer: each node it runs on (by index) with its GPUs there.
struct Spread<'a> {
    kind: &'a WorkloadKind,
    id: i64,
    name: &'a str,
    parts: Vec<(usize, i64)>,
    total: i64,
    /// Not a kept kind, and every node it runs on is trusted.
    stoppable: bool,
}

/// The best plan to free `k` GPUs together on one ready node of `nodes`, a reservation `r`'s
/// answer, stopping no kind `keep` lists.
pub fn make_room(r: &Reservation, nodes: &NodesResponse, k: NonZeroU32, keep: &Keep) -> Result<Plan, NoPlan> {
    match launch_access(&r.status) {
        LaunchAccess::Open(_) => {}
        LaunchAccess::Closed(words) | LaunchAccess::Unrecognised(words) => return Err(NoPlan::LaunchesNotOpen(words)),
    }
    if nodes.workloads_unknown {
        return Err(NoPlan::Unreachable);
    }
    let k = i64::from(k.get());
    let ok: Vec<bool> = nodes.nodes.iter().map(trusted).collect();
    // Free GPUs of each trusted node; the others are never counted.
    let free: Vec<i64> =
        nodes.nodes.iter().zip(&ok).map(|(n, ok)| if *ok { free_gpus(n, false).unwrap_or(0) } else { 0 }).collect();
    if free.iter().zip(&ok).any(|(f, ok)| *ok && *f >= k) {
        return Err(NoPlan::FitsAlready);
    }
    let spreads = spreads(nodes, &ok, keep);
    // Per node, the workloads on it: indices into `spreads`.
    let mut on_node: Vec<Vec<usize>> = vec![Vec::new(); nodes.nodes.len()];
    for (w, s) in spreads.iter().enumerate() {
        for (node, _) in &s.parts {
            on_node[*node].push(w);
        }
    }
    // The cheapest way to free enough on each trusted node: (displaced, workloads, which).
    let mut best: Vec<(usize, (i64, usize), Vec<usize>)> = Vec::new();
    let (mut hosts, mut items) = (0, Vec::new());
    for (n, ws) in on_node.iter().enumerate().filter(|(n, _)| ok[*n]) {
        items.clear();
        items.extend(
            ws.iter()
                .filter(|w| spreads[**w].stoppable)
                .filter_map(|w| spreads[*w].parts.iter().find(|(node, _)| *node == n).map(|(_, g)| (*w, *g)))
                .filter(|(_, g)| *g > 0),
        );
        let need = k - free[n];
        if i64::try_from(items.len()).unwrap_or(i64::MAX).saturating_mul(need.saturating_add(1)) > MAX_WEIGHED {
            return Err(NoPlan::TooMany);
        }
        let Some((cost, chosen)) = cheapest_cover(&items, &spreads, need) else { continue };
        hosts += 1;
        match best.first().map(|(_, c, _)| *c) {
            Some(c) if c < cost => {}
            Some(c) if c == cost => best.push((n, cost, chosen)),
            _ => best = vec![(n, cost, chosen)],
        }
    }
    // Among the cheapest, the first whose stopped workloads most fit again: once all of them
    // do, no later one can do better.
    let index = FreeIndex::new(&free, &ok);
    let mut chosen_plan: Option<(usize, i64, Vec<usize>, Relaunches)> = None;
    let fitting = |relaunch: &Relaunches| relaunch.iter().filter(|r| r.is_some()).count();
    for (n, (displaced, _), chosen) in best {
        let relaunch = index.relaunch(n, k, &chosen, &spreads);
        let fit = fitting(&relaunch);
        if chosen_plan.as_ref().is_none_or(|(.., kept)| fit > fitting(kept)) {
            let all = fit == chosen.len();
            chosen_plan = Some((n, displaced, chosen, relaunch));
            if all {
                break;
            }
        }
    }
    let (n, displaced, chosen, relaunch) = chosen_plan.ok_or(NoPlan::NoWay)?;
    let mut stop: Vec<Stopped> = chosen
        .iter()
        .zip(relaunch)
        .map(|(w, at)| {
            let s = &spreads[*w];
            Stopped {
                kind: s.kind.clone(),
                id: s.id,
                name: s.name.to_owned(),
                gpus_here: s.parts.iter().filter(|(node, _)| *node == n).map(|(_, g)| g).sum(),
                gpus: s.total,
                relaunch: at.map(|parts| {
                    // Parts placed on one node are one entry, as a cluster's replicas there are listed.
                    let mut merged: Vec<(String, i64)> = Vec::new();
                    for (node, g) in parts {
                        let name = &nodes.nodes[node].display_name;
                        match merged.iter_mut().find(|(at, _)| at == name) {
                            Some((_, sum)) => *sum += g,
                            None => merged.push((name.clone(), g)),
                        }
                    }
                    merged
                }),
            }
        })
        .collect();
    stop.sort_by(|a, b| b.gpus.cmp(&a.gpus).then_with(|| a.name.cmp(&b.name)));
    Ok(Plan { node: nodes.nodes[n].display_name.clone(), stop, displaced, hosts })
}

/// Every workload of the answer, its entries on each node gathered by kind and id.
fn spreads<'a>(nodes: &'a NodesResponse, ok: &[bool], keep: &Keep) -> Vec<Spread<'a>> {
    let mut at: HashMap<(&WorkloadKind, i64), usize> = HashMap::new();
    let mut out: Vec<Spread> = Vec::new();
    for (n, node) in nodes.nodes.iter().enumerate() {
        for w in &node.workloads {
            let i = *at.entry((&w.kind, w.id)).or_insert_with(|| {
                out.push(Spread {
                    kind: &w.kind,
                    id: w.id,
                    name: &w.name,
                    parts: Vec::new(),
                    total: 0,
                    stoppable: !keep.keeps(&w.kind),
                });
                out.len() - 1
            });
            let s = &mut out[i];
            match s.parts.iter_mut().find(|(node, _)| *node == n) {
                Some((_, g)) => *g = g.saturating_add(w.gpus),
                None => s.parts.push((n, w.gpus)),
            }
            s.total = s.total.saturating_add(w.gpus);
            s.stoppable &= ok[n];
        }
    }
    out
}

/// The stoppable `items` (workload, GPUs on this node) whose GPUs here add up to `need` or
/// more at the least (displaced, workloads), by a knapsack over the GPUs still needed.
fn cheapest_cover(items: &[(usize, i64)], spreads: &[Spread], need: i64) -> Option<((i64, usize), Vec<usize>)> {
    let need = usize::try_from(need).ok()?;
    if items.iter().map(|(_, g)| *g).sum::<i64>() < i64::try_from(need).ok()? {
        return None;
    }
    // cost[c]: the least cost freeing `c` (capped at `need`) with the items seen so far;
    // took[i × (need + 1) + c]: where item `i` led to `c` from, when it did.
    let width = need + 1;
    let mut cost: Vec<Option<(i64, usize)>> = vec![None; width];
    cost[0] = Some((0, 0));
    let mut next = cost.clone();
    let mut took: Vec<Option<usize>> = vec![None; items.len() * width];
    for (i, (w, g)) in items.iter().enumerate() {
        let g = usize::try_from(*g).unwrap_or(usize::MAX);
        next.copy_from_slice(&cost);
        for (c, reached) in cost.iter().enumerate() {
            let Some((displaced, count)) = *reached else { continue };
            let to = c.saturating_add(g).min(need);
            let with = (displaced.saturating_add(spreads[*w].total), count + 1);
            if next[to].is_none_or(|have| with < have) {
                next[to] = Some(with);
                took[i * width + to] = Some(c);
            }
        }
        std::mem::swap(&mut cost, &mut next);
    }
    let best = cost[need]?;
    let (mut chosen, mut c) = (Vec::new(), need);
    for i in (0..items.len()).rev() {
        if let Some(prev) = took[i * width + c] {
            chosen.push(items[i].0);
            c = prev;
        }
    }
    Some((best, chosen))
}

/// Per stopped workload, where it fits again: each part's node (index) and GPUs, or `None`.
type Relaunches = Vec<Option<Vec<(usize, i64)>>>;

/// The trusted nodes by free GPUs, to find room for a relaunch without walking them all.
struct FreeIndex<'a> {
    by_free: BTreeSet<(i64, usize)>,
    free: &'a [i64],
}

impl<'a> FreeIndex<'a> {
    fn new(free: &'a [i64], ok: &[bool]) -> Self {
        let by_free = free.iter().enumerate().filter(|(n, _)| ok[*n]).map(|(n, f)| (*f, n)).collect();
        FreeIndex { by_free, free }
    }

    /// Where each of `chosen` (stopped on node `n`) is launched again once `k` GPUs are
    /// placed on `n`: largest first, each part on the node with the fewest free GPUs that
    /// are enough, a workload either placed whole or not at all. In `chosen`'s order.
    fn relaunch(&self, n: usize, k: i64, chosen: &[usize], spreads: &[Spread]) -> Relaunches {
        // Free GPUs of the nodes the plan changes; the others are as read.
        let mut changed: HashMap<usize, i64> = HashMap::new();
        for w in chosen {
            for (node, g) in &spreads[*w].parts {
                if self.by_free.contains(&(self.free[*node], *node)) {
                    *changed.entry(*node).or_insert(self.free[*node]) += g;
                }
            }
        }
        *changed.entry(n).or_insert(self.free[n]) -= k;
        let mut order: Vec<usize> = (0..chosen.len()).collect();
        order.sort_by_key(|i| std::cmp::Reverse(spreads[chosen[*i]].total));
        let mut out = vec![None; chosen.len()];
        for i in order {
            let mut parts: Vec<i64> = spreads[chosen[i]].parts.iter().map(|(_, g)| *g).filter(|g| *g > 0).collect();
            parts.sort_unstable_by(|a, b| b.cmp(a));
            let before = changed.clone();
            let placed: Option<Vec<(usize, i64)>> = parts
                .into_iter()
                .map(|g| {
                    let node = self.room_for(g, &changed)?;
                    *changed.entry(node).or_insert(self.free[node]) -= g;
                    Some((node, g))
                })
                .collect();
            match placed {
                Some(placed) => out[i] = Some(placed),
                None => changed = before,
            }
        }
        out
    }

    /// The trusted node with the fewest free GPUs that are at least `g` (the lowest index
    /// on a tie), `changed` overriding the figures read.
    fn room_for(&self, g: i64, changed: &HashMap<usize, i64>) -> Option<usize> {
        let unchanged = self.by_free.range((g, 0)..).find(|(_, n)| !changed.contains_key(n)).copied();
        let changed = changed.iter().filter(|(_, f)| **f >= g).map(|(n, f)| (*f, *n)).min();
        unchanged.into_iter().chain(changed).min().map(|(_, n)| n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::enums::{NodeState, ReservationStatus};
    use crate::api::models::Workload;
    use crate::domain::words::time::tests::seed_reservation;
    use proptest::prelude::*;

    fn work(kind: WorkloadKind, id: i64, gpus: i64) -> Workload {
        Workload { name: format!("{}-{id}", kind.as_str()), kind, id, gpus, billing: None }
    }

    fn node(name: &str, gpus: i64, workloads: Vec<Workload>) -> Node {
        let used = workloads.iter().map(|w| w.gpus).sum();
        Node { display_name: name.into(), state: NodeState::Ready, gpus, gpus_in_use: Some(used), workloads }
    }

    fn answer(nodes: Vec<Node>) -> NodesResponse {
        NodesResponse { nodes, ..Default::default() }
    }

    fn k(n: u32) -> NonZeroU32 {
        NonZeroU32::new(n).unwrap()
    }

    use WorkloadKind::{FineTune, GpuCluster, GpuInstance, InferenceInstance};

    /// node-1: a 3-GPU instance, a 2-GPU inference instance (3 free); node-2: a cluster of 4
    /// here and 4 on node-3, and a 2-GPU fine-tune (2 free); node-3: the cluster (4 free).
    fn fragmented() -> NodesResponse {
        answer(vec![
            node("node-1", 8, vec![work(GpuInstance, 1, 3), work(InferenceInstance, 2, 2)]),
            node("node-2", 8, vec![work(GpuCluster, 3, 4), work(FineTune, 4, 2)]),
            node("node-3", 8, vec![work(GpuCluster, 3, 4)]),
        ])
    }

    #[test]
    fn the_best_plan_displaces_the_fewest_gpus_and_says_where_the_stopped_fit_again() {
        let plan = make_room(&seed_reservation(), &fragmented(), k(6), &Keep::default()).unwrap();
        // node-1 needs 3 more: the instance (3). node-2 needs 4: the fine-tune is too small
        // alone, the cluster displaces 8. node-3 needs 2: only the cluster (8).
        assert_eq!(plan.node, "node-1");
        assert_eq!(plan.displaced, 3);
        assert_eq!(plan.hosts, 3);
        assert_eq!(plan.stop.len(), 1);
        let stopped = &plan.stop[0];
        assert_eq!((stopped.kind.clone(), stopped.id, stopped.gpus_here, stopped.gpus), (GpuInstance, 1, 3, 3));
        // node-3 has 4 free, the fewest that are enough.
        assert_eq!(stopped.relaunch, Some(vec![("node-3".to_owned(), 3)]));
    }

    #[test]
    fn a_cluster_displaces_its_gpus_on_every_node_it_runs_on() {
        let keep = Keep::from_query("?keep=gpu_instance,fine_tune");
        let plan = make_room(&seed_reservation(), &fragmented(), k(6), &keep).unwrap();
        // node-1 keeps its instance: its inference instance (2) is not enough; the cluster
        // frees 4 on node-2 or 4 on node-3, displacing 8 either way: node-2 first.
        assert_eq!((plan.node.as_str(), plan.displaced, plan.hosts), ("node-2", 8, 2));
        assert_eq!(plan.stop[0].kind, GpuCluster);
        // Stopped, the cluster leaves node-3 8 free: both of its parts fit again there.
        assert_eq!(plan.stop[0].relaunch, Some(vec![("node-3".to_owned(), 8)]));
        // For 8: only node-3 can be emptied; then node-2 takes one part of 4, and no node the other.
        let plan = make_room(&seed_reservation(), &fragmented(), k(8), &keep).unwrap();
        assert_eq!((plan.node.as_str(), plan.displaced, plan.stop[0].relaunch.clone()), ("node-3", 8, None));
    }

    #[test]
    fn kept_kinds_are_never_stopped_and_without_them_there_may_be_no_way() {
        let keep = Keep::from_query("?keep=gpu_instance,gpu_cluster,fine_tune");
        assert_eq!(make_room(&seed_reservation(), &fragmented(), k(6), &keep), Err(NoPlan::NoWay));
    }

    #[test]
    fn closed_unknown_status_and_unreachable_answers_are_never_planned() {
        for status in [ReservationStatus::PastDue, ReservationStatus::Suspended, ReservationStatus::Unknown("x".into())]
        {
            let r = Reservation { status: status.clone(), ..seed_reservation() };
            let (LaunchAccess::Closed(words) | LaunchAccess::Unrecognised(words)) = launch_access(&status) else {
                panic!("{status} does not open launches")
            };
            assert_eq!(make_room(&r, &fragmented(), k(6), &Keep::default()), Err(NoPlan::LaunchesNotOpen(words)));
        }
        let unreachable = NodesResponse { workloads_unknown: true, ..fragmented() };
        assert_eq!(make_room(&seed_reservation(), &unreachable, k(6), &Keep::default()), Err(NoPlan::Unreachable));
    }

    #[test]
    fn nodes_not_ready_or_whose_figures_do_not_add_up_are_never_touched() {
        let mut n = fragmented();
        n.nodes[0].state = NodeState::Preparing;
        n.nodes[1].gpus_in_use = Some(5); // its workloads add up to 6
        let plan = make_room(&seed_reservation(), &n, k(6), &Keep::default());
        // node-3 alone is left, and its cluster runs on node-2 too: nothing may be stopped.
        assert_eq!(plan, Err(NoPlan::NoWay));
    }

    #[test]
    fn a_node_with_more_workloads_than_can_be_weighed_says_so_rather_than_hold_the_page() {
        // 2,000 workloads of 1 GPU fill a node of 2,000: 1,000 asked weighs 2,000 × 1,001 ways.
        let full = answer(vec![node("big", 2_000, (0..2_000).map(|id| work(GpuInstance, id, 1)).collect())]);
        assert_eq!(make_room(&seed_reservation(), &full, k(1_000), &Keep::default()), Err(NoPlan::TooMany));
        assert_eq!(make_room(&seed_reservation(), &full, k(400), &Keep::default()).map(|p| p.displaced), Ok(400));
    }

    #[test]
    fn a_node_with_room_already_needs_no_plan() {
        assert_eq!(make_room(&seed_reservation(), &fragmented(), k(4), &Keep::default()), Err(NoPlan::FitsAlready));
    }

    #[test]
    fn keep_reads_and_writes_the_address() {
        let keep = Keep::from_query("?gpus=4&keep=gpu_cluster,inference_instance,gpu_cluster");
        assert!(keep.keeps(&GpuCluster) && keep.keeps(&InferenceInstance) && !keep.keeps(&GpuInstance));
        assert_eq!(keep.query_value(), "gpu_cluster,inference_instance");
        assert_eq!(keep.with(&GpuCluster, false).with(&FineTune, true).query_value(), "inference_instance,fine_tune");
        assert_eq!(Keep::from_query("?gpus=4"), Keep::default());
    }

    #[test]
    fn ten_thousand_nodes_are_planned() {
        let nodes = (0..10_000)
            .map(|i| node(&format!("n{i}"), 8, vec![work(GpuInstance, i * 2, 3), work(FineTune, i * 2 + 1, 2 + i % 3)]))
            .collect();
        let plan = make_room(&seed_reservation(), &answer(nodes), k(6), &Keep::default()).unwrap();
        // Nodes with 1 free (i % 3 == 2) need 5: both (7); 2 free need 4: both (6 or 7);
        // 3 free (i % 3 == 0, fine-tune of 2) need 3: the instance alone.
        assert_eq!((plan.displaced, plan.hosts), (3, 10_000));
    }

    // The oracle: every subset of the workloads, on every node.

    /// A generated answer: up to 6 nodes of 8 GPUs, workloads on one to three of them.
    fn any_answer() -> impl Strategy<Value = NodesResponse> {
        let state = prop_oneof![5 => Just(NodeState::Ready), 1 => Just(NodeState::Preparing)];
        let kind = prop_oneof![Just(GpuInstance), Just(GpuCluster), Just(InferenceInstance), Just(FineTune)];
        (
            proptest::collection::vec((state, any::<bool>()), 1..=6),
            proptest::collection::vec((kind, proptest::collection::vec((0usize..6, 1i64..=8), 1..=3)), 0..=8),
        )
            .prop_map(|(states, works)| {
                let mut nodes: Vec<Node> = states
                    .iter()
                    .enumerate()
                    .map(|(i, (state, _))| Node { state: state.clone(), ..node(&format!("node-{i}"), 8, Vec::new()) })
                    .collect();
                for (id, (kind, parts)) in works.into_iter().enumerate() {
                    let id = i64::try_from(id).unwrap();
                    for (at, gpus) in parts {
                        let n = &mut nodes[at % states.len()];
                        let used: i64 = n.workloads.iter().map(|w| w.gpus).sum();
                        let fits = (8 - used).min(gpus);
                        if fits > 0 && !n.workloads.iter().any(|w| w.id == id) {
                            n.workloads.push(work(kind.clone(), id, fits));
                        }
                    }
                }
                for (n, (_, off)) in nodes.iter_mut().zip(&states) {
                    let used: i64 = n.workloads.iter().map(|w| w.gpus).sum();
                    // Now and then a node whose count does not match its workloads.
                    n.gpus_in_use = Some(if *off && used < 8 { used + 1 } else { used });
                }
                answer(nodes)
            })
    }

    /// The least (displaced, workloads) over every subset freeing `k` on a trusted node, by
    /// node; `Some(0, 0)` where one already fits.
    fn oracle(n: &NodesResponse, k: i64, keep: &Keep) -> Vec<Option<(i64, usize)>> {
        let ok: Vec<bool> = n
            .nodes
            .iter()
            .map(|n| n.state == NodeState::Ready && n.gpus_in_use == Some(n.workloads.iter().map(|w| w.gpus).sum()))
            .collect();
        let ids: BTreeSet<i64> = n.nodes.iter().flat_map(|n| n.workloads.iter().map(|w| w.id)).collect();
        let ids: Vec<i64> = ids.into_iter().collect();
        let on = |id: i64| {
            n.nodes
                .iter()
                .enumerate()
                .flat_map(move |(i, node)| node.workloads.iter().filter(move |w| w.id == id).map(move |w| (i, w)))
        };
        let stoppable = |id: i64| on(id).all(|(i, w)| ok[i] && !keep.keeps(&w.kind));
        n.nodes
            .iter()
            .enumerate()
            .map(|(i, node)| {
                if !ok[i] {
                    return None;
                }
                let free = node.gpus - node.gpus_in_use.unwrap();
                (0u32..1 << ids.len())
                    .filter(|set| (0..ids.len()).all(|b| set & 1 << b == 0 || stoppable(ids[b])))
                    .filter_map(|set| {
                        let chosen = (0..ids.len()).filter(|b| set & 1 << b != 0).map(|b| ids[b]);
                        let freed: i64 =
                            chosen.clone().flat_map(on).filter(|(at, _)| *at == i).map(|(_, w)| w.gpus).sum();
                        let displaced: i64 = chosen.clone().flat_map(on).map(|(_, w)| w.gpus).sum();
                        (free + freed >= k).then(|| (displaced, chosen.count()))
                    })
                    .min()
            })
            .collect()
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(300))]
        #[test]
        fn plans_agree_with_every_subset_and_replaying_one_overfills_no_node(
            n in any_answer(),
            asked in 1u32..=8,
            keep_bits in 0u8..16,
        ) {
            let keep = WorkloadKind::KNOWN.iter().enumerate().fold(Keep::default(), |keep, (b, kind)| keep.with(kind, keep_bits & 1 << b != 0));
            let k = i64::from(asked);
            let best = oracle(&n, k, &keep);
            let least = best.iter().flatten().min().copied();
            match make_room(&seed_reservation(), &n, NonZeroU32::new(asked).unwrap(), &keep) {
                Err(NoPlan::FitsAlready) => prop_assert_eq!(least.map(|l| l.0), Some(0)),
                Err(NoPlan::NoWay) => prop_assert_eq!(least, None),
                Err(other) => prop_assert!(false, "unexpected {:?}", other),
                Ok(plan) => {
                    prop_assert!(least.is_some_and(|l| l.0 > 0));
                    prop_assert_eq!(Some((plan.displaced, plan.stop.len())), least);
                    prop_assert_eq!(plan.hosts, best.iter().flatten().count());
                    prop_assert!(plan.stop.iter().all(|s| !keep.keeps(&s.kind)));
                    // Replay: stop, place k on the plan's node, launch the stopped again.
                    let mut free: HashMap<&str, i64> = n.nodes.iter().map(|node| (node.display_name.as_str(), node.gpus - node.gpus_in_use.unwrap())).collect();
                    for s in &plan.stop {
                        for node in &n.nodes {
                            let here: i64 = node.workloads.iter().filter(|w| w.kind == s.kind && w.id == s.id).map(|w| w.gpus).sum();
                            *free.get_mut(node.display_name.as_str()).unwrap() += here;
                        }
                    }
                    *free.get_mut(plan.node.as_str()).unwrap() -= k;
                    for (at, g) in plan.stop.iter().flat_map(|s| s.relaunch.iter().flatten()) {
                        *free.get_mut(at.as_str()).unwrap() -= g;
                        let node = n.nodes.iter().find(|node| &node.display_name == at).unwrap();
                        prop_assert!(node.state == NodeState::Ready, "relaunched on {} not ready", at);
                    }
                    prop_assert!(free.values().all(|f| *f >= 0), "a node is over its GPUs: {:?}", free);
                }
            }
        }
    }
}
