// What every browser test script shares: its arguments, the skip when no chromium is installed,
// a scratch folder, the built flamefold, and a tiny runner whose tests also fail on any network
// request, console error, page error or dialog (browser.js records them).
//   node X.test.js --flamefold build/flamefold --fixtures build/tests/flamefold_tests --tmp DIR
// Exits 77 (ctest: skipped) only when no chromium is installed.
'use strict';
const fs = require('fs');
const path = require('path');
const { execFileSync } = require('child_process');
const { launch, findChromium } = require('./browser');

function setup() {
  try {
    require.resolve('playwright-core');
  } catch (e) {
    console.error('playwright-core is not installed in tests/browser: run scripts/setup.sh --test (it runs npm install there)');
    process.exit(1);
  }
  const args = {};
  for (let i = 2; i < process.argv.length; i += 2) args[process.argv[i].replace(/^--/, '')] = process.argv[i + 1];
  if (!args.flamefold || !args.tmp) {
    console.error('usage: ' + path.basename(process.argv[1]) + ' --flamefold BIN --fixtures FLAMEFOLD_TESTS_BIN --tmp DIR');
    process.exit(2);
  }
  if (!findChromium()) {
    console.log('SKIP: no chromium at /usr/bin/chromium (scripts/setup.sh --test installs it)');
    process.exit(77);
  }
  const tmp = path.resolve(args.tmp, 'browser');
  fs.mkdirSync(tmp, { recursive: true });
  const flamefold = (...a) => execFileSync(args.flamefold, a, { stdio: ['ignore', 'pipe', 'pipe'] }).toString();
  return { args, tmp, flamefold };
}

function assert(cond, msg) { if (!cond) throw new Error(msg); }
function near(a, b, eps, msg) { assert(Math.abs(a - b) <= eps, `${msg}: ${a} is not ${b}`); }

// Launches chromium, runs body({ open, problems, test }) and exits with the outcome.
async function run(body) {
  const results = [];
  const browser = await launch();
  const { problems } = browser;
  const checkClean = (what) => {
    assert(problems.requests.length === 0, what + ': network requests attempted: ' + problems.requests.join(', '));
    assert(problems.console.length === 0, what + ': console errors: ' + problems.console.join(' | '));
    assert(problems.pageErrors.length === 0, what + ': page errors: ' + problems.pageErrors.join(' | '));
    assert(problems.dialogs.length === 0, what + ': dialogs opened: ' + problems.dialogs.join(' | '));
  };
  async function test(name, fn) {
    try {
      await fn();
      checkClean(name);
      results.push(['ok', name]);
      console.log('ok - ' + name);
    } catch (e) {
      results.push(['fail', name, e]);
      console.log('not ok - ' + name + '\n    ' + String(e && e.stack || e).split('\n').join('\n    '));
    }
  }
  await body({ open: browser.open, problems, test });
  await browser.close();
  const failed = results.filter((r) => r[0] !== 'ok');
  console.log(`${results.length - failed.length}/${results.length} browser tests passed`);
  process.exit(failed.length ? 1 : 0);
}

// Page helpers: the viewer's test hooks, a click on a frame, the hover tooltip's text.
const api = (page, expr, arg) => page.evaluate(expr, arg);
async function clickFrame(page, name) {
  const b = await api(page, (n) => window.flamefold.find(n), name);
  assert(b && b.visible, 'frame ' + name + ' is not on the canvas');
  const c = await page.locator('#canvas').boundingBox();
  await page.mouse.click(c.x + b.x + Math.min(b.w / 2, 40), c.y + b.y + b.h / 2);
  return b;
}
async function hoverText(page, box, dx = 3) {
  const c = await page.locator('#canvas').boundingBox();
  await page.mouse.move(c.x + box.x + dx, c.y + box.y + box.h / 2);
  await page.waitForSelector('#tooltip:not([hidden])');
  return page.textContent('#tooltip');
}

module.exports = { setup, run, assert, near, api, clickFrame, hoverText };
