//! The measurements: each is the same steps on the console and on the baseline, timed in
//! the page by the probe (`probe.js`), so both are measured by the same instrument.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use e2e::{http, Browser, Fault, FaultKind, Simulator};
use serde_json::{json, Value};

use crate::cdp;
use crate::report::{Bounds, Growth, LongRun};
use crate::requests;
use crate::weight::{FileWeight, Weight};

/// The longest any in-page wait lasts; below WebDriver's 30 s script timeout.
const PAGE_WAIT_MS: u64 = 25_000;

/// What the watches count, the same on both pages: a row per reservation in the table,
/// a cell per GPU in the grid.
const TABLE_ROW: &str = "table.reservations-table tbody tr";
/// A row per reservation with nodes in the overview's table.
const OVERVIEW_ROW: &str = "table.fleet-table tbody tr";
const GPU_CELL: &str = ".gpu-cell";
/// Both grids are windowed: the grid is drawn when every card in the DOM has its cells.
const NODE_CARD: &str = "article.node-card";

/// One page under test: the console or the baseline, each served by its own simulator
/// (the large scenario: the demo reservations and one of 1,000 nodes × 8 GPUs).
pub struct Page {
    pub name: &'static str,
    pub sim: Arc<Simulator>,
}

impl Page {
    pub fn url(&self, path: &str) -> String {
        format!("{}{path}", self.sim.url())
    }
}

/// What the API shows the key, learnt in the page before the timed runs.
#[derive(Clone, Copy, Debug)]
pub struct Expected {
    pub reservations: u64,
    /// Reservations with nodes (all but assigning and ended): the overview's rows.
    pub with_nodes: u64,
    /// The reservation with the most nodes, and its GPUs.
    pub reservation_id: i64,
    pub gpus: u64,
    pub nodes: u64,
}

impl Expected {
    /// GPUs of a node (the scenarios' nodes all have as many).
    fn gpus_per_node(&self) -> u64 {
        self.gpus.checked_div(self.nodes).unwrap_or(0)
    }
}

const TABLE: &str = "table";
const GRID: &str = "grid";
const OVERVIEW: &str = "overview";

/// Runs an async script (its last argument is the callback) and returns what it passed.
async fn run_async(browser: &Browser, script: &str, args: Vec<Value>) -> Value {
    browser
        .client()
        .execute_async(script, args)
        .await
        .unwrap_or_else(|error| panic!("in-page script failed: {error}\n{script}"))
}

/// Reads one API path with the key, as the page itself would.
async fn api_in_page(browser: &Browser, path: &str, key: &str) -> Value {
    const FETCH: &str = "const [path, key, done] = arguments;
        fetch(path, { headers: { Authorization: 'Bearer ' + key } })
          .then((r) => r.json()).then(done, (e) => done({ error: String(e) }));";
    run_async(browser, FETCH, vec![json!(path), json!(key)]).await
}

/// Signs in on the page as a person would, keeping the key for the tab so that later loads
/// of any page start connected.
pub async fn connect(browser: &Browser, page: &Page, key: &str) {
    browser.goto(&page.url("/")).await;
    browser.type_into("#api-key", key).await;
    browser.click("input[name=keep]").await;
    browser.click("form button[type=submit]").await;
    browser
        // The console lands on its overview, the baseline (which has none) on its list.
        .eventually(format!("the {} to leave Connect after connecting", page.name), || async {
            let path = browser.current_path().await;
            if path != "/" {
                Ok(())
            } else {
                Err(path)
            }
        })
        .await;
}

/// The reservation count, and the largest reservation with its GPUs.
pub async fn expected(browser: &Browser, page: &Page, key: &str) -> Result<Expected, String> {
    browser.goto(&page.url("/")).await;
    let list = api_in_page(browser, "/api/gpu-reservations", key).await;
    let all = list.as_array().ok_or(format!("the reservations read is {list}"))?;
    let largest = all.iter().max_by_key(|r| r["node_count"].as_i64()).ok_or("the key sees no reservation")?;
    let reservation_id = largest["id"].as_i64().ok_or(format!("no id in {largest}"))?;
    let nodes = api_in_page(browser, &format!("/api/gpu-reservations/{reservation_id}/nodes"), key).await;
    let list = nodes["nodes"].as_array().ok_or(format!("the nodes read is {nodes}"))?;
    let gpus = list.iter().filter_map(|node| node["gpus"].as_u64()).sum();
    let with_nodes = all.iter().filter(|r| !matches!(r["status"].as_str(), Some("assigning" | "ended"))).count();
    Ok(Expected {
        reservations: all.len() as u64,
        with_nodes: with_nodes as u64,
        reservation_id,
        gpus,
        nodes: list.len() as u64,
    })
}

/// Installs the probe in every document from now on, watching both pages' table and grid.
pub async fn install_probe(browser: &Browser, pages: &[(&Page, Expected)]) {
    let watches: Vec<Value> = pages
        .iter()
        .flat_map(|(page, expected)| {
            [
                json!({ "origin": page.sim.url(), "path": "^/reservations$", "name": TABLE,
                        "selector": TABLE_ROW, "count": expected.reservations }),
                json!({ "origin": page.sim.url(), "path": "^/reservations/\\d+/nodes$", "name": GRID,
                        "selector": NODE_CARD, "each": GPU_CELL, "eachCount": expected.gpus_per_node() }),
                json!({ "origin": page.sim.url(), "path": "^/overview$", "name": OVERVIEW,
                        "selector": OVERVIEW_ROW, "count": expected.with_nodes }),
            ]
        })
        .collect();
    let source = format!("({})({});", include_str!("probe.js"), Value::from(watches));
    cdp::run_on_every_document(browser, source).await;
}

/// Every file the first load of the Connect page fetches (API reads aside), weighed as
/// the server holds it.
pub async fn weight(browser: &Browser, page: &Page) -> Result<Weight, String> {
    // The connect form is the first thing a new user sees, so the load is complete with it.
    browser.goto(&page.url("/")).await;
    browser.wait_for("#api-key").await;
    tokio::time::sleep(Duration::from_secs(1)).await;
    const FETCHED: &str = "
        const urls = new Set([location.origin + location.pathname]);
        for (const entry of performance.getEntriesByType('resource')) urls.add(entry.name);
        // The icon is fetched by the browser itself, outside resource timing.
        for (const link of document.querySelectorAll('link[rel~=icon]')) urls.add(link.href);
        return [...urls].map((u) => new URL(u)).filter((u) => u.origin === location.origin
            && !u.pathname.startsWith('/api/')).map((u) => u.pathname + u.search);";
    let paths = browser.script(FETCHED).await;
    let mut files = Vec::new();
    for path in paths.as_array().into_iter().flatten().filter_map(Value::as_str) {
        let url = page.url(path);
        let response = http::get(&url).await?;
        if response.status != 200 {
            return Err(format!("{url} answered {}", response.status));
        }
        files.push(FileWeight::of(path.to_owned(), &response.body));
    }
    Ok(Weight::new(files))
}

/// What Connect costs on the wire on a first and on a repeat visit (the HTTP cache on for
/// these two loads only), before connecting: a connected tab would leave Connect.
pub async fn wire_loads(browser: &Browser, page: &Page) -> (u64, u64) {
    let connect_load = || async {
        browser.goto(&page.url("/")).await;
        browser.wait_for("#api-key").await;
        tokio::time::sleep(Duration::from_secs(1)).await;
        browser.transferred_bytes().await
    };
    cdp::use_cache(browser, true, true).await;
    let first = connect_load().await;
    let repeat = connect_load().await;
    cdp::use_cache(browser, false, true).await;
    (first, repeat)
}

/// Bytes on the wire of one read of the large reservation's nodes, as the page polls it.
pub async fn poll_transfer(browser: &Browser, page: &Page, expected: &Expected, key: &str) -> Result<u64, String> {
    // On the page's own origin: the browser may still be on another simulator's (the huge
    // scenario's, whose reservation of the same id has ten times the nodes).
    browser.goto(&page.url("/")).await;
    const POLL: &str = "const [path, key, done] = arguments;
        const url = new URL(path, location.href).href;
        fetch(path, { headers: { Authorization: 'Bearer ' + key } })
          .then((r) => r.arrayBuffer())
          .then(() => {
            const entries = performance.getEntriesByName(url, 'resource');
            done(entries.length ? entries[entries.length - 1].transferSize : { error: 'no resource timing for ' + url });
          }, (e) => done({ error: String(e) }));";
    let poll = run_async(browser, POLL, vec![json!(nodes_api_path(expected)), json!(key)]).await;
    poll.as_u64().ok_or_else(|| format!("one poll of the nodes: {poll}"))
}

/// Loads `path` afresh and waits for the probe's watch `name`: milliseconds from
/// navigation start to the frame after the batch that completed it.
async fn time_to(browser: &Browser, url: &str, name: &str) -> Result<f64, String> {
    browser.goto(url).await;
    const WAIT: &str = "const [name, timeoutMs, done] = arguments;
        const started = performance.now();
        (function check() {
          const batch = window.__bench && window.__bench.first[name];
          if (batch && batch.paint !== null) return done(batch.paint);
          if (performance.now() - started > timeoutMs) return done(null);
          setTimeout(check, 20);
        })();";
    let paint = run_async(browser, WAIT, vec![json!(name), json!(PAGE_WAIT_MS)]).await;
    paint.as_f64().ok_or_else(|| format!("{url}: the {name} was not complete after {} s", PAGE_WAIT_MS / 1000))
}

/// Navigation start → the reservations table painted with every reservation.
pub async fn first_render(browser: &Browser, page: &Page) -> Result<f64, String> {
    time_to(browser, &page.url("/reservations"), TABLE).await
}

/// Navigation start → the overview (where the console's Connect lands) painted with a row
/// for every reservation that has nodes: after the list read, as both pages draw the rows
/// at once and fill their figures in as each reservation's `/nodes` arrives.
pub async fn overview_first_render(browser: &Browser, page: &Page) -> Result<f64, String> {
    time_to(browser, &page.url("/overview"), OVERVIEW).await
}

/// How long the overview waits after its rows for every reservation's `/nodes` to be read
/// (one at a time, 600 ms apart) before its steady cost is measured.
const OVERVIEW_SETTLE: Duration = Duration::from_secs(10);
/// One window of the overview's steady cost.
const OVERVIEW_WINDOW: Duration = Duration::from_secs(2);

/// The overview's cost per second once it has read everything: main-thread busy
/// milliseconds per second of wall time (its clock ticks, its polls and what they redraw),
/// over `runs` windows of [`OVERVIEW_WINDOW`], the page opened once.
pub async fn overview_busy_per_second(browser: &Browser, page: &Page, runs: usize) -> Result<Vec<f64>, String> {
    overview_first_render(browser, page).await?;
    tokio::time::sleep(OVERVIEW_SETTLE).await;
    let mut per_second = Vec::with_capacity(runs);
    for _ in 0..runs {
        let (busy, wall) = (cdp::busy_ms(browser).await, Instant::now());
        tokio::time::sleep(OVERVIEW_WINDOW).await;
        let busy = cdp::busy_ms(browser).await - busy;
        per_second.push(busy / wall.elapsed().as_secs_f64());
    }
    Ok(per_second)
}

fn nodes_path(expected: &Expected) -> String {
    format!("/reservations/{}/nodes", expected.reservation_id)
}

fn nodes_api_path(expected: &Expected) -> String {
    format!("/api/gpu-reservations/{}/nodes", expected.reservation_id)
}

/// Changes `k` ready nodes of the reservation now.
async fn churn(sim: &Simulator, expected: &Expected, k: u32) -> Result<(), String> {
    let changed = sim.churn(expected.reservation_id as u64, k as usize).await;
    if changed.len() == k as usize {
        Ok(())
    } else {
        Err(format!("the simulator changed {} nodes, not {k}", changed.len()))
    }
}

/// Navigation start → the node grid painted with the cards on screen, each with its cells.
pub async fn nodes_first_render(browser: &Browser, page: &Page, expected: Expected) -> Result<f64, String> {
    time_to(browser, &page.url(&nodes_path(&expected)), GRID).await
}

/// One poll as the probe saw it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PollTiming {
    pub ms: f64,
    pub mutations: f64,
}

/// The nodes page open at `poll_ms`, ready for one measured poll after another.
pub struct PollSession<'a> {
    browser: &'a Browser,
    page: &'a Page,
    expected: Expected,
    /// Page time just after the latest poll settled, when nothing is in flight.
    quiet_at: f64,
}

/// Waits, in the page, for the first `/nodes` response fetched after `after` and for the
/// DOM to be quiet after it (or the next response), then reports that poll's batches.
const SETTLE: &str = "const [after, quietMs, timeoutMs, done] = arguments;
    const bench = window.__bench;
    const started = performance.now();
    (function check() {
      const now = performance.now();
      const i = bench.nodes.findIndex((r) => r.start > after);
      if (i >= 0) {
        const response = bench.nodes[i].end;
        const next = i + 1 < bench.nodes.length ? bench.nodes[i + 1].end : Infinity;
        const batches = bench.batches.filter((b) => b.t >= response && b.t < next);
        const last = batches[batches.length - 1];
        const quiet = next !== Infinity || now - Math.max(response, last ? last.t : 0) >= quietMs;
        if (quiet && (!last || last.paint !== null)) {
          return done({ response, settled: last ? last.paint : null, now,
                        records: batches.reduce((n, b) => n + b.records, 0) });
        }
      }
      if (now - started > timeoutMs) return done(null);
      setTimeout(check, 10);
    })();";

/// How long the DOM must stay unchanged after a response for its update to be over.
const QUIET_MS: u64 = 150;
/// Changes that may race a poll before a single-poll timing gives up.
const RACE_ATTEMPTS: usize = 5;

impl<'a> PollSession<'a> {
    pub async fn open(
        browser: &'a Browser,
        page: &'a Page,
        expected: Expected,
        poll_ms: u64,
    ) -> Result<PollSession<'a>, String> {
        let url = page.url(&format!("{}?poll_ms={poll_ms}", nodes_path(&expected)));
        time_to(browser, &url, GRID).await?;
        let mut session = PollSession { browser, page, expected, quiet_at: 0.0 };
        session.quiet_at = session.next_poll(session.page_now().await).await?.1;
        Ok(session)
    }

    async fn page_now(&self) -> f64 {
        let now = self.browser.script("window.__bench.batches = []; return performance.now()").await;
        now.as_f64().expect("performance.now() is a number")
    }

    /// The next poll fetched after `after`: its timing and the page time it settled at.
    async fn next_poll(&self, after: f64) -> Result<(Option<PollTiming>, f64), String> {
        let args = vec![json!(after), json!(QUIET_MS), json!(PAGE_WAIT_MS)];
        let seen = run_async(self.browser, SETTLE, args).await;
        if seen.is_null() {
            return Err(format!("{}: no poll settled within {} s", self.page.name, PAGE_WAIT_MS / 1000));
        }
        let field = |name: &str| seen[name].as_f64();
        let timing = field("settled").map(|settled| PollTiming {
            ms: settled - field("response").unwrap_or(settled),
            mutations: field("records").unwrap_or(0.0),
        });
        Ok((timing, field("now").unwrap_or(after)))
    }

    /// Changes `k` nodes between two polls, then times the poll that brings the change.
    pub async fn changed(&mut self, k: u32) -> Result<PollTiming, String> {
        for _ in 0..RACE_ATTEMPTS {
            let quiet_at = self.quiet_at;
            churn(&self.page.sim, &self.expected, k).await?;
            let changed_at = self.page_now().await;
            let (timing, settled_at) = self.next_poll(changed_at).await?;
            self.quiet_at = settled_at;
            // A poll that started between the last quiet moment and the change may have
            // carried it, leaving nothing for the timed one: change again. (Asked only now,
            // when such a poll has surely ended and been recorded.)
            let raced = self
                .browser
                .script(&format!(
                    "return window.__bench.nodes.some((r) => r.start > {quiet_at} && r.start <= {changed_at})"
                ))
                .await;
            if raced != json!(true) {
                return timing.ok_or_else(|| {
                    format!("{}: a poll with {k} nodes changed left the DOM as it was", self.page.name)
                });
            }
        }
        Err(format!("{}: every change raced a poll already on its way", self.page.name))
    }
}

/// The poll count the page shows in its `data-poll-count` hook, if it has one.
async fn polls_done(browser: &Browser) -> Option<u64> {
    let count = browser
        .script(
            "const root = document.querySelector('[data-poll-count]'); return root && Number(root.dataset.pollCount)",
        )
        .await;
    count.as_u64()
}

/// Waits until the page has done `polls` polls, or until `deadline`; returns the count then.
async fn wait_for_polls(browser: &Browser, polls: u64, deadline: Instant) -> Result<u64, String> {
    // The hook appears once the page has rendered; give it as long as any in-page wait.
    let appear_by = Instant::now() + Duration::from_millis(PAGE_WAIT_MS);
    loop {
        let done = match polls_done(browser).await {
            Some(done) => done,
            None if Instant::now() < appear_by => 0,
            None => return Err("the nodes page has no [data-poll-count] to tell polls done".into()),
        };
        if done >= polls || Instant::now() >= deadline {
            return Ok(done);
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

/// How long the simulator holds back the poll during which memory is read: long enough to
/// see the page still and collect its garbage.
const HOLD: Duration = Duration::from_secs(3);
/// A poll count unchanged this long, with a poll held in the simulator, means the page is
/// idle, waiting on it.
const STILL: Duration = Duration::from_millis(700);

/// JS heap after a full collection, and wasm linear memory (None without wasm), read while
/// the page waits on a poll the simulator holds back: no response is then being parsed or
/// rendered, so the reading holds what the page keeps, not what one poll has in hand.
async fn memory_at_rest(
    browser: &Browser,
    page: &Page,
    expected: &Expected,
) -> Result<(u64, f64, Option<f64>), String> {
    let nodes = nodes_api_path(expected);
    page.sim.add_fault(Fault::new(FaultKind::Slow(HOLD)).on(&nodes).times(1)).await;
    let held_since = Instant::now();
    let mut polls = polls_done(browser).await;
    loop {
        tokio::time::sleep(STILL).await;
        let now = polls_done(browser).await;
        let held = page.sim.requests(&nodes).await.requests.last().is_some_and(|r| r.finished_ms.is_none());
        if now == polls && held {
            break;
        }
        if held_since.elapsed() > HOLD * 3 {
            return Err(format!("{}: the page never came to rest on a held poll", page.name));
        }
        polls = now;
    }
    let heap = cdp::js_heap_after_gc(browser).await;
    let wasm = browser.script("return window.__bench.wasmBytes()").await.as_f64();
    // The fault was for one request, spent already: the held poll ends after HOLD, and
    // polling goes on.
    Ok((polls.unwrap_or(0), heap, wasm))
}

/// Settings of the long run.
#[derive(Clone, Copy, Debug)]
pub struct LongRunPlan {
    pub polls: u64,
    pub first_reading: u64,
    pub poll_ms: u64,
    /// Nodes changed per churn, and the pause between churns.
    pub churn_nodes: u32,
    pub churn_every: Duration,
    /// The run stops here even short of `polls` (and says so).
    pub max_duration: Duration,
}

/// Many fast polls with placement changing all along: memory at the first reading and at
/// the end, and the most `/nodes` requests the simulator saw in flight at once.
pub async fn long_run(
    browser: &Browser,
    page: &Page,
    expected: &Expected,
    plan: LongRunPlan,
) -> Result<(LongRun, u64), String> {
    page.sim.clear_requests().await;
    let url = page.url(&format!("{}?poll_ms={}", nodes_path(expected), plan.poll_ms));
    browser.goto(&url).await;
    // The observer's records would be the probe's own garbage on the heap being measured.
    browser.script("window.__bench.observe(false); window.__bench.batches = []").await;

    let stop = Arc::new(AtomicBool::new(false));
    let churn = {
        let (stop, sim, expected) = (stop.clone(), page.sim.clone(), *expected);
        tokio::spawn(async move {
            while !stop.load(Ordering::Relaxed) {
                churn(&sim, &expected, plan.churn_nodes).await?;
                tokio::time::sleep(plan.churn_every).await;
            }
            Ok::<(), String>(())
        })
    };
    let started = Instant::now();
    let deadline = started + plan.max_duration;
    let measured = async {
        let reached = wait_for_polls(browser, plan.first_reading, deadline).await?;
        if reached < plan.first_reading {
            return Err(format!("only {reached} polls in {} s", plan.max_duration.as_secs()));
        }
        let first = memory_at_rest(browser, page, expected).await?;
        wait_for_polls(browser, plan.polls, deadline).await?;
        let last = memory_at_rest(browser, page, expected).await?;
        Ok((first, last))
    }
    .await;
    stop.store(true, Ordering::Relaxed);
    churn.await.expect("the churn task ends")?;
    let seconds = started.elapsed().as_secs_f64();
    // Leaving stops the polls before the simulator's log is read.
    browser.goto("about:blank").await;
    let ((first_at, first_heap, first_wasm), (polls, last_heap, last_wasm)) = measured?;
    let log = page.sim.requests(&nodes_api_path(expected)).await;
    let run = LongRun {
        polls,
        first_reading_at_poll: first_at,
        seconds,
        js_heap: Growth { first: first_heap, last: last_heap },
        wasm_memory: first_wasm.zip(last_wasm).map(|(first, last)| Growth { first, last }),
    };
    Ok((run, requests::max_in_flight(&log.requests)))
}

/// The `/nodes` requests of the nodes page open at its default interval for `window`.
pub struct DefaultInterval {
    /// The shortest time between the starts of two requests, and how many gaps there were.
    pub gap: (f64, usize),
    pub max_in_flight: u64,
}

/// Opens the nodes page at its default interval for `window` and reads its `/nodes` requests.
pub async fn default_interval(
    browser: &Browser,
    page: &Page,
    expected: &Expected,
    window: Duration,
) -> Result<DefaultInterval, String> {
    page.sim.clear_requests().await;
    browser.goto(&page.url(&nodes_path(expected))).await;
    tokio::time::sleep(window).await;
    browser.goto("about:blank").await;
    let log = page.sim.requests(&nodes_api_path(expected)).await;
    let gaps = requests::start_gaps_ms(&log.requests);
    let shortest = gaps.iter().copied().min_by(f64::total_cmp).ok_or(format!(
        "{}: fewer than two /nodes requests in {} s at the default interval",
        page.name,
        window.as_secs()
    ))?;
    Ok(DefaultInterval { gap: (shortest, gaps.len()), max_in_flight: requests::max_in_flight(&log.requests) })
}

impl DefaultInterval {
    /// Bounds from this window and, for the console, the long run's most in flight.
    pub fn bounds(&self, long_run_in_flight: Option<u64>) -> Bounds {
        Bounds {
            max_in_flight: self.max_in_flight.max(long_run_in_flight.unwrap_or(0)),
            min_poll_gap_ms: self.gap.0,
            gaps_seen: self.gap.1,
        }
    }
}

/// What one visit of the 10,000-node page costs, read once its first grid is drawn.
#[derive(Clone, Copy, Debug, Default)]
pub struct BigPage {
    pub dom_elements: Option<f64>,
    /// The page's own User Timing measure of its latest `/nodes` decode (the console's).
    pub decode_ms: Option<f64>,
    pub wasm_bytes: Option<f64>,
    pub js_heap_bytes: Option<f64>,
}

/// Scrolls the grid from top to bottom a screen a frame, and returns the frame times
/// (`requestAnimationFrame` to the next): each frame draws the window scrolled to.
const SCROLL_THROUGH: &str = "const [timeoutMs, done] = arguments;
    const s = document.querySelector('.node-scroll');
    if (!s) return done(null);
    const frames = [];
    const started = performance.now();
    let last = null;
    s.scrollTop = 0;
    requestAnimationFrame(function frame(t) {
      if (last !== null) frames.push(t - last);
      last = t;
      if (s.scrollTop + s.clientHeight >= s.scrollHeight - 1 || performance.now() - started > timeoutMs) return done(frames);
      s.scrollTop += s.clientHeight;
      requestAnimationFrame(frame);
    });";

/// The value at `share` (0–1) of the sorted samples: the 95th percentile with 0.95.
pub fn percentile(samples: &[f64], share: f64) -> Option<f64> {
    let mut sorted: Vec<f64> = samples.iter().copied().filter(|v| v.is_finite()).collect();
    sorted.sort_by(f64::total_cmp);
    let rank = ((share * sorted.len() as f64).ceil() as usize).clamp(1, sorted.len().max(1));
    sorted.get(rank - 1).copied()
}

/// Loads the nodes page afresh, waits for its grid, then reads its DOM size, its decode
/// timing and its memory (JS heap after a full collection, wasm).
pub async fn big_page(browser: &Browser, page: &Page, expected: Expected) -> Result<BigPage, String> {
    nodes_first_render(browser, page, expected).await?;
    // The latest decode is the first poll's: time to read it before the next poll.
    let read = browser
        .script(
            "const m = performance.getEntriesByName('nodes-decode');
             return { elements: document.getElementsByTagName('*').length,
                      decode: m.length ? m[m.length - 1].duration : null, wasm: window.__bench.wasmBytes() };",
        )
        .await;
    let heap = cdp::js_heap_after_gc(browser).await;
    Ok(BigPage {
        dom_elements: read["elements"].as_f64(),
        decode_ms: read["decode"].as_f64(),
        wasm_bytes: read["wasm"].as_f64(),
        js_heap_bytes: Some(heap),
    })
}

/// Loads the nodes page afresh, waits for its grid, then scrolls through it: the 95th
/// percentile of its frames. One scroll is one sample, as one load is of a first render:
/// the frames of both pages follow the machine (a scroll's p95 was 33.4 ms and the next
/// one's 50.0 on the same page), so the bench takes the median of several, alternating.
pub async fn scroll_p95_frame(browser: &Browser, page: &Page, expected: Expected) -> Result<f64, String> {
    nodes_first_render(browser, page, expected).await?;
    let frames = run_async(browser, SCROLL_THROUGH, vec![json!(PAGE_WAIT_MS)]).await;
    let frames: Vec<f64> = frames.as_array().into_iter().flatten().filter_map(Value::as_f64).collect();
    percentile(&frames, 0.95).ok_or_else(|| format!("{}: the scroll through the grid drew no frame", page.name))
}

/// Puts `text` in the search box as one input event (a paste, or the last keystroke) and
/// waits for the DOM to be quiet: the input → the frame after the last change.
const SEARCH: &str = "const [text, quietMs, timeoutMs, done] = arguments;
    const input = document.querySelector('input[name=q]');
    if (!input) return done(null);
    const bench = window.__bench;
    bench.batches = [];
    const started = performance.now();
    input.value = text;
    input.dispatchEvent(new Event('input', { bubbles: true }));
    (function check() {
      const now = performance.now();
      const last = bench.batches[bench.batches.length - 1];
      if (last && now - last.t >= quietMs && last.paint !== null) return done(last.paint - started);
      if (now - started > timeoutMs) return done(null);
      setTimeout(check, 10);
    })();";

/// `runs` searches for one node by name on the nodes page (already open), each timed
/// from its input to the settled DOM, the search cleared (untimed) between them.
pub async fn search_timings(browser: &Browser, expected: &Expected, runs: usize) -> Result<Vec<f64>, String> {
    let mut timings = Vec::new();
    for run in 0..runs {
        let name = format!("node-{}", expected.nodes.saturating_sub(run as u64).max(1));
        let args = |text: &str| vec![json!(text), json!(QUIET_MS), json!(PAGE_WAIT_MS)];
        let took = run_async(browser, SEARCH, args(&name)).await;
        timings.push(took.as_f64().ok_or(format!("searching for {name}: the DOM never settled"))?);
        run_async(browser, SEARCH, args("")).await;
    }
    Ok(timings)
}

#[cfg(test)]
mod tests {
    use super::percentile;

    #[test]
    fn the_95th_percentile_is_the_sample_at_or_above_95_percent_of_the_others() {
        let frames: Vec<f64> = (1..=100).map(f64::from).collect();
        assert_eq!(percentile(&frames, 0.95), Some(95.0));
        assert_eq!(percentile(&[16.7, 50.0, 16.6], 0.95), Some(50.0));
        assert_eq!(percentile(&[f64::NAN, 3.0], 0.5), Some(3.0), "no NaN counted");
        assert_eq!(percentile(&[], 0.95), None);
    }
}
