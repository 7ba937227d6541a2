//! The soak (issue 6; `cargo xtask soak [--minutes 30] [--seed N]`, not part of CI): the
//! live Nodes page polls for the whole run while faults are switched on and off at random
//! (seeded, so a run can be repeated), and the report gives polls, faults seen,
//! recoveries, the most requests in flight, JS heap and wasm memory at start and end,
//! DOM counters, and every console error that a fault does not explain.
//!
//! Ignored by `cargo test`: xtask runs it with `--ignored` and `SOAK_MINUTES`,
//! `SOAK_SEED`, `SOAK_POLL_MS`.

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use e2e::gate::Gate;
use e2e::resilience::{max_in_flight_on, unexplained_console_errors};
use e2e::{Console, OWNER_KEY};
use hyper::Method;
use serde_json::{json, Value};

const NODES_API: &str = "/api/gpu-reservations/12/nodes";

fn env_number(name: &str, default: u64) -> u64 {
    std::env::var(name).ok().and_then(|v| v.parse().ok()).unwrap_or(default)
}

/// splitmix64: a seeded sequence, the same for the same seed.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `low..=high`.
    fn between(&mut self, low: u64, high: u64) -> u64 {
        low + self.next() % (high - low + 1)
    }
}

/// What the soak switches on; `Drop` is the network dropping at the gate.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Fault {
    Internal,
    BadGateway,
    Unavailable,
    RateLimited,
    Slow,
    Truncated,
    Malformed,
    WrongType,
    UnknownEnum,
    Unreachable,
    Drop,
    Revoked,
    RetryAfterGarbage,
    RetryAfterDate,
    HugeBody,
    HugeNumbers,
    DuplicateNames,
}

const FAULTS: [Fault; 17] = [
    Fault::Internal,
    Fault::BadGateway,
    Fault::Unavailable,
    Fault::RateLimited,
    Fault::Slow,
    Fault::Truncated,
    Fault::Malformed,
    Fault::WrongType,
    Fault::UnknownEnum,
    Fault::Unreachable,
    Fault::Drop,
    Fault::Revoked,
    Fault::RetryAfterGarbage,
    Fault::RetryAfterDate,
    Fault::HugeBody,
    Fault::HugeNumbers,
    Fault::DuplicateNames,
];

impl Fault {
    /// The simulator's fault, for all but the network drop.
    fn body(self) -> Option<Value> {
        let body = match self {
            Fault::Internal => json!({ "kind": "500" }),
            Fault::BadGateway => json!({ "kind": "502_html" }),
            Fault::Unavailable => json!({ "kind": "503" }),
            Fault::RateLimited => json!({ "kind": "429", "retry_after": 3 }),
            Fault::Slow => json!({ "kind": "slow", "delay_ms": 10_500 }),
            Fault::Truncated => json!({ "kind": "truncated" }),
            Fault::Malformed => json!({ "kind": "malformed" }),
            Fault::WrongType => json!({ "kind": "wrong_type" }),
            Fault::UnknownEnum => json!({ "kind": "unknown_enum" }),
            Fault::Unreachable => json!({ "kind": "unreachable" }),
            Fault::Revoked => json!({ "kind": "revoke_key", "key": OWNER_KEY }),
            Fault::RetryAfterGarbage => json!({ "kind": "retry_after_text", "value": "soon" }),
            // An HTTP date two seconds ahead.
            Fault::RetryAfterDate => json!({ "kind": "retry_after_text" }),
            Fault::HugeBody => json!({ "kind": "huge_body" }),
            Fault::HugeNumbers => json!({ "kind": "huge_numbers" }),
            Fault::DuplicateNames => json!({ "kind": "duplicate_names" }),
            Fault::Drop => return None,
        };
        let mut body = body;
        body["path_prefix"] = json!(NODES_API);
        Some(body)
    }
}

/// One read of what the page shows, enough to tell healthy from faulted.
#[derive(Debug)]
struct Glance {
    path: String,
    cards: usize,
    polls: i64,
    error: bool,
    stale: bool,
    unreachable: bool,
    unrecognised: bool,
    live: bool,
    rejected: bool,
}

impl Glance {
    fn healthy(&self, page: &str) -> bool {
        self.path == page
            && self.cards > 0
            && !self.error
            && !self.stale
            && !self.unreachable
            && !self.unrecognised
            && self.live
    }

    /// Whether the page shows `fault` the way it should.
    fn shows(&self, fault: Fault) -> bool {
        match fault {
            Fault::UnknownEnum => self.unrecognised,
            Fault::Unreachable => self.unreachable && self.stale,
            Fault::Revoked => self.rejected,
            // Not an error: every node keeps a card of its own.
            Fault::DuplicateNames => self.cards > 0 && !self.error,
            _ => self.error && self.stale && self.cards > 0,
        }
    }
}

const GLANCE: &str = r#"
const q = s => document.querySelector(s);
const cards = [...document.querySelectorAll('article.node-card')];
return {
  path: location.pathname + location.search,
  cards: cards.length,
  polls: Number((q('section.nodes-page') || {dataset: {}}).dataset.pollCount ?? -1),
  error: !!q('.nodes-page .error-panel'),
  stale: !!q('.node-grid.stale'),
  unreachable: !!q('.nodes-page .unreachable'),
  unrecognised: cards.some(c => c.innerText.includes('(unrecognised)')),
  live: ((q('.live-status') || {}).innerText || '').startsWith('Live'),
  rejected: !!q('.rejected'),
};"#;

async fn glance(console: &Console) -> Glance {
    let v = console.browser.script(GLANCE).await;
    Glance {
        path: v["path"].as_str().unwrap_or_default().to_owned(),
        cards: v["cards"].as_u64().unwrap_or(0) as usize,
        polls: v["polls"].as_i64().unwrap_or(-1),
        error: v["error"].as_bool().unwrap_or(false),
        stale: v["stale"].as_bool().unwrap_or(false),
        unreachable: v["unreachable"].as_bool().unwrap_or(false),
        unrecognised: v["unrecognised"].as_bool().unwrap_or(false),
        live: v["live"].as_bool().unwrap_or(false),
        rejected: v["rejected"].as_bool().unwrap_or(false),
    }
}

/// Keeps the console's `WebAssembly.Memory` where [`memory`] can read it, from trunk's start
/// event on every document, as the bench's probe does (`bench/src/probe.js`). A heap query
/// (`Runtime.queryObjects` on `WebAssembly.Memory.prototype`) crashed the tab in Chromium 156.
const WASM_WATCH: &str =
    "addEventListener('TrunkApplicationStarted', (e) => { window.__soakWasmMemory = e.detail.wasm.memory; });";
const WASM_BYTES: &str = "return window.__soakWasmMemory ? window.__soakWasmMemory.buffer.byteLength : null";

/// What one reading of memory found.
struct Memory {
    heap: f64,
    wasm: f64,
    dom: Value,
}

/// JS heap in use (after a collection), wasm linear memory and the DOM counters. A reading
/// that fails says why: the soak then reports a failed measurement, not a crash.
async fn memory(console: &Console) -> Result<Memory, String> {
    let browser = &console.browser;
    let cdp = |command: &'static str| async move {
        browser.try_cdp(command, json!({})).await.map_err(|e| format!("CDP {command}: {e}"))
    };
    cdp("HeapProfiler.collectGarbage").await?;
    let heap = cdp("Runtime.getHeapUsage").await?;
    let heap = heap["usedSize"].as_f64().ok_or_else(|| format!("Runtime.getHeapUsage answered {heap}"))?;
    let wasm = browser.try_script(WASM_BYTES).await.map_err(|e| format!("reading the wasm memory: {e}"))?;
    let wasm = wasm.as_f64().ok_or("the console's wasm memory was never seen (no TrunkApplicationStarted)")?;
    let dom = cdp("Memory.getDOMCounters").await?;
    Ok(Memory { heap, wasm, dom })
}

fn mib(bytes: f64) -> String {
    format!("{:.1} MiB", bytes / 1_048_576.0)
}

async fn connect_on(console: &Console, gate: &Gate, page: &str) {
    let browser = &console.browser;
    browser.goto(&format!("{}{page}", gate.url())).await;
    browser.wait_for("#api-key").await;
    browser.type_into("#api-key", OWNER_KEY).await;
    browser.click("form.connect-form button[type=submit]").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "minutes long: run by `cargo xtask soak`"]
async fn soak_the_live_nodes_page_under_random_faults() {
    let minutes = env_number("SOAK_MINUTES", 30);
    let seed = env_number("SOAK_SEED", 1);
    let poll_ms = env_number("SOAK_POLL_MS", 1000);
    let page = format!("/reservations/12/nodes?poll_ms={poll_ms}");
    let run_for = Duration::from_secs(minutes * 60);
    let mut rng = Rng(seed);

    let console = Console::start().await;
    let mut gate = Gate::open(&console.sim.url()).await;
    console.browser.cdp("Page.addScriptToEvaluateOnNewDocument", json!({ "source": WASM_WATCH })).await;
    connect_on(&console, &gate, &page).await;
    let wait_healthy = |limit: Duration| {
        let (console, page) = (&console, page.clone());
        async move {
            let deadline = Instant::now() + limit;
            loop {
                let g = glance(console).await;
                if g.healthy(&page) {
                    return Some(g);
                }
                if Instant::now() > deadline {
                    return None;
                }
                tokio::time::sleep(Duration::from_millis(250)).await;
            }
        }
    };
    let first = wait_healthy(Duration::from_secs(30)).await.expect("the Nodes page is live at the start");
    tokio::time::sleep(Duration::from_secs(5)).await;
    let start_memory = memory(&console).await;

    let started = Instant::now();
    let mut injected: BTreeMap<String, u32> = BTreeMap::new();
    let mut seen: BTreeMap<String, u32> = BTreeMap::new();
    let (mut recoveries, mut unrecovered, mut page_polls) = (0u32, Vec::new(), 0i64);
    let mut last_polls = first.polls;
    while started.elapsed() < run_for {
        // A healthy spell, then one fault for a while.
        tokio::time::sleep(Duration::from_secs(rng.between(5, 20))).await;
        let fault = FAULTS[rng.between(0, FAULTS.len() as u64 - 1) as usize];
        let name = format!("{fault:?}");
        *injected.entry(name.clone()).or_default() += 1;
        let before = glance(&console).await;
        page_polls += (before.polls - last_polls).max(0);
        match fault.body() {
            Some(body) => {
                console.sim.hook(Method::POST, "/faults", Some(body)).await;
            }
            None => gate.cut(),
        }
        // Long enough for the slowest fault (a 10 s timeout) to show.
        let hold = Duration::from_secs(rng.between(3, 15).max(if fault == Fault::Slow { 13 } else { 3 }));
        let until = Instant::now() + hold;
        let mut shown = false;
        let mut polls_now = before.polls;
        while Instant::now() < until {
            let g = glance(&console).await;
            shown |= g.shows(fault);
            if g.polls >= 0 {
                polls_now = g.polls;
            }
            tokio::time::sleep(Duration::from_millis(250)).await;
        }
        if shown {
            *seen.entry(name.clone()).or_default() += 1;
        }
        page_polls += (polls_now - before.polls).max(0);
        console.sim.clear_faults().await;
        gate.restore().await;
        if fault == Fault::Revoked && glance(&console).await.rejected {
            console.browser.type_into("#api-key", OWNER_KEY).await;
            console.browser.click("form.connect-form button[type=submit]").await;
        }
        // Backoff may have reached a minute: give it two.
        match wait_healthy(Duration::from_secs(120)).await {
            Some(g) => {
                recoveries += 1;
                last_polls = g.polls;
            }
            None => {
                let g = glance(&console).await;
                unrecovered.push(format!("{name} at {:.0} s: {g:?}", started.elapsed().as_secs_f64()));
                // Start over from a fresh connection, so the rest of the run still counts.
                connect_on(&console, &gate, &page).await;
                last_polls = wait_healthy(Duration::from_secs(30)).await.map_or(0, |g| g.polls);
            }
        }
    }
    let end = glance(&console).await;
    page_polls += (end.polls - last_polls).max(0);
    let end_memory = memory(&console).await;
    let log = console.sim.requests(NODES_API).await;
    let in_flight = max_in_flight_on(&console.sim, NODES_API).await;
    let errors = unexplained_console_errors(&console.browser).await;
    let faults_injected: u32 = injected.values().sum();
    let faults_seen: u32 = seen.values().sum();
    let listed = |m: &BTreeMap<String, u32>| m.iter().map(|(k, v)| format!("{k} {v}")).collect::<Vec<_>>().join(", ");
    let counters =
        |d: &Value| format!("{} documents, {} nodes, {} listeners", d["documents"], d["nodes"], d["jsEventListeners"]);
    let reading = |m: &Result<Memory, String>, part: &dyn Fn(&Memory) -> String| match m {
        Ok(m) => part(m),
        Err(why) => format!("not measured ({why})"),
    };
    let report = format!(
        "Soak report: {minutes} min, seed {seed}, poll every {poll_ms} ms (ran {:.1} min)\n\
         polls counted by the page: {page_polls}; /nodes requests at the simulator: {} (log keeps the last 5,000)\n\
         faults injected: {faults_injected} ({})\n\
         faults seen on the page: {faults_seen} ({})\n\
         recoveries by themselves: {recoveries} of {faults_injected}; not recovered: {}\n\
         most /nodes requests in flight at once: {in_flight} (all paths: {})\n\
         JS heap: {} at start, {} at end\n\
         wasm memory: {} at start, {} at end\n\
         DOM: {} at start, {} at end\n\
         console errors not explained by a fault: {}{}",
        started.elapsed().as_secs_f64() / 60.0,
        log.requests.len(),
        listed(&injected),
        listed(&seen),
        if unrecovered.is_empty() { "none".to_owned() } else { unrecovered.join("; ") },
        log.max_in_flight_total,
        reading(&start_memory, &|m| mib(m.heap)),
        reading(&end_memory, &|m| mib(m.heap)),
        reading(&start_memory, &|m| mib(m.wasm)),
        reading(&end_memory, &|m| mib(m.wasm)),
        reading(&start_memory, &|m| counters(&m.dom)),
        reading(&end_memory, &|m| counters(&m.dom)),
        errors.len(),
        errors.iter().map(|e| format!("\n  {e}")).collect::<String>(),
    );
    println!("\n{report}");
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/e2e");
    std::fs::create_dir_all(&dir).expect("target/e2e");
    std::fs::write(dir.join("soak-report.txt"), &report).expect("writing target/e2e/soak-report.txt");
    assert!(unrecovered.is_empty(), "every fault recovered by itself");
    for (when, reading) in [("start", &start_memory), ("end", &end_memory)] {
        if let Err(why) = reading {
            panic!("the memory measurement failed at the {when} (the run itself went on): {why}");
        }
    }
    assert!(in_flight <= 1, "one /nodes request in flight at most");
    assert!(errors.is_empty(), "no unexplained console error");
}
