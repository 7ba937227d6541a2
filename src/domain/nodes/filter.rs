//! Finding nodes and workloads on a reservation's Nodes page: filters on node state, free
//! GPUs and workload kind, a search over node names and workload names and ids, and a sort.
//! The filters live in the address (`?state=ready&free=4&kind=gpu_cluster&q=train&sort=free`)
//! so that a filtered view can be bookmarked and shared. Pure: the page renders what this
//! decides, over indices into the answer's node list (10,000 nodes are never copied).

use crate::api::enums::{NodeState, WorkloadKind};
use crate::api::models::{Node, Workload};
use crate::domain::nodes::grid::gpus_in_use;
use crate::domain::nodes::workload::Whereabouts;
use crate::domain::words::address::{query_replacing, query_value};
use crate::domain::words::{count, figure};
use std::collections::HashMap;

/// The order nodes are listed in.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum SortBy {
    /// As the API sent them (the answer's order is the reservation's node order).
    #[default]
    Sent,
    /// By display name, numbers inside names compared as numbers ("node-2" before "node-10").
    Name,
    /// Most free GPUs first.
    FreeGpus,
    /// Most GPUs in use first.
    GpusInUse,
}

impl SortBy {
    /// The value kept in the address; `""` for the default (not written).
    pub fn as_query(self) -> &'static str {
        match self {
            SortBy::Sent => "",
            SortBy::Name => "name",
            SortBy::FreeGpus => "free",
            SortBy::GpusInUse => "in_use",
        }
    }

    /// An unknown value reads as the default order: an old or hand-edited link still opens.
    pub fn from_query(value: &str) -> Self {
        match value {
            "name" => SortBy::Name,
            "free" => SortBy::FreeGpus,
            "in_use" => SortBy::GpusInUse,
            _ => SortBy::Sent,
        }
    }
}

/// What the Nodes page shows. Empty fields filter nothing.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct NodeFilter {
    pub state: Option<NodeState>,
    /// "Has at least N free GPUs".
    pub min_free: Option<i64>,
    /// Nodes running at least one workload of this kind.
    pub kind: Option<WorkloadKind>,
    /// Matched, case-insensitively, against node names, workload names and workload ids.
    pub search: String,
    pub sort: SortBy,
}

impl NodeFilter {
    /// Reads the filters from a query string; a value that is not a count is ignored.
    pub fn from_query(query: &str) -> Self {
        let value = |key: &str| query_value(query, key).filter(|v| !v.is_empty());
        NodeFilter {
            state: value("state").map(|v| NodeState::from(v.as_str())),
            min_free: value("free").and_then(|v| v.trim().parse().ok()).filter(|n: &i64| *n > 0),
            kind: value("kind").map(|v| WorkloadKind::from(v.as_str())),
            search: value("q").unwrap_or_default(),
            sort: value("sort").map_or(SortBy::Sent, |v| SortBy::from_query(&v)),
        }
    }

    /// `current` with this filter's keys put in (and every other key kept: `tz`, `poll_ms`),
    /// which [`NodeFilter::from_query`] reads back as this filter.
    pub fn to_query(&self, current: &str) -> String {
        query_replacing(
            current,
            &[
                ("state", self.state.as_ref().map(|s| s.as_str().to_owned()).unwrap_or_default()),
                ("free", self.min_free.map(|n| n.to_string()).unwrap_or_default()),
                ("kind", self.kind.as_ref().map(|k| k.as_str().to_owned()).unwrap_or_default()),
                ("q", self.search.clone()),
                ("sort", self.sort.as_query().to_owned()),
            ],
        )
    }

    /// Whether `node` passes every filter; `needle` is the search, trimmed and lower-cased
    /// once for all the nodes.
    fn keeps(&self, needle: &str, node: &Node) -> bool {
        self.state.as_ref().is_none_or(|state| &node.state == state)
            && self.min_free.is_none_or(|n| free_gpus(node) >= n)
            && self.kind.as_ref().is_none_or(|kind| node.workloads.iter().any(|w| &w.kind == kind))
            && search_matches(needle, node)
    }

    /// Indices of the nodes shown, in the chosen order (ties keep the sent order).
    pub fn apply(&self, nodes: &[Node]) -> Vec<usize> {
        let needle = self.search.trim().to_lowercase();
        let mut shown: Vec<usize> = (0..nodes.len()).filter(|&i| self.keeps(&needle, &nodes[i])).collect();
        match self.sort {
            SortBy::Sent => {}
            SortBy::Name => shown.sort_by(|&a, &b| natural_cmp(&nodes[a].display_name, &nodes[b].display_name)),
            SortBy::FreeGpus => shown.sort_by_key(|&i| std::cmp::Reverse(free_gpus(&nodes[i]))),
            SortBy::GpusInUse => shown.sort_by_key(|&i| std::cmp::Reverse(in_use(&nodes[i]))),
        }
        shown
    }
}

fn in_use(node: &Node) -> i64 {
    gpus_in_use(node.gpus_in_use, &node.workloads)
}

/// Free GPUs on a node, never below zero (a node over-reporting use has none free).
pub fn free_gpus(node: &Node) -> i64 {
    node.gpus.saturating_sub(in_use(node)).max(0)
}

/// An empty (already lower-cased, trimmed) search matches everything.
fn search_matches(needle: &str, node: &Node) -> bool {
    needle.is_empty()
        || node.display_name.to_lowercase().contains(needle)
        || node.workloads.iter().any(|w| workload_matches(needle, w))
}

/// A workload matches by name (any part) or by its id (whole, with or without a `#`).
fn workload_matches(needle: &str, workload: &Workload) -> bool {
    workload.name.to_lowercase().contains(needle) || needle.trim_start_matches('#') == workload.id.to_string()
}

/// Names compared with runs of digits as numbers, so `node-9` sorts before `node-10`.
fn natural_cmp(a: &str, b: &str) -> std::cmp::Ordering {
    fn parts(s: &str) -> Vec<(String, u128)> {
        let mut out = Vec::new();
        let mut chars = s.chars().peekable();
        while let Some(&c) = chars.peek() {
            let digit = c.is_ascii_digit();
            let mut run = String::new();
            while let Some(&c) = chars.peek().filter(|c| c.is_ascii_digit() == digit) {
                run.push(c);
                chars.next();
            }
            let number = if digit { run.parse().unwrap_or(u128::MAX) } else { 0 };
            out.push(if digit { (String::new(), number) } else { (run.to_lowercase(), 0) });
        }
        out
    }
    parts(a).cmp(&parts(b)).then_with(|| a.cmp(b))
}

/// "showing 12 of 10,000 nodes"; all of them: "10,000 nodes".
pub fn showing_text(shown: usize, total: usize) -> String {
    if shown == total {
        count(total, "node")
    } else {
        format!("showing {} of {}", figure(shown), count(total, "node"))
    }
}

/// Node names listed in a found workload's line, at most: a cluster on thousands of nodes
/// is named by its first few, the rest counted (its page lists every one).
pub const NODES_NAMED: usize = 12;

/// "node-1, node-2"; past [`NODES_NAMED`]: "node-1, …, node-12 and 6,531 more".
pub fn nodes_named(names: &[(String, i64)]) -> String {
    let named: Vec<&str> = names.iter().take(NODES_NAMED).map(|(name, _)| name.as_str()).collect();
    match names.len().saturating_sub(NODES_NAMED) {
        0 => named.join(", "),
        more => format!("{} and {} more", named.join(", "), figure(more)),
    }
}

/// A workload the search found, taken as one across the nodes it runs on (a cluster's
/// replicas are listed once per node): where it runs, as the workload page tells it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FoundWorkload {
    pub kind: WorkloadKind,
    pub id: i64,
    pub at: Whereabouts,
}

/// Workloads whose name or id matches `search`, each once, in the order first listed.
/// An empty search finds none (the page lists nodes, not every workload).
pub fn found_workloads(nodes: &[Node], search: &str) -> Vec<FoundWorkload> {
    let needle = search.trim().to_lowercase();
    if needle.is_empty() {
        return Vec::new();
    }
    let mut found: Vec<FoundWorkload> = Vec::new();
    let mut at: HashMap<(String, i64), usize> = HashMap::new();
    for node in nodes {
        for w in node.workloads.iter().filter(|w| workload_matches(&needle, w)) {
            let slot = *at.entry((w.kind.as_str().to_owned(), w.id)).or_insert_with(|| {
                let at = Whereabouts { name: w.name.clone(), nodes: Vec::new(), total_gpus: 0 };
                found.push(FoundWorkload { kind: w.kind.clone(), id: w.id, at });
                found.len() - 1
            });
            let at = &mut found[slot].at;
            at.total_gpus = at.total_gpus.saturating_add(w.gpus);
            match at.nodes.last_mut() {
                Some((name, gpus)) if *name == node.display_name => *gpus = gpus.saturating_add(w.gpus),
                _ => at.nodes.push((node.display_name.clone(), w.gpus)),
            }
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    fn nodes() -> Vec<Node> {
        serde_json::from_str(
            r#"[
              {"display_name":"node-10","state":"ready","gpus":8,"gpus_in_use":6,"workloads":[
                {"kind":"gpu_cluster","id":418,"name":"Train-LLM","gpus":4,"billing":"reserved"},
                {"kind":"gpu_instance","id":77,"name":"notebook","gpus":2}]},
              {"display_name":"node-2","state":"ready","gpus":8,"gpus_in_use":8,"workloads":[
                {"kind":"gpu_cluster","id":418,"name":"Train-LLM","gpus":8,"billing":"reserved"}]},
              {"display_name":"node-9","state":"ready","gpus":8,"gpus_in_use":0,"workloads":[]},
              {"display_name":"node-3","state":"under_maintenance","gpus":8,"gpus_in_use":0,"workloads":[]},
              {"display_name":"node-4","state":"ready","gpus":8,"workloads":[
                {"kind":"fine_tune","id":5,"name":"tune","gpus":3}]}]"#,
        )
        .unwrap()
    }

    fn names(filter: &NodeFilter) -> Vec<String> {
        let all = nodes();
        filter.apply(&all).into_iter().map(|i| all[i].display_name.clone()).collect()
    }

    #[test]
    fn no_filter_shows_every_node_in_the_sent_order() {
        assert_eq!(names(&NodeFilter::default()), ["node-10", "node-2", "node-9", "node-3", "node-4"]);
    }

    #[test]
    fn filters_on_state_free_gpus_and_workload_kind_combine() {
        let state = NodeFilter { state: Some(NodeState::UnderMaintenance), ..NodeFilter::default() };
        assert_eq!(names(&state), ["node-3"]);
        let free = NodeFilter { min_free: Some(5), ..NodeFilter::default() };
        assert_eq!(names(&free), ["node-9", "node-3", "node-4"], "node-4 has 3 in use by its workloads' sum");
        let ready_and_free = NodeFilter { state: Some(NodeState::Ready), ..free };
        assert_eq!(names(&ready_and_free), ["node-9", "node-4"]);
        let cluster = NodeFilter { kind: Some(WorkloadKind::GpuCluster), ..NodeFilter::default() };
        assert_eq!(names(&cluster), ["node-10", "node-2"]);
    }

    #[test]
    fn search_matches_node_names_workload_names_and_whole_ids_ignoring_case() {
        let search = |q: &str| names(&NodeFilter { search: q.into(), ..NodeFilter::default() });
        assert_eq!(search("NODE-9"), ["node-9"]);
        assert_eq!(search("train"), ["node-10", "node-2"]);
        assert_eq!(search("#77"), ["node-10"]);
        assert_eq!(search("41"), Vec::<String>::new(), "ids match whole, not in part");
        assert_eq!(search("  "), names(&NodeFilter::default()));
    }

    #[test]
    fn sorts_by_name_as_numbers_by_free_gpus_most_first_and_by_gpus_in_use() {
        let sort = |sort| names(&NodeFilter { sort, ..NodeFilter::default() });
        assert_eq!(sort(SortBy::Name), ["node-2", "node-3", "node-4", "node-9", "node-10"]);
        assert_eq!(sort(SortBy::FreeGpus), ["node-9", "node-3", "node-4", "node-10", "node-2"]);
        assert_eq!(sort(SortBy::GpusInUse), ["node-2", "node-10", "node-4", "node-9", "node-3"]);
    }

    #[test]
    fn the_filters_round_trip_through_the_address_and_bad_values_are_ignored() {
        let filter = NodeFilter {
            state: Some(NodeState::Ready),
            min_free: Some(4),
            kind: Some(WorkloadKind::GpuCluster),
            search: "train llm&co".into(),
            sort: SortBy::FreeGpus,
        };
        let query = filter.to_query("");
        assert_eq!(NodeFilter::from_query(&query), filter);
        assert_eq!(NodeFilter::default().to_query(""), "");
        let bad = NodeFilter::from_query("?free=lots&sort=sideways&state=");
        assert_eq!(bad, NodeFilter::default());
    }

    #[test]
    fn the_filters_keep_the_rest_of_the_address() {
        let filter = NodeFilter { kind: Some(WorkloadKind::GpuCluster), ..NodeFilter::default() };
        assert_eq!(filter.to_query("?poll_ms=300&state=ready&tz=utc"), "?poll_ms=300&tz=utc&kind=gpu_cluster");
        assert_eq!(NodeFilter::default().to_query("?poll_ms=300"), "?poll_ms=300");
    }

    #[test]
    fn the_totals_say_how_many_of_all_nodes_are_shown() {
        assert_eq!(showing_text(12, 10_000), "showing 12 of 10,000 nodes");
        assert_eq!(showing_text(1, 1), "1 node");
        assert_eq!(showing_text(0, 3), "showing 0 of 3 nodes");
    }

    #[test]
    fn a_cluster_on_thousands_of_nodes_names_its_first_few_and_counts_the_rest() {
        let names: Vec<(String, i64)> = (1..=6_543).map(|i| (format!("node-{i}"), 2)).collect();
        let text = nodes_named(&names);
        assert!(text.starts_with("node-1, node-2, "), "{text}");
        assert!(text.ends_with("node-12 and 6,531 more"), "{text}");
        assert_eq!(nodes_named(&names[..12]).matches(", ").count(), 11);
    }

    #[test]
    fn a_cluster_across_nodes_is_found_once_with_its_total_gpus_and_its_nodes() {
        let found = found_workloads(&nodes(), "train");
        assert_eq!(
            found,
            [FoundWorkload {
                kind: WorkloadKind::GpuCluster,
                id: 418,
                at: Whereabouts {
                    name: "Train-LLM".into(),
                    nodes: vec![("node-10".into(), 4), ("node-2".into(), 8)],
                    total_gpus: 12,
                },
            }]
        );
        assert_eq!(found_workloads(&nodes(), "5")[0].at.nodes, [("node-4".to_owned(), 3)]);
        assert_eq!(nodes_named(&found[0].at.nodes), "node-10, node-2");
        assert!(found_workloads(&nodes(), "").is_empty());
    }
}
