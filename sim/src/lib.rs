//! `reservations-sim`: a local, deterministic simulator of the two APIs the console reads —
//! the EcoHash Compute API for reserved GPU nodes (seed 004) and the org capacity API
//! (seed 000) — with the shared rules of CONTRACT.md (auth, error shapes, rate limits,
//! request ids), test hooks under `/api/__sim` (faults, clock, churn, request log) and,
//! optionally, the built console served at `/`.
//!
//! Other crates (the e2e tests, benchmarks) start it in-process with [`start`].

mod assumptions;
mod auth;
pub use auth::key_table;
mod billing;
mod clock;
mod compute;
mod cors;
mod error;
mod faults;
mod hash;
mod hooks;
pub use hooks::HOOK_HEADER;
mod launch;
mod org;
mod placement;
mod ratelimit;
mod requests;
mod reservation;
mod scenario;
mod state;
mod static_files;

use axum::body::Body;
use axum::extract::Request;
use axum::http::{HeaderValue, StatusCode};
use axum::middleware::{from_fn, from_fn_with_state, map_response, Next};
use axum::response::{IntoResponse, Response};
use axum::serve::{ListenerExt, TapIo};
use axum::Router;
use chrono::{DateTime, Utc};
use futures_util::{stream, StreamExt};
use state::Sim;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::oneshot;
use tokio::task::JoinHandle;
use tower_http::compression::CompressionLayer;

/// Which demo data the simulator holds.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Scenario {
    /// The demo accounts: every reservation status, both billing periods and fundings, etc.
    #[default]
    Demo,
    /// The demo data plus reservation 20: 1,000 nodes of 8 GPUs, for benchmarks.
    Large,
    /// Reservation 20 with 10,000 nodes of 8 GPUs instead: the console at cluster scale.
    Huge,
}

impl std::str::FromStr for Scenario {
    type Err = String;
    fn from_str(text: &str) -> Result<Self, String> {
        match text {
            "demo" => Ok(Scenario::Demo),
            "large" => Ok(Scenario::Large),
            "huge" => Ok(Scenario::Huge),
            other => Err(format!("unknown scenario {other:?} (demo, large or huge)")),
        }
    }
}

/// Everything that makes a run reproducible: same config, same answers.
#[derive(Clone, Debug)]
pub struct Config {
    /// Built console to serve at `/` (SPA fallback to `index.html`); `None` serves the API only.
    pub dist: Option<PathBuf>,
    pub scenario: Scenario,
    /// Drives placement, workload ids and names, VM ids.
    pub seed: u64,
    /// Requests per fixed 60 s window per key (the provider's documented limit is 200).
    pub rate_limit_per_min: u32,
    /// Start of the simulated clock; `None` = real now. Demo data is laid out from the
    /// first of this instant's month, so it stays realistic whatever the date.
    pub now: Option<DateTime<Utc>>,
    /// Placement changes at most once per tick.
    pub tick: Duration,
    /// Answer CORS for loopback origins (the console's browser tests only; see `cors`).
    pub cors_for_tests: bool,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            dist: None,
            scenario: Scenario::Demo,
            seed: 1,
            rate_limit_per_min: 200,
            now: None,
            tick: Duration::from_secs(4),
            cors_for_tests: false,
        }
    }
}

/// In-process control of a running simulator, the same operations as the `/api/__sim` hooks.
#[derive(Clone)]
pub struct SimHandle(Arc<Sim>);

impl SimHandle {
    /// The simulated clock's current instant.
    pub fn now(&self) -> DateTime<Utc> {
        self.0.now()
    }

    /// Moves the simulated clock forward (frozen or not).
    pub fn advance(&self, by: Duration) {
        self.0.clock().advance(chrono::TimeDelta::from_std(by).unwrap_or(chrono::TimeDelta::MAX));
    }

    /// Stops (or restarts) the simulated clock: with it frozen, placement does not change.
    pub fn freeze(&self, frozen: bool) {
        self.0.clock().freeze(frozen);
    }

    /// Back to the initial state: data, clock, faults, launches, rate-limit windows, log.
    pub fn reset(&self) {
        self.0.reset();
    }
}

/// The whole application: `/api/…` (both APIs and the hooks) and, with `dist`, the console.
/// Serve it with `into_make_service_with_connect_info::<SocketAddr>()`: the hooks answer
/// loopback peers only and refuse requests whose peer is unknown.
pub fn app(config: Config) -> (Router, SimHandle) {
    let dist = config.dist.clone();
    let cors = config.cors_for_tests;
    let sim = Arc::new(Sim::new(config));
    let authenticated = Router::new()
        .merge(compute::routes())
        .merge(launch::routes())
        .merge(org::routes())
        .route_layer(from_fn_with_state(sim.clone(), auth::require_key));
    let api = authenticated
        .nest("/__sim", hooks::routes())
        .fallback(error::unknown_endpoint)
        .method_not_allowed_fallback(error::method_not_allowed)
        .layer(from_fn_with_state(sim.clone(), faults::inject));
    let org_api = org::routes()
        .route_layer(from_fn_with_state(sim.clone(), auth::require_key))
        .fallback(error::unknown_endpoint)
        .method_not_allowed_fallback(error::method_not_allowed);
    let (api, org_api) = (as_api_answers(api), as_api_answers(org_api));
    let root = Router::new().nest("/api", api).nest(assumptions::ORG_API_PREFIX, org_api);
    let root = match dist {
        Some(dir) => root.fallback_service(static_files::router(&dir)),
        None => root.fallback(error::unknown_endpoint),
    };
    let root = root.layer(from_fn_with_state(sim.clone(), faults::hang));
    let root = root.layer(from_fn_with_state(sim.clone(), requests::observe));
    let root = if cors { root.layer(axum::middleware::from_fn(cors::allow_loopback_origins)) } else { root };
    let router = root.with_state(sim.clone());
    (router, SimHandle(sim))
}

/// `api` with what every answer of both APIs goes through: compressed as the browser
/// accepts, marked as the simulator's, and made aside ([`answered_aside`]). Outside the
/// faults, so that a truncated or malformed answer is compressed as sent.
fn as_api_answers(api: Router<Arc<Sim>>) -> Router<Arc<Sim>> {
    api.layer(CompressionLayer::new()).layer(map_response(says_simulated)).layer(from_fn(answered_aside))
}

/// Makes and compresses an API answer on the blocking pool, not on the server's workers: a
/// 10,000-node answer takes ~10 ms to make and ~55 ms to compress, and work that long on a
/// worker held every other request back, the console's own files too (a `main.css` asked
/// for 5 ms after such an answer was sent 55 ms later), which no server in front of a real
/// API does. The answer's body is passed on as it comes (an endless one included), and its
/// making stops when the client stops reading.
async fn answered_aside(request: Request, next: Next) -> Response {
    let runtime = tokio::runtime::Handle::current();
    let (head, headed) = oneshot::channel();
    let (chunks, mut received) = tokio::sync::mpsc::channel(4);
    tokio::task::spawn_blocking(move || {
        runtime.block_on(async move {
            let (parts, body) = next.run(request).await.into_parts();
            if head.send(parts).is_err() {
                return;
            }
            let mut body = body.into_data_stream();
            while let Some(chunk) = body.next().await {
                if chunks.send(chunk).await.is_err() {
                    return;
                }
            }
        })
    });
    match headed.await {
        Ok(parts) => Response::from_parts(parts, Body::from_stream(stream::poll_fn(move |cx| received.poll_recv(cx)))),
        // The making panicked.
        Err(_) => StatusCode::INTERNAL_SERVER_ERROR.into_response(),
    }
}

/// Marks an API answer as the simulator's ([`assumptions::SIMULATOR_HEADER`]).
async fn says_simulated(mut response: Response) -> Response {
    let (name, value) = assumptions::SIMULATOR_HEADER;
    response.headers_mut().insert(name, HeaderValue::from_static(value));
    response
}

/// A simulator serving on a listener of its own, as [`start`] returns it.
pub struct Running {
    pub addr: SocketAddr,
    pub handle: SimHandle,
    shutdown: oneshot::Sender<()>,
    task: JoinHandle<()>,
}

impl Running {
    /// `http://127.0.0.1:PORT` (no trailing slash).
    pub fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// Stops accepting connections and closes idle ones, so that the next request is refused
    /// (what a dead server looks like). Requests still running get one second to finish.
    pub async fn stop(self) {
        let _ = self.shutdown.send(());
        let abort = self.task.abort_handle();
        if tokio::time::timeout(Duration::from_secs(1), self.task).await.is_err() {
            abort.abort();
        }
    }
}

/// Serves the simulator on `listener` in a background task.
pub async fn start(listener: TcpListener, config: Config) -> std::io::Result<Running> {
    let addr = listener.local_addr()?;
    let (router, handle) = app(config);
    let (shutdown, stopped) = oneshot::channel::<()>();
    let service = router.into_make_service_with_connect_info::<SocketAddr>();
    let task = tokio::spawn(async move {
        let serving = axum::serve(accepting(listener), service).with_graceful_shutdown(async {
            let _ = stopped.await;
        });
        if let Err(error) = serving.await {
            eprintln!("reservations-sim: {error}");
        }
    });
    Ok(Running { addr, handle, shutdown, task })
}

/// The simulator's listener: Nagle's algorithm off on each connection it accepts, as nginx
/// (which serves the console in production) has it by default. On, a browser's next
/// request on a connection kept alive waited 40 ms (its delayed ACK) for an answer written
/// in two parts: about one in two of the console's small files, on the page's critical path.
type Accepting = TapIo<TcpListener, fn(&mut TcpStream)>;

fn accepting(listener: TcpListener) -> Accepting {
    listener.tap_io(|connection: &mut TcpStream| {
        if let Err(error) = connection.set_nodelay(true) {
            eprintln!("reservations-sim: cannot turn Nagle's algorithm off on a connection: {error}");
        }
    })
}

/// Serves the simulator on `listener` until Ctrl-C.
pub async fn serve(listener: TcpListener, config: Config) -> std::io::Result<()> {
    let running = start(listener, config).await?;
    tokio::signal::ctrl_c().await?;
    running.stop().await;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::serve::Listener;

    #[tokio::test]
    async fn connections_are_accepted_with_nagles_algorithm_off() {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let mut listener = accepting(listener);
        let ((accepted, _), client) = tokio::join!(listener.accept(), TcpStream::connect(addr));
        client.unwrap();
        assert!(accepted.nodelay().unwrap());
    }

    /// `GET path` on a connection of its own, the whole answer as text.
    async fn get(addr: SocketAddr, path: &str) -> String {
        use tokio::io::{AsyncReadExt, AsyncWriteExt};
        let mut connection = TcpStream::connect(addr).await.unwrap();
        let request = format!("GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n");
        connection.write_all(request.as_bytes()).await.unwrap();
        let mut answer = String::new();
        connection.read_to_string(&mut answer).await.unwrap();
        answer
    }

    /// On a runtime of one thread, an answer that takes the thread (here until the test
    /// says so) held every other request back; answered aside, another request is served
    /// while it is made.
    #[tokio::test]
    async fn an_answer_being_made_holds_no_other_request_back() {
        let (finish, finished) = std::sync::mpsc::channel::<()>();
        let finished = Arc::new(std::sync::Mutex::new(finished));
        let api = Router::new()
            .route(
                "/api/slow",
                axum::routing::get(move || {
                    let finished = finished.clone();
                    async move {
                        finished.lock().unwrap().recv().unwrap();
                        "made"
                    }
                }),
            )
            .layer(from_fn(answered_aside));
        let app = api.route("/file", axum::routing::get(|| async { "file" }));
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
        // Held back, the file could not even time out (the one thread is taken), so the
        // answer is let go after 5 s whatever happens, and the file's wait read by the clock.
        let watchdog = finish.clone();
        std::thread::spawn(move || {
            std::thread::sleep(Duration::from_secs(5));
            let _ = watchdog.send(());
        });
        let slow = tokio::spawn(get(addr, "/api/slow"));
        let asked = std::time::Instant::now();
        let file = get(addr, "/file").await;
        let waited = asked.elapsed();
        let _ = finish.send(());
        assert!(waited < Duration::from_secs(4), "the file waited {waited:?} for the answer being made");
        assert!(file.ends_with("file"));
        assert!(slow.await.unwrap().contains("made"));
    }
}
