//! The API's calls, one function each: the path, the method and the answer's type.

use crate::api::assumptions::{self, LAUNCH_PATH};
use crate::api::error::{parse_rate_limit, ApiError, RateLimit, ResponseHeaders};
use crate::api::models::{
    LaunchRequest, LaunchedInstance, NodesKept, NodesResponse, NodesText, Reservation, ReservationDetail,
};
use crate::api::org::{OrgReservation, ReclaimRequest};
use chrono::Utc;

use super::transport::{answered, page_policy_refusal, send, Answer, Method};
use super::{decode, path_segment, readable, undecodable, Api, Connection};

/// `GET /gpu-reservations`: newest first.
pub async fn list_reservations(conn: &Connection) -> Result<Vec<Reservation>, ApiError> {
    send(conn, Api::Compute, Method::Get, RESERVATIONS_PATH, None::<&()>).await
}

/// What Connect learns from its first read: the reservations, whether the API is the
/// local simulator (its answer says so in a header), and the key's rate limit as it stood.
pub struct Checked {
    pub reservations: Vec<Reservation>,
    pub simulator: bool,
    pub rate_limit: Option<RateLimit>,
}

/// `GET /gpu-reservations`, read by Connect to check the key.
pub async fn check_key(conn: &Connection) -> Result<Checked, ApiError> {
    answered(conn, Api::Compute, Method::Get, RESERVATIONS_PATH, Ok(None), |answer| {
        Ok(Checked {
            reservations: decode(answer.status, &answer.headers, &answer.text, Utc::now())?,
            simulator: says_simulator(&answer.headers),
            rate_limit: parse_rate_limit(&answer.headers),
        })
    })
    .await
}

/// Whether an answer's headers say it came from the local simulator.
pub fn says_simulator(headers: &ResponseHeaders) -> bool {
    headers.get(assumptions::SIMULATOR_HEADER).is_some_and(|v| !v.is_empty())
}

/// `GET /gpu-reservations/{id}`: `payment` only for the owner.
pub async fn reservation(conn: &Connection, id: i64) -> Result<ReservationDetail, ApiError> {
    send(conn, Api::Compute, Method::Get, &reservation_path(id), None::<&()>).await
}

/// `GET /gpu-reservations/{id}`, read only for whether it shows `payment`, which only the
/// owner's key sees. Connect learns the role with it, and the first load is spared the
/// whole detail's parsing.
pub async fn shows_payment(conn: &Connection, id: i64) -> Result<bool, ApiError> {
    let read: PaymentShown = send(conn, Api::Compute, Method::Get, &reservation_path(id), None::<&()>).await?;
    Ok(read.payment.is_some())
}

/// The reservations' path under the compute API's base URL.
pub const RESERVATIONS_PATH: &str = "/gpu-reservations";

pub fn reservation_path(id: i64) -> String {
    format!("{RESERVATIONS_PATH}/{id}")
}

pub fn nodes_path(id: i64) -> String {
    format!("{RESERVATIONS_PATH}/{id}/nodes")
}

/// A reservation detail with everything but `payment` skipped unread.
#[derive(serde::Deserialize)]
pub(super) struct PaymentShown {
    #[serde(default)]
    pub(super) payment: Option<serde::de::IgnoredAny>,
}

/// Sends `GET path` of the compute API ahead ([`crate::api::first_read`]): the page opened next
/// takes its answer as its own first read. Nothing is sent where the page's policy would
/// block it (the page's own read then explains why).
pub fn send_ahead(conn: &Connection, path: &str) {
    let url = conn.url(Api::Compute, path);
    if page_policy_refusal(&url).is_none() {
        crate::api::first_read::send_ahead(&url, &conn.authorization());
    }
}

/// `GET /gpu-reservations/{id}/nodes`, read live from the region, with the text it was read
/// from; the nodes sent as in `before` (the answer before, and its text) are taken from it
/// ([`NodesResponse::read_after`]). Its decoding is timed as [`NODES_DECODE`] (a
/// 10,000-node answer is ~2.7 MB).
pub async fn nodes(
    conn: &Connection,
    id: i64,
    before: Option<NodesKept>,
) -> Result<(NodesResponse, NodesText), ApiError> {
    let path = nodes_path(id);
    answered(conn, Api::Compute, Method::Get, &path, Ok(None), |answer| {
        let before = before.as_ref().map(|(answer, text)| (&**answer, &**text));
        let Answer { status, headers, text } = answer;
        crate::browser::timed(NODES_DECODE, || {
            readable(status, &headers, &text, Utc::now())?;
            NodesResponse::read_after(text, before).map_err(|(e, text)| undecodable(status, &headers, &text, &e))
        })
    })
    .await
}

/// The User Timing measure of the latest `/nodes` decode, in milliseconds.
pub const NODES_DECODE: &str = "nodes-decode";

/// Launch on a reservation (**assumption**, see [`assumptions::LAUNCH_PATH`]).
pub async fn launch(conn: &Connection, request: &LaunchRequest) -> Result<LaunchedInstance, ApiError> {
    send(conn, Api::Compute, Method::Post, LAUNCH_PATH, Some(request)).await
}

/// `GET /v1/orgs/{orgId}/reservations` (seed 000).
pub async fn org_reservations(conn: &Connection, org_id: &str) -> Result<Vec<OrgReservation>, ApiError> {
    let path = assumptions::org_reservations_path(&path_segment(org_id)?);
    send(conn, Api::Org, Method::Get, &path, None::<&()>).await
}

/// Reclaim released units (**assumption**, see [`assumptions::reclaim_path`]).
pub async fn reclaim(
    conn: &Connection,
    org_id: &str,
    reservation_id: &str,
    request: &ReclaimRequest,
) -> Result<OrgReservation, ApiError> {
    let path = assumptions::reclaim_path(&path_segment(org_id)?, &path_segment(reservation_id)?);
    send(conn, Api::Org, Method::Post, &path, Some(request)).await
}
