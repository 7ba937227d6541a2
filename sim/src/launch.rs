//! `POST /gpu-instances` (the launch request of CONTRACT.md): answers the launch errors of
//! seed 004 from the account's real state, in the order of `assumptions::LAUNCH_CHECKS`, and
//! on success places the instance (first fit) so that the next `/nodes` read shows it.

use crate::assumptions::{LaunchCheck, INSTANCE_LIFETIME, LAUNCH_CHECKS, PAYMENT_DUE_STATUSES, RENEWAL_STATUS};
use crate::auth::Principal;
use crate::error::ApiError;
use crate::placement::{Launched, Placement};
use crate::reservation::{NodeState, Reservation, Status};
use crate::state::Sim;
use axum::body::Bytes;
use axum::extract::State;
use axum::http::StatusCode;
use axum::routing::post;
use axum::{Extension, Json, Router};
use serde_json::{json, Value};
use std::sync::Arc;

pub fn routes() -> Router<Arc<Sim>> {
    Router::new().route("/gpu-instances", post(launch))
}

/// One launch request against the world as it is now. Each check reads what it needs from
/// the body itself, so that any order of the checks works.
struct Attempt<'a> {
    body: &'a Value,
    principal: Principal,
    reservations: &'a [Reservation],
    placement: Placement<'a>,
}

impl Attempt<'_> {
    fn text(&self, field: &str) -> Option<&str> {
        self.body.get(field).and_then(Value::as_str).filter(|text| !text.is_empty())
    }

    fn gpus(&self) -> Option<u32> {
        self.body.get("gpus").and_then(Value::as_u64).and_then(|n| u32::try_from(n).ok()).filter(|&n| n >= 1)
    }

    fn account_reservations(&self) -> impl Iterator<Item = &Reservation> {
        self.reservations.iter().filter(|r| r.spec.account == self.principal.account && r.spec.status != Status::Ended)
    }

    /// The non-ended reservation of this account for the region and GPU type asked for: the
    /// live one, before a renewal scheduled to follow it ([`RENEWAL_STATUS`]).
    fn reservation(&self) -> Option<&Reservation> {
        let (region, gpu_type) = (self.text("region_id")?, self.text("gpu_type")?);
        self.account_reservations()
            .filter(|r| r.spec.region_id == region && r.spec.gpu_type == gpu_type)
            .min_by_key(|r| (r.spec.status == RENEWAL_STATUS, r.spec.id))
    }

    /// The first ready node with enough free GPUs.
    fn free_node(&self, reservation: &Reservation, gpus: u32) -> Option<usize> {
        self.placement
            .nodes(reservation)
            .iter()
            .position(|n| n.state == NodeState::Ready && n.gpus.saturating_sub(n.gpus_in_use()) >= gpus)
    }

    fn check(&self, check: LaunchCheck) -> Result<(), ApiError> {
        let status = self.reservation().map(|r| r.spec.status);
        match check {
            LaunchCheck::WellFormed if ["region_id", "gpu_type", "name"].iter().any(|f| self.text(f).is_none()) => {
                Err(ApiError::invalid("The body must be a JSON object with text fields region_id, gpu_type and name"))
            }
            LaunchCheck::Interruptible if self.body.get("interruptible") == Some(&Value::Bool(true)) => {
                Err(ApiError::free_text(
                    StatusCode::CONFLICT,
                    "Reserved capacity is never interruptible; omit the interruptible field",
                ))
            }
            LaunchCheck::ReservationOnly if status.is_none() => Err(self.reservation_only()),
            LaunchCheck::PaymentDue if status.is_some_and(|s| PAYMENT_DUE_STATUSES.contains(&s)) => Err(ApiError::new(
                StatusCode::PAYMENT_REQUIRED,
                "reservation_payment_due",
                "A reservation payment is overdue; new launches are paused until it is paid",
            )),
            LaunchCheck::AwaitingPayment if status == Some(Status::AwaitingPayment) => Err(ApiError::new(
                StatusCode::PAYMENT_REQUIRED,
                "reservation_awaiting_payment",
                "The reservation starts when its first invoice is paid (Billing → Invoices); launches wait until then",
            )),
            LaunchCheck::GpuCount if self.gpus().is_none() => {
                Err(ApiError::invalid("gpus must be a whole number of at least 1"))
            }
            LaunchCheck::Capacity => match (self.reservation(), self.gpus()) {
                (Some(reservation), Some(gpus)) if self.free_node(reservation, gpus).is_none() => Err(ApiError::new(
                    StatusCode::CONFLICT,
                    "gpu_capacity",
                    format!("No single ready node of reservation {} has {gpus} free GPUs", reservation.spec.id),
                )),
                _ => Ok(()),
            },
            _ => Ok(()),
        }
    }

    /// `403 reservation_only`, naming where this account's reservations are.
    /// Those of the GPU type asked for if any, else those in the region asked for, else all;
    /// an account with none is refused the same way (an assumption, see `assumptions`).
    fn reservation_only(&self) -> ApiError {
        let (gpu_type, region) = (self.text("gpu_type").unwrap_or("?"), self.text("region_id").unwrap_or("?"));
        let of_type: Vec<&Reservation> = self.account_reservations().filter(|r| r.spec.gpu_type == gpu_type).collect();
        let in_region: Vec<&Reservation> = self.account_reservations().filter(|r| r.spec.region_id == region).collect();
        let relevant = if !of_type.is_empty() {
            of_type
        } else if !in_region.is_empty() {
            in_region
        } else {
            self.account_reservations().collect()
        };
        let places: Vec<String> =
            relevant.iter().map(|r| format!("{} in {}", r.spec.gpu_type, r.spec.region_id)).collect();
        let asked = format!("{gpu_type} in {region}");
        let message = match places.as_slice() {
            [] => format!("{asked} is not in a reservation, and this account has no current reservation"),
            [one] => format!("{asked} is not in your reservation. Your reservation is for {one}"),
            many => format!("{asked} is not in your reservations. Your reservations are for {}", many.join(", ")),
        };
        ApiError::new(StatusCode::FORBIDDEN, "reservation_only", message)
    }
}

async fn launch(
    State(sim): State<Arc<Sim>>,
    Extension(principal): Extension<Principal>,
    body: Bytes,
) -> Result<(StatusCode, Json<Value>), ApiError> {
    let now = sim.now();
    let body: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
    let mut world = sim.world();
    let (reservation, node, gpus) = {
        let attempt = Attempt {
            body: &body,
            principal,
            reservations: &world.reservations,
            placement: world.placement(&sim, now),
        };
        for check in LAUNCH_CHECKS {
            attempt.check(check)?;
        }
        // Every check passed, so each of these exists.
        let found = attempt.reservation().zip(attempt.gpus());
        let placed = found.and_then(|(r, gpus)| attempt.free_node(r, gpus).map(|node| (r.spec.key(), node, gpus)));
        placed.ok_or_else(|| ApiError::invalid("The launch request is incomplete"))?
    };
    let name = body["name"].as_str().unwrap_or_default().to_owned();
    let id = world.next_instance_id;
    world.next_instance_id += 1;
    world.launched.retain(|l| l.ends_at > now);
    world.launched.push(Launched {
        id,
        name: name.clone(),
        gpus,
        reservation,
        node,
        started_at: now,
        ends_at: now + INSTANCE_LIFETIME,
    });
    let created = json!({ "id": id, "name": name, "gpus": gpus, "billing": "reserved", "rate_usd_per_hour": 0 });
    Ok((StatusCode::CREATED, Json(created)))
}
