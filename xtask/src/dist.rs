//! `cargo xtask dist`: the console's optimised release build in `dist/`,
//! which `serve`, the end-to-end tests and the benchmarks reuse.

use std::path::PathBuf;

use crate::proc::{self, command};
use crate::{tools, Result};

pub fn dist_dir() -> PathBuf {
    proc::root().join("dist")
}

pub fn run() -> Result {
    tools::ensure_build_tools()?;
    // trunk's --offline also makes its cargo build offline, so fetch the crates first.
    proc::run(proc::cargo().arg("fetch"))?;
    // --offline: trunk must use the tools on PATH and never download its own.
    proc::run(
        command("trunk")
            .args(["build", "--release", "--offline", "--dist"])
            .arg(dist_dir()),
    )
}
