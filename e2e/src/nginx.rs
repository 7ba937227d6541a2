//! Debian's nginx in front of the simulator, as an operator deploys the console: the release
//! build served with the configuration `cargo xtask dist` generates (`xtask::nginx`), `/api/`
//! proxied to the simulator over loopback (the generator's plain-HTTP loopback switch).
//!
//! The main configuration around it is the test's own, everything under
//! `target/e2e-nginx/<pid>-<n>/` (pid file, logs, temporary files; kept when a test fails),
//! so nginx runs as any user and touches nothing of the system's nginx.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

use xtask::nginx::{self, Upstream, DEBIAN_BROTLI_STATIC_MODULE, DEBIAN_NGINX};

use crate::browser::free_port;
use crate::{http, Dist, WAIT};

/// An nginx serving a build on a loopback port; stopped by its pid when dropped, a failing
/// test's unwinding included.
pub struct Nginx {
    child: Child,
    url: String,
    dir: PathBuf,
}

impl Nginx {
    /// Serves `dist` with its generated configuration, `/api/` proxied to `api_upstream`
    /// (e.g. `http://127.0.0.1:PORT/api`, the simulator's API).
    pub async fn start(dist: &Dist, api_upstream: &str) -> Nginx {
        let dir = fresh_dir();
        let upstream = Upstream::parse(api_upstream).unwrap_or_else(|why| panic!("{why}"));
        let console = nginx::config(dist.dir(), &upstream).unwrap_or_else(|why| panic!("generating nginx.conf: {why}"));
        write(&dir.join("console.conf"), &console);
        let server = format!("root \"{}\";\n        include {};", dist.dir().display(), quoted(&dir, "console.conf"));
        Nginx::run(dir, "", &server).await
    }

    /// A stand-in for a provider whose certificate no one trusts: HTTPS on a loopback port
    /// with a self-signed certificate (made here by `openssl`), a 200 to every request.
    pub async fn untrusted_https() -> Nginx {
        let dir = fresh_dir();
        let made = Command::new("openssl")
            .args(["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=127.0.0.1"])
            .arg("-keyout")
            .arg(dir.join("key.pem"))
            .arg("-out")
            .arg(dir.join("cert.pem"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .expect("openssl makes a self-signed certificate");
        assert!(made.success(), "openssl req -x509 failed");
        let server = format!(
            "ssl_certificate {};\n        ssl_certificate_key {};\n        return 200 \"the provider\\n\";",
            quoted(&dir, "cert.pem"),
            quoted(&dir, "key.pem")
        );
        Nginx::run(dir, " ssl", &server).await
    }

    /// Runs nginx in `dir` with one server on a loopback port (`listen … {listen}`) holding
    /// `server`, and waits until it answers.
    async fn run(dir: PathBuf, listen: &str, server: &str) -> Nginx {
        let port = free_port();
        write(
            &dir.join("nginx.conf"),
            &main_config(&dir, &format!("listen 127.0.0.1:{port}{listen};\n        {server}")),
        );
        let program = std::env::var("NGINX").unwrap_or_else(|_| DEBIAN_NGINX.to_owned());
        let child = Command::new(&program)
            .arg("-p")
            .arg(&dir)
            .arg("-e")
            .arg(dir.join("error.log"))
            .arg("-c")
            .arg(dir.join("nginx.conf"))
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap_or_else(|error| panic!("cannot start nginx `{program}` (NGINX; Debian's package nginx): {error}"));
        let mut nginx = Nginx { child, url: format!("http://127.0.0.1:{port}"), dir };
        nginx.wait_until_ready().await;
        nginx
    }

    /// `http://127.0.0.1:PORT`, no trailing slash.
    pub fn url(&self) -> &str {
        &self.url
    }

    /// What nginx logged, for a failure's message.
    pub fn error_log(&self) -> String {
        std::fs::read_to_string(self.dir.join("error.log")).unwrap_or_default()
    }

    /// The requests nginx answered, one line each.
    pub fn access_log(&self) -> String {
        std::fs::read_to_string(self.dir.join("access.log")).unwrap_or_default()
    }

    /// Polls the page until nginx answers; fails with its error log if it exits first.
    async fn wait_until_ready(&mut self) {
        let deadline = Instant::now() + WAIT;
        loop {
            if let Some(exit) = self.child.try_wait().expect("polling nginx") {
                panic!("nginx exited at start ({exit}):\n{}", self.error_log());
            }
            // Any answer will do (a TLS port answers plain HTTP with a 400).
            if http::get(&self.url).await.is_ok() {
                return;
            }
            assert!(
                Instant::now() < deadline,
                "nginx not answering on {} after {WAIT:?}:\n{}",
                self.url,
                self.error_log()
            );
            tokio::time::sleep(std::time::Duration::from_millis(50)).await;
        }
    }
}

impl Drop for Nginx {
    /// Stops nginx; its folder (logs, configuration) stays when the test failed.
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        if !std::thread::panicking() {
            let _ = std::fs::remove_dir_all(&self.dir);
        }
    }
}

/// A folder of its own under `target/e2e-nginx/` for each nginx the tests start.
fn fresh_dir() -> PathBuf {
    static STARTED: AtomicUsize = AtomicUsize::new(0);
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("e2e/ sits in the workspace")
        .join("target/e2e-nginx")
        .join(format!("{}-{}", std::process::id(), STARTED.fetch_add(1, Ordering::Relaxed)));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("temp")).unwrap_or_else(|e| panic!("creating {}: {e}", dir.display()));
    dir
}

/// `dir/name` as an nginx string.
fn quoted(dir: &Path, name: &str) -> String {
    format!("\"{}\"", dir.join(name).display())
}

/// The wrapper an operator's `/etc/nginx/nginx.conf` would be: the brotli module loaded,
/// Debian's media types, and one server (for the console: on a loopback port, its `root` the build, the generated file
/// included). `daemon off` and `master_process off`: one process, the test's child, which
/// its pid stops.
fn main_config(dir: &Path, server: &str) -> String {
    let at = |name: &str| quoted(dir, name);
    let temp = |name: &str| at(&format!("temp/{name}"));
    format!(
        "load_module \"{DEBIAN_BROTLI_STATIC_MODULE}\";\n\
         daemon off;\nmaster_process off;\npid {pid};\nerror_log {error_log} warn;\n\
         events {{\n    worker_connections 256;\n}}\n\
         http {{\n    include /etc/nginx/mime.types;\n    access_log {access_log};\n\
         \x20   client_body_temp_path {client};\n    proxy_temp_path {proxy};\n    fastcgi_temp_path {fastcgi};\n\
         \x20   uwsgi_temp_path {uwsgi};\n    scgi_temp_path {scgi};\n\
         \x20   server {{\n        {server}\n    }}\n}}\n",
        pid = at("nginx.pid"),
        error_log = at("error.log"),
        access_log = at("access.log"),
        client = temp("client"),
        proxy = temp("proxy"),
        fastcgi = temp("fastcgi"),
        uwsgi = temp("uwsgi"),
        scgi = temp("scgi"),
    )
}

fn write(path: &Path, text: &str) {
    std::fs::write(path, text).unwrap_or_else(|error| panic!("writing {}: {error}", path.display()));
}
