//! The end-to-end harness: the release console (`CONSOLE_DIST`) served by the simulator
//! in-process (or by Debian's nginx in front of it, see `nginx`), driven in headless
//! Chromium through chromedriver (`CHROMEDRIVER`).
//! Helpers fail the test with a clear message (they panic) instead of returning errors,
//! so tests read as a person's steps.

pub mod browser;
pub mod gate;
pub mod http;
pub mod nginx;
pub mod resilience;
pub mod sim;

use std::ffi::OsString;
use std::path::{Path, PathBuf};

pub use browser::{Browser, ConsoleEntry, Viewport, WAIT};
pub use nginx::Nginx;
pub use reservations_sim::{Config, Scenario};
pub use sim::{Fault, FaultKind, LoggedRequest, RequestLog, Simulator};

/// The demo keys of the simulator.
pub const OWNER_KEY: &str = "eco_demo_owner";
pub const MEMBER_KEY: &str = "eco_demo_member";
pub const OTHER_KEY: &str = "eco_demo_other";
/// The member key of the demo company's second account (Europe: ids 12, 9 and 4 again).
pub const EUROPE_MEMBER_KEY: &str = "eco_europe_member";

/// The built console under test: the release `dist/` named by `CONSOLE_DIST`.
#[derive(Clone, Debug)]
pub struct Dist {
    dir: PathBuf,
}

impl Dist {
    /// Fails the test when `CONSOLE_DIST` is unset or holds no `index.html`: an end-to-end
    /// test without a build must never pass by doing nothing.
    pub fn from_env() -> Dist {
        Dist::named(std::env::var_os("CONSOLE_DIST")).unwrap_or_else(|why| panic!("{why}"))
    }

    /// The build `CONSOLE_DIST`'s value names, or why there is none.
    fn named(value: Option<OsString>) -> Result<Dist, String> {
        let dir = PathBuf::from(value.ok_or(
            "CONSOLE_DIST is not set: it must name the console's release build (dist/). \
             Run `cargo xtask test`, or `cargo xtask dist` then \
             `CONSOLE_DIST=$PWD/dist cargo test -p e2e`.",
        )?);
        if !dir.join("index.html").is_file() {
            return Err(format!("CONSOLE_DIST={} has no index.html: build it with `cargo xtask dist`", dir.display()));
        }
        Ok(Dist { dir })
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// A copy of this build in `dir` (made anew), for a test that changes the files served.
    pub fn copied_to(&self, dir: &Path) -> Dist {
        fn copy(from: &Path, to: &Path) {
            std::fs::create_dir_all(to).unwrap_or_else(|error| panic!("creating {}: {error}", to.display()));
            for entry in std::fs::read_dir(from).unwrap_or_else(|error| panic!("reading {}: {error}", from.display())) {
                let path = entry.expect("a directory entry").path();
                let target = to.join(path.file_name().expect("a file name"));
                if path.is_dir() {
                    copy(&path, &target);
                } else {
                    std::fs::copy(&path, &target).unwrap_or_else(|error| panic!("copying {}: {error}", path.display()));
                }
            }
        }
        let _ = std::fs::remove_dir_all(dir);
        copy(&self.dir, dir);
        Dist { dir: dir.to_owned() }
    }

    /// The console's main module (`<name>-<hash>_bg.wasm`), the one the first load runs.
    pub fn wasm(&self) -> PathBuf {
        match self.wasm_files(|name| name.ends_with("_bg.wasm")).as_slice() {
            [one] => one.clone(),
            other => panic!("{} should hold exactly one main module, found {other:?}", self.dir.display()),
        }
    }

    /// The page chunks of the split build (every other `.wasm`).
    pub fn chunks(&self) -> Vec<PathBuf> {
        self.wasm_files(|name| !name.ends_with("_bg.wasm"))
    }

    fn wasm_files(&self, wanted: impl Fn(&str) -> bool) -> Vec<PathBuf> {
        let entries =
            std::fs::read_dir(&self.dir).unwrap_or_else(|error| panic!("reading {}: {error}", self.dir.display()));
        entries
            .filter_map(|entry| entry.ok().map(|e| e.path()))
            .filter(|path| path.extension().is_some_and(|ext| ext == "wasm"))
            .filter(|path| path.file_name().and_then(|n| n.to_str()).is_some_and(&wanted))
            .collect()
    }
}

/// The console as a user meets it: the simulator serving the build and the APIs, and a
/// browser. Everything stops when it drops.
pub struct Console {
    pub browser: Browser,
    pub sim: Simulator,
    pub dist: Dist,
    /// Where the browser opens the console: the simulator, or a server in front of it.
    origin: String,
}

impl Console {
    /// The demo scenario, seed 1, on the real clock (the browser's clock is real too, so
    /// countdowns agree with the data).
    pub async fn start() -> Console {
        Console::start_with(Config::default()).await
    }

    /// `config` with its `dist` set to `CONSOLE_DIST`.
    pub async fn start_with(config: Config) -> Console {
        Console::serving(Dist::from_env(), config).await
    }

    /// `config` with its `dist` set to `dist`.
    pub async fn serving(dist: Dist, config: Config) -> Console {
        let sim = Simulator::start(Config { dist: Some(dist.dir().to_owned()), ..config }).await;
        let browser = Browser::start().await;
        let origin = sim.url();
        Console { browser, sim, dist, origin }
    }

    /// From now on the browser opens the console at `origin` (e.g. nginx's), not the simulator.
    pub fn open_from(&mut self, origin: &str) {
        origin.clone_into(&mut self.origin);
    }

    /// Opens `path` (e.g. `/reservations/12`) on the console's origin and waits until the
    /// app has mounted its layout.
    pub async fn open(&self, path: &str) {
        self.browser.goto(&format!("{}{path}", self.origin)).await;
        self.browser.wait_for("main#main").await;
    }

    /// Connects with `key`, disconnecting first whatever key the tab holds.
    pub async fn connect_instead(&self, key: &str) {
        if self.browser.exists("header .session").await {
            self.browser.click("header .session button").await;
            self.browser.wait_for("#api-key").await;
        }
        self.connect(key).await;
    }

    /// Fills the Connect page with the default base URL and `key`, and submits it.
    pub async fn submit_key(&self, key: &str) {
        self.submit_with(key, &[]).await;
    }

    /// [`Self::submit_key`] with other Connect fields filled too: `(input id, value)`.
    async fn submit_with(&self, key: &str, fields: &[(&str, &str)]) {
        self.open("/").await;
        self.browser.type_into("#base-url", "/api").await;
        for (id, value) in fields {
            self.browser.type_into(&format!("#{id}"), value).await;
        }
        self.browser.type_into("#api-key", key).await;
        self.browser.click("form.connect-form button[type=submit]").await;
    }

    /// Connects with `key` kept for the tab (the Connect page's opt-in, `sessionStorage`),
    /// so that a page loaded afresh starts connected; waits until the header shows the session.
    pub async fn connect_keeping_key(&self, key: &str) {
        self.open("/").await;
        self.browser.type_into("#base-url", "/api").await;
        self.browser.type_into("#api-key", key).await;
        self.browser.click("input[name=keep]").await;
        self.browser.click("form.connect-form button[type=submit]").await;
        self.browser.wait_for("header .session .badge").await;
    }

    /// Connects with `key` through the Connect page and waits until the header shows the
    /// session (with the role learnt) and the page has moved on from Connect.
    pub async fn connect(&self, key: &str) {
        self.connect_with(key, &[]).await;
    }

    /// [`Self::connect`] with other Connect fields filled too: `(input id, value)`, e.g. the
    /// org capacity API's base URL or the provider console's origin.
    pub async fn connect_with(&self, key: &str, fields: &[(&str, &str)]) {
        self.submit_with(key, fields).await;
        self.browser.wait_for("header .session .badge").await;
        self.browser
            .eventually(format!("leaving Connect after connecting with {key}"), || async {
                let path = self.browser.current_path().await;
                if path == "/" {
                    Err(path)
                } else {
                    Ok(())
                }
            })
            .await;
    }

    /// Follows an in-app link the way a user does, keeping the session (a fresh page load
    /// would forget a key held in memory).
    pub async fn navigate(&self, path: &str) {
        let script = format!(
            "const a = document.createElement('a'); a.href = {}; document.body.appendChild(a); a.click(); a.remove();",
            serde_json::Value::String(path.to_owned())
        );
        self.browser.script(&script).await;
        self.browser
            .eventually(format!("the address to become {path}"), || async {
                let now = self.browser.current_path().await;
                if now == path {
                    Ok(())
                } else {
                    Err(now)
                }
            })
            .await;
    }

    /// Saves `<name>-narrow.png` and `<name>-wide.png`, ending in the wide viewport.
    pub async fn screenshots(&self, name: &str) {
        for viewport in [Viewport::Narrow, Viewport::Wide] {
            self.browser.set_viewport(viewport).await;
            self.browser.screenshot(&format!("{name}-{}", viewport.name())).await;
        }
    }

    /// Fails the test on any `SEVERE` console entry, except a failed load answering one
    /// of `expected_statuses` (Chromium logs every HTTP error response it fetched).
    pub async fn assert_no_console_errors(&self, expected_statuses: &[u16]) {
        let unexpected: Vec<ConsoleEntry> = self
            .browser
            .console_errors()
            .await
            .into_iter()
            .filter(|entry| {
                let expected = entry.source == "network"
                    && expected_statuses.iter().any(|status| entry.message.contains(&format!("status of {status} ")));
                !expected
            })
            .collect();
        let listed: String = unexpected.iter().map(|entry| format!("\n  {entry}")).collect();
        assert!(unexpected.is_empty(), "unexpected console errors:{listed}");
    }
}

#[cfg(test)]
mod tests {
    use super::Dist;

    #[test]
    fn an_unset_console_dist_is_refused_naming_the_variable() {
        let why = Dist::named(None).unwrap_err();
        assert!(why.contains("CONSOLE_DIST is not set"), "{why}");
    }

    #[test]
    fn a_console_dist_without_index_html_is_refused() {
        let empty = std::env::temp_dir().join(format!("e2e-empty-dist-{}", std::process::id()));
        std::fs::create_dir_all(&empty).unwrap();
        let why = Dist::named(Some(empty.clone().into())).unwrap_err();
        std::fs::remove_dir(&empty).unwrap();
        assert!(why.contains("has no index.html"), "{why}");
    }

    #[test]
    fn a_console_dist_with_index_html_is_used() {
        let dist = std::env::temp_dir().join(format!("e2e-dist-{}", std::process::id()));
        std::fs::create_dir_all(&dist).unwrap();
        std::fs::write(dist.join("index.html"), "<!DOCTYPE html>").unwrap();
        let found = Dist::named(Some(dist.clone().into())).map(|d| d.dir().to_owned());
        std::fs::remove_dir_all(&dist).unwrap();
        assert_eq!(found, Ok(dist));
    }
}
