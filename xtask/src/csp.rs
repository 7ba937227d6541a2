//! The built console's Content-Security-Policy, written after trunk has built `dist/`.
//!
//! trunk's `index.html` starts the app with inline scripts and carries the first paint's
//! stylesheet inline, so the policy allows exactly those scripts and that style by their
//! SHA-256 (computed here from the built file, so it follows every rebuild) — never
//! `'unsafe-inline'`, never a nonce that would have to stay fixed in a static file.
//! `'wasm-unsafe-eval'` is what compiling the wasm needs, and nothing more.
//!
//! The policy goes twice into the build: as a `<meta>` (the first child of `<head>`, for
//! hosts that cannot set headers) and, whole, in `csp-header.txt` for servers that can (the
//! simulator sends it, and `nginx.conf`, see `nginx`). A `<meta>` cannot carry `frame-ancestors`,
//! so only the header has it.

use std::fmt::Write as _;
use std::path::Path;

use crate::Result;

/// The file beside `index.html` holding the header form of the policy.
pub const HEADER_FILE: &str = "csp-header.txt";

/// An API origin the console is built to call besides its own (`--api-origin`):
/// `scheme://host[:port]`, nothing else, so it cannot smuggle in another directive.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ApiOrigin(String);

impl ApiOrigin {
    pub fn parse(text: &str) -> Result<ApiOrigin> {
        ApiOrigin::parse_for("--api-origin", text)
    }

    /// [`ApiOrigin::parse`] for the command-line flag `flag`, which its errors name (nginx's
    /// `--api-upstream` takes an origin by the same rules, then a path).
    pub fn parse_for(flag: &str, text: &str) -> Result<ApiOrigin> {
        let problem = |why: &str| format!("{flag} {text:?}: {why} (expected e.g. https://api.ecohash.com)");
        let lower = text.trim().trim_end_matches('/').to_ascii_lowercase();
        let (scheme, authority) = lower.split_once("://").ok_or_else(|| problem("no scheme"))?;
        if scheme != "https" && scheme != "http" {
            return Err(problem("the scheme must be https or http"));
        }
        let (host, port) = match authority.strip_prefix('[') {
            Some(rest) => {
                let (inside, after) = rest.split_once(']').ok_or_else(|| problem("unclosed [ in the host"))?;
                if inside.is_empty() || !inside.chars().all(|c| c.is_ascii_hexdigit() || c == ':' || c == '.') {
                    return Err(problem("not an IPv6 address"));
                }
                (inside, after)
            }
            None => match authority.find(':') {
                Some(at) => (&authority[..at], &authority[at..]),
                None => (authority, ""),
            },
        };
        let label_ok = |label: &str| !label.is_empty() && label.chars().all(|c| c.is_ascii_alphanumeric() || c == '-');
        if !authority.starts_with('[') && !host.split('.').all(label_ok) {
            return Err(problem("the host must be a domain name or an IP address, without a path"));
        }
        if let Some(digits) = port.strip_prefix(':') {
            if digits.parse::<u16>().map_or(true, |p| p == 0) {
                return Err(problem("the port must be a number from 1 to 65535"));
            }
        } else if !port.is_empty() {
            return Err(problem("nothing may follow the host but a port"));
        }
        if scheme == "http" && !is_loopback(host) {
            return Err(problem("plain http is allowed only for a loopback host (localhost, 127.0.0.0/8, [::1]): the key would cross the network in clear"));
        }
        Ok(ApiOrigin(lower))
    }

    /// `scheme://host[:port]`, lowercase, without a trailing slash.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// Plain `http://` (which [`ApiOrigin::parse`] allows for a loopback host only).
    pub fn is_plain_http(&self) -> bool {
        self.0.starts_with("http://")
    }
}

/// `localhost` (and its subdomains, which resolve to loopback by RFC 6761), 127.0.0.0/8, ::1.
fn is_loopback(host: &str) -> bool {
    host == "localhost"
        || host.ends_with(".localhost")
        || host.parse::<std::net::Ipv4Addr>().is_ok_and(|ip| ip.is_loopback())
        || host.parse::<std::net::Ipv6Addr>().is_ok_and(|ip| ip.is_loopback())
}

/// The directives, in the order they are written. `frame_ancestors` only for the header.
fn policy(inline: &Inline, api_origin: Option<&ApiOrigin>, frame_ancestors: bool) -> String {
    let with_hashes = |mut sources: String, hashes: &[String]| {
        for hash in hashes {
            write!(sources, " 'sha256-{hash}'").expect("writing to a String");
        }
        sources
    };
    let script_src = with_hashes("'self' 'wasm-unsafe-eval'".to_owned(), &inline.scripts);
    let style_src = with_hashes("'self'".to_owned(), &inline.styles);
    let connect_src = match api_origin {
        Some(ApiOrigin(origin)) => format!("'self' {origin}"),
        None => "'self'".to_owned(),
    };
    let mut directives = vec![
        "default-src 'none'".to_owned(),
        format!("script-src {script_src}"),
        format!("style-src {style_src}"),
        "img-src 'self' data:".to_owned(),
        format!("connect-src {connect_src}"),
        "base-uri 'none'".to_owned(),
        "form-action 'self'".to_owned(),
    ];
    if frame_ancestors {
        directives.push("frame-ancestors 'none'".to_owned());
    }
    directives.join("; ")
}

/// Secures the build in `dist`: the `<meta>` policy into `index.html` (replacing one a
/// previous run put there) and the header policy into [`HEADER_FILE`].
pub fn secure(dist: &Path, api_origin: Option<&ApiOrigin>) -> Result {
    let index = dist.join("index.html");
    let html = std::fs::read_to_string(&index).map_err(|e| format!("reading {}: {e}", index.display()))?;
    let html = without_policy_meta(&html);
    let inline = Inline::of(&html)?;
    let meta =
        format!("<meta http-equiv=\"Content-Security-Policy\" content=\"{}\">", policy(&inline, api_origin, false));
    let secured = with_first_in_head(&html, &meta)?;
    std::fs::write(&index, secured).map_err(|e| format!("writing {}: {e}", index.display()))?;
    let header = dist.join(HEADER_FILE);
    let header_policy = policy(&inline, api_origin, true);
    std::fs::write(&header, format!("{header_policy}\n")).map_err(|e| format!("writing {}: {e}", header.display()))?;
    eprintln!(
        "csp: {} inline script(s) and {} style(s) allowed by hash; {header_policy}",
        inline.scripts.len(),
        inline.styles.len()
    );
    Ok(())
}

/// The SHA-256 (base64) of each inline script and style of a page.
struct Inline {
    scripts: Vec<String>,
    styles: Vec<String>,
}

impl Inline {
    fn of(html: &str) -> Result<Inline> {
        let hashes = |texts: Vec<&str>| texts.iter().map(|text| base64(&sha256(text.as_bytes()))).collect();
        Ok(Inline { scripts: hashes(inline_texts(html, "script")?), styles: hashes(inline_texts(html, "style")?) })
    }
}

/// The text of every `<tag>` element without `src` (`script` or `style`), exactly as the
/// browser hashes it.
fn inline_texts<'a>(html: &'a str, tag: &str) -> Result<Vec<&'a str>> {
    let lower = html.to_ascii_lowercase();
    let (open_mark, close_mark) = (format!("<{tag}"), format!("</{tag}"));
    let mut texts = Vec::new();
    let mut from = 0;
    while let Some(open) = lower[from..].find(&open_mark).map(|at| from + at) {
        let tag_end =
            lower[open..].find('>').map(|at| open + at).ok_or(format!("index.html: a <{tag}> tag never closes"))?;
        let close = lower[tag_end..]
            .find(&close_mark)
            .map(|at| tag_end + at)
            .ok_or(format!("index.html: a <{tag}> is never closed"))?;
        let attributes = &lower[open + open_mark.len()..tag_end];
        if !attributes.split_whitespace().any(|a| a.starts_with("src=")) {
            texts.push(&html[tag_end + 1..close]);
        }
        from = close;
    }
    Ok(texts)
}

fn without_policy_meta(html: &str) -> String {
    const MARK: &str = "<meta http-equiv=\"content-security-policy\"";
    let lower = html.to_ascii_lowercase();
    match lower.find(MARK).and_then(|at| lower[at..].find('>').map(|end| (at, at + end + 1))) {
        Some((at, end)) => format!("{}{}", &html[..at], &html[end..]),
        None => html.to_owned(),
    }
}

/// `element` first in the head: a policy applies only to what follows it. That is right
/// after the `<head …>` tag, or, where a minifier left out that optional tag (trunk's
/// release build does), right after `<html …>`, where the head starts unwritten.
fn with_first_in_head(html: &str, element: &str) -> Result<String> {
    let end = open_tag_end(html, "head")
        .or_else(|| open_tag_end(html, "html"))
        .ok_or("index.html has neither <head> nor <html>")?;
    Ok(format!("{}{element}{}", &html[..end], &html[end..]))
}

/// Where the first `<name …>` tag ends (just past its `>`), in any case.
fn open_tag_end(html: &str, name: &str) -> Option<usize> {
    let lower = html.to_ascii_lowercase();
    let open = format!("<{name}");
    let at = lower
        .match_indices(&open)
        .map(|(at, _)| at)
        .find(|&at| matches!(lower.as_bytes().get(at + open.len()), Some(b'>' | b' ' | b'\t' | b'\n' | b'\r')))?;
    Some(at + lower[at..].find('>')? + 1)
}

/// SHA-256 (FIPS 180-4), enough for hashing a build's scripts without a dependency.
pub fn sha256(message: &[u8]) -> [u8; 32] {
    const K: [u32; 64] = [
        0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5, 0xd807aa98,
        0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786,
        0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8,
        0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13,
        0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819,
        0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a,
        0x5b9cca4f, 0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7,
        0xc67178f2,
    ];
    let mut state: [u32; 8] =
        [0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19];
    let mut padded = message.to_vec();
    padded.push(0x80);
    while padded.len() % 64 != 56 {
        padded.push(0);
    }
    padded.extend_from_slice(&((message.len() as u64) * 8).to_be_bytes());
    for block in padded.chunks_exact(64) {
        let mut w = [0u32; 64];
        for (i, word) in block.chunks_exact(4).enumerate() {
            w[i] = u32::from_be_bytes([word[0], word[1], word[2], word[3]]);
        }
        for i in 16..64 {
            let s0 = w[i - 15].rotate_right(7) ^ w[i - 15].rotate_right(18) ^ (w[i - 15] >> 3);
            let s1 = w[i - 2].rotate_right(17) ^ w[i - 2].rotate_right(19) ^ (w[i - 2] >> 10);
            w[i] = w[i - 16].wrapping_add(s0).wrapping_add(w[i - 7]).wrapping_add(s1);
        }
        let [mut a, mut b, mut c, mut d, mut e, mut f, mut g, mut h] = state;
        for i in 0..64 {
            let s1 = e.rotate_right(6) ^ e.rotate_right(11) ^ e.rotate_right(25);
            let choose = (e & f) ^ (!e & g);
            let t1 = h.wrapping_add(s1).wrapping_add(choose).wrapping_add(K[i]).wrapping_add(w[i]);
            let s0 = a.rotate_right(2) ^ a.rotate_right(13) ^ a.rotate_right(22);
            let majority = (a & b) ^ (a & c) ^ (b & c);
            let t2 = s0.wrapping_add(majority);
            (h, g, f, e, d, c, b, a) = (g, f, e, d.wrapping_add(t1), c, b, a, t1.wrapping_add(t2));
        }
        for (word, add) in state.iter_mut().zip([a, b, c, d, e, f, g, h]) {
            *word = word.wrapping_add(add);
        }
    }
    let mut digest = [0u8; 32];
    for (out, word) in digest.chunks_exact_mut(4).zip(state) {
        out.copy_from_slice(&word.to_be_bytes());
    }
    digest
}

/// Standard base64 with padding, as CSP hash sources spell it.
pub fn base64(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let n = chunk.iter().enumerate().fold(0u32, |n, (i, &b)| n | (u32::from(b) << (16 - 8 * i)));
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(ALPHABET[(n >> (18 - 6 * i) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hex(bytes: &[u8]) -> String {
        bytes.iter().map(|b| format!("{b:02x}")).collect()
    }

    #[test]
    fn sha256_matches_the_fips_180_vectors() {
        assert_eq!(hex(&sha256(b"")), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
        assert_eq!(hex(&sha256(b"abc")), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
        let two_blocks = b"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
        assert_eq!(hex(&sha256(two_blocks)), "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
        let million_a = vec![b'a'; 1_000_000];
        assert_eq!(hex(&sha256(&million_a)), "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
    }

    #[test]
    fn base64_pads_as_rfc_4648_does() {
        let cases =
            [("", ""), ("f", "Zg=="), ("fo", "Zm8="), ("foo", "Zm9v"), ("foob", "Zm9vYg=="), ("foobar", "Zm9vYmFy")];
        for (plain, encoded) in cases {
            assert_eq!(base64(plain.as_bytes()), encoded, "{plain:?}");
        }
    }

    #[test]
    fn the_csp_specs_example_script_gets_its_published_hash() {
        // CSP Level 3, §2.3.1: `alert('Hello, world.');` is allowed by this source.
        assert_eq!(base64(&sha256(b"alert('Hello, world.');")), "qznLcsROx4GACP2dm0UCKCzCG+HiZ1guq6ZZDob/Tng=");
    }

    const TRUNK_PAGE: &str = "<!DOCTYPE html>\n<html lang=\"en\">\n  <head>\n    <meta charset=\"utf-8\" />\n    \
        <link rel=\"modulepreload\" href=\"/app.js\">\n<script type=\"module\">\nimport init from '/app.js';\nawait init();\n</script>\n\
        <script src=\"/other.js\"></script></head>\n  <body></body>\n</html>\n";

    #[test]
    fn only_scripts_without_src_are_hashed_and_exactly_their_text() {
        assert_eq!(inline_texts(TRUNK_PAGE, "script").unwrap(), ["\nimport init from '/app.js';\nawait init();\n"]);
    }

    #[test]
    fn the_build_gets_the_meta_first_in_head_and_the_header_with_frame_ancestors() {
        let dist = std::env::temp_dir().join(format!("xtask-csp-{}", std::process::id()));
        std::fs::create_dir_all(&dist).unwrap();
        std::fs::write(dist.join("index.html"), TRUNK_PAGE).unwrap();
        secure(&dist, None).unwrap();
        // A second run (dist rebuilt in place, or run twice) leaves one policy, not two.
        let origin = ApiOrigin::parse("https://API.ecohash.com/").unwrap();
        secure(&dist, Some(&origin)).unwrap();
        let html = std::fs::read_to_string(dist.join("index.html")).unwrap();
        let header = std::fs::read_to_string(dist.join(HEADER_FILE)).unwrap();
        let _ = std::fs::remove_dir_all(&dist);

        let hash = base64(&sha256(b"\nimport init from '/app.js';\nawait init();\n"));
        let expected = format!(
            "default-src 'none'; script-src 'self' 'wasm-unsafe-eval' 'sha256-{hash}'; style-src 'self'; \
             img-src 'self' data:; connect-src 'self' https://api.ecohash.com; base-uri 'none'; form-action 'self'"
        );
        assert_eq!(header, format!("{expected}; frame-ancestors 'none'\n"));
        let meta =
            format!("<head><meta http-equiv=\"Content-Security-Policy\" content=\"{expected}\">\n    <meta charset");
        assert!(html.contains(&meta), "{html}");
        assert_eq!(html.matches("Content-Security-Policy").count(), 1, "{html}");
        assert!(!html.contains("unsafe-inline") && !html.contains("nonce-"));
    }

    #[test]
    fn an_inline_style_is_allowed_by_its_hash_and_nothing_else_inline_is() {
        let page = "<html><style>body{margin:0}</style><script>go()</script><link href=/a.css rel=stylesheet></html>";
        let inline = Inline::of(page).unwrap();
        assert_eq!(inline.styles, [base64(&sha256(b"body{margin:0}"))]);
        assert_eq!(inline.scripts, [base64(&sha256(b"go()"))]);
        let policy = policy(&inline, None, false);
        assert!(policy.contains(&format!("; style-src 'self' 'sha256-{}';", inline.styles[0])), "{policy}");
    }

    #[test]
    fn a_minified_page_without_a_head_tag_gets_the_meta_first_after_html() {
        let minified = "<!doctype html><html lang=en><meta charset=utf-8><script type=module>go()</script></html>";
        let secured = with_first_in_head(minified, "<meta csp>").unwrap();
        assert_eq!(
            secured,
            "<!doctype html><html lang=en><meta csp><meta charset=utf-8><script type=module>go()</script></html>"
        );
        // `<header>` is not `<head>`.
        assert_eq!(open_tag_end("<html><header>", "head"), None);
    }

    #[test]
    fn an_api_origin_is_a_bare_origin_or_refused() {
        for ok in [
            "https://api.ecohash.com",
            "http://127.0.0.1:8080",
            "http://localhost:3000",
            "http://[::1]:8080",
            "https://[::1]:8443",
            "https://a-b.example/",
        ] {
            assert!(ApiOrigin::parse(ok).is_ok(), "{ok}");
        }
        for bad in [
            "api.ecohash.com",
            "ftp://api.ecohash.com",
            "https://api.ecohash.com/v1",
            "https://*.ecohash.com",
            "https://api.ecohash.com; script-src *",
            "https://api.ecohash.com 'unsafe-inline'",
            "https://api.ecohash.com:0",
            "https://api.ecohash.com:99999",
            "https://",
            "https://[zz]",
            "http://api.ecohash.com",
            "http://10.0.0.1:8080",
            "http://127.0.0.1.example.com",
            "http://localhost.example.com",
            "http://[::2]",
        ] {
            assert!(ApiOrigin::parse(bad).is_err(), "{bad}");
        }
    }
}
