//! `cargo xtask test`: every test of the workspace, stage by stage. Each stage
//! streams its output as it runs; a failing stage doesn't stop the later ones,
//! so the closing `N passed, N failed` line always covers everything.

use std::ffi::OsStr;
use std::io::{BufRead, BufReader};
use std::process::{Command, ExitCode};
use std::time::{Duration, Instant};

use crate::proc::{self, announce, find};
use crate::summary::Counts;
use crate::test_sim::TestSimulator;
use crate::{advisories, dist, tools, Result};

/// What a stage that ran to its end left: the tests it counted, whether it exited cleanly,
/// and what it could not check, for the summary to say.
struct Outcome {
    counts: Counts,
    succeeded: bool,
    left_out: Option<&'static str>,
}

/// A stage that installs or builds: no tests of its own.
const DONE: Outcome = Outcome { counts: Counts { passed: 0, failed: 0 }, succeeded: true, left_out: None };

/// One step of the run, named in the log and the summary. An error means it
/// could not run at all.
struct Stage {
    name: &'static str,
    run: fn() -> Result<Outcome>,
}

/// In order: later stages use what earlier ones install and build. Add a
/// stage by adding an entry here.
const STAGES: &[Stage] = &[
    Stage { name: "tools and browsers", run: || tools::ensure_test_tools().map(|()| DONE) },
    Stage { name: "format and lints", run: || gates(&FORMAT_AND_LINTS) },
    Stage { name: "advisories, licences, bans and sources", run: deny },
    Stage { name: "release build into dist/", run: || dist::run().map(|()| DONE) },
    Stage { name: "native tests", run: || cargo_test(&["--workspace", "--exclude", "e2e"], &[]) },
    Stage { name: "wasm tests in headless Chromium", run: || wasm_tests("CHROMEDRIVER", "chromedriver") },
    Stage { name: "wasm tests in headless Firefox", run: || wasm_tests("GECKODRIVER", "geckodriver") },
    Stage { name: "end-to-end tests", run: end_to_end },
];

/// The code's gates, each a cargo command that must succeed: the format `rustfmt.toml` sets,
/// and clippy's warnings as errors for the native workspace and for the console in wasm
/// (whose browser-only code the native build never sees).
const FORMAT_AND_LINTS: [&[&str]; 3] = [
    &["fmt", "--all", "--check"],
    &["clippy", "--workspace", "--all-targets", "--", "-D", "warnings"],
    &[
        "clippy",
        "--target",
        tools::WASM_TARGET,
        "--package",
        "reservations-console",
        "--all-targets",
        "--",
        "-D",
        "warnings",
    ],
];

/// Runs every gate, even after one fails, so that one run shows all that needs fixing; each
/// counts as one test passed or failed.
fn gates(commands: &[&[&str]]) -> Result<Outcome> {
    let mut counts = Counts::default();
    for args in commands {
        match proc::run(proc::cargo().args(*args)) {
            Ok(()) => counts.passed += 1,
            Err(message) => {
                eprintln!("xtask: {message}");
                counts.failed += 1;
            }
        }
    }
    Ok(Outcome { counts, succeeded: counts.failed == 0, left_out: None })
}

/// deny.toml's checks, the advisories among them when a database could be had
/// ([`advisories::prepare`]); without one, the others, and the summary says so. The crates
/// are fetched first, every platform's (`cargo metadata` reads them all): on a clean machine
/// the lints built only this one's, and `--offline` would stop at `windows-sys`.
fn deny() -> Result<Outcome> {
    proc::run(proc::cargo().arg("fetch"))?;
    let database = advisories::prepare()?;
    if let advisories::Database::Unavailable(why) = &database {
        println!("xtask: {why}");
    }
    let checks: &[&str] = if database.checked() {
        &["deny", "--offline", "check", "advisories", "bans", "licenses", "sources"]
    } else {
        &["deny", "--offline", "check", "bans", "licenses", "sources"]
    };
    let outcome = gates(&[checks])?;
    Ok(Outcome { left_out: (!database.checked()).then_some("advisories not checked"), ..outcome })
}

/// Variables wasm-bindgen-test-runner reads to choose where tests run. Every
/// stage clears them, then sets its own, so the caller's environment can't
/// swap the browser or make the runner wait for a person (`NO_HEADLESS`).
const RUNNER_VARIABLES: [&str; 5] =
    ["CHROMEDRIVER", "GECKODRIVER", "SAFARIDRIVER", "NO_HEADLESS", "WASM_BINDGEN_USE_BROWSER"];

pub fn run() -> ExitCode {
    // Every cargo below builds once and exits: incremental caches (6 GB of target/ once the
    // wasm tests are built) would speed no later build of a clean checkout, and CI's disk is
    // not that large. Set before any thread starts; every child inherits it.
    std::env::set_var("CARGO_INCREMENTAL", "0");
    report_free_space();
    let mut report = Vec::new();
    for Stage { name, run } in STAGES {
        println!("\n==> {name}");
        let started = Instant::now();
        let counts = match run() {
            Ok(Outcome { counts, succeeded, left_out }) => (counts.settle(succeeded), left_out),
            Err(message) => {
                eprintln!("xtask: {message}");
                (Counts::default().settle(false), None)
            }
        };
        report.push((*name, counts, started.elapsed()));
    }
    println!("\n==> summary");
    let mut total = Counts::default();
    for (name, (counts, left_out), elapsed) in &report {
        let left_out = left_out.map(|what| format!(" ({what})")).unwrap_or_default();
        println!("{:>7.1}s  {name}: {counts}{left_out}", elapsed.as_secs_f64());
        total += *counts;
    }
    let total_time: Duration = report.iter().map(|(_, _, elapsed)| *elapsed).sum();
    println!("{:>7.1}s  all stages", total_time.as_secs_f64());
    println!("{total}");
    if total.failed == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

/// What a clean run leaves under target/, rounded up (4.0 GB on a fresh clone, see docs/testing.md).
const CLEAN_RUN_GB: u64 = 5;

/// Says how much disk the build has before it starts, and warns when a clean run would not
/// fit: running out mid-build fails as a compiler error ("No space left on device") that
/// names a crate, not the disk.
fn report_free_space() {
    let free_kb = proc::stdout_of(Command::new("df").args(["-Pk"]).arg(proc::root()))
        .and_then(|table| table.lines().nth(1)?.split_whitespace().nth(3)?.parse::<u64>().ok());
    match free_kb {
        Some(kb) if kb / 1_048_576 < CLEAN_RUN_GB => println!(
            "xtask: warning: {:.1} GB free under the workspace; a clean run writes about {CLEAN_RUN_GB} GB to target/",
            kb as f64 / 1_048_576.0
        ),
        Some(kb) => println!("xtask: {:.1} GB free under the workspace", kb as f64 / 1_048_576.0),
        None => println!("xtask: could not read the free disk space (df)"),
    }
}

/// The console's `wasm_bindgen_test`s in one headless browser, picked by its
/// driver's variable. The runner reads `webdriver.json` (Chromium's flags) from
/// the console's directory. `WASM_BINDGEN_USE_BROWSER` sends test files without
/// `wasm_bindgen_test_configure!` to the browser too, where they'd otherwise run in Node.
/// The client's browser tests call a simulator of their own, named by `SIM_BASE_URL`.
fn wasm_tests(variable: &str, driver: &str) -> Result<Outcome> {
    let driver = find(driver)?;
    let simulator = TestSimulator::start()?;
    let base_url = simulator.base_url();
    cargo_test(
        &["--target", tools::WASM_TARGET, "--package", "reservations-console"],
        &[
            (variable, driver.as_os_str()),
            ("WASM_BINDGEN_USE_BROWSER", "1".as_ref()),
            ("SIM_BASE_URL", base_url.as_ref()),
            // The runner gives a whole test file 20 s by default; the client's file waits a
            // read's timeout twice (aborted, and a launch answered after it).
            ("WASM_BINDGEN_TEST_TIMEOUT", "60".as_ref()),
        ],
    )
}

/// The e2e tests start the simulator in-process and chromedriver themselves,
/// against the release build that the dist stage left in dist/.
fn end_to_end() -> Result<Outcome> {
    let chromedriver = find("chromedriver")?;
    cargo_test(
        &["--package", "e2e"],
        &[("CONSOLE_DIST", dist::dist_dir().as_os_str()), ("CHROMEDRIVER", chromedriver.as_os_str())],
    )
}

/// `cargo test` with these arguments and variables. `--no-fail-fast`: one
/// failing test binary must not hide the counts of the ones after it.
fn cargo_test(args: &[&str], env: &[(&str, &OsStr)]) -> Result<Outcome> {
    let mut command = proc::cargo();
    command.args(["test", "--no-fail-fast"]).args(args);
    for variable in RUNNER_VARIABLES {
        command.env_remove(variable);
    }
    command.envs(env.iter().copied());
    stream(command)
}

/// Runs the command with its stdout and stderr merged into one pipe, so the
/// log keeps cargo's `Running …` lines in order with the tests' output, and
/// reads that stream for summary lines as it echoes it.
fn stream(mut command: Command) -> Result<Outcome> {
    announce(&command);
    let failure = |error: std::io::Error| format!("running cargo: {error}");
    let (reader, writer) = std::io::pipe().map_err(failure)?;
    command.stdout(writer.try_clone().map_err(failure)?).stderr(writer);
    let mut child = command.spawn().map_err(failure)?;
    // The command holds the pipe's write ends: drop it, or the read never ends.
    drop(command);
    let mut counts = Counts::default();
    // Split on bytes: a browser's stray non-UTF-8 output must not end the stage.
    for line in BufReader::new(reader).split(b'\n') {
        let line = String::from_utf8_lossy(&line.map_err(failure)?).into_owned();
        println!("{line}");
        if let Some(found) = Counts::from_line(&line) {
            counts += found;
        }
    }
    let status = child.wait().map_err(failure)?;
    Ok(Outcome { counts, succeeded: status.success(), left_out: None })
}
