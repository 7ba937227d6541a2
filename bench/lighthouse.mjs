// Lighthouse (its default: the mobile preset, simulated throttling) on the console's Connect
// page and on its reservations list with a connected session, in Debian's Chromium: <runs>
// consecutive audits of each page, all in one Chromium (issue 32 asks each of five runs to
// pass, since one run alone varies by several points).
//
//   node bench/lighthouse.mjs <node_modules> <console origin> <key> <out dir> <runs>
//
// <node_modules> is where npm installed `lighthouse` (its `puppeteer-core` and
// `chrome-launcher` beside it). Prints one JSON object on stdout: per page, each category's
// score, LCP, TBT and CLS, and every audit of a category that did not pass, one entry per
// run in order; Lighthouse's whole report of each run goes to
// <out dir>/lighthouse-<page>-<run>.json (open it in the Lighthouse viewer for the details).
//
// The reservations list needs the key kept for the tab (sessionStorage), and the Lighthouse
// CLI always audits in a tab of its own, whose sessionStorage is empty. So the session is
// made here, through the page as a person would, in a tab that is then handed to Lighthouse
// with its storage reset off; the HTTP cache is emptied by hand before each run, which that
// reset also did, so each of the list's loads is a first load like Connect's.

import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { connectedTab, launchChrome, tools } from './lighthouse-session.mjs';

const [modules, origin, key, out, runsText] = process.argv.slice(2);
const runs = Number(runsText);
if (!modules || !origin || !key || !out || !(runs >= 1)) {
  console.error('usage: node lighthouse.mjs <node_modules> <console origin> <key> <out dir> <runs>');
  process.exit(2);
}
const { lighthouse, puppeteer, chromeLauncher } = await tools(modules);

const CATEGORIES = ['performance', 'accessibility', 'best-practices', 'seo'];
const FLAGS = { output: 'json', logLevel: 'error', onlyCategories: CATEGORIES };

/** The figures the bench reports, and what to fix; the whole report written beside. */
function summary(name, run, { lhr, report }) {
  writeFileSync(join(out, `lighthouse-${name}-${run}.json`), report);
  const categories = Object.fromEntries(CATEGORIES.map((id) => [id, lhr.categories[id]?.score ?? null]));
  const numeric = (id) => lhr.audits[id]?.numericValue ?? null;
  const failing = [];
  for (const id of CATEGORIES) {
    for (const ref of lhr.categories[id]?.auditRefs ?? []) {
      const audit = lhr.audits[ref.id];
      // Informative and not-applicable audits have a null score; manual ones are not run.
      if (ref.weight > 0 && audit.score !== null && audit.score < 1) {
        failing.push({ category: id, id: ref.id, title: audit.title, score: audit.score, value: audit.displayValue ?? null });
      }
    }
  }
  return {
    name,
    url: lhr.finalDisplayedUrl,
    lighthouse_version: lhr.lighthouseVersion,
    categories,
    lcp_ms: numeric('largest-contentful-paint'),
    tbt_ms: numeric('total-blocking-time'),
    cls: numeric('cumulative-layout-shift'),
    failing,
    warnings: lhr.runWarnings,
  };
}

const chrome = await launchChrome(chromeLauncher);
const pages = [];
let failed = null;
try {
  // Connect: a first visit each time, in a tab of Lighthouse's own with storage and cache reset.
  for (let run = 1; run <= runs; run++) {
    const first = await lighthouse(`${origin}/`, { ...FLAGS, port: chrome.port });
    pages.push(summary('connect', run, first));
  }

  const { browser, page } = await connectedTab(puppeteer, chrome, origin, key);
  const cdp = await page.createCDPSession();
  for (let run = 1; run <= runs; run++) {
    await cdp.send('Network.clearBrowserCache');
    const list = await lighthouse(`${origin}/reservations`, { ...FLAGS, disableStorageReset: true }, undefined, page);
    const result = summary('reservations', run, list);
    // A session lost on the way would audit the Connect page under the list's name.
    const rows = await page.$$eval('table.reservations-table tbody tr', (rows) => rows.length);
    if (new URL(result.url).pathname !== '/reservations' || rows === 0) {
      throw new Error(`run ${run}: the list was not shown connected: ended on ${result.url} with ${rows} rows`);
    }
    pages.push(result);
  }
  await cdp.detach();
  await browser.disconnect();
} catch (error) {
  failed = String(error?.stack ?? error);
} finally {
  await chrome.kill();
}
process.stdout.write(JSON.stringify({ pages, error: failed }) + '\n');
process.exit(failed ? 1 : 0);
