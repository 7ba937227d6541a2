//! Serde types of the org capacity API (seed 000): `GET /v1/orgs/{orgId}/reservations`
//! and the reclaim call (**assumption** of CONTRACT.md). The wire names are camelCase.

use super::enums::OrgReservationStatus;
use super::models::{null_as_default, Timestamp};
use super::timestamp;
use serde::{Deserialize, Serialize};

/// What GPU capacity is reserved to an org, and until when: all 18 documented fields.
#[derive(Clone, Debug, PartialEq, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct OrgReservation {
    pub id: String,
    pub status: OrgReservationStatus,
    pub node_id: String,
    pub reserved_unit_ids: Vec<String>,
    /// The subset of `reserved_unit_ids` on the spot market: still this reservation's,
    /// reclaimable at any time.
    #[serde(default, deserialize_with = "null_as_default")]
    pub released_unit_ids: Vec<String>,
    /// The audience: orgs that may place workloads on the reserved units.
    pub allowed_org_ids: Vec<String>,
    /// Orgs that may release, reclaim and terminate spot workloads. Being in the audience
    /// does not confer this.
    #[serde(default, deserialize_with = "null_as_default")]
    pub managing_org_ids: Vec<String>,
    #[serde(deserialize_with = "timestamp::required")]
    pub starts_at: Timestamp,
    /// Absent = open-ended until cancelled.
    #[serde(default, skip_serializing_if = "Option::is_none", deserialize_with = "timestamp::optional")]
    pub ends_at: Option<Timestamp>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub contract_ref: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none", deserialize_with = "timestamp::optional")]
    pub created_at: Option<Timestamp>,
    #[serde(default, skip_serializing_if = "Option::is_none", deserialize_with = "timestamp::optional")]
    pub updated_at: Option<Timestamp>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// Node topology generation this reservation was written against.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub topology_gen: Option<i64>,
    /// Reclaim only: spot VM ids terminated to free the reclaimed units.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub terminated: Option<Vec<String>>,
    /// Reclaim only: VM ids left running because they are not spot.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub skipped: Option<Vec<String>>,
    /// Reclaim dry run only: the spot VM ids this call would terminate.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub would_terminate: Option<Vec<String>>,
    /// Reclaim dry run only: VM ids that would be left running.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub would_skip: Option<Vec<String>>,
}

/// Body of `POST /v1/orgs/{orgId}/reservations/{id}/reclaim`.
#[derive(Clone, Debug, PartialEq, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ReclaimRequest {
    pub unit_ids: Vec<String>,
    pub dry_run: bool,
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// Every one of the 18 documented fields.
    pub(crate) const ALL_FIELDS: &str = r#"{"id":"rsv_1","status":"needs-review","nodeId":"node-a","reservedUnitIds":["u1","u2"],
                "releasedUnitIds":["u2"],"allowedOrgIds":["org_acme"],"managingOrgIds":["org_beta"],
                "startsAt":"2026-11-01T00:00:00Z","endsAt":"2027-11-01T00:00:00Z","contractRef":"MSA-1",
                "createdAt":"2026-10-01T00:00:00Z","updatedAt":"2026-11-20T00:00:00Z",
                "reason":"GPU topology changed","topologyGen":3,"terminated":["vm-1"],"skipped":["vm-2"],
                "wouldTerminate":["vm-3"],"wouldSkip":["vm-4"]}"#;

    #[test]
    fn decodes_every_field_of_the_schema() {
        let r: OrgReservation = serde_json::from_str(ALL_FIELDS).unwrap();
        assert_eq!(r.status, OrgReservationStatus::NeedsReview);
        assert_eq!(r.released_unit_ids, ["u2"]);
        assert_eq!(r.topology_gen, Some(3));
        assert_eq!(r.would_terminate.as_deref(), Some(&["vm-3".to_string()][..]));
        assert_eq!(r.skipped.as_deref(), Some(&["vm-2".to_string()][..]));
    }

    #[test]
    fn only_the_required_fields_make_an_open_ended_reservation() {
        let r: OrgReservation = serde_json::from_str(
            r#"{"id":"r","status":"active","nodeId":"n","reservedUnitIds":[],"allowedOrgIds":[],
                "startsAt":"2026-11-01T00:00:00Z"}"#,
        )
        .unwrap();
        assert!(r.ends_at.is_none() && r.managing_org_ids.is_empty() && r.terminated.is_none());
    }

    #[test]
    fn reclaim_request_is_camel_case() {
        let body = ReclaimRequest { unit_ids: vec!["u1".into()], dry_run: true };
        assert_eq!(serde_json::to_string(&body).unwrap(), r#"{"unitIds":["u1"],"dryRun":true}"#);
    }
}
