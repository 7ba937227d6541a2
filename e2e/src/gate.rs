//! A TCP gate in front of the simulator, on a port of its own: the browser talks to the
//! gate, and the test cuts it to make the network drop (new connections refused, open ones
//! reset) and restores it on the same port, while the simulator — its clock, data, faults
//! and request log — runs on untouched behind it.

use std::net::SocketAddr;
use std::sync::{Arc, Mutex};

use tokio::net::{TcpListener, TcpStream};
use tokio::task::{AbortHandle, JoinHandle};

pub struct Gate {
    addr: SocketAddr,
    upstream: SocketAddr,
    /// The accept loop while the gate is open; `None` while cut.
    accepting: Option<JoinHandle<()>>,
    /// Every forwarding task, so that a cut resets the connections the browser keeps alive.
    connections: Arc<Mutex<Vec<AbortHandle>>>,
}

impl Gate {
    /// A gate on a free loopback port forwarding to `upstream` (`http://127.0.0.1:PORT`).
    pub async fn open(upstream: &str) -> Gate {
        let upstream: SocketAddr = upstream
            .trim_start_matches("http://")
            .parse()
            .unwrap_or_else(|error| panic!("the gate needs http://IP:PORT, got {upstream}: {error}"));
        let listener = TcpListener::bind(("127.0.0.1", 0)).await.expect("a loopback port for the gate");
        let addr = listener.local_addr().expect("the gate's address");
        let mut gate = Gate { addr, upstream, accepting: None, connections: Arc::default() };
        gate.accept_on(listener);
        gate
    }

    /// `http://127.0.0.1:PORT` of the gate, no trailing slash.
    pub fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// The network drops: the port refuses connections and open ones are reset.
    pub fn cut(&mut self) {
        if let Some(accepting) = self.accepting.take() {
            accepting.abort();
        }
        for connection in self.connections.lock().expect("gate lock").drain(..) {
            connection.abort();
        }
    }

    /// The network is back, on the same port.
    pub async fn restore(&mut self) {
        if self.accepting.is_some() {
            return;
        }
        // The aborted accept loop drops its listener on its next poll; retry until the port is free.
        let listener = loop {
            match TcpListener::bind(self.addr).await {
                Ok(listener) => break listener,
                Err(_) => tokio::time::sleep(std::time::Duration::from_millis(20)).await,
            }
        };
        self.accept_on(listener);
    }

    fn accept_on(&mut self, listener: TcpListener) {
        let (upstream, connections) = (self.upstream, Arc::clone(&self.connections));
        self.accepting = Some(tokio::spawn(async move {
            while let Ok((mut client, _)) = listener.accept().await {
                let task = tokio::spawn(async move {
                    if let Ok(mut server) = TcpStream::connect(upstream).await {
                        let _ = tokio::io::copy_bidirectional(&mut client, &mut server).await;
                    }
                });
                let mut open = connections.lock().expect("gate lock");
                open.retain(|c| !c.is_finished());
                open.push(task.abort_handle());
            }
        }));
    }
}

impl Drop for Gate {
    fn drop(&mut self) {
        self.cut();
    }
}
