//! `cargo xtask bench`: the release console and a hand-written vanilla-JS baseline
//! (`bench/baseline/`), each served by its own in-process simulator on loopback, driven in
//! one headless Chromium and measured by the same in-page probe. Prints a table and writes
//! `target/bench/report.md` and `report.json`.

mod cdp;
mod fit;
mod leak;
mod lighthouse;
mod measure;
mod report;
mod requests;
mod stats;
mod weight;

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, Instant};

use std::sync::Arc;

use e2e::{Browser, Config, Scenario, Simulator};
use measure::{Expected, LongRunPlan, Page, PollSession};
use report::{Nodes10k, Pair, PollRow, Report};
use reservations_console::domain::polling::fleet::KEY_LIMIT_PER_MINUTE;
use stats::Spread;
use weight::Wire;

const USAGE: &str = "\
usage: bench [--dist DIR] [--runs N] [--polls N] [--long-run-secs N] [--out DIR]
             [--node-modules DIR] [--only lighthouse|first-render]
       bench --leak-case DIR [--out DIR]

  --dist DIR        the console's release build (default: dist/)
  --runs N          runs per timing, at least 5 (default 5)
  --polls N         polls of the long run (default 2000)
  --long-run-secs N the long run (the console's) stops here even short of its polls,
                    and the report says so (default 480: 2,000 polls at the 100 ms
                    floor of ?poll_ms= take about 240 s on an idle machine)
  --out DIR         where report.md and report.json go (default: target/bench/)
  --node-modules DIR where npm installed `lighthouse` (cargo xtask bench passes it);
                    without it the Lighthouse figures are not measured
  --only PART       measure this part alone: `lighthouse` (five audits of each page,
                    about a minute and a half) or `first-render` (the reservations table, console and baseline)
  --leak-case DIR   instead, measure the reduced case of Leptos's keyed <For> built in
                    DIR ((cd bench/for-leak && trunk build --release --offline) builds
                    it into target/for-leak/dist) into for-leak.md and for-leak.json";

/// The demo key that sees every reservation of the large scenario.
const KEY: &str = "eco_demo_owner";
/// Runs of the first render of the reservations table at least: its target (≤ 1.3× the
/// baseline) is close, so its median needs more runs than the others to be steady.
const FIRST_RENDER_RUNS: usize = 9;
/// Scrolls through the 10,000-node grid on each page, alternating: issue 32's five at least.
/// Each takes ~7 to 13 s on two cores.
const SCROLL_RUNS: usize = 5;
/// Nodes changed before the measured polls.
const CHANGED_NODES: [u32; 3] = [1, 10, 100];
/// The interval while timing single polls: long enough for the DOM to settle in between.
const MEASURED_POLL_MS: u64 = 500;
/// How long the default interval (5 s) is watched for the shortest gap between polls: the
/// load's poll and the next, with time to spare on a slow machine.
const DEFAULT_INTERVAL_WINDOW: Duration = Duration::from_millis(8_000);

#[derive(Debug, PartialEq)]
struct Options {
    dist: PathBuf,
    runs: usize,
    polls: u64,
    long_run: Duration,
    out: PathBuf,
    leak_case: Option<PathBuf>,
    node_modules: Option<PathBuf>,
    only: Option<Part>,
}

/// A part of the bench that `--only` can run alone, to iterate on one figure.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Part {
    Lighthouse,
    FirstRender,
}

impl Part {
    fn parse(text: &str) -> Result<Part, String> {
        match text {
            "lighthouse" => Ok(Part::Lighthouse),
            "first-render" => Ok(Part::FirstRender),
            _ => Err(format!("--only {text}: lighthouse or first-render")),
        }
    }
}

impl Options {
    fn parse(args: &[String], root: &Path) -> Result<Options, String> {
        let mut options = Options {
            dist: root.join("dist"),
            runs: 5,
            polls: 2000,
            // 2,000 polls at the key's pace ([`KEY_PACE`], 300 ms) take 10 minutes.
            long_run: Duration::from_secs(660),
            out: root.join("target/bench"),
            leak_case: None,
            node_modules: None,
            only: None,
        };
        let mut args = args.iter();
        while let Some(flag) = args.next() {
            let mut value = || args.next().ok_or(format!("{flag} needs a value"));
            match flag.as_str() {
                "--dist" => options.dist = PathBuf::from(value()?),
                "--out" => options.out = PathBuf::from(value()?),
                "--runs" => options.runs = number(flag, value()?)?,
                "--polls" => options.polls = number(flag, value()?)?,
                "--long-run-secs" => options.long_run = Duration::from_secs(number(flag, value()?)?),
                "--leak-case" => options.leak_case = Some(PathBuf::from(value()?)),
                "--node-modules" => options.node_modules = Some(PathBuf::from(value()?)),
                "--only" => options.only = Some(Part::parse(value()?)?),
                _ => return Err(format!("unknown flag {flag}")),
            }
        }
        if options.runs < 5 {
            return Err("--runs: at least 5, so that a median means something".into());
        }
        if options.polls < 200 {
            return Err("--polls: at least 200 (memory is first read at poll 100)".into());
        }
        Ok(options)
    }

    /// The first render's runs: `--runs`, and never fewer than [`FIRST_RENDER_RUNS`].
    fn first_render_runs(&self) -> usize {
        self.runs.max(FIRST_RENDER_RUNS)
    }

    /// Whether `part` is measured: every part is, unless `--only` names another.
    fn measures(&self, part: Part) -> bool {
        self.only.is_none_or(|only| only == part)
    }

    /// Whether the whole bench runs (no `--only`).
    fn measures_all(&self) -> bool {
        self.only.is_none()
    }
}

fn number<T: std::str::FromStr>(flag: &str, text: &str) -> Result<T, String> {
    text.parse().map_err(|_| format!("{flag} {text}: not a number"))
}

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("bench lives inside the workspace").to_owned()
}

#[tokio::main]
async fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let root = root();
    let options = match Options::parse(&args, &root) {
        Ok(options) => options,
        Err(message) => {
            eprintln!("bench: {message}\n{USAGE}");
            return ExitCode::FAILURE;
        }
    };
    let (name, markdown, json) = match &options.leak_case {
        Some(dir) => match leak_case(dir).await {
            Ok(variants) => ("for-leak", leak::to_markdown(&variants), leak::to_json(&variants)),
            Err(message) => {
                eprintln!("bench: {message}");
                return ExitCode::FAILURE;
            }
        },
        None => {
            if !options.dist.join("index.html").is_file() {
                eprintln!(
                    "bench: no index.html in {}: build the console first (cargo xtask dist)",
                    options.dist.display()
                );
                return ExitCode::FAILURE;
            }
            let report = run(&options, &root).await;
            ("report", report.to_markdown(), report.to_json())
        }
    };
    println!("\n{markdown}");
    let written = std::fs::create_dir_all(&options.out)
        .and_then(|()| std::fs::write(options.out.join(format!("{name}.md")), &markdown))
        .and_then(|()| {
            let json = serde_json::to_string_pretty(&json).expect("plain data");
            std::fs::write(options.out.join(format!("{name}.json")), json + "\n")
        });
    match written {
        Ok(()) => {
            println!("Written to {}/{name}.md and {name}.json", options.out.display());
            ExitCode::SUCCESS
        }
        Err(error) => {
            eprintln!("bench: writing {}: {error}", options.out.display());
            ExitCode::FAILURE
        }
    }
}

/// The reduced case of bench/for-leak, served from `dir` by a simulator of its own.
async fn leak_case(dir: &Path) -> Result<Vec<leak::Variant>, String> {
    if !dir.join("index.html").is_file() {
        return Err(format!(
            "no index.html in {}: (cd bench/for-leak && trunk build --release --offline)",
            dir.display()
        ));
    }
    let sim = simulator(dir, Scenario::Large).await;
    let browser = Browser::start().await;
    measure::install_probe(&browser, &[]).await;
    leak::measure(&browser, &sim.url()).await
}

/// Progress on stderr, with the time since the start, so a long run shows where it is.
struct Progress(Instant);

impl Progress {
    fn say(&self, what: impl std::fmt::Display) {
        eprintln!("[{:>5.1} s] {what}", self.0.elapsed().as_secs_f64());
    }
}

/// A figure measured, or the reason it was not, recorded in the report.
fn keep<T>(missing: &mut Vec<String>, what: &str, result: Result<T, String>) -> Option<T> {
    result.map_err(|reason| missing.push(format!("{what}: {reason}"))).ok()
}

/// The long run polls as fast as the key's limit lets one tab (CONTRACT.md: 200 requests a
/// minute): faster, the console's gate holds its requests back once the minute's share is
/// spent (as the API would answer 429), and the run measures the wait, not the polls.
const KEY_PACE: Duration = Duration::from_millis(60_000 / KEY_LIMIT_PER_MINUTE as u64);

async fn run(options: &Options, root: &Path) -> Report {
    let progress = Progress(Instant::now());
    let plan = LongRunPlan {
        polls: options.polls,
        first_reading: 100,
        poll_ms: KEY_PACE.as_millis() as u64,
        churn_nodes: 10,
        churn_every: KEY_PACE,
        max_duration: options.long_run,
    };
    let mut report = Report {
        conditions: format!(
            "Headless Chromium, HTTP cache off; both pages served by their own simulator on loopback \
             (scenario large). Timings: median of {runs} runs (min–max; {first_render_runs} for the first render \
             of the reservations table), console and baseline in turn. \
             Single polls every {MEASURED_POLL_MS} ms. Long run: {polls} polls every {poll_ms} ms on \
             1,000 nodes × 8 GPUs, {churn} nodes changed every {every} ms, memory read (after a full GC, \
             with a poll held back) at poll {first} and at the end; it stops after {cap} s. The long run \
             is the console's alone: the baseline's would only be a comparison. Requests in flight: \
             over the long run and {window} s at the default interval. Lighthouse (npm's, its \
             default mobile preset with simulated throttling) in Chromium on Connect and on the \
             reservations list connected (the key kept for the tab), {lighthouse_runs} consecutive audits \
             of each page, dist/ served by a simulator of the demo scenario as `cargo xtask serve` does.{only}",
            runs = options.runs,
            first_render_runs = options.first_render_runs(),
            polls = plan.polls,
            poll_ms = plan.poll_ms,
            churn = plan.churn_nodes,
            every = plan.churn_every.as_millis(),
            first = plan.first_reading,
            cap = plan.max_duration.as_secs(),
            window = DEFAULT_INTERVAL_WINDOW.as_secs(),
            lighthouse_runs = lighthouse::RUNS,
            only = match options.only {
                Some(Part::Lighthouse) => " Only Lighthouse was run (--only lighthouse).",
                Some(Part::FirstRender) => " Only the first render was measured (--only first-render).",
                None => "",
            },
        ),
        ..Report::default()
    };
    progress.say(format!("fit judgement over 10,000 nodes, {} runs", options.runs));
    report.fit10k_ms = fit::judge_10k(options.runs);
    progress.say(format!("make-room plan over 10,000 nodes, {} runs", options.runs));
    report.make_room10k_ms = fit::make_room_10k(options.runs);
    if options.measures(Part::Lighthouse) {
        progress.say(format!("Lighthouse on Connect and on the reservations list, {} runs each", lighthouse::RUNS));
        let started = Instant::now();
        let audits = match &options.node_modules {
            Some(modules) => lighthouse::run(modules, &options.dist, KEY, &options.out).await,
            None => Err("no --node-modules (`cargo xtask bench` installs lighthouse and passes it)".into()),
        };
        report.lighthouse = keep(&mut report.missing, "Lighthouse", audits).unwrap_or_default();
        report.lighthouse_seconds = Some(started.elapsed().as_secs_f64());
    }
    if !options.measures(Part::FirstRender) {
        return report;
    }
    let console = Page { name: "console", sim: simulator(&options.dist, Scenario::Large).await };
    let baseline = Page { name: "baseline", sim: simulator(&root.join("bench/baseline"), Scenario::Large).await };
    progress.say(format!("simulators: console {}, baseline {}", console.sim.url(), baseline.sim.url()));
    let big_console = Page { name: "console", sim: simulator(&options.dist, Scenario::Huge).await };
    let big_baseline = Page { name: "baseline", sim: simulator(&root.join("bench/baseline"), Scenario::Huge).await };
    let browser = Browser::start().await;
    cdp::disable_cache(&browser).await;
    let missing = &mut report.missing;

    if options.measures_all() {
        progress.say("weight of the first load");
        report.weight = Pair {
            console: keep(missing, "console weight", measure::weight(&browser, &console).await),
            baseline: keep(missing, "baseline weight", measure::weight(&browser, &baseline).await),
        };

        progress.say("console on the wire: first and repeat load of Connect");
        let (first_load, repeat_load) = measure::wire_loads(&browser, &console).await;
        report.wire = Some(Wire { first_load, repeat_load, poll_json: None });
    }

    progress.say("connecting both pages");
    let mut expected = Vec::new();
    for page in [&console, &baseline, &big_console, &big_baseline] {
        measure::connect(&browser, page, KEY).await;
        expected.push(measure::expected(&browser, page, KEY).await.map(|e| (page, e)));
    }
    let mut expected: Vec<(&Page, Expected)> = match expected.into_iter().collect() {
        Ok(expected) => expected,
        Err(reason) => {
            missing.push(format!("{}: {reason}", report::STOPPED_EARLY));
            return report;
        }
    };
    let big = expected.split_off(2);
    if let Some(wire) = report.wire.as_mut() {
        wire.poll_json = keep(
            missing,
            "one poll on the wire",
            measure::poll_transfer(&browser, expected[0].0, &expected[0].1, KEY).await,
        );
    }
    measure::install_probe(&browser, &[expected.as_slice(), big.as_slice()].concat()).await;

    let first_render_runs = options.first_render_runs();
    progress.say(format!("first render of the reservations table, {first_render_runs} runs each"));
    report.first_render_ms = interleaved(missing, "first render", first_render_runs, &expected, |page, _| {
        measure::first_render(&browser, page)
    })
    .await;
    if !options.measures_all() {
        progress.say("done");
        return report;
    }

    progress.say(format!("first render of the overview, {first_render_runs} runs each"));
    report.overview_first_render_ms =
        interleaved(missing, "overview first render", first_render_runs, &expected, |page, _| {
            measure::overview_first_render(&browser, page)
        })
        .await;

    progress.say(format!("first full grid of {} GPUs, {} runs each", expected[0].1.gpus, options.runs));
    report.nodes_first_render_ms = interleaved(missing, "nodes first render", options.runs, &expected, |page, e| {
        measure::nodes_first_render(&browser, page, e)
    })
    .await;

    progress.say(format!("single polls with k = {CHANGED_NODES:?} nodes changed"));
    report.polls =
        CHANGED_NODES.iter().map(|&k| PollRow { k, ms: Pair::default(), mutations: Pair::default() }).collect();
    for (page, e) in &expected {
        let timings = poll_timings(&browser, page, *e, options.runs).await;
        for (row, timings) in report.polls.iter_mut().zip(timings) {
            let timings = keep(missing, &format!("{} poll k = {}", page.name, row.k), timings);
            let ms = timings.as_ref().and_then(|t| Spread::of(&t.iter().map(|t| t.ms).collect::<Vec<_>>()));
            let count = timings.as_ref().and_then(|t| Spread::of(&t.iter().map(|t| t.mutations).collect::<Vec<_>>()));
            *side(&mut row.ms, page) = ms;
            *side(&mut row.mutations, page) = count;
        }
    }

    big_nodes(&browser, options.runs, &big, (&mut report.nodes10k, missing), &progress).await;

    progress.say(format!("console: long run of {} polls every {} ms", plan.polls, plan.poll_ms));
    let run = keep(missing, "console long run", measure::long_run(&browser, &console, &expected[0].1, plan).await);
    let mut long_run_in_flight = None;
    if let Some((run, most)) = run {
        if run.polls < plan.polls {
            missing.push(format!(
                "console long run: stopped at poll {} after {:.0} s, short of {}",
                run.polls, run.seconds, plan.polls
            ));
        }
        report.long_run = Some(run);
        long_run_in_flight = Some(most);
    }

    for (page, e) in &expected {
        progress.say(format!("{}: the default interval for {} s", page.name, DEFAULT_INTERVAL_WINDOW.as_secs_f64()));
        let window = keep(
            missing,
            &format!("{} default interval", page.name),
            measure::default_interval(&browser, page, e, DEFAULT_INTERVAL_WINDOW).await,
        );
        let long_run = long_run_in_flight.filter(|_| page.name == console.name);
        *side(&mut report.bounds, page) = window.map(|w| w.bounds(long_run));
    }
    progress.say("done");
    report
}

/// The 10,000-node figures: first grid and scroll through (interleaved runs), then on each
/// page one visit (DOM size, decode, memory), the console's searches, and polls with 100
/// nodes changed.
async fn big_nodes(
    browser: &Browser,
    runs: usize,
    pages: &[(&Page, Expected)],
    (big, missing): (&mut Nodes10k, &mut Vec<String>),
    progress: &Progress,
) {
    progress.say(format!("10,000 nodes: first grid, {runs} runs each"));
    big.first_render_ms = interleaved(missing, "10,000-node first render", runs, pages, |page, e| {
        measure::nodes_first_render(browser, page, e)
    })
    .await;
    progress.say(format!("10,000 nodes: a scroll through, {SCROLL_RUNS} runs each"));
    big.scroll_p95_frame_ms = interleaved(missing, "10,000-node scroll", SCROLL_RUNS, pages, |page, e| {
        measure::scroll_p95_frame(browser, page, e)
    })
    .await;
    for (page, e) in pages {
        progress.say(format!("10,000 nodes, {}: DOM, decode, memory", page.name));
        if let Some(visit) =
            keep(missing, &format!("{} 10,000-node visit", page.name), measure::big_page(browser, page, *e).await)
        {
            *side(&mut big.dom_elements, page) = visit.dom_elements;
            *side(&mut big.js_heap_bytes, page) = visit.js_heap_bytes;
            if page.name == "console" {
                big.decode_ms = visit.decode_ms;
                big.wasm_memory_bytes = visit.wasm_bytes;
                progress.say(format!("10,000 nodes, console: {runs} searches"));
                let searches = keep(missing, "search", measure::search_timings(browser, e, runs).await);
                big.filter_search_ms = searches.and_then(|t| Spread::of(&t));
            }
        }
        progress.say(format!("10,000 nodes, {}: {runs} polls with 100 nodes changed", page.name));
        let polls = async {
            let mut session = PollSession::open(browser, page, *e, MEASURED_POLL_MS).await?;
            let mut timings = Vec::new();
            for _ in 0..runs {
                timings.push(session.changed(100).await?);
            }
            Ok::<_, String>(timings)
        };
        if let Some(timings) = keep(missing, &format!("{} 10,000-node poll k = 100", page.name), polls.await) {
            *side(&mut big.poll_k100_ms, page) = Spread::of(&timings.iter().map(|t| t.ms).collect::<Vec<_>>());
            *side(&mut big.poll_k100_mutations, page) =
                Spread::of(&timings.iter().map(|t| t.mutations).collect::<Vec<_>>());
        }
        progress.say(format!("10,000 nodes, {}: the overview's cost per second, {runs} windows", page.name));
        let busy = measure::overview_busy_per_second(browser, page, runs).await;
        if let Some(busy) = keep(missing, &format!("{} 10,000-node overview", page.name), busy) {
            *side(&mut big.overview_busy_ms_per_s, page) = Spread::of(&busy);
        }
    }
}

/// Far above what 2,000 polls at 20 ms and the churn beside them ask for in a minute.
const RATE_LIMIT_PER_MIN: u32 = 1_000_000;

/// A simulator of `scenario` (large: 1,000 nodes; huge: 10,000) serving `dist` at `/`
/// (index.html for every page path), its clock frozen: placement changes only when the
/// benchmark churns it.
async fn simulator(dist: &Path, scenario: Scenario) -> Arc<Simulator> {
    let sim = Simulator::start(Config {
        dist: Some(dist.to_owned()),
        scenario,
        rate_limit_per_min: RATE_LIMIT_PER_MIN,
        ..Config::default()
    })
    .await;
    sim.freeze_clock().await;
    Arc::new(sim)
}

/// The console's or the baseline's half of a pair.
fn side<'a, T>(pair: &'a mut Pair<T>, page: &Page) -> &'a mut T {
    if page.name == "console" {
        &mut pair.console
    } else {
        &mut pair.baseline
    }
}

/// `runs` timings of each page, alternating console and baseline so drift hits both, after
/// one untimed warm-up each.
async fn interleaved<'p, F, Fut>(
    missing: &mut Vec<String>,
    what: &str,
    runs: usize,
    pages: &[(&'p Page, Expected)],
    mut measure: F,
) -> Pair<Option<Spread>>
where
    F: FnMut(&'p Page, Expected) -> Fut,
    Fut: std::future::Future<Output = Result<f64, String>>,
{
    let mut samples = Pair::<Result<Vec<f64>, String>> { console: Ok(Vec::new()), baseline: Ok(Vec::new()) };
    for run in 0..=runs {
        for (page, expected) in pages {
            // A page that failed once is not measured again: its figure is missing anyway.
            let Ok(values) = side(&mut samples, page) else {
                continue;
            };
            match measure(page, *expected).await {
                Ok(_) if run == 0 => {}
                Ok(value) => values.push(value),
                Err(reason) => *side(&mut samples, page) = Err(reason),
            }
        }
    }
    let mut spread = |page: &str, samples: Result<Vec<f64>, String>| {
        keep(missing, &format!("{page} {what}"), samples).and_then(|values| Spread::of(&values))
    };
    Pair { console: spread("console", samples.console), baseline: spread("baseline", samples.baseline) }
}

/// `runs` single polls for each k, in one visit of the nodes page.
async fn poll_timings(
    browser: &Browser,
    page: &Page,
    expected: Expected,
    runs: usize,
) -> Vec<Result<Vec<measure::PollTiming>, String>> {
    let mut session = match PollSession::open(browser, page, expected, MEASURED_POLL_MS).await {
        Ok(session) => session,
        Err(reason) => return CHANGED_NODES.iter().map(|_| Err(reason.clone())).collect(),
    };
    let mut all = Vec::new();
    for k in CHANGED_NODES {
        let timings = async {
            let mut timings = Vec::new();
            for _ in 0..runs {
                timings.push(session.changed(k).await?);
            }
            Ok(timings)
        };
        all.push(timings.await);
    }
    all
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(args: &[&str]) -> Result<Options, String> {
        let args: Vec<String> = args.iter().map(|a| a.to_string()).collect();
        Options::parse(&args, Path::new("/repo"))
    }

    #[test]
    fn defaults_measure_five_runs_and_two_thousand_polls_of_dist() {
        let options = parse(&[]).unwrap();
        assert_eq!(
            options,
            Options {
                dist: "/repo/dist".into(),
                runs: 5,
                polls: 2000,
                long_run: Duration::from_secs(660),
                out: "/repo/target/bench".into(),
                leak_case: None,
                node_modules: None,
                only: None,
            }
        );
    }

    #[test]
    fn fewer_than_five_runs_or_too_short_a_long_run_is_refused() {
        assert!(parse(&["--runs", "3"]).is_err());
        assert!(parse(&["--polls", "100"]).is_err());
        assert!(parse(&["--runs"]).is_err());
        assert!(parse(&["--frobnicate"]).is_err());
    }

    #[test]
    fn the_first_render_takes_nine_runs_unless_more_are_asked_for() {
        assert_eq!(parse(&[]).unwrap().first_render_runs(), 9);
        assert_eq!(parse(&["--runs", "5"]).unwrap().first_render_runs(), 9);
        assert_eq!(parse(&["--runs", "15"]).unwrap().first_render_runs(), 15);
    }

    #[test]
    fn only_runs_the_part_it_names() {
        let options = parse(&["--only", "lighthouse", "--node-modules", "/t/node_modules"]).unwrap();
        assert_eq!(options.node_modules, Some(PathBuf::from("/t/node_modules")));
        assert!(options.measures(Part::Lighthouse) && !options.measures(Part::FirstRender));
        assert!(!options.measures_all());
        let first_render = parse(&["--only", "first-render"]).unwrap();
        assert!(first_render.measures(Part::FirstRender) && !first_render.measures(Part::Lighthouse));
        let all = parse(&[]).unwrap();
        assert!(all.measures_all() && all.measures(Part::Lighthouse) && all.measures(Part::FirstRender));
        assert!(parse(&["--only", "weight"]).is_err());
    }

    #[test]
    fn reads_runs_dist_and_the_long_run_cap() {
        let options = parse(&["--runs", "7", "--dist", "/d", "--long-run-secs", "400"]).unwrap();
        assert_eq!((options.runs, options.dist), (7, PathBuf::from("/d")));
        assert_eq!(options.long_run, Duration::from_secs(400));
    }
}
