//! `bench --leak-case DIR`: the reduced case of `bench/for-leak/` (Leptos 0.8's keyed
//! `<For>` keeping wasm memory for every row created and removed), measured apart from the
//! main run because it needs a wasm build of its own.

use std::time::{Duration, Instant};

use e2e::Browser;
use serde::Serialize;
use serde_json::{json, Value};

/// Rows the case sets on every tick (`ROWS` in bench/for-leak/src/main.rs).
const ROWS_PER_TICK: f64 = 200.0;
const FIRST_TICK: u64 = 100;
const LAST_TICK: u64 = 2400;
/// Generous: 2,400 ticks of 200 new rows take about half a minute on a busy 2-core machine.
const MAX_WAIT: Duration = Duration::from_secs(180);

/// The page's variants: its query, what it does, and whether it creates rows each tick.
const VARIANTS: [(&str, &str, bool); 3] = [
    ("keys=new", "`<For>`, 200 new keys per tick", true),
    ("keys=same", "`<For>`, the same 200 keys", false),
    ("keys=new&view=list", "no `<For>`: 200 new rows per tick, list drawn again", true),
];

#[derive(Clone, Debug, Serialize)]
pub struct Variant {
    pub query: &'static str,
    pub what: &'static str,
    pub ticks: (u64, u64),
    pub wasm_bytes: (f64, f64),
    /// Growth per row created and removed; None for the variant that creates none.
    pub bytes_per_row: Option<f64>,
}

impl Variant {
    pub fn growth(&self) -> f64 {
        self.wasm_bytes.1 - self.wasm_bytes.0
    }
}

async fn ticks(browser: &Browser) -> u64 {
    let ticks =
        browser.script("const p = document.getElementById('ticks'); return p ? Number(p.dataset.ticks) : 0").await;
    ticks.as_u64().unwrap_or(0)
}

/// Waits for tick `at`, then reads the tick count and the wasm memory.
async fn reading(browser: &Browser, at: u64, deadline: Instant) -> Result<(u64, f64), String> {
    while ticks(browser).await < at {
        if Instant::now() > deadline {
            return Err(format!("tick {at} not reached in {} s", MAX_WAIT.as_secs()));
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let wasm = browser.script("return window.__bench.wasmBytes()").await;
    let wasm = wasm.as_f64().ok_or("the page reported no wasm memory")?;
    Ok((ticks(browser).await, wasm))
}

/// Each variant from tick 100 to tick 2,400 (the probe must be installed).
pub async fn measure(browser: &Browser, origin: &str) -> Result<Vec<Variant>, String> {
    let mut variants = Vec::new();
    for (query, what, creates) in VARIANTS {
        browser.goto(&format!("{origin}/?{query}")).await;
        // Thousands of mutations a second: the probe's records would only slow the ticks.
        browser.script("window.__bench.observe(false)").await;
        let deadline = Instant::now() + MAX_WAIT;
        let first = reading(browser, FIRST_TICK, deadline).await?;
        let last = reading(browser, LAST_TICK, deadline).await?;
        let growth = last.1 - first.1;
        variants.push(Variant {
            query,
            what,
            ticks: (first.0, last.0),
            wasm_bytes: (first.1, last.1),
            bytes_per_row: creates.then(|| growth / ((last.0 - first.0) as f64 * ROWS_PER_TICK)),
        });
    }
    browser.goto("about:blank").await;
    Ok(variants)
}

pub fn to_markdown(variants: &[Variant]) -> String {
    let mut out = String::from(
        "Leptos 0.8 keyed `<For>`, reduced case (bench/for-leak): wasm memory between two ticks.\n\n\
         | Variant | Ticks | Wasm memory | Growth | Per row created |\n|---|---:|---:|---:|---:|\n",
    );
    for v in variants {
        let mb = |bytes: f64| format!("{:.2} MB", bytes / (1024.0 * 1024.0));
        out.push_str(&format!(
            "| {} | {} → {} | {} → {} | {} | {} |\n",
            v.what,
            v.ticks.0,
            v.ticks.1,
            mb(v.wasm_bytes.0),
            mb(v.wasm_bytes.1),
            mb(v.growth()),
            v.bytes_per_row.map_or("—".to_owned(), |b| format!("{b:.1} B")),
        ));
    }
    out
}

pub fn to_json(variants: &[Variant]) -> Value {
    json!({ "variants": variants })
}
