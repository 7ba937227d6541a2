// What bench/lighthouse.mjs and bench/lcp-whatif.mjs share: npm's modules loaded from the
// folder the bench installed them in, Chromium launched as Lighthouse's audits want it, and
// a tab connected through the Connect page as a person would.

import { createRequire } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const CHROME_FLAGS = ['--headless=new', '--no-sandbox', '--disable-gpu', '--disable-background-networking'];

/** Lighthouse, puppeteer-core and chrome-launcher from `modules` (npm's `node_modules`). */
export async function tools(modules) {
  const resolve = createRequire(join(modules, 'resolve-from-here.js')).resolve;
  const load = async (name) => import(pathToFileURL(resolve(name)).href);
  return {
    lighthouse: (await load('lighthouse')).default,
    puppeteer: (await load('puppeteer-core')).default,
    chromeLauncher: await load('chrome-launcher'),
  };
}

/** Chromium for the audits: `CHROME_PATH` (the bench sets Debian's) unless the caller named another. */
export function launchChrome(chromeLauncher) {
  return chromeLauncher.launch({ chromePath: process.env.CHROME_PATH, chromeFlags: CHROME_FLAGS });
}

/** A tab of `chrome` connected to the console at `origin` with `key`, "kept for this tab"
 * (the list needs the key in sessionStorage, which a tab of Lighthouse's own would not
 * have); resolves once connected (the console then lands on its overview). */
export async function connectedTab(puppeteer, chrome, origin, key) {
  const browser = await puppeteer.connect({ browserURL: `http://127.0.0.1:${chrome.port}`, defaultViewport: null });
  const page = await browser.newPage();
  await page.goto(`${origin}/`, { waitUntil: 'load' });
  await page.waitForSelector('#api-key');
  await page.type('#api-key', key);
  await page.click('input[name=keep]');
  await page.click('form button[type=submit]');
  await page.waitForFunction(() => location.pathname !== '/', { timeout: 20_000 });
  await page.waitForSelector('header .session .badge', { timeout: 20_000 });
  return { browser, page };
}
