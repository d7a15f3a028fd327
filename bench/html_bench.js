#!/usr/bin/env node
// Opens a flamefold HTML file in headless Debian chromium (tests/browser/browser.js) and
// reports, as JSON, the page's own performance.now() figures: first paint (from navigation
// start), decode, the time of zooms and searches done through the viewer's code paths, the
// sandwich view of three functions (the heaviest, the one with the most nodes, the leaf with
// the most nodes: trees, tables and both graphs drawn) and the left-heavy order switch.
//   node bench/html_bench.js FILE.html [runs=3]
'use strict';
const path = require('path');
const { launch } = require(path.join(__dirname, '../tests/browser/browser.js'));

async function once(file) {
  const browser = await launch();
  if (!browser) throw new Error('no chromium');
  const page = await browser.open(file);
  // The viewer makes the names it has not shown yet after the first paint (timings.namesMade:
  // null while it does, then ms after the paint; pages before it have none): the interactions
  // below are timed once it is done, as a user's would be a moment after the graph shows.
  await page.waitForFunction(() => window.flamefold.timings.namesMade !== null, null, { timeout: 60000 });
  const r = await page.evaluate(async () => {
    const f = window.flamefold, t = f.timings;
    const st = f.state();
    // Zoom into the widest child of the root, then into a frame two levels down, then out.
    const zooms = [];
    const widest = (n) => {
      let node = 0;
      for (let d = 0; d < n; d++) { const c = f.widestChild(node); if (c < 0) break; node = c; }
      return node;
    };
    for (const d of [1, 3, 0]) {
      const node = d === 0 ? 0 : widest(d);
      f.zoomTo(node);
      zooms.push(t.lastZoom);
    }
    const searches = [];
    for (const q of ['forward', 'operation_1[0-9]', 'load|step', '^func_', 'no-such-frame']) {
      f.search(q);
      searches.push(t.lastSearch);
    }
    f.search('');
    // A differential page (flamefold diff): width by larger and by before (a layout over
    // another column, then a redraw), colour by total change, then back.
    const switches = [];
    if (st.diff) {
      for (const [fn, arg] of [['setWidthBy', 'max'], ['setColourBy', 'total'], ['setWidthBy', 'before'], ['setWidthBy', 'after'], ['setColourBy', 'self']]) {
        const t0 = performance.now();
        f[fn](arg);
        switches.push(performance.now() - t0);
      }
    }
    const hit = f.hitTest(600, f.state().height - 9);
    const lastDraw = t.lastDraw, drawn = f.lastDrawStats;
    // The sandwich of each candidate, each built fresh (a function shown before is cached).
    const sandwich = {};
    const cand = f.sandwichCandidates ? f.sandwichCandidates() : {};  // pages before issue 13 have none
    const seen = new Set();
    for (const [k, c] of Object.entries(cand)) {
      if (!c || seen.has(c.name)) continue;  // one function may be two candidates: timed once (then it is cached)
      seen.add(c.name);
      const ms = f.openSandwich(c.name), sw = f.sandwich();
      sandwich[k] = Object.assign({ ms, callerNodes: sw.panes.callers.nodes, calleeNodes: sw.panes.callees.nodes }, c);
    }
    // Left heavy on (the sandwich view is on: both its graphs and the main one reorder) and off.
    const order = [];
    if (document.getElementById('order')) for (const v of ['heavy', 'name']) { document.querySelector('#order button[data-value="' + v + '"]').click(); order.push(t.lastOrder); }
    return { nodes: st.nodes, firstPaint: t.firstPaint, decode: t.decode, startToPaint: t.startToPaint, namesMade: t.namesMade,
      zooms, searches, switches, lastDraw, drawn, hit: !!hit, sandwich, order };
  });
  await browser.close();
  if (browser.problems.console.length || browser.problems.pageErrors.length || browser.problems.requests.length)
    throw new Error(JSON.stringify(browser.problems));
  return r;
}

(async () => {
  const file = process.argv[2], runs = Number(process.argv[3] || 3);
  const all = [];
  for (let k = 0; k < runs; k++) all.push(await once(file));
  const med = (xs) => xs.slice().sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  const out = {
    file, nodes: all[0].nodes, runs,
    first_paint_ms: med(all.map((r) => r.firstPaint)),
    decode_ms: med(all.map((r) => r.decode)),
    ...(all[0].namesMade !== undefined ? { names_made_after_paint_ms: med(all.map((r) => r.namesMade)) } : {}),
    zoom_ms_max: med(all.map((r) => Math.max(...r.zooms))),
    search_ms_max: med(all.map((r) => Math.max(...r.searches))),
    zoom_ms_median: med(all.flatMap((r) => r.zooms)),
    search_ms_median: med(all.flatMap((r) => r.searches)),
    ...(all[0].switches.length ? { diff_switch_ms_max: med(all.map((r) => Math.max(...r.switches))) } : {}),
    sandwich_ms: Object.fromEntries(Object.entries(all[0].sandwich).map(([k, c]) => [k,
      { name: c.name, nodes: c.nodes, callerNodes: c.callerNodes, calleeNodes: c.calleeNodes, median: med(all.map((r) => r.sandwich[k].ms)) }])),
    ...(all[0].order.length ? { order_heavy_ms: med(all.map((r) => r.order[0])), order_name_ms: med(all.map((r) => r.order[1])) } : {}),
    each: all,
  };
  console.log(JSON.stringify(out, null, 1));
})().catch((e) => { console.error(e); process.exit(1); });
