#!/usr/bin/env node
// The rank view (web/viewer/57-ranks.js) on pages that the built flamefold writes from several
// PyTorch profiler traces (one per rank, with distributedInfo) and from several folded files:
// the straggler table's order, slowest mark and deviations (all computed here from the inputs),
// a picked rank drawn against the mean of the others in the diff colours (a stack only it has
// is new and red), the tooltip's mean/picked values, the levels, the fragment, and coming back
// to the flame graph. Fails on any network request, console error, page error or dialog.
//
//   node ranks.test.js --flamefold build/flamefold --fixtures build/tests/flamefold_tests --tmp DIR
'use strict';
const fs = require('fs');
const path = require('path');
const { setup, run, assert, near, api, hoverText } = require('./harness');

const { tmp, flamefold } = setup();

// ------------------------------------------------------------------ fixtures
// Four ranks: rank 2 is the CPU straggler and alone runs aten::straggle; rank 3 the GPU one.
const RANKS = [
  { stepUs: 1000, mmUs: 200, kernelUs: 300 },
  { stepUs: 1200, mmUs: 250, kernelUs: 100 },
  { stepUs: 1500, mmUs: 300, kernelUs: 200, straggleUs: 400 },
  { stepUs: 900, mmUs: 150, kernelUs: 500 },
];
function rankTrace(r) {
  const k = RANKS[r], pid = 1000 + r, tid = pid;
  const ev = [
    { ph: 'X', cat: 'python_function', name: 'train.py(10): <module>', pid, tid, ts: 1000, dur: k.stepUs, args: { 'Python id': 1, 'Python parent id': null } },
    { ph: 'X', cat: 'cpu_op', name: 'aten::mm', pid, tid, ts: 1010, dur: k.mmUs, args: { 'External id': 5 } },
    { ph: 'X', cat: 'cuda_runtime', name: 'cudaLaunchKernel', pid, tid, ts: 1020, dur: 5, args: { 'External id': 5, correlation: 7 } },
    { ph: 'X', cat: 'kernel', name: 'sgemm_128x64', pid: 0, tid: 7, ts: 1100, dur: k.kernelUs, args: { device: 0, stream: 7, correlation: 7 } },
    { name: 'process_name', ph: 'M', ts: 0, pid, tid: 0, args: { name: 'python3' } },
    { name: 'thread_name', ph: 'M', ts: 0, pid, tid, args: { name: 'main thread' } },
  ];
  if (k.straggleUs) ev.push({ ph: 'X', cat: 'cpu_op', name: 'aten::straggle', pid, tid, ts: 1010 + k.mmUs + 10, dur: k.straggleUs, args: { 'External id': 9 } });
  return { json: JSON.stringify({ distributedInfo: { backend: 'nccl', rank: r, world_size: RANKS.length }, traceEvents: ev }), events: ev, pid };
}
// What each rank's totals are, from its events: host time is the union of its thread's
// intervals, device time the sum of its kernels (ns).
function expectedTotals(trace) {
  const host = trace.events.filter((e) => e.ph === 'X' && e.pid === trace.pid).map((e) => [e.ts * 1000, (e.ts + e.dur) * 1000]).sort((a, b) => a[0] - b[0]);
  let cpu = 0, at = -Infinity;
  for (const [s, e] of host) { if (e > at) { cpu += e - Math.max(s, at); at = e; } }
  const gpu = trace.events.filter((e) => e.cat === 'kernel').reduce((a, e) => a + e.dur * 1000, 0);
  return { cpu, gpu };
}
function write(name, text) { const f = path.join(tmp, name); fs.writeFileSync(f, text); return f; }
// The page's formats (20-format.js): a duration in ns, and a share's precision.
function fmtNs(ns) {
  const a = Math.abs(ns);
  if (a >= 1e9) return (ns / 1e9).toFixed(a >= 1e11 ? 0 : a >= 1e10 ? 1 : 2) + ' s';
  if (a >= 1e6) return (ns / 1e6).toFixed(a >= 1e8 ? 0 : a >= 1e7 ? 1 : 2) + ' ms';
  if (a >= 1e3) return (ns / 1e3).toFixed(a >= 1e5 ? 0 : a >= 1e4 ? 1 : 2) + ' µs';
  return Math.round(ns) + ' ns';
}
const fmtPctLike = (p) => (Math.abs(p) >= 10 || p === 0 ? Math.abs(p).toFixed(1) : Math.abs(p).toFixed(2));

async function main({ open, test }) {
  const traces = RANKS.map((_, r) => rankTrace(r));
  const files = traces.map((t, r) => write('rank' + r + '.json', t.json));
  const html = path.join(tmp, 'ranks.html');
  flamefold('flamegraph', ...files, '-o', html, '--title', 'four ranks');
  const totals = traces.map(expectedTotals);
  const label = (r) => 'rank ' + r;
  const order = (key) => totals.map((t, r) => [t[key], r]).sort((a, b) => b[0] - a[0] || a[1] - b[1]).map(([, r]) => label(r));
  let page;

  await test('several Kineto ranks: the ranks view is offered and opens from the fragment', async () => {
    page = await open(html, '#view=ranks');
    const tabs = await page.$$eval('#viewtabs button', (b) => b.map((x) => x.dataset.view));
    assert(tabs.includes('ranks'), 'tabs: ' + tabs);
    const r = await api(page, () => window.flamefold.ranks());
    assert(r && r.level === 'rank', 'rank level: ' + JSON.stringify(r));
    assert(JSON.stringify(r.levels) === '["rank","process","thread"]', 'levels ' + r.levels);
    assert(await page.isVisible('#view-ranks'), 'the view is shown');
    assert(!(await page.isVisible('#view-flame')), 'the flame view is hidden');
    assert(await page.$('#view-ranks #chart') !== null, 'the graph moved into the view');
    assert(typeof (await api(page, () => window.flamefold.timings.rankCompare)) === 'number', 'comparison timed');
    await page.screenshot({ path: path.join(tmp, 'ranks-view.png'), fullPage: true });
  });

  await test('the table orders the ranks by the current weight, as the traces have it, and marks the slowest', async () => {
    let r = await api(page, () => window.flamefold.ranks());
    assert(JSON.stringify(r.rows) === JSON.stringify(order('cpu')), 'CPU order ' + r.rows + ' expected ' + order('cpu'));
    assert(r.slowest === order('cpu')[0], 'slowest ' + r.slowest);
    const marked = await page.$$eval('#ranktable tr.slowest td.name span:first-child', (x) => x.map((e) => e.textContent));
    assert(JSON.stringify(marked) === JSON.stringify([order('cpu')[0]]), 'slowest row ' + marked);
    // The totals in the cells and each one's deviation from the mean.
    const mean = totals.reduce((a, t) => a + t.cpu, 0) / totals.length;
    const cells = await page.$$eval('#ranktable tbody tr', (rows) => rows.map((tr) => [tr.cells[0].querySelector('span').textContent, tr.cells[1].textContent, tr.cells[tr.cells.length - 1].textContent]));
    for (const [name, cpu, dev] of cells) {
      const t = totals[Number(name.split(' ')[1])].cpu;
      assert(cpu === fmtNs(t), name + ' CPU cell ' + cpu + ' for ' + t + ' ns');
      const p = 100 * (t - mean) / mean;
      assert(dev === (p > 0 ? '+' : '-') + fmtPctLike(p) + '%', name + ' deviation ' + dev + ' expected ' + p);
    }
    const sorted = totals.map((t) => t.cpu).sort((a, b) => a - b), median = (sorted[1] + sorted[2]) / 2;
    const spread = await page.textContent('#rankspread');
    assert(spread.includes('max/median ' + (sorted[3] / median).toFixed(2) + '×'), 'spread: ' + spread);
    // The GPU weight orders them by device time.
    await page.click('#weights button[data-col="2"]');
    r = await api(page, () => window.flamefold.ranks());
    assert(JSON.stringify(r.rows) === JSON.stringify(order('gpu')), 'GPU order ' + r.rows + ' expected ' + order('gpu'));
    assert(r.slowest === order('gpu')[0], 'GPU slowest ' + r.slowest);
    await page.click('#weights button[data-col="0"]');
    // A heading sorts: by name ascending.
    await page.click('#ranktable th[data-key="name"]');
    r = await api(page, () => window.flamefold.ranks());
    assert(JSON.stringify(r.rows) === '["rank 0","rank 1","rank 2","rank 3"]', 'by name ' + r.rows);
    await page.click('#ranktable th[data-key="0"]');
  });

  await test('the picked rank against the mean of the others: a stack only it has is new and red', async () => {
    const r = await api(page, () => window.flamefold.ranks());
    assert(r.pick === 'rank 2', 'the slowest is picked first: ' + r.pick);
    const b = await api(page, () => window.flamefold.find('aten::straggle'));
    assert(b && b.visible && b.status === 'new', 'aten::straggle is new: ' + JSON.stringify(b));
    near(b.after, RANKS[2].straggleUs * 1000, 1e-6, 'its picked side');
    assert(b.before === 0, 'no other rank has it');
    const px = await api(page, ([x, y]) => window.flamefold.pixel(x, y), [b.x + 3, b.y + b.h * 0.3]);
    assert(px[0] === 255 && px[1] === px[2] && px[1] < 200, 'red: ' + px);
    // aten::mm against the mean of the other three ranks' aten::mm.
    const mm = await api(page, () => window.flamefold.find('aten::mm'));
    const meanMm = (RANKS[0].mmUs + RANKS[1].mmUs + RANKS[3].mmUs) / 3 * 1000;
    near(mm.before, meanMm, 1e-6, 'mean of the others');
    near(mm.after, RANKS[2].mmUs * 1000, 1e-6, 'rank 2');
    const t = (await hoverText(page, mm)).replace(/\s+/g, '');
    assert(t.includes(('mean of others' + fmtNs(meanMm)).replace(/\s+/g, '')), 'tooltip mean: ' + t);
    assert(t.includes(('rank 2' + fmtNs(RANKS[2].mmUs * 1000)).replace(/\s+/g, '')), 'tooltip picked: ' + t);
    const legend = await page.textContent('#legend');
    assert(legend.includes('rank 2 − mean of others') && legend.includes('new: only in rank 2'), 'legend: ' + legend);
  });

  await test('clicking a row picks another rank; the fragment records it and a link restores it', async () => {
    await page.mouse.move(2, 2);
    const rows = await page.$$eval('#ranktable tbody tr', (x) => x.map((tr) => tr.cells[0].querySelector('span').textContent));
    await page.click('#ranktable tbody tr:nth-child(' + (rows.indexOf('rank 0') + 1) + ')');
    const r = await api(page, () => window.flamefold.ranks());
    assert(r.pick === 'rank 0', 'picked ' + r.pick);
    assert(await page.$eval('#ranktable tr.picked td.name span', (e) => e.textContent) === 'rank 0', 'picked row marked');
    const b = await api(page, () => window.flamefold.find('aten::straggle'));
    assert(b.status === 'gone', 'rank 0 lacks aten::straggle: ' + b.status);
    await page.waitForFunction(() => location.hash.includes('rank=rank%200'));
    const hash = await page.evaluate(() => location.hash);
    assert(hash.includes('view=ranks'), 'fragment ' + hash);
    const again = await open(html, '#view=ranks&rank=rank%203');
    assert((await api(again, () => window.flamefold.ranks().pick)) === 'rank 3', 'restored pick');
    await again.close();
  });

  await test('levels: threads compared across ranks', async () => {
    await api(page, () => window.flamefold.setRankLevel('thread'));
    const r = await api(page, () => window.flamefold.ranks());
    assert(r.level === 'thread' && r.rows.length === 4, 'threads: ' + JSON.stringify(r));
    assert(r.rows.every((x) => /^rank \d › python3 \(pid \d+\) › .*main thread/.test(x)), 'thread labels ' + r.rows);
    assert(r.pick.startsWith('rank 2 ›'), 'the slowest thread is rank 2\'s: ' + r.pick);
    await page.waitForFunction(() => location.hash.includes('rankby=thread'));
    await api(page, () => window.flamefold.setRankLevel('rank'));
  });

  await test('back to the flame graph: its state and canvas come back', async () => {
    await page.click('#viewtabs button[data-view="flame"]');
    const st = await api(page, () => window.flamefold.state());
    assert(!st.diff, 'not differential any more');
    assert(await page.$('#view-flame #chart') !== null && await page.$('#view-flame #crumbs') !== null, 'graph back in the flame view');
    const groups = await api(page, () => window.flamefold.find('rank 2'));
    assert(groups && groups.visible, 'the rank frames are drawn again');
    assert(await page.isVisible('#table'), 'the top table is back');
  });

  await test('several folded files are ranks too; one input or a diff page offers no ranks view', async () => {
    const a = write('a.folded', 'main;work 30\nmain;io 10\n'), b = write('b.folded', 'main;work 50\nmain;slow 20\n');
    const multi = path.join(tmp, 'ranks-folded.html');
    flamefold('flamegraph', a, b, '-o', multi);
    let p = await open(multi, '#view=ranks');
    const r = await api(p, () => window.flamefold.ranks());
    assert(JSON.stringify(r.rows) === '["b.folded","a.folded"]', 'folded ranks ' + r.rows);
    const slow = await api(p, () => window.flamefold.find('slow'));
    assert(slow.status === 'new' && slow.after === 20 && slow.before === 0, 'slow only in b: ' + JSON.stringify(slow));
    const io = await api(p, () => window.flamefold.find('io'));
    assert(io.status === 'gone' && io.before === 10, 'io only in a: ' + JSON.stringify(io));
    await p.screenshot({ path: path.join(tmp, 'ranks-folded.png'), fullPage: true });
    await p.close();
    const single = path.join(tmp, 'one-rank.html');
    flamefold('flamegraph', files[0], '-o', single);
    p = await open(single, '#view=ranks');
    assert(!(await p.$('#viewtabs button[data-view="ranks"]')), 'one rank: no ranks tab');
    assert((await api(p, () => window.flamefold.ranks())) === null, 'the fragment cannot open it');
    await p.close();
    const diff = path.join(tmp, 'ranks-diff.html');
    flamefold('diff', a, b, a, b, '-o', diff);
    p = await open(diff);
    assert(!(await p.$('#viewtabs button[data-view="ranks"]')), 'a diff page: no ranks tab');
    await p.close();
  });
}

run(main);
