//! Issue 47 part 2, end to end: "Tell me when it fits" on the demo's fragmented #23 (6 GPUs
//! free on 3 nodes, never 4 on one); a workload ends on node-2 and the watch fires within one
//! poll interval, exactly once, with the prefilled launch link. Screenshots of `/fit` with a
//! watch as a member and as the owner, at 390 and 1280 CSS pixels.

use e2e::{Console, MEMBER_KEY, OWNER_KEY};
use std::time::{Duration, Instant};

const QUESTION: &str = "/fit?gpus=4&region=sjc";
const NODES_23: &str = "/api/gpu-reservations/23/nodes";

/// The bell's alerts that say #23 has room now: text and link.
async fn room_on_23(console: &Console) -> Vec<String> {
    let found = console
        .browser
        .script(
            "return [...document.querySelectorAll('.alerts-list li.alert-item a')]
                .filter((a) => a.textContent.includes('now on #23'))
                .map((a) => a.textContent + ' -> ' + a.getAttribute('href'))",
        )
        .await;
    found.as_array().into_iter().flatten().filter_map(|v| v.as_str().map(str::to_owned)).collect()
}

/// How long the page waits between two reads of #23's nodes (its poll interval), from the
/// simulator's log of the reads so far.
async fn interval_of_23(console: &Console) -> Duration {
    let reads = console
        .browser
        .eventually("two reads of #23's nodes", || async {
            let log = console.sim.requests(NODES_23).await.requests;
            (log.len() >= 2).then_some(log).ok_or_else(|| "fewer than two reads".to_owned())
        })
        .await;
    let last: Vec<f64> = reads.iter().rev().take(2).map(|r| r.started_ms).collect();
    Duration::from_secs_f64((last[0] - last[1]).abs() / 1000.0)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_watch_fires_once_within_a_poll_interval_after_a_workload_ends() {
    let console = Console::start().await;
    let browser = &console.browser;
    console.connect(MEMBER_KEY).await;
    console.navigate(QUESTION).await;
    let fragmented = browser.wait_for_text("tr[data-verdict='Fragmented']", "#23").await;
    assert!(fragmented.contains("6 GPUs are free in total"), "{fragmented}");
    browser.click(".fit-watch button").await;
    let waiting = browser.wait_for_text(".fit-watch", "Watching for room for 4 GPUs since").await;
    assert!(waiting.contains("best node 2 GPUs short"), "#23 alone is in sjc, 2 GPUs free per node: {waiting}");
    assert!(waiting.contains("closing it ends the watch"), "{waiting}");
    browser.click(".alerts-bell summary").await;
    browser.wait_for_text(".alerts-list .fit-watch", "Stop watching").await;
    console.screenshots("fit-watch-member").await;

    let interval = interval_of_23(&console).await;
    let freed = console.sim.end_workload(23, "node-2").await;
    assert_eq!(freed, 4, "node-2's half lane ended: 6 GPUs free there");
    let ended = Instant::now();
    let alert = browser.wait_for_text_within(interval + Duration::from_secs(2), ".alerts-list", "now on #23").await;
    let fired_after = ended.elapsed();
    assert!(fired_after <= interval + Duration::from_secs(2), "fired {fired_after:?} after, interval {interval:?}");
    // A second later, and after one more read of #23 that still fits: still one alert.
    let reads = console.sim.requests(NODES_23).await.requests.len();
    tokio::time::sleep(Duration::from_secs(1)).await;
    browser
        .eventually("another read of #23's nodes", || async {
            let now = console.sim.requests(NODES_23).await.requests.len();
            (now > reads).then_some(()).ok_or_else(|| "not read again yet".to_owned())
        })
        .await;
    let alerts = room_on_23(&console).await;
    assert_eq!(alerts.len(), 1, "exactly once: {alerts:?} ({alert})");
    assert!(alerts[0].ends_with("-> /reservations/23/launch?gpus=4"), "the prefilled launch link: {alerts:?}");
    let row = browser.wait_for_text("tr[data-verdict='Fits now']", "#23").await;
    assert!(row.contains("Launch here"), "{row}");
    console.screenshots("fit-watch-fired-member").await;

    // The owner's page with a watch under way reads the same.
    console.sim.reset().await;
    console.connect_instead(OWNER_KEY).await;
    console.navigate(QUESTION).await;
    browser.wait_for_text("tr[data-verdict='Fragmented']", "#23").await;
    browser.click(".fit-watch button").await;
    browser.wait_for_text(".fit-watch", "Watching for room for 4 GPUs since").await;
    console.screenshots("fit-watch-owner").await;
    console.assert_no_console_errors(&[]).await;
}
