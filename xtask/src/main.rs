//! `cargo xtask <command>`: the project's task runner.
//!
//! Std and the `compress` crate only, so a cold `cargo xtask` compiles quickly, before
//! any tool is installed. Each subcommand lives in its own module with a `run` entry.

mod advisories;
mod bench;
mod dist;
mod imports;
mod precompress;
mod proc;
mod serve;
mod soak;
mod split;
mod summary;
mod test;
mod test_sim;
mod toolchain;
mod tools;

use std::process::ExitCode;

use xtask::Result;

const USAGE: &str = "\
usage: cargo xtask <command>

  bench [--runs N] [--polls N] [--long-run-secs N] [--out DIR]
        [--only lighthouse|first-render]
           dist, then the console against a hand-written vanilla-JS
           baseline (bench/baseline) in headless Chromium, and Lighthouse
           (npm's lighthouse@13.5.0) on Connect and the reservations list;
           prints the table and writes target/bench/report.md and report.json;
           --only measures that part alone
  dist [--api-origin https://api.example.com] [--api-upstream URL]
           install missing tools, build the console in release into dist/
           with its Content-Security-Policy (connect-src adds the API origin),
           a .br and a .gz beside every text and wasm file, and dist/nginx.conf
           (its /api/ proxied to URL, default https://api.ecohash.com; plain
           http only to a loopback host), and print their weights
  serve [--port N] [--scenario demo|large|huge] [SIMULATOR FLAGS…]
           dist, then run the simulator serving it on 127.0.0.1 (default
           port 8080, scenario demo); other flags (--seed N, --rate-limit N,
           --now RFC3339) go to the simulator unchanged
  soak [--minutes 30] [--seed N] [--poll-ms 1000]
           dist, then the live Nodes page in headless Chromium polling for
           the whole run while faults come and go at random (seeded); prints
           its report (also in target/e2e/soak-report.txt); not part of test
  test     install missing tools, browsers and nginx, check format, lints,
           advisories (fetched, or the snapshot ADVISORY_DB names), licences
           and sources, build dist/, run every test (native, wasm in headless
           Chromium and Firefox, end-to-end, through nginx); the last line is
           `N passed, N failed`

Every command first checks that the compiler is the one rust-toolchain.toml pins.";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if let Err(message) = toolchain::check() {
        eprintln!("xtask: {message}");
        return ExitCode::FAILURE;
    }
    let outcome = match args.split_first() {
        Some((command, rest)) if command == "dist" => dist::run_with(rest),
        Some((command, rest)) if command == "serve" => serve::run(rest),
        Some((command, rest)) if command == "soak" => soak::run(rest),
        Some((command, rest)) if command == "bench" => bench::run(rest),
        // `test` turns every error into a failed stage: its own last line is the summary.
        Some((command, rest)) if command == "test" && rest.is_empty() => return test::run(),
        _ => Err(USAGE.to_string()),
    };
    match outcome {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("xtask: {message}");
            ExitCode::FAILURE
        }
    }
}
