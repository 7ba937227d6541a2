//! The figures of one run: a table for people (printed and in `report.md`) and the same
//! numbers for machines (`report.json`, with the issue's flat keys at the top).

use serde::Serialize;
use serde_json::{json, Map, Value};

use crate::lighthouse::{self, Audit};
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
    pub scroll_p95_frame_ms: Pair<Figure<f64>>,
    /// The console's own User Timing measure; the baseline's `JSON.parse` is not timed.
    pub decode_ms: Figure<f64>,
    pub wasm_memory_bytes: Figure<f64>,
    pub js_heap_bytes: Pair<Figure<f64>>,
    /// The console's alone: the baseline has no search.
    pub filter_search_ms: Figure<Spread>,
}

#[derive(Clone, Debug, Default, Serialize)]
pub struct Report {
    /// How the figures were taken, in a sentence or two, printed above the table.
    pub conditions: String,
    pub weight: Pair<Figure<Weight>>,
    /// The console's alone: the baseline has no precompressed files nor cache headers.
    pub wire: Figure<Wire>,
    pub first_render_ms: Pair<Figure<Spread>>,
    /// The console's alone (the baseline has no overview): its baseline is always None.
    pub overview_first_render_ms: Pair<Figure<Spread>>,
    pub nodes_first_render_ms: Pair<Figure<Spread>>,
    pub polls: Vec<PollRow>,
    pub nodes10k: Nodes10k,
    /// The `/fit` verdict over 10,000 nodes, native (bench/src/fit.rs): the console's alone.
    pub fit10k_ms: Figure<Spread>,
    /// The console's alone: the baseline's would only be a comparison, at minutes a run.
    pub long_run: Figure<LongRun>,
    pub bounds: Pair<Figure<Bounds>>,
    /// The console's alone, one per page of [`lighthouse::PAGES`] audited.
    pub lighthouse: Vec<Audit>,
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
        put("nodes10k_first_render_ms".into(), median(&big.first_render_ms.console));
        put("nodes10k_first_render_baseline_ms".into(), median(&big.first_render_ms.baseline));
        put("nodes10k_poll_k100_ms".into(), median(&big.poll_k100_ms.console));
        put("nodes10k_poll_k100_baseline_ms".into(), median(&big.poll_k100_ms.baseline));
        put("nodes10k_dom_elements".into(), big.dom_elements.console);
        put("nodes10k_dom_elements_baseline".into(), big.dom_elements.baseline);
        put("nodes10k_scroll_p95_frame_ms".into(), big.scroll_p95_frame_ms.console);
        put("nodes10k_scroll_p95_frame_baseline_ms".into(), big.scroll_p95_frame_ms.baseline);
        put("nodes10k_decode_ms".into(), big.decode_ms);
        put("nodes10k_wasm_memory_bytes".into(), big.wasm_memory_bytes);
        put("nodes10k_js_heap_bytes".into(), big.js_heap_bytes.console);
        put("nodes10k_js_heap_baseline_bytes".into(), big.js_heap_bytes.baseline);
        put("filter_search_ms".into(), median(&big.filter_search_ms));
        let long = self.long_run.as_ref();
        put("long_run_polls".into(), long.map(|l| l.polls as f64));
        put("js_heap_growth_bytes".into(), long.map(|l| l.js_heap.bytes()));
        put("wasm_memory_growth_bytes".into(), long.and_then(|l| l.wasm_memory).map(|g| g.bytes()));
        put("max_in_flight".into(), self.bounds.console.as_ref().map(|b| b.max_in_flight as f64));
        put("min_poll_gap_ms".into(), self.bounds.console.as_ref().map(|b| b.min_poll_gap_ms));
        put("max_in_flight_baseline".into(), self.bounds.baseline.as_ref().map(|b| b.max_in_flight as f64));
        put("min_poll_gap_baseline_ms".into(), self.bounds.baseline.as_ref().map(|b| b.min_poll_gap_ms));
        for page in lighthouse::PAGES {
            let audit = self.lighthouse.iter().find(|audit| audit.name == page);
            for figure in &LIGHTHOUSE_FIGURES {
                put(format!("lighthouse_{page}_{}", figure.key), audit.and_then(figure.pick));
            }
        }
        flat.insert("details".into(), serde_json::to_value(self).expect("plain data"));
        Value::Object(flat)
    }

    /// The summary table, then the files of each first load, in Markdown.
    pub fn to_markdown(&self) -> String {
        let mut rows = Vec::new();
        let weight = |pick: fn(&Weight) -> usize| Pair {
            console: self.weight.console.as_ref().map(|w| pick(w) as f64),
            baseline: self.weight.baseline.as_ref().map(|w| pick(w) as f64),
        };
        rows.push(amount_row("Weight, brotli (total)", weight(|w| w.total.brotli), bytes, "≤ 150 KB"));
        rows.push(amount_row("Weight, gzip (total)", weight(|w| w.total.gzip), bytes, ""));
        rows.push(amount_row("Weight, raw (total)", weight(|w| w.total.raw), bytes, ""));
        let wire = |pick: fn(&Wire) -> Option<u64>| Pair {
            console: self.wire.as_ref().and_then(pick).map(|b| b as f64),
            baseline: None,
        };
        rows.push(amount_row("On the wire: first load", wire(|w| Some(w.first_load)), bytes, ""));
        rows.push(amount_row("On the wire: repeat load", wire(|w| Some(w.repeat_load)), bytes, "< 3 KB"));
        rows.push(amount_row("On the wire: one 1,000-node poll", wire(|w| w.poll_json), bytes, ""));
        rows.push(spread_row("First render: reservations table", &self.first_render_ms, "ms", "≤ 1.3×"));
        rows.push(spread_row("First render: overview (console only)", &self.overview_first_render_ms, "ms", ""));
        rows.push(spread_row("Nodes 1,000 × 8: first grid", &self.nodes_first_render_ms, "ms", ""));
        for row in &self.polls {
            let (time_target, count_target) = if row.k == 10 { ("≤ 1.5×", "≤ 40") } else { ("", "") };
            rows.push(spread_row(&format!("Poll, k = {}: response → DOM settled", row.k), &row.ms, "ms", time_target));
            rows.push(spread_row(&format!("Poll, k = {}: DOM mutations", row.k), &row.mutations, "", count_target));
        }
        let fit = Pair { console: self.fit10k_ms, baseline: None };
        rows.push(spread_row("Fit judgement, 10,000 nodes (native)", &fit, "ms", "≤ 50 ms"));
        let big = &self.nodes10k;
        rows.push(spread_row("Nodes 10,000 × 8: first grid", &big.first_render_ms, "ms", "≤ 1.5×"));
        rows.push(spread_row("Nodes 10,000, poll k = 100: response → DOM settled", &big.poll_k100_ms, "ms", "≤ 1.3×"));
        rows.push(spread_row("Nodes 10,000, poll k = 100: DOM mutations", &big.poll_k100_mutations, "", ""));
        rows.push(amount_row("Nodes 10,000: DOM elements", big.dom_elements.clone(), count, "≤ 3,000"));
        rows.push(amount_row(
            "Nodes 10,000: scroll through, p95 frame",
            big.scroll_p95_frame_ms.clone(),
            |v| format!("{} ms", short(v)),
            "≤ 50 ms",
        ));
        let console_only = |figure: Figure<f64>| Pair { console: figure, baseline: None };
        rows.push(amount_row(
            "Nodes 10,000: decode of /nodes",
            console_only(big.decode_ms),
            |v| format!("{} ms", short(v)),
            "≤ 50 ms",
        ));
        rows.push(amount_row("Nodes 10,000: wasm memory", console_only(big.wasm_memory_bytes), bytes, "≤ 64 MB"));
        rows.push(amount_row("Nodes 10,000: JS heap", big.js_heap_bytes.clone(), bytes, ""));
        rows.push(spread_row(
            "Search: input → DOM settled",
            &Pair { console: big.filter_search_ms, baseline: None },
            "ms",
            "≤ 100 ms",
        ));
        let long =
            |pick: fn(&LongRun) -> Option<f64>| Pair { console: self.long_run.as_ref().and_then(pick), baseline: None };
        rows.push(amount_row("Long run: polls done", long(|l| Some(l.polls as f64)), count, "2,000"));
        rows.push(amount_row("Long run: JS heap growth", long(|l| Some(l.js_heap.bytes())), bytes, "≤ 512 KB"));
        rows.push(amount_row(
            "Long run: wasm memory growth",
            long(|l| l.wasm_memory.map(|g| g.bytes())),
            bytes,
            "≤ 512 KB",
        ));
        let bound = |pick: fn(&Bounds) -> f64| Pair {
            console: self.bounds.console.as_ref().map(pick),
            baseline: self.bounds.baseline.as_ref().map(pick),
        };
        rows.push(amount_row("Most /nodes requests in flight", bound(|b| b.max_in_flight as f64), count, "1"));
        rows.push(amount_row(
            "Shortest /nodes gap, default interval",
            bound(|b| b.min_poll_gap_ms),
            |v| format!("{} ms", count(v)),
            "≥ 3,000 ms",
        ));
        for page in lighthouse::PAGES {
            let audit = self.lighthouse.iter().find(|audit| audit.name == page);
            for figure in &LIGHTHOUSE_FIGURES {
                let pair = Pair { console: audit.and_then(figure.pick), baseline: None };
                rows.push(amount_row(
                    &format!("Lighthouse, {page}: {}", figure.label),
                    pair,
                    figure.show,
                    figure.target,
                ));
            }
        }

        let mut out = format!(
            "{}\n\n| Figure | Console | Baseline | Console ÷ baseline | Target |\n|---|---:|---:|---:|---|\n",
            self.conditions
        );
        for row in rows {
            out.push_str(&format!("| {} |\n", row.join(" | ")));
        }
        out.push_str("\nTimings: median of the runs, (min–max) beside it.\n");
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
        let findings: Vec<String> = self
            .lighthouse
            .iter()
            .flat_map(|audit| {
                audit.failing.iter().map(move |f| {
                    let value = f.value.as_deref().map(|v| format!(", {v}")).unwrap_or_default();
                    format!("- {}, {}: {} (`{}`, score {:.2}{value})\n", audit.name, f.category, f.title, f.id, f.score)
                })
            })
            .collect();
        if !findings.is_empty() {
            out.push_str("\nLighthouse's audits not passed (whole reports in lighthouse-<page>.json):\n\n");
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

const NONE: &str = "—";

/// One of each page's Lighthouse figures: its key's last part, how it reads in the table,
/// and its target.
struct LighthouseFigure {
    key: &'static str,
    label: &'static str,
    pick: fn(&Audit) -> Option<f64>,
    show: fn(f64) -> String,
    target: &'static str,
}

/// SEO has no target: a console behind a key asks not to be indexed, which costs most of
/// that score.
const LIGHTHOUSE_FIGURES: [LighthouseFigure; 7] = [
    LighthouseFigure {
        key: "performance",
        label: "performance",
        pick: |a| a.categories.performance,
        show: score,
        target: "≥ 0.95",
    },
    LighthouseFigure {
        key: "accessibility",
        label: "accessibility",
        pick: |a| a.categories.accessibility,
        show: score,
        target: "1.00",
    },
    LighthouseFigure {
        key: "best_practices",
        label: "best practices",
        pick: |a| a.categories.best_practices,
        show: score,
        target: "1.00",
    },
    LighthouseFigure { key: "seo", label: "SEO", pick: |a| a.categories.seo, show: score, target: "" },
    LighthouseFigure { key: "lcp_ms", label: "LCP", pick: |a| a.lcp_ms, show: seconds, target: "≤ 2.0 s" },
    LighthouseFigure {
        key: "tbt_ms",
        label: "TBT",
        pick: |a| a.tbt_ms,
        show: |ms| format!("{} ms", count(ms)),
        target: "",
    },
    LighthouseFigure { key: "cls", label: "CLS", pick: |a| a.cls, show: |cls| format!("{cls:.3}"), target: "0" },
];

fn score(value: f64) -> String {
    format!("{value:.2}")
}

fn seconds(ms: f64) -> String {
    format!("{:.2} s", ms / 1000.0)
}

fn spread_row(name: &str, pair: &Pair<Figure<Spread>>, unit: &str, target: &str) -> Vec<String> {
    let show = |figure: &Figure<Spread>| {
        figure.map_or(NONE.to_owned(), |s| {
            let unit = if unit.is_empty() { String::new() } else { format!(" {unit}") };
            format!("{}{unit} ({}–{})", short(s.median), short(s.min), short(s.max))
        })
    };
    let medians = Pair { console: pair.console.map(|s| s.median), baseline: pair.baseline.map(|s| s.median) };
    vec![name.to_owned(), show(&pair.console), show(&pair.baseline), times(&medians), target.to_owned()]
}

fn amount_row(name: &str, pair: Pair<Figure<f64>>, show: impl Fn(f64) -> String, target: &str) -> Vec<String> {
    let cell = |figure: Figure<f64>| figure.map_or(NONE.to_owned(), &show);
    vec![name.to_owned(), cell(pair.console), cell(pair.baseline), times(&pair), target.to_owned()]
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
    use crate::lighthouse::{Categories, Finding};
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
            wire: Some(Wire { first_load: 130_000, repeat_load: 900, poll_json: None }),
            first_render_ms: Pair { console: spread(90.0), baseline: spread(60.0) },
            overview_first_render_ms: Pair { console: spread(70.0), baseline: None },
            polls: vec![PollRow {
                k: 10,
                ms: Pair { console: spread(12.0), baseline: spread(8.0) },
                mutations: Pair { console: spread(31.0), baseline: spread(30.0) },
            }],
            missing: vec!["long run: the console showed no poll count".into()],
            ..Report::default()
        }
    }

    #[test]
    fn json_carries_the_issues_keys_as_numbers_or_null() {
        let json = sample().to_json();
        assert_eq!(json["brotli_total_bytes"], json!(120_000.0));
        assert_eq!(json["first_render_ms"], json!(90.0));
        assert_eq!(json["overview_first_render_ms"], json!(70.0));
        assert_eq!(json["wire_first_load_bytes"], json!(130_000.0));
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
                "| First render: reservations table | 90.0 ms (89.0–91.0) | 60.0 ms (59.0–61.0) | 1.50× | ≤ 1.3× |"
            ),
            "{table}"
        );
        assert!(table.contains("| Weight, brotli (total) | 117.2 KB | 2.4 KB | 48.00× | ≤ 150 KB |"), "{table}");
        assert!(table.contains("| Nodes 1,000 × 8: first grid | — | — | — |"), "{table}");
        assert!(table.contains("| Nodes 10,000: DOM elements | — | — | — | ≤ 3,000 |"), "{table}");
        assert!(table.contains("- long run: the console showed no poll count"), "{table}");
    }

    fn audit(name: &str) -> Audit {
        Audit {
            name: name.into(),
            url: format!("http://127.0.0.1:1/{name}"),
            lighthouse_version: "13.5.0".into(),
            categories: Categories {
                performance: Some(0.94),
                accessibility: Some(1.0),
                best_practices: Some(1.0),
                seo: Some(0.63),
            },
            lcp_ms: Some(2303.7),
            tbt_ms: Some(226.0),
            cls: Some(0.0017),
            failing: vec![Finding {
                category: "performance".into(),
                id: "largest-contentful-paint".into(),
                title: "Largest Contentful Paint".into(),
                score: 0.93,
                value: Some("2.3 s".into()),
            }],
            warnings: Vec::new(),
        }
    }

    #[test]
    fn lighthouse_figures_have_a_key_and_a_row_per_page_and_metric() {
        let report = Report { lighthouse: vec![audit("reservations")], ..sample() };
        let json = report.to_json();
        assert_eq!(json["lighthouse_reservations_performance"], json!(0.94));
        assert_eq!(json["lighthouse_reservations_best_practices"], json!(1.0));
        assert_eq!(json["lighthouse_reservations_lcp_ms"], json!(2303.7));
        assert_eq!(json["lighthouse_reservations_cls"], json!(0.0017));
        assert_eq!(json["lighthouse_connect_performance"], Value::Null);
        let table = report.to_markdown();
        assert!(table.contains("| Lighthouse, reservations: performance | 0.94 | — | — | ≥ 0.95 |"), "{table}");
        assert!(table.contains("| Lighthouse, reservations: LCP | 2.30 s | — | — | ≤ 2.0 s |"), "{table}");
        assert!(table.contains("| Lighthouse, reservations: CLS | 0.002 | — | — | 0 |"), "{table}");
        assert!(table.contains("| Lighthouse, connect: accessibility | — | — | — | 1.00 |"), "{table}");
        assert!(
            table.contains(
                "- reservations, performance: Largest Contentful Paint (`largest-contentful-paint`, score 0.93, 2.3 s)"
            ),
            "{table}"
        );
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
