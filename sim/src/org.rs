//! The org capacity API (seed 000): `GET /v1/orgs/{orgId}/reservations` and the reclaim call
//! of CONTRACT.md, `POST /v1/orgs/{orgId}/reservations/{id}/reclaim`. Wire names are camelCase.

use crate::assumptions::UNIT_NOT_RELEASED;
use crate::auth::Principal;
use crate::error::{parse_body, ApiError};
use crate::state::Sim;
use axum::body::Bytes;
use axum::extract::{Path, State};
use axum::routing::{get, post};
use axum::{Extension, Json, Router};
use chrono::{DateTime, SubsecRound, Utc};
use serde::{Deserialize, Serialize};
use std::collections::{HashMap, HashSet};
use std::sync::Arc;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum OrgStatus {
    Pending,
    Active,
    Expired,
    Cancelled,
    /// The node's GPU topology changed under the reservation: it grants nothing until an
    /// operator re-affirms it.
    NeedsReview,
}

/// Every field of the schema except the reclaim-only ones.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct OrgReservation {
    pub id: String,
    pub status: OrgStatus,
    pub node_id: String,
    pub reserved_unit_ids: Vec<String>,
    /// The subset of `reserved_unit_ids` on the spot market.
    pub released_unit_ids: Vec<String>,
    /// The audience: orgs that may place workloads on the units.
    pub allowed_org_ids: Vec<&'static str>,
    /// Orgs that may release, reclaim and terminate spot workloads.
    pub managing_org_ids: Vec<&'static str>,
    pub starts_at: DateTime<Utc>,
    /// Absent = open-ended until cancelled.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ends_at: Option<DateTime<Utc>>,
    pub contract_ref: String,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// Node topology generation this reservation was written against.
    pub topology_gen: u32,
}

impl OrgReservation {
    /// Listed for an org in its audience or among its managers.
    fn concerns(&self, org: &str) -> bool {
        self.allowed_org_ids.contains(&org) || self.managing_org_ids.contains(&org)
    }
}

/// A VM running on a released unit.
#[derive(Clone, Debug)]
pub struct Vm {
    pub id: String,
    /// Spot VMs are terminated by a reclaim; others are skipped and keep running.
    pub spot: bool,
}

pub struct OrgState {
    pub orgs: Vec<&'static str>,
    pub reservations: Vec<OrgReservation>,
    /// VMs per released unit id.
    pub vms: HashMap<String, Vec<Vm>>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct ReclaimRequest {
    unit_ids: Vec<String>,
    dry_run: bool,
}

/// The reservation with the outcome of a reclaim: `wouldTerminate`/`wouldSkip` on a dry run,
/// `terminated`/`skipped` otherwise.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Reclaimed {
    #[serde(flatten)]
    reservation: OrgReservation,
    #[serde(skip_serializing_if = "Option::is_none")]
    terminated: Option<Vec<String>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    skipped: Option<Vec<String>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    would_terminate: Option<Vec<String>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    would_skip: Option<Vec<String>>,
}

pub fn routes() -> Router<Arc<Sim>> {
    Router::new()
        .route("/v1/orgs/{org_id}/reservations", get(list))
        .route("/v1/orgs/{org_id}/reservations/{id}/reclaim", post(reclaim))
}

fn known_org(state: &OrgState, org_id: &str) -> Result<(), ApiError> {
    if state.orgs.contains(&org_id) {
        Ok(())
    } else {
        Err(ApiError::not_found(format!("No org {org_id:?}")))
    }
}

async fn list(State(sim): State<Arc<Sim>>, Path(org_id): Path<String>) -> Result<Json<Vec<OrgReservation>>, ApiError> {
    let world = sim.world();
    known_org(&world.org, &org_id)?;
    Ok(Json(world.org.reservations.iter().filter(|r| r.concerns(&org_id)).cloned().collect()))
}

async fn reclaim(
    State(sim): State<Arc<Sim>>,
    Extension(principal): Extension<Principal>,
    Path((org_id, id)): Path<(String, String)>,
    body: Bytes,
) -> Result<Json<Reclaimed>, ApiError> {
    let now = sim.now().trunc_subsecs(0);
    let mut world = sim.world();
    let state = &mut world.org;
    known_org(state, &org_id)?;
    let index = state
        .reservations
        .iter()
        .position(|r| r.id == id && r.concerns(&org_id))
        .ok_or_else(|| ApiError::not_found(format!("No reservation {id:?} for {org_id}")))?;
    if principal.org != org_id {
        return Err(ApiError::forbidden(format!("This key acts for {}, not {org_id}", principal.org)));
    }
    let reservation = &state.reservations[index];
    if !reservation.managing_org_ids.contains(&org_id.as_str()) {
        return Err(ApiError::forbidden(format!(
            "{org_id} is in the audience of {id} but does not manage it; only its managing orgs ({}) may reclaim units",
            if reservation.managing_org_ids.is_empty() {
                "none".to_owned()
            } else {
                reservation.managing_org_ids.join(", ")
            }
        )));
    }
    let mut request: ReclaimRequest = parse_body(&body)?;
    let mut seen = HashSet::new();
    request.unit_ids.retain(|unit| seen.insert(unit.clone()));
    if request.unit_ids.is_empty() {
        return Err(ApiError::invalid("unitIds must name at least one released unit"));
    }
    let not_released: Vec<&str> =
        request.unit_ids.iter().filter(|u| !reservation.released_unit_ids.contains(u)).map(String::as_str).collect();
    if !not_released.is_empty() {
        let (status, code) = UNIT_NOT_RELEASED;
        return Err(ApiError::new(
            status,
            code,
            format!("Not released to the spot market, so nothing to reclaim: {}", not_released.join(", ")),
        ));
    }
    let (spot, other): (Vec<&Vm>, Vec<&Vm>) =
        request.unit_ids.iter().flat_map(|u| state.vms.get(u).into_iter().flatten()).partition(|vm| vm.spot);
    let ids = |vms: Vec<&Vm>| -> Vec<String> { vms.into_iter().map(|vm| vm.id.clone()).collect() };
    let (terminate, skip) = (ids(spot), ids(other));
    if request.dry_run {
        let reservation = state.reservations[index].clone();
        return Ok(Json(Reclaimed {
            reservation,
            terminated: None,
            skipped: None,
            would_terminate: Some(terminate),
            would_skip: Some(skip),
        }));
    }
    for unit in &request.unit_ids {
        if let Some(vms) = state.vms.get_mut(unit) {
            vms.retain(|vm| !vm.spot);
        }
    }
    let reservation = &mut state.reservations[index];
    reservation.released_unit_ids.retain(|u| !request.unit_ids.contains(u));
    reservation.updated_at = now;
    let reservation = reservation.clone();
    Ok(Json(Reclaimed {
        reservation,
        terminated: Some(terminate),
        skipped: Some(skip),
        would_terminate: None,
        would_skip: None,
    }))
}
