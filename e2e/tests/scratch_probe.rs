use e2e::{Browser, Viewport};
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn probe() {
    let b = Browser::start().await;
    b.goto("data:text/html,<p id=x>hi</p><script>console.error('boom');console.log('fine')</script>").await;
    println!("{}", b.text("#x").await);
    println!("{:?}", b.console().await);
    println!("{:?}", b.console_errors().await);
    b.set_viewport(Viewport::Narrow).await;
    println!("{}", b.script("return [window.innerWidth, window.innerHeight, window.outerWidth, window.outerHeight]").await);
    b.set_viewport(Viewport::Wide).await;
    println!("{}", b.script("return [window.innerWidth, window.innerHeight, window.outerWidth, window.outerHeight]").await);
    let p = b.screenshot("probe").await;
    println!("{}", p.display());
}
