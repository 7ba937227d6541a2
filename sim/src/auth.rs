//! The shared rules' auth: `Authorization: Bearer eco_…`, one key per account and role.
//! Also where every authenticated response gets its rate-limit headers.

use crate::error::ApiError;
use crate::faults::full_path;
use crate::reservation::Account;
use crate::state::Sim;
use axum::extract::{Request, State};
use axum::http::{header, HeaderMap};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use std::sync::Arc;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    Owner,
    Member,
}

/// Who a key is.
#[derive(Clone, Copy, Debug)]
pub struct Principal {
    pub key: &'static str,
    /// How the request log names it.
    pub label: &'static str,
    pub account: Account,
    pub role: Role,
    /// The org capacity API's org this key belongs to.
    pub org: &'static str,
    /// What a person connecting with it sees, as the simulator prints it at start.
    pub shows: &'static str,
}

/// The demo keys (CONTRACT.md / issue 2; the second account's, issue 48).
const KEYS: [Principal; 5] = [
    Principal {
        key: "eco_demo_owner",
        label: "owner",
        account: Account::Demo,
        role: Role::Owner,
        org: "org_acme",
        shows: "account owner: sees payments",
    },
    Principal {
        key: "eco_demo_member",
        label: "member",
        account: Account::Demo,
        role: Role::Member,
        org: "org_acme",
        shows: "member of the same account: no payment figures",
    },
    Principal {
        key: "eco_demo_other",
        label: "other",
        account: Account::Other,
        role: Role::Owner,
        org: "org_beta",
        shows: "another company's account: its own reservation only",
    },
    Principal {
        key: "eco_europe_owner",
        label: "europe-owner",
        account: Account::Europe,
        role: Role::Owner,
        org: "org_acme",
        shows: "the demo company's second account, owner: ids 4, 9, 12 in fra, lhr, waw",
    },
    Principal {
        key: "eco_europe_member",
        label: "europe-member",
        account: Account::Europe,
        role: Role::Member,
        org: "org_acme",
        shows: "member of the second account: no payment figures",
    },
];

/// The demo keys and what each shows, one a line, for a person to connect with.
pub fn key_table() -> String {
    let width = KEYS.iter().map(|p| p.key.len()).max().unwrap_or(0);
    KEYS.iter().map(|p| format!("  {:<width$}  {}\n", p.key, p.shows)).collect()
}

/// The raw bearer token, if the header has one.
pub fn bearer(headers: &HeaderMap) -> Option<&str> {
    let value = headers.get(header::AUTHORIZATION)?.to_str().ok()?;
    value.strip_prefix("Bearer ").map(str::trim)
}

/// The key's principal, if it is one of the demo keys.
pub fn principal(headers: &HeaderMap) -> Option<Principal> {
    let token = bearer(headers)?;
    KEYS.iter().find(|p| p.key == token).copied()
}

/// Route layer of every API endpoint: `401` without a valid (unrevoked) key, `429` over the
/// limit; otherwise the handler runs with the [`Principal`] in its extensions and the answer
/// carries `x-ratelimit-*`.
pub async fn require_key(State(sim): State<Arc<Sim>>, mut request: Request, next: Next) -> Response {
    let Some(principal) = principal(request.headers()) else {
        return ApiError::unauthorized().into_response();
    };
    if sim.faults().revoked(principal.key, &full_path(&request)) {
        return ApiError::unauthorized().into_response();
    }
    let verdict = sim.limiter().hit(principal.key);
    if !verdict.allowed {
        return verdict.refusal();
    }
    request.extensions_mut().insert(principal);
    let mut response = next.run(request).await;
    verdict.write_headers(response.headers_mut());
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_key_table_names_every_key_once_a_line() {
        let table = key_table();
        assert_eq!(table.lines().count(), KEYS.len());
        for (line, principal) in table.lines().zip(KEYS) {
            assert!(line.trim_start().starts_with(principal.key) && line.ends_with(principal.shows), "{line}");
        }
    }
}
