//! The DevTools protocol through chromedriver's `goog/cdp/execute`, for what WebDriver
//! has no command for: scripts run before the page's own, the HTTP cache, and the JS heap.

use e2e::Browser;
use serde_json::{json, Value};

/// Sends one DevTools command to the session's page (through the e2e harness) and returns
/// its result.
async fn send(browser: &Browser, method: &'static str, params: Value) -> Value {
    browser.cdp(method, params).await
}

/// Runs `source` in every document the session opens from now on, before its own scripts.
pub async fn run_on_every_document(browser: &Browser, source: String) {
    send(browser, "Page.addScriptToEvaluateOnNewDocument", json!({ "source": source })).await;
}

/// Every load comes from the server, as a first visit does (and no compiled wasm is reused).
pub async fn disable_cache(browser: &Browser) {
    send(browser, "Network.enable", json!({})).await;
    send(browser, "Network.setCacheDisabled", json!({ "cacheDisabled": true })).await;
}

/// Turns the HTTP cache on or off for the loads that follow (it is off for the timings);
/// `fresh` empties it first, as for a first visit.
pub async fn use_cache(browser: &Browser, on: bool, fresh: bool) {
    if fresh {
        send(browser, "Network.clearBrowserCache", json!({})).await;
    }
    send(browser, "Network.setCacheDisabled", json!({ "cacheDisabled": !on })).await;
}

/// Bytes in use on the page's JS heap after a full garbage collection.
pub async fn js_heap_after_gc(browser: &Browser) -> f64 {
    send(browser, "HeapProfiler.collectGarbage", json!({})).await;
    let usage = send(browser, "Runtime.getHeapUsage", json!({})).await;
    usage["usedSize"].as_f64().unwrap_or_else(|| panic!("Runtime.getHeapUsage answered {usage}"))
}

/// The page's main-thread busy time so far (Chromium's `TaskDuration`), in milliseconds.
pub async fn busy_ms(browser: &Browser) -> f64 {
    send(browser, "Performance.enable", json!({})).await;
    let metrics = send(browser, "Performance.getMetrics", json!({})).await;
    let task = metrics["metrics"].as_array().and_then(|all| all.iter().find(|m| m["name"] == "TaskDuration"));
    task.and_then(|m| m["value"].as_f64())
        .map(|seconds| seconds * 1000.0)
        .unwrap_or_else(|| panic!("Performance.getMetrics has no TaskDuration: {metrics}"))
}
