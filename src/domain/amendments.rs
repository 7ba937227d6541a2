//! An amendment as a list of readable before → after changes.

use super::money::{group_thousands, Usd};
use crate::api::models::{Amendment, Timestamp};

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Difference {
    pub label: String,
    pub before: String,
    pub after: String,
}

/// Only the fields that change; the rate only where the API sends it (owners).
pub fn differences(a: &Amendment) -> Vec<Difference> {
    let mut out = Vec::new();
    let mut push = |label: &str, before: String, after: String| {
        if before != after {
            out.push(Difference { label: label.to_owned(), before, after });
        }
    };
    let nodes = |n: i64| format!("{n} node{}", if n == 1 { "" } else { "s" });
    push("Nodes", nodes(a.node_count_before), nodes(a.node_count_after));
    push("Cloud drive", gib(a.drive_quota_gib_before), gib(a.drive_quota_gib_after));
    push("Shared filesystem", gib(a.fs_quota_gib_before), gib(a.fs_quota_gib_after));
    if let (Some(before), Some(after)) = (a.rate_usd_per_gpu_hour_before, a.rate_usd_per_gpu_hour_after) {
        push("Rate", rate(before), rate(after));
    }
    out
}

fn rate(r: Usd) -> String {
    format!("{r}/GPU-hour")
}

/// `20,000 GiB`, `0.5 GiB`.
pub fn gib(v: f64) -> String {
    if v.fract() == 0.0 && v.abs() < 1e15 {
        let whole = v.abs() as u128;
        format!("{}{} GiB", if v < 0.0 { "-" } else { "" }, group_thousands(whole))
    } else {
        format!("{v} GiB")
    }
}

/// Not in force yet at `now`.
pub fn is_future(a: &Amendment, now: Timestamp) -> bool {
    a.effective_at > now
}
