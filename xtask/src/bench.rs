//! `cargo xtask bench`: builds dist/ and the benchmark driver (bench/) side by side, then
//! runs the driver against dist/ with the Lighthouse that npm installed (pinned in
//! `tools`); other flags go to the driver unchanged. Ends with the time the whole command took.

use std::process::Command;
use std::time::{Duration, Instant};

use crate::proc;
use crate::{dist, tools, Result};

/// The workspace's release profile is tuned for the wasm console (size, fat LTO, one codegen
/// unit, abort on panic). The driver and the simulators it hosts are native and only need
/// to keep up with the browser: a quick build (a cold one is most of the command's time),
/// and a panic that unwinds into a readable message.
const NATIVE_RELEASE: [(&str, &str); 5] = [
    ("CARGO_PROFILE_RELEASE_OPT_LEVEL", "1"),
    ("CARGO_PROFILE_RELEASE_LTO", "false"),
    ("CARGO_PROFILE_RELEASE_CODEGEN_UNITS", "16"),
    ("CARGO_PROFILE_RELEASE_DEBUG", "0"),
    ("CARGO_PROFILE_RELEASE_PANIC", "unwind"),
];

/// `cargo <args>` for the driver, in its own target directory: with the profile changed,
/// sharing target/ would rebuild the simulator that `serve` builds with the workspace's
/// profile, and back.
fn native(args: &[&str]) -> Command {
    let mut cargo = proc::cargo();
    cargo.envs(NATIVE_RELEASE).env("CARGO_TARGET_DIR", proc::root().join("target/bench-build")).args(args);
    cargo
}

pub fn run(args: &[String]) -> Result {
    let started = Instant::now();
    let node_modules = tools::ensure_lighthouse()?;
    // The driver builds while dist/ does: the console's single-unit LTO and wasm-opt keep
    // one core busy for minutes and leave the other free. Quiet, so that only its errors
    // mix into trunk's output.
    let mut driver = native(&["build", "--release", "--quiet", "--package", "bench"]);
    proc::announce(&driver);
    let mut building = driver.spawn().map_err(|error| format!("cannot start the driver's build: {error}"))?;
    let console = dist::run();
    let driver = building.wait().map_err(|error| format!("the driver's build: {error}"));
    console?;
    match driver? {
        status if status.success() => {}
        status => return Err(format!("the driver's build failed ({status})")),
    }
    let built = started.elapsed();
    let measured = proc::run(
        native(&["run", "--release", "--quiet", "--package", "bench", "--", "--dist"])
            .arg(dist::dist_dir())
            .arg("--node-modules")
            .arg(node_modules)
            .args(args),
    );
    eprintln!(
        "bench: {} in all: {} building, {} measuring",
        minutes(started.elapsed()),
        minutes(built),
        minutes(started.elapsed() - built)
    );
    measured
}

/// `7 min 05 s`, `42 s`.
fn minutes(duration: Duration) -> String {
    let seconds = duration.as_secs();
    match seconds / 60 {
        0 => format!("{seconds} s"),
        minutes => format!("{minutes} min {:02} s", seconds % 60),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_read_in_minutes_and_seconds() {
        assert_eq!(minutes(Duration::from_secs(42)), "42 s");
        assert_eq!(minutes(Duration::from_millis(425_900)), "7 min 05 s");
    }
}
