//! Serde types of the EcoHash Compute API for reserved GPU nodes (seed 004), one type per
//! documented object. Fields the API may omit or null are `Option`; counts are `i64` so that
//! an absurd value (a negative GPU count) decodes and can be flagged instead of failing, within
//! ±`MAX_COUNT` so that no sum or product of them can wrap.

use super::enums::{Billing, BillingPeriod, ChargeStatus, Funding, NodeState, ReservationStatus, WorkloadKind};
use super::money::Usd;
use super::timestamp;
pub use super::timestamp::Timestamp;
use serde::{Deserialize, Deserializer, Serialize};

/// An optional list or flag: absent and `null` both mean the default. Seed 004's unreachable
/// region returns nodes "without … workloads", which an API may well write as `null`; one
/// null must not fail the whole page.
pub(crate) fn null_as_default<'de, D, T>(deserializer: D) -> Result<T, D::Error>
where
    D: Deserializer<'de>,
    T: Default + Deserialize<'de>,
{
    Ok(Option::<T>::deserialize(deserializer)?.unwrap_or_default())
}

/// An item of `GET /gpu-reservations` (and the common part of the detail).
#[derive(Clone, Debug, PartialEq, Deserialize, Serialize)]
pub struct Reservation {
    pub id: i64,
    pub status: ReservationStatus,
    pub region_id: String,
    pub gpu_type: String,
    #[serde(deserialize_with = "super::limits::count")]
    pub node_count: i64,
    #[serde(deserialize_with = "super::limits::count")]
    pub gpus_per_node: i64,
    #[serde(deserialize_with = "super::limits::count")]
    pub reserved_gpus: i64,
    #[serde(deserialize_with = "super::limits::count")]
    pub term_months: i64,
    pub billing_period: BillingPeriod,
    /// Null while `awaiting_payment`: the term starts when the first invoice is paid.
    #[serde(default, deserialize_with = "timestamp::optional")]
    pub starts_at: Option<Timestamp>,
    #[serde(default, deserialize_with = "timestamp::optional")]
    pub ends_at: Option<Timestamp>,
    pub drive_quota_gib: f64,
    pub fs_quota_gib: f64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub contract_ref: Option<String>,
    /// Present while `past_due`: when the payment became overdue.
    #[serde(default, skip_serializing_if = "Option::is_none", deserialize_with = "timestamp::optional")]
    pub past_due_since: Option<Timestamp>,
    /// Present while `past_due`: when running workloads stop unless it is paid.
    #[serde(default, skip_serializing_if = "Option::is_none", deserialize_with = "timestamp::optional")]
    pub stops_at: Option<Timestamp>,
    #[serde(default, skip_serializing_if = "Option::is_none", deserialize_with = "timestamp::optional")]
    pub ended_at: Option<Timestamp>,
}

/// `GET /gpu-reservations/{id}`: the list fields plus storage, amendments and payment.
#[derive(Clone, Debug, PartialEq, Deserialize, Serialize)]
pub struct ReservationDetail {
    #[serde(flatten)]
    pub reservation: Reservation,
    pub storage: Storage,
    #[serde(default, deserialize_with = "super::limits::amendments")]
    pub amendments: Vec<Amendment>,
    /// Present only for the account owner.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub payment: Option<Payment>,
    /// **assumption**: seed 004 does not say whether `first_invoice` sits beside `payment`
    /// or inside it; both places are read (see [`ReservationDetail::first_invoice`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub first_invoice: Option<FirstInvoice>,
}

impl ReservationDetail {
    /// The first invoice wherever the API put it.
    pub fn first_invoice(&self) -> Option<&FirstInvoice> {
        self.first_invoice.as_ref().or_else(|| self.payment.as_ref().and_then(|p| p.first_invoice.as_ref()))
    }
}

#[derive(Clone, Debug, PartialEq, Deserialize, Serialize)]
pub struct Storage {
    pub drive_used_gib: f64,
    pub drive_quota_gib: f64,
    pub fs_used_gib: f64,
    pub fs_quota_gib: f64,
}

/// A change to the terms from `effective_at` on. Members get no rate fields.
#[derive(Clone, Debug, PartialEq, Deserialize, Serialize)]
pub struct Amendment {
    #[serde(deserialize_with = "timestamp::required")]
    pub effective_at: Timestamp,
    #[serde(deserialize_with = "super::limits::count")]
    pub node_count_before: i64,
    #[serde(deserialize_with = "super::limits::count")]
    pub node_count_after: i64,
    pub drive_quota_gib_before: f64,
    pub drive_quota_gib_after: f64,
    pub fs_quota_gib_before: f64,
    pub fs_quota_gib_after: f64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rate_usd_per_gpu_hour_before: Option<Usd>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rate_usd_per_gpu_hour_after: Option<Usd>,
}

/// The owner-only payment schedule.
#[derive(Clone, Debug, PartialEq, Deserialize, Serialize)]
pub struct Payment {
    pub rate_usd_per_gpu_hour: Usd,
    /// The storage rates: a detail without one still shows, its storage left unchecked.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub drive_rate_usd_per_gib_month: Option<Usd>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fs_rate_usd_per_gib_month: Option<Usd>,
    pub funding: Funding,
    pub advance_usd: Usd,
    pub advance_remaining_usd: Usd,
    /// The earliest charge not yet paid, or null.
    #[serde(default)]
    pub next_charge: Option<Charge>,
    #[serde(default, deserialize_with = "super::limits::charges")]
    pub charges: Vec<Charge>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub first_invoice: Option<FirstInvoice>,
}

/// One billing period's charge (or a prorated adjustment within one).
#[derive(Clone, Debug, PartialEq, Deserialize, Serialize)]
pub struct Charge {
    pub period_index: i64,
    /// A prorated charge from an amendment within a period.
    #[serde(default, deserialize_with = "null_as_default")]
    pub adjustment: bool,
    #[serde(deserialize_with = "timestamp::required")]
    pub period_start: Timestamp,
    #[serde(deserialize_with = "timestamp::required")]
    pub period_end: Timestamp,
    pub gpu_amount_usd: Usd,
    pub storage_amount_usd: Usd,
    pub amount_usd: Usd,
    pub advance_applied_usd: Usd,
    pub status: ChargeStatus,
    #[serde(default, skip_serializing_if = "Option::is_none", deserialize_with = "timestamp::optional")]
    pub due_at: Option<Timestamp>,
    #[serde(default, skip_serializing_if = "Option::is_none", deserialize_with = "timestamp::optional")]
    pub paid_at: Option<Timestamp>,
}

/// The invoice a reservation starts with: the advance plus period 1.
#[derive(Clone, Debug, PartialEq, Deserialize, Serialize)]
pub struct FirstInvoice {
    pub amount_usd: Usd,
    #[serde(default, skip_serializing_if = "Option::is_none", deserialize_with = "timestamp::optional")]
    pub due_at: Option<Timestamp>,
    #[serde(default, skip_serializing_if = "Option::is_none", deserialize_with = "timestamp::optional")]
    pub paid_at: Option<Timestamp>,
    /// False while the invoice is still being created.
    pub issued: bool,
}

/// `GET /gpu-reservations/{id}/nodes`, read live from the region. Decoded node by node: a
/// node whose own counts or one of whose workloads' counts are absurd (past ±`MAX_COUNT`,
/// not whole, a workload with more GPUs than its node) is set apart in `unreadable_nodes`,
/// flagged and counted unknown, so that its neighbours still show.
#[derive(Clone, Debug, Default, PartialEq, Deserialize, Serialize)]
#[serde(from = "WireNodes")]
pub struct NodesResponse {
    pub nodes: Vec<Node>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub unreadable_nodes: Vec<UnreadableNode>,
    /// True when the region could not be reached: no workloads and no GPUs in use are sent,
    /// which means "unknown", never "idle".
    pub workloads_unknown: bool,
}

/// A node of a `/nodes` answer whose figures could not be read.
#[derive(Clone, Debug, PartialEq, Deserialize, Serialize)]
pub struct UnreadableNode {
    pub display_name: String,
    pub state: NodeState,
    /// Its GPUs, when that count itself was readable: counted unknown.
    #[serde(default, skip_serializing_if = "Option::is_none", deserialize_with = "super::limits::optional_count")]
    pub gpus: Option<i64>,
    /// Which figure was absurd, in words.
    pub why: String,
}

/// The answer as sent: each node read on its own ([`NodeEntry`]).
#[derive(Deserialize)]
struct WireNodes {
    #[serde(deserialize_with = "super::limits::nodes")]
    nodes: Vec<NodeEntry>,
    /// Nodes an earlier decode set apart (an answer serialized and read back).
    #[serde(default, deserialize_with = "null_as_default")]
    unreadable_nodes: Vec<UnreadableNode>,
    #[serde(default, deserialize_with = "null_as_default")]
    workloads_unknown: bool,
}

impl From<WireNodes> for NodesResponse {
    fn from(wire: WireNodes) -> Self {
        NodesResponse::placed(wire.unreadable_nodes, wire.nodes, wire.workloads_unknown).0
    }
}

/// The text a `/nodes` answer was read from, and where each node sent in it went. Kept
/// with the answer so that the next one is read faster: a poll changes few nodes, and a
/// node sent exactly as before is taken from the answer before instead of being read again
/// (a node's reading depends on its own text alone). Reading a 10,000-node answer was most
/// of a poll's time; a poll that changes 100 of them now reads 100.
#[derive(Debug)]
pub struct NodesText {
    text: String,
    /// Where each node sent went, in the order sent.
    placed: Vec<Placed>,
    /// Each node's bytes in `text`: found when the next answer is read (a first answer is
    /// read whole, which is faster, and the page shows it sooner).
    spans: std::cell::OnceCell<Vec<std::ops::Range<usize>>>,
    /// How many nodes of this answer were read anew, not taken from the one before.
    read_anew: usize,
}

/// An answer and the text it was read from: where the next read of the same nodes starts.
pub type NodesKept = (std::sync::Arc<NodesResponse>, std::rc::Rc<NodesText>);

/// Where a node's reading went: `nodes[i]`, or `unreadable_nodes[i]`.
#[derive(Clone, Copy, Debug)]
enum Placed {
    Read(usize),
    SetApart(usize),
}

/// The answer with each node's text left unread.
#[derive(Deserialize)]
struct RawNodes<'a> {
    #[serde(borrow, deserialize_with = "super::limits::nodes")]
    nodes: Vec<&'a serde_json::value::RawValue>,
    #[serde(default, deserialize_with = "null_as_default")]
    unreadable_nodes: Vec<UnreadableNode>,
    #[serde(default, deserialize_with = "null_as_default")]
    workloads_unknown: bool,
}

/// Each node's bytes in `text`, a `/nodes` answer already read once.
fn spans_in(text: &str) -> Vec<std::ops::Range<usize>> {
    let raw: Option<RawNodes> = serde_json::from_str(text).ok();
    raw.map_or_else(Vec::new, |raw| raw.nodes.iter().map(|node| span_of(node.get(), text)).collect())
}

/// Where `part`, a slice of `text`, lies in it.
fn span_of(part: &str, text: &str) -> std::ops::Range<usize> {
    let at = part.as_ptr() as usize - text.as_ptr() as usize;
    at..at + part.len()
}

impl NodesText {
    /// How many nodes of the answer were read anew, not taken from the one before.
    pub fn read_anew(&self) -> usize {
        self.read_anew
    }

    /// The node at `index` as `before` read it, if it was sent there in the very same text.
    fn same_as_before(&self, index: usize, text: &str, before: &NodesResponse) -> Option<NodeEntry> {
        let span = self.spans.get_or_init(|| spans_in(&self.text)).get(index)?;
        if self.text.get(span.clone())? != text {
            return None;
        }
        Some(NodeEntry(match *self.placed.get(index)? {
            Placed::Read(i) => Ok(before.nodes.get(i)?.clone()),
            Placed::SetApart(i) => Err(before.unreadable_nodes.get(i)?.clone()),
        }))
    }
}

impl NodesResponse {
    /// Reads an answer's `text`, taking each node sent exactly as in `before` (an answer
    /// and the text it was read from) from it. The result is the answer the text holds,
    /// whatever `before` is; an error is the one reading it whole gives, with the text.
    pub fn read_after(
        text: String,
        before: Option<(&NodesResponse, &NodesText)>,
    ) -> Result<(NodesResponse, NodesText), (serde_json::Error, String)> {
        let Some((answer, was)) = before else { return Self::read_whole(text) };
        let raw: RawNodes = match serde_json::from_str(&text) {
            Ok(raw) => raw,
            Err(e) => return Err((e, text)),
        };
        let sent_nodes = raw.nodes.len();
        let (mut entries, mut spans, mut read_anew) =
            (Vec::with_capacity(sent_nodes), Vec::with_capacity(sent_nodes), 0);
        for (index, node) in raw.nodes.iter().enumerate() {
            let sent = node.get();
            let entry = match was.same_as_before(index, sent, answer) {
                Some(entry) => entry,
                None => match serde_json::from_str::<NodeEntry>(sent) {
                    Ok(entry) => {
                        read_anew += 1;
                        entry
                    }
                    // Read whole, for the error's line and column in the answer.
                    Err(_) => break,
                },
            };
            entries.push(entry);
            spans.push(span_of(sent, &text));
        }
        if entries.len() < sent_nodes {
            return Self::read_whole(text);
        }
        let (response, placed) = Self::placed(raw.unreadable_nodes, entries, raw.workloads_unknown);
        Ok((response, NodesText { text, placed, spans: spans.into(), read_anew }))
    }

    /// Reads `text` whole: the first answer, or one with a node that cannot be read.
    fn read_whole(text: String) -> Result<(NodesResponse, NodesText), (serde_json::Error, String)> {
        match serde_json::from_str::<WireNodes>(&text) {
            Ok(wire) => {
                let read_anew = wire.nodes.len();
                let (response, placed) = Self::placed(wire.unreadable_nodes, wire.nodes, wire.workloads_unknown);
                Ok((response, NodesText { text, placed, spans: std::cell::OnceCell::new(), read_anew }))
            }
            Err(e) => Err((e, text)),
        }
    }

    /// The answer of the nodes read, in the order sent, and where each went: after the
    /// nodes an earlier decode set apart, those set apart now.
    fn placed(set_apart: Vec<UnreadableNode>, entries: Vec<NodeEntry>, workloads_unknown: bool) -> (Self, Vec<Placed>) {
        let mut response =
            NodesResponse { nodes: Vec::with_capacity(entries.len()), unreadable_nodes: set_apart, workloads_unknown };
        let placed = entries
            .into_iter()
            .map(|NodeEntry(entry)| match entry {
                Ok(node) => {
                    response.nodes.push(node);
                    Placed::Read(response.nodes.len() - 1)
                }
                Err(unreadable) => {
                    response.unreadable_nodes.push(unreadable);
                    Placed::SetApart(response.unreadable_nodes.len() - 1)
                }
            })
            .collect();
        (response, placed)
    }
}

/// One node as sent: its own counts and its workloads' read leniently ([`Count`]), so that
/// an absurd one sets the node apart instead of failing the whole answer. Anything else
/// malformed still does.
#[derive(Deserialize)]
struct WireNode {
    display_name: String,
    state: NodeState,
    gpus: Count,
    #[serde(default)]
    gpus_in_use: Option<Count>,
    #[serde(default, deserialize_with = "super::limits::workloads")]
    workloads: Vec<WireWorkload>,
}

/// One workload as sent, its count read leniently.
#[derive(Deserialize)]
struct WireWorkload {
    kind: WorkloadKind,
    id: i64,
    name: String,
    gpus: Count,
    #[serde(default)]
    billing: Option<Billing>,
}

impl WireWorkload {
    /// The workload, or why its count is absurd: out of range, or more GPUs than its node
    /// has (`node_gpus`, when that count was readable), which no placement can be
    /// (**assumption**: the seeds say a cluster's replicas on one node are added up, so
    /// they too fit in the node). Named by id: the name is the API's text.
    fn read(self, node_gpus: Option<i64>) -> Result<Workload, String> {
        let gpus = self.gpus.value("gpus").and_then(|gpus| match node_gpus {
            Some(has) if has >= 0 && gpus > has => Err(format!("gpus: {gpus} on a node of {has}")),
            _ => Ok(gpus),
        });
        match gpus {
            Ok(gpus) => Ok(Workload { kind: self.kind, id: self.id, name: self.name, gpus, billing: self.billing }),
            Err(why) => Err(format!("workload #{} {why}", self.id)),
        }
    }
}

/// A node read, or set apart with why.
struct NodeEntry(Result<Node, UnreadableNode>);

impl<'de> Deserialize<'de> for NodeEntry {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let w = WireNode::deserialize(deserializer)?;
        let gpus = w.gpus.value("gpus");
        let in_use = w.gpus_in_use.map(|c| c.value("gpus_in_use")).transpose();
        let (mut workloads, mut absurd) = (Vec::with_capacity(w.workloads.len()), Vec::new());
        for workload in w.workloads {
            match workload.read(gpus.as_ref().ok().copied()) {
                Ok(workload) => workloads.push(workload),
                Err(why) => absurd.push(why),
            }
        }
        Ok(NodeEntry(match (gpus, in_use) {
            (Ok(gpus), Ok(gpus_in_use)) if absurd.is_empty() => {
                Ok(Node { display_name: w.display_name, state: w.state, gpus, gpus_in_use, workloads })
            }
            (gpus, in_use) => Err(UnreadableNode {
                display_name: w.display_name,
                state: w.state,
                gpus: gpus.as_ref().ok().copied(),
                why: [gpus.err(), in_use.err()].into_iter().flatten().chain(absurd).collect::<Vec<_>>().join("; "),
            }),
        }))
    }
}

/// A count of a node as sent: within ±`MAX_COUNT`, or why not.
enum Count {
    Sane(i64),
    Absurd(String),
}

impl Count {
    /// The count, or "`field`: why" when absurd.
    fn value(self, field: &str) -> Result<i64, String> {
        match self {
            Count::Sane(n) => Ok(n),
            Count::Absurd(why) => Err(format!("{field}: {why}")),
        }
    }
}

impl<'de> Deserialize<'de> for Count {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Lenient;
        impl serde::de::Visitor<'_> for Lenient {
            type Value = Count;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a count")
            }
            fn visit_i64<E>(self, v: i64) -> Result<Count, E> {
                Ok(Lenient::count(i128::from(v)))
            }
            fn visit_u64<E>(self, v: u64) -> Result<Count, E> {
                Ok(Lenient::count(i128::from(v)))
            }
            fn visit_f64<E>(self, v: f64) -> Result<Count, E> {
                Ok(Count::Absurd(format!("{v} is not a whole number")))
            }
        }
        impl Lenient {
            fn count(v: i128) -> Count {
                match super::limits::count_problem(v) {
                    None => Count::Sane(v as i64),
                    Some(why) => Count::Absurd(why),
                }
            }
        }
        deserializer.deserialize_any(Lenient)
    }
}

#[derive(Clone, Debug, PartialEq, Deserialize, Serialize)]
pub struct Node {
    pub display_name: String,
    pub state: NodeState,
    #[serde(deserialize_with = "super::limits::count")]
    pub gpus: i64,
    /// Omitted (or zero) while the region is unreachable.
    #[serde(default, skip_serializing_if = "Option::is_none", deserialize_with = "super::limits::optional_count")]
    pub gpus_in_use: Option<i64>,
    #[serde(default, deserialize_with = "super::limits::workloads")]
    pub workloads: Vec<Workload>,
}

/// A workload on a node. A cluster with several replicas on one node is listed once.
#[derive(Clone, Debug, PartialEq, Deserialize, Serialize)]
pub struct Workload {
    pub kind: WorkloadKind,
    /// The id the matching endpoint and console page use.
    pub id: i64,
    pub name: String,
    #[serde(deserialize_with = "super::limits::count")]
    pub gpus: i64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub billing: Option<Billing>,
}

/// **assumption** (CONTRACT.md): `POST /gpu-instances` launches on the reservation that
/// covers `region_id` and `gpu_type`.
#[derive(Clone, Debug, PartialEq, Deserialize, Serialize)]
pub struct LaunchRequest {
    pub region_id: String,
    pub gpu_type: String,
    pub gpus: i64,
    pub name: String,
    /// Sent only when the user asks for it; reserved capacity answers 409.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub interruptible: Option<bool>,
}

/// `201` answer of a launch.
#[derive(Clone, Debug, PartialEq, Deserialize, Serialize)]
pub struct LaunchedInstance {
    pub id: i64,
    pub name: String,
    pub gpus: i64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub billing: Option<Billing>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rate_usd_per_hour: Option<Usd>,
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    pub(crate) const SEED_LIST: &str = r#"[{
        "id": 12, "status": "active", "region_id": "atl",
        "gpu_type": "NVIDIA-RTX-PRO-6000-Blackwell-Server-Edition",
        "node_count": 4, "gpus_per_node": 8, "reserved_gpus": 32, "term_months": 12,
        "billing_period": "monthly", "starts_at": "2026-11-01T00:00:00Z",
        "ends_at": "2027-11-01T00:00:00Z", "drive_quota_gib": 5000, "fs_quota_gib": 20000,
        "contract_ref": "MSA-2026-014"
    }]"#;

    /// Seed 004's detail as the owner reads it, December 2026 its first charge, and its
    /// nodes example: files shared with the page tests.
    pub(crate) const SEED_DETAIL: &str = include_str!("../../fixtures/seed_004_detail.json");

    pub(crate) const SEED_NODES: &str = include_str!("../../fixtures/seed_004_nodes.json");

    /// A node as the API sends it, with its workloads' GPU counts.
    fn node(name: &str, gpus: i64, workloads: &[i64]) -> String {
        let workloads: Vec<String> = workloads
            .iter()
            .enumerate()
            .map(|(i, gpus)| format!(r#"{{"kind":"gpu_instance","id":{i},"name":"w{i}","gpus":{gpus}}}"#))
            .collect();
        format!(r#"{{"display_name":"{name}","state":"ready","gpus":{gpus},"workloads":[{}]}}"#, workloads.join(","))
    }

    fn answer(nodes: &[String], unknown: bool) -> String {
        format!(r#"{{"nodes":[{}],"workloads_unknown":{unknown}}}"#, nodes.join(","))
    }

    #[test]
    fn an_answer_read_after_another_is_what_its_text_holds_and_only_its_changed_nodes_are_read() {
        let (a, b, c, d) = (node("a", 8, &[4]), node("b", 8, &[2, 2]), node("c", 8, &[9]), node("d", 8, &[]));
        let answers = [
            // "c" has a workload larger than its node: set apart.
            (answer(&[a.clone(), b.clone(), c.clone(), d.clone()], false), 4),
            // One workload of "b" moved.
            (answer(&[a.clone(), node("b", 8, &[2]), c.clone(), d.clone()], false), 1),
            // "c" readable again, and "d" gone.
            (answer(&[a.clone(), node("b", 8, &[2]), node("c", 8, &[1])], false), 1),
            // A node first: every other node is at another place, so read again.
            (answer(&[d.clone(), a.clone(), node("b", 8, &[2]), node("c", 8, &[1])], false), 4),
            // The region unreachable: the same nodes without workloads.
            (answer(&[node("d", 8, &[]), node("a", 8, &[]), node("b", 8, &[]), node("c", 8, &[])], true), 3),
            // Nothing changed.
            (answer(&[node("d", 8, &[]), node("a", 8, &[]), node("b", 8, &[]), node("c", 8, &[])], true), 0),
        ];
        let mut before: Option<(NodesResponse, NodesText)> = None;
        for (text, read_anew) in answers {
            let whole: NodesResponse = serde_json::from_str(&text).unwrap();
            let (read, kept) = NodesResponse::read_after(text.clone(), before.as_ref().map(|(r, t)| (r, t))).unwrap();
            assert_eq!(read, whole, "{text}");
            assert_eq!(kept.read_anew(), read_anew, "{text}");
            before = Some((read, kept));
        }
        let (last, _) = before.unwrap();
        assert!(last.workloads_unknown && last.nodes.iter().all(|n| n.workloads.is_empty()));
    }

    #[test]
    fn a_node_that_cannot_be_read_fails_the_answer_with_the_error_of_reading_it_whole() {
        let good = answer(&[node("a", 8, &[4]), node("b", 8, &[])], false);
        let before = NodesResponse::read_after(good, None).unwrap();
        let bad = answer(&[node("a", 8, &[4]), r#"{"display_name":7,"state":"ready","gpus":8}"#.to_owned()], false);
        let whole = serde_json::from_str::<NodesResponse>(&bad).unwrap_err().to_string();
        let (error, text) = NodesResponse::read_after(bad.clone(), Some((&before.0, &before.1))).unwrap_err();
        assert_eq!(error.to_string(), whole);
        assert!(whole.contains("line 1 column"), "{whole}");
        assert_eq!(text, bad, "the text comes back for the error's excerpt");
    }

    #[test]
    fn decodes_the_seed_list_example() {
        let list: Vec<Reservation> = serde_json::from_str(SEED_LIST).unwrap();
        let r = &list[0];
        assert_eq!((r.id, r.node_count, r.gpus_per_node, r.reserved_gpus), (12, 4, 8, 32));
        assert_eq!(r.status, ReservationStatus::Active);
        assert_eq!(r.billing_period, BillingPeriod::Monthly);
        assert_eq!(r.contract_ref.as_deref(), Some("MSA-2026-014"));
        assert_eq!(r.starts_at.unwrap().to_rfc3339(), "2026-11-01T00:00:00+00:00");
        assert!(r.past_due_since.is_none() && r.stops_at.is_none() && r.ended_at.is_none());
    }

    #[test]
    fn decodes_the_seed_detail_example_as_owner() {
        let d: ReservationDetail = serde_json::from_str(SEED_DETAIL).unwrap();
        assert_eq!(d.reservation.id, 12);
        assert_eq!(d.storage.fs_used_gib, 8000.0);
        assert_eq!(d.amendments[0].node_count_after, 6);
        assert_eq!(d.amendments[0].rate_usd_per_gpu_hour_after, Some(Usd::from_cents(125)));
        let p = d.payment.as_ref().unwrap();
        assert_eq!(p.funding, Funding::Invoice);
        assert_eq!(p.advance_usd, Usd::from_cents(2_920_000));
        let next = p.next_charge.as_ref().unwrap();
        assert_eq!(next.gpu_amount_usd, Usd::from_cents(2_976_000));
        assert_eq!(next.status, ChargeStatus::Scheduled);
        assert!(next.due_at.is_none() && next.paid_at.is_none());
    }

    #[test]
    fn member_detail_has_no_payment_and_amendments_without_rates() {
        let mut v: serde_json::Value = serde_json::from_str(SEED_DETAIL).unwrap();
        v.as_object_mut().unwrap().remove("payment");
        let a = v["amendments"][0].as_object_mut().unwrap();
        a.remove("rate_usd_per_gpu_hour_before");
        a.remove("rate_usd_per_gpu_hour_after");
        let d: ReservationDetail = serde_json::from_value(v).unwrap();
        assert!(d.payment.is_none());
        assert!(d.amendments[0].rate_usd_per_gpu_hour_before.is_none());
    }

    #[test]
    fn awaiting_payment_has_null_term_dates_and_a_first_invoice_in_either_place() {
        let mut v: serde_json::Value = serde_json::from_str(SEED_DETAIL).unwrap();
        v["status"] = "awaiting_payment".into();
        v["starts_at"] = serde_json::Value::Null;
        v["ends_at"] = serde_json::Value::Null;
        let invoice = serde_json::json!({ "amount_usd": 2.34, "due_at": "2026-12-05T00:00:00Z", "issued": false });
        v["payment"]["first_invoice"] = invoice.clone();
        let d: ReservationDetail = serde_json::from_value(v.clone()).unwrap();
        assert!(d.reservation.starts_at.is_none() && d.reservation.ends_at.is_none());
        assert_eq!(d.first_invoice().unwrap().amount_usd, Usd::from_cents(234));
        assert!(!d.first_invoice().unwrap().issued);

        v["payment"].as_object_mut().unwrap().remove("first_invoice");
        v["first_invoice"] = invoice;
        let d: ReservationDetail = serde_json::from_value(v).unwrap();
        assert!(d.first_invoice().unwrap().paid_at.is_none());
    }

    #[test]
    fn decodes_the_seed_nodes_example() {
        let n: NodesResponse = serde_json::from_str(SEED_NODES).unwrap();
        assert!(!n.workloads_unknown);
        assert_eq!(n.nodes[0].workloads[0].kind, WorkloadKind::GpuCluster);
        assert_eq!(n.nodes[0].gpus_in_use, Some(6));
        assert_eq!(n.nodes[1].state, NodeState::UnderMaintenance);
        assert!(n.nodes[0].workloads[0].billing.is_none());
    }

    #[test]
    fn unreachable_region_may_omit_gpus_in_use_and_workloads() {
        let n: NodesResponse = serde_json::from_str(
            r#"{"nodes":[{"display_name":"n","state":"ready","gpus":8}],"workloads_unknown":true}"#,
        )
        .unwrap();
        assert!(n.workloads_unknown);
        assert_eq!(n.nodes[0].gpus_in_use, None);
        assert!(n.nodes[0].workloads.is_empty());
    }

    #[test]
    fn unknown_enum_values_and_unknown_fields_do_not_fail_the_decode() {
        let n: NodesResponse = serde_json::from_str(
            r#"{"nodes":[{"display_name":"n","state":"hibernating","gpus":8,"gpus_in_use":8,"rack":"r7",
                "workloads":[{"kind":"batch_job","id":1,"name":"x","gpus":8,"billing":"committed"}]}]}"#,
        )
        .unwrap();
        assert_eq!(n.nodes[0].state, NodeState::Unknown("hibernating".into()));
        assert_eq!(n.nodes[0].workloads[0].kind, WorkloadKind::Unknown("batch_job".into()));
        assert_eq!(n.nodes[0].workloads[0].billing, Some(Billing::Unknown("committed".into())));
    }

    #[test]
    fn a_field_of_the_wrong_type_is_a_decode_error_not_a_guess() {
        assert!(serde_json::from_str::<NodesResponse>(
            r#"{"nodes":[{"display_name":"n","state":"ready","gpus":"8"}]}"#
        )
        .is_err());
    }

    #[test]
    fn launch_request_omits_interruptible_unless_asked() {
        let mut req = LaunchRequest {
            region_id: "atl".into(),
            gpu_type: "B200".into(),
            gpus: 2,
            name: "nb".into(),
            interruptible: None,
        };
        assert!(!serde_json::to_string(&req).unwrap().contains("interruptible"));
        req.interruptible = Some(true);
        assert!(serde_json::to_string(&req).unwrap().contains(r#""interruptible":true"#));
    }
}
