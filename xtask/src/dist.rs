//! `cargo xtask dist`: the console's optimised release build in `dist/`,
//! which `serve`, the end-to-end tests and the benchmarks reuse.

use std::path::PathBuf;

use crate::csp::{self, ApiOrigin};
use crate::proc::{self, command};
use crate::{tools, Result};

pub fn dist_dir() -> PathBuf {
    proc::root().join("dist")
}

/// The build for the console's own origin (serve, tests, benchmarks).
pub fn run() -> Result {
    build(None)
}

/// `cargo xtask dist [--api-origin ORIGIN]`: the origin is added to the policy's `connect-src`.
pub fn run_with(args: &[String]) -> Result {
    build(ApiOrigin::from_args(args)?.as_ref())
}

fn build(api_origin: Option<&ApiOrigin>) -> Result {
    tools::ensure_build_tools()?;
    // trunk's --offline also makes its cargo build offline, so fetch the crates first.
    proc::run(proc::cargo().arg("fetch"))?;
    // --offline: trunk must use the tools on PATH and never download its own.
    proc::run(
        command("trunk")
            .args(["build", "--release", "--offline", "--dist"])
            .arg(dist_dir()),
    )?;
    // Hashes the inline start-up script trunk just wrote, so the policy follows each build.
    csp::secure(&dist_dir(), api_origin)
}
