#!/usr/bin/env node
// The flame chart view (web/viewer/56-timeline.js) of HTML files written by the built flamefold
// from a small generated PyTorch profiler (Kineto) trace, in headless Chromium: kernels drawn
// under their launch's time, hover links between a kernel and its launch, pan and zoom, the busy
// strip's range selection weighing the flame graph (checked against totals computed here from
// the trace), both-way links with the flame graph, the URL fragment, the bounded chart, and the
// view left out for sampled inputs. Fails on any network request, console error, page error or
// dialog.
//
//   node timeline.test.js --flamefold build/flamefold --fixtures build/tests/flamefold_tests --tmp DIR
// Exits 77 (ctest: skipped) only when no chromium is installed.
'use strict';
const fs = require('fs');
const path = require('path');
const { setup, run, assert, near, api } = require('./harness');

const { tmp, flamefold } = setup();

// ------------------------------------------------------------------ the trace
// Four steps on the main thread: a Python function around aten::mm and aten::relu, each
// launching a kernel on stream 7, and a memcpy; the GPU idles between steps. A data-loader thread
// works during the steps. Times in µs (integers: exact in ns). A hostile thread name.
const STEP_US = 1000, GAP_US = 400;
const HOSTILE = '</script><img src=x onerror=alert(1)>';
function makeTrace(steps) {
  const ev = [
    { name: 'process_name', ph: 'M', ts: 0, pid: 100, tid: 0, args: { name: 'python3' } },
    { name: 'thread_name', ph: 'M', ts: 0, pid: 100, tid: 100, args: { name: 'main thread' } },
    { name: 'thread_name', ph: 'M', ts: 0, pid: 100, tid: 101, args: { name: HOSTILE } },
  ];
  const X = (cat, name, pid, tid, ts, dur, args = {}) => ev.push({ ph: 'X', cat, name, pid, tid, ts, dur, args });
  let corr = 1;
  for (let k = 0; k < steps; k++) {
    const b = 10000 + k * (STEP_US + GAP_US);
    X('user_annotation', 'ProfilerStep#' + (k + 1), 100, 100, b, STEP_US);
    X('python_function', 'train.py(10): step', 100, 100, b + 10, 900);
    X('cpu_op', 'aten::mm', 100, 100, b + 50, 200);
    X('cuda_runtime', 'cudaLaunchKernel', 100, 100, b + 60, 8, { correlation: corr });
    X('kernel', 'sgemm_128x64', 0, 7, b + 120, 300 + 10 * k, { device: 0, stream: 7, correlation: corr++ });
    X('cpu_op', 'aten::relu', 100, 100, b + 300, 100);
    X('cuda_runtime', 'cudaLaunchKernel', 100, 100, b + 310, 6, { correlation: corr });
    X('kernel', 'relu_kernel', 0, 7, b + 450, 80, { device: 0, stream: 7, correlation: corr++ });
    X('cuda_runtime', 'cudaMemcpyAsync', 100, 100, b + 600, 20, { correlation: corr });
    X('gpu_memcpy', 'Memcpy DtoH (Device -> Pinned)', 0, 7, b + 650, 50, { device: 0, stream: 7, correlation: corr++ });
    X('python_function', 'loader.py(5): next', 100, 101, b + 100, 500);
    X('cpu_op', 'aten::copy_', 100, 101, b + 200, 150);
  }
  return ev;
}

function write(name, text) { const f = path.join(tmp, name); fs.writeFileSync(f, text); return f; }
function html(name, input, ...extra) {
  const out = path.join(tmp, name + '.html');
  flamefold('flamegraph', input, '-o', out, '--title', name, ...extra);
  return out;
}

// ns busy inside [a, b) (absolute ns): per thread the union of its events, and device time.
function expectedInRange(events, a, b) {
  const byThread = new Map();
  let device = 0;
  for (const e of events) {
    if (e.ph !== 'X') continue;
    const s = e.ts * 1000, t = (e.ts + e.dur) * 1000;
    const o = Math.max(0, Math.min(t, b) - Math.max(s, a));
    if (['kernel', 'gpu_memcpy'].includes(e.cat)) { device += o; continue; }
    const key = e.tid;
    if (!byThread.has(key)) byThread.set(key, []);
    byThread.get(key).push([Math.max(s, a), Math.min(t, b)]);
  }
  let host = 0;
  for (const list of byThread.values()) {
    list.sort((x, y) => x[0] - y[0]);
    let cs = -Infinity, ce = -Infinity;
    for (const [s, t] of list) {
      if (t <= s) continue;
      if (s > ce) { if (ce > cs) host += ce - cs; cs = s; ce = t; } else ce = Math.max(ce, t);
    }
    if (ce > cs) host += ce - cs;
  }
  return { host, device };
}

const rgb = (hex) => [1, 3, 5].map((k) => parseInt(hex.slice(k, k + 2), 16));
const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);

async function main({ open, test }) {
  const events = makeTrace(4);
  const trace = write('timeline-trace.json', JSON.stringify({ traceEvents: events }));
  const file = html('timeline', trace);
  const origin = Math.min(...events.filter((e) => e.ph === 'X').map((e) => e.ts)) * 1000;
  const rel = (us) => us * 1000 - origin;
  const kernels = events.filter((e) => e.name === 'sgemm_128x64');
  const launches = events.filter((e) => e.name === 'cudaLaunchKernel');
  let page;

  await test('the flame chart view loads for a Kineto trace, holding every event', async () => {
    page = await open(file, '#view=timeline');
    assert(await page.$('#viewtabs button[data-view="timeline"]'), 'a Flame chart tab');
    assert(!(await page.$eval('#view-timeline', (e) => e.hidden)), 'the flame chart is shown');
    assert(await page.$eval('#view-flame', (e) => e.hidden), 'the flame graph is not');
    const st = await api(page, () => window.flamefold.timeline.state());
    assert(st.origin === String(origin), 'origin ' + st.origin + ' vs ' + origin);
    assert(st.events === events.filter((e) => e.ph === 'X').length, 'every event in the chart: ' + st.events);
    assert(st.scope === 'all' && st.scopeText.includes('whole trace'), 'scope ' + st.scope + ': ' + st.scopeText);
    const names = st.lanes.map((l) => l.name);
    assert(names.includes('main thread') && names.includes(HOSTILE), 'thread lanes ' + names);
    const drawn = await api(page, () => window.flamefold.timeline.lastDrawStats.drawn);
    assert(drawn > 20, 'blocks drawn: ' + drawn);
    assert((await page.textContent('.tl-scope')).includes('whole trace'), 'the page says what the chart holds');
    await page.screenshot({ path: path.join(tmp, 'timeline.png') });
  });

  await test('a kernel is drawn at its own time, below the thread whose launch precedes it', async () => {
    // The view: exactly step 2.
    const step = events.find((e) => e.name === 'ProfilerStep#2');
    await api(page, ([a, b]) => window.flamefold.timeline.setTimeWindow(a, b), [rel(step.ts), rel(step.ts + step.dur)]);
    const st = await api(page, () => window.flamefold.timeline.state());
    near(st.t0, rel(step.ts), 1e-6, 'view start');
    const k = kernels[1], box = await api(page, () => window.flamefold.timeline.find('sgemm_128x64', 1));
    const scale = st.width / (rel(step.ts + step.dur) - rel(step.ts));
    const x0 = (rel(k.ts) - st.t0) * scale, x1 = (rel(k.ts + k.dur) - st.t0) * scale;
    near(box.x, x0, 1e-6, 'kernel start x');
    near(box.x + box.w, x1, 1e-6, 'kernel end x');
    // Drawn there in its colour, and not just before its start.
    const mid = await api(page, ([x, y]) => window.flamefold.timeline.pixel(x, y), [(x0 + x1) / 2, box.y + box.h / 2]);
    assert(same(mid, rgb(box.colour)), 'kernel colour ' + mid + ' vs ' + box.colour);
    const before = await api(page, ([x, y]) => window.flamefold.timeline.pixel(x, y), [x0 - 4, box.y + box.h / 2]);
    assert(!same(before, rgb(box.colour)), 'nothing of it before its start: ' + before);
    // Its launch: the cudaLaunchKernel of the same step, earlier, on the main thread above.
    const l = await api(page, (i) => window.flamefold.timeline.box(i), box.launch);
    assert(l.name === 'cudaLaunchKernel' && l.start === rel(launches[2].ts), 'launch ' + JSON.stringify(l));
    assert(l.x < box.x && l.y < box.y, 'the launch is left of and above the kernel');
    const lanes = st.lanes;
    assert(lanes[box.lane].device && !lanes[l.lane].device && lanes[box.lane].y > lanes[l.lane].y, 'stream lane below the thread lane');
  });

  await test('hovering a kernel highlights its launch, and a launch its kernel', async () => {
    const box = await api(page, () => window.flamefold.timeline.find('sgemm_128x64', 1));
    const c = await page.locator('.tl-canvas').boundingBox();
    await page.mouse.move(c.x + box.x + box.w / 2, c.y + box.y + box.h / 2);
    let st = await api(page, () => window.flamefold.timeline.state());
    assert(st.hover === box.i, 'hovered ' + st.hover + ' vs ' + box.i);
    assert(same(st.linked, [box.launch]), 'linked ' + st.linked + ' vs launch ' + box.launch);
    const status = await page.textContent('#status');
    assert(status.includes('sgemm_128x64') && status.includes('launched by cudaLaunchKernel'), 'status: ' + status);
    await page.waitForSelector('#tooltip:not([hidden])');
    assert((await page.textContent('#tooltip')).includes('launched by'), 'tooltip names the launch');
    const l = await api(page, (i) => window.flamefold.timeline.box(i), box.launch);
    await page.mouse.move(c.x + l.x + Math.max(1, l.w / 2), c.y + l.y + l.h / 2);
    st = await api(page, () => window.flamefold.timeline.state());
    assert(st.hover === box.launch && same(st.linked, [box.i]), 'the launch links its kernel: ' + JSON.stringify(st));
    await page.mouse.move(c.x + 2, c.y - 40);
  });

  await test('wheel zooms, drag and keys pan, 0 fits', async () => {
    const c = await page.locator('.tl-canvas').boundingBox();
    let st = await api(page, () => window.flamefold.timeline.state());
    const span = st.t1 - st.t0;
    const atX = 200, at = st.t0 + atX * (st.t1 - st.t0) / st.width;
    await page.mouse.move(c.x + atX, c.y + 30);
    await page.mouse.wheel(0, -300);
    await page.waitForFunction((s) => { const t = window.flamefold.timeline.state(); return t.t1 - t.t0 < s * 0.9; }, span);
    st = await api(page, () => window.flamefold.timeline.state());
    near(st.t0 + atX * (st.t1 - st.t0) / st.width, at, (st.t1 - st.t0) * 1e-6, 'zoom keeps the time under the pointer');
    const zoomed = st;
    await page.mouse.down();
    await page.mouse.move(c.x + atX + 100, c.y + 30, { steps: 4 });
    await page.mouse.up();
    st = await api(page, () => window.flamefold.timeline.state());
    near(st.t0, zoomed.t0 - 100 * (zoomed.t1 - zoomed.t0) / zoomed.width, 1, 'drag pans by the distance dragged');
    assert((await api(page, () => window.flamefold.state().zoom)) === 0, 'a drag is not a click');
    const t0 = st.t0;
    await page.keyboard.press('d');
    st = await api(page, () => window.flamefold.timeline.state());
    assert(st.t0 > t0, 'D pans right');
    await page.keyboard.press('0');
    st = await api(page, () => window.flamefold.timeline.state());
    near(st.t0, st.windowStart, 1e-6, '0 fits the chart');
    const frame = await api(page, () => window.flamefold.timeline.zoom(0.5));
    assert(typeof frame === 'number' && frame >= 0, 'a zoom frame was drawn and timed: ' + frame);
  });

  let hash;
  await test('dragging across the busy strip weighs the flame graph by that time range', async () => {
    const s = await page.locator('.tl-strip').boundingBox();
    const step3 = events.find((e) => e.name === 'ProfilerStep#3');
    const [xa, xb] = await api(page, ([a, b]) => [window.flamefold.timeline.stripX(a), window.flamefold.timeline.stripX(b)],
      [rel(step3.ts) - 200000, rel(step3.ts) + 500000]);
    await page.mouse.move(s.x + xa, s.y + s.height / 2);
    await page.mouse.down();
    await page.mouse.move(s.x + xb, s.y + s.height / 2, { steps: 5 });
    await page.mouse.up();
    const st = await api(page, () => window.flamefold.timeline.state());
    assert(st.range && Math.abs(st.range[0] - (rel(step3.ts) - 200000)) < 20000 && Math.abs(st.range[1] - (rel(step3.ts) + 500000)) < 20000,
      'range ' + JSON.stringify(st.range));
    const want = expectedInRange(events, origin + st.range[0], origin + st.range[1]);
    assert(want.host > 0 && want.device > 0, 'the range holds host and device work: ' + JSON.stringify(want));
    assert((await page.textContent('#range-chip')).startsWith('Range'), 'the range is named in the toolbar');
    await page.click('#viewtabs button[data-view="flame"]');
    const cols = await api(page, () => window.flamefold.state());
    assert(cols.columnName === 'cpu', 'CPU weight shown: ' + cols.columnName);
    const cpu = await api(page, () => window.flamefold.box(0).total);
    assert(cpu === want.host, 'flame graph CPU total ' + cpu + ' vs ' + want.host + ' computed from the trace');
    const gpuCol = await api(page, () => Array.from(document.querySelectorAll('#weights button')).find((b) => b.textContent === 'GPU').dataset.col);
    await api(page, (k) => window.flamefold.setColumn(Number(k)), gpuCol);
    const gpu = await api(page, () => window.flamefold.box(0).total);
    assert(gpu === want.device, 'flame graph GPU total ' + gpu + ' vs ' + want.device);
    const mm = await api(page, () => window.flamefold.find('sgemm_128x64', 2));  // under ProfilerStep#3
    const k3 = kernels[2];
    assert(mm.total === Math.min(k3.dur * 1000, origin + st.range[1] - k3.ts * 1000), 'the step-3 gemm alone, clipped: ' + mm.total);
    await api(page, () => window.flamefold.setColumn(0));
    await page.click('#viewtabs button[data-view="timeline"]');
    // The fragment is noted on the next animation frame: wait for the view's key, not the range's
    // (already there from the flame graph).
    await page.waitForFunction(() => location.hash.includes('view=timeline') && location.hash.includes('range='));
    hash = await page.evaluate(() => location.hash);
    assert(hash.includes('view=timeline') && hash.includes('range=' + st.range[0] + '-' + st.range[1]), 'fragment ' + hash);
    await page.screenshot({ path: path.join(tmp, 'timeline-range.png') });
  });

  await test('the view and the range come back from the URL fragment', async () => {
    const again = await open(file, hash);
    const st = await api(again, () => window.flamefold.timeline.state());
    const first = await api(page, () => window.flamefold.timeline.state());
    assert(same(st.range, first.range), 'range ' + JSON.stringify(st.range));
    assert(!(await again.$eval('#view-timeline', (e) => e.hidden)), 'the flame chart is shown');
    const want = expectedInRange(events, origin + st.range[0], origin + st.range[1]);
    assert((await api(again, () => window.flamefold.box(0).total)) === want.host, 'flame graph weighed by the range');
    await again.click('#range-chip button');
    const total = await api(again, () => window.flamefold.box(0).total);
    assert(total === expectedInRange(events, -Infinity, Infinity).host, 'the whole trace again: ' + total);
    await again.waitForFunction(() => !location.hash.includes('range='));
    await again.close();
  });

  await test('a block clicked in the chart is its frame zoomed in the flame graph, and back', async () => {
    await api(page, () => window.flamefold.timeline.setRange(null));
    await page.keyboard.press('0');
    const b = await api(page, () => window.flamefold.timeline.find('aten::relu', 2));
    const c = await page.locator('.tl-canvas').boundingBox();
    await page.mouse.click(c.x + b.x + Math.max(1, b.w / 2), c.y + b.y + b.h / 2);
    assert(await page.$eval('#view-timeline', (e) => e.hidden), 'switched to the flame graph');
    const st = await api(page, () => window.flamefold.state());
    assert(st.zoomName === 'aten::relu', 'zoomed to ' + st.zoomName);
    await page.click('#in-time');
    assert(!(await page.$eval('#view-timeline', (e) => e.hidden)), 'back in the flame chart');
    // That node (under ProfilerStep#3) was called once.
    const tl = await api(page, () => window.flamefold.timeline.state());
    assert(tl.focus === 1, 'the aten::relu of step 3 highlighted: ' + tl.focus);
    assert((await page.textContent('.tl-focus')).includes('aten::relu: 1 occurrence'), 'named: ' + await page.textContent('.tl-focus'));
    // Shift-click on a flame-graph frame does the same: the loader thread's calls share one node.
    await page.click('#viewtabs button[data-view="flame"]');
    await page.keyboard.press('Escape');
    const k = await api(page, () => window.flamefold.find('next'));
    const fc = await page.locator('#canvas').boundingBox();
    await page.keyboard.down('Shift');
    await page.mouse.click(fc.x + k.x + Math.min(k.w / 2, 30), fc.y + k.y + k.h / 2);
    await page.keyboard.up('Shift');
    assert(!(await page.$eval('#view-timeline', (e) => e.hidden)), 'shift-click shows the flame chart');
    const tl2 = await api(page, () => window.flamefold.timeline.state());
    assert(tl2.focus === 4, 'the four loader calls: ' + tl2.focus);
    assert((await api(page, () => window.flamefold.state().zoom)) === 0, 'a shift-click does not zoom the flame graph');
    const visible = await api(page, () => {
      const t = window.flamefold.timeline, s = t.state(), b = t.find('next');
      return b.end >= s.t0 && b.start <= s.t1;
    });
    assert(visible, 'an occurrence is in view');
    await page.screenshot({ path: path.join(tmp, 'timeline-focus.png') });
  });

  await test('past --timeline-events the chart holds the first whole steps and says so', async () => {
    // 4 steps of 12 events: 30 events hold two steps.
    const small = html('timeline-limited', trace, '--timeline-events', '30');
    const p = await open(small, '#view=timeline');
    const st = await api(p, () => window.flamefold.timeline.state());
    assert(st.scope === 'steps' && st.firstStep === 1 && st.lastStep === 2 && st.events === 24, JSON.stringify(st));
    const text = await p.textContent('.tl-scope');
    assert(text.includes('steps #1–#2') && text.includes('--timeline-events 30') && text.includes('of 48'), 'scope text: ' + text);
    // A range outside what the chart holds is cut to it.
    await api(p, (s) => window.flamefold.timeline.setRange(0, s.traceEnd), st);
    const r = await api(p, () => window.flamefold.timeline.state().range);
    assert(r[0] >= st.windowStart && r[1] <= st.windowEnd, 'range within the chart: ' + r);
    await p.close();
    const none = html('timeline-none', trace, '--timeline-events', '0');
    const q = await open(none, '#view=timeline');
    assert(!(await q.$('#viewtabs button[data-view="timeline"]')), 'no flame chart with --timeline-events 0');
    await q.close();
  });

  await test('the flame chart is not offered for a folded input', async () => {
    const folded = write('timeline-folded.folded', 'main;run;compute 10\nmain;io 5\n');
    const p = await open(html('timeline-folded', folded), '#view=timeline&range=0-100');
    assert(!(await p.$('#viewtabs button[data-view="timeline"]')), 'no Flame chart tab');
    assert(!(await p.$('#view-timeline')), 'no flame chart section');
    assert(!(await p.$eval('#view-flame', (e) => e.hidden)), 'the flame graph is shown');
    assert(!(await p.$('#in-time')), 'no Show in time button');
    assert((await api(p, () => window.flamefold.box(0).total)) === 15, 'weights untouched');
    await p.close();
  });
}

run(main);
