// The benchmark's instruments, installed before any page script runs (CDP
// `Page.addScriptToEvaluateOnNewDocument`), the same for the console and the baseline.
// The driver calls this function with `WATCHES`, `[{origin, path, name, selector, count}]`:
// each watch records the mutation batch in which `count` elements first match `selector`
// on a page whose origin and path (a RegExp source) match; a watch with `each` and
// `eachCount` instead waits for at least one element matching `selector`, each holding
// `eachCount` elements matching `each` (a windowed grid: every card drawn has its cells).
(WATCHES) => {
  /** Mutation batches kept at most; the long run switches the observer off. */
  const MAX_BATCHES = 20000;
  /** `/nodes` responses kept: only the latest few are ever asked for. */
  const MAX_RESPONSES = 64;

  const bench = {
    /** `{t, records, paint}` per MutationObserver callback, in order. */
    batches: [],
    /** Watch name → the batch in which it was first met. */
    first: {},
    /** `{start, end}` (fetchStart, responseEnd) of the latest `/nodes` responses. */
    nodes: [],
    /** The console's wasm memory, once trunk's loader reports it started. */
    memory: null,
    observe(on) {
      if (on) observer.observe(document, { subtree: true, childList: true, attributes: true, characterData: true });
      else observer.disconnect();
    },
    /** Bytes of wasm linear memory, or null on a page without wasm. */
    wasmBytes() {
      return bench.memory ? bench.memory.buffer.byteLength : null;
    },
  };

  // Every batch gets the time of the first frame after it: rAF runs before the frame is
  // painted, the task it posts runs after.
  let unpainted = [];
  function stampPaint(batch) {
    unpainted.push(batch);
    if (unpainted.length > 1) return;
    requestAnimationFrame(() =>
      setTimeout(() => {
        const now = performance.now();
        for (const waiting of unpainted) waiting.paint = now;
        unpainted = [];
      }),
    );
  }

  function unmet() {
    return WATCHES.filter(
      (w) => w.origin === location.origin && new RegExp(w.path).test(location.pathname) && !(w.name in bench.first),
    );
  }

  function met(watch) {
    const found = document.querySelectorAll(watch.selector);
    if (!watch.each) return found.length >= watch.count;
    return found.length > 0 && [...found].every((e) => e.querySelectorAll(watch.each).length >= watch.eachCount);
  }

  // The poll counter is the benchmark's own hook, not a change the page makes for users: it
  // is counted as no record, but its batch is kept, as the end of a poll's work (both pages
  // set it once the answer is applied), so that a poll that changes nothing on screen (a
  // windowed grid whose changed nodes are off screen) still has a settled time.
  const observer = new MutationObserver((records) => {
    const t = performance.now();
    let count = 0;
    let polled = false;
    for (const record of records) {
      if (record.attributeName === "data-poll-count") polled = true;
      else count += 1;
    }
    if (count === 0 && !polled) return;
    const batch = { t, records: count, paint: null };
    if (bench.batches.length < MAX_BATCHES) bench.batches.push(batch);
    stampPaint(batch);
    for (const watch of unmet()) {
      if (met(watch)) bench.first[watch.name] = batch;
    }
  });
  bench.observe(true);

  new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      if (!new URL(entry.name).pathname.endsWith("/nodes")) continue;
      bench.nodes.push({ start: entry.fetchStart, end: entry.responseEnd });
      if (bench.nodes.length > MAX_RESPONSES) bench.nodes.shift();
    }
  }).observe({ type: "resource", buffered: true });

  addEventListener("TrunkApplicationStarted", (event) => (bench.memory = event.detail.wasm.memory));
  window.__bench = bench;
}
