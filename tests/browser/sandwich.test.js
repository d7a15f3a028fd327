#!/usr/bin/env node
// The sandwich view (callers above, callees below one function), the keys (arrows, Enter, Esc,
// ?), the left-heavy order, the status line and the fragment of all of them, on HTML files the
// built flamefold writes from small inputs. The callers and callees the page shows are checked
// against ones worked out here from the folded stacks themselves. Fails on any network request,
// console error, page error or dialog.
//
//   node sandwich.test.js --flamefold build/flamefold --fixtures build/tests/flamefold_tests --tmp DIR
'use strict';
const fs = require('fs');
const path = require('path');
const { setup, run, assert, api } = require('./harness');

const { args, tmp, flamefold } = setup();

// ------------------------------------------------------------------ fixtures
// Two threads; matmul called from five places (forward, backward, attention, walk, itself),
// walk recursive directly and through visit, matmul recursive, forward at several depths.
const STACKS = [
  'tid:1;main;train;forward;matmul 30',
  'tid:1;main;train;forward;attention;matmul 20',
  'tid:1;main;train;backward;matmul 25',
  'tid:1;main;train;backward;matmul;gemm_kernel 5',
  'tid:1;main;eval;forward;matmul 10',
  'tid:1;main;walk;walk;walk;matmul 6',
  'tid:1;main;walk;visit;walk;matmul 4',
  'tid:1;main;walk;visit;walk;visit 2',
  'tid:2;worker;forward;matmul;matmul;matmul 7',
  'tid:2;worker;forward;matmul;matmul;gemm_kernel 1',
  'tid:2;worker;loader;read 12',
  'tid:2;worker;forward;attention;softmax 9',
  'tid:2;forward 3',
];
// Main's children are eval 10 < train 80 > walk 12: A–Z and left heavy differ.
const HOSTILE = [
  '</script><img src=x onerror=alert(1)>;"><svg onload=alert(1)> 5',
  '</script><img src=x onerror=alert(1)>;<b onmouseover=alert(2)>bold</b> 3',
];
// A PyTorch profiler trace: aten::mm launched from forward (200 us host, 300 us kernel) and
// backward (100 us host, 120 us kernel).
function kineto() {
  const ev = [
    { ph: 'X', cat: 'python_function', name: 'train.py(10): <module>', pid: 100, tid: 100, ts: 1000, dur: 2000, args: { 'Python id': 1, 'Python parent id': null } },
    { ph: 'X', cat: 'python_function', name: 'model.py(5): forward', pid: 100, tid: 100, ts: 1010, dur: 500, args: { 'Python id': 2, 'Python parent id': 1 } },
    { ph: 'X', cat: 'cpu_op', name: 'aten::mm', pid: 100, tid: 100, ts: 1020, dur: 200, args: { 'External id': 5 } },
    { ph: 'X', cat: 'cuda_runtime', name: 'cudaLaunchKernel', pid: 100, tid: 100, ts: 1030, dur: 5, args: { 'External id': 5, correlation: 7 } },
    { ph: 'X', cat: 'kernel', name: 'sgemm_128x64', pid: 0, tid: 7, ts: 1100, dur: 300, args: { device: 0, stream: 7, correlation: 7 } },
    { ph: 'X', cat: 'python_function', name: 'model.py(9): backward', pid: 100, tid: 100, ts: 1600, dur: 600, args: { 'Python id': 3, 'Python parent id': 1 } },
    { ph: 'X', cat: 'cpu_op', name: 'aten::mm', pid: 100, tid: 100, ts: 1610, dur: 100, args: { 'External id': 6 } },
    { ph: 'X', cat: 'cuda_runtime', name: 'cudaLaunchKernel', pid: 100, tid: 100, ts: 1620, dur: 5, args: { 'External id': 6, correlation: 8 } },
    { ph: 'X', cat: 'kernel', name: 'sgemm_128x64', pid: 0, tid: 7, ts: 1700, dur: 120, args: { device: 0, stream: 7, correlation: 8 } },
    { name: 'process_name', ph: 'M', ts: 0, pid: 100, tid: 0, args: { name: 'python3' } },
    { name: 'thread_name', ph: 'M', ts: 0, pid: 100, tid: 100, args: { name: 'main thread' } },
  ];
  return JSON.stringify({ traceEvents: ev });
}

function write(name, text) { const f = path.join(tmp, name); fs.writeFileSync(f, text); return f; }
function html(name, input, ...extra) {
  const out = path.join(tmp, name + '.html');
  flamefold('flamegraph', input, '-o', out, '--title', name, ...extra);
  return out;
}

// ------------------------------------------------------------------ the expected sandwich
// Worked out from the folded lines alone. Tables: per direct caller (the frame before an
// occurrence, or none) and per direct callee (the frame after it), the weight of the lines
// where that pair occurs, each line once per pair however often the pair repeats in it.
// Graphs: from the outermost (first) occurrence of each line only; the function's total counts
// each line once.
const NONE = '(top of stack)';
function parse(lines) {
  return lines.map((l) => { const at = l.lastIndexOf(' '); return { stack: l.slice(0, at).split(';'), w: Number(l.slice(at + 1)) }; });
}
function expected(stacks, fn) {
  const out = { total: 0, self: 0, callers: new Map(), callees: new Map(), outerCallers: new Map(), outerCallees: new Map() };
  const add = (m, k, w) => m.set(k, (m.get(k) || 0) + w);
  for (const { stack, w } of stacks) {
    const at = [];
    stack.forEach((x, k) => { if (x === fn) at.push(k); });
    if (!at.length) continue;
    out.total += w;
    if (stack[stack.length - 1] === fn) out.self += w;
    for (const c of new Set(at.map((k) => (k > 0 ? stack[k - 1] : NONE)))) add(out.callers, c, w);
    for (const c of new Set(at.filter((k) => k + 1 < stack.length).map((k) => stack[k + 1]))) add(out.callees, c, w);
    add(out.outerCallers, at[0] > 0 ? stack[at[0] - 1] : null, w);
    add(out.outerCallees, at[0] + 1 < stack.length ? stack[at[0] + 1] : null, w);
  }
  out.outerCallers.delete(null);  // at the top of the stack: self weight of the root, no child
  out.outerCallees.delete(null);
  return out;
}
const sorted = (pairs) => [...pairs].map(([k, v]) => [k, v]).sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);
const num = (t) => Number(t.replace(/,/g, ''));

// The rows of a sandwich table as the page shows them: [name, weight text].
const tableRows = (page, kind) => page.$$eval('#sw-' + kind + ' tbody tr', (rows) =>
  rows.map((r) => [r.querySelector('td.name span').textContent, r.querySelector('td.weight').textContent]));
const listNames = (page) => page.$$eval('#table tbody tr td.name span', (t) => t.map((x) => x.textContent));
async function paneBox(page, kind, name, nth = 0) {
  const b = await api(page, ([k, n, i]) => window.flamefold.swFind(k, n, i), [kind, name, nth]);
  assert(b && b.visible, name + ' is not drawn in the ' + kind + ' graph: ' + JSON.stringify(b));
  return b;
}
async function paneCanvas(page, kind) { return page.locator('.sw-graph[data-kind="' + kind + '"] canvas').boundingBox(); }
async function framePixel(page, b) { return api(page, ([x, y]) => window.flamefold.pixel(x, y), [b.x + 2, b.y + b.h / 2]); }

async function main({ open, test }) {
  const stacks = parse(STACKS);
  const file = html('sandwich', write('sandwich.folded', STACKS.join('\n') + '\n'));
  const hostile = html('sandwich-hostile', write('sandwich-hostile.folded', HOSTILE.join('\n') + '\n'));
  const traced = html('sandwich-kineto', write('sandwich-kineto.json', kineto()));
  let page;

  await test('the sandwich view loads; its tables and graphs equal the callers and callees of the folded stacks', async () => {
    page = await open(file);
    const tabs = await page.$$eval('#viewtabs button', (b) => b.map((x) => x.textContent));
    assert(tabs.includes('Sandwich'), 'a Sandwich tab: ' + tabs);
    await page.click('#viewtabs button[data-view="sandwich"]');
    assert(await page.isVisible('.sw-hint'), 'with no function picked, the view says how to pick one');
    const names = [...new Set(stacks.flatMap((s) => s.stack))];
    for (const fn of names) {
      const want = expected(stacks, fn);
      await api(page, (n) => window.flamefold.openSandwich(n), fn);
      const got = await api(page, () => window.flamefold.sandwich());
      assert(got.fn === fn, 'sandwich of ' + fn + ': ' + got.fn);
      assert(got.total === want.total && got.self === want.self, fn + ': total/self ' + got.total + '/' + got.self + ', want ' + want.total + '/' + want.self);
      // The tables as drawn in the page.
      for (const kind of ['callers', 'callees']) {
        const rows = (await tableRows(page, kind)).map(([n, w]) => [n, num(w)]);
        assert(same(sorted(rows), sorted(want[kind])), fn + ' ' + kind + ' table ' + JSON.stringify(rows) + ', want ' + JSON.stringify(sorted(want[kind])));
        const weights = rows.map((r) => r[1]);
        assert(same(weights, weights.slice().sort((a, b) => b - a)), fn + ' ' + kind + ' heaviest first: ' + weights);
      }
      // Both graphs: the function at their root, counted once; its outermost callers and callees next to it.
      assert(got.panes.callers.total === want.total && got.panes.callees.total === want.total, fn + ' graph roots ' + JSON.stringify(got.panes));
      const callers = await api(page, () => window.flamefold.swChildren('callers', 0));
      const callees = await api(page, () => window.flamefold.swChildren('callees', 0));
      assert(same(sorted(callers), sorted(want.outerCallers)), fn + ' caller graph ' + JSON.stringify(callers) + ', want ' + JSON.stringify(sorted(want.outerCallers)));
      assert(same(sorted(callees), sorted(want.outerCallees)), fn + ' callee graph ' + JSON.stringify(callees) + ', want ' + JSON.stringify(sorted(want.outerCallees)));
    }
    // The recursive ones, spelled out: matmul calls itself in 8 samples (the line of 7 has the
    // pair twice), walk itself in 6 (twice in one line) out of 12.
    await api(page, () => window.flamefold.openSandwich('matmul'));
    const mm = await api(page, () => window.flamefold.sandwich());
    assert(same(mm.callers.find((r) => r[0] === 'matmul'), ['matmul', 8]) && mm.total === 108, 'matmul ' + JSON.stringify(mm));
    assert(await page.$eval('#sw-callers tbody tr:has-text("matmul") small', (s) => s.textContent) === 'recursion', 'recursion marked');
    await api(page, () => window.flamefold.openSandwich('walk'));
    const walk = await api(page, () => window.flamefold.sandwich());
    assert(walk.total === 12 && same(walk.callers.find((r) => r[0] === 'walk'), ['walk', 6]), 'walk ' + JSON.stringify(walk));
    const figures = await page.textContent('#sw-figures');
    assert(figures.includes('self 0 samples (0.0%) · total 12 samples (8.96%) · 3 callers · 3 callees'), 'figures: ' + figures);
  });

  await test('a function is picked from the flame graph (right-click menu, s key), the list and the tables', async () => {
    page = await open(file);
    const b = await api(page, () => window.flamefold.find('attention'));
    const c = await page.locator('#canvas').boundingBox();
    await page.mouse.click(c.x + b.x + 3, c.y + b.y + b.h / 2, { button: 'right' });
    await page.waitForSelector('#framemenu:not([hidden])');
    assert((await page.textContent('#framemenu .mtitle')) === 'attention', 'the menu names the frame');
    assert((await api(page, () => window.flamefold.state().zoom)) === 0, 'a right click does not zoom');
    await page.click('#framemenu button:has-text("Callers and callees")');
    assert((await api(page, () => window.flamefold.sandwich().fn)) === 'attention', 'menu: sandwich of attention');
    assert(await page.isVisible('#view-sandwich') && !(await page.isVisible('#view-flame')), 'the view switched');
    // The list: the top-frames table, moved here; a row picks, the search narrows, headings sort.
    assert(await page.isVisible('#view-sandwich #tablebox'), 'the function list is in the sandwich view');
    await page.fill('#search', 'ma');
    await page.press('#search', 'Enter');
    const listed = await listNames(page);
    assert(same(listed.slice().sort(), ['main', 'matmul', 'softmax']), 'the search narrows the list: ' + listed);
    await page.click('#table tbody tr:has-text("matmul")');
    assert((await api(page, () => window.flamefold.sandwich().fn)) === 'matmul', 'a list row picks matmul');
    assert((await page.inputValue('#search')) === 'ma', 'a list row does not search in this view');
    await page.fill('#search', '');
    await page.press('#search', 'Enter');
    await page.click('#table th[data-key="total"]');
    let names = await listNames(page);
    assert(same(names.slice(0, 4), ['matmul', 'main', 'tid:1', 'forward']), 'by total (108, 102, 102 in name order, 80): ' + names);
    await page.click('#table th[data-key="self"]');
    names = await listNames(page);
    assert(names[0] === 'matmul' && names[1] === 'read', 'by self: ' + names);
    assert(await page.$eval('#table tbody tr[aria-selected="true"] td.name span', (s) => s.textContent) === 'matmul', 'the picked function is marked');
    // A caller row opens the caller's sandwich.
    await page.click('#sw-callers tbody tr:has-text("backward")');
    assert((await api(page, () => window.flamefold.sandwich().fn)) === 'backward', 'a caller row opens its sandwich');
    // Back in the flame graph the table is back with its own behaviour; `s` on the focus opens a sandwich.
    await page.click('#viewtabs button[data-view="flame"]');
    assert(await page.isVisible('#lower #tablebox'), 'the table went back under the flame graph');
    await page.click('#table tbody tr:has-text("softmax")');
    assert((await page.inputValue('#search')) === '^softmax$', 'in the flame graph a row still searches');
    await page.fill('#search', '');
    await page.press('#search', 'Enter');
    await page.mouse.click(5, 5);
    for (const k of ['ArrowUp', 'ArrowUp', 'ArrowUp']) await page.keyboard.press(k);  // all, tid:1, main
    assert((await api(page, () => window.flamefold.focus().name)) === 'main', 'focus on main');
    await page.keyboard.press('s');
    assert((await api(page, () => window.flamefold.sandwich().fn)) === 'main', 's opens the focused frame\'s sandwich');
  });

  await test('the sandwich graphs: same colours as the flame graph, zoom by click, tooltip, status line', async () => {
    page = await open(file);
    const main = await framePixel(page, await api(page, () => window.flamefold.find('backward')));
    await api(page, () => window.flamefold.openSandwich('matmul'));
    const b = await paneBox(page, 'callers', 'backward');
    const px = await api(page, ([x, y]) => window.flamefold.swPixel('callers', x, y), [b.x + 2, b.y + b.h / 2]);
    assert(same(px, main), 'backward is drawn in the same colour in both graphs: ' + px + ' vs ' + main);
    // The callers graph grows upwards from matmul (its root at the bottom), the callees graph down.
    const root = await paneBox(page, 'callers', 'matmul');
    assert(b.y < root.y, 'callers above the function');
    const croot = await paneBox(page, 'callees', 'matmul'), kernel = await paneBox(page, 'callees', 'gemm_kernel');
    assert(croot.y < kernel.y, 'callees below the function');
    // Hover: tooltip and status line.
    const c = await paneCanvas(page, 'callers');
    await page.mouse.move(c.x + b.x + 3, c.y + b.y + b.h / 2);
    await page.waitForSelector('#tooltip:not([hidden])');
    const t = (await page.textContent('#tooltip')).replace(/\s+/g, '');
    assert(t.includes('backward') && t.includes('total30') && t.includes('%ofmatmul27.8%'), 'tooltip ' + t);
    const status = await page.textContent('#status');
    assert(status === 'backward — total 30 samples (22.4% of all) · 27.8% of matmul', 'status line: ' + status);
    // Click zooms that graph only; the fragment records it.
    await page.mouse.click(c.x + b.x + 3, c.y + b.y + b.h / 2);
    let sw = await api(page, () => window.flamefold.sandwich());
    assert(sw.panes.callers.zoomName === 'backward' && sw.panes.callees.zoom === 0, 'zoomed ' + JSON.stringify(sw.panes));
    const wide = await paneBox(page, 'callers', 'backward');
    assert(wide.w > b.w * 2, 'backward fills the width: ' + wide.w + ' vs ' + b.w);
    await page.waitForFunction(() => /callers=\d+/.test(location.hash));
    await page.click('.sw-graph[data-kind="callers"] .sw-graph-head .link');
    sw = await api(page, () => window.flamefold.sandwich());
    assert(sw.panes.callers.zoom === 0, 'reset zoom');
    await page.mouse.move(0, 0);
    assert((await page.textContent('#status')) === '', 'the status line empties when the mouse leaves');
  });

  await test('the fragment holds the sandwich; a link restores it', async () => {
    page = await open(file);
    await api(page, () => window.flamefold.openSandwich('forward'));
    const wb = await paneBox(page, 'callers', 'worker');
    const c = await paneCanvas(page, 'callers');
    await page.mouse.click(c.x + wb.x + 3, c.y + wb.y + wb.h / 2);
    const mmb = await paneBox(page, 'callees', 'matmul');
    const c2 = await paneCanvas(page, 'callees');
    await page.mouse.click(c2.x + mmb.x + 3, c2.y + mmb.y + mmb.h / 2);
    await page.waitForFunction(() => /callers=/.test(location.hash) && /callees=/.test(location.hash));
    const link = await page.evaluate(() => location.hash);
    assert(/view=sandwich/.test(link) && /fn=forward/.test(link), 'fragment ' + link);
    const before = await api(page, () => window.flamefold.sandwich());
    const again = await open(file, link);
    const after = await api(again, () => window.flamefold.sandwich());
    assert(same(after, before), 'reopened: ' + JSON.stringify(after) + ' vs ' + JSON.stringify(before));
    assert(await again.isVisible('#view-sandwich'), 'the sandwich view is shown');
    // A hand-written link, and one followed in the same page (hashchange).
    const typed = await open(file, '#view=sandwich&fn=walk');
    assert((await api(typed, () => window.flamefold.sandwich().fn)) === 'walk', 'typed link');
    await typed.evaluate(() => { location.hash = '#view=sandwich&fn=read'; });
    await typed.waitForFunction(() => window.flamefold.sandwich().fn === 'read');
    await typed.evaluate(() => { location.hash = '#search=read'; });
    await typed.waitForFunction(() => window.flamefold.state().search === 'read');
    assert(await typed.isVisible('#view-flame') && (await api(typed, () => window.flamefold.sandwich().fn)) === null, 'a link without view/fn: the flame graph');
    // An unknown function: the view opens with nothing picked.
    const unknown = await open(file, '#view=sandwich&fn=no_such_function');
    assert((await api(unknown, () => window.flamefold.sandwich().fn)) === null && await unknown.isVisible('.sw-hint'), 'unknown function');
  });

  await test('the weight switch updates the sandwich (a Kineto trace: #view=sandwich&fn=aten::mm&weight=gpu)', async () => {
    page = await open(traced, '#view=sandwich&fn=aten%3A%3Amm&weight=gpu');
    let sw = await api(page, () => window.flamefold.sandwich());
    assert(sw.fn === 'aten::mm' && (await api(page, () => window.flamefold.state().columnName)) === 'gpu', 'restored ' + JSON.stringify(sw));
    let rows = await tableRows(page, 'callers');
    assert(same(rows, [['forward', '300 µs'], ['backward', '120 µs']]), 'GPU callers ' + JSON.stringify(rows));
    assert((await page.textContent('#sw-callers th.weight')) === 'GPU', 'the weight column is named');
    assert(sw.total === 420e3 && sw.panes.callees.total === 420e3, 'GPU total ' + sw.total);
    await page.click('#weights button:has-text("CPU")');
    rows = await tableRows(page, 'callers');
    assert(same(rows, [['forward', '200 µs'], ['backward', '100 µs']]), 'CPU callers ' + JSON.stringify(rows));
    assert((await page.textContent('#sw-callers th.weight')) === 'CPU', 'the weight column follows');
    sw = await api(page, () => window.flamefold.sandwich());
    assert(sw.total === 300e3 && sw.panes.callers.total === 300e3, 'CPU total ' + sw.total);
    await page.waitForFunction(() => !/weight=gpu/.test(location.hash) && /fn=aten%3A%3Amm/.test(location.hash));
  });

  await test('keys: arrows move the focus box, Enter zooms, Esc resets; ? lists the keys', async () => {
    page = await open(file);
    await page.mouse.click(5, 5);
    const focus = () => api(page, () => window.flamefold.focus());
    const press = async (...keys) => { for (const k of keys) await page.keyboard.press(k); return (await focus()).name; };
    assert((await press('ArrowUp')) === 'all', 'the first arrow focuses the root');
    assert((await press('ArrowUp')) === 'tid:1', 'up: the heaviest child (flame graph: children above)');
    assert((await press('ArrowRight')) === 'tid:2', 'right: the next sibling');
    assert((await press('ArrowLeft')) === 'tid:1', 'left: back');
    assert((await press('ArrowUp', 'ArrowUp')) === 'train', 'up twice: main, then its heaviest child');
    assert((await press('ArrowLeft')) === 'eval' && (await press('ArrowRight', 'ArrowRight')) === 'walk', 'siblings in drawing order');
    assert((await press('ArrowRight')) === 'walk', 'no sibling further right: stays');
    assert((await press('ArrowDown')) === 'main' && (await press('ArrowUp')) === 'walk', 'down to the parent and up to the child left');
    // The focus box is drawn in the accent colour around the frame.
    const f = await focus();
    const edge = await api(page, ([x, y]) => window.flamefold.pixel(x, y), [f.x + f.w / 2, f.y + 1]);
    assert(same(edge, [47, 111, 222]), 'focus ring in the accent colour: ' + edge);
    assert((await page.textContent('#status')).startsWith('walk — total 12 samples'), 'the status line names the focus');
    await page.keyboard.press('Enter');
    assert((await api(page, () => window.flamefold.state().zoomName)) === 'walk', 'Enter zooms to the focus');
    // In an icicle the keys follow the drawing: down goes to the children.
    await page.click('#icicle');
    await page.mouse.click(5, 5);
    assert((await press('ArrowDown')) === 'visit', 'icicle: down to a child (walk\'s two weigh the same: the first)');
    await page.click('#flame');
    await page.mouse.click(5, 5);
    // ? opens the list of keys; Esc closes it without touching the zoom.
    await page.keyboard.press('?');
    assert(await page.isVisible('#keys'), '? opens the key list');
    const text = await page.textContent('#keys');
    for (const k of ['Esc', 'Enter', '←', '↑', '?', '/']) assert(text.includes(k), 'the key list names ' + k);
    await page.screenshot({ path: path.join(args.tmp, 'sandwich-keys.png') });
    await page.keyboard.press('Escape');
    assert(!(await page.isVisible('#keys')), 'Esc closes the list');
    assert((await api(page, () => window.flamefold.state().zoomName)) === 'walk', '... and keeps the zoom');
    await page.keyboard.press('Escape');
    assert((await api(page, () => window.flamefold.state().zoom)) === 0, 'Esc resets the zoom');
    // In the sandwich: the keys move in a graph; Esc unzooms, then clears, then leaves.
    await api(page, () => window.flamefold.openSandwich('forward'));
    await page.mouse.click(5, 5);
    assert((await press('ArrowDown')) === 'forward', 'sandwich: focus on the callees graph root');
    assert((await press('ArrowDown')) === 'matmul', 'down: its heaviest callee');
    await page.keyboard.press('Enter');
    assert((await api(page, () => window.flamefold.sandwich().panes.callees.zoomName)) === 'matmul', 'Enter zooms the callees graph');
    await page.keyboard.press('Escape');
    assert((await api(page, () => window.flamefold.sandwich().panes.callees.zoom)) === 0, 'Esc: unzoomed');
    await page.keyboard.press('Escape');
    assert((await api(page, () => window.flamefold.sandwich().fn)) === null, 'Esc: function cleared');
    await page.keyboard.press('Escape');
    assert(await page.isVisible('#view-flame'), 'Esc: back to the flame graph');
  });

  await test('left heavy order: heaviest child first, in the flame graph and the sandwich; kept in the fragment', async () => {
    page = await open(file);
    const xs = async () => {
      const out = {};
      for (const n of ['eval', 'train', 'walk']) out[n] = (await api(page, (x) => window.flamefold.find(x), n)).x;
      return out;
    };
    let x = await xs();
    assert(x.eval < x.train && x.train < x.walk, 'A–Z: eval, train, walk ' + JSON.stringify(x));
    await page.click('#order button[data-value="heavy"]');
    x = await xs();
    assert(x.train < x.walk && x.walk < x.eval, 'left heavy: train (80), walk (12), eval (10) ' + JSON.stringify(x));
    assert(x.train === 0, 'the heaviest at the left edge');
    await page.waitForFunction(() => /order=heavy/.test(location.hash));
    // The sandwich's graphs are ordered the same way.
    await api(page, () => window.flamefold.openSandwich('matmul'));
    const kids = (await api(page, () => window.flamefold.swChildren('callers', 0))).map((k) => k[0]);
    assert(same(kids, ['forward', 'backward', 'attention', 'walk']), 'callers of matmul, heaviest first: ' + kids);
    const fb = await paneBox(page, 'callers', 'forward'), bb = await paneBox(page, 'callers', 'backward');
    assert(fb.x === 0 && bb.x > fb.x, 'boxes follow: ' + fb.x + ', ' + bb.x);
    // Zoom carries over an order switch; the link restores the order.
    await page.click('#viewtabs button[data-view="flame"]');
    const tb = await api(page, () => window.flamefold.find('train'));
    await api(page, (i) => window.flamefold.zoomTo(i), tb.node);
    await page.click('#order button[data-value="name"]');
    assert((await api(page, () => window.flamefold.state().zoomName)) === 'train', 'the zoom follows the order switch');
    await page.click('#order button[data-value="heavy"]');
    await page.waitForFunction(() => /order=heavy/.test(location.hash) && /zoom=/.test(location.hash));
    const link = await page.evaluate(() => location.hash);
    const again = await open(file, link);
    assert((await api(again, () => window.flamefold.state().zoomName)) === 'train', 'link: zoom ' + link);
    assert(await again.$eval('#order button[data-value="heavy"]', (b) => b.getAttribute('aria-pressed')) === 'true', 'link: heavy order');
  });

  await test('the status line names the frame under the mouse with its total and share', async () => {
    page = await open(file);
    const b = await api(page, () => window.flamefold.find('train'));
    const c = await page.locator('#canvas').boundingBox();
    await page.mouse.move(c.x + b.x + 5, c.y + b.y + b.h / 2);
    await page.waitForFunction(() => document.getElementById('status').textContent !== '');
    const text = await page.textContent('#status');
    assert(text === 'train — total 80 samples (59.7% of all), self 0 samples', 'status ' + text);  // 80 of 134
    assert(await page.isVisible('#status'), 'shown');
  });

  await test('differential profiles: the sandwich opens, widths by the after side', async () => {
    const before = ['main;a;matmul 10', 'main;b;matmul 30', 'main;b;other 5'];
    const after = ['main;a;matmul 25', 'main;b;matmul 5', 'main;c;matmul 4', 'main;b;other 5'];
    const d = path.join(tmp, 'sandwich-diff.html');
    flamefold('diff', write('sw-before.folded', before.join('\n') + '\n'), write('sw-after.folded', after.join('\n') + '\n'), '-o', d);
    page = await open(d, '#view=sandwich&fn=matmul');
    const sw = await api(page, () => window.flamefold.sandwich());
    const a = expected(parse(after), 'matmul');
    assert(sw.fn === 'matmul' && sw.total === a.total && sw.panes.callers.total === a.total, 'after side: ' + JSON.stringify(sw));
    const rows = (await tableRows(page, 'callers')).map(([n, w]) => [n, num(w)]);
    assert(same(sorted(rows), sorted(a.callers)), 'callers (after) ' + JSON.stringify(rows));
    // Colours by total change: a grew (red), b shrank (blue).
    await page.click('#colourby button[data-value="total"]');
    const pa = await paneBox(page, 'callers', 'a'), pb = await paneBox(page, 'callers', 'b');
    const ca = await api(page, ([x, y]) => window.flamefold.swPixel('callers', x, y), [pa.x + 2, pa.y + 4]);
    const cb = await api(page, ([x, y]) => window.flamefold.swPixel('callers', x, y), [pb.x + 2, pb.y + 4]);
    assert(ca[0] === 255 && ca[2] < 255 && cb[2] === 255 && cb[0] < 255, 'grew red, shrank blue: ' + ca + ' / ' + cb);
    await page.click('#widthby button[data-value="before"]');
    const sb = await api(page, () => window.flamefold.sandwich());
    assert(sb.panes.callers.total === expected(parse(before), 'matmul').total, 'width by before: ' + sb.panes.callers.total);
    const bc = await paneBox(page, 'callers', 'c');
    assert(bc.w === 0, 'c is new: no width before');
  });

  await test('hostile names in the sandwich stay text', async () => {
    page = await open(hostile);
    const name = '<b onmouseover=alert(2)>bold</b>';
    const b = await api(page, (n) => window.flamefold.find(n), name);
    const c = await page.locator('#canvas').boundingBox();
    await page.mouse.click(c.x + b.x + 3, c.y + b.y + b.h / 2, { button: 'right' });
    assert((await page.textContent('#framemenu .mtitle')) === name, 'menu title as text');
    await page.click('#framemenu button:has-text("Callers and callees")');
    assert((await page.textContent('#sw-name')) === name, 'heading as text');
    const callers = await tableRows(page, 'callers');
    assert(same(callers, [['</script><img src=x onerror=alert(1)>', '3']]), 'caller as text ' + JSON.stringify(callers));
    const cb = await paneBox(page, 'callers', '</script><img src=x onerror=alert(1)>');
    const pc = await paneCanvas(page, 'callers');
    await page.mouse.move(pc.x + cb.x + 3, pc.y + cb.y + cb.h / 2);
    await page.waitForSelector('#tooltip:not([hidden])');
    assert((await page.textContent('#tooltip .tname')) === '</script><img src=x onerror=alert(1)>', 'tooltip as text');
    assert((await page.evaluate(() => document.querySelectorAll('img, svg, b, iframe, object, embed').length)) === 0, 'nothing injected');
    await page.waitForTimeout(100);
  });

  await test('screenshots of the sandwich view, light and dark (it follows the system)', async () => {
    page = await open(file, '#view=sandwich&fn=matmul');
    const b = await paneBox(page, 'callers', 'forward');
    const c = await paneCanvas(page, 'callers');
    await page.mouse.move(c.x + b.x + 5, c.y + b.y + b.h / 2);
    await page.waitForSelector('#tooltip:not([hidden])');
    const light = path.join(args.tmp, 'sandwich.png');
    await page.screenshot({ path: light, fullPage: true });
    assert(fs.statSync(light).size > 10000, 'screenshot written');
    const bgLight = await api(page, () => window.flamefold.swPixel('callees', window.flamefold.sandwich().panes.callees.width - 3, 30));
    assert(bgLight[0] > 200, 'light ground ' + bgLight);
    await page.emulateMedia({ colorScheme: 'dark' });
    // The graphs redraw on the media change; a loaded machine may take more than a frame.
    await page.waitForFunction(() => {
      const p = window.flamefold.swPixel('callees', window.flamefold.sandwich().panes.callees.width - 3, 30);
      return p[0] < 60 && p[1] < 60 && p[2] < 60;
    }, null, { timeout: 5000 }).catch(() => {});
    const bg = await api(page, () => window.flamefold.swPixel('callees', window.flamefold.sandwich().panes.callees.width - 3, 30));
    assert(bg[0] < 60 && bg[1] < 60 && bg[2] < 60, 'dark ground in the callees graph: ' + bg);
    const panel = await page.$eval('.sw-table', (e) => getComputedStyle(e).backgroundColor);
    assert(panel === 'rgb(28, 32, 39)', 'dark panels: ' + panel);
    await page.keyboard.press('?');
    assert((await page.$eval('#keys .card', (e) => getComputedStyle(e).backgroundColor)) === 'rgb(28, 32, 39)', 'dark key list');
    await page.keyboard.press('Escape');
    await page.screenshot({ path: path.join(args.tmp, 'sandwich-dark.png'), fullPage: true });
    await page.emulateMedia({ colorScheme: 'light' });
  });

  console.log('screenshots in ' + args.tmp);
}

run(main).catch((e) => { console.error(e); process.exit(1); });
