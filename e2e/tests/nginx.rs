//! Issue 31: the console deployed the way an operator would. Debian's nginx serves the release
//! build with the `nginx.conf` that `cargo xtask dist` generated from it (docs/deploy.md),
//! `/api/` proxied to the simulator over loopback; through it the console connects and
//! works, and each kind of answer carries the headers the file promises.

use e2e::http::{self, Response};
use e2e::{Config, Console, Dist, Nginx, Simulator, OWNER_KEY};
use hyper::Method;
use xtask::nginx::{self, Upstream, API_POLICY};
use xtask::pages::{Page, PAGES};

/// The build ships the generator's file for the provider's API, so the tests below, which
/// generate it for the simulator's, serve what an operator gets but for the upstream.
#[test]
fn the_build_ships_the_configuration_generated_for_the_provider() {
    let dist = Dist::from_env();
    let path = dist.dir().join(nginx::FILE);
    let shipped = std::fs::read_to_string(&path)
        .unwrap_or_else(|error| panic!("{}: {error} (cargo xtask dist writes it)", path.display()));
    let generated = nginx::config(dist.dir(), &Upstream::provider()).expect("the build's configuration");
    assert_eq!(shipped, generated, "{} is not the generator's for this build", path.display());
    assert!(shipped.contains("proxy_pass https://api.ecohash.com/;\n"), "{shipped}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_console_connects_and_shows_the_list_and_a_nodes_page_through_nginx() {
    let mut console = Console::start().await;
    let nginx = Nginx::start(&console.dist, &format!("{}/api", console.sim.url())).await;
    console.open_from(nginx.url());
    // Kept for the tab, so that the deep link below, a fresh page load, starts connected.
    console.connect_keeping_key(OWNER_KEY).await;
    console.navigate("/reservations").await;
    console.browser.wait_for("table.reservations-table tbody tr").await;
    console.sim.clear_requests().await;

    // A deep link is the console: nginx answers the route with the page, which reads the
    // reservation's nodes through nginx's /api/.
    console.open("/reservations/12/nodes").await;
    console.browser.wait_for("article.node-card").await;
    let reads = console.sim.requests("/api/gpu-reservations/12/nodes").await.requests;
    assert!(reads.iter().any(|read| read.status == Some(200)), "the nodes were read through nginx: {reads:?}");
    console.assert_no_console_errors(&[]).await;
    console.screenshots("nginx-nodes").await;
}

/// Every file of the build but the page, `robots.txt` and the policy is named by its content's
/// hash (trunk's, the split step's), the pages' shared `.bin` among them.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hashed_files_arrive_in_brotli_immutable_and_varying_by_encoding() {
    let (dist, _sim, nginx) = behind_nginx().await;
    let unhashed = ["index.html", "robots.txt", "csp-header.txt", nginx::FILE];
    let hashed: Vec<String> = dist_files(&dist)
        .into_iter()
        .filter(|name| !name.ends_with(".br") && !name.ends_with(".gz") && !unhashed.contains(&name.as_str()))
        .collect();
    let main = name(&dist.wasm());
    assert!(hashed.contains(&main) && hashed.iter().any(|name| name.ends_with(".bin")), "{hashed:?}");
    let mut problems = Vec::new();
    for file in &hashed {
        let answer = fetch(&nginx, &format!("/{file}")).await;
        match std::fs::read(dist.dir().join(format!("{file}.br"))) {
            Ok(brotli) => {
                check(&mut problems, file, answer.status == 200 && answer.body == brotli, "the .br file", &answer);
                expect(&mut problems, file, &answer, "content-encoding", Some("br"));
            }
            Err(_) => check(&mut problems, file, answer.status == 200, "200", &answer),
        }
        expect(&mut problems, file, &answer, "cache-control", Some("public, max-age=31536000, immutable"));
        expect(&mut problems, file, &answer, "vary", Some("Accept-Encoding"));
        expect(&mut problems, file, &answer, "x-content-type-options", Some("nosniff"));
        if file.ends_with(".wasm") {
            expect(&mut problems, file, &answer, "content-type", Some("application/wasm"));
        }
    }
    assert!(problems.is_empty(), "through nginx:\n{}\n{}", problems.join("\n"), nginx.error_log());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_page_and_its_routes_are_revalidated_and_carry_the_builds_policy() {
    let (dist, _sim, nginx) = behind_nginx().await;
    let policy = std::fs::read_to_string(dist.dir().join("csp-header.txt")).expect("the build's csp-header.txt");
    assert!(policy.contains("frame-ancestors 'none'"), "{policy}");
    let brotli = std::fs::read(dist.dir().join("index.html.br")).expect("the build's index.html.br");
    let mut problems = Vec::new();
    for page in PAGES {
        let (path, _) = opened_at(*page);
        let path = path.split_once('?').map_or(path, |(path, _)| path);
        let answer = fetch(&nginx, path).await;
        check(&mut problems, path, answer.status == 200 && answer.body == brotli, "the page, in brotli", &answer);
        expect(&mut problems, path, &answer, "content-type", Some("text/html"));
        expect(&mut problems, path, &answer, "cache-control", Some("no-cache"));
        expect(&mut problems, path, &answer, "content-security-policy", Some(policy.trim()));
        expect(&mut problems, path, &answer, "x-content-type-options", Some("nosniff"));
        expect(&mut problems, path, &answer, "vary", Some("Accept-Encoding"));
        expect(&mut problems, path, &answer, "server", Some("nginx"));
    }
    assert!(problems.is_empty(), "through nginx:\n{}\n{}", problems.join("\n"), nginx.error_log());
}

/// Each page of the console (`xtask::pages`, the router's table), at an address of the demo
/// data, and an element that shows the page has its data. A page added to the router is
/// added here, or this does not compile.
fn opened_at(page: Page) -> (&'static str, &'static str) {
    match page {
        Page::Connect => ("/", "form.connect-form"),
        Page::Overview => ("/overview", "table.fleet-table tbody tr"),
        Page::Fit => ("/fit?gpus=4", "tr[data-verdict='Fragmented']"),
        Page::Capacity => ("/capacity", "section.capacity-lane"),
        Page::Ledger => ("/ledger", ".ledger-table tfoot"),
        Page::Reservations => ("/reservations", "table.reservations-table tbody tr"),
        Page::Reservation => ("/reservations/12", "#terms-title"),
        Page::Nodes => ("/reservations/12/nodes", "article.node-card"),
        Page::Launch => ("/reservations/12/launch", "form.launch-form"),
        Page::Workload => ("/reservations/12/workloads/gpu_cluster/418", ".workload-page .page-head"),
        Page::Orgs => ("/orgs", "form.org-picker"),
        Page::Org => ("/orgs/org_acme", "article.org-card"),
    }
}

/// A reload, a bookmark or a shared link: every page opened by its address, as a fresh
/// load through nginx, is the console showing that page (not nginx's 404, not Connect).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_page_opened_by_its_address_through_nginx_shows_its_content() {
    let mut console = Console::start().await;
    let nginx = Nginx::start(&console.dist, &format!("{}/api", console.sim.url())).await;
    console.open_from(nginx.url());
    let (connect, form) = opened_at(Page::Connect);
    console.open(connect).await;
    console.browser.wait_for(form).await;
    // Kept for the tab, so that each fresh load below starts connected.
    console.connect_keeping_key(OWNER_KEY).await;
    for page in PAGES.iter().filter(|page| **page != Page::Connect) {
        let (address, content) = opened_at(*page);
        console.open(address).await;
        console.browser.wait_for(content).await;
        assert_eq!(console.browser.current_path().await, address, "{page:?} stays at its address");
    }
    console.assert_no_console_errors(&[]).await;
}

/// The API's answers carry headers of their own through nginx, once each whatever the
/// upstream sent, and nginx names no version.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_apis_answers_through_nginx_carry_their_own_headers_and_no_version() {
    let (_dist, _sim, nginx) = behind_nginx().await;
    let url = format!("{}/api/gpu-reservations", nginx.url());
    let bearer = format!("Bearer {OWNER_KEY}");
    let answer = http::send_with(Method::GET, &url, None, &[("authorization", bearer.as_str())])
        .await
        .unwrap_or_else(|error| panic!("nginx gave no answer: {error}"));
    let mut problems = Vec::new();
    let path = "/api/gpu-reservations";
    check(&mut problems, path, answer.status == 200, "200", &answer);
    expect(&mut problems, path, &answer, "content-security-policy", Some(API_POLICY));
    expect(&mut problems, path, &answer, "x-content-type-options", Some("nosniff"));
    expect(&mut problems, path, &answer, "referrer-policy", Some("no-referrer"));
    expect(&mut problems, path, &answer, "x-frame-options", Some("DENY"));
    expect(&mut problems, path, &answer, "server", Some("nginx"));
    assert!(problems.is_empty(), "through nginx:\n{}\n{}", problems.join("\n"), nginx.error_log());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_missing_asset_or_an_address_that_is_no_route_is_a_404_not_the_page() {
    let (_dist, _sim, nginx) = behind_nginx().await;
    let mut problems = Vec::new();
    for path in [
        "/reservations-console-0123456789abcdef_bg.wasm",
        "/__wasm_split_shared-0123456789abcdef.bin",
        "/main-0123456789abcdef.css",
        "/favicon.ico",
        "/nope",
        "/reservations/12/nodes/more",
        "/nginx.conf",
    ] {
        let answer = fetch(&nginx, path).await;
        check(&mut problems, path, answer.status == 404, "404", &answer);
        let cache = answer.header("cache-control").unwrap_or_default();
        check(&mut problems, path, !cache.contains("immutable"), "a 404 never cached for a year", &answer);
    }
    assert!(problems.is_empty(), "through nginx:\n{}\n{}", problems.join("\n"), nginx.error_log());
}

/// The key travels to the provider through `/api/`: a provider whose certificate the system
/// does not trust (here self-signed) gets no request, and the console a 502.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_provider_whose_certificate_is_not_trusted_gets_no_request() {
    let provider = Nginx::untrusted_https().await;
    let dist = Dist::from_env();
    let nginx = Nginx::start(&dist, &provider.url().replace("http://", "https://")).await;
    let url = format!("{}/api/gpu-reservations", nginx.url());
    let answer = http::send_with(Method::GET, &url, None, &[("authorization", "Bearer eco_demo_owner")])
        .await
        .unwrap_or_else(|error| panic!("nginx gave no answer: {error}"));
    assert_eq!(answer.status, 502, "{url}: {}", String::from_utf8_lossy(&answer.body));
    assert!(
        nginx.error_log().contains("upstream SSL certificate verify error"),
        "nginx refused the provider for its certificate:\n{}",
        nginx.error_log()
    );
    assert!(!provider.access_log().contains("/gpu-reservations"), "the provider got:\n{}", provider.access_log());
}

/// The build, the simulator (its API only) and nginx in front of it.
async fn behind_nginx() -> (Dist, Simulator, Nginx) {
    let dist = Dist::from_env();
    let sim = Simulator::start(Config::default()).await;
    let nginx = Nginx::start(&dist, &format!("{}/api", sim.url())).await;
    (dist, sim, nginx)
}

/// `GET path` from nginx, as a browser that takes brotli and gzip asks.
async fn fetch(nginx: &Nginx, path: &str) -> Response {
    let url = format!("{}{path}", nginx.url());
    http::send_with(Method::GET, &url, None, &[("accept-encoding", "br, gzip")])
        .await
        .unwrap_or_else(|error| panic!("nginx gave no answer: {error}\n{}", nginx.error_log()))
}

/// Notes a problem when `ok` is false: what `path` should have been, and what came.
fn check(problems: &mut Vec<String>, path: &str, ok: bool, wanted: &str, answer: &Response) {
    if !ok {
        problems.push(format!("{path}: wanted {wanted}, got {} ({} bytes)", answer.status, answer.body.len()));
    }
}

/// Notes a problem unless `header` came exactly once with `value` (`None`: not at all).
fn expect(problems: &mut Vec<String>, path: &str, answer: &Response, header: &str, value: Option<&str>) {
    let values: Vec<&str> = answer.headers.get_all(header).iter().filter_map(|v| v.to_str().ok()).collect();
    if values != value.into_iter().collect::<Vec<_>>() {
        problems.push(format!("{path}: {header} should be {value:?}, was {values:?}"));
    }
}

/// The names of the build's files.
fn dist_files(dist: &Dist) -> Vec<String> {
    let entries = std::fs::read_dir(dist.dir()).expect("the build's folder");
    entries.flatten().filter_map(|entry| entry.file_name().into_string().ok()).collect()
}

fn name(path: &std::path::Path) -> String {
    path.file_name().and_then(|name| name.to_str()).expect("a file name").to_owned()
}
