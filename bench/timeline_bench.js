#!/usr/bin/env node
// The flame chart view of a flamefold HTML file in headless Debian chromium
// (tests/browser/browser.js): the page's own performance.now() figures for first paint (the
// flame graph, from navigation start), the flame chart's first draw when the page is opened at
// #view=timeline (decode + layout + draw, from navigation start), and the draw time of every
// pan/zoom frame: zooming in from the whole chart to a few µs around a busy point and out again,
// panning at three zoom levels, a range picked on the strip (the flame graph reweighed), and
// drags through the mouse. Reports medians over runs, as JSON.
//   node bench/timeline_bench.js FILE.html [runs=3]
'use strict';
const path = require('path');
const { launch } = require(path.join(__dirname, '../tests/browser/browser.js'));

async function once(file) {
  const browser = await launch();
  if (!browser) throw new Error('no chromium');
  const plain = await browser.open(file);
  const firstPaint = await plain.evaluate(() => window.flamefold.timings.firstPaint);
  await plain.close();
  const page = await browser.open(file, '#view=timeline');
  await page.waitForFunction(() => window.flamefold.timings.chartFirstDraw > 0);
  const r = await page.evaluate(async () => {
    const f = window.flamefold, t = f.timeline, timings = f.timings;
    const st = t.state();
    const frames = { zoom: [], pan: [], fit: 0 };
    t.setTimeWindow(st.windowStart, st.windowEnd);
    frames.fit = timings.lastChartDraw;
    // Zoom in around a third of the way, 25 steps of 0.6x, then out again.
    const at = st.windowStart + (st.windowEnd - st.windowStart) / 3;
    for (let k = 0; k < 25; k++) frames.zoom.push(t.zoom(0.6, at));
    for (let k = 0; k < 25; k++) frames.zoom.push(t.zoom(1 / 0.6, at));
    // Pans at the whole chart, at 1/50 of it and at 1/5000.
    for (const part of [1, 50, 5000]) {
      const span = (st.windowEnd - st.windowStart) / part;
      t.setTimeWindow(at - span / 2, at + span / 2);
      for (let k = 0; k < 10; k++) frames.pan.push(t.pan(span * 0.1));
    }
    t.setTimeWindow(st.windowStart, st.windowEnd);
    // A range of a tenth of the chart: the flame graph reweighed from the events.
    t.setRange(st.windowStart + (st.windowEnd - st.windowStart) * 0.4, st.windowStart + (st.windowEnd - st.windowStart) * 0.5);
    const range = timings.lastRange;
    t.setRange(null);
    t.setTimeWindow(st.windowStart, st.windowEnd);
    return { events: st.events, traceEvents: st.traceEvents, scope: st.scope, firstStep: st.firstStep, lastStep: st.lastStep,
      chartFirstDraw: timings.chartFirstDraw, chartDecode: timings.chartDecode, frames, range };
  });
  // Drags with the mouse: each move is one frame; its draw time as the page measured it.
  const c = await page.locator('.tl-canvas').boundingBox();
  const drag = [];
  await page.mouse.move(c.x + c.width / 2, c.y + 40);
  await page.mouse.down();
  for (let k = 1; k <= 20; k++) {
    await page.mouse.move(c.x + c.width / 2 - 15 * k, c.y + 40);
    await page.evaluate(() => new Promise((ok) => requestAnimationFrame(() => requestAnimationFrame(ok))));
    drag.push(await page.evaluate(() => window.flamefold.timings.lastChartDraw));
  }
  await page.mouse.up();
  r.frames.drag = drag;
  r.firstPaint = firstPaint;
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
  const max = (xs) => Math.max(...xs);
  const frames = (r) => [...r.frames.zoom, ...r.frames.pan, ...r.frames.drag, r.frames.fit];
  console.log(JSON.stringify({
    file, runs, events: all[0].events, trace_events: all[0].traceEvents, scope: all[0].scope,
    steps: all[0].firstStep + '-' + all[0].lastStep,
    first_paint_ms: med(all.map((r) => r.firstPaint)),
    chart_first_draw_ms: med(all.map((r) => r.chartFirstDraw)),
    chart_decode_layout_ms: med(all.map((r) => r.chartDecode)),
    whole_chart_frame_ms: med(all.map((r) => r.frames.fit)),
    frame_ms_median: med(all.flatMap(frames)),
    frame_ms_max: med(all.map((r) => max(frames(r)))),
    zoom_frame_ms_max: med(all.map((r) => max(r.frames.zoom))),
    pan_frame_ms_max: med(all.map((r) => max(r.frames.pan))),
    drag_frame_ms_max: med(all.map((r) => max(r.frames.drag))),
    range_reweigh_ms: med(all.map((r) => r.range)),
  }, null, 1));
})().catch((e) => { console.error(e); process.exit(1); });
