//! The launch-failure mapping: what the user reads about any failed call, a title, an
//! explanation in the user's terms and a remedy. `api::error` decodes; this says.

use crate::api::assumptions::ORG_API_MISPLACED;
use crate::api::enums::{Funding, ReservationStatus};
use crate::api::error::{codes, ApiError, ErrorKind, RateLimit};
use crate::api::models::Reservation;
use crate::domain::status::{launch_access, settle_overdue};
use crate::domain::words::text::visible_controls;
use crate::domain::words::{count, figure};

/// What the user reads about a failure.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Explanation {
    pub title: String,
    pub explanation: String,
    pub remedy: String,
}

/// What the console knows about the call that failed and who reads about it, to name it in
/// the text.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ErrorContext {
    pub region_id: Option<String>,
    pub gpu_type: Option<String>,
    /// The call changed things (a launch, a reclaim): a 403 there is about what the key may
    /// change, not about reading.
    pub action: Option<Action>,
    /// The reader is the account owner, who pays. Anyone else (a member, or a role not yet
    /// known) is told who pays, never to pay.
    pub owner: bool,
    /// The call went to the org capacity API at this base URL (seed 000, its own base URL).
    pub org_api_base: Option<String>,
    /// The status of the reservation the call was about: a 402 on a suspended one has no
    /// running workloads to keep.
    pub status: Option<ReservationStatus>,
    /// How that reservation is funded (the owner's detail says): how to settle what is due.
    pub funding: Option<Funding>,
    /// Where each live reservation of the account is, from its list when read: where a
    /// `reservation_only` refusal can send the user instead, if it is open to launches.
    pub live_reservations: Vec<LivePlace>,
}

/// The region and GPU type of live reservations of the account, and whether one of them
/// there takes launches now ([`launch_access`]): past due, suspended and not started ones
/// do not, and are never offered as a place to launch.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct LivePlace {
    pub region_id: String,
    pub gpu_type: String,
    pub open: bool,
}

/// A call that changes things, which a read-only key may not make.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Action {
    Launch,
    Reclaim,
}

impl ErrorContext {
    /// Where the reservation is, to name it in error texts.
    pub fn of(r: &Reservation) -> Self {
        ErrorContext {
            region_id: Some(r.region_id.clone()),
            gpu_type: Some(r.gpu_type.clone()),
            status: Some(r.status.clone()),
            ..Self::default()
        }
    }

    /// The same context knowing the account's reservations (`list`): the region and GPU
    /// type of each one not ended, once each, open when any reservation there is.
    pub fn with_live(self, list: &[Reservation]) -> Self {
        let mut live: Vec<LivePlace> = list
            .iter()
            .filter(|r| r.status != ReservationStatus::Ended)
            .map(|r| LivePlace {
                region_id: r.region_id.clone(),
                gpu_type: r.gpu_type.clone(),
                open: launch_access(&r.status).allows_launch(),
            })
            .collect();
        live.sort();
        live.dedup_by(|later, kept| {
            let same = (&later.region_id, &later.gpu_type) == (&kept.region_id, &kept.gpu_type);
            kept.open |= same && later.open;
            same
        });
        ErrorContext { live_reservations: live, ..self }
    }

    /// A call to the org capacity API at `base`.
    pub fn org_api(base: &str) -> Self {
        ErrorContext { org_api_base: Some(base.to_owned()), ..Self::default() }
    }

    /// The same context for a call that changes things.
    pub fn acting(self, action: Action) -> Self {
        ErrorContext { action: Some(action), ..self }
    }

    /// "in atl with NVIDIA-B200", "in atl", "" — as much as is known.
    fn where_phrase(&self) -> String {
        match (&self.region_id, &self.gpu_type) {
            (Some(region), Some(gpu)) => format!(" in region {region} with {gpu} GPUs"),
            (Some(region), None) => format!(" in region {region}"),
            (None, Some(gpu)) => format!(" with {gpu} GPUs"),
            (None, None) => String::new(),
        }
    }
}

/// " The server says: “…”." — the server's sentence quoted, its own full stop kept instead of
/// a second one after the quote.
fn server_says(message: &str) -> String {
    let ends_a_sentence = message.trim_end().ends_with(['.', '!', '?']);
    format!(" The server says: “{}”{}", message.trim_end(), if ends_a_sentence { "" } else { "." })
}

/// Title, explanation and remedy for any failure; the launch codes of seed 004 first, then
/// the generic statuses. What the API sent (its message, a region, a GPU type) is quoted
/// with its bidirectional and invisible controls shown, never obeyed.
pub fn explain(err: &ApiError, ctx: &ErrorContext) -> Explanation {
    let Explanation { title, explanation, remedy } = explain_as_sent(err, ctx);
    let shown = |text: String| visible_controls(&text).into_owned();
    Explanation { title: shown(title), explanation: shown(explanation), remedy: shown(remedy) }
}

/// One line for a read whose failure is shown in place of what it would have shown
/// (`what`: "GPUs in use", "The reservation"): its title and explanation, and the request id
/// to quote to support.
pub fn could_not_read(what: &str, err: &ApiError) -> String {
    let text = explain(err, &ErrorContext::default());
    let request = err.request_id.as_ref().map(|id| format!(" Request id {id}.")).unwrap_or_default();
    format!("{what} could not be read: {}. {}{request}", text.title, text.explanation)
}

fn explain_as_sent(err: &ApiError, ctx: &ErrorContext) -> Explanation {
    let server_says = match err.message.as_deref() {
        Some(description) if err.described => format!(" {description}"),
        Some(message) => server_says(message),
        None => String::new(),
    };
    let at = ctx.where_phrase();
    let text =
        |title: &str, explanation: String, remedy: String| Explanation { title: title.to_owned(), explanation, remedy };
    match (err.kind, err.status, err.code.as_deref()) {
        (ErrorKind::Network, ..) => text(
            "Could not reach the API",
            format!("The request got no answer: the network is down, the API address is wrong, or the browser blocked the call.{}", detail(err)),
            "Check your connection and the API base URL, then try again.".to_owned(),
        ),
        (ErrorKind::Timeout, ..) => text(
            "The API did not answer in time",
            format!("{} The request was stopped.", err.message.as_deref().unwrap_or("No answer in time.")),
            "Try again in a moment; if it keeps happening, quote the request id to support.".to_owned(),
        ),
        (ErrorKind::Decode, ..) if ctx.org_api_base.is_some() => text(
            "Not the org capacity API",
            format!(
                "The org capacity API base URL {} answered, but not with seed 000's list of reservations: {ORG_API_MISPLACED}.{}",
                ctx.org_api_base.as_deref().unwrap_or_default(),
                detail(err)
            ),
            format!("Set {ORG_BASE_URL_SETTING}"),
        ),
        (ErrorKind::Http, Some(404), _) if ctx.org_api_base.is_some() => text(
            "Not found at the org capacity API base URL",
            format!(
                "The org capacity API base URL {} answered HTTP 404: {ORG_API_MISPLACED}, or it knows no such org.{server_says}",
                ctx.org_api_base.as_deref().unwrap_or_default()
            ),
            format!("Check the org id; if it is right, set {ORG_BASE_URL_SETTING}"),
        ),
        (ErrorKind::Decode, ..) => text(
            "The answer could not be read",
            format!("The server answered, but not with data the console understands.{}", detail(err)),
            "Try again; if it persists, quote the request id to support.".to_owned(),
        ),
        (ErrorKind::InvalidRequest, ..) => text(
            "The request was not sent",
            err.message.clone().unwrap_or_else(|| "The console could not build this request.".to_owned()),
            "Check the address or the id you followed.".to_owned(),
        ),
        (_, _, Some(codes::RESERVATION_ONLY)) => reservation_only(ctx, &server_says),
        (_, _, Some(codes::RESERVATION_PAYMENT_DUE)) => text(
            "Payment overdue: launches paused",
            if ctx.status == Some(ReservationStatus::Suspended) {
                format!("A payment for your reservation{at} stayed overdue: the reservation is suspended, its workloads were stopped and nothing can be launched on it.{server_says}")
            } else {
                format!("A payment for your reservation{at} is overdue, so new launches are paused until it is paid. Running workloads keep running until the stop date.{server_says}")
            },
            if ctx.owner {
                let mut settle = settle_overdue(ctx.funding.as_ref()).to_owned();
                settle[..1].make_ascii_uppercase();
                format!("{settle}; launches resume once it is paid.")
            } else {
                "The account owner settles the overdue payment; launches resume once it is paid. Ask them, and launch again then.".to_owned()
            },
        ),
        (_, _, Some(codes::RESERVATION_AWAITING_PAYMENT)) => text(
            "Waiting for the first invoice",
            format!("Your reservation{at} starts when its first invoice is paid; launches and new storage there wait until then.{server_says}"),
            if ctx.owner {
                "Pay the first invoice under Billing → Invoices."
            } else {
                "The account owner pays the first invoice under Billing → Invoices; launches start once it is paid."
            }
            .to_owned(),
        ),
        (_, _, Some(codes::GPU_CAPACITY)) => text(
            "Not enough free GPUs on one node",
            format!("Your reservation{at} has no free GPUs for this launch, or no single node has that many free GPUs together.{server_says}"),
            "Pick a smaller GPU count (the node view shows the largest launch that fits), wait for a workload to finish, or stop one.".to_owned(),
        ),
        (_, _, Some(codes::RESERVATION_STORAGE_QUOTA)) => text(
            "Storage included in the reservation is full",
            format!("The cloud drive or shared filesystem would exceed the storage included in your reservation{at}.{server_says}"),
            "Free some space or ask for a smaller volume; more storage needs an amendment of the reservation.".to_owned(),
        ),
        // Seed 004's code-less 409 is the interruptible refusal; another code-less conflict
        // (from another call) is only described if its text says something else.
        (_, Some(409), None) if err.message.as_deref().is_none_or(|m| m.to_ascii_lowercase().contains("interruptible")) => text(
            "Reserved capacity is never interruptible",
            format!("The launch asked for an interruptible instance; GPUs of a reservation cannot be interrupted.{server_says}"),
            "Launch again without “interruptible”.".to_owned(),
        ),
        (_, Some(401), _) => text(
            "The API key was not accepted",
            format!("The key is missing, malformed or revoked.{server_says}"),
            "Check the key (it starts with eco_) and connect again with a valid one.".to_owned(),
        ),
        (_, Some(403), _) if ctx.action.is_some() => {
            let (doing, also) = match ctx.action {
                Some(Action::Reclaim) => (
                    "reclaim units (which terminates spot VMs)",
                    " Reclaiming is also refused for an org that does not manage the reservation.",
                ),
                _ => ("launch workloads", ""),
            };
            text(
                "This key may not change things",
                format!("The key is valid, but it is not allowed to {doing}. Viewing needs read access only; launching and reclaiming change things and need a key allowed to.{also}{server_says}"),
                format!("Connect with a key that is allowed to {doing} (the account owner can create one), or ask someone who has one. Viewing with this key still works."),
            )
        }
        (_, Some(403), _) => text(
            "Not allowed with this key",
            format!("The key is valid, but this resource is not your account's, or your role does not permit it.{server_says}"),
            "Check that the key belongs to the right account and role; the account owner can grant access.".to_owned(),
        ),
        (_, Some(404), _) => text(
            "Not found",
            format!("Nothing with this id exists for your account.{server_says}"),
            "Check the id, or go back to the list of reservations.".to_owned(),
        ),
        (_, Some(429), _) => text(
            "Too many requests",
            format!("The API allows a limited number of requests per minute per key{}.{server_says}", rate_limit_phrase(err)),
            wait_remedy(err, "Wait a minute"),
        ),
        (_, Some(503), _) => text(
            "The service is temporarily unavailable",
            format!("The API is overloaded or being updated.{server_says}"),
            wait_remedy(err, "Wait a few seconds"),
        ),
        (_, Some(status @ 500..=599), _) => text(
            "The server had a problem",
            format!("The API (or a gateway in front of it) failed with HTTP {status}. This is usually transient.{server_says}"),
            wait_remedy(err, "Wait a moment"),
        ),
        (_, Some(400), _) => text(
            "The request was refused",
            format!("The server did not accept the request as sent.{server_says}"),
            "Check the values you entered and try again.".to_owned(),
        ),
        (_, status, code) => text(
            "The request failed",
            format!(
                "The server answered {}{}.{server_says}",
                status.map(|s| format!("HTTP {s}")).unwrap_or_else(|| "with an error".to_owned()),
                code.map(|c| format!(" with code {c}")).unwrap_or_default()
            ),
            "Try again; if it persists, quote the request id to support.".to_owned(),
        ),
    }
}

/// A `reservation_only` refusal: it names where the account's reservations open to launches
/// are (one per region is allowed), those closed to launches apart, and never sends the user
/// back to the place refused.
fn reservation_only(ctx: &ErrorContext, server_says: &str) -> Explanation {
    let place = |p: &LivePlace| format!("region {} with {} GPUs", p.region_id, p.gpu_type);
    let refused = ctx.region_id.clone().zip(ctx.gpu_type.clone());
    let refused_text = refused.as_ref().map_or_else(
        || "The region or GPU type asked for".to_owned(),
        |(region, gpu)| format!("Region {region} with {gpu} GPUs"),
    );
    let is_refused =
        |p: &LivePlace| refused.as_ref().is_some_and(|(region, gpu)| (region, gpu) == (&p.region_id, &p.gpu_type));
    let (open, closed): (Vec<&LivePlace>, Vec<&LivePlace>) =
        ctx.live_reservations.iter().filter(|p| !is_refused(p)).partition(|p| p.open);
    let listed_there = ctx.live_reservations.iter().any(is_refused);
    let closed_text = |places: &[&LivePlace]| {
        format!(
            "reservations in {} are closed to launches now (a payment due, suspended, or not started yet).",
            places.iter().map(|p| place(p)).collect::<Vec<_>>().join("; ")
        )
    };
    let mut remedy = match (open.as_slice(), closed.as_slice()) {
        ([], []) if ctx.live_reservations.is_empty() => {
            "The server's message names where the account's reservation is: launch there, from that reservation's page."
                .to_owned()
        }
        ([], []) => "The account has no other live reservation to launch on.".to_owned(),
        ([], closed) => format!("The account has no other reservation open to launches: its {}", closed_text(closed)),
        (open, closed) => {
            let mut text = format!(
                "The account's other reservations open to launches are in {}: launch on one of them, from its own page.",
                open.iter().map(|p| place(p)).collect::<Vec<_>>().join("; ")
            );
            if !closed.is_empty() {
                text.push_str(&format!(" Its {}", closed_text(closed)));
            }
            text
        }
    };
    if listed_there {
        remedy.push_str(" The list read earlier still shows a reservation there: it may have ended or changed since, so reload the reservations before launching again.");
    }
    Explanation {
        title: "Not covered by your reservation".to_owned(),
        explanation: format!(
            "{refused_text} is not in the account's reservations, the API answered. While the account has a reservation, launches are allowed only where it is.{server_says}"
        ),
        remedy,
    }
}

/// Where the org capacity API's base URL is set (after "Set" or "set").
const ORG_BASE_URL_SETTING: &str =
    "the org capacity API base URL on Connect (disconnect, then connect with it) to where that API is served.";

fn detail(err: &ApiError) -> String {
    err.message.as_deref().map(|m| format!(" ({m})")).unwrap_or_default()
}

/// " (200 per window, 0 left)": the rate-limit headers the answer carried.
fn rate_limit_phrase(err: &ApiError) -> String {
    let limit = err.rate_limit.and_then(|r| r.limit).map(|limit| format!("{limit} per window"));
    let left = err.rate_limit.and_then(|r| r.remaining).map(|n| format!("{n} left"));
    match (limit, left) {
        (Some(limit), Some(left)) => format!(" ({limit}, {left})"),
        (Some(one), None) | (None, Some(one)) => format!(" ({one})"),
        (None, None) => String::new(),
    }
}

/// "199 of 200 requests left": what a `x-ratelimit-*` answer said of the key's budget, or
/// `None` when it did not say how many are left.
pub fn requests_left(rate: RateLimit) -> Option<String> {
    let left = rate.remaining?;
    Some(match rate.limit {
        Some(limit) => format!("{} of {} left", figure(left), count(limit, "request")),
        None => format!("{} left", count(left, "request")),
    })
}

/// A condition that ends by itself (a 429, a 503): shown as a calm notice that waits, not
/// an alarm. Nothing the user did is wrong, and the next try after the wait may succeed.
pub fn is_self_healing(err: &ApiError) -> bool {
    err.kind == ErrorKind::Http && matches!(err.status, Some(429 | 503))
}

/// "Wait 12 s, then try again." from `retry-after` (or the rate-limit reset), else `fallback`.
fn wait_remedy(err: &ApiError, fallback: &str) -> String {
    let wait = err.retry_after.or(err.rate_limit.and_then(|r| r.reset_after));
    match wait {
        Some(d) => format!("Wait {} s, then try again.", d.as_secs().max(1)),
        None => format!("{fallback}, then try again."),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::error::ResponseHeaders;
    use chrono::{DateTime, TimeZone, Utc};
    use std::time::Duration;

    fn now() -> DateTime<Utc> {
        Utc.with_ymd_and_hms(2026, 12, 2, 14, 5, 0).unwrap()
    }

    fn headers(pairs: &[(&str, &str)]) -> ResponseHeaders {
        ResponseHeaders::from_pairs(pairs.iter().copied())
    }

    fn error(status: u16, body: &str) -> ApiError {
        ApiError::from_response(status, &ResponseHeaders::default(), body, now())
    }

    fn error_with_code(status: u16, code: Option<&str>, message: Option<&str>) -> ApiError {
        ApiError { code: code.map(str::to_owned), message: message.map(str::to_owned), ..error(status, "") }
    }

    fn atl_b200() -> ErrorContext {
        ErrorContext { region_id: Some("atl".into()), gpu_type: Some("NVIDIA-B200".into()), ..ErrorContext::default() }
    }

    // The launch-failure mapping: one test per documented code and generic status.

    fn listed(places: &[(&str, &str, &str)]) -> Vec<Reservation> {
        places
            .iter()
            .map(|(region, gpu, status)| {
                let mut r =
                    serde_json::from_str::<Vec<Reservation>>(crate::api::models::tests::SEED_LIST).unwrap().remove(0);
                r.region_id = (*region).into();
                r.gpu_type = (*gpu).into();
                r.status = serde_json::from_value(serde_json::json!(status)).unwrap();
                r
            })
            .collect()
    }

    #[test]
    fn a_region_or_server_message_with_a_right_to_left_override_is_quoted_with_the_control_shown() {
        let ctx = ErrorContext { region_id: Some("\u{202e}lta".into()), ..atl_b200() };
        let told = explain(&error_with_code(409, Some("gpu_capacity"), Some("full \u{202e}llun")), &ctx);
        for text in [&told.title, &told.explanation, &told.remedy] {
            assert!(!text.contains('\u{202e}'), "a live override in {text:?}");
        }
        assert!(told.explanation.contains("llun"), "the server's words are still quoted: {told:?}");
    }

    #[test]
    fn reservation_only_names_every_reservation_open_to_launches_and_never_the_refused_place() {
        let e = error_with_code(403, Some("reservation_only"), Some("your reservation is in ams (H100)"));
        let list = listed(&[
            ("atl", "NVIDIA-B200", "active"),
            ("atl", "NVIDIA-B200", "scheduled"),
            ("ams", "H100", "active"),
            ("dfw", "NVIDIA-B200", "past_due"),
            ("lax", "H100", "scheduled"),
            ("lax", "H100", "active"),
            ("sea", "RTX", "ended"),
        ]);
        let x = explain(&e, &atl_b200().with_live(&list));
        assert_eq!(x.title, "Not covered by your reservation");
        assert_eq!(
            x.explanation,
            "Region atl with NVIDIA-B200 GPUs is not in the account's reservations, the API answered. While the account has a reservation, launches are allowed only where it is. The server says: “your reservation is in ams (H100)”."
        );
        assert!(
            x.remedy.starts_with(
                "The account's other reservations open to launches are in region ams with H100 GPUs; region lax with H100 GPUs: launch on one of them"
            ),
            "{}",
            x.remedy
        );
        assert!(
            x.remedy.contains(
                "Its reservations in region dfw with NVIDIA-B200 GPUs are closed to launches now (a payment due, suspended, or not started yet)."
            ),
            "a past-due reservation is named as closed, not as a place to launch: {}",
            x.remedy
        );
        assert!(x.remedy.contains("reload the reservations before launching again"), "{}", x.remedy);
        assert!(!x.remedy.contains("sea"), "an ended reservation is not live: {}", x.remedy);
        assert!(!x.remedy.contains("region atl"), "never back to the refused place: {}", x.remedy);
    }

    #[test]
    fn reservation_only_never_offers_a_reservation_closed_to_launches_as_a_place_to_launch() {
        let e = error_with_code(403, Some("reservation_only"), None);
        let list = listed(&[
            ("dfw", "NVIDIA-B200", "past_due"),
            ("lax", "H100", "suspended"),
            ("sjc", "H100", "scheduled"),
            ("ord", "H100", "awaiting_payment"),
            ("iad", "H100", "assigning"),
        ]);
        let x = explain(&e, &atl_b200().with_live(&list));
        assert!(!x.remedy.contains("launch on one of them"), "{}", x.remedy);
        assert_eq!(
            x.remedy,
            "The account has no other reservation open to launches: its reservations in region dfw with NVIDIA-B200 GPUs; region iad with H100 GPUs; region lax with H100 GPUs; region ord with H100 GPUs; region sjc with H100 GPUs are closed to launches now (a payment due, suspended, or not started yet)."
        );
    }

    #[test]
    fn reservation_only_without_the_list_still_quotes_the_server() {
        let e = error_with_code(403, Some("reservation_only"), Some("reservation is in fra"));
        let x = explain(&e, &atl_b200());
        assert!(x.explanation.ends_with("The server says: “reservation is in fra”."), "{}", x.explanation);
        assert!(x.remedy.starts_with("The server's message names where the account's reservation is"), "{}", x.remedy);
        assert!(!x.remedy.contains("atl"), "{}", x.remedy);
    }

    fn owner() -> ErrorContext {
        ErrorContext { owner: true, ..atl_b200() }
    }

    #[test]
    fn payment_due_says_launches_are_paused_and_where_to_pay() {
        let x = explain(&error_with_code(402, Some("reservation_payment_due"), None), &owner());
        assert_eq!(x.title, "Payment overdue: launches paused");
        assert!(x
            .explanation
            .starts_with("A payment for your reservation in region atl with NVIDIA-B200 GPUs is overdue"));
        assert!(x.explanation.contains("Running workloads keep running until the stop date."), "{}", x.explanation);
        let invoice = ErrorContext { funding: Some(Funding::Invoice), ..owner() };
        let x = explain(&error_with_code(402, Some("reservation_payment_due"), None), &invoice);
        assert_eq!(x.remedy, "Pay the overdue invoice under Billing → Invoices; launches resume once it is paid.");
        let wallet = ErrorContext { funding: Some(Funding::Wallet), ..owner() };
        let x = explain(&error_with_code(402, Some("reservation_payment_due"), None), &wallet);
        assert_eq!(
            x.remedy,
            "Add credit to the account: this reservation's periods are taken from its credit; launches resume once it is paid."
        );
    }

    #[test]
    fn payment_due_on_a_suspended_reservation_does_not_say_workloads_keep_running() {
        let suspended = ErrorContext { status: Some(ReservationStatus::Suspended), ..owner() };
        let x = explain(&error_with_code(402, Some("reservation_payment_due"), None), &suspended);
        assert!(!x.explanation.contains("keep running"), "{}", x.explanation);
        assert!(x.explanation.contains("its workloads were stopped"), "{}", x.explanation);
    }

    #[test]
    fn awaiting_payment_points_to_the_first_invoice() {
        let owner = ErrorContext { owner: true, ..ErrorContext::default() };
        let x = explain(&error_with_code(402, Some("reservation_awaiting_payment"), None), &owner);
        assert_eq!(x.title, "Waiting for the first invoice");
        assert!(x.explanation.contains("starts when its first invoice is paid"));
        assert_eq!(x.remedy, "Pay the first invoice under Billing → Invoices.");
    }

    #[test]
    fn payment_remedies_shown_to_a_member_never_tell_them_to_pay() {
        for code in ["reservation_payment_due", "reservation_awaiting_payment"] {
            // A member, and a reader whose role is not known yet, are told who pays.
            let x = explain(&error_with_code(402, Some(code), None), &atl_b200());
            assert!(x.remedy.starts_with("The account owner"), "{code}: {}", x.remedy);
            let told_to_pay = format!("{} {}", x.explanation, x.remedy);
            assert!(!told_to_pay.contains("Pay "), "{code}: {told_to_pay}");
        }
    }

    #[test]
    fn a_403_on_a_launch_says_the_key_may_not_change_things() {
        let e = error(403, r#"{"error":"forbidden","message":"read-only key"}"#);
        let x = explain(&e, &atl_b200().acting(Action::Launch));
        assert_eq!(x.title, "This key may not change things");
        assert!(
            x.explanation.starts_with("The key is valid, but it is not allowed to launch workloads."),
            "{}",
            x.explanation
        );
        assert!(x.explanation.contains("launching and reclaiming change things and need a key allowed to"));
        assert!(x.explanation.ends_with("The server says: “read-only key”."), "{}", x.explanation);
        assert!(x.remedy.starts_with("Connect with a key that is allowed to launch workloads"), "{}", x.remedy);
        // A reservation_only refusal of a launch keeps its own words.
        let only = error_with_code(403, Some("reservation_only"), None);
        assert_eq!(explain(&only, &atl_b200().acting(Action::Launch)).title, "Not covered by your reservation");
    }

    #[test]
    fn a_403_on_a_reclaim_says_the_key_may_not_change_things() {
        let x = explain(&error(403, r#"{"error":"forbidden"}"#), &ErrorContext::default().acting(Action::Reclaim));
        assert_eq!(x.title, "This key may not change things");
        assert!(
            x.explanation.contains("not allowed to reclaim units (which terminates spot VMs)"),
            "{}",
            x.explanation
        );
        assert!(x.explanation.contains("an org that does not manage the reservation"), "{}", x.explanation);
        assert!(x.remedy.contains("allowed to reclaim units"), "{}", x.remedy);
    }

    #[test]
    fn a_web_page_or_a_404_from_the_org_api_says_the_base_url_may_not_serve_it() {
        let org = ErrorContext::org_api("/api");
        let page = ApiError::undecodable(200, &ResponseHeaders::default(), "The answer (HTTP 200) is a web page.");
        let x = explain(&page, &org);
        assert_eq!(x.title, "Not the org capacity API");
        assert!(
            x.explanation.starts_with(
                "The org capacity API base URL /api answered, but not with seed 000's list of reservations: this base URL does not serve the org capacity API."
            ),
            "{}",
            x.explanation
        );
        assert!(x.remedy.starts_with("Set the org capacity API base URL on Connect"), "{}", x.remedy);
        let x = explain(&error(404, r#"{"error":"not_found","message":"No endpoint"}"#), &org);
        assert!(
            x.explanation.contains(
                "answered HTTP 404: this base URL does not serve the org capacity API, or it knows no such org."
            ),
            "{}",
            x.explanation
        );
        assert!(
            x.remedy.starts_with("Check the org id; if it is right, set the org capacity API base URL"),
            "{}",
            x.remedy
        );
        // Elsewhere a 404 is about the id.
        assert_eq!(explain(&error(404, ""), &ErrorContext::default()).title, "Not found");
    }

    #[test]
    fn rate_limits_and_unavailability_heal_by_themselves_other_failures_do_not() {
        for status in [429, 503] {
            assert!(is_self_healing(&error(status, "")), "{status}");
        }
        for status in [400, 401, 402, 403, 404, 409, 500, 502] {
            assert!(!is_self_healing(&error(status, "")), "{status}");
        }
        assert!(!is_self_healing(&ApiError::network("offline")));
    }

    #[test]
    fn a_429_says_how_many_requests_are_left() {
        let h = headers(&[("x-ratelimit-limit", "200"), ("x-ratelimit-remaining", "0"), ("retry-after", "9")]);
        let x = explain(&ApiError::from_response(429, &h, "", now()), &ErrorContext::default());
        assert!(x.explanation.contains("per key (200 per window, 0 left)."), "{}", x.explanation);
    }

    #[test]
    fn gpu_capacity_suggests_a_smaller_count_or_another_node() {
        let x = explain(&error_with_code(409, Some("gpu_capacity"), None), &atl_b200());
        assert_eq!(x.title, "Not enough free GPUs on one node");
        assert!(x.explanation.contains("no single node has that many free GPUs together"));
        assert!(x.remedy.starts_with("Pick a smaller GPU count"));
    }

    #[test]
    fn storage_quota_names_the_included_storage() {
        let x = explain(&error_with_code(409, Some("reservation_storage_quota"), None), &atl_b200());
        assert_eq!(x.title, "Storage included in the reservation is full");
        assert!(x.explanation.contains("would exceed the storage included in your reservation in region atl"));
    }

    #[test]
    fn a_code_less_409_is_the_interruptible_refusal() {
        let x = explain(&error_with_code(409, None, Some("interruptible not allowed")), &ErrorContext::default());
        assert_eq!(x.title, "Reserved capacity is never interruptible");
        assert_eq!(x.remedy, "Launch again without “interruptible”.");
    }

    #[test]
    fn another_code_less_conflict_is_not_blamed_on_interruptible() {
        let x =
            explain(&error_with_code(409, None, Some("unit u3 is not on the spot market")), &ErrorContext::default());
        assert_eq!(x.title, "The request failed");
        assert_eq!(
            x.explanation,
            "The server answered HTTP 409. The server says: “unit u3 is not on the spot market”."
        );
    }

    #[test]
    fn unauthorized_asks_to_check_the_key() {
        let x = explain(&error(401, r#"{"error":"unauthorized"}"#), &ErrorContext::default());
        assert_eq!(x.title, "The API key was not accepted");
        assert!(x.remedy.starts_with("Check the key"));
    }

    #[test]
    fn forbidden_without_a_code_is_about_account_and_role() {
        let x = explain(&error(403, r#"{"error":"forbidden"}"#), &ErrorContext::default());
        assert_eq!(x.title, "Not allowed with this key");
        assert!(x.explanation.contains("not your account's, or your role does not permit it"));
    }

    #[test]
    fn not_found_sends_back_to_the_list() {
        let x = explain(&error(404, r#"{"error":"Reservation 9 not found"}"#), &ErrorContext::default());
        assert_eq!(x.title, "Not found");
        assert!(x.explanation.ends_with("The server says: “Reservation 9 not found”."));
    }

    #[test]
    fn bad_request_asks_to_check_the_values() {
        let x =
            explain(&error(400, r#"{"error":"invalid_gpus","message":"gpus must be 1-8"}"#), &ErrorContext::default());
        assert_eq!(x.title, "The request was refused");
        assert!(x.explanation.contains("gpus must be 1-8"));
    }

    #[test]
    fn the_requests_left_are_said_only_when_the_answer_counted_them() {
        let rate = |limit, remaining| RateLimit { limit, remaining, reset_after: None };
        assert_eq!(requests_left(rate(Some(200), Some(199))).as_deref(), Some("199 of 200 requests left"));
        assert_eq!(requests_left(rate(Some(1000), Some(1))).as_deref(), Some("1 of 1,000 requests left"));
        assert_eq!(requests_left(rate(None, Some(1))).as_deref(), Some("1 request left"));
        assert_eq!(requests_left(rate(Some(200), None)), None);
    }

    #[test]
    fn rate_limited_says_how_long_to_wait() {
        let h = headers(&[("retry-after", "17"), ("x-ratelimit-limit", "200")]);
        let e = ApiError::from_response(429, &h, r#"{"error":"rate_limit_exceeded","message":"slow down"}"#, now());
        let x = explain(&e, &ErrorContext::default());
        assert_eq!(x.title, "Too many requests");
        assert!(x.explanation.contains("(200 per window)"));
        assert_eq!(x.remedy, "Wait 17 s, then try again.");
    }

    #[test]
    fn rate_limited_without_retry_after_falls_back_to_the_window_reset() {
        let h = headers(&[("x-ratelimit-reset", "41")]);
        let x = explain(&ApiError::from_response(429, &h, "", now()), &ErrorContext::default());
        assert_eq!(x.remedy, "Wait 41 s, then try again.");
        assert_eq!(explain(&error(429, ""), &ErrorContext::default()).remedy, "Wait a minute, then try again.");
    }

    #[test]
    fn a_quoted_sentence_keeps_its_own_full_stop_and_a_proxy_page_is_never_quoted() {
        let x =
            explain(&error(404, r#"{"error":"not_found","message":"Reservation 9 not found."}"#), &Default::default());
        assert!(x.explanation.ends_with("The server says: “Reservation 9 not found.”"), "{}", x.explanation);
        let x = explain(&error(502, "<html><body><h1>502 Bad Gateway</h1>nginx.</body></html>"), &Default::default());
        assert!(!x.explanation.contains("The server says") && !x.explanation.contains(".."), "{}", x.explanation);
    }

    #[test]
    fn server_errors_are_transient_and_503_waits_a_few_seconds() {
        let x = explain(&error(500, ""), &ErrorContext::default());
        assert_eq!(x.title, "The server had a problem");
        assert!(x.explanation.contains("HTTP 500"));
        let x = explain(&error(502, "<html>bad gateway</html>"), &ErrorContext::default());
        assert!(x.explanation.contains("with a web page instead of JSON"));
        let x = explain(&error(503, ""), &ErrorContext::default());
        assert_eq!(x.title, "The service is temporarily unavailable");
        assert_eq!(x.remedy, "Wait a few seconds, then try again.");
    }

    #[test]
    fn network_failure_suggests_checking_the_connection_and_base_url() {
        let x = explain(&ApiError::network("TypeError: Failed to fetch"), &ErrorContext::default());
        assert_eq!(x.title, "Could not reach the API");
        assert!(x.explanation.ends_with("(TypeError: Failed to fetch)"));
        assert!(x.remedy.contains("API base URL"));
    }

    #[test]
    fn timeout_says_the_request_was_stopped() {
        let x = explain(&ApiError::timeout(Duration::from_secs(10)), &ErrorContext::default());
        assert_eq!(x.title, "The API did not answer in time");
        assert_eq!(x.explanation, "No answer within 10 s. The request was stopped.");
    }

    #[test]
    fn decode_failure_says_the_answer_was_unreadable() {
        let e =
            ApiError::undecodable(200, &headers(&[("x-ecolink-request-id", "req_9")]), "cut off at line 1 column 9");
        let x = explain(&e, &ErrorContext::default());
        assert_eq!(x.title, "The answer could not be read");
        assert!(x.explanation.contains("cut off at line 1 column 9"));
        assert_eq!(e.request_id.as_deref(), Some("req_9"));
    }

    #[test]
    fn a_refused_request_is_not_blamed_on_the_server() {
        let x = explain(&ApiError::invalid_request("“..” is not a valid id."), &ErrorContext::default());
        assert_eq!(x.title, "The request was not sent");
        assert_eq!(x.explanation, "“..” is not a valid id.");
    }

    #[test]
    fn an_undocumented_status_and_code_are_named() {
        let x = explain(&error(418, r#"{"error":"teapot"}"#), &ErrorContext::default());
        assert_eq!(x.title, "The request failed");
        assert_eq!(x.explanation, "The server answered HTTP 418 with code teapot.");
    }

    #[test]
    fn every_error_status_and_code_has_a_title_and_a_remedy() {
        let codes = [None, Some("gpu_capacity"), Some("reservation_only"), Some("teapot")];
        for status in 400..=599 {
            for code in codes {
                let x = explain(&error_with_code(status, code, None), &ErrorContext::default());
                assert!(!x.title.is_empty() && !x.remedy.is_empty(), "{status} {code:?}: {x:?}");
            }
        }
    }
}
