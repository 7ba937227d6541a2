//! Units per org (seed 000): granted to each audience org, released to the spot market
//! (still the reservation's, reclaimable), withheld by reservations that need review.

use crate::api::assumptions::reclaim_allowed;
use crate::api::enums::OrgReservationStatus;
use crate::api::org::OrgReservation;
use std::collections::{BTreeMap, BTreeSet};

/// Unit counts for one org. `released ⊆ granted`: released units stay granted.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct OrgCapacity {
    /// Units of active reservations whose audience includes the org.
    pub granted: usize,
    /// Of those, the units on the spot market: sellable to anyone at tier=spot, and
    /// reclaimable at any time by a managing org.
    pub released: usize,
    /// Units of needs-review reservations with the org in the audience: granted to nobody
    /// until an operator re-affirms them.
    pub withheld: usize,
    /// Units of pending reservations: granted once they start.
    pub pending: usize,
}

impl OrgCapacity {
    /// Granted units not on the spot market: where the org's own workloads can go now.
    pub fn in_hand(&self) -> usize {
        self.granted - self.released
    }
}

/// Per audience org id. Units are counted once per reservation even if an id repeats;
/// released ids that are not among the reserved ones are not counted (see
/// [`inconsistencies`]).
pub fn org_capacity(reservations: &[OrgReservation]) -> BTreeMap<String, OrgCapacity> {
    let mut per_org: BTreeMap<String, OrgCapacity> = BTreeMap::new();
    for r in reservations {
        let reserved: BTreeSet<&str> = r.reserved_unit_ids.iter().map(String::as_str).collect();
        let released = r
            .released_unit_ids
            .iter()
            .map(String::as_str)
            .filter(|u| reserved.contains(u))
            .collect::<BTreeSet<_>>()
            .len();
        let audience: BTreeSet<&str> = r.allowed_org_ids.iter().map(String::as_str).collect();
        for org in audience {
            let c = per_org.entry(org.to_owned()).or_default();
            match r.status {
                OrgReservationStatus::Active => {
                    c.granted += reserved.len();
                    c.released += released;
                }
                OrgReservationStatus::NeedsReview => c.withheld += reserved.len(),
                OrgReservationStatus::Pending => c.pending += reserved.len(),
                // Expired, cancelled and unknown statuses grant nothing the console can vouch for.
                _ => {}
            }
        }
    }
    per_org
}

/// Whether `org_id` may release and reclaim this reservation's units: only a managing
/// org; being in the audience does not confer it.
pub fn can_manage(r: &OrgReservation, org_id: &str) -> bool {
    r.managing_org_ids.iter().any(|m| m == org_id)
}

/// Units released to the spot market that can be reclaimed now by `org_id`.
pub fn reclaimable<'a>(r: &'a OrgReservation, org_id: &str) -> Vec<&'a str> {
    if !can_manage(r, org_id) || !reclaim_allowed(&r.status) {
        return Vec::new();
    }
    r.released_unit_ids.iter().map(String::as_str).filter(|u| r.reserved_unit_ids.iter().any(|x| x == u)).collect()
}

/// What does not add up in a reservation's unit lists and dates, in plain words.
pub fn inconsistencies(r: &OrgReservation) -> Vec<String> {
    let mut out = Vec::new();
    if r.ends_at.is_some_and(|end| end < r.starts_at) {
        out.push("It is reported to end before it starts.".to_owned());
    }
    let stray: Vec<&str> = r
        .released_unit_ids
        .iter()
        .map(String::as_str)
        .filter(|u| !r.reserved_unit_ids.iter().any(|x| x == u))
        .collect();
    if !stray.is_empty() {
        out.push(format!("Released units not among the reserved ones: {}.", stray.join(", ")));
    }
    let unique: BTreeSet<&String> = r.reserved_unit_ids.iter().collect();
    if unique.len() != r.reserved_unit_ids.len() {
        out.push("A reserved unit is listed more than once.".to_owned());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn reservation(
        id: &str,
        status: &str,
        reserved: &[&str],
        released: &[&str],
        audience: &[&str],
        managing: &[&str],
    ) -> OrgReservation {
        serde_json::from_value(json!({
            "id": id, "status": status, "nodeId": "node-a", "reservedUnitIds": reserved,
            "releasedUnitIds": released, "allowedOrgIds": audience, "managingOrgIds": managing,
            "startsAt": "2026-11-01T00:00:00Z"
        }))
        .unwrap()
    }

    #[test]
    fn active_units_are_granted_to_each_audience_org_and_released_ones_stay_granted() {
        let rs = [
            reservation("r1", "active", &["u1", "u2", "u3", "u4"], &["u4"], &["org_acme", "org_beta"], &["org_ops"]),
            reservation("r2", "active", &["u5", "u6"], &[], &["org_acme"], &[]),
        ];
        let per_org = org_capacity(&rs);
        let acme = per_org["org_acme"];
        assert_eq!(acme, OrgCapacity { granted: 6, released: 1, withheld: 0, pending: 0 });
        assert_eq!(acme.in_hand(), 5);
        assert_eq!(per_org["org_beta"], OrgCapacity { granted: 4, released: 1, withheld: 0, pending: 0 });
        assert!(!per_org.contains_key("org_ops"), "managing does not confer the audience");
    }

    #[test]
    fn needs_review_grants_nothing_and_withholds_all_its_units() {
        let rs = [reservation("r1", "needs-review", &["u1", "u2"], &["u2"], &["org_acme"], &[])];
        assert_eq!(org_capacity(&rs)["org_acme"], OrgCapacity { granted: 0, released: 0, withheld: 2, pending: 0 });
    }

    #[test]
    fn pending_is_counted_apart_and_ended_or_unknown_grant_nothing() {
        let rs = [
            reservation("r1", "pending", &["u1"], &[], &["org_acme"], &[]),
            reservation("r2", "expired", &["u2"], &[], &["org_acme"], &[]),
            reservation("r3", "cancelled", &["u3"], &[], &["org_acme"], &[]),
            reservation("r4", "paused", &["u4"], &[], &["org_acme"], &[]),
        ];
        assert_eq!(org_capacity(&rs)["org_acme"], OrgCapacity { granted: 0, released: 0, withheld: 0, pending: 1 });
    }

    #[test]
    fn repeated_and_stray_ids_are_not_counted_but_flagged() {
        let r = reservation("r1", "active", &["u1", "u1", "u2"], &["u2", "u9"], &["org_acme", "org_acme"], &[]);
        assert_eq!(
            org_capacity(std::slice::from_ref(&r))["org_acme"],
            OrgCapacity { granted: 2, released: 1, withheld: 0, pending: 0 }
        );
        assert_eq!(
            inconsistencies(&r),
            ["Released units not among the reserved ones: u9.", "A reserved unit is listed more than once."]
        );
    }

    #[test]
    fn only_a_managing_org_can_reclaim_released_units() {
        let r = reservation("r1", "active", &["u1", "u2"], &["u2"], &["org_acme"], &["org_ops"]);
        assert!(can_manage(&r, "org_ops") && !can_manage(&r, "org_acme"));
        assert_eq!(reclaimable(&r, "org_ops"), ["u2"]);
        assert!(reclaimable(&r, "org_acme").is_empty());
        let review = reservation("r2", "needs-review", &["u1"], &["u1"], &["org_acme"], &["org_ops"]);
        assert!(reclaimable(&review, "org_ops").is_empty());
    }
}
