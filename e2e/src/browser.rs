//! Headless Chromium through chromedriver: one chromedriver process and one WebDriver
//! session per `Browser`, both ended when it drops (even when a test panics).

use std::fmt::Display;
use std::future::Future;
use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use base64::Engine;
use fantoccini::elements::Element;
use fantoccini::error::CmdError;
use fantoccini::wd::WebDriverCompatibleCommand;
use fantoccini::{Client, ClientBuilder, Locator};
use hyper::Method;
use hyper_util::client::legacy::connect::HttpConnector;
use serde_json::{json, Value};

use crate::http;

/// How long any wait lasts before the test fails; generous for a 2-core CI machine.
pub const WAIT: Duration = Duration::from_secs(20);
/// How often a wait looks again.
const POLL: Duration = Duration::from_millis(100);

/// The two layouts the console must serve.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Viewport {
    /// A phone: 390 × 844 CSS pixels.
    Narrow,
    /// A desktop: 1280 × 900 CSS pixels.
    Wide,
}

impl Viewport {
    pub fn size(self) -> (u32, u32) {
        match self {
            Viewport::Narrow => (390, 844),
            Viewport::Wide => (1280, 900),
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Viewport::Narrow => "narrow",
            Viewport::Wide => "wide",
        }
    }
}

/// One line of the browser's console, as chromedriver reports it.
#[derive(Clone, Debug, PartialEq)]
pub struct ConsoleEntry {
    /// `SEVERE` (errors, failed loads), `WARNING`, `INFO`, `DEBUG`.
    pub level: String,
    /// `console-api`, `network`, `javascript`, …
    pub source: String,
    pub message: String,
}

impl ConsoleEntry {
    pub fn is_severe(&self) -> bool {
        self.level == "SEVERE"
    }
}

impl Display for ConsoleEntry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "[{} {}] {}", self.level, self.source, self.message)
    }
}

pub struct Browser {
    client: Client,
    session_id: String,
    /// Entries already drained from chromedriver (each read empties its buffer).
    console: Mutex<Vec<ConsoleEntry>>,
    // Declared last so it drops after the session is deleted.
    driver: Driver,
}

impl Browser {
    /// Starts chromedriver (`CHROMEDRIVER`, default /usr/bin/chromedriver) and a headless
    /// Chromium session in the wide viewport, recording every console entry.
    pub async fn start() -> Browser {
        let driver = Driver::spawn().await;
        let capabilities = json!({
            "goog:chromeOptions": {
                "args": [
                    "--headless=new",
                    "--no-sandbox",
                    "--disable-gpu",
                    "--disable-dev-shm-usage",
                    "--disable-background-networking",
                    "--window-size=1280,900",
                    // Phones overlay their scrollbars: without this the narrow page would be 375 px.
                    "--hide-scrollbars",
                ],
            },
            "goog:loggingPrefs": { "browser": "ALL" },
        });
        let Value::Object(capabilities) = capabilities else { unreachable!("a JSON object literal") };
        let client = ClientBuilder::new(HttpConnector::new())
            .capabilities(capabilities)
            .connect(&driver.url)
            .await
            .unwrap_or_else(|error| panic!("no Chromium session from {}: {error}", driver.url));
        let session_id =
            must("reading the session id", client.session_id().await).expect("a connected session has an id");
        let browser = Browser { client, session_id, console: Mutex::new(Vec::new()), driver };
        browser.set_viewport(Viewport::Wide).await;
        browser
    }

    /// The WebDriver client, for anything the helpers below don't cover.
    pub fn client(&self) -> &Client {
        &self.client
    }

    pub async fn goto(&self, url: &str) {
        must(format!("opening {url}"), self.client.goto(url).await);
    }

    /// The address bar's path and query, e.g. `/reservations/12?tz=utc`.
    pub async fn current_path(&self) -> String {
        let url = must("reading the URL", self.client.current_url().await);
        match url.query() {
            Some(query) => format!("{}?{query}", url.path()),
            None => url.path().to_owned(),
        }
    }

    /// Sets the page's own viewport (`innerWidth` × `innerHeight`) to `viewport` through
    /// DevTools' device metrics, which, unlike a window size, no window frame or minimum
    /// window width distorts.
    pub async fn set_viewport(&self, viewport: Viewport) {
        let (width, height) = viewport.size();
        let metrics = json!({ "width": width, "height": height, "deviceScaleFactor": 1, "mobile": false });
        self.cdp("Emulation.setDeviceMetricsOverride", metrics).await;
        self.eventually(format!("the page's viewport to become {width}×{height}"), || async {
            let now = self.script("return [window.innerWidth, window.innerHeight]").await;
            if now == json!([width, height]) {
                Ok(())
            } else {
                Err(now.to_string())
            }
        })
        .await;
    }

    /// Runs `body` as a function in the page and returns what it returns.
    pub async fn script(&self, body: &str) -> Value {
        must(format!("running `{body}`"), self.client.execute(body, Vec::new()).await)
    }

    /// Bytes this page load took from the network, headers and compressed bodies (the
    /// page's and every file's resource timing `transferSize`: 0 for what came from the cache).
    pub async fn transferred_bytes(&self) -> u64 {
        let bytes = self
            .script(
                "return [...performance.getEntriesByType('navigation'), ...performance.getEntriesByType('resource')]
                    .reduce((sum, e) => sum + e.transferSize, 0)",
            )
            .await;
        bytes.as_u64().unwrap_or_else(|| panic!("transferSize should be a number, got {bytes}"))
    }

    /// Polls `probe` until it gives a value, failing the test after [`WAIT`] with `what`
    /// and the last thing `probe` saw.
    pub async fn eventually<T, F, Fut>(&self, what: impl Display, probe: F) -> T
    where
        F: FnMut() -> Fut,
        Fut: Future<Output = Result<T, String>>,
    {
        self.eventually_within(WAIT, what, probe).await
    }

    /// [`Self::eventually`], failing after `wait`: for what the console does at its own
    /// pace (reads spaced by its request budget).
    pub async fn eventually_within<T, F, Fut>(&self, wait: Duration, what: impl Display, mut probe: F) -> T
    where
        F: FnMut() -> Fut,
        Fut: Future<Output = Result<T, String>>,
    {
        let deadline = Instant::now() + wait;
        loop {
            match probe().await {
                Ok(value) => return value,
                Err(last) if Instant::now() >= deadline => {
                    panic!("waited {wait:?} for {what}; last seen: {last}")
                }
                Err(_) => tokio::time::sleep(POLL).await,
            }
        }
    }

    /// Waits until an element matches `css`, and returns the first.
    pub async fn wait_for(&self, css: &str) -> Element {
        self.eventually(format!("an element matching `{css}`"), || async {
            self.client.find(Locator::Css(css)).await.map_err(|error| error.to_string())
        })
        .await
    }

    /// Waits until some element matching `css` shows text containing `needle`; returns
    /// that element's whole text.
    pub async fn wait_for_text(&self, css: &str, needle: &str) -> String {
        self.wait_for_text_within(WAIT, css, needle).await
    }

    /// [`Self::wait_for_text`], failing after `wait`.
    pub async fn wait_for_text_within(&self, wait: Duration, css: &str, needle: &str) -> String {
        self.eventually_within(wait, format!("`{css}` showing {needle:?}"), || async {
            let texts = self.texts_now(css).await;
            texts.iter().find(|text| text.contains(needle)).cloned().ok_or_else(|| format!("{texts:?}"))
        })
        .await
    }

    /// The visible text of every element matching `css`, now (no waiting).
    pub async fn texts_now(&self, css: &str) -> Vec<String> {
        let elements = self.client.find_all(Locator::Css(css)).await.unwrap_or_default();
        let mut texts = Vec::with_capacity(elements.len());
        for element in elements {
            // An element replaced between find and read is simply skipped.
            if let Ok(text) = element.text().await {
                texts.push(text);
            }
        }
        texts
    }

    /// The visible text of the first element matching `css`, once there is one.
    pub async fn text(&self, css: &str) -> String {
        let element = self.wait_for(css).await;
        must(format!("reading the text of `{css}`"), element.text().await)
    }

    /// Whether any element matches `css` now.
    pub async fn exists(&self, css: &str) -> bool {
        !self.client.find_all(Locator::Css(css)).await.unwrap_or_default().is_empty()
    }

    /// Waits for the element, then clicks it.
    pub async fn click(&self, css: &str) {
        let element = self.wait_for(css).await;
        must(format!("clicking `{css}`"), element.click().await);
    }

    /// Replaces the value of the input matching `css` with `text`, typed as a person would
    /// (select all, then type), so the page sees its input events.
    pub async fn type_into(&self, css: &str, text: &str) {
        let element = self.wait_for(css).await;
        let select_all =
            format!("{}a{}", char::from(fantoccini::key::Key::Control), char::from(fantoccini::key::Key::Null));
        must(format!("typing into `{css}`"), element.send_keys(&select_all).await);
        must(
            format!("typing into `{css}`"),
            element.send_keys(&format!("{}{text}", char::from(fantoccini::key::Key::Backspace))).await,
        );
        let value = must(format!("reading `{css}`"), element.prop("value").await);
        assert_eq!(value.as_deref(), Some(text), "`{css}` holds what was typed");
    }

    /// Saves a PNG of the whole page (not only the viewport) at the current width to
    /// `target/e2e-screenshots/<name>.png` and returns its path.
    pub async fn screenshot(&self, name: &str) -> PathBuf {
        // A sticky header is drawn where the page is scrolled to: at the top, it is on top.
        self.script("window.scrollTo(0, 0)").await;
        // What the page skips until it nears the screen (`content-visibility: auto`, the list's
        // cards on a phone) a capture beyond the viewport would show blank: drawn for it.
        self.script(
            "window.__captured = [...document.querySelectorAll('*')]
               .filter((e) => getComputedStyle(e).contentVisibility === 'auto');
             for (const e of window.__captured) e.style.contentVisibility = 'visible';",
        )
        .await;
        let metrics = self.cdp("Page.getLayoutMetrics", json!({})).await;
        let size = &metrics["cssContentSize"];
        let (width, height) = (size["width"].as_f64(), size["height"].as_f64());
        let (Some(width), Some(height)) = (width, height) else {
            panic!("no page size in Page.getLayoutMetrics: {metrics}")
        };
        let shot = self
            .cdp(
                "Page.captureScreenshot",
                json!({
                    "format": "png",
                    "captureBeyondViewport": true,
                    "clip": { "x": 0, "y": 0, "width": width, "height": height, "scale": 1 },
                }),
            )
            .await;
        self.script("for (const e of window.__captured) e.style.contentVisibility = ''; delete window.__captured;")
            .await;
        let png = base64::engine::general_purpose::STANDARD
            .decode(shot["data"].as_str().unwrap_or_default())
            .unwrap_or_else(|error| panic!("screenshot {name} is not base64: {error}"));
        let dir = screenshot_dir();
        std::fs::create_dir_all(&dir).unwrap_or_else(|error| panic!("creating {}: {error}", dir.display()));
        let path = dir.join(format!("{name}.png"));
        std::fs::write(&path, png).unwrap_or_else(|error| panic!("writing {}: {error}", path.display()));
        path
    }

    /// Runs a Chrome DevTools Protocol command through chromedriver and returns its result.
    pub async fn cdp(&self, command: &str, params: Value) -> Value {
        must(format!("CDP {command}"), self.try_cdp(command, params).await)
    }

    /// [`Browser::cdp`] that hands the failure back (a measurement that may fail on its own).
    pub async fn try_cdp(&self, command: &str, params: Value) -> Result<Value, CmdError> {
        self.client.issue_cmd(ChromedriverPost::cdp(command, params)).await
    }

    /// [`Browser::script`] that hands the failure back.
    pub async fn try_script(&self, body: &str) -> Result<Value, CmdError> {
        self.client.execute(body, Vec::new()).await
    }

    /// Every console entry since the session started.
    pub async fn console(&self) -> Vec<ConsoleEntry> {
        let fresh = must("reading the browser console", self.client.issue_cmd(ChromedriverPost::browser_log()).await);
        let mut seen = self.console.lock().expect("console log lock");
        seen.extend(fresh.as_array().into_iter().flatten().map(|entry| {
            let field = |name: &str| entry[name].as_str().unwrap_or_default().to_owned();
            ConsoleEntry { level: field("level"), source: field("source"), message: field("message") }
        }));
        seen.clone()
    }

    /// The `SEVERE` console entries (errors, failed loads, panics) since the session started.
    pub async fn console_errors(&self) -> Vec<ConsoleEntry> {
        self.console().await.into_iter().filter(ConsoleEntry::is_severe).collect()
    }
}

impl Drop for Browser {
    /// Deletes the session so Chromium quits with it; the async client can't be awaited
    /// here, so this speaks plain HTTP/1 to chromedriver. Then chromedriver is stopped.
    fn drop(&mut self) {
        let request = format!(
            "DELETE /session/{} HTTP/1.1\r\nHost: 127.0.0.1:{}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n",
            self.session_id, self.driver.port
        );
        if let Ok(mut stream) = TcpStream::connect(("127.0.0.1", self.driver.port)) {
            let _ = stream.set_read_timeout(Some(Duration::from_secs(10)));
            // chromedriver answers once Chromium has quit; the first bytes are enough (it
            // may keep the connection open, so reading to the end would wait the timeout).
            if stream.write_all(request.as_bytes()).is_ok() {
                let _ = stream.read(&mut [0; 64]);
            }
        }
    }
}

/// Fails the test with `what` when a WebDriver command fails.
pub fn must<T>(what: impl Display, result: Result<T, CmdError>) -> T {
    result.unwrap_or_else(|error| panic!("{what}: {error}"))
}

/// `target/e2e-screenshots` of the workspace: test artifacts, never committed.
pub fn screenshot_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("e2e/ sits in the workspace").join("target/e2e-screenshots")
}

/// A chromedriver command outside the W3C set: a POST to `session/{id}/{path}`.
#[derive(Debug)]
struct ChromedriverPost {
    path: &'static str,
    body: Value,
}

impl ChromedriverPost {
    /// The legacy log endpoint, the one way chromedriver hands out `goog:loggingPrefs` output.
    fn browser_log() -> Self {
        ChromedriverPost { path: "se/log", body: json!({ "type": "browser" }) }
    }

    /// The door to the DevTools protocol (full-page screenshots need it).
    fn cdp(command: &str, params: Value) -> Self {
        ChromedriverPost { path: "goog/cdp/execute", body: json!({ "cmd": command, "params": params }) }
    }
}

impl WebDriverCompatibleCommand for ChromedriverPost {
    fn endpoint(&self, base_url: &url::Url, session_id: Option<&str>) -> Result<url::Url, url::ParseError> {
        base_url.join(&format!("session/{}/{}", session_id.unwrap_or_default(), self.path))
    }

    fn method_and_body(&self, _: &url::Url) -> (Method, Option<String>) {
        (Method::POST, Some(self.body.to_string()))
    }
}

/// A chromedriver process on a free loopback port, killed on drop.
struct Driver {
    child: Child,
    port: u16,
    url: String,
}

impl Driver {
    async fn spawn() -> Driver {
        let program = std::env::var("CHROMEDRIVER").unwrap_or_else(|_| "/usr/bin/chromedriver".to_owned());
        let port = free_port();
        let child = Command::new(&program)
            .arg(format!("--port={port}"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap_or_else(|error| panic!("cannot start chromedriver `{program}` (CHROMEDRIVER): {error}"));
        let mut driver = Driver { child, port, url: format!("http://127.0.0.1:{port}/") };
        driver.wait_until_ready(&program).await;
        driver
    }

    /// Polls `/status` until chromedriver says it is ready.
    async fn wait_until_ready(&mut self, program: &str) {
        let status_url = format!("{}status", self.url);
        let deadline = Instant::now() + WAIT;
        loop {
            if let Some(exit) = self.child.try_wait().expect("polling chromedriver") {
                panic!("chromedriver `{program}` exited at start: {exit}");
            }
            if let Ok(response) = http::get(&status_url).await {
                if response.json(&status_url)["value"]["ready"] == json!(true) {
                    return;
                }
            }
            assert!(Instant::now() < deadline, "chromedriver not ready on {status_url} after {WAIT:?}");
            tokio::time::sleep(POLL).await;
        }
    }
}

impl Drop for Driver {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A port nothing listens on now (the OS picks it; chromedriver or nginx binds it a moment later).
pub(crate) fn free_port() -> u16 {
    TcpListener::bind(("127.0.0.1", 0))
        .and_then(|listener| listener.local_addr())
        .map(|address| address.port())
        .expect("a free loopback port")
}
