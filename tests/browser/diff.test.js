#!/usr/bin/env node
// The viewer's differential mode, on HTML files that the built `flamefold diff` writes from small
// inputs whose changes are worked out by hand below: change colours, new and gone frames, the
// width switch, the tooltip, the grew/shrank table, search and zoom, and the weight switch of a
// traced (Kineto) diff. Fails on any network request, console error, page error or dialog.
//
//   node diff.test.js --flamefold build/flamefold --fixtures build/tests/flamefold_tests --tmp DIR
'use strict';
const fs = require('fs');
const path = require('path');
const { setup, run, assert, near, api, clickFrame, hoverText } = require('./harness');

const { args, tmp, flamefold } = setup();

// ------------------------------------------------------------------ fixtures
// Before 98 samples, after 102. Self changes: matmul +20 (the largest: the colour scale's end),
// softmax -6, run -8, old_path -8 and legacy gone, new_path +6 and fast new; init, load_config,
// io and read unchanged. Total changes: compute +14 (50 -> 64), run and main +4, legacy -8.
const BEFORE = [
  'main;init;load_config 5',
  'main;run;compute;matmul 40',
  'main;run;compute;softmax 10',
  'main;run;io;read 15',
  'main;run;legacy;old_path 8',
  'main;run 20',
];
const AFTER = [
  'main;init;load_config 5',
  'main;run;compute;matmul 60',
  'main;run;compute;softmax 4',
  'main;run;io;read 15',
  'main;run;fast;new_path 6',
  'main;run 12',
];
// flamegraph.pl's scale (svg::change_colour): 210 * (max - |delta|) / max, truncated.
const red = (d, max) => { const g = Math.trunc(210 * (max - d) / max); return [255, g, g]; };
const blue = (d, max) => { const g = Math.trunc(210 * (max - d) / max); return [g, g, 255]; };

// Two small PyTorch profiler traces: aten::mm's host time shrinks (200 -> 150 us) while its
// kernel grows (300 -> 500 us), and the after side adds aten::relu with a 40 us kernel.
function kineto(mmUs, kernelUs, relu) {
  const ev = [
    { ph: 'X', cat: 'python_function', name: 'train.py(10): <module>', pid: 100, tid: 100, ts: 1000, dur: 1000, args: { 'Python id': 1, 'Python parent id': null } },
    { ph: 'X', cat: 'cpu_op', name: 'aten::mm', pid: 100, tid: 100, ts: 1010, dur: mmUs, args: { 'External id': 5 } },
    { ph: 'X', cat: 'cuda_runtime', name: 'cudaLaunchKernel', pid: 100, tid: 100, ts: 1020, dur: 5, args: { 'External id': 5, correlation: 7 } },
    { ph: 'X', cat: 'kernel', name: 'sgemm_128x64', pid: 0, tid: 7, ts: 1100, dur: kernelUs, args: { device: 0, stream: 7, correlation: 7 } },
    { name: 'process_name', ph: 'M', ts: 0, pid: 100, tid: 0, args: { name: 'python3' } },
    { name: 'thread_name', ph: 'M', ts: 0, pid: 100, tid: 100, args: { name: 'main thread' } },
  ];
  if (relu) {
    ev.push(
      { ph: 'X', cat: 'cpu_op', name: 'aten::relu', pid: 100, tid: 100, ts: 1500, dur: 100, args: { 'External id': 6 } },
      { ph: 'X', cat: 'cuda_runtime', name: 'cudaLaunchKernel', pid: 100, tid: 100, ts: 1510, dur: 5, args: { 'External id': 6, correlation: 8 } },
      { ph: 'X', cat: 'kernel', name: 'relu_kernel', pid: 0, tid: 7, ts: 1600, dur: 40, args: { device: 0, stream: 7, correlation: 8 } });
  }
  return JSON.stringify({ traceEvents: ev });
}

function write(name, text) { const f = path.join(tmp, name); fs.writeFileSync(f, text); return f; }
function diffHtml(name, before, after, ...extra) {
  const html = path.join(tmp, name + '.html');
  flamefold('diff', before, after, '-o', html, '--title', name, ...extra);
  return html;
}

const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);
const squash = (t) => t.replace(/\s+/g, '');

async function main({ open, test }) {
  const folded = diffHtml('diff-folded', write('diff-before.folded', BEFORE.join('\n') + '\n'), write('diff-after.folded', AFTER.join('\n') + '\n'));
  // Process and thread levels kept (diff merges them by default), so the page's own merge is tested.
  const traced = diffHtml('diff-kineto', write('diff-before.json', kineto(200, 300, false)), write('diff-after.json', kineto(150, 500, true)),
    '--group-by', 'process');
  const pixel = (page, b, dy = 0.5) => api(page, ([x, y]) => window.flamefold.pixel(x, y), [b.x + 2, b.y + b.h * dy]);
  const find = (page, name) => api(page, (n) => window.flamefold.find(n), name);

  let page;
  await test('a diff opens in differential mode; widths from the after side by default', async () => {
    page = await open(folded);
    const st = await api(page, () => window.flamefold.state());
    assert(st.diff === true && st.widthBy === 'after' && st.colourBy === 'self', 'state ' + JSON.stringify(st));
    assert(st.scale === 20, 'the scale is the largest self change (matmul +20): ' + st.scale);
    const root = await api(page, () => window.flamefold.box(0));
    assert(root.total === 102 && root.after === 102 && root.before === 98, 'root ' + JSON.stringify(root));
    const summary = await page.textContent('#summary');
    assert(summary.startsWith('before 98 samples → after 102 samples (+4.08%)'), 'summary ' + summary);
    const mm = await find(page, 'matmul');
    near(mm.w / root.w, 60 / 102, 0.001, 'matmul is as wide as its after share');
    // The weight switch lists the after side's weights only; one weight, no switch.
    assert((await page.$$('#weights button')).length === 0, 'no weight switch for a single weight');
    assert(await page.$eval('#table', (t) => t.hidden), 'the top-frames table gives way to the grew/shrank table');
  });

  await test('frames are coloured by their self change, red grew, blue shrank, white unchanged', async () => {
    const want = { matmul: red(20, 20), softmax: blue(6, 20), run: blue(8, 20), new_path: red(6, 20), read: [255, 255, 255], compute: [255, 255, 255] };
    for (const [name, rgb] of Object.entries(want)) {
      const px = await pixel(page, await find(page, name), 0.2);
      assert(same(px, rgb), name + ' is ' + px + ', expected ' + rgb);
    }
    assert(same(red(6, 20), [255, 147, 147]) && same(blue(8, 20), [126, 126, 255]), 'the scale itself');
    assert((await page.textContent('#diffscale .hi')) === '+20 samples', 'legend: the red end is +20');
    assert((await page.textContent('#diffscale .lo')) === '-20 samples', 'legend: the blue end is -20');
    assert((await page.textContent('#diffscale .what')).includes('self'), 'legend says self change');
  });

  await test('--negate swaps the hues, as in the SVG', async () => {
    const negated = diffHtml('diff-negate', path.join(tmp, 'diff-before.folded'), path.join(tmp, 'diff-after.folded'), '--negate');
    const p = await open(negated);
    const want = { matmul: blue(20, 20), softmax: red(6, 20), read: [255, 255, 255] };
    for (const [name, rgb] of Object.entries(want)) {
      const px = await pixel(p, await find(p, name), 0.2);
      assert(same(px, rgb), name + ' is ' + px + ' under --negate, expected ' + rgb);
    }
    await p.close();
  });

  await test('colour by total change', async () => {
    await page.click('#colourby button[data-value="total"]');
    assert((await api(page, () => window.flamefold.state().colourBy)) === 'total', 'colour mode');
    // compute +14 and run +4 are white by self change; matmul (+20) still ends the scale.
    assert(same(await pixel(page, await find(page, 'compute'), 0.2), red(14, 20)), 'compute by total change');
    assert(same(await pixel(page, await find(page, 'run'), 0.2), red(4, 20)), 'run by total change');
    assert((await page.textContent('#diffscale .what')).includes('total'), 'legend says total change');
    await page.click('#colourby button[data-value="self"]');
    assert(same(await pixel(page, await find(page, 'compute'), 0.2), [255, 255, 255]), 'back to self change');
  });

  await test('a new frame is marked; a gone frame is hidden at after width, present and marked at larger and before', async () => {
    const np = await find(page, 'new_path');
    assert(np.status === 'new', 'new_path is new: ' + JSON.stringify(np));
    assert(same(await pixel(page, np, 16 / 18), [122, 10, 10]), 'a dark strip along the bottom of a new frame');
    assert(same(await pixel(page, await find(page, 'read'), 16 / 18), [255, 255, 255]), 'no strip on an old frame');
    const goneAfter = await find(page, 'old_path');
    assert(goneAfter.status === 'gone' && goneAfter.w === 0, 'old_path has no width at after width: ' + JSON.stringify(goneAfter));
    assert((await page.textContent('#legend')).includes('2 hidden at this width'), 'the legend counts the hidden gone frames');

    await page.click('#widthby button[data-value="max"]');
    const root = await api(page, () => window.flamefold.box(0));
    // Larger: each frame as wide as its larger side, widened to hold its children:
    // compute max(64, 50, 60 + 10) = 70, run 70 + 15 + 8 + 6 = 99, main 5 + 99 = 104.
    assert(root.total === 104, 'root width at larger ' + root.total);
    const gone = await find(page, 'old_path');
    near(gone.w / root.w, 8 / 104, 0.001, 'old_path is as wide as its before side');
    near((await find(page, 'compute')).w / root.w, 70 / 104, 0.001, 'compute widened for its children');
    // Hatched: along a line across the frame's right end (past its label), its blue shows
    // between darker stripes; run, the same blue but not gone, has no stripes.
    const line = (b) => api(page, (b) => { const px = []; for (let x = b.x + b.w - 26; x < b.x + b.w - 2; x++) px.push(window.flamefold.pixel(x, b.y + b.h / 2)); return px; }, b);
    const hatch = await line(gone), plain = await line(await find(page, 'run'));
    assert(hatch.some((p) => same(p, blue(8, 20))) && hatch.filter((p) => p[2] < 200).length >= 4, 'old_path hatched over its blue: ' + hatch.join(' '));
    assert(plain.every((p) => same(p, blue(8, 20))), 'run is plain blue: ' + plain.join(' '));
    assert(!(await page.textContent('#legend')).includes('hidden at this width'), 'nothing hidden at larger');
    const t = squash(await hoverText(page, gone));
    for (const want of ['old_path', 'statusgone:onlyinbefore', 'before8samples(8.16%ofbefore)', 'after0samples(0.0%ofafter)', 'delta-8samples(-100.0%)', 'delta%ofbefore-8.16%', 'delta%ofafter-7.84%'])
      assert(t.includes(want), 'tooltip lacks ' + want + ': ' + t);
    await clickFrame(page, 'legacy');
    assert((await api(page, () => window.flamefold.state().zoomName)) === 'legacy', 'a gone frame can be zoomed into');
    near((await find(page, 'old_path')).w, (await api(page, () => window.flamefold.state().width)), 0.5, 'old_path fills the zoom');

    await page.click('#widthby button[data-value="before"]');
    assert((await api(page, () => window.flamefold.state().zoomName)) === 'legacy', 'still zoomed: legacy has before weight');
    await page.click('#widthby button[data-value="after"]');
    assert((await api(page, () => window.flamefold.state().zoom)) === 0, 'zoom reset: legacy has no after width');
    await page.click('#widthby button[data-value="before"]');
    const rb = await api(page, () => window.flamefold.box(0));
    assert(rb.total === 98, 'root at before width ' + rb.total);
    near((await find(page, 'old_path')).w / rb.w, 8 / 98, 0.001, 'old_path at before width');
    assert((await find(page, 'new_path')).w === 0, 'a new frame has no before width');
    await page.click('#widthby button[data-value="after"]');
  });

  await test('the tooltip gives before, after, delta and delta as a share of each side', async () => {
    await page.mouse.move(0, 0);
    const t = squash(await hoverText(page, await find(page, 'matmul')));
    for (const want of ['matmul', 'before40samples(40.8%ofbefore)', 'after60samples(58.8%ofafter)', 'delta+20samples(+50.0%)',
      'delta%ofbefore+20.4%', 'delta%ofafter+19.6%', 'self40samples→60samples(+20samples)'])
      assert(t.includes(want), 'tooltip lacks ' + want + ': ' + t);
    assert(!t.includes('status'), 'matmul is neither new nor gone');
    const n = squash(await hoverText(page, await find(page, 'new_path')));
    assert(n.includes('statusnew:onlyinafter') && n.includes('delta+6samples') && !n.includes('delta+6samples('), 'new frame tooltip: ' + n);
    await page.mouse.move(0, 0);
  });

  await test('the grew/shrank table: rows, values, ranking by self or total, a row click searches', async () => {
    const rows = () => page.$$eval('#difftable tbody tr', (trs) => trs.map((tr) => tr.dataset.frame === undefined ? tr.textContent
      : [tr.dataset.list, tr.querySelector('.nm').textContent, ...[...tr.cells].slice(1).map((c) => c.textContent)].join(' ')));
    let r = await rows();
    const want = [
      'Grew most (by total)',
      'grew matmul 40 60 +20 40 60 +20 +20.4%',
      'grew compute 0 0 0 50 64 +14 +14.3%',
      'grew fast 0 0 0 0 6 +6 +6.12%',
      'grew new_path 0 6 +6 0 6 +6 +6.12%',
      'grew main 0 0 0 98 102 +4 +4.08%',
      'grew run 20 12 -8 93 97 +4 +4.08%',
      'Shrank most (by total)',
      'shrank legacy 0 0 0 8 0 -8 -8.16%',
      'shrank old_path 8 0 -8 8 0 -8 -8.16%',
      'shrank softmax 10 4 -6 10 4 -6 -6.12%',
    ];
    assert(same(r, want), 'table by total:\n' + r.join('\n'));
    const tags = await page.$$eval('#difftable .tag', (t) => t.map((x) => x.closest('tr').querySelector('.nm').textContent + ':' + x.textContent));
    assert(same(tags, ['fast:new', 'new_path:new', 'legacy:gone', 'old_path:gone']), 'new/gone tags ' + tags);
    assert((await page.textContent('#tablemore')) === '6 grew, 3 shrank, 4 unchanged', await page.textContent('#tablemore'));
    await page.click('#difftable th[data-key="self"]');
    r = await rows();
    const names = r.map((x) => /^(grew|shrank) /.test(x) ? x.split(' ').slice(0, 2).join(' ') : x);
    assert(same(names, ['Grew most (by self)', 'grew matmul', 'grew new_path', 'Shrank most (by self)', 'shrank old_path', 'shrank run', 'shrank softmax']), 'by self ' + names);
    assert(r[4].endsWith('-8.16%'), 'share of before by self change: ' + r[4]);
    assert(await page.$eval('#difftable th[data-key="self"]', (t) => t.getAttribute('aria-sort')) === 'descending', 'aria-sort on Δ self');
    await page.click('#difftable tbody tr[data-frame]');  // matmul
    assert((await page.inputValue('#search')) === '^matmul$', 'a row click searches that frame');
    await page.click('#difftable th[data-key="total"]');
  });

  await test('search highlights matches and gives both sides\' matched shares', async () => {
    await page.fill('#search', 'matmul|softmax');
    await page.press('#search', 'Enter');
    const m = await api(page, () => window.flamefold.matched);
    near(m.share, 64 / 102, 1e-9, 'after share');
    near(m.before.share, 50 / 98, 1e-9, 'before share');
    const text = await page.textContent('#match');
    assert(text === 'matched 62.7% (64 samples) after, 51.0% (50 samples) before', 'match text: ' + text);
    assert(same(await pixel(page, await find(page, 'matmul')), [214, 51, 201]), 'matmul highlighted');
    assert(same(await pixel(page, await find(page, 'read'), 0.2), [255, 255, 255]), 'read keeps its change colour');
    await page.fill('#search', '');
    await page.press('#search', 'Enter');
    assert(same(await pixel(page, await find(page, 'matmul'), 0.2), red(20, 20)), 'matmul red again');
  });

  await test('a click zooms in diff mode; widths follow the chosen side; Esc resets', async () => {
    await clickFrame(page, 'compute');
    const st = await api(page, () => window.flamefold.state());
    assert(st.zoomName === 'compute', 'zoomed to ' + st.zoomName);
    const crumbs = await page.$$eval('#crumbs button', (b) => b.map((x) => x.textContent));
    assert(same(crumbs, ['all', 'main', 'run', 'compute']), 'breadcrumb ' + crumbs);
    near((await find(page, 'matmul')).w / st.width, 60 / 64, 0.001, 'matmul in compute, after');
    assert((await find(page, 'read')).visible === false, 'read is outside the zoom');
    assert(same(await pixel(page, await find(page, 'matmul'), 0.2), red(20, 20)), 'colours do not change with the zoom');
    await page.click('#widthby button[data-value="before"]');
    near((await find(page, 'matmul')).w / st.width, 40 / 50, 0.001, 'matmul in compute, before');
    await page.fill('#search', 'softmax');
    await page.press('#search', 'Enter');
    assert((await page.textContent('#match')).includes('of zoom 6.25% after, 20.0% before'), 'zoom shares: ' + await page.textContent('#match'));
    await page.fill('#search', '');
    await page.press('#search', 'Enter');
    await page.mouse.click(5, 5);
    await page.keyboard.press('Escape');
    assert((await api(page, () => window.flamefold.state().zoom)) === 0, 'Esc resets the zoom');
    await page.click('#widthby button[data-value="after"]');
    await page.screenshot({ path: path.join(args.tmp, 'viewer-diff.png'), fullPage: true });
  });

  await test('a traced diff: the weight switch lists the after weights and each brings its before side', async () => {
    page = await open(traced);
    const views = await page.$$eval('#weights button', (b) => b.map((x) => x.textContent));
    assert(same(views, ['CPU', 'GPU', 'Kernels']), 'views ' + views);
    assert((await api(page, () => window.flamefold.state().columnName)) === 'cpu', 'cpu first');
    const relu = await find(page, 'aten::relu');
    assert(relu.status === 'new' && relu.after === 100000, 'aten::relu is new on the cpu side: ' + JSON.stringify(relu));
    assert((await page.textContent('#summary')).startsWith('before 1.00 ms → after 1.00 ms CPU time (0.0%)'), await page.textContent('#summary'));
    await page.click('#weights button:has-text("GPU")');
    const st = await api(page, () => window.flamefold.state());
    assert(st.columnName === 'gpu' && st.scale === 200000, 'gpu view, scale = sgemm +200 us: ' + JSON.stringify(st));
    const root = await api(page, () => window.flamefold.box(0));
    assert(root.after === 540000 && root.before === 300000, 'gpu totals ' + JSON.stringify(root));
    assert((await page.textContent('#summary')).startsWith('before 300 µs → after 540 µs GPU time (+80.0%)'), await page.textContent('#summary'));
    assert(same(await pixel(page, await find(page, 'sgemm_128x64'), 0.2), red(200000, 200000)), 'sgemm, +200 us');
    assert(same(await pixel(page, await find(page, 'relu_kernel'), 0.2), red(40000, 200000)), 'relu_kernel, +40 us');
    const grew = await page.$$eval('#difftable tr[data-list="grew"]', (trs) => trs.map((tr) => tr.querySelector('.nm').textContent + ' ' + tr.querySelector('.dtotal').textContent));
    assert(same(grew, ['<module> +240 µs', 'cudaLaunchKernel +240 µs', 'aten::mm +200 µs', 'sgemm_128x64 +200 µs', 'aten::relu +40.0 µs', 'relu_kernel +40.0 µs']), 'gpu grew ' + grew);
    assert((await page.$$('#difftable tr[data-list="shrank"]')).length === 0, 'nothing shrank on the gpu');
    const t = squash(await hoverText(page, await find(page, 'aten::mm'), 10));
    assert(t.includes('before300µs') && t.includes('after500µs') && t.includes('CPUtotal200µs→150µs(-50.0µs)') && t.includes('calls1→1'), 'tooltip ' + t);
    await page.mouse.move(0, 0);
    await page.click('#weights button:has-text("Kernels")');
    const k = await find(page, 'relu_kernel');
    assert(k.status === 'new' && k.after === 1 && k.before === 0, 'relu_kernel: one new kernel ' + JSON.stringify(k));
    assert((await find(page, 'sgemm_128x64')).delta === 0, 'sgemm: one kernel on each side');
    const info = await page.textContent('#info');
    assert(info.includes('GPU (before)') && info.includes('before'), 'info lists both sides: ' + info);
    // Merging threads derives a new tree: both sides, colours and the table follow it.
    await page.click('#weights button:has-text("GPU")');
    await page.check('#merge-threads');
    assert((await find(page, 'main thread')) === null, 'no thread frames after merging');
    const mm = await find(page, 'aten::mm');
    assert(mm.depth === 2 && mm.after === 500000 && mm.before === 300000, 'aten::mm merged ' + JSON.stringify(mm));
    assert(same(await pixel(page, await find(page, 'relu_kernel'), 0.2), red(40000, 200000)), 'relu_kernel after merging');
    assert((await page.$$('#difftable tr[data-list="grew"]')).length === 6, 'table after merging');
  });

  await test('a plain flame graph has no differential controls', async () => {
    const plain = path.join(tmp, 'diff-plain.html');
    flamefold('flamegraph', path.join(tmp, 'diff-after.folded'), '-o', plain);
    const p = await open(plain);
    assert(await p.$('#widthby') === null && await p.$('#difftable') === null, 'diff controls on a plain flame graph');
    assert(!(await api(p, () => 'diff' in window.flamefold.state())), 'state has no diff fields');
    assert(!(await p.$eval('#table', (t) => t.hidden)), 'top-frames table shown');
    await p.close();
  });

  await test('hostile names in a diff stay text', async () => {
    const evil = '<img src=x onerror=alert(1)>';
    const html = diffHtml('diff-hostile', write('diff-hostile-a.folded', 'main;</script><b>old</b> 2\n'), write('diff-hostile-b.folded', 'main;' + evil + ' 3\n'));
    page = await open(html);
    const names = await page.$$eval('#difftable .nm', (t) => t.map((x) => x.textContent));
    assert(names.includes(evil) && names.includes('</script><b>old</b>'), 'names shown literally: ' + names);
    await page.click('#widthby button[data-value="max"]');
    const t = await hoverText(page, await find(page, '</script><b>old</b>'));
    assert(t.includes('gone'), 'gone frame tooltip ' + t);
    assert((await page.evaluate(() => document.querySelectorAll('img, b, svg, iframe').length)) === 0, 'nothing injected');
    await page.waitForTimeout(100);
  });
}

run(main).catch((e) => { console.error(e); process.exit(1); });
