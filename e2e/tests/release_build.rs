//! Issue 2's "done when": the optimised release build loads from the simulator and starts
//! in headless Chromium without a console error; and issue 5's split: each page's code
//! arrives on its first visit.

use e2e::{http, Config, Console, Dist, MEMBER_KEY, OWNER_KEY};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn release_build_loads_without_console_errors() {
    let console = Console::start().await;
    console.open("/").await;
    // The Connect page rendered: the wasm ran, the router matched `/`.
    console.browser.wait_for("#connect-title").await;

    let fetched = fetched_wasm(&console).await;
    let [wasm_url] = fetched.as_slice() else { panic!("the page should fetch exactly one .wasm, fetched {fetched:?}") };
    let served = http::get(wasm_url).await.expect("the simulator serves the wasm");
    assert_eq!(served.status, 200, "GET {wasm_url}");
    assert_eq!(
        served.header("content-type"),
        Some("application/wasm"),
        "the wasm must be served as application/wasm so it is compiled while streaming"
    );
    let built = std::fs::read(console.dist.wasm()).expect("the dist's wasm is readable");
    assert!(
        served.body == built,
        "the page loaded the dist's wasm ({} bytes), got {} bytes",
        built.len(),
        served.body.len()
    );
    let sections = custom_sections(&built);
    assert!(
        !sections.iter().any(|name| name == "name" || name.starts_with(".debug")),
        "an optimised release wasm carries no names or debug info; custom sections: {sections:?}"
    );

    let errors = console.browser.console_errors().await;
    assert!(errors.is_empty(), "console errors at start:\n{}", lines(&errors));
    console.screenshots("start-connect").await;
}

/// A list opened at its address (the key kept for the tab) reads its GPUs-in-use column
/// only once its own content is on screen: the reads' code and requests start after the
/// browser presented a largest contentful paint of the page's content (in `main`), not
/// merely the header's first paint, so that they never compete with that paint.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_lists_gpus_in_use_reads_start_after_its_content_is_painted() {
    let console = Console::start().await;
    console.connect_keeping_key(OWNER_KEY).await;
    console.open("/reservations").await;
    console.browser.wait_for("table.reservations-table .in-use:not([aria-busy])").await;
    console
        .browser
        .script(
            "window.__paints = [];
             new PerformanceObserver((list) => window.__paints.push(...list.getEntries().map((p) => (
               { at: p.renderTime || p.startTime, content: !!p.element?.closest('main') }))))
               .observe({ type: 'largest-contentful-paint', buffered: true });",
        )
        .await;
    let (painted, read) = console
        .browser
        .eventually("the page's largest contentful paints", || async {
            let seen = console
                .browser
                .script(
                    "const reads = performance.getEntriesByType('resource')
                       .filter((r) => r.name.includes('/split_placement_reads-') || r.name.endsWith('/nodes'))
                       .map((r) => r.startTime);
                     const content = window.__paints.filter((p) => p.content).map((p) => p.at);
                     return { content: content.length ? Math.min(...content) : null,
                              read: reads.length ? Math.min(...reads) : null };",
                )
                .await;
            match (seen["content"].as_f64(), seen["read"].as_f64()) {
                (Some(painted), Some(read)) => Ok((painted, read)),
                _ => Err(seen.to_string()),
            }
        })
        .await;
    assert!(
        read >= painted,
        "the first GPUs-in-use read started at {read} ms, before the content's paint at {painted} ms"
    );
}

/// The release build is split: Connect's first load runs the main module alone, the list
/// adds its own chunk and the one that reads its GPUs-in-use column, and a page's code is
/// fetched on its first visit, once, from this same build.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_pages_code_is_fetched_on_its_first_visit_and_not_again() {
    let console = on_connect_with_the_main_module_only().await;
    console.connect(MEMBER_KEY).await;
    console.browser.wait_for("table.fleet-table").await;
    let landed = fetched_wasm(&console).await;
    let overview = landed.iter().any(|url| url.contains("/split_overview-"));
    assert!(overview, "the overview, where Connect lands, is a chunk: {landed:?}");
    let mut shared: Vec<&String> = landed.iter().filter(|url| url.contains(SHARED)).collect();
    assert_eq!(
        shared.len(),
        3,
        "the code pages share arrives in three files: the list's, its after-paint reads' and the rest: {landed:?}"
    );
    shared.dedup();
    assert_eq!(shared.len(), 3, "each file of shared code is fetched once: {landed:?}");
    console.navigate("/reservations").await;
    console.browser.wait_for("table.reservations-table tbody tr").await;
    // The reads start once the table is on screen: their chunk follows the first paint.
    let main: Vec<String> = console
        .browser
        .eventually("the list's GPUs-in-use reads to fetch their code", || async {
            let fetched = fetched_wasm(&console).await;
            if fetched.iter().any(|url| url.contains("/split_placement_reads-")) {
                Ok(fetched)
            } else {
                Err(format!("{fetched:?}"))
            }
        })
        .await;
    let mut listed: Vec<&String> = main.iter().filter(|url| !landed.contains(url)).collect();
    listed.sort_by_key(|url| url.contains("/split_placement_reads-"));
    // The list's shared code came with the overview; the reading of its GPUs-in-use column
    // comes after its table.
    assert!(
        listed.len() == 2 && listed[0].contains("/split_list-") && listed[1].contains("/split_placement_reads-"),
        "the list fetches its own chunk and its placement reads' only: {listed:?}"
    );

    console.navigate("/reservations/12").await;
    console.browser.wait_for("#terms-title").await;
    let after_detail = fetched_wasm(&console).await;
    let chunks: Vec<&String> = after_detail.iter().filter(|url| !main.contains(url)).collect();
    assert!(
        chunks.iter().any(|url| url.contains("/split_detail-")),
        "the detail's own chunk is fetched on its first visit, fetched {chunks:?}"
    );
    let built = console.dist.chunks();
    for url in &chunks {
        let served = http::get(url).await.expect("the simulator serves the chunk");
        assert_eq!(served.header("content-type"), Some("application/wasm"), "GET {url}");
        assert!(
            built.iter().any(|path| std::fs::read(path).is_ok_and(|bytes| bytes == served.body)),
            "{url} is one of the build's chunks"
        );
        let sections = custom_sections(&served.body);
        assert!(
            !sections.iter().any(|name| name == "name" || name.starts_with(".debug")),
            "{url} carries no names or debug info; custom sections: {sections:?}"
        );
    }

    console.navigate("/reservations").await;
    console.navigate("/reservations/12").await;
    console.browser.wait_for("#terms-title").await;
    assert_eq!(fetched_wasm(&console).await, after_detail, "a second visit fetches nothing");
    console.assert_no_console_errors(&[]).await;
}

/// Connect's own load carries no page's code; once the user starts on the form, the code of
/// the page it leads to (the overview, where it lands) is fetched while they fill it in, so
/// that after "Connect" the page waits for its reads, not for its code.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn starting_on_connect_fetches_the_code_of_the_page_it_leads_to() {
    let console = on_connect_with_the_main_module_only().await;
    console.browser.click("#api-key").await;
    let fetched = console
        .browser
        .eventually("the overview's code, with its shared code, to be fetched", || async {
            let fetched = fetched_wasm(&console).await;
            let shared = fetched.iter().filter(|url| url.contains(SHARED)).count();
            if fetched.iter().any(|url| url.contains("/split_overview-")) && shared == 3 {
                Ok(fetched)
            } else {
                Err(format!("{fetched:?}"))
            }
        })
        .await;
    assert_eq!(console.browser.current_path().await, "/", "nothing else happened: {fetched:?}");
    console.assert_no_console_errors(&[]).await;
}

/// A page opened at its address has its code fetched as the chunks' loader starts, before the
/// main module is even instantiated (the page would otherwise ask for it only once the main
/// module runs), and each of its files once: its chunk and the list's file of shared code.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_page_opened_at_its_address_fetches_its_code_beside_the_main_module_once() {
    let console = Console::start().await;
    console.connect_keeping_key(OWNER_KEY).await;
    console
        .browser
        .cdp(
            "Page.addScriptToEvaluateOnNewDocument",
            serde_json::json!({ "source": "const instantiate = WebAssembly.instantiateStreaming;
                WebAssembly.instantiateStreaming = function (...args) {
                  const made = instantiate.apply(this, args);
                  made.then(() => { window.__mainInstantiated ??= performance.now(); });
                  return made;
                };" }),
        )
        .await;
    console.open("/reservations").await;
    console.browser.wait_for("table.reservations-table tbody tr").await;
    let seen = console
        .browser
        .script(
            "const named = (part) => performance.getEntriesByType('resource').filter((e) => e.name.includes(part));
             const main = window.__mainInstantiated ?? null;
             const shared = named('/__wasm_split_shared-');
             return { main,
                      chunk: named('/split_list-').map((e) => e.startTime),
                      shared: shared.map((e) => e.name),
                      beside: shared.filter((e) => e.startTime < main).map((e) => e.name) };",
        )
        .await;
    let chunk: Vec<f64> = seen["chunk"].as_array().unwrap().iter().filter_map(|t| t.as_f64()).collect();
    let main = seen["main"].as_f64().expect("the main module was instantiated");
    assert_eq!(chunk.len(), 1, "the list's chunk is fetched once: {seen}");
    assert!(
        chunk[0] < main,
        "the list's chunk left at {} ms, after the main module was instantiated at {main} ms",
        chunk[0]
    );
    // The list's GPUs-in-use reads fetch their own file once its content is painted, which
    // can be before its rows are (they are drawn a task later): only the list's leaves
    // beside the main module, and no file is fetched twice.
    assert_eq!(
        seen["beside"].as_array().unwrap().len(),
        1,
        "the list needs one file of shared code beside the main module: {seen}"
    );
    let shared: Vec<&str> = seen["shared"].as_array().unwrap().iter().filter_map(|name| name.as_str()).collect();
    let once: std::collections::HashSet<&str> = shared.iter().copied().collect();
    assert_eq!(once.len(), shared.len(), "each file of shared code is fetched once: {seen}");
    console.assert_no_console_errors(&[]).await;
}

/// The code pages share comes in three files: a failed fetch of one is not kept, so the page's
/// Retry fetches it again and the page loads (a kept failure would leave every page but
/// Connect unloadable until the tab is reloaded).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_failed_fetch_of_the_shared_code_is_fetched_again_by_retry() {
    let console = Console::start().await;
    console.open("/").await;
    console.browser.wait_for("#api-key").await;
    let block = |urls: Vec<String>| console.browser.cdp("Network.setBlockedURLs", serde_json::json!({ "urls": urls }));
    console.browser.cdp("Network.enable", serde_json::json!({})).await;
    block(vec![format!("*{SHARED}*")]).await;
    // Connect lands on the overview, a page of its own chunk and of shared code.
    console.connect(MEMBER_KEY).await;
    console.browser.wait_for_text(".error-panel .error-title", "could not be loaded").await;
    block(Vec::new()).await;
    console.browser.click(".error-panel button").await;
    console.browser.wait_for("table.fleet-table").await;
    let fetched = fetched_wasm(&console).await;
    assert!(fetched.iter().any(|url| url.contains(SHARED)), "Retry fetched the shared code: {fetched:?}");
}

/// A 200 that is not the shared code (the server's `index.html` fallback, as after a
/// redeploy removed the file) fails its integrity check and is not kept: once the file is
/// back, Retry fetches it again and the page loads. Kept, the HTML would stand for the
/// shared code until the tab is reloaded.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_200_that_is_not_the_shared_code_is_refused_and_retry_fetches_it_again() {
    let copy = std::env::temp_dir().join(format!("e2e-dist-not-the-shared-code-{}", std::process::id()));
    let dist = Dist::from_env().copied_to(&copy);
    let bundle = std::fs::read_dir(dist.dir())
        .unwrap()
        .filter_map(|entry| entry.ok().map(|e| e.path()))
        .find(|path| {
            // The file itself, not one of its compressed copies (the directory's order is any).
            path.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with(&SHARED[1..]) && n.ends_with(".bin"))
        })
        .expect("the shared code's file in the build");
    let aside = copy.join("shared.aside");
    // Compressed copies go too: the server would answer them for the file.
    let moved: Vec<_> = ["", ".br", ".gz"]
        .iter()
        .map(|ext| {
            (
                std::path::PathBuf::from(format!("{}{ext}", bundle.display())),
                aside.with_extension(format!("aside{ext}")),
            )
        })
        .filter(|(from, _)| from.is_file())
        .collect();
    for (from, to) in &moved {
        std::fs::rename(from, to).unwrap();
    }
    let console = Console::serving(dist, Config::default()).await;
    console.open("/").await;
    console.browser.wait_for("#api-key").await;
    // Connect lands on the overview, a page of its own chunk and of shared code.
    console.connect(MEMBER_KEY).await;
    console.browser.wait_for_text(".error-panel .error-title", "could not be loaded").await;
    for (from, to) in &moved {
        std::fs::rename(to, from).unwrap();
    }
    console.browser.click(".error-panel button").await;
    console.browser.wait_for("table.fleet-table").await;
    let _ = std::fs::remove_dir_all(&copy);
}

/// What crosses the wire (issue 16): the main module arrives brotli-compressed, and a second
/// visit fetches only the page, everything else coming from the cache (hashed names are
/// immutable for a year).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_first_load_arrives_compressed_and_a_second_visit_transfers_only_the_page() {
    let console = Console::start().await;
    console.open("/").await;
    console.browser.wait_for("#connect-title").await;
    let wasm = console
        .browser
        .script(
            "const e = performance.getEntriesByType('resource').find(e => e.name.endsWith('_bg.wasm'));
             return [e.encodedBodySize, e.decodedBodySize]",
        )
        .await;
    let (encoded, decoded) = (wasm[0].as_u64().unwrap(), wasm[1].as_u64().unwrap());
    assert!(encoded * 2 < decoded, "the main module should arrive compressed: {encoded} bytes for {decoded}");
    let first = console.browser.transferred_bytes().await;

    console.open("/").await;
    console.browser.wait_for("#connect-title").await;
    let second = console.browser.transferred_bytes().await;
    println!("first load {first} bytes on the wire, second visit {second} bytes");
    assert!(second < 3_000, "a second visit should fetch only the page, took {second} bytes (first: {first})");
    console.assert_no_console_errors(&[]).await;
}

/// A console opened on Connect, whose first load fetched the main module and no page's code.
async fn on_connect_with_the_main_module_only() -> Console {
    let console = Console::start().await;
    console.open("/").await;
    console.browser.wait_for("#api-key").await;
    let main = fetched_wasm(&console).await;
    assert_eq!(main.len(), 1, "Connect needs the main module only, fetched {main:?}");
    console
}

/// The files of the code that several pages share (xtask/src/split.rs).
const SHARED: &str = "/__wasm_split_shared-";

/// Every `.wasm` this page load has fetched, and the shared code's file, in order.
async fn fetched_wasm(console: &Console) -> Vec<String> {
    let fetched = console
        .browser
        .client()
        .execute(
            "const [shared] = arguments;
             return performance.getEntriesByType('resource').map(e => e.name)
                .filter(n => new URL(n).pathname.endsWith('.wasm') || n.includes(shared))",
            vec![serde_json::Value::from(SHARED)],
        )
        .await
        .expect("resource timing");
    fetched.as_array().into_iter().flatten().filter_map(|v| v.as_str().map(str::to_owned)).collect()
}

/// The names of a wasm module's custom sections (id 0), in order.
fn custom_sections(wasm: &[u8]) -> Vec<String> {
    assert_eq!(wasm.get(..4), Some(&b"\0asm"[..]), "not a wasm module");
    let mut names = Vec::new();
    let mut at = 8;
    while at < wasm.len() {
        let id = wasm[at];
        let (size, body) = leb128(wasm, at + 1);
        if id == 0 {
            let (len, name) = leb128(wasm, body);
            names.push(String::from_utf8_lossy(&wasm[name..name + len]).into_owned());
        }
        at = body + size;
    }
    names
}

/// An unsigned LEB128 at `at`: its value and the offset just after it.
fn leb128(bytes: &[u8], mut at: usize) -> (usize, usize) {
    let mut value = 0usize;
    let mut shift = 0;
    loop {
        let byte = bytes[at];
        at += 1;
        value |= usize::from(byte & 0x7f) << shift;
        if byte & 0x80 == 0 {
            return (value, at);
        }
        shift += 7;
    }
}

fn lines(entries: &[e2e::ConsoleEntry]) -> String {
    entries.iter().map(|e| format!("  {e}\n")).collect()
}
