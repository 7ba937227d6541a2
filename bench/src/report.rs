//! The figures of one run: a table for people (printed and in `report.md`) and the same
//! numbers for machines (`report.json`, with the issue's flat keys at the top).

use serde::Serialize;
use serde_json::{json, Map, Value};

use crate::lighthouse::{self, Audit, Finding};
use crate::stats::{ratio, Spread};
use crate::weight::{Weight, Wire};

/// One figure for each page, measured in the same run.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Pair<T> {
    pub console: T,
    pub baseline: T,
}

/// A figure is None when it could not be measured; `Report::missing` says why.
pub type Figure<T> = Option<T>;

#[derive(Clone, Debug, Serialize)]
pub struct PollRow {
    /// Nodes changed by the simulator just before this poll.
    pub k: u32,
    /// From the `/nodes` response's end to the frame after the DOM's last change.
    pub ms: Pair<Figure<Spread>>,
    pub mutations: Pair<Figure<Spread>>,
}

#[derive(Clone, Debug, Serialize)]
pub struct LongRun {
    /// Polls done when the second reading was taken (the aim is 2,000).
    pub polls: u64,
    pub first_reading_at_poll: u64,
    pub seconds: f64,
    pub js_heap: Growth,
    /// None for a page without wasm.
    pub wasm_memory: Option<Growth>,
}

#[derive(Clone, Copy, Debug, Serialize)]
pub struct Growth {
    pub first: f64,
    pub last: f64,
}

impl Growth {
    pub fn bytes(&self) -> f64 {
        self.last - self.first
    }
}

#[derive(Clone, Debug, Serialize)]
pub struct Bounds {
    /// Most `/nodes` requests in flight at once: over the long run (the console's) and the
    /// default-interval window.
    pub max_in_flight: u64,
    /// Shortest time between the starts of two `/nodes` requests at the default interval.
    pub min_poll_gap_ms: f64,
    pub gaps_seen: usize,
}

/// The 10,000-node reservation (scenario huge), both pages windowed.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Nodes10k {
    pub first_render_ms: Pair<Figure<Spread>>,
    pub poll_k100_ms: Pair<Figure<Spread>>,
    pub poll_k100_mutations: Pair<Figure<Spread>>,
    pub dom_elements: Pair<Figure<f64>>,
    pub scroll_p95_frame_ms: Pair<Figure<Spread>>,
    /// The console's own User Timing measure; the baseline's `JSON.parse` is not timed.
    pub decode_ms: Figure<f64>,
    pub wasm_memory_bytes: Figure<f64>,
    pub js_heap_bytes: Pair<Figure<f64>>,
    /// The console's alone: the baseline has no search.
    pub filter_search_ms: Figure<Spread>,
    /// The overview open on the 10,000-node scenario, everything read: main-thread busy
    /// milliseconds per second (its per-second clock, its polls and their redraws).
    pub overview_busy_ms_per_s: Pair<Figure<Spread>>,
}

#[derive(Clone, Debug, Default, Serialize)]
pub struct Report {
    /// How the figures were taken, in a sentence or two, printed above the table.
    pub conditions: String,
    pub weight: Pair<Figure<Weight>>,
    /// The console's alone: the baseline has no precompressed files nor cache headers.
    pub wire: Figure<Wire>,
    pub first_render_ms: Pair<Figure<Spread>>,
    /// The overview of the large scenario: the console's, and the baseline's page that reads
    /// and draws the same (`bench/baseline/app.js`, `overviewPage`).
    pub overview_first_render_ms: Pair<Figure<Spread>>,
    pub nodes_first_render_ms: Pair<Figure<Spread>>,
    pub polls: Vec<PollRow>,
    pub nodes10k: Nodes10k,
    /// The `/fit` verdict over 10,000 nodes, native (bench/src/fit.rs): the console's alone.
    pub fit10k_ms: Figure<Spread>,
    /// The `/fit` make-room plan over 10,000 nodes, native (bench/src/fit.rs).
    pub make_room10k_ms: Figure<Spread>,
    /// The console's alone: the baseline's would only be a comparison, at minutes a run.
    pub long_run: Figure<LongRun>,
    pub bounds: Pair<Figure<Bounds>>,
    /// The console's alone: [`lighthouse::RUNS`] consecutive audits of each page of
    /// [`lighthouse::PAGES`], in order.
    pub lighthouse: Vec<Audit>,
    /// How long all the audits took.
    pub lighthouse_seconds: Figure<f64>,
    /// What was not measured, and why.
    pub missing: Vec<String>,
}

impl Report {
    /// The issue's keys (numbers, null when not measured), then every detail.
    pub fn to_json(&self) -> Value {
        let mut flat = Map::new();
        let mut put = |key: String, value: Option<f64>| {
            flat.insert(key, value.map_or(Value::Null, |v| json!(v)));
        };
        let total = |weight: &Figure<Weight>, pick: fn(&Weight) -> usize| weight.as_ref().map(|w| pick(w) as f64);
        put("brotli_total_bytes".into(), total(&self.weight.console, |w| w.total.brotli));
        put("gzip_total_bytes".into(), total(&self.weight.console, |w| w.total.gzip));
        put("raw_total_bytes".into(), total(&self.weight.console, |w| w.total.raw));
        put("brotli_total_baseline_bytes".into(), total(&self.weight.baseline, |w| w.total.brotli));
        put("gzip_total_baseline_bytes".into(), total(&self.weight.baseline, |w| w.total.gzip));
        let wire = self.wire.as_ref();
        put("wire_first_load_bytes".into(), wire.map(|w| w.first_load as f64));
        put("wire_repeat_load_bytes".into(), wire.map(|w| w.repeat_load as f64));
        put("wire_poll_1000_nodes_bytes".into(), wire.and_then(|w| w.poll_json).map(|b| b as f64));
        let median = |figure: &Figure<Spread>| figure.map(|s| s.median);
        put("first_render_ms".into(), median(&self.first_render_ms.console));
        put("first_render_baseline_ms".into(), median(&self.first_render_ms.baseline));
        put("overview_first_render_ms".into(), median(&self.overview_first_render_ms.console));
        put("overview_first_render_baseline_ms".into(), median(&self.overview_first_render_ms.baseline));
        put("nodes_first_render_ms".into(), median(&self.nodes_first_render_ms.console));
        put("nodes_first_render_baseline_ms".into(), median(&self.nodes_first_render_ms.baseline));
        for row in &self.polls {
            let k = row.k;
            put(format!("poll_k{k}_ms"), median(&row.ms.console));
            put(format!("poll_k{k}_baseline_ms"), median(&row.ms.baseline));
            put(format!("poll_k{k}_mutations"), median(&row.mutations.console));
            put(format!("poll_k{k}_baseline_mutations"), median(&row.mutations.baseline));
        }
        let big = &self.nodes10k;
        put("fit10k_judge_ms".into(), median(&self.fit10k_ms));
        put("make_room10k_plan_ms".into(), median(&self.make_room10k_ms));
        put("nodes10k_first_render_ms".into(), median(&big.first_render_ms.console));
        put("nodes10k_first_render_baseline_ms".into(), median(&big.first_render_ms.baseline));
        put("nodes10k_poll_k100_ms".into(), median(&big.poll_k100_ms.console));
        put("nodes10k_poll_k100_baseline_ms".into(), median(&big.poll_k100_ms.baseline));
        put("nodes10k_dom_elements".into(), big.dom_elements.console);
        put("nodes10k_dom_elements_baseline".into(), big.dom_elements.baseline);
        put("nodes10k_scroll_p95_frame_ms".into(), median(&big.scroll_p95_frame_ms.console));
        put("nodes10k_scroll_p95_frame_baseline_ms".into(), median(&big.scroll_p95_frame_ms.baseline));
        put("nodes10k_decode_ms".into(), big.decode_ms);
        put("nodes10k_wasm_memory_bytes".into(), big.wasm_memory_bytes);
        put("nodes10k_js_heap_bytes".into(), big.js_heap_bytes.console);
        put("nodes10k_js_heap_baseline_bytes".into(), big.js_heap_bytes.baseline);
        put("filter_search_ms".into(), median(&big.filter_search_ms));
        put("nodes10k_overview_busy_ms_per_s".into(), median(&big.overview_busy_ms_per_s.console));
        put("nodes10k_overview_busy_baseline_ms_per_s".into(), median(&big.overview_busy_ms_per_s.baseline));
        let long = self.long_run.as_ref();
        put("long_run_polls".into(), long.map(|l| l.polls as f64));
        put("js_heap_growth_bytes".into(), long.map(|l| l.js_heap.bytes()));
        put("wasm_memory_growth_bytes".into(), long.and_then(|l| l.wasm_memory).map(|g| g.bytes()));
        put("max_in_flight".into(), self.bounds.console.as_ref().map(|b| b.max_in_flight as f64));
        put("min_poll_gap_ms".into(), self.bounds.console.as_ref().map(|b| b.min_poll_gap_ms));
        put("max_in_flight_baseline".into(), self.bounds.baseline.as_ref().map(|b| b.max_in_flight as f64));
        put("min_poll_gap_baseline_ms".into(), self.bounds.baseline.as_ref().map(|b| b.min_poll_gap_ms));
        // The worst of the runs: the one a target is about.
        for page in lighthouse::PAGES {
            let audits = self.lighthouse.iter().filter(|audit| audit.name == page);
            for figure in &LIGHTHOUSE_FIGURES {
                let runs: Vec<f64> = audits.clone().filter_map(figure.pick).collect();
                put(format!("lighthouse_{page}_{}", figure.key), figure.worst.of(&runs));
            }
        }
        let rows = self.rows();
        let targets: Vec<Value> = rows
            .iter()
            .filter_map(|row| {
                let judged = row.judged.as_ref()?;
                let (verdict, reason) = match &judged.verdict {
                    Verdict::Met => ("met", None),
                    Verdict::NotMet => ("not met", None),
                    Verdict::NotMeasured(why) => ("not measured", Some(why)),
                };
                Some(json!({ "figure": row.name, "console": row.console, "baseline": row.baseline,
                             "ratio": row.ratio, "target": judged.target, "verdict": verdict, "reason": reason }))
            })
            .collect();
        let (met, total) = tally(&rows);
        flat.insert("targets_met".into(), json!(met));
        flat.insert("targets_total".into(), json!(total));
        flat.insert("summary".into(), json!(summary_of(&rows)));
        flat.insert("targets".into(), Value::Array(targets));
        flat.insert("details".into(), serde_json::to_value(self).expect("plain data"));
        Value::Object(flat)
    }

    /// Every row of the summary table, each of the project's targets with its verdict.
    fn rows(&self) -> Vec<Row> {
        let mut rows = Vec::new();
        let weight = |pick: fn(&Weight) -> usize| Pair {
            console: self.weight.console.as_ref().map(|w| pick(w) as f64),
            baseline: self.weight.baseline.as_ref().map(|w| pick(w) as f64),
        };
        rows.push(amount_row("Weight, brotli (total)", weight(|w| w.total.brotli), bytes, Some(&FIRST_LOAD_BROTLI)));
        rows.push(amount_row("Weight, gzip (total)", weight(|w| w.total.gzip), bytes, None));
        rows.push(amount_row("Weight, raw (total)", weight(|w| w.total.raw), bytes, None));
        let wire = |pick: fn(&Wire) -> Option<u64>| Pair {
            console: self.wire.as_ref().and_then(pick).map(|b| b as f64),
            baseline: None,
        };
        rows.push(amount_row("On the wire: first load", wire(|w| Some(w.first_load)), bytes, Some(&FIRST_LOAD_WIRE)));
        rows.push(amount_row("On the wire: repeat load", wire(|w| Some(w.repeat_load)), bytes, None));
        rows.push(amount_row("On the wire: one 1,000-node poll", wire(|w| w.poll_json), bytes, None));
        rows.push(spread_row("First render: reservations table", &self.first_render_ms, "ms", Some(&FIRST_RENDER)));
        rows.push(spread_row(
            "First render: overview, a row per reservation with nodes",
            &self.overview_first_render_ms,
            "ms",
            Some(&OVERVIEW_FIRST_RENDER),
        ));
        rows.push(spread_row("Nodes 1,000 × 8: first grid", &self.nodes_first_render_ms, "ms", Some(&FIRST_RENDER)));
        // A targeted poll not measured still has its row, so that every run counts the same targets.
        let mut polls = self.polls.clone();
        for k in TARGETED_POLLS {
            if !polls.iter().any(|row| row.k == k) {
                polls.push(PollRow { k, ms: Pair::default(), mutations: Pair::default() });
            }
        }
        polls.sort_by_key(|row| row.k);
        for row in &polls {
            let target = TARGETED_POLLS.contains(&row.k).then_some(&POLL_1000);
            rows.push(spread_row(&format!("Poll, k = {}: response → DOM settled", row.k), &row.ms, "ms", target));
            rows.push(spread_row(&format!("Poll, k = {}: DOM mutations", row.k), &row.mutations, "", None));
        }
        let fit = Pair { console: self.fit10k_ms, baseline: None };
        rows.push(spread_row("Fit judgement, 10,000 nodes (native)", &fit, "ms", None));
        let make_room = Pair { console: self.make_room10k_ms, baseline: None };
        rows.push(spread_row("Make-room plan, 10,000 nodes (native)", &make_room, "ms", Some(&MAKE_ROOM_10K)));
        let big = &self.nodes10k;
        rows.push(spread_row("Nodes 10,000 × 8: first grid", &big.first_render_ms, "ms", Some(&FIRST_RENDER)));
        rows.push(spread_row("Nodes 10,000, poll k = 100: response → DOM settled", &big.poll_k100_ms, "ms", None));
        rows.push(spread_row("Nodes 10,000, poll k = 100: DOM mutations", &big.poll_k100_mutations, "", None));
        rows.push(amount_row("Nodes 10,000: DOM elements", big.dom_elements.clone(), count, None));
        rows.push(spread_row(
            "Nodes 10,000: scroll through, p95 frame",
            &big.scroll_p95_frame_ms,
            "ms",
            Some(&SCROLL_P95_FRAME),
        ));
        let console_only = |figure: Figure<f64>| Pair { console: figure, baseline: None };
        rows.push(amount_row(
            "Nodes 10,000: decode of /nodes",
            console_only(big.decode_ms),
            |v| format!("{} ms", short(v)),
            None,
        ));
        rows.push(amount_row(
            "Nodes 10,000: wasm memory",
            console_only(big.wasm_memory_bytes),
            bytes,
            Some(&WASM_MEMORY_10K),
        ));
        rows.push(amount_row("Nodes 10,000: JS heap", big.js_heap_bytes.clone(), bytes, None));
        rows.push(spread_row(
            "Overview, 10,000 nodes: main thread busy per second",
            &big.overview_busy_ms_per_s,
            "ms",
            None,
        ));
        rows.push(spread_row(
            "Search: input → DOM settled",
            &Pair { console: big.filter_search_ms, baseline: None },
            "ms",
            None,
        ));
        let long =
            |pick: fn(&LongRun) -> Option<f64>| Pair { console: self.long_run.as_ref().and_then(pick), baseline: None };
        rows.push(amount_row("Long run: polls done", long(|l| Some(l.polls as f64)), count, None));
        rows.push(amount_row("Long run: JS heap growth", long(|l| Some(l.js_heap.bytes())), bytes, None));
        rows.push(amount_row("Long run: wasm memory growth", long(|l| l.wasm_memory.map(|g| g.bytes())), bytes, None));
        let bound = |pick: fn(&Bounds) -> f64| Pair {
            console: self.bounds.console.as_ref().map(pick),
            baseline: self.bounds.baseline.as_ref().map(pick),
        };
        rows.push(amount_row("Most /nodes requests in flight", bound(|b| b.max_in_flight as f64), count, None));
        rows.push(amount_row(
            "Shortest /nodes gap, default interval",
            bound(|b| b.min_poll_gap_ms),
            |v| format!("{} ms", count(v)),
            None,
        ));
        for page in lighthouse::PAGES {
            let audits: Vec<&Audit> = self.lighthouse.iter().filter(|audit| audit.name == page).collect();
            for figure in &LIGHTHOUSE_FIGURES {
                let runs: Vec<Option<f64>> = audits.iter().map(|audit| (figure.pick)(audit)).collect();
                rows.push(runs_row(&format!("Lighthouse, {page}: {}", figure.label), &runs, figure));
            }
        }
        for row in &mut rows {
            if let Some(Judged { verdict: verdict @ Verdict::NotMeasured(_), .. }) = row.judged.as_mut() {
                *verdict = Verdict::NotMeasured(self.why_missing(&row.name));
            }
        }
        rows
    }

    /// Why the figure of row `name` is missing: the part's own failure when one names it,
    /// else the failure that stopped the run early, else that this run did not measure it.
    fn why_missing(&self, name: &str) -> String {
        let part = MISSING_PARTS.iter().find(|(row, _)| name.starts_with(row)).map_or("", |(_, part)| *part);
        self.missing
            .iter()
            .find(|reason| !part.is_empty() && reason.contains(part))
            .or_else(|| self.missing.iter().find(|reason| reason.starts_with(STOPPED_EARLY)))
            .cloned()
            .unwrap_or_else(|| "not run in this run (see the conditions above)".to_owned())
    }

    /// The summary table, then the files of each first load, in Markdown.
    pub fn to_markdown(&self) -> String {
        let mut out = format!(
            "{}\n\n| Figure | Console | Baseline | Console ÷ baseline | Target | Verdict |\n\
             |---|---:|---:|---:|---|---|\n",
            self.conditions
        );
        let rows = self.rows();
        for row in &rows {
            let (target, verdict) = row
                .judged
                .as_ref()
                .map_or((String::new(), String::new()), |j| (j.target.to_owned(), j.verdict.to_string()));
            out.push_str(&format!(
                "| {} | {} | {} | {} | {target} | {verdict} |\n",
                row.name, row.console, row.baseline, row.ratio
            ));
        }
        out.push_str(&format!(
            "\n**{}** (the project's targets; reported, never asserted: speed targets do not fail a build).\n",
            summary_of(&rows)
        ));
        out.push_str(
            "\nTimings: median of the runs, (min–max) beside it; a ratio's verdict is on the ratio of the \
             medians. Lighthouse: every run in order, each one held to the target.\n",
        );
        if let Some(seconds) = self.lighthouse_seconds {
            out.push_str(&format!(
                "\nLighthouse: {} audits of each page in {seconds:.0} s, in one Chromium.\n",
                lighthouse::RUNS
            ));
        }
        for (name, weight) in [("Console", &self.weight.console), ("Baseline", &self.weight.baseline)] {
            if let Some(weight) = weight {
                out.push_str(&format!(
                    "\n{name}, first load:\n\n| File | Raw | gzip | brotli |\n|---|---:|---:|---:|\n"
                ));
                for file in &weight.files {
                    out.push_str(&format!(
                        "| `{}` | {} | {} | {} |\n",
                        file.path,
                        bytes(file.raw as f64),
                        bytes(file.gzip as f64),
                        bytes(file.brotli as f64)
                    ));
                }
            }
        }
        let findings = lighthouse_findings(&self.lighthouse);
        if !findings.is_empty() {
            out.push_str("\nLighthouse's audits not passed (whole reports in lighthouse-<page>-<run>.json):\n\n");
            out.extend(findings);
        }
        if !self.missing.is_empty() {
            out.push_str("\nNot measured:\n\n");
            for reason in &self.missing {
                out.push_str(&format!("- {reason}\n"));
            }
        }
        out
    }
}

/// Each audit not passed, once per page: in how many runs, with its worst score.
fn lighthouse_findings(audits: &[Audit]) -> Vec<String> {
    let mut seen: Vec<(&str, &Finding, usize)> = Vec::new();
    for audit in audits {
        for finding in &audit.failing {
            let same = |(page, f, _): &&mut (&str, &Finding, usize)| *page == audit.name && f.id == finding.id;
            match seen.iter_mut().find(same) {
                Some((_, worst, runs)) => {
                    *runs += 1;
                    if finding.score < worst.score {
                        *worst = finding;
                    }
                }
                None => seen.push((&audit.name, finding, 1)),
            }
        }
    }
    seen.into_iter()
        .map(|(page, f, runs)| {
            let total = audits.iter().filter(|audit| audit.name == page).count();
            let value = f.value.as_deref().map(|v| format!(", {v}")).unwrap_or_default();
            format!(
                "- {page}, {}: {} (`{}`, {runs} of {total} runs, worst score {:.2}{value})\n",
                f.category, f.title, f.id, f.score
            )
        })
        .collect()
}

/// One row of the summary table, as printed.
struct Row {
    name: String,
    console: String,
    baseline: String,
    ratio: String,
    /// The project's target for the row, if it has one, and the verdict on the printed figure.
    judged: Option<Judged>,
}

struct Judged {
    target: &'static str,
    verdict: Verdict,
}

/// Whether a figure meets its target. Reported, never asserted (the project's rule: speed
/// targets never fail a build).
#[derive(Clone, Debug, PartialEq)]
pub enum Verdict {
    Met,
    NotMet,
    /// Why not: the part's failure, or that this run did not measure it.
    NotMeasured(String),
}

impl std::fmt::Display for Verdict {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Verdict::Met => f.write_str("met"),
            Verdict::NotMet => f.write_str("NOT met"),
            Verdict::NotMeasured(why) => write!(f, "not measured: {why}"),
        }
    }
}

/// How many of `rows`' targets are met, and of how many.
fn tally(rows: &[Row]) -> (usize, usize) {
    let judged = rows.iter().filter_map(|row| row.judged.as_ref());
    (judged.clone().filter(|judged| judged.verdict == Verdict::Met).count(), judged.count())
}

/// "N of M targets met", of `rows`.
fn summary_of(rows: &[Row]) -> String {
    let (met, total) = tally(rows);
    format!("{met} of {total} targets met")
}

/// How a figure is held to its target.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Check {
    /// The console's figure is at most this.
    AtMost(f64),
    /// The console's figure is at least this.
    AtLeast(f64),
    /// The console's figure is at most this many times the baseline's.
    RatioAtMost(f64),
}

/// One of the project's targets: as the table states it, the check, and the precision the
/// figure is printed with (the verdict is on the printed figure, so that a row never
/// reads "1.30×, NOT met" against "≤ 1.3×").
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Target {
    pub text: &'static str,
    pub check: Check,
    /// The figure (or the ratio, for [`Check::RatioAtMost`]) is rounded to a multiple of
    /// this before the check.
    pub step: f64,
}

const KB: f64 = 1024.0;
const MB: f64 = 1024.0 * 1024.0;

/// The targets the project holds (docs/performance.md lists them).
pub const FIRST_LOAD_BROTLI: Target = Target { text: "≤ 145 KB", check: Check::AtMost(145.0 * KB), step: 0.1 * KB };
pub const FIRST_LOAD_WIRE: Target = Target { text: "≤ 150 KB", check: Check::AtMost(150.0 * KB), step: 0.1 * KB };
/// The 1,000-node polls (by nodes changed) that [`POLL_1000`] is for.
const TARGETED_POLLS: [u32; 2] = [10, 100];
pub const POLL_1000: Target = Target { text: "≤ 1.3×", check: Check::RatioAtMost(1.3), step: 0.01 };
/// The table's and both grids' first renders, against the baseline's.
pub const FIRST_RENDER: Target = Target { text: "≤ 1.3×", check: Check::RatioAtMost(1.3), step: 0.01 };
/// The make-room plan at 10,000 nodes.
pub const MAKE_ROOM_10K: Target = Target { text: "≤ 50 ms", check: Check::AtMost(50.0), step: 0.1 };
/// Issue 32 asks for "≤ 33 ms (two frames)". A frame is measured from one
/// `requestAnimationFrame` to the next, so it lasts a whole number of vsyncs (16.7 ms at
/// 60 Hz), read with a tenth of a millisecond of jitter: two of them read 33.3 or 33.4 ms.
/// Two frames and under half of a third pass; three (50 ms) do not.
pub const SCROLL_P95_FRAME: Target =
    Target { text: "≤ 33 ms (two frames)", check: Check::AtMost(2.5 * 1000.0 / 60.0), step: 0.1 };
pub const WASM_MEMORY_10K: Target = Target { text: "≤ 32 MB", check: Check::AtMost(32.0 * MB), step: 0.01 * MB };
/// The overview opened at its address, its code lazy: a chunk to fetch before it draws.
pub const OVERVIEW_FIRST_RENDER: Target = Target { text: "≤ 2.2×", check: Check::RatioAtMost(2.2), step: 0.01 };

impl Target {
    /// The verdict on one figure: the console's (and for a ratio, the baseline's).
    pub fn judge(&self, figure: &Pair<Figure<f64>>) -> Verdict {
        let value = match (self.check, figure.console, figure.baseline) {
            (_, None, _) => return Verdict::NotMeasured("no figure for the console".into()),
            (Check::RatioAtMost(_), Some(_), None) => return Verdict::NotMeasured("no figure for the baseline".into()),
            (Check::RatioAtMost(_), Some(console), Some(baseline)) => match ratio(console, baseline) {
                Some(r) => r,
                None => return Verdict::NotMeasured("the baseline's figure is zero".into()),
            },
            (_, Some(console), _) => console,
        };
        let printed = (value / self.step).round() * self.step;
        // The limit on the same grid, so that 150.0 KB is not judged above 150 KB.
        let on_grid = |limit: f64| (limit / self.step).round() * self.step;
        let met = match self.check {
            Check::AtMost(limit) | Check::RatioAtMost(limit) => printed <= on_grid(limit),
            Check::AtLeast(limit) => printed >= on_grid(limit),
        };
        if met {
            Verdict::Met
        } else {
            Verdict::NotMet
        }
    }

    /// The verdict on runs that must each meet the target: not measured unless all
    /// `wanted` runs have their figure, met only when every one does.
    pub fn judge_each(&self, runs: &[Option<f64>], wanted: usize) -> Verdict {
        if runs.len() < wanted {
            return Verdict::NotMeasured(format!("{} of {wanted} runs", runs.len()));
        }
        let mut verdict = Verdict::Met;
        for (i, run) in runs.iter().enumerate() {
            match self.judge(&Pair { console: *run, baseline: None }) {
                Verdict::Met => {}
                Verdict::NotMet => verdict = Verdict::NotMet,
                Verdict::NotMeasured(_) => return Verdict::NotMeasured(format!("run {} has no figure", i + 1)),
            }
        }
        verdict
    }
}

/// Which row's figure comes from which part of the run, as `Report::missing` names the part.
const MISSING_PARTS: [(&str, &str); 8] = [
    ("Weight", "weight"),
    ("First render: overview", "overview first render"),
    ("Poll, k = 10:", "poll k = 10"),
    ("Poll, k = 100:", "poll k = 100"),
    ("Nodes 10,000 × 8: first grid", "10,000-node first render"),
    ("Nodes 10,000: scroll", "10,000-node scroll"),
    ("Nodes 10,000: wasm", "10,000-node visit"),
    ("Lighthouse", "Lighthouse"),
];

/// How `main` names the failure after which nothing else was measured.
pub const STOPPED_EARLY: &str = "everything after the weight";

const NONE: &str = "—";

/// One of each page's Lighthouse figures: its key's last part, how it reads in the table,
/// whether its worst run is its lowest or highest, and the project's target, held by each run.
struct LighthouseFigure {
    key: &'static str,
    label: &'static str,
    pick: fn(&Audit) -> Option<f64>,
    show: fn(f64) -> String,
    worst: Worst,
    target: Option<Target>,
}

#[derive(Clone, Copy)]
enum Worst {
    Lowest,
    Highest,
}

impl Worst {
    fn of(self, runs: &[f64]) -> Option<f64> {
        let runs = runs.iter().copied();
        match self {
            Worst::Lowest => runs.min_by(f64::total_cmp),
            Worst::Highest => runs.max_by(f64::total_cmp),
        }
    }
}

const fn score_at_least(text: &'static str, limit: f64) -> Option<Target> {
    Some(Target { text, check: Check::AtLeast(limit), step: 0.01 })
}

/// SEO has no target: a console behind a key asks not to be indexed, which costs most of
/// that score. CLS has none in issue 32.
const LIGHTHOUSE_FIGURES: [LighthouseFigure; 7] = [
    LighthouseFigure {
        key: "performance",
        label: "performance",
        pick: |a| a.categories.performance,
        show: score,
        worst: Worst::Lowest,
        target: score_at_least("≥ 0.95 in each run", 0.95),
    },
    LighthouseFigure {
        key: "accessibility",
        label: "accessibility",
        pick: |a| a.categories.accessibility,
        show: score,
        worst: Worst::Lowest,
        target: score_at_least("1.00 in each run", 1.0),
    },
    LighthouseFigure {
        key: "best_practices",
        label: "best practices",
        pick: |a| a.categories.best_practices,
        show: score,
        worst: Worst::Lowest,
        target: score_at_least("1.00 in each run", 1.0),
    },
    LighthouseFigure {
        key: "seo",
        label: "SEO",
        pick: |a| a.categories.seo,
        show: score,
        worst: Worst::Lowest,
        target: None,
    },
    LighthouseFigure {
        key: "lcp_ms",
        label: "LCP",
        pick: |a| a.lcp_ms,
        show: seconds,
        worst: Worst::Highest,
        // Printed in seconds to two decimals: 10 ms.
        target: Some(Target { text: "< 2.5 s in each run", check: Check::AtMost(2490.0), step: 10.0 }),
    },
    LighthouseFigure {
        key: "tbt_ms",
        label: "TBT",
        pick: |a| a.tbt_ms,
        show: |ms| format!("{} ms", count(ms)),
        worst: Worst::Highest,
        target: Some(Target { text: "≤ 150 ms in each run", check: Check::AtMost(150.0), step: 1.0 }),
    },
    LighthouseFigure {
        key: "cls",
        label: "CLS",
        pick: |a| a.cls,
        show: |cls| format!("{cls:.3}"),
        worst: Worst::Highest,
        target: None,
    },
];

fn score(value: f64) -> String {
    format!("{value:.2}")
}

fn seconds(ms: f64) -> String {
    format!("{:.2} s", ms / 1000.0)
}

fn judged(target: Option<&Target>, verdict: impl FnOnce(&Target) -> Verdict) -> Option<Judged> {
    target.map(|target| Judged { target: target.text, verdict: verdict(target) })
}

fn spread_row(name: &str, pair: &Pair<Figure<Spread>>, unit: &str, target: Option<&Target>) -> Row {
    let show = |figure: &Figure<Spread>| {
        figure.map_or(NONE.to_owned(), |s| {
            let unit = if unit.is_empty() { String::new() } else { format!(" {unit}") };
            format!("{}{unit} ({}–{})", short(s.median), short(s.min), short(s.max))
        })
    };
    let medians = Pair { console: pair.console.map(|s| s.median), baseline: pair.baseline.map(|s| s.median) };
    Row {
        name: name.to_owned(),
        console: show(&pair.console),
        baseline: show(&pair.baseline),
        ratio: times(&medians),
        judged: judged(target, |t| t.judge(&medians)),
    }
}

fn amount_row(name: &str, pair: Pair<Figure<f64>>, show: impl Fn(f64) -> String, target: Option<&Target>) -> Row {
    let cell = |figure: Figure<f64>| figure.map_or(NONE.to_owned(), &show);
    Row {
        name: name.to_owned(),
        console: cell(pair.console),
        baseline: cell(pair.baseline),
        ratio: times(&pair),
        judged: judged(target, |t| t.judge(&pair)),
    }
}

/// The console's runs in order, then the worst of them: `0.99, 0.97, 0.98 (min 0.97)`.
fn runs_row(name: &str, runs: &[Option<f64>], figure: &LighthouseFigure) -> Row {
    let shown: Vec<String> = runs.iter().map(|run| run.map_or(NONE.to_owned(), figure.show)).collect();
    let known: Vec<f64> = runs.iter().flatten().copied().collect();
    let console = match figure.worst.of(&known) {
        None => NONE.to_owned(),
        Some(_) if runs.len() == 1 => shown.concat(),
        Some(worst) => {
            let word = match figure.worst {
                Worst::Lowest => "min",
                Worst::Highest => "max",
            };
            format!("{} ({word} {})", shown.join(", "), (figure.show)(worst))
        }
    };
    Row {
        name: name.to_owned(),
        console,
        baseline: NONE.to_owned(),
        ratio: NONE.to_owned(),
        judged: judged(figure.target.as_ref(), |t| t.judge_each(runs, lighthouse::RUNS)),
    }
}

fn times(pair: &Pair<Figure<f64>>) -> String {
    match (pair.console, pair.baseline) {
        (Some(console), Some(baseline)) => ratio(console, baseline).map_or(NONE.to_owned(), |r| format!("{r:.2}×")),
        _ => NONE.to_owned(),
    }
}

/// A timing or count to three significant figures at most: `0.42`, `12.3`, `412`.
fn short(value: f64) -> String {
    match value.abs() {
        v if v >= 100.0 => count(value),
        v if v >= 10.0 => format!("{value:.1}"),
        _ => format!("{value:.2}"),
    }
}

/// A whole number with thousands separators: `2,000`, `-1,536`.
fn count(value: f64) -> String {
    let digits = format!("{:.0}", value.abs());
    let mut grouped = String::new();
    for (i, digit) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            grouped.push(',');
        }
        grouped.push(digit);
    }
    if value.round() < 0.0 {
        format!("-{grouped}")
    } else {
        grouped
    }
}

/// Bytes for people: `812 B`, `143.2 KB` (1 KB = 1,024 B), signed for growths.
fn bytes(value: f64) -> String {
    if value.abs() < 1024.0 {
        format!("{} B", count(value))
    } else if value.abs() < 1024.0 * 1024.0 {
        format!("{:.1} KB", value / 1024.0)
    } else {
        format!("{:.2} MB", value / (1024.0 * 1024.0))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lighthouse::Categories;
    use crate::weight::FileWeight;

    fn spread(median: f64) -> Figure<Spread> {
        Spread::of(&[median - 1.0, median, median + 1.0])
    }

    fn sample() -> Report {
        Report {
            weight: Pair {
                console: Some(Weight::new(vec![FileWeight {
                    path: "/app_bg.wasm".into(),
                    raw: 400_000,
                    gzip: 150_000,
                    brotli: 120_000,
                }])),
                baseline: Some(Weight::new(vec![FileWeight {
                    path: "/app.js".into(),
                    raw: 9_000,
                    gzip: 3_000,
                    brotli: 2_500,
                }])),
            },
            wire: Some(Wire { first_load: 160_000, repeat_load: 900, poll_json: None }),
            first_render_ms: Pair { console: spread(90.0), baseline: spread(60.0) },
            overview_first_render_ms: Pair { console: spread(70.0), baseline: spread(60.0) },
            polls: vec![PollRow {
                k: 10,
                ms: Pair { console: spread(12.0), baseline: spread(8.0) },
                mutations: Pair { console: spread(31.0), baseline: spread(30.0) },
            }],
            missing: vec!["long run: the console showed no poll count".into()],
            ..Report::default()
        }
    }

    fn pair(console: Option<f64>, baseline: Option<f64>) -> Pair<Figure<f64>> {
        Pair { console, baseline }
    }

    #[test]
    fn json_carries_the_issues_keys_as_numbers_or_null() {
        let json = sample().to_json();
        assert_eq!(json["brotli_total_bytes"], json!(120_000.0));
        assert_eq!(json["first_render_ms"], json!(90.0));
        assert_eq!(json["overview_first_render_ms"], json!(70.0));
        assert_eq!(json["overview_first_render_baseline_ms"], json!(60.0));
        assert_eq!(json["wire_first_load_bytes"], json!(160_000.0));
        assert_eq!(json["wire_repeat_load_bytes"], json!(900.0));
        assert_eq!(json["wire_poll_1000_nodes_bytes"], Value::Null);
        assert_eq!(json["first_render_baseline_ms"], json!(60.0));
        assert_eq!(json["poll_k10_mutations"], json!(31.0));
        assert_eq!(json["nodes_first_render_ms"], Value::Null);
        assert_eq!(json["js_heap_growth_bytes"], Value::Null);
        assert_eq!(json["nodes10k_scroll_p95_frame_ms"], Value::Null);
        assert_eq!(json["filter_search_ms"], Value::Null);
    }

    #[test]
    fn the_table_gives_each_figure_its_spread_and_ratio() {
        let table = sample().to_markdown();
        assert!(
            table.contains(
                "| First render: reservations table | 90.0 ms (89.0–91.0) | 60.0 ms (59.0–61.0) | 1.50× | ≤ 1.3× | NOT met |"
            ),
            "{table}"
        );
        assert!(table.contains("| Weight, brotli (total) | 117.2 KB | 2.4 KB | 48.00× | ≤ 145 KB | met |"), "{table}");
        assert!(table.contains("| Nodes 1,000 × 8: first grid | — | — | — | ≤ 1.3× | not measured"), "{table}");
        assert!(table.contains("- long run: the console showed no poll count"), "{table}");
    }

    #[test]
    fn a_ratio_target_is_judged_on_the_ratio_of_the_medians_as_printed() {
        let at_line = POLL_1000.judge(&pair(Some(130.0), Some(100.0)));
        // 1.304× prints as 1.30×: it reads as met against ≤ 1.3×, and is.
        let printed_on_line = POLL_1000.judge(&pair(Some(130.4), Some(100.0)));
        let above = POLL_1000.judge(&pair(Some(130.6), Some(100.0)));
        assert_eq!((at_line, printed_on_line, above), (Verdict::Met, Verdict::Met, Verdict::NotMet));
    }

    #[test]
    fn an_absolute_target_is_judged_on_the_consoles_figure_alone() {
        assert_eq!(FIRST_LOAD_BROTLI.judge(&pair(Some(145.0 * 1024.0), None)), Verdict::Met);
        assert_eq!(FIRST_LOAD_BROTLI.judge(&pair(Some(145.1 * 1024.0), Some(1.0))), Verdict::NotMet);
        assert_eq!(SCROLL_P95_FRAME.judge(&pair(Some(16.7), None)), Verdict::Met);
        let at_least = Target { text: "≥ 0.95", check: Check::AtLeast(0.95), step: 0.01 };
        assert_eq!(at_least.judge(&pair(Some(0.95), None)), Verdict::Met);
        assert_eq!(at_least.judge(&pair(Some(0.94), None)), Verdict::NotMet);
    }

    #[test]
    fn the_scroll_target_counts_frames_two_are_met_and_three_are_not() {
        let judge = |ms: f64| SCROLL_P95_FRAME.judge(&pair(Some(ms), None));
        assert_eq!([judge(16.7), judge(33.3), judge(33.4)], [Verdict::Met, Verdict::Met, Verdict::Met], "two frames");
        assert_eq!([judge(49.9), judge(50.0), judge(66.7)], [Verdict::NotMet, Verdict::NotMet, Verdict::NotMet]);
    }

    #[test]
    fn a_missing_figure_is_not_measured_never_met_nor_failed() {
        let not_measured = |verdict: Verdict| matches!(verdict, Verdict::NotMeasured(_));
        assert!(not_measured(WASM_MEMORY_10K.judge(&pair(None, None))));
        assert!(not_measured(OVERVIEW_FIRST_RENDER.judge(&pair(Some(70.0), None))), "a ratio needs the baseline");
        assert!(not_measured(OVERVIEW_FIRST_RENDER.judge(&pair(Some(70.0), Some(0.0)))));
    }

    #[test]
    fn a_lighthouse_target_is_met_only_when_every_one_of_the_five_runs_meets_it() {
        let performance = LIGHTHOUSE_FIGURES[0].target.unwrap();
        let runs = |scores: &[f64]| scores.iter().map(|s| Some(*s)).collect::<Vec<_>>();
        assert_eq!(performance.judge_each(&runs(&[0.99, 0.98, 0.99, 0.95, 0.99]), 5), Verdict::Met);
        assert_eq!(performance.judge_each(&runs(&[0.99, 0.98, 0.94, 0.99, 0.99]), 5), Verdict::NotMet);
        assert_eq!(
            performance.judge_each(&runs(&[0.99, 0.98, 0.99, 0.99]), 5),
            Verdict::NotMeasured("4 of 5 runs".into())
        );
        let unscored = vec![Some(0.99), None, Some(0.99), Some(0.99), Some(0.99)];
        assert_eq!(performance.judge_each(&unscored, 5), Verdict::NotMeasured("run 2 has no figure".into()));
    }

    #[test]
    fn every_target_has_a_verdict_and_the_summary_counts_the_met() {
        let report = sample();
        let table = report.to_markdown();
        assert!(table.contains("| On the wire: first load | 156.2 KB | — | — | ≤ 150 KB | NOT met |"), "{table}");
        assert!(
            table.contains(
                "| First render: overview, a row per reservation with nodes | 70.0 ms (69.0–71.0) | \
                 60.0 ms (59.0–61.0) | 1.17× | ≤ 2.2× | met |"
            ),
            "{table}"
        );
        assert!(table.contains("| Poll, k = 10: response → DOM settled | 12.0 ms (11.0–13.0) | 8.00 ms (7.00–9.00) | 1.50× | ≤ 1.3× | NOT met |"), "{table}");
        assert!(
            table.contains(
                "| Nodes 10,000: wasm memory | — | — | — | ≤ 32 MB | not measured: not run in this run (see the conditions above) |"
            ),
            "{table}"
        );
        // Weight, wire, the table, overview, the two first grids, polls k = 10 and k = 100,
        // the make-room plan, scroll, memory, and five Lighthouse targets on each of two pages.
        assert_eq!(summary_of(&report.rows()), "2 of 21 targets met");
        assert!(table.contains("**2 of 21 targets met**"), "{table}");
        let json = report.to_json();
        assert_eq!((json["targets_met"].clone(), json["targets_total"].clone()), (json!(2), json!(21)));
        let wire = json["targets"].as_array().unwrap().iter().find(|t| t["figure"] == "On the wire: first load");
        assert_eq!(wire.unwrap()["verdict"], "not met");
    }

    #[test]
    fn a_run_that_measures_less_still_counts_every_target() {
        let lighthouse_only = Report::default();
        assert_eq!(summary_of(&lighthouse_only.rows()), "0 of 21 targets met");
        assert!(lighthouse_only.to_markdown().contains(
            "| Poll, k = 100: response → DOM settled | — | — | — | ≤ 1.3× | not measured: not run in this run"
        ));
    }

    #[test]
    fn a_figure_not_measured_gives_its_parts_failure_as_the_reason() {
        let report = Report {
            missing: vec![
                "console 10,000-node visit: the grid was not complete after 25 s".into(),
                "baseline 10,000-node scroll: the grid was not complete after 25 s".into(),
            ],
            ..sample()
        };
        let table = report.to_markdown();
        assert!(
            table.contains(
                "| Nodes 10,000: wasm memory | — | — | — | ≤ 32 MB | \
                 not measured: console 10,000-node visit: the grid was not complete after 25 s |"
            ),
            "{table}"
        );
        assert!(
            table.contains(
                "| Nodes 10,000: scroll through, p95 frame | — | — | — | ≤ 33 ms (two frames) | \
                 not measured: baseline 10,000-node scroll: the grid was not complete after 25 s |"
            ),
            "{table}"
        );
        let stopped = Report { missing: vec![format!("{STOPPED_EARLY}: the key sees no reservation")], ..sample() };
        assert!(stopped
            .to_markdown()
            .contains("| ≤ 1.3× | not measured: everything after the weight: the key sees no reservation |"));
    }

    fn audit(name: &str, performance: f64, lcp_ms: f64) -> Audit {
        Audit {
            name: name.into(),
            url: format!("http://127.0.0.1:1/{name}"),
            lighthouse_version: "13.5.0".into(),
            categories: Categories {
                performance: Some(performance),
                accessibility: Some(1.0),
                best_practices: Some(1.0),
                seo: Some(0.63),
            },
            lcp_ms: Some(lcp_ms),
            tbt_ms: Some(26.0),
            cls: Some(0.0017),
            failing: vec![Finding {
                category: "performance".into(),
                id: "largest-contentful-paint".into(),
                title: "Largest Contentful Paint".into(),
                score: performance,
                value: Some(format!("{:.1} s", lcp_ms / 1000.0)),
            }],
            warnings: Vec::new(),
        }
    }

    #[test]
    fn lighthouse_rows_print_all_five_runs_with_the_worst_and_judge_each() {
        let runs = [(0.99, 1803.0), (0.98, 1850.0), (0.99, 1790.0), (0.97, 1990.0), (0.99, 1800.0)];
        let report =
            Report { lighthouse: runs.iter().map(|(p, lcp)| audit("reservations", *p, *lcp)).collect(), ..sample() };
        let table = report.to_markdown();
        assert!(
            table.contains(
                "| Lighthouse, reservations: performance | 0.99, 0.98, 0.99, 0.97, 0.99 (min 0.97) | — | — | \
                 ≥ 0.95 in each run | met |"
            ),
            "{table}"
        );
        assert!(
            table.contains(
                "| Lighthouse, reservations: LCP | 1.80 s, 1.85 s, 1.79 s, 1.99 s, 1.80 s (max 1.99 s) | — | — | \
                 < 2.5 s in each run | met |"
            ),
            "{table}"
        );
        assert!(
            table.contains("| Lighthouse, reservations: SEO | 0.63, 0.63, 0.63, 0.63, 0.63 (min 0.63) | — | — |  |  |")
        );
        assert!(
            table.contains("| Lighthouse, connect: performance | — | — | — | ≥ 0.95 in each run | not measured: not run in this run"),
            "{table}"
        );
        assert!(
            table.contains(
                "- reservations, performance: Largest Contentful Paint (`largest-contentful-paint`, 5 of 5 runs, \
                 worst score 0.97, 2.0 s)"
            ),
            "{table}"
        );
        let json = report.to_json();
        assert_eq!(json["lighthouse_reservations_performance"], json!(0.97), "the worst run");
        assert_eq!(json["lighthouse_reservations_lcp_ms"], json!(1990.0));
        assert_eq!(json["lighthouse_connect_performance"], Value::Null);
    }

    #[test]
    fn one_lighthouse_run_below_the_line_fails_the_page() {
        let runs = [0.99, 0.99, 0.94, 0.99, 0.99];
        let report = Report { lighthouse: runs.iter().map(|p| audit("connect", *p, 1500.0)).collect(), ..sample() };
        assert!(report.to_markdown().contains("(min 0.94) | — | — | ≥ 0.95 in each run | NOT met |"));
    }

    #[test]
    fn numbers_read_as_people_write_them() {
        assert_eq!((count(2000.0), count(-1536.0), count(7.0)), ("2,000".into(), "-1,536".into(), "7".into()));
        assert_eq!(
            (bytes(812.0), bytes(146_636.8), bytes(-2048.0)),
            ("812 B".into(), "143.2 KB".into(), "-2.0 KB".into())
        );
        assert_eq!((short(0.4234), short(12.34), short(412.4)), ("0.42".into(), "12.3".into(), "412".into()));
    }
}
