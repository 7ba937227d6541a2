//! Finding on the Nodes page, end to end: the filters kept in the address (and read back
//! from it), and, on the `huge` scenario's 10,000 nodes, the windowed grid scrolled with the
//! keyboard, a search that finds a cluster spread over many nodes as one workload, and the
//! time a 10,000-node answer takes to decode and to apply, read from the page.

use e2e::{Config, Console, Scenario, MEMBER_KEY, OWNER_KEY};
use fantoccini::key::Key;
use fantoccini::Locator;
use serde_json::{json, Value};

/// The query string the page shows now.
async fn search(console: &Console) -> String {
    console.browser.script("return location.search").await.as_str().unwrap_or_default().to_owned()
}

async fn value_of(console: &Console, css: &str) -> String {
    let element = console.browser.wait_for(css).await;
    element.prop("value").await.ok().flatten().unwrap_or_default()
}

/// Waits until the address's query holds every `part`.
async fn address_holds(console: &Console, parts: &[&str]) -> String {
    console
        .browser
        .eventually(format!("the address to hold {parts:?}"), || async {
            let now = search(console).await;
            if parts.iter().all(|part| now.contains(part)) {
                Ok(now)
            } else {
                Err(now)
            }
        })
        .await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_filters_are_read_from_the_address_written_back_to_it_and_restored_by_back() {
    let console = Console::start().await;
    // "K of 4 nodes" with at least one free GPU must read the same after leaving and coming
    // back: placement holds still meanwhile.
    console.sim.freeze_clock().await;
    console.connect(OWNER_KEY).await;
    // In the order the page writes it (others first, then the filters): an address in
    // another order is rewritten in place once the page is up, which `navigate`, waiting
    // for the address it was given, could then miss.
    console.navigate("/reservations/12/nodes?poll_ms=1000&state=ready&sort=free").await;
    let browser = &console.browser;
    browser.wait_for("article.node-card").await;
    assert_eq!(value_of(&console, "select[name=state]").await, "ready");
    assert_eq!(value_of(&console, "select[name=sort]").await, "free");
    assert_eq!(value_of(&console, "input[name=q]").await, "");

    // Typed filters land in the address, the others (and poll_ms) kept.
    browser.type_into("input[name=free]", "1").await;
    browser.type_into("input[name=q]", "node-").await;
    let query = address_holds(&console, &["free=1", "q=node-", "state=ready", "sort=free", "poll_ms=1000"]).await;
    let shown = browser.text(".node-count").await;
    assert!(shown.ends_with("of 4 nodes") || shown == "4 nodes", "{shown}");

    // Leaving and coming back by history restores them from the address.
    console.navigate("/reservations/12").await;
    browser.wait_for("#terms-title").await;
    browser.script("history.back()").await;
    browser.wait_for_text(".node-count", &shown).await;
    assert_eq!(search(&console).await, query);
    assert_eq!(value_of(&console, "input[name=free]").await, "1");
    assert_eq!(value_of(&console, "input[name=q]").await, "node-");
    assert_eq!(value_of(&console, "select[name=state]").await, "ready");
    assert_eq!(browser.text(".node-count").await, shown);

    // Clearing a filter takes it out of the address.
    browser.type_into("input[name=q]", "").await;
    browser
        .eventually("q= to leave the address", || async {
            let now = search(&console).await;
            if now.contains("q=") {
                Err(now)
            } else {
                Ok(())
            }
        })
        .await;
    console.assert_no_console_errors(&[]).await;
}

/// Long tasks (over 50 ms of the main thread) from the page's start, kept for the test.
/// Also every User Timing measure the page makes (it keeps only the latest of each name).
const WATCH_LONG_TASKS: &str = "window.__longTasks = []; window.__measures = [];
    new PerformanceObserver((list) => { for (const e of list.getEntries()) window.__longTasks.push([e.startTime, e.duration]); })
      .observe({ type: 'longtask', buffered: true });
    new PerformanceObserver((list) => { for (const e of list.getEntries()) window.__measures.push([e.name, e.duration]); })
      .observe({ type: 'measure', buffered: true });";

/// `7340` as the page writes it: `7,340`.
fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, digit) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(digit);
    }
    out
}

const HUGE_NODES_PAGE: &str = "/reservations/20/nodes?poll_ms=2000";

/// Scroll and window of the grid: scrollTop, the first card's and the last card's place,
/// the set size, the cards in the DOM, the page's elements, and what has the focus.
const GRID_STATE: &str = "const s = document.querySelector('.node-scroll');
    const cards = [...document.querySelectorAll('article.node-card')];
    const at = (c) => c ? Number(c.getAttribute('aria-posinset')) : 0;
    return { scroll: s.scrollTop, first: at(cards[0]), last: at(cards[cards.length - 1]),
             size: cards[0] ? Number(cards[0].getAttribute('aria-setsize')) : 0, cards: cards.length,
             elements: document.getElementsByTagName('*').length,
             focused: document.activeElement === s,
             names: cards.map((c) => c.querySelector('.node-name').textContent) };";

async fn grid_state(console: &Console) -> Value {
    console.browser.script(GRID_STATE).await
}

/// The drawn cards whose body does not fit their fixed-height card (it would scroll inside
/// the card, its last lines out of sight), and how many drawn cards gloss their state.
const CARDS_CUT: &str = "const cards = [...document.querySelectorAll('article.node-card')];
    const cut = cards.filter((c) => { const b = c.querySelector('.node-body'); return b.scrollHeight > b.clientHeight + 1; })
      .map((c) => c.querySelector('.node-name').textContent);
    return { cut, glossed: cards.filter((c) => c.querySelector('.node-state-meaning')).length };";

/// Saves `<name>-360.png`, the page at a small phone's width, then goes back to 1280 px.
async fn phone_screenshot(console: &Console, name: &str) {
    let metrics =
        |width: u32, height: u32| json!({ "width": width, "height": height, "deviceScaleFactor": 1, "mobile": false });
    console.browser.cdp("Emulation.setDeviceMetricsOverride", metrics(360, 780)).await;
    console.browser.wait_for("article.node-card").await;
    console.browser.screenshot(&format!("{name}-360")).await;
    console.browser.cdp("Emulation.setDeviceMetricsOverride", metrics(1280, 900)).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ten_thousand_nodes_scroll_by_keyboard_a_cluster_is_found_as_one_and_decoding_is_timed() {
    let console = Console::start_with(Config { scenario: Scenario::Huge, ..Config::default() }).await;
    // The placement stays as read: the cluster looked for below is still there when searched.
    console.sim.freeze_clock().await;
    let browser = &console.browser;
    browser.cdp("Page.addScriptToEvaluateOnNewDocument", json!({ "source": WATCH_LONG_TASKS })).await;
    console.connect(OWNER_KEY).await;
    console.navigate(HUGE_NODES_PAGE).await;
    browser.wait_for_text(".node-count", "10,000 nodes").await;
    browser.wait_for("article.node-card").await;
    let top = grid_state(&console).await;
    assert_eq!((top["first"].as_u64(), top["size"].as_u64()), (Some(1), Some(10_000)), "{top}");
    let cards = top["cards"].as_u64().unwrap_or(0);
    assert!((1..=200).contains(&cards), "only the cards on screen are drawn: {top}");
    let elements = top["elements"].as_u64().unwrap_or(u64::MAX);
    assert!(elements <= 3_000, "{elements} elements on a page of 10,000 nodes");
    println!("nodes10k: {cards} cards and {elements} elements in the DOM");
    assert!(browser.text(".totals-sum").await.starts_with("80,000 GPUs ="), "the totals are of every node");

    // The keyboard scrolls the grid, and the cards scrolled to come in.
    let scroller = browser.wait_for(".node-scroll").await;
    scroller.send_keys(&format!("{}{}", char::from(Key::PageDown), char::from(Key::PageDown))).await.unwrap();
    let paged = browser
        .eventually("Page Down to scroll the grid and bring later cards in", || async {
            let now = grid_state(&console).await;
            if now["scroll"].as_f64() > Some(0.0) && now["first"].as_u64() > Some(1) && now["focused"] == json!(true) {
                Ok(now)
            } else {
                Err(now.to_string())
            }
        })
        .await;
    scroller.send_keys(&char::from(Key::Down).to_string()).await.unwrap();
    browser
        .eventually("the down arrow to scroll further", || async {
            let now = grid_state(&console).await;
            if now["scroll"].as_f64() > paged["scroll"].as_f64() {
                Ok(())
            } else {
                Err(now.to_string())
            }
        })
        .await;
    let end = browser
        .eventually("End to bring the last node in", || async {
            // Pressed again while it has not arrived: a key can land while the page is busy.
            scroller.send_keys(&char::from(Key::End).to_string()).await.map_err(|e| e.to_string())?;
            tokio::time::sleep(std::time::Duration::from_millis(300)).await;
            let now = grid_state(&console).await;
            if now["last"].as_u64() == Some(10_000) {
                Ok(now)
            } else {
                Err(now.to_string())
            }
        })
        .await;
    assert!(end["cards"].as_u64() <= Some(200), "{end}");

    // The page's own timings of the answers it has read (User Timing measures), and its
    // longest tasks.
    let timings = browser
        .eventually("the decode and apply of a 10,000-node answer to be timed", || async {
            let now = browser
                .script(
                    "const last = (n) => { const e = performance.getEntriesByName(n); return e.length ? e[e.length - 1].duration : null; };
                     const all = (n) => window.__measures.filter((m) => m[0] === n).map((m) => Math.round(m[1] * 10) / 10);
                     return { decode: last('nodes-decode'), apply: last('nodes-apply'), decodes: all('nodes-decode'), applies: all('nodes-apply'),
                              longest: Math.max(0, ...window.__longTasks.map((t) => t[1])), polls: Number(document.querySelector('[data-poll-count]').dataset.pollCount) };",
                )
                .await;
            if now["decode"].is_f64() && now["apply"].is_f64() && now["polls"].as_u64() >= Some(3) {
                Ok(now)
            } else {
                Err(now.to_string())
            }
        })
        .await;
    println!(
        "nodes10k: decode {} ms, apply {} ms (latest poll); every decode {}, every apply {} (the first creates the cards' rows); longest task {} ms",
        timings["decode"], timings["apply"], timings["decodes"], timings["applies"], timings["longest"]
    );
    let counted = browser.script("return performance.getEntriesByName('nodes-decode').length").await;
    assert_eq!(counted, json!(1), "one measure kept, however many polls");

    // A cluster spread over many nodes is found as one workload, with its nodes and GPUs.
    const BIGGEST_CLUSTER: &str = "const [key, done] = arguments;
        fetch('/api/gpu-reservations/20/nodes', { headers: { Authorization: 'Bearer ' + key } }).then((r) => r.json()).then((body) => {
          const seen = new Map();
          for (const node of body.nodes) for (const w of node.workloads)
            if (w.kind === 'gpu_cluster') {
              const at = seen.get(w.id) || { id: w.id, name: w.name, nodes: new Set(), gpus: 0 };
              at.nodes.add(node.display_name); at.gpus += w.gpus; seen.set(w.id, at);
            }
          const spread = [...seen.values()].filter((c) => c.nodes.size >= 2).sort((a, b) => a.nodes.size - b.nodes.size);
          const best = spread.find((c) => c.nodes.size >= 4) || spread[spread.length - 1];
          if (!best) return done({ error: 'no cluster on two nodes or more' });
          const matching = body.nodes.filter((n) => n.display_name.includes('#' + best.id)
            || n.workloads.some((w) => w.id === best.id || w.name.toLowerCase().includes('#' + best.id))).length;
          done({ id: best.id, name: best.name, nodes: best.nodes.size, gpus: best.gpus, matching });
        }, (e) => done({ error: String(e) }));";
    // The scenario's cluster is off in some of its epochs: the clock is moved on until it runs.
    let mut cluster = Value::Null;
    for _ in 0..12 {
        cluster = browser.client().execute_async(BIGGEST_CLUSTER, vec![json!(OWNER_KEY)]).await.unwrap();
        if cluster["nodes"].as_u64() >= Some(2) {
            break;
        }
        console.sim.advance_clock(std::time::Duration::from_secs(30)).await;
    }
    let nodes = cluster["nodes"].as_u64().unwrap_or(0);
    assert!(nodes >= 2, "the huge scenario has a cluster across nodes: {cluster}");
    browser.type_into("input[name=q]", &format!("#{}", cluster["id"])).await;
    let found = browser.wait_for_text(".found-workloads li", &format!("on {} nodes", thousands(nodes))).await;
    assert!(found.contains(cluster["name"].as_str().unwrap_or("?")), "{found}");
    assert!(found.contains(&format!("#{}", cluster["id"])), "{found}");
    // Once, however many nodes (another kind's workload may share the id, found beside it).
    let mut hrefs = Vec::new();
    for link in browser.client().find_all(Locator::Css(".found-workloads li a")).await.unwrap() {
        hrefs.push(link.attr("href").await.unwrap().unwrap_or_default());
    }
    let page = format!("/reservations/20/workloads/gpu_cluster/{}", cluster["id"]);
    assert_eq!(hrefs.iter().filter(|h| **h == page).count(), 1, "found once, linked to its page: {hrefs:?}");
    let matching = cluster["matching"].as_u64().unwrap_or(0);
    browser.wait_for_text(".node-count", &format!("showing {} of 10,000 nodes", thousands(matching))).await;
    address_holds(&console, &[&format!("q=%23{}", cluster["id"])]).await;
    console.screenshots("owner-nodes-20-huge-search").await;
    browser.type_into("input[name=q]", "").await;
    browser.wait_for_text(".node-count", "10,000 nodes").await;
    // Cells only, after three polls (the use lines drawn): every card shows all of itself,
    // a preparing (node-8) or maintenance (node-50) node's too.
    let fit = browser.script(CARDS_CUT).await;
    assert!(fit["glossed"].as_u64() >= Some(1), "a preparing or maintenance node is drawn: {fit}");
    assert_eq!(fit["cut"], json!([]), "cards whose body is cut: {fit}");
    console.screenshots("owner-nodes-20-huge").await;
    phone_screenshot(&console, "owner-nodes-20-huge").await;
    console.assert_no_console_errors(&[]).await;

    // A member sees the same grid, without payment figures anywhere.
    console.connect_instead(MEMBER_KEY).await;
    console.navigate(HUGE_NODES_PAGE).await;
    browser.wait_for_text(".node-count", "10,000 nodes").await;
    browser.wait_for("article.node-card").await;
    console.screenshots("member-nodes-20-huge").await;
    phone_screenshot(&console, "member-nodes-20-huge").await;
    console.assert_no_console_errors(&[]).await;
}

/// The owner's API call `method path` to the simulator, answered 2xx: its JSON.
async fn api(console: &Console, method: hyper::Method, path: &str, body: Option<Value>) -> Value {
    let url = format!("{}/api{path}", console.sim.url());
    let auth = format!("Bearer {OWNER_KEY}");
    let answer = e2e::http::send_with(method, &url, body.as_ref(), &[("authorization", &auth)]).await.unwrap();
    assert!((200..300).contains(&answer.status), "{path} answered {}", answer.status);
    answer.json(&url)
}

/// The card hiding the most workloads, scrolled to the middle: how many it lists, whether
/// each listed one and its "+N more" are inside both its scrolling body and the card's
/// border box, the workloads behind it and what the summary says.
const MOST_HIDDEN_CARD: &str = "const hidden = m => m.querySelectorAll('li').length;
     const most = [...document.querySelectorAll('.workloads-more')].reduce((a, b) => hidden(b) > hidden(a) ? b : a);
     const more = most.querySelector(':scope > summary');
     const card = more.closest('.node-card'), body = card.querySelector('.node-body');
     card.scrollIntoView({ block: 'center' });
     const listed = [...body.querySelectorAll(':scope > .node-workloads > li')];
     const bottom = Math.min(body.getBoundingClientRect().bottom, card.getBoundingClientRect().bottom - card.clientTop);
     const shown = e => { const r = e.getBoundingClientRect(); return r.height > 0 && r.bottom <= bottom + 0.5; };
     return { listed: listed.length, all_shown: [...listed, more].every(shown), width: innerWidth,
              more_bottom: more.getBoundingClientRect().bottom, card_bottom: card.getBoundingClientRect().bottom,
              rest: card.querySelectorAll('.workloads-more li').length, more: more.innerText.trim() };";

/// Cards are rows of one height (the windowing counts them in pixels): a node running five
/// workloads lists two and a visible "+3 more" under its use line, at 390 px and on wide
/// screens (1,280 and 1,920 px), which opened shows the other three over the card. One-GPU launches fill
/// reservation 12's nodes in order until one runs five.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_node_running_five_workloads_lists_two_and_a_visible_more_from_390_to_1920_px() {
    let console = Console::start().await;
    console.sim.freeze_clock().await;
    let reservation = api(&console, hyper::Method::GET, "/gpu-reservations/12", None).await;
    let most = || async {
        let nodes = api(&console, hyper::Method::GET, "/gpu-reservations/12/nodes", None).await;
        let counts = nodes["nodes"].as_array().unwrap().iter().map(|n| n["workloads"].as_array().map_or(0, Vec::len));
        counts.max().unwrap_or(0)
    };
    for nth in 0.. {
        if most().await >= 5 {
            break;
        }
        assert!(nth < 40, "forty one-GPU launches put five workloads on no node");
        let launch = json!({ "region_id": reservation["region_id"], "gpu_type": reservation["gpu_type"],
            "gpus": 1, "name": format!("e2e-five-{nth}") });
        api(&console, hyper::Method::POST, "/gpu-instances", Some(launch)).await;
    }
    console.connect(OWNER_KEY).await;
    let browser = &console.browser;
    browser.set_viewport(e2e::Viewport::Narrow).await;
    console.navigate("/reservations/12/nodes").await;
    browser.wait_for_text(".workloads-more > summary", "more").await;
    // After two reads each card also draws its use since the tab opened: the fullest card.
    browser.wait_for(".node-card .node-spark").await;
    // Other nodes may run three or four: the card looked at is the one hiding the most.
    let card = browser.script(MOST_HIDDEN_CARD).await;
    let more = card["more"].as_str().unwrap_or_default().to_owned();
    assert_eq!(card["listed"], 2, "{card}");
    assert_eq!(card["all_shown"], true, "a listed workload or the +N more is cut off: {card}");
    let rest = card["rest"].as_u64().unwrap();
    assert!(rest >= 3 && more == format!("+{rest} more"), "{more} for {rest} more: {card}");
    browser.screenshot("owner-nodes-12-five-workloads-narrow").await;
    for (width, height) in [(1280, 900), (1920, 1080)] {
        let metrics = json!({ "width": width, "height": height, "deviceScaleFactor": 1, "mobile": false });
        browser.cdp("Emulation.setDeviceMetricsOverride", metrics).await;
        let wide = browser
            .eventually(format!("the five-workload card at {width} px"), || async {
                let card = browser.script(MOST_HIDDEN_CARD).await;
                if card["width"] == width {
                    Ok(card)
                } else {
                    Err(card.to_string())
                }
            })
            .await;
        assert_eq!((&wide["listed"], &wide["more"]), (&json!(2), &json!(more)), "{wide}");
        assert_eq!(wide["all_shown"], true, "the +N more is cut at the card's bottom edge at {width} px: {wide}");
        browser.screenshot(&format!("owner-nodes-12-five-workloads-{width}")).await;
    }
    browser.set_viewport(e2e::Viewport::Narrow).await;
    browser.click(".workloads-more > summary").await;
    browser.wait_for_text(".workloads-more[open] > summary", "Back to node-").await;
    browser.screenshot("owner-nodes-12-five-workloads-opened-narrow").await;
    console.assert_no_console_errors(&[]).await;
}
