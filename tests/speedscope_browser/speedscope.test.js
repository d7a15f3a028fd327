#!/usr/bin/env node
// The real speedscope app as an external reader of flamefold's .speedscope.json: the built app
// of the npm package `speedscope` (node_modules here, installed by scripts/setup.sh --test) opens
// offline from its own index.html in headless Chromium and loads each file the way its command
// line does (#localProfilePath= a script calling speedscope.loadFileFromBase64). A test fails on
// any dialog (speedscope alerts when an import fails), page error, console error or request
// leaving the app's folder. The totals speedscope shows must be flamefold's: the Sandwich
// table's Total and Self of known frames, and speedscope's own Export of every profile (its
// endValue is the profile's total weight), which flamefold then reads back.
//
//   node speedscope.test.js --flamefold build/flamefold --tmp DIR
// Exits 77 (skipped) only when no chromium is installed.
'use strict';
const fs = require('fs');
const path = require('path');
const { execFileSync } = require('child_process');

const args = {};
for (let i = 2; i < process.argv.length; i += 2) args[process.argv[i].replace(/^--/, '')] = process.argv[i + 1];
if (!args.flamefold || !args.tmp) {
  console.error('usage: speedscope.test.js --flamefold BIN --tmp DIR');
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
const dist = path.join(__dirname, 'node_modules', 'speedscope', 'dist', 'release');
if (!fs.existsSync(path.join(dist, 'index.html'))) {
  console.error('the speedscope package is not installed in tests/speedscope_browser: run scripts/setup.sh --test');
  process.exit(1);
}

const tmp = path.resolve(args.tmp, 'speedscope_browser');
fs.mkdirSync(tmp, { recursive: true });
const flamefold = (...a) => execFileSync(args.flamefold, a, { stdio: ['ignore', 'pipe', 'pipe'] }).toString();

let failures = 0;
function check(ok, what) {
  if (!ok) { failures++; console.log('not ok - ' + what); } else console.log('ok - ' + what);
}

// A folded file with counts small enough for speedscope's raw number formatter, frames with a
// source location (CPython's file:function:line), and names that are hostile in JSON and HTML.
const HOSTILE = ['quote"back\\slash', '</script><img src=x onerror=alert(1)>', 'tab\there', 'ünïcødé ✓'];
const folded = [
  'main;parse;alloc 2',
  'main;eval;alloc 3',
  'main;eval 1',
  'app.py:run:12;app.py:step:40 7',
  ...HOSTILE.map((h, i) => `main;${h} ${4 + i}`),
].join('\n') + '\n';

// A PyTorch-profiler-like trace: two threads, nested ops, a launch and its kernel, so the file
// has four weights (cpu, calls, gpu, kernels) and several profiles.
const trace = {
  traceEvents: [
    { ph: 'M', name: 'process_name', pid: 7, tid: 0, args: { name: 'python' } },
    { ph: 'M', name: 'thread_name', pid: 7, tid: 7, args: { name: 'MainThread' } },
    { ph: 'M', name: 'thread_name', pid: 7, tid: 8, args: { name: 'worker' } },
    { ph: 'X', cat: 'cpu_op', name: 'forward', pid: 7, tid: 7, ts: 1000, dur: 500 },
    { ph: 'X', cat: 'cpu_op', name: 'aten::mm', pid: 7, tid: 7, ts: 1100, dur: 200 },
    { ph: 'X', cat: 'cuda_runtime', name: 'cudaLaunchKernel', pid: 7, tid: 7, ts: 1150, dur: 20, args: { correlation: 5 } },
    { ph: 'X', cat: 'kernel', name: 'gemm_kernel', pid: 0, tid: 3, ts: 1200, dur: 300, args: { correlation: 5 } },
    { ph: 'X', cat: 'cpu_op', name: 'backward', pid: 7, tid: 8, ts: 2000, dur: 250 },
    { ph: 'X', cat: 'cpu_op', name: 'aten::add', pid: 7, tid: 8, ts: 2010, dur: 40 },
  ],
};

function write(name, text) {
  const p = path.join(tmp, name);
  fs.writeFileSync(p, text);
  return p;
}

(async () => {
  const browser = await chromium.launch({ executablePath: chromiumPath, headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'] });
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, acceptDownloads: true });
  const problems = [];
  const allowed = (url) => url.startsWith('file://' + dist + '/') || url.startsWith('file://' + tmp + '/') ||
    url.startsWith('blob:') || url.startsWith('data:');
  await context.route('**/*', (route) => {
    const url = route.request().url();
    if (allowed(url)) return route.continue();
    problems.push('request ' + url);
    return route.abort();
  });

  // Opens a file in speedscope; returns the page once the import is done.
  async function open(file) {
    const loader = write(path.basename(file) + '.load.js',
      `speedscope.loadFileFromBase64(${JSON.stringify(path.basename(file))}, ${JSON.stringify(fs.readFileSync(file).toString('base64'))})`);
    const page = await context.newPage();
    page.on('console', (m) => { if (m.type() === 'error') problems.push('console ' + m.text()); });
    page.on('pageerror', (e) => problems.push('pageerror ' + String(e)));
    page.on('dialog', (d) => { problems.push('dialog ' + d.message()); d.dismiss().catch(() => {}); });
    await page.goto('file://' + path.join(dist, 'index.html') + '#localProfilePath=' + loader);
    await page.waitForFunction(() => /Sandwich/.test(document.body.innerText) && !/Drag and drop/.test(document.body.innerText),
      null, { timeout: 60000 });
    return page;
  }
  // speedscope's own Export: its model of the file, one evented profile per profile.
  async function exported(page, name) {
    const [dl] = await Promise.all([page.waitForEvent('download'), page.click('text=Export')]);
    const out = path.join(tmp, name);
    await dl.saveAs(out);
    return out;
  }
  // The Sandwich table: symbol name -> [total, self] as shown.
  async function sandwich(page) {
    await page.click('text=Sandwich');
    await page.waitForFunction(() => /Symbol Name/.test(document.body.innerText));
    const text = await page.evaluate(() => document.body.innerText);
    const lines = text.split('\n').map((l) => l.trim()).filter((l) => l);
    const rows = {};
    for (let i = lines.indexOf('Total\tSelf\tSymbol Name') + 1, j = 0; i + 2 < lines.length && j < 500; i += 3, j++)
      rows[lines[i + 2]] = [lines[i], lines[i + 1]];  // innerText: runs of white space as one space
    return rows;
  }
  const ours = (file) => JSON.parse(fs.readFileSync(file, 'utf8'));
  const sum = (a) => a.reduce((s, x) => s + x, 0);

  try {
    // ---- folded stacks: one profile, counts shown as they are ----
    {
      const input = write('hostile.folded', folded);
      const out = path.join(tmp, 'hostile.speedscope.json');
      flamefold('convert', input, '-o', out);
      const mine = ours(out);
      const total = sum(mine.profiles[0].weights);
      check(total === 2 + 3 + 1 + 7 + HOSTILE.reduce((s, _, i) => s + 4 + i, 0), 'folded: the file holds every sample');
      const page = await open(out);
      check(problems.length === 0, 'folded: speedscope opens the file without a dialog or error ' + problems.join(' | '));
      const rows = await sandwich(page);
      check(rows.main && rows.main[0].startsWith(String(2 + 3 + 1 + HOSTILE.reduce((s, _, i) => s + 4 + i, 0)) + ' '),
        'folded: Sandwich shows main\'s total ' + JSON.stringify(rows.main));
      check(rows.alloc && rows.alloc[0].startsWith('5 ') && rows.alloc[1].startsWith('5 '), 'folded: alloc total and self 5 ' + JSON.stringify(rows.alloc));
      check(rows.eval && rows.eval[0].startsWith('4 ') && rows.eval[1].startsWith('1 '), 'folded: eval total 4, self 1 ' + JSON.stringify(rows.eval));
      const step = rows['app.py:step:40'];
      check(step && step[0].startsWith('7 ') && step[1].startsWith('7 '), 'folded: CPython-style frames keep their names ' + JSON.stringify(step));
      HOSTILE.forEach((h, i) => check(rows[h.replace(/\s+/g, ' ')] && rows[h.replace(/\s+/g, ' ')][0].startsWith(String(4 + i) + ' '), 'folded: hostile name shown as is: ' + JSON.stringify(h)));
      check(await page.evaluate(() => !document.querySelector('img[src=x]')), 'folded: no markup from frame names');
      const back = ours(await exported(page, 'hostile.export.json'));
      check(back.profiles.length === 1 && back.profiles[0].endValue === total, 'folded: speedscope\'s export has the same total ' + back.profiles[0].endValue);
      const info = flamefold('info', path.join(tmp, 'hostile.export.json'));
      check(new RegExp('weight samples \\(default\\): ' + total + ' samples').test(info), 'folded: flamefold reads speedscope\'s export back with the same total');
      await page.close();
    }
    // ---- a trace: one profile per thread and weight, and each thread and stream in time order ----
    {
      const input = write('trace.json', JSON.stringify(trace));
      const out = path.join(tmp, 'trace.speedscope.json');
      flamefold('convert', input, '-o', out);
      const mine = ours(out);
      const sampled = mine.profiles.filter((p) => p.type === 'sampled');
      const evented = mine.profiles.filter((p) => p.type === 'evented');
      const weights = [...new Set(sampled.map((p) => p.flamefold.weight))];
      check(JSON.stringify(weights) === '["cpu","calls","gpu","kernels"]', 'trace: every weight is written, the default first ' + weights);
      const info = flamefold('info', input);
      for (const w of weights) {
        const m = new RegExp('weight ' + w + '(?: \\(default\\))?: (\\d+)').exec(info);
        const written = sum(sampled.filter((p) => p.flamefold.weight === w).map((p) => sum(p.weights)));
        check(m && Number(m[1]) === written, `trace: ${w} totals ${written} as flamefold reads the trace`);
      }
      const page = await open(out);
      check(problems.length === 0, 'trace: speedscope opens the file without a dialog or error ' + problems.join(' | '));
      const back = ours(await exported(page, 'trace.export.json'));
      check(back.profiles.length === mine.profiles.length, `trace: speedscope has all ${mine.profiles.length} profiles`);
      sampled.forEach((p, i) => {
        const b = back.profiles[i];
        check(b && b.name === p.name && b.endValue === sum(p.weights) && b.unit === p.unit,
          `trace: profile ${i} (${p.name}): speedscope's total ${b && b.endValue} ${b && b.unit} = ${sum(p.weights)} ${p.unit}`);
      });
      // Time order: MainThread, worker and the GPU stream, as the trace has them (ns from the first event).
      check(evented.length === 3, 'trace: three time-ordered profiles (two threads, one stream): ' + evented.map((p) => p.name));
      const named = (file, p) => p.events.map((e) => e.type + ' ' + file.shared.frames[e.frame].name + ' ' + (e.at - p.startValue)).join(', ');
      const main = evented.find((p) => p.name.includes('MainThread'));
      check(main && named(mine, main) === 'O forward 0, O aten::mm 100000, O cudaLaunchKernel 150000, C cudaLaunchKernel 170000, ' +
        'C aten::mm 300000, C forward 500000', 'trace: MainThread\'s events nest in time order: ' + (main && named(mine, main)));
      const stream = evented.find((p) => /stream/.test(p.name));
      check(stream && stream.startValue === 200000 && named(mine, stream) === 'O gemm_kernel 0, C gemm_kernel 300000', 'trace: the kernel in its stream ' + (stream && named(mine, stream)));
      evented.forEach((p, k) => {
        const b = back.profiles[sampled.length + k];
        check(b && b.name === p.name && named(back, b) === named(mine, p),
          `trace: speedscope reads ${p.name}'s events as written: ${b && named(back, b)}`);
      });
      check(flamefold('collapse', out) === flamefold('collapse', input), 'trace: flamefold reads its file back to the same stacks (time order left out)');
      // The first profile shown is the heaviest of the default weight (MainThread's cpu).
      const title = (await page.evaluate(() => document.body.innerText)).split('\n')[1] || '';
      check(title.includes('MainThread') && title.includes('[cpu]') && title.includes('(2/' + mine.profiles.length + ')'), 'trace: the heaviest thread\'s cpu opens first: ' + title);
      await page.close();
    }
  } catch (e) {
    failures++;
    console.log('not ok - ' + String(e && e.stack || e));
  }
  await browser.close();
  console.log(failures ? `${failures} checks failed` : 'all checks passed');
  process.exit(failures ? 1 : 0);
})();
