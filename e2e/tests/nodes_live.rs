//! The live nodes view against the simulator's clock: a poll brings a placement change
//! to the grid, and pausing really stops the requests.

use std::time::Duration;

use e2e::{Console, OWNER_KEY};
use serde_json::Value;

/// A fast poll, which the console honours on loopback hosts only.
const NODES_PAGE: &str = "/reservations/12/nodes?poll_ms=300";
const NODES_API: &str = "/api/gpu-reservations/12/nodes";

/// Each node card's name and visible text.
async fn cards(console: &Console) -> Vec<(String, String)> {
    let found = console
        .browser
        .script(
            "return [...document.querySelectorAll('article.node-card')]
                .map(c => [c.querySelector('.node-name').textContent, c.innerText])",
        )
        .await;
    found.as_array().into_iter().flatten().map(|pair| (text(&pair[0]), text(&pair[1]))).collect()
}

/// The numbers of a JSON array (times read off resource timing), in order.
fn times(value: &Value) -> Vec<f64> {
    value.as_array().into_iter().flatten().filter_map(Value::as_f64).collect()
}

fn text(value: &Value) -> String {
    value.as_str().unwrap_or_default().to_owned()
}

async fn polls(console: &Console) -> u64 {
    let element = console.browser.wait_for("section.nodes-page").await;
    let count = element.attr("data-poll-count").await.ok().flatten();
    count.and_then(|c| c.parse().ok()).unwrap_or(0)
}

async fn open_nodes(console: &Console) {
    console.connect(OWNER_KEY).await;
    console.navigate(NODES_PAGE).await;
    console.browser.wait_for("article.node-card").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_poll_brings_a_placement_change_to_the_grid_and_only_that_card_is_redrawn() {
    let console = Console::start().await;
    console.sim.freeze_clock().await;
    open_nodes(&console).await;
    let browser = &console.browser;
    browser
        .eventually("two polls of the frozen placement", || async {
            let n = polls(&console).await;
            if n >= 2 {
                Ok(())
            } else {
                Err(format!("{n} polls"))
            }
        })
        .await;
    let before = cards(&console).await;
    assert_eq!(before.len(), 4, "reservation 12 has 4 nodes: {before:?}");
    // Marks each card's DOM element: a card that is redrawn loses its mark.
    browser
        .script("document.querySelectorAll('article.node-card').forEach(c => c.dataset.e2eSeen = c.querySelector('.node-name').textContent)")
        .await;

    let changed = console.sim.churn(12, 1).await;
    let [changed] = changed.as_slice() else { panic!("one node churned, got {changed:?}") };
    let after = browser
        .eventually(format!("the grid to show the new workloads on {changed}"), || async {
            let now = cards(&console).await;
            let moved = now.iter().zip(&before).any(|((name, a), (_, b))| name == changed && a != b);
            if moved {
                Ok(now)
            } else {
                Err(format!("{now:?}"))
            }
        })
        .await;
    for ((name, a), (_, b)) in after.iter().zip(&before) {
        if name != changed {
            assert_eq!(a, b, "{name} did not change at the simulator");
        }
    }
    let kept = browser
        .script("return [...document.querySelectorAll('article.node-card')].filter(c => c.dataset.e2eSeen).map(c => c.dataset.e2eSeen)")
        .await;
    let kept: Vec<String> = kept.as_array().into_iter().flatten().map(text).collect();
    let unchanged: Vec<&String> = before.iter().map(|(name, _)| name).filter(|n| *n != changed).collect();
    for name in unchanged {
        assert!(kept.contains(name), "unchanged card {name} was redrawn; cards kept: {kept:?}");
    }
    console.screenshots("owner-nodes-12-after-churn").await;
    console.assert_no_console_errors(&[]).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pausing_stops_the_polls_until_resumed() {
    let console = Console::start().await;
    open_nodes(&console).await;
    let browser = &console.browser;
    browser.wait_for_text(".live-status", "Live").await;

    browser.click(".live-bar button").await;
    browser.wait_for_text(".live-status", "Paused").await;
    assert_eq!(browser.text(".live-bar button").await, "Resume");
    // A request that was in flight when the pause was clicked has ended by now.
    browser
        .eventually("no /nodes request in flight", || async {
            let log = console.sim.requests(NODES_API).await;
            let open = log.requests.iter().filter(|r| r.finished_ms.is_none()).count();
            if open == 0 {
                Ok(())
            } else {
                Err(format!("{open} in flight"))
            }
        })
        .await;
    console.sim.clear_requests().await;
    let polls_paused = polls(&console).await;
    // Absence can only be seen over time: ten poll intervals.
    tokio::time::sleep(Duration::from_secs(3)).await;
    let log = console.sim.requests(NODES_API).await;
    assert!(log.requests.is_empty(), "no /nodes request while paused, saw {:?}", log.requests);
    assert_eq!(polls(&console).await, polls_paused, "the page counted no poll while paused");
    console.screenshots("owner-nodes-12-paused").await;

    browser.click(".live-bar button").await;
    browser.wait_for_text(".live-status", "Live").await;
    browser
        .eventually("a /nodes request after resuming", || async {
            let log = console.sim.requests(NODES_API).await;
            if log.requests.is_empty() {
                Err("none".to_owned())
            } else {
                Ok(())
            }
        })
        .await;
    console.assert_no_console_errors(&[]).await;
}

/// A page opened at its own address, with the key kept for the tab, finds its first read
/// already sent: `index.html` sends it while the document is still being parsed, before
/// any of the console's code can run (a module script runs once parsing is over), where it
/// waited for the code before, a first visit's longest wait on a slow link; and the page
/// takes that answer as its own, so there is one read, not two. The reservations list and
/// a Nodes page, each loaded afresh.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_page_opened_at_its_address_sends_its_first_read_before_its_code_and_once() {
    let console = Console::start().await;
    console.sim.freeze_clock().await;
    console.connect_keeping_key(OWNER_KEY).await;
    for (page, shown, read) in [
        ("/reservations", "table.reservations-table tbody tr", "/api/gpu-reservations"),
        ("/reservations/12/nodes", "article.node-card", NODES_API),
    ] {
        console.open(page).await;
        console.browser.wait_for(shown).await;
        let found = console
            .browser
            .client()
            .execute(
                "const [read] = arguments;
                 const parsed = performance.getEntriesByType('navigation')[0].domInteractive;
                 const reads = performance.getEntriesByType('resource').filter(r => new URL(r.name).pathname === read);
                 return { parsed, reads_sent: reads.map(r => r.startTime) };",
                vec![Value::from(read)],
            )
            .await
            .expect("resource timing");
        let parsed = found["parsed"].as_f64().unwrap_or_else(|| panic!("{page}: navigation timing: {found}"));
        let reads = times(&found["reads_sent"]);
        assert_eq!(reads.len(), 1, "{page}: one read of {read}: {found}");
        assert!(reads[0] < parsed, "{page}: the read left at {} ms, the document was parsed at {parsed} ms", reads[0]);
    }
    console.assert_no_console_errors(&[]).await;
}

/// The list's placement reads (one `/nodes` per reservation that runs workloads) leave only
/// once the list's first paint is on screen, as the browser reports it: a read sent before
/// the frame was shown is counted by Lighthouse, a round trip each, in the time to the
/// list's largest paint. Three fresh loads, since the order was a race before.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_lists_placement_reads_wait_until_its_first_paint_is_on_screen() {
    let console = Console::start().await;
    console.sim.freeze_clock().await;
    console.connect_keeping_key(OWNER_KEY).await;
    for load in 1..=3 {
        console.open("/reservations").await;
        console.browser.wait_for("table.reservations-table .in-use:not([aria-busy])").await;
        let found = console
            .browser
            .script(
                "const painted = performance.getEntriesByName('first-contentful-paint')[0];
                 const reads = performance.getEntriesByType('resource')
                     .filter(r => /^\\/api\\/gpu-reservations\\/\\d+\\/nodes$/.test(new URL(r.name).pathname));
                 return { painted: painted ? painted.startTime : null, reads_sent: reads.map(r => r.startTime) };",
            )
            .await;
        let painted = found["painted"].as_f64().unwrap_or_else(|| panic!("load {load}: no first paint: {found}"));
        let reads = times(&found["reads_sent"]);
        let first =
            reads.iter().copied().reduce(f64::min).unwrap_or_else(|| panic!("load {load}: no placement read: {found}"));
        assert!(
            first > painted,
            "load {load}: a placement read left at {first} ms, the list was on screen at {painted} ms"
        );
    }
    console.assert_no_console_errors(&[]).await;
}

/// The Nodes page's first read leaves beside the page's code, not after it: on the first
/// visit the `/nodes` request starts before the page's chunk has arrived (a large
/// reservation's grid waited for both, one after the other), and that read is the page's
/// first poll: one request, not the router's and then the page's own.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_first_visit_reads_the_nodes_while_the_page_code_loads_and_only_once() {
    let console = Console::start().await;
    console.sim.freeze_clock().await;
    console.connect(OWNER_KEY).await;
    // Connect lands on the overview, whose own reads of this reservation's nodes may be
    // under way: only what starts from here on counts.
    let since = console.browser.script("return performance.now()").await;
    // The default interval (5 s): no second poll before the checks below.
    console.navigate("/reservations/12/nodes").await;
    console.browser.wait_for("article.node-card").await;
    let found = console
        .browser
        .client()
        .execute(
            "const [since] = arguments;
             const all = performance.getEntriesByType('resource');
             const chunk = all.find(r => r.name.includes('/split_nodes-'));
             const reads = all.filter(r => r.name.includes('/api/gpu-reservations/12/nodes') && r.startTime >= since);
             return { chunk_arrived: chunk ? chunk.responseEnd : null, reads_sent: reads.map(r => r.startTime) };",
            vec![since],
        )
        .await
        .expect("resource timing");
    let arrived = found["chunk_arrived"].as_f64().unwrap_or_else(|| panic!("the page's chunk was fetched: {found}"));
    let reads = times(&found["reads_sent"]);
    assert_eq!(reads.len(), 1, "one read for the first grid: {found}");
    assert!(reads[0] < arrived, "the read left at {} ms, the page's code arrived at {arrived} ms", reads[0]);
    console.assert_no_console_errors(&[]).await;
}
