//! What the browser receives of the console's files and the API's answers: the precompressed
//! file its `Accept-Encoding` allows (brotli, then gzip, else as built), `Vary:
//! Accept-Encoding` and the right length; hashed files cached for a year, the page and the
//! policy revalidated every time; JSON compressed on the fly.

mod common;

use common::{config, request_with_headers, sim_with, Reply, Sim, OWNER};
use reservations_sim::Config;
use std::io::Read;
use std::path::PathBuf;

const WASM: &str = "app-37fd8b81d0e2f31d_bg.wasm";
const PAGE: &str = "<!doctype html><title>console</title><script type=module src=/app-37fd8b81d0e2f31d.js></script>";

/// A build as `cargo xtask dist` leaves it: each file with its `.br` and `.gz` beside it.
fn build(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("sim-encoding-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let files: [(&str, Vec<u8>); 4] = [
        ("index.html", PAGE.repeat(20).into_bytes()),
        (WASM, b"\0asm\x01\0\0\0".repeat(500)),
        ("app-37fd8b81d0e2f31d.js", "export function start() {}\n".repeat(100).into_bytes()),
        ("csp-header.txt", b"default-src 'none'".to_vec()),
    ];
    for (name, bytes) in files {
        std::fs::write(dir.join(name), &bytes).unwrap();
        std::fs::write(dir.join(format!("{name}.br")), compress::brotli(&bytes)).unwrap();
        std::fs::write(dir.join(format!("{name}.gz")), compress::gzip(&bytes)).unwrap();
    }
    dir
}

async fn fetch(sim: &Sim, path: &str, accept: &str) -> Reply {
    request_with_headers(sim.addr(), "GET", path, None, None, &[("accept-encoding", accept)]).await
}

fn served_length(reply: &Reply) -> usize {
    reply.header("content-length").expect("a length").parse().unwrap()
}

#[tokio::test]
async fn a_file_is_sent_in_the_best_encoding_the_browser_accepts_with_vary_and_its_length() {
    let dist = build("negotiation");
    let sim = sim_with(Config { dist: Some(dist.clone()), ..config() }).await;
    for (accept, encoding, suffix) in
        [("gzip, deflate, br, zstd", Some("br"), ".br"), ("gzip", Some("gzip"), ".gz"), ("identity", None, "")]
    {
        let reply = fetch(&sim, &format!("/{WASM}"), accept).await;
        let on_disk = std::fs::read(dist.join(format!("{WASM}{suffix}"))).unwrap();
        assert_eq!(reply.status, 200, "{accept}");
        assert_eq!(reply.header("content-encoding"), encoding, "{accept}");
        assert_eq!(reply.body, on_disk, "{accept}: the file written beside it, as it is");
        assert_eq!(served_length(&reply), on_disk.len(), "{accept}");
        assert_eq!(reply.header("content-type"), Some("application/wasm"), "{accept}");
        assert!(reply.header("vary").is_some_and(|v| v.to_ascii_lowercase().contains("accept-encoding")), "{accept}");
    }
    let page = fetch(&sim, "/reservations/12", "br").await;
    assert_eq!(page.header("content-encoding"), Some("br"), "the app's routes get the page compressed too");
    let _ = std::fs::remove_dir_all(dist);
}

#[tokio::test]
async fn hashed_files_are_immutable_for_a_year_and_the_page_and_policy_are_revalidated() {
    let dist = build("caching");
    let sim = sim_with(Config { dist: Some(dist.clone()), ..config() }).await;
    for path in [format!("/{WASM}"), "/app-37fd8b81d0e2f31d.js".to_owned()] {
        let reply = fetch(&sim, &path, "br").await;
        assert_eq!(reply.header("cache-control"), Some("public, max-age=31536000, immutable"), "{path}");
    }
    for path in ["/", "/index.html", "/csp-header.txt", "/reservations/12/nodes", "/missing-0123456789abcdef.js"] {
        let reply = fetch(&sim, path, "br").await;
        assert_eq!((reply.status, reply.header("cache-control")), (200, Some("no-cache")), "{path}");
    }
    let _ = std::fs::remove_dir_all(dist);
}

#[tokio::test]
async fn json_answers_are_compressed_for_a_browser_that_accepts_gzip() {
    let sim = sim_with(Config { dist: None, ..config() }).await;
    let extra = [("accept-encoding", "gzip")];
    let reply = request_with_headers(sim.addr(), "GET", "/api/gpu-reservations", Some(OWNER), None, &extra).await;
    assert_eq!((reply.status, reply.header("content-encoding")), (200, Some("gzip")));
    let mut json = String::new();
    flate2::read::GzDecoder::new(&reply.body[..]).read_to_string(&mut json).unwrap();
    assert!(serde_json::from_str::<serde_json::Value>(&json).unwrap().is_array(), "{json}");
    let plain = sim.get("/api/gpu-reservations", Some(OWNER)).await;
    assert_eq!(plain.header("content-encoding"), None, "no Accept-Encoding, no compression");
}
