//! What the fault matrix and the soak check besides the page: console errors no fault
//! explains, and the most requests the simulator saw in flight on one path.

use hyper::Method;

use crate::{Browser, Simulator};

/// Chromium's `SEVERE` console entries that no simulator fault or cut gate explains: those
/// explain a failed load answering one of the faults' statuses, or a refused or reset
/// connection.
pub async fn unexplained_console_errors(browser: &Browser) -> Vec<String> {
    const FAULT_STATUSES: [u16; 5] = [401, 429, 500, 502, 503];
    let explained = |entry: &crate::ConsoleEntry| {
        entry.source == "network"
            && (FAULT_STATUSES.iter().any(|status| entry.message.contains(&format!("status of {status} ")))
                || entry.message.contains("ERR_CONNECTION_REFUSED")
                || entry.message.contains("ERR_CONNECTION_RESET"))
    };
    browser.console_errors().await.into_iter().filter(|e| !explained(e)).map(|e| e.to_string()).collect()
}

/// The most requests in flight at once on `path` since the log was last cleared (the
/// harness's `RequestLog` has only the total over all paths, which counts a page's
/// detail read beside its first poll).
pub async fn max_in_flight_on(sim: &Simulator, path: &str) -> u64 {
    let answer = sim.hook(Method::GET, &format!("/requests?path_prefix={path}"), None).await;
    answer["max_in_flight"][path].as_u64().unwrap_or(0)
}
