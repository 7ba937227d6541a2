//! `cargo xtask dist`: the console's optimised release build in `dist/`,
//! which `serve`, the end-to-end tests and the benchmarks reuse.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use xtask::csp::{self, ApiOrigin};
use xtask::nginx::{self, Upstream};

use crate::proc::{self, command};
use crate::{precompress, split, tools, Result};

pub fn dist_dir() -> PathBuf {
    proc::root().join("dist")
}

/// The build for the console's own origin (serve, tests, benchmarks).
pub fn run() -> Result {
    build(&Options::default())
}

/// `cargo xtask dist [--api-origin ORIGIN] [--api-upstream URL]`.
pub fn run_with(args: &[String]) -> Result {
    build(&Options::parse(args)?)
}

/// What `cargo xtask dist` is told.
#[derive(Debug, PartialEq)]
struct Options {
    /// Added to the policy's `connect-src`, for a console that calls an API directly.
    api_origin: Option<ApiOrigin>,
    /// Where `nginx.conf` proxies `/api/` (the provider's documented base URL by default).
    upstream: Upstream,
}

impl Default for Options {
    fn default() -> Options {
        Options { api_origin: None, upstream: Upstream::provider() }
    }
}

impl Options {
    fn parse(args: &[String]) -> Result<Options> {
        let usage = || {
            "usage: cargo xtask dist [--api-origin https://api.example.com] [--api-upstream https://api.example.com/v1]"
                .to_owned()
        };
        let mut options = Options::default();
        let mut rest = args;
        while !rest.is_empty() {
            let [flag, value, tail @ ..] = rest else { return Err(usage()) };
            match flag.as_str() {
                "--api-origin" => options.api_origin = Some(ApiOrigin::parse(value)?),
                nginx::FLAG => options.upstream = Upstream::parse(value)?,
                _ => return Err(usage()),
            }
            rest = tail;
        }
        Ok(options)
    }
}

/// Flags for the release wasm only (trunk passes `--target`, so build scripts and
/// proc macros don't get them). `erase_components` makes every component return
/// an `AnyView`, which cut the brotli wasm from 375 KB to 318 KB; the split's flags
/// make each lazy page a chunk (see `split`); the path remaps shorten the file names
/// that panic locations keep in the binary. A caller's own `RUSTFLAGS` come first
/// and stay.
fn release_rustflags() -> OsString {
    let mut flags = std::env::var_os("RUSTFLAGS").unwrap_or_default();
    let mut add = |flag: &str| {
        if !flags.is_empty() {
            flags.push(" ");
        }
        flags.push(flag);
    };
    add("--cfg erase_components");
    STD_BUILD.rustflags.into_iter().for_each(&mut add);
    split::RUSTFLAGS.into_iter().for_each(&mut add);
    for (from, to) in remapped_paths() {
        add(&format!("--remap-path-prefix={}={to}", from.display()));
    }
    flags
}

/// The crate registry's source folders and the workspace, each with its short name.
fn remapped_paths() -> Vec<(PathBuf, &'static str)> {
    let cargo_home = std::env::var_os("CARGO_HOME").map(PathBuf::from).unwrap_or_else(|| tools::home().join(".cargo"));
    let registries = std::fs::read_dir(cargo_home.join("registry").join("src"))
        .into_iter()
        .flatten()
        .flatten()
        .map(|entry| (entry.path(), "/crates"));
    registries.chain([(proc::root().to_path_buf(), "/console")]).filter(|(path, _)| is_plain(path)).collect()
}

/// RUSTFLAGS splits on spaces, so a path with one can't be passed; it's left unmapped.
fn is_plain(path: &Path) -> bool {
    path.to_str().is_some_and(|path| !path.contains(' '))
}

/// The release wasm's standard library, built from source with `panic=immediate-abort`:
/// a panic traps at once, so no panic message, formatting or location is compiled in,
/// which cut the first load's brotli wasm by 22 KB (216 → 194 KB). Both are unstable
/// options of the stable compiler `rust-toolchain.toml` pins (xtask refuses another), enabled for this one build by
/// `RUSTC_BOOTSTRAP`; tests and `trunk serve` build as before. A release build aborted
/// on a panic already (`panic = "abort"`): only the console message is lost. The
/// standard library's `optimize_for_size` picks its smaller implementations (sorting,
/// formatting numbers), which the speed of this UI does not miss.
struct StdBuild {
    env: [(&'static str, &'static str); 3],
    rustflags: [&'static str; 3],
}

const STD_BUILD: StdBuild = StdBuild {
    env: [
        ("RUSTC_BOOTSTRAP", "1"),
        ("CARGO_UNSTABLE_BUILD_STD", "std,panic_abort"),
        ("CARGO_UNSTABLE_BUILD_STD_FEATURES", "optimize_for_size"),
    ],
    rustflags: ["-Zunstable-options", "-Cpanic=immediate-abort", "-Zlocation-detail=none"],
};

/// The standard library's workspace in the toolchain's `rust-src`.
fn std_manifest() -> Result<PathBuf> {
    let sysroot =
        proc::stdout_of(command("rustc").args(["--print", "sysroot"])).ok_or("`rustc --print sysroot` failed")?;
    Ok(PathBuf::from(sysroot.trim()).join("lib/rustlib/src/rust/library/Cargo.toml"))
}

fn build(options: &Options) -> Result {
    tools::ensure_build_tools()?;
    // trunk's --offline also makes its cargo build offline, so fetch the crates first:
    // the workspace's, and those the standard library's own build needs.
    proc::run(proc::cargo().arg("fetch"))?;
    proc::run(proc::cargo().args(["fetch", "--locked", "--manifest-path"]).arg(std_manifest()?).envs(STD_BUILD.env))?;
    // --offline: trunk must use the tools on PATH and never download its own.
    proc::run(
        command("trunk")
            .args(["build", "--release", "--offline", "--dist"])
            .arg(dist_dir())
            .envs(STD_BUILD.env)
            .env("RUSTFLAGS", release_rustflags()),
    )?;
    split::split_pages(&dist_dir())?;
    // Hashes the inline start-up script trunk just wrote, so the policy follows each build.
    csp::secure(&dist_dir(), options.api_origin.as_ref())?;
    // The policy above goes into it, and its files' names.
    nginx::write(&dist_dir(), &options.upstream)?;
    // Last: the page itself changed above.
    print!("{}", precompress::table(&precompress::precompress(&dist_dir())?));
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(words: &[&str]) -> Vec<String> {
        words.iter().map(|word| word.to_string()).collect()
    }

    #[test]
    fn dist_takes_an_api_origin_and_an_upstream_in_any_order_and_nothing_else() {
        assert_eq!(Options::parse(&[]).unwrap(), Options::default());
        let both = Options::parse(&args(&[
            "--api-upstream",
            "http://127.0.0.1:8080/api",
            "--api-origin",
            "https://a.example",
        ]));
        let both = both.unwrap();
        assert_eq!(both.upstream, Upstream::parse("http://127.0.0.1:8080/api").unwrap());
        assert_eq!(both.api_origin, Some(ApiOrigin::parse("https://a.example").unwrap()));
        for bad in [&["--port", "1"][..], &["--api-origin"], &["--api-upstream", "http://example.com"]] {
            assert!(Options::parse(&args(bad)).is_err(), "{bad:?}");
        }
    }
}
