//! `cargo xtask bench`: builds dist/, then runs the benchmark driver (bench/) in release
//! against it; other flags go to the driver unchanged.

use crate::proc;
use crate::{dist, Result};

pub fn run(args: &[String]) -> Result {
    dist::run()?;
    proc::run(
        proc::cargo()
            .args(["run", "--release", "--package", "bench", "--", "--dist"])
            .arg(dist::dist_dir())
            .args(args),
    )
}
