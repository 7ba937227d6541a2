//! The cards' data: a row per node key whose fields are signals set only when the value
//! changed, and each node's utilization since the tab opened.

use crate::api::enums::NodeState;
use crate::api::models::{Node, NodesResponse, Timestamp};
use crate::domain::fleet::history::{node_capacity, History};
use crate::domain::nodes::grid::{self, node_keys, Placement};
use chrono::TimeDelta;
use leptos::prelude::*;
use std::collections::HashMap;
use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex, PoisonError};

/// One node's card data. Clones share the signal and the history.
#[derive(Clone)]
pub struct NodeRow {
    /// The node's `display_name`, unless another node earlier in the answer has it too.
    key: String,
    /// The `display_name` of a node whose name another node earlier in the answer has (its
    /// key then has a suffix).
    pub(super) repeated: Option<String>,
    /// What the card shows of the node, in one signal: the card reads all of it at once,
    /// and a signal each cost three allocations per node on a 10,000-node first read.
    pub(super) shown: ArcRwSignal<Shown>,
    /// Utilization since the tab opened (or since the node appeared): not a signal, the
    /// store says when lines are due for a redraw ([`NodeStore::record`]).
    history: Arc<Mutex<History>>,
    /// Whether the user opened the card's "+N more": a card is rewritten whole when its node
    /// changes or its line is redrawn, and is written open again while this holds, so what
    /// the user opened stays open across polls until they close it.
    pub(super) more_open: Arc<AtomicBool>,
}

/// A node as its card shows it.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct Shown {
    pub(super) state: NodeState,
    pub(super) gpus: i64,
    /// The last known placement; `None` until the region has been read once.
    pub(super) placement: Option<Placement>,
}

/// The same node's row: a row made anew for a node that came back is another.
impl PartialEq for NodeRow {
    fn eq(&self, other: &Self) -> bool {
        self.key == other.key && self.shown == other.shown
    }
}

impl NodeRow {
    pub(super) fn new(key: String, node: &Node, workloads_unknown: bool) -> Self {
        NodeRow {
            repeated: (key != node.display_name).then(|| node.display_name.clone()),
            key,
            shown: ArcRwSignal::new(Shown {
                state: node.state.clone(),
                gpus: node.gpus,
                placement: (!workloads_unknown).then(|| Placement::of(node)),
            }),
            history: Arc::default(),
            more_open: Arc::default(),
        }
    }

    /// The node's `display_name`.
    pub(super) fn name(&self) -> &str {
        self.repeated.as_deref().unwrap_or(&self.key)
    }

    /// The history, locked. Wasm runs one thread and a panic ends the app, so the lock is
    /// never contended; a poisoned one is taken as is.
    pub(super) fn with_history<R>(&self, f: impl FnOnce(&mut History) -> R) -> R {
        f(&mut self.history.lock().unwrap_or_else(PoisonError::into_inner))
    }

    /// Adds the node's share of GPUs in use to its history, in a ring of `capacity` points;
    /// whether there was one to add (a node of no GPUs has none).
    fn record(&self, node: &Node, at: Timestamp, capacity: usize) -> bool {
        grid::utilization(node).is_some_and(|share| {
            self.with_history(|h| h.record_within(at, share, capacity));
            true
        })
    }

    /// While the region is unreachable the placement is left as last known. The card is
    /// notified only when something it shows changed.
    fn update(&self, node: &Node, workloads_unknown: bool) {
        let same = self.shown.with_untracked(|shown| {
            shown.state == node.state
                && shown.gpus == node.gpus
                && (workloads_unknown
                    || shown
                        .placement
                        .as_ref()
                        .is_some_and(|p| p.gpus_in_use == node.gpus_in_use && p.workloads == node.workloads))
        });
        if same {
            return;
        }
        self.shown.update(|shown| {
            shown.state.clone_from(&node.state);
            shown.gpus = node.gpus;
            if !workloads_unknown {
                shown.placement = Some(Placement::of(node));
            }
        });
    }
}

/// The cards of the grid, keyed by node name.
#[derive(Clone, Copy)]
pub struct NodeStore {
    pub(super) rows: RwSignal<Vec<NodeRow>>,
    /// Notified when the drawn cards should redraw their utilization lines.
    pub(super) lines: Trigger,
    /// Polls recorded, and the time of the latest that redrew the lines.
    recorded: StoredValue<(u32, Option<Timestamp>)>,
}

impl Default for NodeStore {
    fn default() -> Self {
        NodeStore { rows: RwSignal::new(Vec::new()), lines: Trigger::new(), recorded: StoredValue::new((0, None)) }
    }
}

/// How often drawn cards redraw their utilization lines at most. Every poll adds a point to
/// every line, so redrawing at each would be a DOM change per card on screen at every poll,
/// where a poll otherwise touches only the cards whose node changed.
const LINES_EVERY: TimeDelta = TimeDelta::minutes(1);

/// Whether the `polls`-th recorded poll, at `at`, redraws the lines last redrawn at `last`:
/// the first two (the lines appear as soon as they have two points), then once a
/// [`LINES_EVERY`].
fn lines_due(polls: u32, last: Option<Timestamp>, at: Timestamp) -> bool {
    polls <= 2 || last.is_none_or(|last| at - last >= LINES_EVERY)
}

impl NodeStore {
    /// Brings the rows up to date with an answer. The row list itself is replaced only
    /// when nodes appear, disappear or move.
    pub fn apply(&self, response: &NodesResponse) {
        let unknown = response.workloads_unknown;
        // The usual poll: the same nodes, under names that are their keys, told without
        // building the keys (10,000 strings at every poll of the largest reservations).
        let names = response.nodes.iter().map(|n| n.display_name.as_str());
        let keys = (!self.keys_are(names)).then(|| node_keys(&response.nodes));
        if keys.as_ref().is_none_or(|keys| self.keys_are(keys.iter().map(String::as_str))) {
            self.rows.with_untracked(|rows| {
                for (row, node) in rows.iter().zip(&response.nodes) {
                    row.update(node, unknown);
                }
            });
            return;
        }
        let keys = keys.unwrap_or_default();
        let mut old: HashMap<String, NodeRow> =
            self.rows.with_untracked(|rows| rows.iter().map(|r| (r.key.clone(), r.clone())).collect());
        let rows = keys
            .into_iter()
            .zip(&response.nodes)
            .map(|(key, node)| match old.remove(&key) {
                Some(row) => {
                    row.update(node, unknown);
                    row
                }
                None => NodeRow::new(key, node, unknown),
            })
            .collect();
        self.rows.set(rows);
    }

    /// Adds each node's utilization at `at` to its history, from the answer just applied (the
    /// rows are then in its order). While the region is unreachable nothing is added: the
    /// placement on the cards is the last known, not the present. Cheap per node (a ring of
    /// at most 63 points, see [`node_capacity`]); the lines on screen are redrawn when due
    /// ([`lines_due`]).
    pub fn record(&self, response: &NodesResponse, at: Timestamp) {
        if response.workloads_unknown {
            return;
        }
        let capacity = node_capacity(response.nodes.len());
        let added = self.rows.with_untracked(|rows| {
            rows.iter().zip(&response.nodes).fold(false, |added, (row, node)| row.record(node, at, capacity) || added)
        });
        if !added {
            return;
        }
        let due = self
            .recorded
            .try_update_value(|(polls, last)| {
                *polls = polls.saturating_add(1);
                let due = lines_due(*polls, *last, at);
                if due {
                    *last = Some(at);
                }
                due
            })
            .unwrap_or(false);
        if due {
            self.lines.notify();
        }
    }

    /// Whether the rows are these keys, in this order.
    fn keys_are<'a>(&self, mut keys: impl ExactSizeIterator<Item = &'a str>) -> bool {
        self.rows
            .with_untracked(|rows| rows.len() == keys.len() && rows.iter().all(|row| keys.next() == Some(&row.key)))
    }

    /// Tracked.
    pub fn len(&self) -> usize {
        self.rows.with(Vec::len)
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_nodes::{at, node};
    use super::*;

    fn answer(nodes: Vec<Node>) -> NodesResponse {
        NodesResponse { nodes, ..NodesResponse::default() }
    }

    /// Applied and recorded at `at`, as a poll's answer is.
    fn poll(store: &NodeStore, response: &NodesResponse, at: Timestamp) {
        store.apply(response);
        store.record(response, at);
    }

    /// Each row's history, by key.
    fn histories(store: &NodeStore) -> Vec<(String, Vec<f64>)> {
        store.rows.with_untracked(|rows| {
            rows.iter()
                .map(|r| (r.key.clone(), r.with_history(|h| h.points().iter().map(|p| p.mean).collect())))
                .collect()
        })
    }

    #[test]
    fn each_poll_records_every_node_share_of_gpus_in_use_by_the_cards_rule() {
        let store = NodeStore::default();
        let nodes = || {
            answer(vec![
                node("reported", 8, Some(6), &[4]),
                node("summed", 4, None, &[1, 1]),
                node("no-gpus", 0, Some(0), &[]),
                node("overfull", 8, Some(9), &[]),
            ])
        };
        poll(&store, &nodes(), at(0));
        poll(&store, &nodes(), at(1));
        assert_eq!(
            histories(&store),
            [
                ("reported".into(), vec![0.75, 0.75]),
                ("summed".into(), vec![0.5, 0.5]),
                ("no-gpus".into(), vec![]),
                ("overfull".into(), vec![1.0, 1.0]),
            ]
        );
    }

    #[test]
    fn an_unreachable_region_records_nothing_not_the_last_known_placement() {
        let store = NodeStore::default();
        poll(&store, &answer(vec![node("a", 8, Some(2), &[])]), at(0));
        let unreachable =
            NodesResponse { nodes: vec![node("a", 8, None, &[])], workloads_unknown: true, ..NodesResponse::default() };
        poll(&store, &unreachable, at(1));
        assert_eq!(histories(&store), [("a".into(), vec![0.25])]);
    }

    #[test]
    fn a_node_keeps_its_history_under_its_key_when_others_come_and_go() {
        let store = NodeStore::default();
        poll(&store, &answer(vec![node("a", 4, Some(1), &[]), node("b", 4, Some(2), &[])]), at(0));
        poll(&store, &answer(vec![node("new", 4, Some(4), &[]), node("b", 4, Some(3), &[])]), at(1));
        assert_eq!(histories(&store), [("new".into(), vec![1.0]), ("b".into(), vec![0.5, 0.75])]);
        // Twice the same name: two keys, two histories.
        poll(&store, &answer(vec![node("b", 4, Some(0), &[]), node("b", 4, Some(4), &[])]), at(2));
        assert_eq!(histories(&store), [("b".into(), vec![0.5, 0.75, 0.0]), ("b#2".into(), vec![1.0])]);
    }

    #[test]
    fn ten_thousand_nodes_keep_at_most_seven_points_each() {
        let store = NodeStore::default();
        let many = answer((0..10_000).map(|i| node(&format!("n{i}"), 8, Some(i % 9), &[])).collect());
        for minute in 0..12 {
            poll(&store, &many, at(minute));
        }
        store.rows.with_untracked(|rows| {
            for row in rows {
                row.with_history(|h| {
                    assert_eq!(h.points().len(), 7, "{}", row.key);
                    assert_eq!(h.points().iter().map(|p| p.samples).sum::<u32>(), 12, "{}", row.key);
                });
            }
        });
    }

    #[test]
    fn lines_are_redrawn_on_the_first_two_polls_then_once_a_minute() {
        assert!(lines_due(1, None, at(0)));
        assert!(lines_due(2, Some(at(0)), at(0) + TimeDelta::seconds(5)), "the lines appear at once");
        assert!(!lines_due(3, Some(at(0)), at(0) + TimeDelta::seconds(10)));
        assert!(!lines_due(12, Some(at(0)), at(0) + TimeDelta::seconds(59)));
        assert!(lines_due(13, Some(at(0)), at(1)));
    }
}
