//! How much of an answer the console reads: a server gone wild (or hostile) must not make
//! the tab decode without end or run out of memory. Past a limit the answer is refused with
//! an explained decode error, so the page keeps its last good data, marked stale.
//! The sizes are assumptions, in [`super::assumptions`].

pub use super::assumptions::{
    MAX_AMENDMENTS, MAX_BODY_BYTES, MAX_CHARGES, MAX_COUNT, MAX_NODES, MAX_WORKLOADS_PER_NODE,
};
use super::money::group_thousands;
use serde::de::{self, Deserializer, SeqAccess, Visitor};
use serde::Deserialize;
use std::fmt;
use std::marker::PhantomData;

/// Why an answer of `len` bytes is not read, or `None` when it may be.
pub fn body_too_large(len: usize) -> Option<String> {
    (len > MAX_BODY_BYTES).then(|| {
        format!(
            "The answer is {:.1} MiB, more than the {} MiB the console reads; it was not decoded.",
            len as f64 / (1024.0 * 1024.0),
            MAX_BODY_BYTES / (1024 * 1024)
        )
    })
}

/// A count (nodes, GPUs, months) within ±[`MAX_COUNT`], or an "out of range" decode error.
pub(crate) fn count<'de, D: Deserializer<'de>>(deserializer: D) -> Result<i64, D::Error> {
    let value = i64::deserialize(deserializer)?;
    match count_problem(i128::from(value)) {
        Some(why) => Err(de::Error::custom(why)),
        None => Ok(value),
    }
}

/// Why `value` is not a count the console reads (past ±[`MAX_COUNT`]), `None` when it is.
pub(crate) fn count_problem(value: i128) -> Option<String> {
    (value.unsigned_abs() > MAX_COUNT.unsigned_abs().into()).then(|| {
        format!(
            "the count {}{} is out of range (the console reads counts up to {})",
            if value < 0 { "−" } else { "" },
            group_thousands(value.unsigned_abs()),
            group_thousands(MAX_COUNT.unsigned_abs().into())
        )
    })
}

/// [`count`] for a field the API may omit or null.
pub(crate) fn optional_count<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<i64>, D::Error> {
    #[derive(Deserialize)]
    struct Counted(#[serde(deserialize_with = "count")] i64);
    Ok(Option::<Counted>::deserialize(deserializer)?.map(|Counted(n)| n))
}

/// Why an answer that went on past [`MAX_BODY_BYTES`] as it arrived (no length declared) was
/// not read.
pub fn body_past_limit() -> String {
    format!(
        "The answer goes on past the {} MiB the console reads; reading stopped there and it was not decoded.",
        MAX_BODY_BYTES / (1024 * 1024)
    )
}

/// A JSON list of at most `max` items, refused as soon as it has one more (so a huge list
/// is not built first). With `null_ok`, `null` reads as the empty list.
struct AtMost<T> {
    max: usize,
    what: &'static str,
    null_ok: bool,
    item: PhantomData<T>,
}

impl<'de, T: Deserialize<'de>> Visitor<'de> for AtMost<T> {
    type Value = Vec<T>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "a list of {}", self.what)
    }

    fn visit_unit<E: de::Error>(self) -> Result<Vec<T>, E> {
        if self.null_ok {
            Ok(Vec::new())
        } else {
            Err(E::invalid_type(de::Unexpected::Unit, &self))
        }
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Vec<T>, A::Error> {
        let mut items = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(self.max).min(1024));
        while let Some(item) = seq.next_element()? {
            if items.len() == self.max {
                return Err(de::Error::custom(format!(
                    "more than {} {}, the most the console reads",
                    group_thousands(self.max as u128),
                    self.what
                )));
            }
            items.push(item);
        }
        Ok(items)
    }
}

fn at_most<'de, D: Deserializer<'de>, T: Deserialize<'de>>(
    deserializer: D,
    max: usize,
    what: &'static str,
    null_ok: bool,
) -> Result<Vec<T>, D::Error> {
    deserializer.deserialize_any(AtMost { max, what, null_ok, item: PhantomData })
}

/// `nodes` of a `/nodes` answer (required, not `null`), each read as `T`.
pub(crate) fn nodes<'de, D: Deserializer<'de>, T: Deserialize<'de>>(deserializer: D) -> Result<Vec<T>, D::Error> {
    at_most(deserializer, MAX_NODES, "nodes", false)
}

/// `workloads` of a node, each read as `T`; `null` means none.
pub(crate) fn workloads<'de, D: Deserializer<'de>, T: Deserialize<'de>>(deserializer: D) -> Result<Vec<T>, D::Error> {
    at_most(deserializer, MAX_WORKLOADS_PER_NODE, "workloads on one node", true)
}

/// `charges` of a payment, each read as `T`; `null` means none.
pub(crate) fn charges<'de, D: Deserializer<'de>, T: Deserialize<'de>>(deserializer: D) -> Result<Vec<T>, D::Error> {
    at_most(deserializer, MAX_CHARGES, "charges", true)
}

/// `amendments` of a detail, each read as `T`; `null` means none.
pub(crate) fn amendments<'de, D: Deserializer<'de>, T: Deserialize<'de>>(deserializer: D) -> Result<Vec<T>, D::Error> {
    at_most(deserializer, MAX_AMENDMENTS, "amendments", true)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::client::decode;
    use crate::api::error::ResponseHeaders;
    use crate::api::models::{NodesResponse, ReservationDetail};

    fn now() -> chrono::DateTime<chrono::Utc> {
        "2026-12-17T10:00:00Z".parse().unwrap()
    }

    fn node_json(workloads: usize) -> String {
        let workload = r#"{"kind":"gpu_instance","id":1,"name":"w","gpus":0}"#;
        let list = vec![workload; workloads].join(",");
        format!(r#"{{"display_name":"n","state":"ready","gpus":8,"workloads":[{list}]}}"#)
    }

    fn read_nodes(nodes: usize, workloads: usize) -> Result<NodesResponse, String> {
        let node = node_json(workloads);
        let body = format!(r#"{{"nodes":[{}]}}"#, vec![node.as_str(); nodes].join(","));
        decode::<NodesResponse>(200, &ResponseHeaders::default(), &body, now()).map_err(|e| e.to_string())
    }

    #[test]
    fn lists_at_their_limit_are_read_and_one_more_is_an_explained_error() {
        assert_eq!(read_nodes(MAX_NODES, 0).unwrap().nodes.len(), MAX_NODES);
        let error = read_nodes(MAX_NODES + 1, 0).unwrap_err();
        assert!(error.contains("more than 100,000 nodes, the most the console reads"), "{error}");
        assert_eq!(read_nodes(1, MAX_WORKLOADS_PER_NODE).unwrap().nodes[0].workloads.len(), MAX_WORKLOADS_PER_NODE);
        let error = read_nodes(1, MAX_WORKLOADS_PER_NODE + 1).unwrap_err();
        assert!(error.contains("more than 10,000 workloads on one node"), "{error}");
    }

    #[test]
    fn more_than_a_thousand_amendments_is_an_explained_error() {
        let mut detail: serde_json::Value =
            serde_json::from_str(include_str!("../../fixtures/seed_004_detail.json")).unwrap();
        let amendment = detail["amendments"][0].clone();
        detail["amendments"] = serde_json::Value::Array(vec![amendment.clone(); MAX_AMENDMENTS]);
        let read = decode::<ReservationDetail>(200, &ResponseHeaders::default(), &detail.to_string(), now()).unwrap();
        assert_eq!(read.amendments.len(), MAX_AMENDMENTS);
        detail["amendments"] = serde_json::Value::Array(vec![amendment; MAX_AMENDMENTS + 1]);
        let error =
            decode::<ReservationDetail>(200, &ResponseHeaders::default(), &detail.to_string(), now()).unwrap_err();
        assert!(error.to_string().contains("more than 1,000 amendments"), "{error}");
    }

    #[test]
    fn more_than_a_thousand_charges_is_an_explained_error() {
        let mut detail: serde_json::Value =
            serde_json::from_str(include_str!("../../fixtures/seed_004_detail.json")).unwrap();
        let charge = detail["payment"]["charges"][0].clone();
        detail["payment"]["charges"] = serde_json::Value::Array(vec![charge; MAX_CHARGES + 1]);
        let body = detail.to_string();
        let error = decode::<ReservationDetail>(200, &ResponseHeaders::default(), &body, now()).unwrap_err();
        assert!(error.to_string().contains("more than 1,000 charges"), "{error}");
    }

    #[test]
    fn a_body_over_32_mib_is_not_decoded() {
        let body = format!(r#"{{"nodes":[],"padding":"{}"}}"#, "x".repeat(MAX_BODY_BYTES));
        let error = decode::<NodesResponse>(200, &ResponseHeaders::default(), &body, now()).unwrap_err();
        assert!(error.to_string().contains("more than the 32 MiB the console reads"), "{error}");
    }

    #[test]
    fn a_count_past_a_billion_is_out_of_range_so_no_sum_of_counts_can_wrap() {
        let answer = |gpus: &str, in_use: &str| {
            let node = format!(r#"{{"display_name":"n","state":"ready","gpus":{gpus},"gpus_in_use":{in_use}}}"#);
            let body = format!(r#"{{"nodes":[{node},{node}]}}"#);
            decode::<NodesResponse>(200, &ResponseHeaders::default(), &body, now()).map_err(|e| e.to_string())
        };
        let read = answer("1000000000", "null").expect("a billion GPUs is read");
        assert_eq!((read.nodes[1].gpus, read.nodes[1].gpus_in_use), (1_000_000_000, None));
        // A node's own absurd count sets that node apart, with why; the answer still reads.
        let apart = answer("5000000000000000000", "0").unwrap();
        assert!(apart.nodes.is_empty());
        assert_eq!(apart.unreadable_nodes[0].gpus, None);
        assert!(apart.unreadable_nodes[0].why.contains("gpus: the count 5,000,000,000,000,000,000 is out of range"));
        let apart = answer("8", "-1000000001").unwrap();
        assert_eq!(apart.unreadable_nodes[1].gpus, Some(8));
        assert!(apart.unreadable_nodes[1].why.contains("gpus_in_use: the count −1,000,000,001 is out of range"));
    }

    #[test]
    fn a_node_with_an_absurd_workload_is_set_apart_and_its_neighbours_are_read() {
        // node-2's workload has an absurd count, node-3's more GPUs than the node.
        let body = include_str!("../../fixtures/nodes_absurd_workloads.json");
        let read =
            decode::<NodesResponse>(200, &ResponseHeaders::default(), body, now()).expect("the sane node is read");
        assert_eq!(read.nodes.iter().map(|n| n.display_name.as_str()).collect::<Vec<_>>(), ["node-1"]);
        let apart: Vec<(&str, Option<i64>, &str)> =
            read.unreadable_nodes.iter().map(|u| (u.display_name.as_str(), u.gpus, u.why.as_str())).collect();
        assert_eq!(
            apart,
            [
                (
                    "node-2",
                    Some(8),
                    "workload #8 gpus: the count 18,446,744,073,709,551,615 is out of range (the console reads counts up to 1,000,000,000)"
                ),
                ("node-3", Some(8), "workload #9 gpus: 16 on a node of 8"),
            ]
        );
    }

    #[test]
    fn a_node_with_an_absurd_count_is_set_apart_and_its_neighbours_are_read() {
        let body = r#"{"nodes":[
            {"display_name":"node-1","state":"ready","gpus":8,"gpus_in_use":6,"workloads":[]},
            {"display_name":"node-2","state":"ready","gpus":8,"gpus_in_use":18446744073709551615,"workloads":[]},
            {"display_name":"node-3","state":"ready","gpus":8.5,"gpus_in_use":0}
        ],"workloads_unknown":false}"#;
        let read =
            decode::<NodesResponse>(200, &ResponseHeaders::default(), body, now()).expect("the sane nodes are read");
        assert_eq!(read.nodes.iter().map(|n| n.display_name.as_str()).collect::<Vec<_>>(), ["node-1"]);
        let apart: Vec<(&str, Option<i64>)> =
            read.unreadable_nodes.iter().map(|u| (u.display_name.as_str(), u.gpus)).collect();
        assert_eq!(apart, [("node-2", Some(8)), ("node-3", None)]);
        assert_eq!(
            read.unreadable_nodes[0].why,
            "gpus_in_use: the count 18,446,744,073,709,551,615 is out of range (the console reads counts up to 1,000,000,000)"
        );
        assert_eq!(read.unreadable_nodes[1].why, "gpus: 8.5 is not a whole number");
        let again = serde_json::to_string(&read).unwrap();
        assert_eq!(decode::<NodesResponse>(200, &ResponseHeaders::default(), &again, now()).unwrap(), read);
    }
}
