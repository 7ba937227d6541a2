//! The compiler pinned by `rust-toolchain.toml`, checked before any command runs.
//!
//! The release build uses unstable options through `RUSTC_BOOTSTRAP` (see `dist.rs`), whose
//! meaning can change between releases: a build with another compiler is not the build the
//! tests vouch for, so xtask refuses it and says how to get the pinned one.

use std::path::PathBuf;

use crate::proc::{self, command, stdout_of};
use crate::Result;

const TOOLCHAIN_FILE: &str = "rust-toolchain.toml";

/// Refuses to go on when the compiler cargo runs is not the one the toolchain file pins.
pub fn check() -> Result {
    let path = proc::root().join(TOOLCHAIN_FILE);
    let file = std::fs::read_to_string(&path).map_err(|error| format!("cannot read {}: {error}", path.display()))?;
    let pinned = pinned_channel(&file).ok_or_else(|| format!("{} names no `channel`", path.display()))?;
    let compiler = rustc();
    let reported = stdout_of(command(&compiler).arg("--version"))
        .ok_or_else(|| format!("cannot run `{} --version`", compiler.display()))?;
    compare(&pinned, &reported)
}

/// The rustc beside the cargo that runs xtask (cargo sets `CARGO` to its own path), so that a
/// `RUSTUP_TOOLCHAIN` or `+toolchain` override is what gets checked; `RUSTC` wins as it does
/// for cargo.
fn rustc() -> PathBuf {
    if let Some(rustc) = std::env::var_os("RUSTC") {
        return rustc.into();
    }
    std::env::var_os("CARGO")
        .map(PathBuf::from)
        .and_then(|cargo| Some(cargo.parent()?.join("rustc")))
        .filter(|rustc| rustc.is_file())
        .unwrap_or_else(|| "rustc".into())
}

/// The `channel = "…"` of a rust-toolchain.toml's `[toolchain]` table.
fn pinned_channel(file: &str) -> Option<String> {
    file.lines()
        .map(str::trim)
        .filter(|line| !line.starts_with('#'))
        .find_map(|line| line.strip_prefix("channel")?.trim_start().strip_prefix('=')?.trim().strip_prefix('"'))
        .and_then(|rest| rest.split('"').next())
        .map(str::to_owned)
}

/// Ok when `rustc --version` reports the pinned version, else what to run.
fn compare(pinned: &str, reported: &str) -> Result {
    let version = reported.split_whitespace().nth(1).unwrap_or_default();
    if version == pinned {
        return Ok(());
    }
    Err(format!(
        "{TOOLCHAIN_FILE} pins Rust {pinned}, but the active compiler is `{}`.\n\
         The release build relies on options of that exact compiler. Run\n  \
         rustup toolchain install {pinned} --profile minimal --component rust-src,clippy,rustfmt --target wasm32-unknown-unknown\n\
         and drop any override (RUSTUP_TOOLCHAIN, `cargo +…`, `rustup override`) that picks another.",
        reported.trim()
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pinned_channel_reads_the_quoted_value_and_skips_comments() {
        let file =
            "# channel = \"nightly\" is not used\n[toolchain]\nchannel = \"1.95.0\"\ncomponents = [\"clippy\"]\n";
        assert_eq!(pinned_channel(file).as_deref(), Some("1.95.0"));
        assert_eq!(pinned_channel("[toolchain]\n"), None);
    }

    #[test]
    fn the_repository_pins_an_exact_stable_version() {
        let file = std::fs::read_to_string(proc::root().join(TOOLCHAIN_FILE)).unwrap();
        let channel = pinned_channel(&file).unwrap();
        assert!(
            channel.split('.').count() == 3 && channel.split('.').all(|part| part.parse::<u32>().is_ok()),
            "{channel}"
        );
    }

    #[test]
    fn compare_accepts_the_pinned_version_only() {
        assert!(compare("1.95.0", "rustc 1.95.0 (59807616e 2026-04-14)\n").is_ok());
        let refused = compare("1.95.0", "rustc 1.96.0-nightly (abc 2026-05-01)").unwrap_err();
        assert!(refused.contains("rustc 1.96.0-nightly") && refused.contains("rustup toolchain install 1.95.0"));
        assert!(compare("1.95.0", "rustc 1.95.01").is_err());
    }

    #[test]
    fn the_compiler_running_the_tests_is_the_pinned_one() {
        check().unwrap();
    }
}
