//! Child processes. Every one runs at the workspace root with the project's
//! tools first on PATH, so trunk and the test runners find the right versions.

use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::{tools, Result};

/// The workspace root: xtask's own manifest sits one level below it.
pub fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("xtask lives inside the workspace")
}

pub fn command(program: impl AsRef<OsStr>) -> Command {
    let mut command = Command::new(program);
    command.current_dir(root()).env("PATH", tools::search_path());
    command
}

/// The cargo that runs xtask (cargo sets `CARGO`), so a toolchain override holds.
pub fn cargo() -> Command {
    command(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()))
}

/// Runs a command with inherited output, after echoing it so the log shows what ran.
pub fn run(command: &mut Command) -> Result {
    announce(command);
    let status = command.status().map_err(|error| format!("cannot start `{}`: {error}", describe(command)))?;
    if status.success() {
        Ok(())
    } else {
        Err(format!("`{}` failed ({status})", describe(command)))
    }
}

pub fn announce(command: &Command) {
    eprintln!("$ {}", describe(command));
}

/// Stdout of a quiet probe such as `trunk --version`; None when it can't start or fails.
pub fn stdout_of(command: &mut Command) -> Option<String> {
    let output = command.output().ok()?;
    output.status.success().then(|| String::from_utf8_lossy(&output.stdout).into_owned())
}

/// Where `name` would be found on the tools-first PATH.
pub fn find(name: &str) -> Result<PathBuf> {
    std::env::split_paths(&tools::search_path())
        .map(|dir| dir.join(name))
        .find(|candidate| candidate.is_file())
        .ok_or_else(|| format!("{name} not found on PATH"))
}

/// The command line with the variables it sets, PATH left out as it is always the same.
fn describe(command: &Command) -> String {
    let vars = command
        .get_envs()
        .filter(|(key, _)| *key != "PATH")
        .filter_map(|(key, value)| Some(format!("{}={}", key.to_string_lossy(), value?.to_string_lossy())));
    // `cargo`, not the toolchain's full path that `CARGO` holds.
    let program = Path::new(command.get_program());
    let words = std::iter::once(program.file_name().unwrap_or(program.as_os_str()))
        .chain(command.get_args())
        .map(|word| word.to_string_lossy().into_owned());
    vars.chain(words).collect::<Vec<_>>().join(" ")
}
