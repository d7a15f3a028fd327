// Headless Debian chromium driven by playwright-core, with the guards every browser test
// wants: no network at all (any attempted request is recorded and aborted), and every console
// error, page error or dialog recorded so the test can fail on it.
'use strict';
const fs = require('fs');
const os = require('os');
const path = require('path');

const CHROMIUM_CANDIDATES = [process.env.FLAMEFOLD_CHROMIUM, '/usr/bin/chromium', '/usr/bin/chromium-browser'];

function findChromium() {
  for (const p of CHROMIUM_CANDIDATES) if (p && fs.existsSync(p)) return p;
  return null;
}

async function launch() {
  const executablePath = findChromium();
  if (!executablePath) return null;
  const { chromium } = require('playwright-core');
  const userDataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'flamefold-chromium-'));
  const context = await chromium.launchPersistentContext(userDataDir, {
    executablePath,
    headless: true,
    viewport: { width: 1280, height: 900 },
    colorScheme: 'light',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync',
      '--disable-default-apps', '--disable-extensions'],
  });
  const problems = { requests: [], console: [], pageErrors: [], dialogs: [] };
  const allowed = new Set();
  await context.route('**/*', (route) => {
    const url = route.request().url();
    if (allowed.has(url)) return route.continue();
    problems.requests.push(url);
    return route.abort();
  });
  context.on('request', (req) => {
    const url = req.url();
    if (!allowed.has(url) && !url.startsWith('data:') && !url.startsWith('blob:')) problems.requests.push(url);
  });
  const close = async () => {
    await context.close();
    fs.rmSync(userDataDir, { recursive: true, force: true });
  };
  // Opens an HTML file and waits until the viewer says it is ready.
  // `fragment` ('#view=...') is appended to the file's URL, as a shared link would carry it.
  async function open(file, fragment = '') {
    const url = 'file://' + path.resolve(file);
    allowed.add(url);
    const page = await context.newPage();
    page.on('console', (msg) => { if (msg.type() === 'error') problems.console.push(msg.text()); });
    page.on('pageerror', (err) => problems.pageErrors.push(String(err)));
    page.on('dialog', (d) => { problems.dialogs.push(d.type() + ': ' + d.message()); d.dismiss().catch(() => {}); });
    // An uncaught error while the page starts ends the wait at once, not after the timeout.
    const failed = new Promise((resolve, reject) => page.once('pageerror', (err) => reject(new Error('viewer failed while starting: ' + err))));
    failed.catch(() => {});
    await page.goto(url + fragment);
    await Promise.race([page.waitForFunction(() => document.documentElement.dataset.ready, null, { timeout: 60000 }), failed]);
    const state = await page.evaluate(() => document.documentElement.dataset.ready);
    if (state !== 'true') throw new Error('viewer failed: ' + await page.evaluate(() => window.flamefold && window.flamefold.error));
    return page;
  }
  return { context, open, close, problems, executablePath };
}

module.exports = { launch, findChromium };
