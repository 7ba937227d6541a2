//! The fault matrix (issue 6): the live Nodes page through every failure the API can
//! produce, one browser session for all of them. For each fault, with data on screen:
//! the page keeps the data, marks it stale with its age and shows the mapped error with
//! the request id where one was sent; polling backs off as CONTRACT.md says (gaps measured
//! at the simulator), never has two requests in flight, and recovers by itself once the
//! fault is off. A revoked key goes back to Connect with the reason, and reconnecting
//! returns to the page. The matrix is printed and written to target/e2e/fault-matrix.md.
//!
//! The browser talks to the simulator through a [`Gate`], so that the network can drop
//! (connection refused) and come back on the same port while the simulator runs on.

use std::fmt::Write as _;
use std::time::{Duration, Instant};

use e2e::gate::Gate;
use e2e::resilience::{max_in_flight_on, unexplained_console_errors};
use e2e::{Console, LoggedRequest, OWNER_KEY};
use hyper::Method;
use serde_json::{json, Value};

/// A fast poll (honoured on loopback only): normal polls 300 ms apart, so a backoff of
/// seconds stands out in the request log.
const NODES_PAGE: &str = "/reservations/12/nodes?poll_ms=300";
const NODES_API: &str = "/api/gpu-reservations/12/nodes";
const INTERVAL_S: f64 = 0.3;
/// The client aborts a request after 10 s (`REQUEST_TIMEOUT`); the slow fault answers
/// just after, so the aborted request has ended at the simulator before the next starts.
const TIMEOUT_S: f64 = 10.0;
const SLOW_MS: u64 = 10_500;
/// Jitter shortens a backoff by up to a quarter (`JITTER_FRACTION`).
const JITTER: f64 = 0.25;
/// Timer and network slack on a loaded 2-core machine.
const SLACK_S: f64 = 0.6;
/// How long a fault or a recovery may take to show.
const SHOW: Duration = Duration::from_secs(25);

/// What the page shows, read in one script so that the parts agree.
#[derive(Debug, Clone)]
struct Page {
    path: String,
    cards: Vec<String>,
    stale_grid: bool,
    status: String,
    error_title: Option<String>,
    error_text: Option<String>,
    request_id: Option<String>,
    unreachable: Option<String>,
    rejected: Option<String>,
    polls: i64,
}

const READ_PAGE: &str = r#"
const q = s => document.querySelector(s);
const text = s => { const e = q(s); return e ? e.innerText : null; };
return {
  path: location.pathname + location.search,
  // A card's placement: its head and body, not its use line (which grows with every poll).
  cards: [...document.querySelectorAll('article.node-card')]
    .map(c => [...c.children].filter(e => !e.classList.contains('node-line')).map(e => e.innerText).join('\n')),
  stale_grid: !!q('.node-grid.stale'),
  status: text('.live-status') || '',
  error_title: text('.nodes-page .error-panel .error-title'),
  error_text: text('.nodes-page .error-panel'),
  request_id: text('.nodes-page .error-panel code.request-id'),
  unreachable: text('.nodes-page .unreachable'),
  rejected: text('.rejected'),
  polls: Number((q('section.nodes-page') || {dataset: {}}).dataset.pollCount ?? -1),
};"#;

fn string(value: &Value) -> Option<String> {
    value.as_str().map(str::to_owned)
}

struct Rig {
    console: Console,
    gate: Gate,
    rows: Vec<Row>,
}

/// One line of the matrix.
struct Row {
    fault: &'static str,
    shown: String,
    recovered: bool,
    requests: String,
}

impl Rig {
    async fn page(&self) -> Page {
        let v = self.console.browser.script(READ_PAGE).await;
        Page {
            path: string(&v["path"]).unwrap_or_default(),
            cards: v["cards"].as_array().into_iter().flatten().filter_map(string).collect(),
            stale_grid: v["stale_grid"].as_bool().unwrap_or(false),
            status: string(&v["status"]).unwrap_or_default(),
            error_title: string(&v["error_title"]),
            error_text: string(&v["error_text"]),
            request_id: string(&v["request_id"]),
            unreachable: string(&v["unreachable"]),
            rejected: string(&v["rejected"]),
            polls: v["polls"].as_i64().unwrap_or(-1),
        }
    }

    /// Polls the page until `ready` accepts it, failing after [`SHOW`] with `what`.
    async fn until(&self, what: &str, ready: impl Fn(&Page) -> bool) -> Page {
        let deadline = Instant::now() + SHOW;
        loop {
            let page = self.page().await;
            if ready(&page) {
                return page;
            }
            assert!(Instant::now() < deadline, "waited {SHOW:?} for {what}; the page showed {page:#?}");
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    /// Waits until the simulator has logged `n` finished /nodes requests.
    async fn logged(&self, what: &str, n: usize) -> Vec<LoggedRequest> {
        let deadline = Instant::now() + SHOW;
        loop {
            let log = finished(self.console.sim.requests(NODES_API).await.requests);
            if log.len() >= n {
                return log;
            }
            assert!(Instant::now() < deadline, "waited {SHOW:?} for {n} {what}; the log has {log:#?}");
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    /// Live, current, no error: the state each fault starts from and recovers to.
    async fn healthy(&self, what: &str) -> Page {
        self.until(what, |p| {
            p.path == NODES_PAGE
                && p.cards.len() == 4
                && p.error_title.is_none()
                && p.unreachable.is_none()
                && !p.stale_grid
                && p.status.starts_with("Live")
                && p.status.contains("updated")
                && !p.status.contains("stale")
                && !p.cards.iter().any(|c| c.contains("unrecognised"))
        })
        .await
    }

    async fn fault(&self, body: Value) {
        let mut body = body;
        body["path_prefix"] = json!(NODES_API);
        self.console.sim.hook(Method::POST, "/faults", Some(body)).await;
        // Cleared after the fault is on: every request logged from here on met it.
        self.console.sim.clear_requests().await;
    }

    async fn max_in_flight(&self) -> u64 {
        max_in_flight_on(&self.console.sim, NODES_API).await
    }

    /// `target/e2e-screenshots/fault-<fault>.png`, of the page as the fault left it.
    async fn screenshot(&self, fault: &str) {
        let slug: String =
            fault.split(' ').next().unwrap_or(fault).chars().filter(char::is_ascii_alphanumeric).collect();
        self.console.browser.screenshot(&format!("fault-{slug}")).await;
    }

    fn record(&mut self, row: Row) {
        println!("| {} | {} | {} | {} |", row.fault, row.shown, yes_no(row.recovered), row.requests);
        self.rows.push(row);
    }

    /// Connects through the gate on the Nodes page's address; Connect brings it back there.
    async fn connect_on_nodes(&self) {
        let browser = &self.console.browser;
        browser.goto(&format!("{}{NODES_PAGE}", self.gate.url())).await;
        browser.wait_for("#api-key").await;
        browser.type_into("#base-url", "/api").await;
        browser.type_into("#api-key", OWNER_KEY).await;
        browser.click("form.connect-form button[type=submit]").await;
    }
}

fn yes_no(b: bool) -> &'static str {
    if b {
        "yes"
    } else {
        "no"
    }
}

/// Finished requests in the order they started.
fn finished(mut log: Vec<LoggedRequest>) -> Vec<LoggedRequest> {
    log.retain(|r| r.finished_ms.is_some());
    log.sort_by(|a, b| a.started_ms.total_cmp(&b.started_ms));
    log
}

/// Seconds from the end of each request to the start of the next: the client's wait.
fn gaps(log: &[LoggedRequest]) -> Vec<f64> {
    log.windows(2).map(|w| (w[1].started_ms - w[0].finished_ms.unwrap_or(w[0].started_ms)) / 1000.0).collect()
}

fn seconds(gaps: &[f64]) -> String {
    let listed: Vec<String> = gaps.iter().map(|g| format!("{g:.1}")).collect();
    format!("[{}] s", listed.join(", "))
}

/// The wait after the `failures`-th failure in a row without `retry-after`: 2^n s (never
/// below the interval, capped at 60 s), shortened by jitter.
fn backoff_range(failures: u32) -> (f64, f64) {
    let base = f64::from(1u32 << failures).clamp(INTERVAL_S, 60.0);
    (base * (1.0 - JITTER) - SLACK_S / 2.0, base + SLACK_S)
}

fn assert_within(what: &str, gap: f64, (low, high): (f64, f64)) {
    assert!(gap >= low && gap <= high, "{what}: waited {gap:.2} s, expected {low:.2}–{high:.2} s");
}

/// What every failing poll must leave on the page: the data it had, stale with its age,
/// and the mapped error.
fn assert_kept_stale_and_explained(fault: &str, before: &Page, during: &Page, title: &str) {
    assert_eq!(during.cards, before.cards, "{fault}: the cards keep the placement they had");
    assert!(during.stale_grid, "{fault}: the grid is marked stale: {during:#?}");
    assert!(
        during.status.contains("last updated")
            && during.status.contains(" ago")
            && during.status.contains("shown as stale"),
        "{fault}: the status line gives the data's age and says it is stale: {:?}",
        during.status
    );
    assert_eq!(during.error_title.as_deref(), Some(title), "{fault}: the mapped error: {during:#?}");
}

fn shown(page: &Page) -> String {
    let title = page.error_title.clone().unwrap_or_default();
    let id = page.request_id.as_deref().map_or("no request id".to_owned(), |id| format!("request id {id}"));
    format!("cards kept, stale; “{title}”, {id}")
}

/// A fault answered with an error (or an unreadable 200) on every poll until cleared:
/// `failures` failed polls, then the fault is cleared and the next poll must succeed.
/// `expected_wait(n)` is the range of the wait after the n-th failure.
async fn failing_fault(
    rig: &mut Rig,
    fault: &'static str,
    body: Value,
    failures: u32,
    title: &str,
    expected_wait: impl Fn(u32) -> (f64, f64),
) {
    let before = rig.healthy(&format!("a healthy page before {fault}")).await;
    rig.fault(body).await;
    // The page and the log agree: the error shown is that of the last failed answer.
    let deadline = Instant::now() + SHOW;
    let during = loop {
        let log = finished(rig.console.sim.requests(NODES_API).await.requests);
        let page = rig.page().await;
        let shows_last = page.error_title.is_some() && page.request_id == log.last().map(|r| r.request_id.clone());
        if log.len() >= failures as usize && shows_last {
            break page;
        }
        assert!(
            Instant::now() < deadline,
            "waited {SHOW:?} for {fault} shown after {failures} failed polls; log {log:#?}, page {page:#?}"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    // Cleared at once: the next attempt is at least a backoff away, and until then the
    // page still shows the fault for the screenshot.
    rig.console.sim.clear_faults().await;
    rig.screenshot(fault).await;
    assert_kept_stale_and_explained(fault, &before, &during, title);
    if let Some(text) = &during.error_text {
        assert!(!text.contains('<'), "{fault}: no markup of the answer is shown: {text}");
    }
    let after = rig.healthy(&format!("recovery from {fault}")).await;
    assert_eq!(after.cards, before.cards, "{fault}: the same placement once recovered");
    let log = rig.logged(&format!("{fault} and the recovery"), failures as usize + 1).await;
    let failed = &log[..failures as usize];
    let recovery = &log[failures as usize];
    assert_eq!(recovery.status, Some(200), "{fault}: the first poll after clearing succeeds");
    let waits = gaps(&log[..=failures as usize]);
    for (n, wait) in (1..).zip(&waits) {
        assert_within(&format!("{fault}: wait after failure {n}"), *wait, expected_wait(n));
    }
    let statuses: Vec<String> = failed.iter().map(|r| r.status.map_or("—".to_owned(), |s| s.to_string())).collect();
    let in_flight = rig.max_in_flight().await;
    assert!(in_flight <= 1, "{fault}: at most one request in flight, saw {in_flight}");
    let requests = format!(
        "{failures} failed ({}), waits {}, then 200; max in flight {in_flight}",
        statuses.join(", "),
        seconds(&waits)
    );
    rig.record(Row { fault, shown: shown(&during), recovered: true, requests });
}

/// A fault that is not an error (`unknown_enum`, `unreachable`): polling stays on its
/// normal interval, and `check` says what the page must show meanwhile.
async fn answered_fault(
    rig: &mut Rig,
    fault: &'static str,
    body: Value,
    check: impl Fn(&Page, &Page) -> Option<String>,
) {
    let before = rig.healthy(&format!("a healthy page before {fault}")).await;
    rig.fault(body).await;
    let during = rig.until(&format!("{fault} shown"), |p| check(&before, p).is_some()).await;
    let log = rig.logged(&format!("{fault} answers"), 4).await;
    rig.screenshot(fault).await;
    rig.console.sim.clear_faults().await;
    let waits = gaps(&log);
    assert!(
        waits.iter().all(|w| *w < INTERVAL_S + 1.0),
        "{fault} is no error: polls stay on the normal interval, waits {}",
        seconds(&waits)
    );
    assert!(log.iter().all(|r| r.status == Some(200)), "{fault}: {log:#?}");
    assert!(during.error_title.is_none(), "{fault} is no error: {during:#?}");
    let what = check(&before, &during).expect("checked above");
    rig.healthy(&format!("recovery from {fault}")).await;
    let in_flight = rig.max_in_flight().await;
    assert!(in_flight <= 1, "{fault}: at most one request in flight, saw {in_flight}");
    let requests = format!(
        "{} answered 200, waits ≤ {:.1} s; max in flight {in_flight}",
        log.len(),
        waits.iter().cloned().fold(0.0, f64::max)
    );
    rig.record(Row { fault, shown: what, recovered: true, requests });
}

/// The slow fault: the client gives up after its timeout, then backs off.
async fn slow_fault(rig: &mut Rig) {
    let fault = "slow (10.5 s > 10 s timeout)";
    let before = rig.healthy("a healthy page before the slow fault").await;
    rig.fault(json!({ "kind": "slow", "delay_ms": SLOW_MS })).await;
    let during =
        rig.until("the timeout shown", |p| p.error_title.as_deref() == Some("The API did not answer in time")).await;
    rig.console.sim.clear_faults().await;
    rig.screenshot(fault).await;
    assert_kept_stale_and_explained(fault, &before, &during, "The API did not answer in time");
    assert_eq!(during.request_id, None, "no answer, so no request id to show");
    rig.healthy("recovery from the slow fault").await;
    let log = rig.logged("the slow request and the recovery", 2).await;
    let (slow, recovery) = (&log[0], &log[1]);
    let wait = (recovery.started_ms - slow.started_ms) / 1000.0 - TIMEOUT_S;
    assert_within("slow: wait after the timeout", wait, backoff_range(1));
    let in_flight = rig.max_in_flight().await;
    assert!(in_flight <= 1, "slow: the next request starts after the abandoned one ended, saw {in_flight} in flight");
    let requests = format!("1 timed out at 10 s, wait {wait:.1} s, then 200; max in flight {in_flight}");
    rig.record(Row { fault, shown: shown(&during), recovered: true, requests });
}

/// The network drops (the gate refuses connections) and comes back on the same port. No
/// request reaches the simulator meanwhile, so the waits are timed by the page's poll count.
async fn network_drop(rig: &mut Rig) {
    let fault = "network drop (connection refused)";
    let title = "Could not reach the API";
    let before = rig.healthy("a healthy page before the network drops").await;
    rig.gate.cut();
    // Timed by the page's poll count: two refused attempts, then the one after restoring.
    let mut attempts: Vec<Instant> = Vec::new();
    let mut polls = before.polls;
    let mut during: Option<Page> = None;
    let deadline = Instant::now() + SHOW;
    loop {
        let page = rig.page().await;
        if page.polls > polls {
            polls = page.polls;
            if page.error_title.as_deref() == Some(title) {
                attempts.push(Instant::now());
                during.get_or_insert_with(|| page.clone());
                if attempts.len() == 2 {
                    rig.console.sim.clear_requests().await;
                    rig.gate.restore().await;
                }
            } else if during.is_some() {
                attempts.push(Instant::now());
                break;
            }
            // Otherwise a poll that ended before the cut.
        }
        assert!(Instant::now() < deadline, "waited for refused polls and the recovery; saw {page:#?}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let during = during.expect("the refusal was shown");
    assert_kept_stale_and_explained(fault, &before, &during, title);
    assert_eq!(during.request_id, None, "no answer, so no request id to show");
    let waits: Vec<f64> = attempts.windows(2).map(|w| (w[1] - w[0]).as_secs_f64()).collect();
    for (n, wait) in (1..).zip(&waits) {
        assert_within(&format!("network drop: wait after failure {n}"), *wait, backoff_range(n));
    }
    rig.healthy("recovery after the network is back").await;
    let log = rig.logged("the first poll after the network is back", 1).await;
    assert_eq!(log[0].status, Some(200));
    let requests = format!(
        "2 refused (none reached the simulator), waits {} timed by the page's poll count, then 200",
        seconds(&waits)
    );
    rig.record(Row { fault, shown: shown(&during), recovered: true, requests });
}

/// The key is revoked mid-session: back to Connect with the reason; polling stops; after
/// reconnecting, back on the Nodes page.
async fn revoked_key(rig: &mut Rig) {
    let fault = "key revoked (401)";
    rig.healthy("a healthy page before the key is revoked").await;
    rig.fault(json!({ "kind": "revoke_key", "key": OWNER_KEY })).await;
    let connect = rig.until("Connect with the reason", |p| p.path == "/" && p.rejected.is_some()).await;
    rig.screenshot("revoked").await;
    let reason = connect.rejected.clone().unwrap_or_default();
    assert!(reason.contains("The API key was not accepted"), "the reason: {reason}");
    assert!(reason.contains(NODES_PAGE), "Connect says where it returns to: {reason}");
    let log = rig.logged("the refused poll", 1).await;
    tokio::time::sleep(Duration::from_secs(1)).await;
    let after = finished(rig.console.sim.requests(NODES_API).await.requests);
    assert_eq!(after.len(), log.len(), "no poll after the 401: {after:#?}");
    assert_eq!(log.last().and_then(|r| r.status), Some(401));
    let page = rig.console.browser.text("main").await;
    assert!(!page.contains(OWNER_KEY), "the refused key is not shown back");
    rig.console.sim.clear_faults().await;
    rig.console.browser.type_into("#api-key", OWNER_KEY).await;
    rig.console.browser.click("form.connect-form button[type=submit]").await;
    rig.healthy("the Nodes page again after reconnecting").await;
    let requests = format!("{} poll refused with 401, then none until reconnected; back on {NODES_PAGE}", log.len());
    let shown = "Connect, “The API key was not accepted”, returns to the Nodes page".to_owned();
    rig.record(Row { fault, shown, recovered: true, requests });
}

fn matrix(rows: &[Row]) -> String {
    let mut out = String::from("| fault | what the page showed | recovered | requests seen |\n|---|---|---|---|\n");
    for row in rows {
        let _ = writeln!(out, "| {} | {} | {} | {} |", row.fault, row.shown, yes_no(row.recovered), row.requests);
    }
    out
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_nodes_page_survives_every_fault_and_recovers_by_itself() {
    let started = Instant::now();
    let console = Console::start().await;
    // A frozen placement: what the page "had" stays comparable across each fault.
    console.sim.freeze_clock().await;
    let gate = Gate::open(&console.sim.url()).await;
    let mut rig = Rig { console, gate, rows: Vec::new() };
    rig.connect_on_nodes().await;
    rig.healthy("the Nodes page after connecting").await;
    println!("| fault | what the page showed | recovered | requests seen |\n|---|---|---|---|");

    // Three failures in a row: the waits double (≈2 s, 4 s, 8 s, less jitter).
    failing_fault(&mut rig, "500", json!({ "kind": "500" }), 3, "The server had a problem", backoff_range).await;
    failing_fault(
        &mut rig,
        "502 HTML page",
        json!({ "kind": "502_html" }),
        2,
        "The server had a problem",
        backoff_range,
    )
    .await;
    // The server's retry-after is waited as sent, instead of the backoff.
    let retry_after = |secs: f64| move |_| (secs - 0.05, secs + SLACK_S);
    failing_fault(
        &mut rig,
        "503 retry-after 2",
        json!({ "kind": "503", "retry_after": 2 }),
        2,
        "The service is temporarily unavailable",
        retry_after(2.0),
    )
    .await;
    failing_fault(
        &mut rig,
        "429 retry-after 3, x-ratelimit-*",
        json!({ "kind": "429", "retry_after": 3 }),
        2,
        "Too many requests",
        retry_after(3.0),
    )
    .await;
    slow_fault(&mut rig).await;
    for (fault, kind) in
        [("truncated JSON", "truncated"), ("malformed JSON", "malformed"), ("wrong-type field", "wrong_type")]
    {
        failing_fault(&mut rig, fault, json!({ "kind": kind }), 2, "The answer could not be read", backoff_range).await;
    }
    answered_fault(&mut rig, "unknown enum value", json!({ "kind": "unknown_enum" }), |_, p| {
        let card = p.cards.iter().find(|c| c.contains("hibernating (unrecognised)"))?;
        (p.cards.len() == 4 && !p.stale_grid)
            .then(|| format!("card shows the state as sent: “{}”", card.lines().take(2).collect::<Vec<_>>().join(" ")))
    })
    .await;
    answered_fault(&mut rig, "region unreachable", json!({ "kind": "unreachable" }), |before, p| {
        let banner = p.unreachable.as_ref()?;
        let kept = p.cards == before.cards && p.stale_grid;
        (kept && banner.contains("Region unreachable — placement unknown, last known at"))
            .then(|| format!("cards kept, stale; banner “{}”", banner.lines().next().unwrap_or_default()))
    })
    .await;
    // A hostile server: a body past the console's limit is an unreadable answer like any other.
    failing_fault(
        &mut rig,
        "40 MiB body (limit 32 MiB)",
        json!({ "kind": "huge_body" }),
        2,
        "The answer could not be read",
        backoff_range,
    )
    .await;
    // Absurd counts are the nodes' own figures: each node is set apart, flagged with its
    // GPUs unknown, and the answer still reads (issue 29: one absurd node hides no other).
    answered_fault(&mut rig, "GPU counts of u64::MAX", json!({ "kind": "huge_numbers" }), |_, p| {
        (p.cards.is_empty() && !p.stale_grid && p.error_title.is_none())
            .then(|| "every node set apart, its figures unknown, never drawn as zeros".to_owned())
    })
    .await;
    // retry-after as an HTTP date (whole seconds, 1–2 s ahead), the body's error in `code`.
    failing_fault(
        &mut rig,
        "503 retry-after as an HTTP date, error in `code`",
        json!({ "kind": "retry_after_text" }),
        2,
        "The service is temporarily unavailable",
        |_| (0.8, 2.0 + SLACK_S),
    )
    .await;
    answered_fault(
        &mut rig,
        "duplicate node names (a, a#2, a, empty)",
        json!({ "kind": "duplicate_names" }),
        |_, p| {
            let named_a = p.cards.iter().filter(|c| c.starts_with('a')).count();
            (p.cards.len() == 4 && named_a == 3 && !p.stale_grid)
                .then(|| "4 cards, one per node, none merged".to_owned())
        },
    )
    .await;
    network_drop(&mut rig).await;
    revoked_key(&mut rig).await;

    let table = matrix(&rig.rows);
    println!("\nFault matrix ({:.0} s):\n{table}", started.elapsed().as_secs_f64());
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/e2e");
    std::fs::create_dir_all(&dir).expect("target/e2e");
    std::fs::write(dir.join("fault-matrix.md"), &table).expect("writing target/e2e/fault-matrix.md");
    rig.console.screenshots("nodes-after-fault-matrix").await;
    // Chromium logs each failed load: the faults' statuses and refused connections are expected.
    let unexpected = unexplained_console_errors(&rig.console.browser).await;
    assert!(unexpected.is_empty(), "unexpected console errors: {unexpected:#?}");
}
