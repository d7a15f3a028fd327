#!/usr/bin/env node
// The page's side of issue 13's rank view and readable ML stacks, in headless Debian chromium
// (tests/browser/browser.js), as JSON medians over `runs` page loads:
//   ranks: entering the rank view (merged tree, per-level sums, the comparison, table, draw),
//          the comparison alone, picking other ranks, the weight switch and a level switch there;
//   names: the merge-modules switch (the tree rebuilt) and the short-names switch, on and off.
//   node bench/viewer_ml_bench.js ranks|names FILE.html [runs=3]
'use strict';
const path = require('path');
const { launch } = require(path.join(__dirname, '../tests/browser/browser.js'));

async function once(mode, file) {
  const browser = await launch();
  if (!browser) throw new Error('no chromium');
  const page = await browser.open(file);
  const r = await page.evaluate((mode) => {
    const f = window.flamefold, t = f.timings, time = (fn) => { const t0 = performance.now(); fn(); return performance.now() - t0; };
    const out = { nodes: f.state().nodes, firstPaint: t.firstPaint };
    if (mode === 'ranks') {
      out.enter = time(() => f.setView('ranks'));
      out.firstCompare = t.rankCompare;
      const rows = f.ranks().rows;
      out.units = rows.length;
      out.compareNodes = f.state().nodes;
      out.picks = [];
      for (const label of [rows[1], rows[rows.length - 1], rows[rows.length >> 1], rows[2], rows[0]]) {
        out.picks.push(time(() => f.pickRank(label)));
      }
      out.pickCompare = t.rankCompare;
      const other = [...document.querySelectorAll('#weights button')].map((b) => Number(b.dataset.col)).find((c) => c !== f.state().column);
      if (other !== undefined) out.weight = time(() => f.setColumn(other));
      const levels = f.ranks().levels;
      if (levels.includes('thread')) out.threadLevel = time(() => f.setRankLevel('thread'));
      out.leave = time(() => f.setView('flame'));
    } else {
      const n = f.names();
      if (n.moduleFrames) {
        out.modulesOn = time(() => f.setMergeModules(true));
        out.nodesMerged = f.state().nodes;
        out.modulesOff = time(() => f.setMergeModules(false));
      }
      if (n.shortable) {
        out.shortOn = time(() => f.setShortNames(true));
        out.shortOff = time(() => f.setShortNames(false));
      }
    }
    return out;
  }, mode);
  await browser.close();
  if (browser.problems.console.length || browser.problems.pageErrors.length || browser.problems.requests.length)
    throw new Error(JSON.stringify(browser.problems));
  return r;
}

(async () => {
  const [mode, file] = process.argv.slice(2, 4), runs = Number(process.argv[4] || 3);
  const all = [];
  for (let k = 0; k < runs; k++) all.push(await once(mode, file));
  const med = (xs) => xs.slice().sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  const out = { file, mode, runs };
  for (const key of Object.keys(all[0])) {
    const v = all[0][key];
    if (typeof v === 'number') out[key] = Math.round(med(all.map((r) => r[key])) * 10) / 10;
    else if (Array.isArray(v)) out[key + '_median'] = Math.round(med(all.flatMap((r) => r[key])) * 10) / 10;
  }
  console.log(JSON.stringify(out));
})().catch((e) => { console.error(e); process.exit(1); });
