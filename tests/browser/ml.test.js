#!/usr/bin/env node
// Readable ML stacks and source lines in the viewer (web/viewer/59-ml-names.js, 58-sources.js),
// on pages the built flamefold writes: the page's name shortener agrees with the C++ one
// (tests/data/short_names.tsv), the short-names and merge-modules switches change the frames
// and the fragment (and --short-names / --merge-modules turn them on), the kernels table
// matches `flamefold top --weight gpu --json`, sorts, and a click finds the kernel in the
// graph; source lines appear in the tooltip, nothing outside the root does, and the page says
// when the bound cut some. Fails on any network request, console error, page error or dialog.
//
//   node ml.test.js --flamefold build/flamefold --fixtures build/tests/flamefold_tests --tmp DIR
'use strict';
const fs = require('fs');
const path = require('path');
const { setup, run, assert, near, api, hoverText } = require('./harness');

const { tmp, flamefold } = setup();

// ------------------------------------------------------------------ fixtures
const K4 = 'void at::native::elementwise_kernel<128, 4, at::native::Functor<float> >(int, at::native::Functor<float>)';
const K2 = 'void at::native::elementwise_kernel<128, 2, at::native::Functor<float> >(int, at::native::Functor<float>)';
const SHORT = 'at::native::elementwise_kernel<\u2026>';
// One thread: model forward with four nn.Module: Layer_k instances (150 us each, an aten::mm
// launching a kernel of (k+1)*10 us: K4 for even k, K2 for odd) and a Head_0 with a cuBLAS kernel.
function mlTrace() {
  const pid = 100, tid = 100, ev = [
    { ph: 'X', cat: 'python_function', name: 'model.py(5): forward', pid, tid, ts: 1000, dur: 1000, args: { 'Python id': 1, 'Python parent id': null } },
    { name: 'process_name', ph: 'M', ts: 0, pid, tid: 0, args: { name: 'python3' } },
    { name: 'thread_name', ph: 'M', ts: 0, pid, tid, args: { name: 'main thread' } },
  ];
  const layer = (name, id, ts, op, corr, kernel, kernelUs) => {
    ev.push({ ph: 'X', cat: 'python_function', name, pid, tid, ts, dur: 150, args: { 'Python id': id, 'Python parent id': 1 } });
    ev.push({ ph: 'X', cat: 'cpu_op', name: op, pid, tid, ts: ts + 10, dur: 100, args: { 'External id': corr } });
    ev.push({ ph: 'X', cat: 'cuda_runtime', name: 'cudaLaunchKernel', pid, tid, ts: ts + 20, dur: 5, args: { 'External id': corr, correlation: corr } });
    ev.push({ ph: 'X', cat: 'kernel', name: kernel, pid: 0, tid: 7, ts: ts + 40, dur: kernelUs, args: { device: 0, stream: 7, correlation: corr } });
  };
  for (let k = 0; k < 4; k++) layer('nn.Module: Layer_' + k, 10 + k, 1010 + k * 200, 'aten::mm', 20 + k, k % 2 ? K2 : K4, (k + 1) * 10);
  layer('nn.Module: Head_0', 20, 1820, 'aten::addmm', 30, 'ampere_sgemm_128x64_tn', 7);
  return JSON.stringify({ traceEvents: ev });
}
function write(name, text) { const f = path.join(tmp, name); fs.writeFileSync(f, text); return f; }
const squash = (t) => t.replace(/\s+/g, '');
const hashOf = (page) => page.evaluate(() => location.hash);

async function main({ open, test }) {
  const trace = write('ml.json', mlTrace());
  const plain = path.join(tmp, 'ml.html'), preset = path.join(tmp, 'ml-preset.html');
  flamefold('flamegraph', trace, '-o', plain);
  flamefold('flamegraph', trace, '-o', preset, '--short-names', '--merge-modules');
  let page;

  await test('the page shortens names as the C++ shortener does (tests/data/short_names.tsv)', async () => {
    page = await open(plain);
    const rows = fs.readFileSync(path.join(__dirname, '..', 'data', 'short_names.tsv'), 'utf8').split('\n')
      .filter((l) => l && !l.startsWith('#')).map((l) => l.split('\t'));
    assert(rows.length > 40, 'table rows: ' + rows.length);
    const got = await api(page, (names) => names.map((n) => window.flamefold.shortName(n)), rows.map((r) => r[0]));
    const wrong = rows.filter((r, k) => got[k] !== r[1]).map((r, k) => r[0] + ' -> ' + got[rows.indexOf(r)] + ' (want ' + r[1] + ')');
    assert(wrong.length === 0, 'differ from C++:\n' + wrong.join('\n'));
    const mods = await api(page, () => ['nn.Module: Layer_12', 'nn.Module: Layer', 'aten::cat.out-dtype_Long-extraKey_1'].map((n) => window.flamefold.moduleClass(n)));
    assert(JSON.stringify(mods) === '["nn.Module: Layer","",""]', 'module classes ' + mods);
  });

  await test('merge modules: four Layer towers become one, subtrees merged, and back', async () => {
    const n = await api(page, () => window.flamefold.names());
    assert(n.moduleFrames === 5 && !n.modules && !n.short && n.shortable, 'names state ' + JSON.stringify(n));
    for (let k = 0; k < 4; k++) assert(await api(page, (k) => window.flamefold.find('nn.Module: Layer_' + k), k), 'Layer_' + k + ' drawn');
    const nodes = (await api(page, () => window.flamefold.state())).nodes;
    await page.click('#merge-modules');
    const layer = await api(page, () => window.flamefold.find('nn.Module: Layer'));
    assert(layer && layer.visible, 'one Layer frame');
    near(layer.total, 4 * 150e3, 1e-6, 'its CPU total is the four instances\'');
    assert(!(await api(page, () => window.flamefold.find('nn.Module: Layer_1'))), 'no instance left');
    assert(!(await api(page, () => window.flamefold.find('nn.Module: Layer', 1))), 'and only one Layer node');
    const mm = await api(page, () => window.flamefold.find('aten::mm'));
    near(mm.total, 4 * 100e3, 1e-6, 'the aten::mm below it merged');
    assert(!(await api(page, () => window.flamefold.find('aten::mm', 1))), 'one aten::mm');
    assert((await api(page, () => window.flamefold.state())).nodes < nodes, 'fewer nodes');
    const t = squash(await hoverText(page, layer));
    assert(t.includes('4instancesmerged:nn.Module:Layer_0'), 'tooltip says what merged: ' + t);
    await page.waitForFunction(() => location.hash.includes('modules=1'));
    await page.click('#merge-modules');
    assert(await api(page, () => window.flamefold.find('nn.Module: Layer_3')), 'instances back');
    assert((await api(page, () => window.flamefold.state())).nodes === nodes, 'the same tree again');
    await page.waitForFunction(() => !location.hash.includes('modules'));
  });

  await test('short names: labels shortened, the full name in the tooltip, in the fragment', async () => {
    await page.mouse.move(1, 1);
    await page.click('#weights button[data-col="2"]');  // GPU: the kernels are wide
    await page.click('#short-names');
    const b = await api(page, () => window.flamefold.find('at::native::elementwise_kernel<\u2026>'));
    assert(b && b.visible, 'a shortened kernel frame');
    assert(!(await api(page, (k) => window.flamefold.find(k), K4)), 'the full name is not drawn');
    const t = await hoverText(page, b);
    assert(t.includes(K4) || t.includes(K2), 'the full name in the tooltip: ' + t);
    await page.waitForFunction(() => location.hash.includes('short=1'));
    await page.screenshot({ path: path.join(tmp, 'ml-short-names.png'), fullPage: true });
    await page.mouse.move(1, 1);
    await page.click('#short-names');
    assert(await api(page, (k) => window.flamefold.find(k), K4), 'full names back');
  });

  await test('the kernels table equals `top --weight gpu --json`, sorts, and a click finds the kernel', async () => {
    const top = JSON.parse(flamefold('top', trace, '--weight', 'gpu', '--json', '-n', '0'));
    const rows = await api(page, () => window.flamefold.kernelRows().map((r) => ({ name: r.name, count: r.count, total: r.total, min: r.min, max: r.max })));
    assert(rows.length === top.kernels.length && rows.length === 3, 'rows ' + JSON.stringify(rows));
    for (const k of top.kernels) {
      const r = rows.find((x) => x.name === k.name);
      assert(r && r.count === k.count && r.total === k.total && r.min === k.min && r.max === k.max, 'row of ' + k.name + ': ' + JSON.stringify(r) + ' vs ' + JSON.stringify(k));
    }
    assert(await page.isVisible('#kernelsbox'), 'shown in the GPU view');
    let names = await api(page, () => window.flamefold.kernels());
    const byTotal = top.kernels.slice().sort((a, b) => b.total - a.total).map((k) => k.name);
    assert(JSON.stringify(names) === JSON.stringify(byTotal), 'by total ' + names);
    await page.click('#kernels th[data-key="max"]');
    names = await api(page, () => window.flamefold.kernels());
    const byMax = top.kernels.slice().sort((a, b) => b.max - a.max || b.total - a.total).map((k) => k.name);
    assert(JSON.stringify(names) === JSON.stringify(byMax), 'by max ' + names);
    await page.click('#kernels th[data-key="max"]');
    names = await api(page, () => window.flamefold.kernels());
    assert(JSON.stringify(names) === JSON.stringify(byMax.slice().reverse()), 'by max ascending ' + names);
    assert(await page.$eval('#kernels th[data-key="max"]', (t) => t.getAttribute('aria-sort')) === 'ascending', 'aria-sort');
    // With short names the two instantiations are one row: 4 launches, 10..40 us.
    await page.click('#short-names');
    const merged = await api(page, (s) => window.flamefold.kernelRows().find((r) => r.name === s), SHORT);
    assert(merged && merged.count === 4 && merged.total === 100e3 && merged.min === 10e3 && merged.max === 40e3, 'one short row ' + JSON.stringify(merged && { ...merged, frames: 0 }));
    // A click searches it: both kernel frames light up.
    const idx = (await api(page, () => window.flamefold.kernels())).indexOf(SHORT);
    await page.click('#kernels tbody tr:nth-child(' + (idx + 1) + ')');
    const m = await api(page, () => window.flamefold.matched);
    assert(m && m.frames === 2, 'both instantiations matched: ' + JSON.stringify(m));
    near(m.weight, 100e3, 1e-6, 'their GPU time');
    assert(await page.$eval('#kernels tr.on td.name', (e) => e.textContent) === SHORT, 'the row stays marked');
    const b = await api(page, (s) => window.flamefold.find(s), SHORT);
    const px = await api(page, ([x, y]) => window.flamefold.pixel(x, y), [b.x + 2, b.y + b.h / 2]);
    assert(JSON.stringify(px) === '[214,51,201]', 'highlighted in the graph: ' + px);
    await page.screenshot({ path: path.join(tmp, 'ml-kernels.png'), fullPage: true });
    // The CPU view has no kernels table.
    await page.click('#weights button[data-col="0"]');
    assert(!(await page.isVisible('#kernelsbox')), 'hidden in the CPU view');
  });

  await test('--short-names and --merge-modules turn the switches on; a fragment can turn them off', async () => {
    const p = await open(preset);
    const n = await api(p, () => window.flamefold.names());
    assert(n.short && n.modules, 'both on: ' + JSON.stringify(n));
    assert(await api(p, () => window.flamefold.find('nn.Module: Layer')), 'merged');
    assert((await hashOf(p)) === '', 'defaults stay out of the fragment');
    await p.click('#short-names');
    await p.waitForFunction(() => location.hash.includes('short=0'));
    const q = await open(preset, '#modules=0');
    assert(!(await api(q, () => window.flamefold.names().modules)), 'the fragment turns merging off');
    assert(await api(q, () => window.flamefold.find('nn.Module: Layer_2')), 'instances shown');
    const r = await open(plain, '#short=1&modules=1&weight=gpu');
    assert(JSON.stringify(await api(r, () => [window.flamefold.names().short, window.flamefold.names().modules])) === '[true,true]', 'a link turns them on');
    await p.close(); await q.close(); await r.close();
  });

  await test('source lines: in the tooltip under --source-root, the frame\'s line marked; nothing outside the root', async () => {
    const root = path.join(tmp, 'src-root');
    fs.rmSync(root, { recursive: true, force: true });
    fs.mkdirSync(path.join(root, 'app', 'lib'), { recursive: true });
    const lines = [];
    for (let i = 1; i <= 20; i++) lines.push(i === 12 ? '    return heavy(x)  # "<img src=x onerror=alert(1)>"' : 'line_' + i + ' = ' + i);
    fs.writeFileSync(path.join(root, 'app', 'lib', 'work.py'), lines.join('\n') + '\n');
    fs.writeFileSync(path.join(root, 'app', 'main.py'), 'import lib\n\nmain()\n');
    fs.writeFileSync(path.join(tmp, 'secret.py'), 'SECRET = 1\n');
    const folded = write('src.folded', 'tid:1;/ci/build/app/main.py:main:3;app/lib/work.py:compute:12 10\ntid:1;../secret.py:steal:1 5\n');
    const html = path.join(tmp, 'sources.html');
    flamefold('flamegraph', folded, '--source-root', root, '-o', html);
    const p = await open(html);
    const s = await api(p, () => window.flamefold.sources());
    assert(s && s.located === 3 && s.embedded === 2 && s.cut === 0, 'sources ' + JSON.stringify(s));
    const b = await api(p, () => window.flamefold.find('compute'));
    const t = await hoverText(p, b);
    assert(t.includes('return heavy(x)  # "<img src=x onerror=alert(1)>"') && t.includes('line_9 = 9') && t.includes('line_15 = 15'), 'snippet in the tooltip: ' + t);
    assert(!t.includes('line_8 ') && !t.includes('line_16'), 'three lines either side: ' + t);
    assert(await p.$eval('#tooltip .tsrc div.at', (e) => e.textContent) === '12    return heavy(x)  # "<img src=x onerror=alert(1)>"', 'line 12 marked');
    assert(await p.$('#tooltip img') === null, 'source text stays text');
    await p.screenshot({ path: path.join(tmp, 'ml-sources.png') });
    const steal = await api(p, () => window.flamefold.find('steal'));
    await p.mouse.move(1, 1);
    const t2 = await hoverText(p, steal);
    assert(!t2.includes('SECRET') && !(await p.$('#tooltip .tsrc')), 'nothing from outside the root: ' + t2);
    const info = await p.textContent('#info-sources');
    assert(info.startsWith('2 of 3 frames') && !info.includes('left out'), 'info: ' + info);
    await p.close();
  });

  await test('source lines past the bound: the page says how many were left out', async () => {
    const root = path.join(tmp, 'big-root');
    fs.mkdirSync(root, { recursive: true });
    const n = 20005, src = [], stacks = [];
    for (let i = 1; i <= n + 5; i++) src.push('x' + i + ' = ' + i);
    fs.writeFileSync(path.join(root, 'big.py'), src.join('\n') + '\n');
    for (let i = 1; i <= n; i++) stacks.push('tid:1;big.py:f' + i + ':' + i + ' ' + (n + 1 - i));
    const folded = write('big-src.folded', stacks.join('\n') + '\n');
    const html = path.join(tmp, 'big-sources.html');
    flamefold('flamegraph', folded, '--source-root', root, '-o', html);
    const p = await open(html);
    const s = await api(p, () => window.flamefold.sources());
    assert(s.embedded === 20000 && s.cut === 5, 'bounded: ' + JSON.stringify(s));
    const info = await p.$eval('#info-sources', (e) => [e.textContent, e.className]);
    assert(info[0].includes('5 more found but left out') && info[1] === 'warn', 'the page says so: ' + info);
    // Heaviest first: f1 (weight n) has its lines, f20005 (weight 1) not.
    const has = await api(p, () => {
      const f = window.flamefold, out = {};
      for (let i = 0; i < 30000 && Object.keys(out).length < 2; i++) {
        const s = f.sourceOf(i);
        if (s && (s.at === 1 || s.at === 20005)) out[s.at] = true;
      }
      return out;
    });
    assert(has[1] === true && !has[20005], 'the heaviest frame has its lines, the lightest not: ' + JSON.stringify(has));
    await p.close();
  });
}

run(main);
