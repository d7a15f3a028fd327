#!/usr/bin/env node
// Opens SVG flame graphs written by flamefold in headless Chromium and uses them: hover, click
// to zoom, reset, regex search with the matched share. Frame names carry markup and script that
// would run if the writer let them through. Fails on any dialog other than the search prompt,
// console error, page error or network request.
//
//   node svg.test.js --flamefold build/flamefold --tmp DIR
'use strict';
const fs = require('fs');
const path = require('path');
const { execFileSync } = require('child_process');

const args = {};
for (let i = 2; i < process.argv.length; i += 2) args[process.argv[i].replace(/^--/, '')] = process.argv[i + 1];
if (!args.flamefold || !args.tmp) {
  console.error('usage: svg.test.js --flamefold BIN --tmp DIR');
  process.exit(2);
}
const chromiumPath = [process.env.FLAMEFOLD_CHROMIUM, '/usr/bin/chromium', '/usr/bin/chromium-browser'].find((p) => p && fs.existsSync(p));
if (!chromiumPath) {
  console.log('SKIP: no chromium at /usr/bin/chromium (scripts/setup.sh --test installs it)');
  process.exit(77);
}
let chromium;
try {
  ({ chromium } = require(require.resolve('playwright-core', { paths: [path.join(__dirname, '..', 'browser')] })));
} catch (e) {
  console.error('playwright-core is not installed in tests/browser: run scripts/setup.sh --test (it runs npm install there)');
  process.exit(1);
}

const tmp = path.resolve(args.tmp, 'svg_browser');
fs.mkdirSync(tmp, { recursive: true });
const HOSTILE = [
  '</script><img src=x onerror=alert(1)>',
  ']]><script>alert(2)</script>',
  '<svg onload="window.__pwned=1"><script>window.__pwned=2</script></svg>',
  '" onmouseover="window.__pwned=3" x="',
];
const folded = [
  'main;parse;alloc 2',
  'main;eval;alloc 3',
  'main;eval 1',
  ...HOSTILE.map((h, i) => `main;${h};leaf${i} ${4 + i}`),
].join('\n') + '\n';
const input = path.join(tmp, 'in.folded');
fs.writeFileSync(input, folded);
const total = 2 + 3 + 1 + HOSTILE.reduce((s, _, i) => s + 4 + i, 0);

let failures = 0;
function check(ok, what) {
  if (!ok) { failures++; console.log('FAIL: ' + what); } else console.log('ok: ' + what);
}

(async () => {
  const browser = await chromium.launch({ executablePath: chromiumPath, headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'] });
  try {
    for (const inverted of [false, true]) {
      const svg = path.join(tmp, inverted ? 'icicle.svg' : 'flame.svg');
      execFileSync(args.flamefold, ['flamegraph', input, '-o', svg, ...(inverted ? ['--inverted'] : [])], { stdio: 'pipe' });
      const page = await browser.newPage({ viewport: { width: 1280, height: 400 } });
      const problems = [];
      let prompts = 0;
      let answer = '^alloc$';
      page.on('console', (m) => { if (m.type() === 'error') problems.push('console: ' + m.text()); });
      page.on('pageerror', (e) => problems.push('page error: ' + e));
      page.on('request', (r) => { if (!r.url().startsWith('file://' + svg)) problems.push('request: ' + r.url()); });
      page.on('dialog', async (d) => {
        if (d.type() === 'prompt') { prompts++; await d.accept(answer); return; }
        problems.push('dialog: ' + d.type() + ' ' + d.message());
        await d.dismiss();
      });
      const label = inverted ? '[icicle] ' : '[flame] ';
      await page.goto('file://' + svg);
      await page.waitForFunction(() => window.fg && window.fg.list && window.fg.list.length > 0);
      const info = await page.evaluate(() => ({
        frames: fg.list.length,
        groups: document.getElementById('frames').children.length,
        root: fg.list.find((f) => f.name === 'all').w,
        names: fg.list.map((f) => f.name),
        imgs: document.getElementsByTagName('img').length,
        scripts: document.getElementsByTagName('script').length,
        pwned: window.__pwned || 0,
      }));
      check(info.frames === 14 && info.groups === 14, label + 'one <g> per frame (all, main, parse, eval, 2 alloc, 4 hostile, 4 leaves): ' + info.frames);
      check(Math.abs(info.root - 1180) < 0.01, label + 'root spans the width');
      check(info.imgs === 0 && info.scripts === 1 && info.pwned === 0, label + 'names did not become markup or script');
      check(HOSTILE.every((h) => info.names.includes(h)), label + 'every hostile name is shown as text');

      // Hover shows the details line.
      const box = async (name) => page.evaluate((n) => {
        const r = fg.list.find((f) => f.name === n).rect.getBoundingClientRect();
        return { x: r.x + 3, y: r.y + r.height / 2 };
      }, name);
      let b = await box('eval');
      await page.mouse.move(b.x, b.y);
      const details = await page.evaluate(() => document.getElementById('details').textContent);
      check(details === 'Function: eval (4 samples, ' + (400 / total).toFixed(2) + '%)', label + 'details on hover: ' + details);
      b = await box(HOSTILE[3]);
      await page.mouse.move(b.x, b.y);
      check(await page.evaluate(() => (window.__pwned || 0) === 0), label + 'hovering a hostile frame runs nothing');

      // Click to zoom on eval: it fills the width, its ancestors are dimmed, its siblings hidden.
      b = await box('eval');
      await page.mouse.click(b.x, b.y);
      const z = await page.evaluate(() => {
        const get = (n) => fg.list.filter((f) => f.name === n);
        const st = (f) => (f.g.classList.contains('hide') ? 'hide' : f.g.classList.contains('parent') ? 'parent' : 'shown');
        return {
          eval: +get('eval')[0].rect.getAttribute('width'),
          main: st(get('main')[0]),
          parse: st(get('parse')[0]),
          allocs: get('alloc').map((f) => [st(f), +f.rect.getAttribute('width')]),
          unzoom: !fg.unzoom.classList.contains('hide'),
        };
      });
      check(Math.abs(z.eval - 1180) < 0.01, label + 'zoomed frame fills the width');
      check(z.main === 'parent' && z.parse === 'hide', label + 'ancestor dimmed, sibling hidden');
      // alloc under parse keeps its width but is hidden; alloc under eval is 3/4 of the width.
      check(z.allocs.length === 2 && z.allocs.some(([st, w]) => st === 'hide' && Math.abs(w - 1180 * 2 / total) < 0.02) &&
            z.allocs.some(([st, w]) => st === 'shown' && Math.abs(w - 885) < 0.2), label + 'child scaled (3 of eval\'s 4 samples): ' + JSON.stringify(z.allocs));
      check(z.unzoom, label + '"Reset Zoom" appears');
      await page.click('#unzoom');
      const unzoomed = await page.evaluate(() => ({
        hidden: fg.list.filter((f) => f.g.classList.contains('hide')).length,
        eval: +fg.list.find((f) => f.name === 'eval').rect.getAttribute('width'),
        button: fg.unzoom.classList.contains('hide'),
      }));
      check(unzoomed.hidden === 0 && Math.abs(unzoomed.eval - 1180 * 4 / total) < 0.011 && unzoomed.button, label + 'reset zoom restores every frame');

      // Search: both alloc frames match, 5 of the samples.
      await page.click('#search', { force: true });
      await page.waitForFunction(() => fg.term !== null);
      const s = await page.evaluate(() => ({
        matched: document.getElementById('matched').textContent,
        painted: fg.list.filter((f) => f.rect.getAttribute('fill') === fg.searchcolor).map((f) => f.name),
        button: fg.search.textContent,
      }));
      check(prompts === 1, label + 'search asks for a term');
      check(s.matched === 'Matched: ' + (500 / total).toFixed(1) + '%', label + 'matched share: ' + s.matched);
      check(s.painted.length === 2 && s.painted.every((n) => n === 'alloc'), label + 'matches highlighted');
      check(s.button === 'Reset Search', label + 'search button offers a reset');
      await page.click('#search', { force: true });  // reset
      const reset = await page.evaluate(() => ({ painted: fg.list.filter((f) => f.rect.getAttribute('fill') === fg.searchcolor).length, matched: document.getElementById('matched').textContent }));
      check(reset.painted === 0 && reset.matched === ' ', label + 'reset search restores colours');
      // A regex over a hostile name and a nested match (main contains everything: 100%).
      answer = 'onerror|^main$';
      await page.click('#search', { force: true });
      await page.waitForFunction(() => fg.term !== null);
      check(await page.evaluate(() => document.getElementById('matched').textContent) === 'Matched: 100%', label + 'nested matches counted once');
      answer = '([';  // invalid regex: a message, no exception
      await page.click('#search', { force: true });  // reset
      await page.click('#search', { force: true });
      await page.waitForTimeout(100);
      check((await page.evaluate(() => document.getElementById('matched').textContent)).startsWith('Bad regex'), label + 'invalid regex reported');

      await page.screenshot({ path: path.join(tmp, inverted ? 'icicle.png' : 'flame.png') });
      check(problems.length === 0, label + 'no console errors, page errors, dialogs or requests: ' + JSON.stringify(problems));
      await page.close();
    }
  } finally {
    await browser.close();
  }
  console.log(failures ? `${failures} check(s) failed` : 'all SVG browser checks passed');
  process.exit(failures ? 1 : 0);
})().catch((e) => {
  console.error(e);
  process.exit(1);
});
