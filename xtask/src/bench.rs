//! `cargo xtask bench`: builds dist/, then runs the benchmark driver (bench/) in release
//! against it; other flags go to the driver unchanged.

use crate::proc;
use crate::{dist, Result};

/// The workspace's release profile is tuned for the wasm console (size, fat LTO, one codegen
/// unit, abort on panic). The driver and the simulators it hosts are native: they want speed,
/// a quick build, and a panic that unwinds into a readable message.
const NATIVE_RELEASE: [(&str, &str); 4] = [
    ("CARGO_PROFILE_RELEASE_OPT_LEVEL", "3"),
    ("CARGO_PROFILE_RELEASE_LTO", "false"),
    ("CARGO_PROFILE_RELEASE_CODEGEN_UNITS", "16"),
    ("CARGO_PROFILE_RELEASE_PANIC", "unwind"),
];

pub fn run(args: &[String]) -> Result {
    dist::run()?;
    proc::run(
        proc::cargo()
            .envs(NATIVE_RELEASE)
            // Its own target directory: with the profile changed, sharing target/ would
            // rebuild the simulator that `serve` builds with the workspace's profile, and back.
            .env("CARGO_TARGET_DIR", proc::root().join("target/bench-build"))
            .args(["run", "--release", "--package", "bench", "--", "--dist"])
            .arg(dist::dist_dir())
            .args(args),
    )
}
