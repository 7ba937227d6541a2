use e2e::{Console, OWNER_KEY};
async fn errs(c: &Console, step: &str) {
    let e = c.browser.console_errors().await;
    eprintln!("after {step}: {} severe; last: {:?}", e.len(), e.last().map(|x| x.message.chars().take(120).collect::<String>()));
}
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn dbg() {
    let console = Console::start().await;
    console.connect(OWNER_KEY).await;
    for (a, b) in [("/reservations/12/nodes", "/reservations/12/launch"), ("/reservations/12/launch", "/reservations/12/nodes"), ("/reservations/12", "/reservations"), ("/reservations/12/nodes", "/reservations/12"), ("/orgs/org_acme", "/reservations")] {
        for _ in 0..3 {
            console.navigate(a).await;
            console.navigate(b).await;
            tokio::time::sleep(std::time::Duration::from_millis(700)).await;
        }
        errs(&console, &format!("{a} -> {b}")).await;
    }
}
