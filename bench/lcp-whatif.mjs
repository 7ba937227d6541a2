// How Lighthouse's simulated LCP of the connected reservations list would move if one of
// its requests were smaller, larger or gone, everything else in the same load unchanged.
//
//   node bench/lcp-whatif.mjs <node_modules> <console origin> <key> <what-if>...
//
// A <what-if> is one or more changes joined by commas, each `<part of a URL>=<bytes>` (the
// transfer size of every request whose URL has that part changed by so many bytes, e.g.
// `_bg.wasm=-16000`) or `<part of a URL>=gone` (those requests taken out, e.g.
// `favicon=gone`).
//
// Lighthouse simulates the network (1.6 Mbps shared evenly by the requests in flight, in
// steps of one 150 ms round trip), so its LCP moves by whole steps and a build's figure
// sits on one side of a step or the other. One audit is run and its artifacts kept
// (Lighthouse's `gatherMode`); then its audit is run again on them (`auditMode`) once as
// they are and once per <what-if>, with the DevTools log it saved edited. Only the
// simulation changes: the page is not loaded again. Prints the LCP of each, in ms.

import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connectedTab, launchChrome, tools } from './lighthouse-session.mjs';

const [modules, origin, key, ...whatIfs] = process.argv.slice(2);
if (!modules || !origin || !key) {
  console.error('usage: node lcp-whatif.mjs <node_modules> <console origin> <key> <url-part>=<bytes>|gone[,…]...');
  process.exit(2);
}
whatIfs.forEach(changes); // a mistyped change fails before the load, not after it
const { lighthouse, puppeteer, chromeLauncher } = await tools(modules);
const FLAGS = { output: 'json', logLevel: 'error', onlyCategories: ['performance'], disableStorageReset: true };

/** `a=-3000,b=gone` → [{ part: 'a', bytes: -3000 }, { part: 'b', gone: true }]. */
function changes(whatIf) {
  return whatIf.split(',').map((change) => {
    const [part, value] = change.split('=');
    if (!part || !(value === 'gone' || Number.isInteger(Number(value)))) {
      throw new Error(`not a change: ${change} (expected <part of a URL>=<bytes> or =gone)`);
    }
    return value === 'gone' ? { part, gone: true } : { part, bytes: Number(value) };
  });
}

/** The DevTools log `log` with `whatIf` applied; fails when a change matches no request. */
function edited(log, whatIf) {
  const urls = new Map();
  for (const event of log) {
    if (event.method === 'Network.requestWillBeSent') urls.set(event.params.requestId, event.params.request.url);
  }
  const matching = (part) => new Set([...urls].filter(([, url]) => url.includes(part)).map(([id]) => id));
  let result = log;
  for (const change of changes(whatIf)) {
    const ids = matching(change.part);
    if (ids.size === 0) throw new Error(`no request of the load has "${change.part}" in its URL`);
    if (change.gone) {
      result = result.filter((event) => !ids.has(event.params?.requestId));
    } else {
      result = result.map((event) =>
        event.method === 'Network.loadingFinished' && ids.has(event.params.requestId)
          ? { ...event, params: { ...event.params, encodedDataLength: event.params.encodedDataLength + change.bytes } }
          : event,
      );
    }
  }
  return result;
}

const work = mkdtempSync(join(tmpdir(), 'lcp-whatif-'));
try {
  const gathered = join(work, 'gathered');
  const chrome = await launchChrome(chromeLauncher);
  try {
    const { browser, page } = await connectedTab(puppeteer, chrome, origin, key);
    const cdp = await page.createCDPSession();
    await cdp.send('Network.clearBrowserCache');
    await lighthouse(`${origin}/reservations`, { ...FLAGS, gatherMode: gathered }, undefined, page);
    await browser.disconnect();
  } finally {
    await chrome.kill();
  }
  const log = JSON.parse(readFileSync(join(gathered, 'devtoolslog.json'), 'utf8'));
  for (const whatIf of ['as loaded', ...whatIfs]) {
    const dir = join(work, 'audit');
    rmSync(dir, { recursive: true, force: true });
    cpSync(gathered, dir, { recursive: true });
    if (whatIf !== 'as loaded') writeFileSync(join(dir, 'devtoolslog.json'), JSON.stringify(edited(log, whatIf)));
    const { lhr } = await lighthouse(undefined, { ...FLAGS, auditMode: dir });
    console.log(`${whatIf}: LCP ${Math.round(lhr.audits['largest-contentful-paint'].numericValue)} ms`);
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}
