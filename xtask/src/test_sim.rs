//! The simulator the console's browser tests call (`tests/api_client.rs`). The test page is
//! served by wasm-bindgen-test-runner on an origin of its own, so this simulator runs with
//! `--cors-for-tests`; the tests learn its base URL at build time from `SIM_BASE_URL`.

use std::net::{Ipv4Addr, TcpListener, TcpStream};
use std::path::PathBuf;
use std::process::{Child, Command};
use std::thread::sleep;
use std::time::{Duration, Instant};

use crate::{proc, Result};

/// How long the simulator may take to accept connections after it starts.
const READY_WITHIN: Duration = Duration::from_secs(20);

/// A running simulator, stopped when dropped.
pub struct TestSimulator {
    child: Child,
    port: u16,
}

impl TestSimulator {
    /// Builds the simulator (debug, as the native stage did) and starts it on a free port.
    pub fn start() -> Result<TestSimulator> {
        proc::run(proc::cargo().args(["build", "--quiet", "--package", "reservations-sim"]))?;
        let port = free_port()?;
        let mut command = Command::new(binary());
        command.args(["--port", &port.to_string(), "--cors-for-tests", "--rate-limit", "100000"]);
        proc::announce(&command);
        let child = command.spawn().map_err(|error| format!("cannot start the simulator: {error}"))?;
        let simulator = TestSimulator { child, port };
        simulator.wait_until_ready()?;
        Ok(simulator)
    }

    /// The API base URL the tests are built with.
    pub fn base_url(&self) -> String {
        format!("http://127.0.0.1:{}/api", self.port)
    }

    fn wait_until_ready(&self) -> Result {
        let started = Instant::now();
        while TcpStream::connect((Ipv4Addr::LOCALHOST, self.port)).is_err() {
            if started.elapsed() > READY_WITHIN {
                return Err(format!("the simulator did not listen on port {} within {READY_WITHIN:?}", self.port));
            }
            sleep(Duration::from_millis(100));
        }
        Ok(())
    }
}

impl Drop for TestSimulator {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn binary() -> PathBuf {
    let target = std::env::var_os("CARGO_TARGET_DIR").map_or_else(|| proc::root().join("target"), PathBuf::from);
    target.join("debug").join("reservations-sim")
}

/// A port nobody listens on now; the simulator binds it a moment later.
fn free_port() -> Result<u16> {
    let listener = TcpListener::bind((Ipv4Addr::LOCALHOST, 0)).map_err(|error| format!("no free port: {error}"))?;
    listener.local_addr().map(|address| address.port()).map_err(|error| error.to_string())
}
