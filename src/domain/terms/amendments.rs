//! An amendment as a list of readable before → after changes, and the GPUs a term reserves
//! at a time once its amendments are counted.

use crate::api::assumptions::reserved_gpus_over_term;
use crate::api::models::{Amendment, Reservation, Storage, Timestamp};
use crate::api::money::{group_thousands, Usd};

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
    let nodes = |n: i64| crate::domain::words::count(n, "node");
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

/// Where the list-level quotas (`drive_quota_gib`, `fs_quota_gib` of the reservation) and
/// the detail's `storage` quotas disagree, one line each with both values. Seed 004 gives
/// no rule for which wins (an amendment in force may explain it), so both are said.
pub fn quota_mismatches(r: &Reservation, storage: &Storage) -> Vec<String> {
    [
        ("cloud drive", r.drive_quota_gib, storage.drive_quota_gib),
        ("shared filesystem", r.fs_quota_gib, storage.fs_quota_gib),
    ]
    .into_iter()
    .filter(|(_, listed, in_storage)| listed != in_storage)
    .map(|(what, listed, in_storage)| {
        format!("The reservation lists {} of {what}, its storage {}.", gib(listed), gib(in_storage))
    })
    .collect()
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

/// Each reservation's amendments as far as they are read (from its detail): `None` for one
/// whose detail is not read, so whether an amendment changes its GPUs is not known.
pub type AmendmentsOf<'a> = &'a dyn Fn(i64) -> Option<&'a [Amendment]>;

/// The GPUs `r` reserves at `at`, by the amendment in force then: the latest of `amendments`
/// taking effect by `at` sets `node_count_after` × `gpus_per_node`; before any, the list's
/// `reserved_gpus` (the figure in force now, seed 004's list being read live). The one rule
/// by which the capacity timeline, its gaps and overlaps count an amendment.
pub fn gpus_at(r: &Reservation, amendments: &[Amendment], at: Timestamp) -> i64 {
    in_force(r, amendments, |effective| effective <= at)
}

/// The GPUs `r` reserves over the last moment before `end`: an amendment taking effect at
/// `end` itself changes nothing before it.
pub fn gpus_before(r: &Reservation, amendments: &[Amendment], end: Timestamp) -> i64 {
    in_force(r, amendments, |effective| effective < end)
}

fn in_force(r: &Reservation, amendments: &[Amendment], taken_effect: impl Fn(Timestamp) -> bool) -> i64 {
    amendments
        .iter()
        .filter(|a| taken_effect(a.effective_at))
        .max_by_key(|a| a.effective_at)
        .map_or(reserved_gpus_over_term(r.reserved_gpus), |a| a.node_count_after * r.gpus_per_node)
}

/// Not in force yet at `now`.
pub fn is_future(a: &Amendment, now: Timestamp) -> bool {
    a.effective_at > now
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn list_level_quotas_that_differ_from_the_storage_ones_are_said_with_both() {
        let d: crate::api::models::ReservationDetail =
            serde_json::from_str(include_str!("../../../fixtures/seed_004_detail.json")).unwrap();
        assert!(quota_mismatches(&d.reservation, &d.storage).is_empty(), "seed 004 agrees with itself");
        let storage = Storage { fs_quota_gib: 30000.0, ..d.storage.clone() };
        assert_eq!(
            quota_mismatches(&d.reservation, &storage),
            ["The reservation lists 20,000 GiB of shared filesystem, its storage 30,000 GiB."]
        );
    }
    use crate::domain::words::time::tests::at;

    /// Seed 004's amendment: 4 → 6 nodes and 20,000 → 30,000 GiB of filesystem.
    fn seed() -> Amendment {
        serde_json::from_str(
            r#"{"effective_at":"2027-02-01T00:00:00Z","node_count_before":4,"node_count_after":6,
                "drive_quota_gib_before":5000,"drive_quota_gib_after":5000,
                "fs_quota_gib_before":20000,"fs_quota_gib_after":30000,
                "rate_usd_per_gpu_hour_before":1.25,"rate_usd_per_gpu_hour_after":1.25}"#,
        )
        .unwrap()
    }

    fn diff(label: &str, before: &str, after: &str) -> Difference {
        Difference { label: label.into(), before: before.into(), after: after.into() }
    }

    #[test]
    fn only_changed_fields_are_listed() {
        assert_eq!(
            differences(&seed()),
            [diff("Nodes", "4 nodes", "6 nodes"), diff("Shared filesystem", "20,000 GiB", "30,000 GiB")]
        );
    }

    #[test]
    fn a_rate_change_is_listed_for_owners_only() {
        let mut a = seed();
        a.rate_usd_per_gpu_hour_after = Some(Usd::from_cents(110));
        assert_eq!(differences(&a).last(), Some(&diff("Rate", "$1.25/GPU-hour", "$1.10/GPU-hour")));
        a.rate_usd_per_gpu_hour_before = None;
        assert!(differences(&a).iter().all(|d| d.label != "Rate"));
    }

    #[test]
    fn quantities_read_naturally() {
        assert_eq!(gib(1.0), "1 GiB");
        assert_eq!(gib(0.5), "0.5 GiB");
        assert_eq!(gib(-2000.0), "-2,000 GiB");
        let mut a = seed();
        a.node_count_before = 1;
        assert_eq!(differences(&a)[0].before, "1 node");
    }

    #[test]
    fn future_until_it_takes_effect() {
        assert!(is_future(&seed(), at(2026, 12, 2, 0, 0)));
        assert!(!is_future(&seed(), at(2027, 2, 1, 0, 0)));
    }
}
