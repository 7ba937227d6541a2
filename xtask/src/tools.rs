//! Finding and installing the build and test tools. Each is installed only
//! when missing or at another version, so a second run installs nothing.
//!
//! Only crates.io, npm and Debian's archive are assumed reachable: trunk must
//! never download a tool itself, so everything it needs is put on its PATH.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use xtask::nginx;

use crate::proc::{self, command, find, run, stdout_of};
use crate::Result;

pub const WASM_TARGET: &str = "wasm32-unknown-unknown";
const TRUNK_VERSION: &str = "0.21.14";
/// Trunk.toml pins `wasm_opt = "version_132"` to match: Debian's binaryen 108
/// yields a wasm that fails at start (`WebAssembly.Table.set(): Argument 1 is
/// invalid for table`), and the pin makes trunk refuse any other wasm-opt.
/// Installed with esbuild from `xtask/npm/package-lock.json` ([`ensure_npm_tools`]).
const BINARYEN_VERSION: &str = "132";
/// esbuild minifies the JavaScript the split step writes (the glue and the chunks' loader),
/// which trunk's own minifier never sees.
const ESBUILD_VERSION: &str = "0.24.2";
/// Lighthouse, for the bench's audits of the first load (`bench/lighthouse.mjs` drives it
/// through its Node API, with the `puppeteer-core` and `chrome-launcher` it brings).
const LIGHTHOUSE_VERSION: &str = "13.5.0";
/// Firefox's WebDriver, for the wasm tests in Firefox (Debian's firefox-esr 140 speaks it).
const GECKODRIVER_VERSION: &str = "0.37.1";
/// The advisory, licence, ban and source checks of `deny.toml`; 0.20 reads the advisory
/// database from the folder `advisories` lays the snapshot out in.
const CARGO_DENY_VERSION: &str = "0.20.2";
/// wasm-split's CLI, which must read the split points `wasm_split_helpers` 0.2 writes.
const WASM_SPLIT_VERSION: &str = "0.2.4";

/// A binary installed with `cargo install`.
struct CargoTool {
    binary: &'static str,
    krate: &'static str,
    /// The exact version: every tool is pinned, so a new release can't change a build.
    version: String,
    locked: bool,
    /// `cargo install --features`, for a binary behind a feature.
    features: Option<&'static str>,
}

/// Everything `cargo xtask dist` needs.
pub fn ensure_build_tools() -> Result {
    ensure_wasm_target()?;
    ensure_components()?;
    ensure_debian_packages(&NODE_PACKAGES)?;
    ensure_cargo_tool(CargoTool {
        binary: "trunk",
        krate: "trunk",
        version: TRUNK_VERSION.into(),
        locked: true,
        features: None,
    })?;
    // wasm-bindgen's CLI (and its test runner) must equal the library exactly.
    // Not --locked: 0.2.130's published lock file pins webpki-roots 1.0.11, which
    // the crates.io index doesn't offer (yanked), so a locked install can't resolve.
    ensure_cargo_tool(CargoTool {
        binary: "wasm-bindgen",
        krate: "wasm-bindgen-cli",
        version: wasm_bindgen_version()?,
        locked: false,
        features: None,
    })?;
    ensure_cargo_tool(CargoTool {
        binary: "wasm-split-cli",
        krate: "wasm_split_cli_support",
        version: WASM_SPLIT_VERSION.into(),
        locked: true,
        features: Some("build-binary"),
    })?;
    ensure_npm_tools()
}

/// Everything `cargo xtask test` needs: the build tools, both browsers and their drivers.
pub fn ensure_test_tools() -> Result {
    ensure_build_tools()?;
    ensure_debian_packages(&BROWSER_PACKAGES)?;
    ensure_debian_packages(&NGINX_PACKAGES)?;
    ensure_cargo_tool(CargoTool {
        binary: "geckodriver",
        krate: "geckodriver",
        version: GECKODRIVER_VERSION.into(),
        locked: true,
        features: None,
    })?;
    ensure_cargo_tool(CargoTool {
        binary: "cargo-deny",
        krate: "cargo-deny",
        version: CARGO_DENY_VERSION.into(),
        locked: true,
        features: None,
    })
}

/// Lighthouse for `cargo xtask bench`; returns the `node_modules` it is in. Installed by
/// `npm install` at its pinned version in a folder of its own: hundreds of packages the
/// build does not need, so not in the build tools' lock file, and out of reach of their
/// `npm ci` (which empties its `node_modules`).
pub fn ensure_lighthouse() -> Result<PathBuf> {
    let dir = home().join(".cache/reservations-console/lighthouse");
    let node_modules = dir.join("node_modules");
    if stdout_of(command(node_modules.join(".bin/lighthouse")).arg("--version"))
        .is_some_and(|output| reports_version(&output, LIGHTHOUSE_VERSION))
    {
        return Ok(node_modules);
    }
    std::fs::create_dir_all(&dir).map_err(|error| format!("cannot create {}: {error}", dir.display()))?;
    // Its own package.json, so npm installs here and not into a project above it.
    write(&dir.join("package.json"), "{ \"private\": true }\n")?;
    run(command("npm")
        .args(["install", "--no-audit", "--no-fund"])
        .arg(format!("lighthouse@{LIGHTHOUSE_VERSION}"))
        .current_dir(&dir))?;
    Ok(node_modules)
}

pub fn home() -> PathBuf {
    std::env::home_dir().expect("HOME is set")
}

/// npm's tools live here: per user and outside the clone, so it survives `git clean`.
fn tools_dir() -> PathBuf {
    home().join(".cache/reservations-console/tools")
}

/// Where npm puts its tools' executables: wasm-opt (binaryen's), esbuild, lighthouse.
fn npm_bin() -> PathBuf {
    tools_dir().join("node_modules/.bin")
}

/// npm's tools first (binaryen ahead of any system wasm-opt), then cargo's bin directory
/// (where `cargo install` puts trunk and friends), then the caller's PATH.
pub fn search_path() -> OsString {
    let cargo_home = std::env::var_os("CARGO_HOME").map(PathBuf::from).unwrap_or_else(|| home().join(".cargo"));
    let inherited = std::env::var_os("PATH").unwrap_or_default();
    let dirs = [npm_bin(), cargo_home.join("bin")].into_iter().chain(std::env::split_paths(&inherited));
    std::env::join_paths(dirs).expect("PATH entries contain no separator")
}

fn ensure_wasm_target() -> Result {
    let installed = stdout_of(command("rustup").args(["target", "list", "--installed"]))
        .ok_or("`rustup target list --installed` failed: is rustup installed?")?;
    if installed.lines().any(|line| line.trim() == WASM_TARGET) {
        return Ok(());
    }
    run(command("rustup").args(["target", "add", WASM_TARGET]))
}

/// The toolchain's components `rust-toolchain.toml` lists: the standard library's source,
/// which the release build compiles with its own panic strategy (see `dist::STD_BUILD`), and
/// the lint and format gates of `cargo xtask test`. rustup installs them with the pinned
/// toolchain; this covers a toolchain that was installed without them.
fn ensure_components() -> Result {
    let installed = stdout_of(command("rustup").args(["component", "list", "--installed"]))
        .ok_or("`rustup component list --installed` failed: is rustup installed?")?;
    // Host components are listed with the host's triple (`clippy-x86_64-unknown-linux-gnu`).
    let missing: Vec<&str> = COMPONENTS
        .into_iter()
        .filter(|name| !installed.lines().any(|line| line.trim() == *name || line.starts_with(&format!("{name}-"))))
        .collect();
    if missing.is_empty() {
        return Ok(());
    }
    run(command("rustup").args(["component", "add"]).args(missing))
}

/// As in `rust-toolchain.toml`.
const COMPONENTS: [&str; 3] = ["rust-src", "clippy", "rustfmt"];

fn ensure_cargo_tool(tool: CargoTool) -> Result {
    // wasm-split-cli has no `--version`; cargo's own list of what it installed tells.
    let reported = stdout_of(command(tool.binary).arg("--version")).or_else(|| {
        let listed = stdout_of(proc::cargo().args(["install", "--list"]))?;
        listed
            .lines()
            .find(|line| line.starts_with(&format!("{} v", tool.krate)))
            .map(|line| line.replace(" v", " ").trim_end_matches(':').to_owned())
    });
    if reported.is_some_and(|output| reports_version(&output, &tool.version)) {
        return Ok(());
    }
    let mut install = proc::cargo();
    install.arg("install");
    if tool.locked {
        install.arg("--locked");
    }
    if let Some(features) = tool.features {
        install.args(["--features", features]);
    }
    run(install.arg(format!("{}@{}", tool.krate, tool.version)))
}

/// The build's npm tools and the version each reports, as `xtask/npm/package.json` pins them.
const NPM_TOOLS: [(&str, &str); 2] = [("wasm-opt", BINARYEN_VERSION), ("esbuild", ESBUILD_VERSION)];

/// The recipe of [`tools_dir`]: the package list and the lock file that pins every package
/// under it (each with its integrity hash), committed.
fn npm_recipe() -> PathBuf {
    proc::root().join("xtask/npm")
}

/// wasm-opt and esbuild, installed by `npm ci` from the committed lock file: exactly the
/// packages it names, checked against their hashes. Skipped when both report their pinned
/// versions and the installed lock file is the committed one. `--ignore-scripts`: neither
/// needs its install script (binaryen's wasm-opt is JavaScript and wasm; esbuild's script
/// only swaps its JavaScript launcher for the binary of `@esbuild/linux-x64`, which the
/// launcher finds and runs itself), so no package runs code at install.
fn ensure_npm_tools() -> Result {
    let dir = tools_dir();
    let lock = read(&npm_recipe().join("package-lock.json"))?;
    let installed = |(binary, version): &(&str, &str)| {
        stdout_of(command(npm_bin().join(binary)).arg("--version"))
            .is_some_and(|output| reports_version(&output, version))
    };
    let same_lock = std::fs::read_to_string(dir.join("package-lock.json")).is_ok_and(|copy| copy == lock);
    if same_lock && NPM_TOOLS.iter().all(installed) {
        return Ok(());
    }
    std::fs::create_dir_all(&dir).map_err(|error| format!("cannot create {}: {error}", dir.display()))?;
    write(&dir.join("package.json"), &read(&npm_recipe().join("package.json"))?)?;
    write(&dir.join("package-lock.json"), &lock)?;
    run(command("npm").args(["ci", "--ignore-scripts", "--no-audit", "--no-fund"]).current_dir(dir))
}

fn read(path: &Path) -> Result<String> {
    std::fs::read_to_string(path).map_err(|error| format!("cannot read {}: {error}", path.display()))
}

fn write(path: &Path, text: &str) -> Result {
    std::fs::write(path, text).map_err(|error| format!("cannot write {}: {error}", path.display()))
}

/// Debian packages, keyed by the binary each one provides (firefox-esr also
/// provides the `firefox` that geckodriver looks for).
const BROWSER_PACKAGES: [(&str, &str); 3] =
    [("chromium", "chromium"), ("chromedriver", "chromium-driver"), ("firefox-esr", "firefox-esr")];

/// npm installs binaryen and esbuild (see [`ensure_npm_tools`]); Debian's npm brings Node.
const NODE_PACKAGES: [(&str, &str); 2] = [("node", "nodejs"), ("npm", "npm")];

/// nginx and its `brotli_static` module, for the end-to-end test of the generated
/// `nginx.conf` (e2e/tests/nginx.rs), keyed by the files the test runs and loads.
const NGINX_PACKAGES: [(&str, &str); 2] =
    [(nginx::DEBIAN_NGINX, "nginx"), (nginx::DEBIAN_BROTLI_STATIC_MODULE, "libnginx-mod-http-brotli-static")];

/// Installs the packages whose file is missing (a binary on PATH, or an absolute path),
/// through apt-get; on a machine without it, fails at once with the packages to install.
fn ensure_debian_packages(packages: &[(&str, &str)]) -> Result {
    let present = |provided: &str| {
        if provided.starts_with('/') {
            Path::new(provided).is_file()
        } else {
            find(provided).is_ok()
        }
    };
    let missing: Vec<&str> =
        packages.iter().filter(|(provided, _)| !present(provided)).map(|(_, package)| *package).collect();
    if missing.is_empty() {
        return Ok(());
    }
    if find("apt-get").is_err() {
        return Err(format!(
            "missing {}, and this machine has no apt-get: install them with its package manager, then run again",
            missing.join(", ")
        ));
    }
    run(apt_get().arg("update"))?;
    run(apt_get().args(["install", "-y"]).args(missing).env("DEBIAN_FRONTEND", "noninteractive"))
}

/// apt-get as root (CI), through sudo otherwise.
fn apt_get() -> std::process::Command {
    let root = stdout_of(command("id").arg("-u")).is_some_and(|uid| uid.trim() == "0");
    if root {
        command("apt-get")
    } else {
        let mut sudo = command("sudo");
        sudo.args(["--preserve-env=DEBIAN_FRONTEND", "apt-get"]);
        sudo
    }
}

/// The single version of `name` in a Cargo.lock.
fn locked_version(lock: &str, name: &str) -> Result<String> {
    let wanted = format!("name = \"{name}\"");
    let versions: Vec<&str> = lock
        .split("[[package]]")
        .filter(|block| block.lines().any(|line| line.trim() == wanted))
        .filter_map(|block| block.lines().find_map(|line| line.trim().strip_prefix("version = \"")?.strip_suffix('"')))
        .collect();
    match versions.as_slice() {
        [version] => Ok(version.to_string()),
        [] => Err(format!("Cargo.lock has no package {name}")),
        several => Err(format!("Cargo.lock has several versions of {name}: {}", several.join(", "))),
    }
}

/// The wasm-bindgen version the console links against, read from Cargo.lock.
fn wasm_bindgen_version() -> Result<String> {
    let path = proc::root().join("Cargo.lock");
    let lock = std::fs::read_to_string(&path).map_err(|error| format!("cannot read {}: {error}", path.display()))?;
    locked_version(&lock, "wasm-bindgen")
}

/// Whether a `--version` output names exactly this version, as one of its words.
fn reports_version(output: &str, version: &str) -> bool {
    output.split_whitespace().any(|word| word == version)
}

#[cfg(test)]
mod tests {
    use super::*;

    const LOCK: &str = r#"
version = 4

[[package]]
name = "wasm-bindgen"
version = "0.2.130"
source = "registry+https://github.com/rust-lang/crates.io-index"
dependencies = [
 "wasm-bindgen-macro",
]

[[package]]
name = "wasm-bindgen-macro"
version = "0.2.999"
"#;

    #[test]
    fn locked_version_reads_the_named_package_not_a_prefix_match() {
        assert_eq!(locked_version(LOCK, "wasm-bindgen").unwrap(), "0.2.130");
        assert_eq!(locked_version(LOCK, "wasm-bindgen-macro").unwrap(), "0.2.999");
    }

    #[test]
    fn locked_version_rejects_a_missing_package() {
        assert!(locked_version(LOCK, "trunk").is_err());
    }

    #[test]
    fn locked_version_rejects_two_versions_of_one_package() {
        let two = format!("{LOCK}\n[[package]]\nname = \"wasm-bindgen\"\nversion = \"0.2.100\"\n");
        assert!(locked_version(&two, "wasm-bindgen").unwrap_err().contains("0.2.100"));
    }

    #[test]
    fn locked_version_reads_the_real_lock_file() {
        assert!(wasm_bindgen_version().unwrap().starts_with("0.2."));
    }

    #[test]
    fn the_committed_npm_recipe_pins_the_versions_the_check_expects() {
        let package = read(&npm_recipe().join("package.json")).unwrap();
        let lock = read(&npm_recipe().join("package-lock.json")).unwrap();
        for (name, version) in [("binaryen", "132.0.0"), ("esbuild", ESBUILD_VERSION)] {
            assert!(package.contains(&format!("\"{name}\": \"{version}\"")), "package.json pins {name} {version}");
            let entry = format!("\"node_modules/{name}\": {{\n      \"version\": \"{version}\"");
            assert!(lock.contains(&entry), "package-lock.json locks {name} {version}");
        }
        assert!(reports_version("wasm-opt version 132 (version_132)", BINARYEN_VERSION));
    }

    #[test]
    fn reports_version_matches_whole_words_only() {
        assert!(reports_version("trunk 0.21.14\n", "0.21.14"));
        assert!(reports_version("wasm-opt version 132 (version_132)", "132"));
        assert!(!reports_version("wasm-opt version 108 (version_108)", "132"));
        assert!(!reports_version("trunk 0.21.140", "0.21.14"));
        assert!(reports_version("0.24.2\n", "0.24.2"));
    }
}
