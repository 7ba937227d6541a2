//! The EcoHash Compute API's reads (seed 004): `GET /gpu-reservations`,
//! `GET /gpu-reservations/{id}` and `GET /gpu-reservations/{id}/nodes`, with exactly the
//! documented snake_case fields.

use crate::assumptions::{sees_first_invoice, UNREACHABLE_REGION};
use crate::auth::{Principal, Role};
use crate::billing::{Charge, FirstInvoice, Usd};
use crate::error::ApiError;
use crate::placement::Workload;
use crate::reservation::{BillingPeriod, Funding, NodeState, Reservation, Status};
use crate::state::{Sim, World};
use axum::extract::{OriginalUri, Path, State};
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::{Extension, Json, Router};
use chrono::{DateTime, Utc};
use serde::Serialize;
use std::sync::Arc;

pub fn routes() -> Router<Arc<Sim>> {
    Router::new()
        .route("/gpu-reservations", get(list))
        .route("/gpu-reservations/{id}", get(detail))
        .route("/gpu-reservations/{id}/nodes", get(nodes))
}

/// An item of the list, and the common part of the detail.
#[derive(Serialize)]
struct ListItem<'a> {
    id: u64,
    status: Status,
    region_id: &'a str,
    gpu_type: &'a str,
    node_count: u32,
    gpus_per_node: u32,
    reserved_gpus: u32,
    term_months: u32,
    billing_period: BillingPeriod,
    /// Null while awaiting payment.
    starts_at: Option<DateTime<Utc>>,
    ends_at: Option<DateTime<Utc>>,
    drive_quota_gib: u32,
    fs_quota_gib: u32,
    contract_ref: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    past_due_since: Option<DateTime<Utc>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    stops_at: Option<DateTime<Utc>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    ended_at: Option<DateTime<Utc>>,
}

impl<'a> ListItem<'a> {
    fn of(reservation: &'a Reservation) -> Self {
        let spec = &reservation.spec;
        let past_due = spec.status == Status::PastDue;
        ListItem {
            id: spec.id,
            status: spec.status,
            region_id: spec.region_id,
            gpu_type: spec.gpu_type,
            node_count: reservation.current.node_count,
            gpus_per_node: spec.gpus_per_node,
            reserved_gpus: reservation.current.node_count * spec.gpus_per_node,
            term_months: spec.term_months,
            billing_period: spec.billing_period,
            starts_at: spec.starts_at,
            ends_at: spec.ends_at(),
            drive_quota_gib: reservation.current.drive_quota_gib,
            fs_quota_gib: reservation.current.fs_quota_gib,
            contract_ref: &spec.contract_ref,
            past_due_since: reservation.schedule.overdue_since().filter(|_| past_due),
            stops_at: spec.stops_at.filter(|_| past_due),
            ended_at: spec.ended_at.filter(|_| spec.status == Status::Ended),
        }
    }
}

#[derive(Serialize)]
struct Detail<'a> {
    #[serde(flatten)]
    item: ListItem<'a>,
    storage: Storage,
    amendments: Vec<AmendmentView>,
    /// Owner only.
    #[serde(skip_serializing_if = "Option::is_none")]
    payment: Option<PaymentView<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    first_invoice: Option<&'a FirstInvoice>,
}

#[derive(Serialize)]
struct Storage {
    drive_used_gib: u32,
    drive_quota_gib: u32,
    fs_used_gib: u32,
    fs_quota_gib: u32,
}

#[derive(Serialize)]
struct AmendmentView {
    effective_at: DateTime<Utc>,
    node_count_before: u32,
    node_count_after: u32,
    drive_quota_gib_before: u32,
    drive_quota_gib_after: u32,
    fs_quota_gib_before: u32,
    fs_quota_gib_after: u32,
    /// Owner only, like `payment`.
    #[serde(skip_serializing_if = "Option::is_none")]
    rate_usd_per_gpu_hour_before: Option<Usd>,
    #[serde(skip_serializing_if = "Option::is_none")]
    rate_usd_per_gpu_hour_after: Option<Usd>,
}

#[derive(Serialize)]
struct PaymentView<'a> {
    rate_usd_per_gpu_hour: Usd,
    drive_rate_usd_per_gib_month: Usd,
    fs_rate_usd_per_gib_month: Usd,
    funding: Funding,
    advance_usd: Usd,
    advance_remaining_usd: Usd,
    /// The earliest charge not yet paid, or null.
    next_charge: Option<&'a Charge>,
    charges: &'a [Charge],
}

impl<'a> Detail<'a> {
    fn of(reservation: &'a Reservation, role: Role) -> Self {
        let spec = &reservation.spec;
        let schedule = &reservation.schedule;
        let owner = role == Role::Owner;
        let rate = Some(spec.rate).filter(|_| owner);
        let amendments = spec
            .amendments
            .iter()
            .map(|a| AmendmentView {
                effective_at: a.effective_at,
                node_count_before: a.before.node_count,
                node_count_after: a.after.node_count,
                drive_quota_gib_before: a.before.drive_quota_gib,
                drive_quota_gib_after: a.after.drive_quota_gib,
                fs_quota_gib_before: a.before.fs_quota_gib,
                fs_quota_gib_after: a.after.fs_quota_gib,
                rate_usd_per_gpu_hour_before: rate,
                rate_usd_per_gpu_hour_after: rate,
            })
            .collect();
        let payment = owner.then(|| PaymentView {
            rate_usd_per_gpu_hour: spec.rate,
            drive_rate_usd_per_gib_month: spec.drive_rate,
            fs_rate_usd_per_gib_month: spec.fs_rate,
            funding: spec.funding,
            advance_usd: schedule.advance,
            advance_remaining_usd: schedule.advance_remaining,
            next_charge: schedule.next_charge(),
            charges: &schedule.charges,
        });
        Detail {
            item: ListItem::of(reservation),
            storage: Storage {
                drive_used_gib: spec.storage_used.0,
                drive_quota_gib: reservation.current.drive_quota_gib,
                fs_used_gib: spec.storage_used.1,
                fs_quota_gib: reservation.current.fs_quota_gib,
            },
            amendments,
            payment,
            first_invoice: schedule.first_invoice.as_ref().filter(|_| sees_first_invoice(role)),
        }
    }
}

#[derive(Serialize)]
struct NodesView {
    nodes: Vec<NodeView>,
    workloads_unknown: bool,
}

/// Seed 004: when the region cannot be reached, nodes are returned "without GPUs in use or
/// workloads": both fields are then left out, not sent as 0 and [].
#[derive(Serialize)]
struct NodeView {
    display_name: String,
    state: NodeState,
    gpus: u32,
    #[serde(skip_serializing_if = "Option::is_none")]
    gpus_in_use: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    workloads: Option<Vec<Workload>>,
}

/// The reservation `id` if this key's account holds it: `404` unknown, `403` another account's.
/// Ids are each account's own: another account may hold the same id, and this key is answered
/// with its own account's.
fn visible<'w>(world: &'w World, principal: &Principal, id: &str) -> Result<&'w Reservation, ApiError> {
    let parsed: Option<u64> = id.parse().ok();
    if let Some(reservation) = parsed.and_then(|n| world.reservation(principal.account, n)) {
        return Ok(reservation);
    }
    if parsed.and_then(|n| world.find(None, n)).is_some() {
        return Err(ApiError::forbidden(format!("GPU reservation {id} belongs to another account")));
    }
    Err(ApiError::not_found(format!("No GPU reservation {id}")))
}

/// A JSON body serialised while the world is locked (the views borrow from it), keeping the
/// documented field order.
fn json_body(value: &impl Serialize) -> Response {
    match serde_json::to_vec(value) {
        Ok(bytes) => ([(header::CONTENT_TYPE, "application/json")], bytes).into_response(),
        Err(error) => {
            ApiError::new(StatusCode::INTERNAL_SERVER_ERROR, "internal_error", error.to_string()).into_response()
        }
    }
}

async fn list(State(sim): State<Arc<Sim>>, Extension(principal): Extension<Principal>) -> Response {
    let world = sim.world();
    let items: Vec<ListItem> =
        world.reservations.iter().rev().filter(|r| r.spec.account == principal.account).map(ListItem::of).collect();
    json_body(&items)
}

async fn detail(
    State(sim): State<Arc<Sim>>,
    Extension(principal): Extension<Principal>,
    Path(id): Path<String>,
) -> Result<Response, ApiError> {
    let world = sim.world();
    let reservation = visible(&world, &principal, &id)?;
    Ok(json_body(&Detail::of(reservation, principal.role)))
}

async fn nodes(
    State(sim): State<Arc<Sim>>,
    Extension(principal): Extension<Principal>,
    Path(id): Path<String>,
    OriginalUri(uri): OriginalUri,
) -> Result<Json<NodesView>, ApiError> {
    let now = sim.now();
    let world = sim.world();
    let reservation = visible(&world, &principal, &id)?;
    let unknown =
        reservation.spec.region_id == UNREACHABLE_REGION || sim.faults().unreachable(uri.path(), principal.key);
    let nodes = world
        .placement(&sim, now)
        .nodes(reservation)
        .into_iter()
        .enumerate()
        .map(|(i, node)| NodeView {
            display_name: format!("node-{}", i + 1),
            state: node.state,
            gpus: node.gpus,
            gpus_in_use: (!unknown).then(|| node.gpus_in_use()),
            workloads: (!unknown).then_some(node.workloads),
        })
        .collect();
    Ok(Json(NodesView { nodes, workloads_unknown: unknown }))
}
