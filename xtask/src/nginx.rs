//! `dist/nginx.conf`: how nginx serves this build, generated from it by `cargo xtask dist`
//! so that nothing is pasted by hand (docs/deploy.md). It goes inside the operator's
//! `server { }`, which sets `listen`, TLS, `server_name` and `root` (the `dist/` folder).
//!
//! It answers for: this build's header policy (`csp-header.txt`, the one with
//! `frame-ancestors 'none'`), no MIME sniffing, no referrer and no framing on every file;
//! the `.br` and `.gz` files the build wrote, sent as the browser accepts, with
//! `Vary: Accept-Encoding`; a year and `immutable` on every file whose name carries its hash
//! (the pages' shared `.bin` too) and `no-cache` on the page and the rest; the page for the
//! addresses of the router's pages (`src/router/table.rs`) only, so a missing file is a 404
//! (the page with a 200 would be taken for code, and cached); `/api/` proxied to the provider with its certificate verified, its
//! answers with headers of their own ([`API_POLICY`]); and no nginx version in any answer.
//!
//! nginx drops all the server's `add_header`s in a location that has one of its own, so
//! each location here carries its whole set.

use std::collections::BTreeSet;
use std::fmt::Write as _;
use std::path::Path;

use crate::csp::{ApiOrigin, HEADER_FILE};
use crate::pages::PAGES;
use crate::Result;

/// The file in `dist/`.
pub const FILE: &str = "nginx.conf";

/// The provider's documented base URL (seed 004's quick run: `API="https://api.ecohash.com"`).
pub const DEFAULT_UPSTREAM: &str = "https://api.ecohash.com";

/// The flag of `cargo xtask dist` that sets the upstream.
pub const FLAG: &str = "--api-upstream";

/// Debian's nginx (package `nginx`), which the end-to-end test runs.
pub const DEBIAN_NGINX: &str = "/usr/sbin/nginx";

/// The module that `brotli_static` needs (package `libnginx-mod-http-brotli-static`).
pub const DEBIAN_BROTLI_STATIC_MODULE: &str = "/usr/lib/nginx/modules/ngx_http_brotli_static_module.so";

/// Debian's and Ubuntu's bundle of trusted roots (package `ca-certificates`).
const TRUSTED_CERTIFICATES: &str = "/etc/ssl/certs/ca-certificates.crt";

/// The pattern of the addresses answered with the page: every page of the console (`Page`
/// in src/router/table.rs, which the router reads addresses with), with or without a
/// trailing slash, a segment the page reads being any text without a slash.
fn routes() -> Result<String> {
    let mut pages = Vec::new();
    for page in PAGES {
        let mut segments = Vec::new();
        for segment in page.segments() {
            segments.push(match segment {
                None => "[^/]+",
                Some(literal) if literal.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-') => {
                    literal
                }
                Some(literal) => return Err(format!("{page:?}'s segment {literal:?} is more than a-z, 0-9 and -")),
            });
        }
        pages.push(segments.join("/"));
    }
    Ok(format!("^/(?:{})/?$", pages.join("|")))
}

/// The media type of each extension a build holds; a file of another kind stops the
/// generator rather than go out as `application/octet-stream` unnoticed.
const TYPES: [(&str, &str); 8] = [
    ("html", "text/html"),
    ("js", "text/javascript"),
    ("css", "text/css"),
    ("wasm", "application/wasm"),
    // The pages' shared wasm, which the loader instantiates from its bytes whatever its type.
    ("bin", "application/octet-stream"),
    ("svg", "image/svg+xml"),
    ("txt", "text/plain"),
    ("json", "application/json"),
];

/// The Content-Security-Policy of the API's answers. An answer is data, never a document:
/// nothing in it runs or is framed, whatever the provider sent.
pub const API_POLICY: &str = "default-src 'none'; frame-ancestors 'none'; sandbox";

/// The headers every answer carries beside its Content-Security-Policy (the build's on the
/// files, [`API_POLICY`] on the API's answers).
const SECURITY_HEADERS: [(&str, &str); 3] =
    [("X-Content-Type-Options", "nosniff"), ("Referrer-Policy", "no-referrer"), ("X-Frame-Options", "DENY")];

/// A location's `add_header`s of [`SECURITY_HEADERS`] and `policy`.
fn security_headers(policy: &str) -> String {
    let policy = format!("\"{policy}\"");
    std::iter::once(("Content-Security-Policy", policy.as_str()))
        .chain(SECURITY_HEADERS)
        .map(|(name, value)| format!("    add_header {name} {value} always;\n"))
        .collect()
}

/// Where `/api/` goes: `https://host[:port][/path]`, or plain `http://` to a loopback host
/// only (the switch for an API on the same machine, as the nginx test's simulator at
/// `http://127.0.0.1:PORT/api`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Upstream {
    origin: ApiOrigin,
    /// `""` or `/segment[/segment…]`.
    path: String,
}

impl Upstream {
    pub fn parse(text: &str) -> Result<Upstream> {
        let trimmed = text.trim().trim_end_matches('/');
        let authority = trimmed.find("://").map_or(0, |at| at + 3);
        let path_at = trimmed[authority..].find('/').map_or(trimmed.len(), |at| authority + at);
        let (origin, path) = trimmed.split_at(path_at);
        let origin = ApiOrigin::parse_for(FLAG, origin)?;
        let segment_ok = |segment: &str| {
            !matches!(segment, "" | "." | "..")
                && segment.chars().all(|c| c.is_ascii_alphanumeric() || "-._~".contains(c))
        };
        if !path.split('/').skip(1).all(segment_ok) {
            return Err(format!("{FLAG} {text:?}: the path may hold only letters, digits and -._~ between slashes"));
        }
        Ok(Upstream { origin, path: path.to_owned() })
    }

    /// The provider's documented base URL.
    pub fn provider() -> Upstream {
        Upstream::parse(DEFAULT_UPSTREAM).expect("the default upstream parses")
    }

    /// The `/api/` location: the upstream's certificate checked against the system's roots,
    /// for the name in the URL (SNI), unless it is a loopback API in plain HTTP.
    fn location(&self) -> String {
        let mut out = format!(
            "location ^~ /api/ {{\n    proxy_pass {}{}/;\n    proxy_http_version 1.1;\n",
            self.origin.as_str(),
            self.path
        );
        if self.origin.is_plain_http() {
            out.push_str(
                "    # Plain HTTP to a loopback API (--api-upstream http://127.0.0.1:…): nothing leaves the machine.\n",
            );
        } else {
            out.push_str("    # The key travels to the provider through here: its certificate is checked.\n");
            out.push_str("    proxy_ssl_server_name on;\n    proxy_ssl_verify on;\n    proxy_ssl_verify_depth 3;\n");
            writeln!(out, "    proxy_ssl_trusted_certificate {TRUSTED_CERTIFICATES};").expect("writing to a String");
        }
        // The provider's own headers of these names give way to the console's, sent once.
        for name in std::iter::once("Content-Security-Policy").chain(SECURITY_HEADERS.map(|(name, _)| name)) {
            writeln!(out, "    proxy_hide_header {name};").expect("writing to a String");
        }
        out.push_str(&security_headers(API_POLICY));
        out.push_str("}\n");
        out
    }
}

/// Writes [`FILE`] into `dist` for `upstream`.
pub fn write(dist: &Path, upstream: &Upstream) -> Result {
    let path = dist.join(FILE);
    std::fs::write(&path, config(dist, upstream)?).map_err(|e| format!("writing {}: {e}", path.display()))
}

/// The configuration for the build in `dist` (its files and its `csp-header.txt`).
pub fn config(dist: &Path, upstream: &Upstream) -> Result<String> {
    let policy_path = dist.join(HEADER_FILE);
    let policy =
        std::fs::read_to_string(&policy_path).map_err(|e| format!("reading {}: {e}", policy_path.display()))?;
    let entries = std::fs::read_dir(dist).map_err(|e| format!("listing {}: {e}", dist.display()))?;
    let names: Vec<String> = entries
        .flatten()
        .filter(|entry| entry.path().is_file())
        .filter_map(|entry| entry.file_name().into_string().ok())
        .filter(|name| !name.ends_with(".br") && !name.ends_with(".gz") && name != FILE)
        .collect();
    render(&names, policy.trim(), upstream)
}

fn render(names: &[String], policy: &str, upstream: &Upstream) -> Result<String> {
    if !policy.contains("frame-ancestors 'none'") {
        return Err(format!("{HEADER_FILE} has no frame-ancestors 'none': {policy}"));
    }
    if policy.chars().any(|c| c.is_control() || matches!(c, '"' | '$' | '\\' | '{' | '}')) {
        return Err(format!("{HEADER_FILE} holds a character an nginx string cannot carry as is: {policy}"));
    }
    if !names.iter().any(|name| name == "index.html") {
        return Err("the build has no index.html".to_owned());
    }
    let mut types: BTreeSet<(&str, &str)> = BTreeSet::new();
    let mut hashed: BTreeSet<&str> = BTreeSet::new();
    for name in names {
        let extension = name.rsplit_once('.').map_or("", |(_, extension)| extension);
        let (_, media_type) = TYPES
            .iter()
            .find(|(known, _)| *known == extension)
            .ok_or_else(|| format!("{name}: no media type for .{extension} files (add one to nginx::TYPES)"))?;
        types.insert((media_type, extension));
        if is_hashed(name) {
            hashed.insert(extension);
        }
    }
    if hashed.is_empty() {
        return Err("the build has no file whose name carries its hash: is it a trunk build?".to_owned());
    }
    let types: String =
        types.iter().map(|(media_type, extension)| format!("    {media_type} {extension};\n")).collect();
    let hashed = hashed.into_iter().collect::<Vec<_>>().join("|");
    let security = security_headers(policy);
    let api = upstream.location();
    let routes = routes()?;
    Ok(format!(
        r#"# Generated by `cargo xtask dist` from this build: include it inside your `server {{ }}`,
# whose `root` is this folder (docs/deploy.md). Each build writes it again, with its own
# Content-Security-Policy hashes.

# No nginx version in the Server header nor on its error pages.
server_tokens off;

# The .br and .gz files the build wrote beside each file, as the browser accepts
# (brotli_static: Debian's libnginx-mod-http-brotli-static). Vary is added per location.
gzip_static on;
brotli_static on;
gzip_vary off;

types {{
{types}}}
default_type application/octet-stream;

# This file is not for browsers.
location = /{FILE} {{
    return 404;
}}

# Names with a content hash never change: a year, immutable (not on a 404).
location ~ "^/[^/.]+-[0-9a-f]{{12,16}}(?:_bg)?\.(?:{hashed})$" {{
    try_files $uri =404;
    add_header Cache-Control "public, max-age=31536000, immutable";
    add_header Vary Accept-Encoding;
{security}}}

# The console's routes are its page, revalidated on every load so a new build is seen at once.
location ~ "{routes}" {{
    try_files /index.html =404;
    add_header Cache-Control no-cache always;
    add_header Vary Accept-Encoding;
{security}}}

# Every other address is a file of the build (revalidated) or a 404: never the page.
location / {{
    try_files $uri =404;
    add_header Cache-Control no-cache always;
    add_header Vary Accept-Encoding;
{security}}}

# The API on the console's own origin, so the console's default base URL `/api` works.
{api}"#
    ))
}

/// `main-4ae9b0365dd6b4e0.css`, `app-37fd8b81d0e2f31d_bg.wasm`: a stem (up to the first dot)
/// ending in `-` and lowercase hex digits, as the location's pattern reads it. Sixteen,
/// or fewer down to twelve: trunk writes its 64-bit hash without leading zeros (a build's
/// `overview-f0204c9056fa6f8.css` has fifteen), one name in 16 a digit short.
fn is_hashed(name: &str) -> bool {
    let stem = name.split('.').next().unwrap_or(name);
    let stem = stem.strip_suffix("_bg").unwrap_or(stem);
    stem.rsplit_once('-').is_some_and(|(_, hash)| {
        (12..=16).contains(&hash.len()) && hash.bytes().all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const POLICY: &str = "default-src 'none'; script-src 'self' 'wasm-unsafe-eval' 'sha256-AbC+/9='; \
                          frame-ancestors 'none'";

    /// A build as small as it gets: the page, its policy, and one file of each hashed kind.
    const FILES: [&str; 7] = [
        "index.html",
        "robots.txt",
        "main-4ae9b0365dd6b4e0.css",
        "reservations-console-37fd8b81d0e2f31d.js",
        "reservations-console-37fd8b81d0e2f31d_bg.wasm",
        "split_nodes-0011223344556677.wasm",
        "__wasm_split_shared-8899aabbccddeeff.bin",
    ];

    /// [`FILES`] in a folder of their own, with their `.br` and an earlier `nginx.conf`.
    fn fake_dist(name: &str) -> std::path::PathBuf {
        let dist = std::env::temp_dir().join(format!("xtask-nginx-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dist);
        std::fs::create_dir_all(&dist).unwrap();
        for file in FILES {
            std::fs::write(dist.join(file), file).unwrap();
            std::fs::write(dist.join(format!("{file}.br")), file).unwrap();
        }
        std::fs::write(dist.join(HEADER_FILE), format!("{POLICY}\n")).unwrap();
        std::fs::write(dist.join(FILE), "an earlier build's").unwrap();
        dist
    }

    /// The configuration generated for [`fake_dist`]`(name)` and the provider.
    fn generated(name: &str) -> String {
        let dist = fake_dist(name);
        let config = config(&dist, &Upstream::provider()).unwrap();
        std::fs::remove_dir_all(&dist).unwrap();
        config
    }

    /// The body of the location that starts with `head`, up to its closing brace.
    fn location<'a>(config: &'a str, head: &str) -> &'a str {
        let at = config.find(head).unwrap_or_else(|| panic!("no `{head}` in:\n{config}"));
        &config[at..at + config[at..].find("\n}").unwrap()]
    }

    #[test]
    fn every_hashed_kind_of_the_build_is_immutable_the_shared_bin_included() {
        let config = generated("hashed");
        let hashed = location(&config, "location ~ \"^/[^/.]+-");
        assert!(hashed.contains(r#"-[0-9a-f]{12,16}(?:_bg)?\.(?:bin|css|js|wasm)$""#), "{hashed}");
        assert!(hashed.contains("add_header Cache-Control \"public, max-age=31536000, immutable\";\n"), "{hashed}");
        assert!(hashed.contains("try_files $uri =404;"), "a missing hashed file is a 404: {hashed}");
        for name in FILES.iter().filter(|name| name.contains('-')).chain(&["overview-f0204c9056fa6f8.css"]) {
            assert!(is_hashed(name), "{name}");
        }
        for name in [
            "index.html",
            "robots.txt",
            "csp-header.txt",
            "main-4AE9B0365DD6B4E0.css",
            "a.b-0011223344556677.js",
            "main-0123456789a.css",
            "main-0123456789abcdef0.css",
        ] {
            assert!(!is_hashed(name), "{name}");
        }
    }

    #[test]
    fn each_location_that_adds_a_header_repeats_vary_the_policy_and_nosniff() {
        let config = generated("headers");
        let heads = ["location ~ \"^/[^/.]+-", "location ~ \"^/(?:|overview", "location / {"];
        for head in heads {
            let body = location(&config, head);
            assert!(body.contains("add_header Vary Accept-Encoding;"), "{body}");
            assert!(body.contains(&format!("add_header Content-Security-Policy \"{POLICY}\" always;")), "{body}");
            assert!(body.contains("add_header X-Content-Type-Options nosniff always;"), "{body}");
        }
        let api = location(&config, "location ^~ /api/").matches("add_header").count();
        assert_eq!(
            config.matches("add_header").count(),
            heads.len() * 6 + api,
            "no add_header outside them:\n{config}"
        );
        for head in &heads[1..] {
            assert!(location(&config, head).contains("add_header Cache-Control no-cache always;"), "{head}");
        }
        assert!(config.contains("gzip_static on;\nbrotli_static on;\n"), "{config}");
    }

    #[test]
    fn only_the_consoles_routes_are_answered_with_the_page() {
        let config = generated("routes");
        assert!(location(&config, "location ~ \"^/(?:|overview").contains("try_files /index.html =404;"));
        assert!(location(&config, "location / {").contains("try_files $uri =404;"));
        assert_eq!(config.matches("index.html").count(), 1, "the page is the routes' answer only:\n{config}");
        assert!(location(&config, "location = /nginx.conf").contains("return 404;"));
    }

    /// Where nginx sends `path`: the exact locations first, then the first regular expression
    /// that matches, in the file's order, else `location /`; the head of that location.
    fn answering<'a>(config: &'a str, path: &str) -> &'a str {
        let heads: Vec<&str> = config.lines().filter(|line| line.starts_with("location ")).collect();
        let exact = heads
            .iter()
            .find(|head| head.strip_prefix("location = ").and_then(|rest| rest.strip_suffix(" {")) == Some(path));
        let pattern = |head: &str| {
            let quoted = head.strip_prefix("location ~ \"")?.strip_suffix("\" {")?;
            Some(regex::Regex::new(quoted).expect("nginx's pattern reads as a regular expression"))
        };
        let regex = || heads.iter().find(|head| pattern(head).is_some_and(|pattern| pattern.is_match(path)));
        exact.or_else(regex).copied().unwrap_or("location / {")
    }

    #[test]
    fn every_page_of_the_console_is_answered_with_the_page_and_no_other_address() {
        let config = generated("every-page");
        let page = |path: &str| location(&config, answering(&config, path)).contains("try_files /index.html =404;");
        let pages = PAGES.iter().map(|page| page.address_with("12"));
        for path in pages
            .chain(["/overview/", "/reservations/12/workloads/gpu_cluster/418", "/orgs/org_acme"].map(String::from))
        {
            assert!(page(&path), "{path} is a page of the console:\n{config}");
        }
        for path in [
            "/nope",
            "/fit/4",
            "/reservations/12/nodes/more",
            "/favicon.ico",
            "/nginx.conf",
            "/main-4ae9b0365dd6b4e0.css",
        ] {
            assert!(!page(path), "{path} is no page of the console");
        }
    }

    #[test]
    fn the_media_types_are_those_of_the_builds_files() {
        let dist = fake_dist("types");
        let config = config(&dist, &Upstream::provider()).unwrap();
        std::fs::write(dist.join("notes.md"), "").unwrap();
        let unknown = super::config(&dist, &Upstream::provider()).unwrap_err();
        std::fs::remove_dir_all(&dist).unwrap();
        let types = location(&config, "types {");
        assert_eq!(
            types,
            "types {\n    application/octet-stream bin;\n    application/wasm wasm;\n    text/css css;\n    \
             text/html html;\n    text/javascript js;\n    text/plain txt;",
        );
        assert!(unknown.contains("notes.md: no media type for .md files"), "{unknown}");
    }

    #[test]
    fn the_provider_is_proxied_with_its_certificate_verified() {
        let config = generated("provider");
        let api = location(&config, "location ^~ /api/");
        assert!(
            api.starts_with(
                "location ^~ /api/ {\n    proxy_pass https://api.ecohash.com/;\n    proxy_http_version 1.1;\n    \
             # The key travels to the provider through here: its certificate is checked.\n    \
             proxy_ssl_server_name on;\n    proxy_ssl_verify on;\n    proxy_ssl_verify_depth 3;\n    \
             proxy_ssl_trusted_certificate /etc/ssl/certs/ca-certificates.crt;\n"
            ),
            "{api}"
        );
    }

    #[test]
    fn the_apis_answers_carry_their_own_headers_and_nginx_names_no_version() {
        let config = generated("api-headers");
        let api = location(&config, "location ^~ /api/");
        for header in ["Content-Security-Policy", "X-Content-Type-Options", "Referrer-Policy", "X-Frame-Options"] {
            assert_eq!(api.matches(&format!("add_header {header} ")).count(), 1, "{header} set once:\n{api}");
            assert!(api.contains(&format!("proxy_hide_header {header};")), "the provider's {header} gives way:\n{api}");
        }
        assert!(api.contains(&format!("add_header Content-Security-Policy \"{API_POLICY}\" always;")), "{api}");
        assert!(api.contains("add_header X-Content-Type-Options nosniff always;"), "{api}");
        assert!(config.contains("\nserver_tokens off;\n"), "{config}");
    }

    #[test]
    fn a_loopback_api_in_plain_http_keeps_its_path_and_has_no_tls() {
        let upstream = Upstream::parse("http://127.0.0.1:8080/api/").unwrap();
        let api = upstream.location();
        assert!(api.starts_with("location ^~ /api/ {\n    proxy_pass http://127.0.0.1:8080/api/;\n"), "{api}");
        assert!(!api.contains("proxy_ssl"), "{api}");
        let staging = Upstream::parse("https://Staging.Example.com:8443/v1").unwrap().location();
        assert!(staging.contains("proxy_pass https://staging.example.com:8443/v1/;"), "{staging}");
        assert!(staging.contains("proxy_ssl_verify on;"), "{staging}");
    }

    #[test]
    fn an_upstream_is_https_or_loopback_http_with_a_plain_path() {
        for bad in [
            "http://api.ecohash.com",
            "api.ecohash.com",
            "https://api.ecohash.com/v1/../admin",
            "https://api.ecohash.com/v1;return 200",
            "https://api.ecohash.com/a b",
            "https://api.ecohash.com/$host",
            "https://api.ecohash.com//v1",
        ] {
            let why = Upstream::parse(bad).unwrap_err();
            assert!(why.starts_with(FLAG), "{bad}: {why}");
        }
    }

    #[test]
    fn a_policy_without_frame_ancestors_or_with_a_quote_is_refused() {
        let names: Vec<String> = FILES.iter().map(|name| name.to_string()).collect();
        let provider = Upstream::provider();
        assert!(render(&names, "default-src 'none'", &provider).unwrap_err().contains("frame-ancestors"));
        let quoted = format!("{POLICY}; script-src \"x\"");
        assert!(render(&names, &quoted, &provider).unwrap_err().contains("cannot carry"));
        assert!(render(&names[1..], POLICY, &provider).unwrap_err().contains("no index.html"));
    }
}
