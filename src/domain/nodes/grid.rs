//! The node grid of the live view: one cell per GPU, each showing what runs on it, so that
//! free GPUs (and how they are scattered over nodes) are seen at a glance. Pure: the view
//! renders what this decides.
//!
//! The API lists workloads per node without GPU indices, so cells show a node's workloads
//! in the order sent, then GPUs reported in use by no listed workload, then free GPUs.

use crate::api::assumptions::MAINTENANCE_MEANING;
use crate::api::enums::{NodeState, WorkloadKind};
use crate::api::models::{Node, Workload};
use crate::domain::status::Tone;

/// "GPU cluster"; an unknown kind as sent, marked unrecognised.
pub fn kind_label(kind: &WorkloadKind) -> String {
    match kind {
        WorkloadKind::GpuInstance => "GPU instance".to_owned(),
        WorkloadKind::GpuCluster => "GPU cluster".to_owned(),
        WorkloadKind::InferenceInstance => "Model instance".to_owned(),
        WorkloadKind::FineTune => "Fine-tune".to_owned(),
        WorkloadKind::Unknown(raw) => format!("{raw} (unrecognised)"),
    }
}

/// What a node state means for launches, as seed 004 documents it; shown beside the badge.
/// Under maintenance says both halves of an assumption ([`MAINTENANCE_MEANING`]): its GPUs
/// are counted not available, and they stay reserved (and charged).
pub fn state_meaning(state: &NodeState) -> Option<&'static str> {
    match state {
        NodeState::Preparing => Some("GPUs available shortly"),
        NodeState::UnderMaintenance => Some(MAINTENANCE_MEANING),
        NodeState::Ready | NodeState::Unknown(_) => None,
    }
}

/// A node's state as a badge: label and tone.
pub fn state_label(state: &NodeState) -> (String, Tone) {
    match state {
        NodeState::Ready => ("Ready".to_owned(), Tone::Ok),
        NodeState::Preparing => ("Preparing".to_owned(), Tone::Info),
        NodeState::UnderMaintenance => ("Under maintenance".to_owned(), Tone::Warning),
        NodeState::Unknown(raw) => (format!("{raw} (unrecognised)"), Tone::Unknown),
    }
}

/// What a node was last seen running. Kept while the region is unreachable, so the grid
/// shows the last known placement (marked stale) rather than an empty node.
#[derive(Clone, Debug, PartialEq)]
pub struct Placement {
    pub gpus_in_use: Option<i64>,
    pub workloads: Vec<Workload>,
}

impl Placement {
    pub fn of(node: &Node) -> Self {
        Placement { gpus_in_use: node.gpus_in_use, workloads: node.workloads.clone() }
    }

    pub fn in_use(&self) -> i64 {
        gpus_in_use(self.gpus_in_use, &self.workloads)
    }

    /// GPUs of a node of `gpus` left by this use, as text: "value out of range" when the
    /// difference does not fit (counts near the integer limits), never a wrapped number.
    pub fn left_text(&self, gpus: i64) -> String {
        gpus.checked_sub(self.in_use()).map_or_else(|| "value out of range".to_owned(), |n| n.to_string())
    }

    fn listed(&self) -> i64 {
        listed_gpus(&self.workloads)
    }
}

/// GPUs in use on a node (or a placement kept of it): as reported, else the sum of its
/// workloads. The one rule the cards, the filters and the sorts share.
pub fn gpus_in_use(reported: Option<i64>, workloads: &[Workload]) -> i64 {
    reported.unwrap_or_else(|| listed_gpus(workloads))
}

/// The share of a node's GPUs in use (by [`gpus_in_use`]), a point of its utilization line;
/// `None` for a node of no GPUs. Figures out of range are left for the line to clamp.
pub fn utilization(node: &Node) -> Option<f64> {
    (node.gpus > 0).then(|| gpus_in_use(node.gpus_in_use, &node.workloads) as f64 / node.gpus as f64)
}

/// Saturating: a sum of absurd counts stays `i64::MAX` (drawn clipped), never wraps; a
/// negative count adds nothing.
fn listed_gpus(workloads: &[Workload]) -> i64 {
    workloads.iter().fold(0i64, |sum, w| sum.saturating_add(w.gpus.max(0)))
}

/// Cells drawn per node at most: a node reporting absurd counts must not hang the page.
pub const MAX_CELLS: usize = 64;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Use {
    /// The workload at this index of the node's list.
    Workload(usize),
    /// Counted in `gpus_in_use` but by no listed workload.
    Unlisted,
    Free,
    /// Placement never read (the region was unreachable from the start).
    Unknown,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Cell {
    pub usage: Use,
    /// Past the node's GPU count: the API reports more in use than the node has.
    pub beyond: bool,
}

/// The cells of one node, and how many were not drawn (over [`MAX_CELLS`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Cells {
    pub cells: Vec<Cell>,
    pub clipped: usize,
}

/// One cell per GPU, as reported: a workload's GPUs, then unlisted use, then free. When
/// the reported use exceeds the node, the extra cells are drawn and marked `beyond`;
/// negative counts draw nothing (the inconsistency is flagged elsewhere).
pub fn cells(gpus: i64, placement: Option<&Placement>) -> Cells {
    let gpus = usize::try_from(gpus).unwrap_or(0);
    let mut uses: Vec<(Use, usize)> = Vec::new();
    match placement {
        None => uses.push((Use::Unknown, gpus)),
        Some(p) => {
            for (index, w) in p.workloads.iter().enumerate() {
                uses.push((Use::Workload(index), usize::try_from(w.gpus).unwrap_or(0)));
            }
            let unlisted = p.in_use().saturating_sub(p.listed());
            uses.push((Use::Unlisted, usize::try_from(unlisted).unwrap_or(0)));
            let used = usize::try_from(p.in_use().max(p.listed())).unwrap_or(0);
            uses.push((Use::Free, gpus.saturating_sub(used)));
        }
    }
    let total = uses.iter().fold(0usize, |sum, (_, n)| sum.saturating_add(*n));
    let cells = uses
        .into_iter()
        .flat_map(|(usage, n)| std::iter::repeat_n(usage, n))
        .take(MAX_CELLS)
        .enumerate()
        .map(|(i, usage)| Cell { usage, beyond: i >= gpus })
        .collect();
    Cells { cells, clipped: total.saturating_sub(MAX_CELLS) }
}

/// A unique, stable key per node: its `display_name`, with `#2`, `#3`… appended to a name
/// the API lists more than once (so that each keeps its own card). A suffixed key skips any
/// key already given, so that names which look like suffixes (`a`, `a#2`, `a`) cannot collide.
pub fn node_keys(nodes: &[Node]) -> Vec<String> {
    // The usual answer names each node once: its keys are its names, told without copying
    // each name into the sets below (twice per node of a 10,000-node first read).
    let mut names = std::collections::HashSet::with_capacity(nodes.len());
    if nodes.iter().all(|n| names.insert(n.display_name.as_str())) {
        return nodes.iter().map(|n| n.display_name.clone()).collect();
    }
    let mut taken: std::collections::HashSet<String> = std::collections::HashSet::new();
    let mut counts: std::collections::HashMap<&str, usize> = std::collections::HashMap::new();
    nodes
        .iter()
        .map(|n| {
            let count = counts.entry(n.display_name.as_str()).or_insert(0);
            let mut key = n.display_name.clone();
            while !taken.insert(key.clone()) {
                *count += 1;
                key = format!("{}#{}", n.display_name, *count + 1);
            }
            key
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn workload(kind: &str, id: i64, gpus: i64) -> Workload {
        Workload { kind: WorkloadKind::from(kind), id, name: format!("w{id}"), gpus, billing: None }
    }

    fn placement(in_use: Option<i64>, workloads: Vec<Workload>) -> Placement {
        Placement { gpus_in_use: in_use, workloads }
    }

    fn uses(c: &Cells) -> Vec<Use> {
        c.cells.iter().map(|c| c.usage).collect()
    }

    #[test]
    fn the_seed_node_has_its_workloads_then_free_cells() {
        let p = placement(Some(6), vec![workload("gpu_cluster", 418, 4), workload("gpu_instance", 902, 2)]);
        let c = cells(8, Some(&p));
        use Use::*;
        assert_eq!(
            uses(&c),
            [Workload(0), Workload(0), Workload(0), Workload(0), Workload(1), Workload(1), Free, Free]
        );
        assert!(c.cells.iter().all(|c| !c.beyond) && c.clipped == 0);
    }

    #[test]
    fn use_reported_beyond_the_listed_workloads_is_drawn_as_unlisted() {
        let c = cells(4, Some(&placement(Some(3), vec![workload("fine_tune", 1, 1)])));
        assert_eq!(uses(&c), [Use::Workload(0), Use::Unlisted, Use::Unlisted, Use::Free]);
    }

    #[test]
    fn more_in_use_than_the_node_has_is_drawn_and_marked_beyond() {
        let c = cells(2, Some(&placement(Some(3), vec![workload("gpu_instance", 1, 3)])));
        assert_eq!(uses(&c), [Use::Workload(0); 3]);
        assert_eq!(c.cells.iter().map(|c| c.beyond).collect::<Vec<_>>(), [false, false, true]);
    }

    #[test]
    fn a_placement_never_read_is_unknown_not_free() {
        assert_eq!(uses(&cells(3, None)), [Use::Unknown; 3]);
    }

    #[test]
    fn negative_and_absurd_counts_draw_nothing_or_a_bounded_grid() {
        assert!(cells(-8, Some(&placement(Some(-1), vec![workload("gpu_instance", 1, -2)]))).cells.is_empty());
        let huge = cells(1_000_000, Some(&placement(Some(0), vec![])));
        assert_eq!((huge.cells.len(), huge.clipped), (MAX_CELLS, 1_000_000 - MAX_CELLS));
    }

    #[test]
    fn counts_near_the_integer_limits_neither_wrap_nor_panic() {
        let p = placement(
            Some(i64::MIN),
            vec![
                workload("gpu_instance", 1, i64::MAX),
                workload("gpu_instance", 2, i64::MAX),
                workload("gpu_instance", 3, 2),
            ],
        );
        let c = cells(i64::MAX, Some(&p));
        assert_eq!(c.cells.len(), MAX_CELLS);
        assert_eq!(c.clipped, usize::MAX - MAX_CELLS);
        assert_eq!(placement(Some(-1), vec![]).left_text(i64::MAX), "value out of range");
        assert_eq!(placement(Some(6), vec![]).left_text(8), "2");
    }

    #[test]
    fn unknown_kinds_and_states_are_marked_unrecognised() {
        assert_eq!(kind_label(&WorkloadKind::from("batch_job")), "batch_job (unrecognised)");
        assert_eq!(
            state_label(&NodeState::from("hibernating")),
            ("hibernating (unrecognised)".to_owned(), Tone::Unknown)
        );
    }

    #[test]
    fn repeated_node_names_get_distinct_keys() {
        let node = |name: &str| Node {
            display_name: name.into(),
            state: NodeState::Ready,
            gpus: 8,
            gpus_in_use: None,
            workloads: vec![],
        };
        assert_eq!(node_keys(&[node("a"), node("b"), node("a")]), ["a", "b", "a#2"]);
        let keys = node_keys(&[node("a"), node("a#2"), node("a"), node(""), node(""), node("a")]);
        assert_eq!(keys, ["a", "a#2", "a#3", "", "#2", "a#4"]);
    }
}
