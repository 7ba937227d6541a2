//! Shared by the HTTP tests: a simulator started in-process on an ephemeral loopback port,
//! and a minimal HTTP/1.1 client over a plain TcpStream (no client crate to compile).
#![allow(dead_code)] // each test file uses its own subset

use chrono::{DateTime, Utc};
use reservations_sim::{start, Config, Running};
use serde_json::Value;
use std::net::SocketAddr;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

pub const OWNER: &str = "eco_demo_owner";
pub const MEMBER: &str = "eco_demo_member";
pub const OTHER: &str = "eco_demo_other";
pub const RTX: &str = "NVIDIA-RTX-PRO-6000-Blackwell-Server-Edition";
pub const H100: &str = "NVIDIA-H100-80GB-HBM3";
pub const B200: &str = "NVIDIA-B200";

/// A timestamp field of an answer.
pub fn time(value: &Value) -> DateTime<Utc> {
    value.as_str().unwrap_or_else(|| panic!("not a time: {value}")).parse().unwrap()
}

/// A fixed clock start so that the demo dates are those of seed 004's example
/// (reservation 12 starts 2026-11-01).
pub fn config() -> Config {
    Config { now: Some("2026-12-17T10:00:00Z".parse().unwrap()), rate_limit_per_min: 100_000, ..Config::default() }
}

pub struct Sim {
    pub running: Running,
}

pub async fn sim_with(config: Config) -> Sim {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    Sim { running: start(listener, config).await.unwrap() }
}

pub async fn sim() -> Sim {
    sim_with(config()).await
}

#[derive(Debug)]
pub struct Reply {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl Reply {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(n, _)| n.eq_ignore_ascii_case(name)).map(|(_, v)| v.as_str())
    }

    pub fn json(&self) -> Value {
        serde_json::from_slice(&self.body)
            .unwrap_or_else(|e| panic!("not JSON ({e}): {}", String::from_utf8_lossy(&self.body)))
    }

    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }
}

impl Sim {
    pub fn addr(&self) -> SocketAddr {
        self.running.addr
    }

    pub async fn get(&self, path: &str, key: Option<&str>) -> Reply {
        request(self.addr(), "GET", path, key, None).await
    }

    pub async fn post(&self, path: &str, key: Option<&str>, body: &Value) -> Reply {
        request(self.addr(), "POST", path, key, Some(&body.to_string())).await
    }

    /// A JSON GET as the owner that must answer 200.
    pub async fn read(&self, path: &str) -> Value {
        self.read_as(path, OWNER).await
    }

    pub async fn read_as(&self, path: &str, key: &str) -> Value {
        let reply = self.get(path, Some(key)).await;
        assert_eq!(reply.status, 200, "GET {path}: {}", reply.text());
        reply.json()
    }

    /// A hook call (`/api/__sim/…`) that must answer 200.
    pub async fn hook(&self, method: &str, path: &str, body: Option<Value>) -> Value {
        let body = body.map(|b| b.to_string());
        let reply = hook_request(self.addr(), method, &format!("/api/__sim{path}"), body.as_deref()).await;
        assert_eq!(reply.status, 200, "{method} {path}: {}", reply.text());
        reply.json()
    }

    pub async fn fault(&self, fault: Value) {
        self.hook("POST", "/faults", Some(fault)).await;
    }

    pub async fn freeze(&self) {
        self.hook("POST", "/clock", Some(serde_json::json!({ "freeze": true }))).await;
    }

    pub async fn advance(&self, secs: f64) {
        self.hook("POST", "/clock", Some(serde_json::json!({ "advance_secs": secs }))).await;
    }
}

/// One request on its own connection (`connection: close`), read to the end.
pub async fn request(addr: SocketAddr, method: &str, path: &str, key: Option<&str>, body: Option<&str>) -> Reply {
    request_with_headers(addr, method, path, key, body, &[]).await
}

/// A request to a hook (`/api/__sim/…`), with the header hooks require.
pub async fn hook_request(addr: SocketAddr, method: &str, path: &str, body: Option<&str>) -> Reply {
    request_with_headers(addr, method, path, None, body, &[(reservations_sim::HOOK_HEADER, "1")]).await
}

/// [`request`] with extra request headers (e.g. `origin` for the CORS test).
pub async fn request_with_headers(
    addr: SocketAddr,
    method: &str,
    path: &str,
    key: Option<&str>,
    body: Option<&str>,
    extra: &[(&str, &str)],
) -> Reply {
    let mut stream = TcpStream::connect(addr).await.unwrap();
    let mut head = format!("{method} {path} HTTP/1.1\r\nconnection: close\r\n");
    if !extra.iter().any(|(name, _)| name.eq_ignore_ascii_case("host")) {
        head.push_str(&format!("host: {addr}\r\n"));
    }
    for (name, value) in extra {
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    if let Some(key) = key {
        head.push_str(&format!("authorization: Bearer {key}\r\n"));
    }
    let body = body.unwrap_or("");
    if !body.is_empty() || method == "POST" {
        head.push_str(&format!("content-type: application/json\r\ncontent-length: {}\r\n", body.len()));
    }
    head.push_str("\r\n");
    stream.write_all(head.as_bytes()).await.unwrap();
    stream.write_all(body.as_bytes()).await.unwrap();
    let mut raw = Vec::new();
    stream.read_to_end(&mut raw).await.unwrap();
    parse(&raw)
}

fn parse(raw: &[u8]) -> Reply {
    let split = raw.windows(4).position(|w| w == b"\r\n\r\n").expect("no end of headers");
    let head = String::from_utf8_lossy(&raw[..split]).into_owned();
    let mut lines = head.split("\r\n");
    let status = lines.next().unwrap().split(' ').nth(1).unwrap().parse().unwrap();
    let headers: Vec<(String, String)> = lines
        .filter_map(|line| line.split_once(':'))
        .map(|(n, v)| (n.trim().to_ascii_lowercase(), v.trim().to_owned()))
        .collect();
    let mut body = raw[split + 4..].to_vec();
    if headers.iter().any(|(n, v)| n == "transfer-encoding" && v.contains("chunked")) {
        body = dechunk(&body);
    }
    Reply { status, headers, body }
}

fn dechunk(mut data: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    while let Some(end) = data.windows(2).position(|w| w == b"\r\n") {
        let size =
            usize::from_str_radix(String::from_utf8_lossy(&data[..end]).split(';').next().unwrap().trim(), 16).unwrap();
        if size == 0 {
            break;
        }
        out.extend_from_slice(&data[end + 2..end + 2 + size]);
        data = &data[end + 4 + size..];
    }
    out
}

/// USD as a JSON number → integer cents, refusing more than two decimals.
pub fn cents(value: &Value) -> i64 {
    let usd = value.as_f64().unwrap_or_else(|| panic!("not a number: {value}"));
    let cents = (usd * 100.0).round();
    assert!((usd * 100.0 - cents).abs() < 1e-6, "{usd} has more than two decimals");
    cents as i64
}
