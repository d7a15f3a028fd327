// ---------------------------------------------------------------- flame chart (time-ordered)
// Traced inputs (Kineto, nsys, Ascend) carry their events in payload section 1
// (PayloadSection::kTimeline, layout at the top of src/flamefold/writers/html.cpp): per event its
// lane (a thread or a device stream), start, end, call-tree node and, for device work, its
// launch. The chart draws them by time, one row per depth of the call tree on each thread, the
// device streams below the thread that launches most of their work. Above it a strip shows host
// and device busy time over the whole trace; dragging across it picks a time range, and the flame
// graph then weighs only that range: its weights are recomputed from the events (each knows its
// node) and handed to the flame graph through setBaseWeights() (70-groups.js).
// Sampled inputs (perf, folded, pstats) have no section: the view is not offered.
const TIMELINE_SECTION = 1;
const TL_ROW = 16;      // px per row of the chart
const TL_HEAD = 17;     // px of a lane's name band
const TL_GAP = 3;       // px between lanes
const TL_STRIP_ROW = 13;
const TL = {
  T: null,            // the decoded section (decodeTimeline)
  el: null, t0: 0, t1: 1, width: 0, height: 0, dpr: 1, raf: 0,
  hover: -1, linked: [], focus: null, focusList: null, focusAt: -1, focusName: '',
  range: null,        // [start, end] in ns from the trace's first event, or null
  drag: null, stripDrag: null, b2v: null, kids: null, stripCache: null, drawn: false,
};

function timelineBytes() { return S.data ? S.data.sections.get(TIMELINE_SECTION) : undefined; }

// varint/zigzag with BigInt, for the one absolute time (ns since an epoch: past 2^53).
function bigZigzag(r) {
  let x = 0n, s = 0n, c;
  do { c = r.b[r.p++]; x |= BigInt(c & 127) << s; s += 7n; } while (c & 128);
  return (x & 1n) ? -((x + 1n) >> 1n) : x >> 1n;
}

function decodeTimeline(bytes) {
  const r = new Reader(bytes), utf8 = new TextDecoder('utf-8');
  const un = (v) => (v % 2 ? -(v + 1) / 2 : v / 2);
  const zz = () => un(r.varint());
  const text = () => utf8.decode(r.bytes(r.varint()));
  const version = r.varint();
  if (version !== 1) throw new Error('unknown flame chart data, version ' + version);
  const T = { origin: bigZigzag(r) };
  T.traceEnd = r.varint(); T.traceEvents = r.varint(); T.limit = r.varint(); T.scope = r.varint();
  T.firstStep = zz(); T.lastStep = zz(); T.windowStart = r.varint(); T.windowEnd = r.varint();
  const flags = r.varint();
  T.stepsOption = !!(flags & 1); T.windowOption = !!(flags & 2);
  T.ranks = [];
  for (let k = r.varint(); k > 0; k--) T.ranks.push(text());
  T.lanes = [];
  for (let k = r.varint(); k > 0; k--) {
    const rd = r.varint();
    T.lanes.push({ rank: Math.floor(rd / 2), device: rd % 2 === 1, pid: zz(), tid: zz(), name: text(), process: text() });
  }
  const steps = r.varint();
  T.steps = { n: steps, rank: new Uint32Array(steps), number: new Float64Array(steps), start: new Float64Array(steps), end: new Float64Array(steps) };
  for (let k = 0, num = 0, at = 0; k < steps; k++) {
    T.steps.rank[k] = r.varint();
    num += zz(); at += zz();
    T.steps.number[k] = num; T.steps.start[k] = at; T.steps.end[k] = at + r.varint();
  }
  T.busyStart = zz(); T.bucket = r.varint();
  const B = r.varint();
  T.hostBusy = r.varints(B, new Float64Array(B));
  T.deviceBusy = r.varints(B, new Float64Array(B));
  const n = r.varint(), L = T.lanes.length;
  const laneStart = new Uint32Array(L + 1);
  for (let l = 0; l < L; l++) laneStart[l + 1] = laneStart[l] + r.varint();
  const start = r.varints(n, new Float64Array(n)), lane = new Uint32Array(n);
  for (let l = 0; l < L; l++) {
    let t = 0;
    for (let i = laneStart[l]; i < laneStart[l + 1]; i++) { t += start[i]; start[i] = t; lane[i] = l; }
  }
  const end = r.varints(n, new Float64Array(n));
  for (let i = 0; i < n; i++) end[i] += start[i];
  const raw = r.varints(n, new Float64Array(n)), node = new Int32Array(n);
  for (let i = 0, v = 0; i < n; i++) { v += un(raw[i]); node[i] = v; }
  r.varints(n, raw);
  const launch = new Int32Array(n);
  for (let i = 0, last = 0; i < n; i++) {
    if (raw[i] === 0) { launch[i] = -1; continue; }
    last += un(raw[i] - 1); launch[i] = last;
  }
  Object.assign(T, { n, lane, laneStart, start, end, node, launch });
  return T;
}

// Rows: a thread's events by the depth of their node below the thread's shallowest, a stream's
// packed greedily (work on one stream rarely overlaps). Lanes in track order, each stream after
// the thread that launched most of its work. Then every row's events by start, in flat arrays.
function layoutTimeline(T) {
  const { n, lane, laneStart, start, end, node, launch } = T, L = T.lanes.length, depth = S.data.tree.depth;
  const row = new Uint32Array(n), rows = new Uint32Array(L);
  for (let l = 0; l < L; l++) {
    const a = laneStart[l], b = laneStart[l + 1];
    if (T.lanes[l].device) {
      const ends = [];
      for (let i = a; i < b; i++) {
        let k = 0;
        while (k < ends.length && ends[k] > start[i]) k++;
        ends[k] = end[i];
        row[i] = k;
      }
      rows[l] = ends.length;
    } else {
      let min = Infinity, max = 0;
      for (let i = a; i < b; i++) { const d = depth[node[i]]; if (d < min) min = d; if (d > max) max = d; }
      for (let i = a; i < b; i++) row[i] = depth[node[i]] - min;
      rows[l] = b > a ? max - min + 1 : 0;
    }
  }
  // Which thread launches most of each stream's work.
  const votes = new Map();
  for (let i = 0; i < n; i++) {
    if (launch[i] < 0) continue;
    const key = lane[i] * L + lane[launch[i]];
    votes.set(key, (votes.get(key) || 0) + 1);
  }
  const owner = new Int32Array(L).fill(-1), best = new Float64Array(L);
  for (const [key, v] of votes) {
    const d = Math.floor(key / L), h = key % L;
    if (v > best[d]) { best[d] = v; owner[d] = h; }
  }
  const order = [];
  for (let l = 0; l < L; l++) {
    if (T.lanes[l].device) continue;
    order.push(l);
    for (let d = 0; d < L; d++) if (T.lanes[d].device && owner[d] === l) order.push(d);
  }
  for (let d = 0; d < L; d++) if (T.lanes[d].device && owner[d] < 0) order.push(d);
  const laneY = new Float64Array(L), rowY0 = new Float64Array(L), rowBase = new Uint32Array(L + 1);
  let y = 0;
  for (const l of order) { laneY[l] = y; rowY0[l] = y + TL_HEAD; y += TL_HEAD + rows[l] * TL_ROW + TL_GAP; }
  for (let l = 0; l < L; l++) rowBase[l + 1] = rowBase[l] + rows[l];
  const R = rowBase[L], first = new Uint32Array(R + 1);
  for (let i = 0; i < n; i++) first[rowBase[lane[i]] + row[i] + 1]++;
  for (let g = 0; g < R; g++) first[g + 1] += first[g];
  const fill = first.slice(0, R), ev = new Uint32Array(n), rs = new Float64Array(n), re = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    const k = fill[rowBase[lane[i]] + row[i]]++;
    ev[k] = i; rs[k] = start[i]; re[k] = end[i];
  }
  const ranks = new Set(T.lanes.map((x) => x.rank)).size > 1;
  const label = (l) => {
    const x = T.lanes[l], pre = ranks ? (T.ranks[x.rank] || 'rank ' + x.rank) + ' · ' : '';
    if (x.device) return pre + x.name + (owner[l] >= 0 ? '' : ' (no launch in the chart)');
    return pre + (x.process || 'process ' + x.pid) + ' › ' + x.name;
  };
  T.lay = { row, rows, order, laneY, rowY0, rowBase, first, ev, rs, re, contentH: Math.max(y, 40), labels: order.map(label), owner };
}

function tlEnsure() {
  if (!TL.T) {
    const t0 = performance.now();
    TL.T = decodeTimeline(timelineBytes());
    layoutTimeline(TL.T);
    api.timings.chartDecode = performance.now() - t0;
    TL.t0 = TL.T.windowStart; TL.t1 = Math.max(TL.T.windowEnd, TL.t0 + 1);
  }
  return TL.T;
}

// ---- the section -------------------------------------------------------------------------
function makeTimelineSection() {
  const sec = document.createElement('section');
  sec.id = 'view-timeline';
  const head = document.createElement('div'); head.className = 'tl-head';
  const scope = document.createElement('p'); scope.className = 'tl-scope';
  const hint = document.createElement('span'); hint.className = 'hint';
  hint.textContent = 'wheel: zoom · drag: pan · W/S zoom, A/D pan, 0 fit · click a block: its frame in the flame graph · drag across the strip: a time range for the flame graph';
  head.append(scope, hint);
  const stripBox = document.createElement('div'); stripBox.className = 'tl-stripbox';
  const strip = document.createElement('canvas'); strip.className = 'tl-strip';
  const stripLegend = document.createElement('div'); stripLegend.className = 'tl-striplegend';
  for (const [cls, text] of [['host', 'host busy'], ['device', 'device busy'], ['window', 'in the chart'], ['range', 'range']]) {
    const it = document.createElement('span'); const sw = document.createElement('i'); sw.className = cls;
    const t = document.createElement('span'); t.textContent = text; it.append(sw, t); stripLegend.append(it);
  }
  stripBox.append(strip, stripLegend);
  const ruler = document.createElement('canvas'); ruler.className = 'tl-ruler';
  const scroll = document.createElement('div'); scroll.className = 'tl-scroll';
  const canvasEl = document.createElement('canvas'); canvasEl.className = 'tl-canvas';
  const spacer = document.createElement('div'); spacer.className = 'tl-spacer';
  scroll.append(canvasEl, spacer);
  const focus = document.createElement('div'); focus.className = 'tl-focus';
  sec.append(head, stripBox, ruler, scroll, focus);
  TL.el = { sec, scope, strip, ruler, scroll, canvas: canvasEl, spacer, focus, ctx: canvasEl.getContext('2d', { alpha: false }),
    sctx: strip.getContext('2d'), rctx: ruler.getContext('2d') };
  wireTimeline();
  return sec;
}

function scopeText(T) {
  const num = (v) => v.toLocaleString('en-US');
  const held = num(T.n) + (T.n === 1 ? ' event' : ' events');
  const chosen = T.stepsOption && T.windowOption ? ' (as --steps and --window chose)' : T.stepsOption ? ' (as --steps chose)' : T.windowOption ? ' (as --window chose)' : '';
  if (T.scope === 0) return 'The chart holds the whole trace: ' + held + chosen + '.';
  const numbers = new Set(T.steps.number);
  const what = T.scope === 1
    ? 'steps #' + T.firstStep + (T.lastStep !== T.firstStep ? '–#' + T.lastStep : '') + ' (the first whole steps that fit, of ' + numbers.size + ')'
    : 'the first ' + fmtValue(T.windowEnd - T.windowStart, 'ns') + ' of ' + fmtValue(T.traceEnd, 'ns');
  return 'The chart holds ' + what + ': ' + held + ' of ' + num(T.traceEvents) + chosen + ', as the trace has more than --timeline-events ' +
    num(T.limit) + '. --steps or --window choose others; the strip above covers the whole trace.';
}

function sizeTimeline() {
  const E = TL.el, lay = TL.T.lay, dpr = window.devicePixelRatio || 1;
  const w = Math.max(200, E.scroll.clientWidth);
  const maxH = Math.max(200, Math.floor(window.innerHeight * 0.62));
  const h = Math.min(lay.contentH, maxH);
  const size = (c, cw, ch) => {
    c.width = Math.round(cw * dpr); c.height = Math.round(ch * dpr);
    c.style.width = cw + 'px'; c.style.height = ch + 'px';
  };
  if (w !== TL.width || h !== TL.height || dpr !== TL.dpr) {
    TL.width = w; TL.height = h; TL.dpr = dpr;
    size(E.canvas, w, h);
    size(E.strip, w, 2 * TL_STRIP_ROW + 6);
    size(E.ruler, w, 20);
    E.scroll.style.height = (h + 2) + 'px';
    TL.stripCache = null;
  }
  E.spacer.style.height = Math.max(0, lay.contentH - h) + 'px';
}

// ---- drawing -----------------------------------------------------------------------------
const tlScale = () => TL.width / (TL.t1 - TL.t0);
const tlX = (t) => (t - TL.t0) * tlScale();
function frameOfEvent(i) { return S.data.tree.frame[TL.T.node[i]]; }

function drawTimeline() {
  if (!TL.T || !TL.el || TL.el.sec.hidden) return;
  const t0p = performance.now();
  const T = TL.T, lay = T.lay, g = TL.el.ctx, W = TL.width, H = TL.height;
  const cs = getComputedStyle(document.documentElement);
  const bg = cs.getPropertyValue('--bg').trim() || '#fff', panel = cs.getPropertyValue('--panel').trim() || '#f7f8fa';
  const fg = cs.getPropertyValue('--fg').trim() || '#111', muted = cs.getPropertyValue('--muted').trim() || '#667085';
  const matchColor = cs.getPropertyValue('--match').trim(), dimColor = dark() ? '#2f343c' : '#e3e6ea';
  g.setTransform(TL.dpr, 0, 0, TL.dpr, 0, 0);
  g.fillStyle = bg; g.fillRect(0, 0, W, H);
  g.font = '11px system-ui, -apple-system, "Segoe UI", Roboto, sans-serif';
  g.textBaseline = 'middle';
  const charW = TL.charW || (TL.charW = g.measureText('abcdefghijklmnopqrstuvwxyz_ABCDEFGH').width / 35);
  const scrollTop = TL.el.scroll.scrollTop, t0 = TL.t0, t1 = TL.t1, sc = W / (t1 - t0);
  const { first, ev, rs, re, order, rowY0, laneY, rows, rowBase } = lay;
  const tframe = S.data.tree.frame, node = T.node, match = S.match, focus = TL.focus;
  const labels = [];
  let drawn = 0, last = '';
  const fillOf = (i) => {
    const f = tframe[node[i]];
    if (focus && !focus[node[i]]) return dimColor;
    return match && match[f] ? matchColor : colorOf(f);
  };
  for (let o = 0; o < order.length; o++) {
    const l = order[o], yl = laneY[l] - scrollTop;
    if (yl > H || yl + TL_HEAD + rows[l] * TL_ROW < 0) continue;
    g.fillStyle = panel; g.fillRect(0, yl, W, TL_HEAD - 1); last = '';
    labels.push(4, yl + TL_HEAD / 2, W - 8, lay.labels[o], 1);
    for (let r = 0; r < rows[l]; r++) {
      const y = rowY0[l] + r * TL_ROW - scrollTop;
      if (y + TL_ROW < 0 || y > H) continue;
      const gr = rowBase[l] + r, kEnd = first[gr + 1];
      // The first event ending after t0 (ends grow along a row: its events do not overlap).
      let lo = first[gr], hi = kEnd;
      while (lo < hi) { const m = (lo + hi) >>> 1; if (re[m] > t0) hi = m; else lo = m + 1; }
      for (let k = lo; k < kEnd;) {
        const s = rs[k];
        if (s >= t1) break;
        const x0 = (s - t0) * sc, x1 = (re[k] - t0) * sc, i = ev[k];
        const fill = fillOf(i);
        if (fill !== last) { g.fillStyle = fill; last = fill; }
        drawn++;
        if (x1 - x0 >= 1) {
          const a = Math.max(x0, -2), b = Math.min(x1, W + 2);
          g.fillRect(a, y + 0.5, Math.max(b - a - 0.5, 0.5), TL_ROW - 1);
          if (b - a >= LABEL_W) labels.push(a, y + TL_ROW / 2 + 0.5, b - a, frameName(tframe[node[i]]), 0);
          k++;
          continue;
        }
        // Narrower than a pixel: one pixel for all that start in it, then on past that pixel.
        const px = Math.floor(x0);
        g.fillRect(px, y + 0.5, 1, TL_ROW - 1);
        const tn = t0 + (px + 1) / sc;
        let a2 = k + 1, b2 = kEnd;
        while (a2 < b2) { const m = (a2 + b2) >>> 1; if (re[m] > tn) b2 = m; else a2 = m + 1; }
        k = a2;
      }
    }
  }
  // ProfilerStep boundaries.
  const st = T.steps;
  g.strokeStyle = muted; g.globalAlpha = 0.55; g.setLineDash([3, 3]); g.lineWidth = 1;
  g.beginPath();
  for (let k = 0; k < st.n; k++) {
    for (const t of [st.start[k], st.end[k]]) {
      if (t < t0 || t > t1) continue;
      const x = Math.round((t - t0) * sc) + 0.5;
      g.moveTo(x, 0); g.lineTo(x, H);
    }
  }
  g.stroke(); g.setLineDash([]); g.globalAlpha = 1;
  // Outside the range and outside what the chart holds: shaded.
  const shade = (a, b) => { const x0 = Math.max(0, (a - t0) * sc), x1 = Math.min(W, (b - t0) * sc); if (x1 > x0) g.fillRect(x0, 0, x1 - x0, H); };
  g.fillStyle = dark() ? 'rgba(0,0,0,0.45)' : 'rgba(120,128,140,0.18)';
  shade(t0, T.windowStart); shade(T.windowEnd, t1);
  if (TL.range) { g.fillStyle = dark() ? 'rgba(0,0,0,0.35)' : 'rgba(47,111,222,0.08)'; shade(t0, TL.range[0]); shade(TL.range[1], t1); }
  // Occurrences of the focused frame: at least two pixels wide, in their colour.
  if (TL.focusList) {
    for (const i of TL.focusList) {
      if (T.end[i] < t0 || T.start[i] > t1) continue;
      const b = tlBox(i, scrollTop);
      if (b.y + TL_ROW < 0 || b.y > H) continue;
      g.fillStyle = colorOf(tframe[node[i]]);
      g.fillRect(b.x, b.y + 0.5, Math.max(b.w, 2), TL_ROW - 1);
    }
  }
  g.fillStyle = fg;
  for (let k = 0; k < labels.length; k += 5) {
    const x = labels[k], y = labels[k + 1], w = labels[k + 2], text = labels[k + 3], head = labels[k + 4];
    g.fillStyle = head ? muted : '#111';
    const room = Math.floor((w - 6) / charW);
    g.fillText(text.length > room ? text.slice(0, Math.max(1, room - 1)) + '…' : text, x + 3, y, w - 6);
  }
  // The hovered block and what it is linked to (a kernel's launch, a launch's device work).
  const outline = (i, colour, width) => {
    const b = tlBox(i, scrollTop);
    g.strokeStyle = colour; g.lineWidth = width;
    g.strokeRect(b.x - 1, b.y - 0.5, Math.max(b.w, 1) + 2, TL_ROW + 1);
  };
  for (const i of TL.linked) outline(i, matchColor || '#d633c9', 2.5);
  if (TL.hover >= 0) outline(TL.hover, cs.getPropertyValue('--hover').trim() || '#111', 2);
  api.timings.lastChartDraw = performance.now() - t0p;
  api.timeline.lastDrawStats = { drawn };
  if (!TL.drawn) { TL.drawn = true; api.timings.chartFirstDraw = performance.now(); }
  drawRuler();
  drawStrip();
}

function redrawTimeline() {
  cancelAnimationFrame(TL.raf);
  TL.raf = requestAnimationFrame(drawTimeline);
}

// A round step between ticks for about one tick per 110 px.
function tickStep(span, px) {
  const raw = span / Math.max(1, px / 110), p = Math.pow(10, Math.floor(Math.log10(raw)));
  for (const m of [1, 2, 5, 10]) if (m * p >= raw) return m * p;
  return 10 * p;
}

function drawRuler() {
  const g = TL.el.rctx, W = TL.width, H = 20, t0 = TL.t0, t1 = TL.t1, sc = W / (t1 - t0);
  const cs = getComputedStyle(document.documentElement);
  g.setTransform(TL.dpr, 0, 0, TL.dpr, 0, 0);
  g.clearRect(0, 0, W, H);
  g.font = '10px system-ui, -apple-system, "Segoe UI", Roboto, sans-serif';
  g.textBaseline = 'middle';
  g.fillStyle = g.strokeStyle = cs.getPropertyValue('--muted').trim() || '#667085';
  const step = tickStep(t1 - t0, W);
  g.beginPath();
  for (let t = Math.ceil(t0 / step) * step; t <= t1; t += step) {
    const x = Math.round((t - t0) * sc) + 0.5;
    g.moveTo(x, H - 6); g.lineTo(x, H);
    g.fillText(fmtValue(t, 'ns'), x + 3, 6);
  }
  g.stroke();
  const st = TL.T.steps;
  g.fillStyle = cs.getPropertyValue('--accent').trim() || '#2f6fde';
  for (let k = 0; k < st.n; k++) {
    if (st.end[k] < t0 || st.start[k] > t1) continue;
    const x = Math.max(0, (st.start[k] - t0) * sc), w = (st.end[k] - t0) * sc - x;
    g.fillRect(x, H - 3, Math.max(1, Math.min(w, W) - 1), 3);
    if (w > 60) g.fillText('#' + st.number[k], x + 3, 15);
  }
}

// The strip: busy time per pixel over the whole trace (host above, device below), what the chart
// holds, the chart's view and the range.
const tlStripT = (x) => x / TL.width * Math.max(TL.T.traceEnd, 1);
const tlStripX = (t) => t / Math.max(TL.T.traceEnd, 1) * TL.width;
function stripDensity() {
  if (TL.stripCache && TL.stripCache.width === TL.width) return TL.stripCache;
  const T = TL.T, W = TL.width, host = new Float64Array(W), dev = new Float64Array(W);
  const per = Math.max(T.traceEnd, 1) / W;
  for (let b = 0; b < T.hostBusy.length; b++) {
    const a = T.busyStart + b * T.bucket, z = a + T.bucket;
    for (let p = Math.max(0, Math.floor(a / per)); p < W && p * per < z; p++) {
      const o = Math.min(z, (p + 1) * per) - Math.max(a, p * per);
      if (o <= 0) continue;
      host[p] += T.hostBusy[b] * o / T.bucket;
      dev[p] += T.deviceBusy[b] * o / T.bucket;
    }
  }
  let mh = 0, md = 0;
  for (let p = 0; p < W; p++) { if (host[p] > mh) mh = host[p]; if (dev[p] > md) md = dev[p]; }
  TL.stripCache = { width: W, host, dev, mh, md, per };
  return TL.stripCache;
}
function drawStrip() {
  const g = TL.el.sctx, W = TL.width, H = 2 * TL_STRIP_ROW + 6, T = TL.T, d = stripDensity();
  const cs = getComputedStyle(document.documentElement);
  g.setTransform(TL.dpr, 0, 0, TL.dpr, 0, 0);
  g.fillStyle = cs.getPropertyValue('--panel').trim() || '#f7f8fa';
  g.fillRect(0, 0, W, H);
  const rowOf = (vals, max, y, rgb) => {
    for (let p = 0; p < W; p++) {
      const v = max > 0 ? vals[p] / max : 0;
      if (v <= 0) continue;
      g.fillStyle = 'rgba(' + rgb + ',' + (0.1 + 0.9 * Math.min(1, v)).toFixed(3) + ')';
      g.fillRect(p, y, 1, TL_STRIP_ROW);
    }
  };
  rowOf(d.host, d.mh, 1, '234,88,12');
  rowOf(d.dev, d.md, TL_STRIP_ROW + 3, '22,163,74');
  // Outside what the chart holds: shaded; the chart's view: a frame; the range: a band.
  g.fillStyle = dark() ? 'rgba(0,0,0,0.5)' : 'rgba(120,128,140,0.35)';
  const ws = tlStripX(T.windowStart), we = tlStripX(T.windowEnd);
  if (ws > 0) g.fillRect(0, 0, ws, H);
  if (we < W) g.fillRect(we, 0, W - we, H);
  g.fillStyle = cs.getPropertyValue('--accent').trim() || '#2f6fde';
  const st = T.steps;
  for (let k = 0; k < st.n; k++) g.fillRect(Math.floor(tlStripX(st.start[k])), H - 2, 1, 2);
  const range = TL.stripDrag ? TL.stripDrag.range : TL.range;
  if (range) {
    const a = tlStripX(range[0]), b = tlStripX(range[1]);
    g.fillStyle = 'rgba(47,111,222,0.28)';
    g.fillRect(a, 0, Math.max(1, b - a), H);
  }
  g.strokeStyle = cs.getPropertyValue('--fg').trim() || '#111'; g.lineWidth = 1.5;
  const va = tlStripX(TL.t0), vb = tlStripX(TL.t1);
  g.strokeRect(Math.max(0.75, va), 0.75, Math.max(2, Math.min(W - 0.75, vb) - Math.max(0.75, va)), H - 1.5);
}

// Event i's box in the chart canvas (CSS px).
function tlBox(i, scrollTop = TL.el.scroll.scrollTop) {
  const T = TL.T, lay = T.lay, sc = tlScale();
  const x0 = (T.start[i] - TL.t0) * sc, x1 = (T.end[i] - TL.t0) * sc;
  return { x: x0, w: x1 - x0, y: lay.rowY0[T.lane[i]] + lay.row[i] * TL_ROW - scrollTop, h: TL_ROW };
}

// The event under (x, y) in chart canvas px, within a pixel or two for narrow ones; -1 for none.
function tlHit(mx, my) {
  const T = TL.T, lay = T.lay, y = my + TL.el.scroll.scrollTop;
  for (const l of lay.order) {
    const y0 = lay.rowY0[l];
    if (y < y0 || y >= y0 + lay.rows[l] * TL_ROW) continue;
    const gr = lay.rowBase[l] + Math.floor((y - y0) / TL_ROW), sc = tlScale();
    const t = TL.t0 + mx / sc, slack = 2 / sc;
    let lo = lay.first[gr], hi = lay.first[gr + 1];
    const kEnd = hi;
    while (lo < hi) { const m = (lo + hi) >>> 1; if (lay.re[m] > t - slack) hi = m; else lo = m + 1; }
    let best = -1, bestD = Infinity;
    for (let k = lo; k < kEnd && lay.rs[k] <= t + slack; k++) {
      const d = t < lay.rs[k] ? lay.rs[k] - t : t > lay.re[k] ? t - lay.re[k] : 0;
      if (d < bestD) { bestD = d; best = lay.ev[k]; }
      if (d === 0) break;
    }
    return best;
  }
  return -1;
}

// The device work each launch caused (inverse of launch[]), made when first needed.
function launchedBy(i) {
  const T = TL.T;
  if (!TL.kids) {
    const count = new Uint32Array(T.n + 1);
    for (let k = 0; k < T.n; k++) if (T.launch[k] >= 0) count[T.launch[k] + 1]++;
    for (let k = 0; k < T.n; k++) count[k + 1] += count[k];
    const list = new Uint32Array(count[T.n]), fill = count.slice(0, T.n);
    for (let k = 0; k < T.n; k++) if (T.launch[k] >= 0) list[fill[T.launch[k]]++] = k;
    TL.kids = { count, list };
  }
  return Array.from(TL.kids.list.subarray(TL.kids.count[i], TL.kids.count[i + 1]));
}

function setHover(i, ev) {
  TL.hover = i;
  TL.linked = i < 0 ? [] : TL.T.launch[i] >= 0 ? [TL.T.launch[i]] : launchedBy(i);
  redrawTimeline();
  if (i < 0) { tip.hidden = true; $('status').textContent = ''; return; }
  const T = TL.T, f = frameOfEvent(i), name = frameName(f);
  const lane = T.lanes[T.lane[i]];
  tip.replaceChildren();
  const title = document.createElement('div'); title.className = 'tname'; title.textContent = clip(name);
  const table = document.createElement('table');
  if (catName(f)) row(table, 'category', catName(f));
  row(table, 'start', fmtValue(T.start[i], 'ns') + ' from the trace start');
  row(table, 'duration', fmtValue(T.end[i] - T.start[i], 'ns'));
  row(table, lane.device ? 'stream' : 'thread', clip(lane.name));
  let status = clip(name) + ' · ' + fmtValue(T.end[i] - T.start[i], 'ns') + ' at ' + fmtValue(T.start[i], 'ns');
  if (T.launch[i] >= 0) {
    const l = T.launch[i], ln = clip(frameName(frameOfEvent(l)));
    row(table, 'launched by', ln + ' at ' + fmtValue(T.start[l], 'ns'));
    status += ' · launched by ' + ln + ' at ' + fmtValue(T.start[l], 'ns');
  } else if (TL.linked.length) {
    row(table, 'launches', TL.linked.length + ' device op' + (TL.linked.length === 1 ? '' : 's'));
    status += ' · launches ' + clip(frameName(frameOfEvent(TL.linked[0]))) + (TL.linked.length > 1 ? ' and ' + (TL.linked.length - 1) + ' more' : '');
  }
  row(table, 'click', 'its frame in the flame graph');
  tip.append(title, table);
  placeTip(tip, ev);
  $('status').textContent = status;
}

// ---- view (pan and zoom) -----------------------------------------------------------------
function setTimeWindow(a, b) {
  const T = TL.T, full = Math.max(T.windowEnd - T.windowStart, 1), pad = full * 0.05;
  let span = Math.min(Math.max(b - a, 20), full + 2 * pad);
  a = Math.max(T.windowStart - pad, Math.min(a, T.windowEnd + pad - span));
  TL.t0 = a; TL.t1 = a + span;
  redrawTimeline();
}
function zoomTime(factor, at) {
  const a = at === undefined ? (TL.t0 + TL.t1) / 2 : at;
  setTimeWindow(a - (a - TL.t0) * factor, a + (TL.t1 - a) * factor);
}
function panTime(dt) { setTimeWindow(TL.t0 + dt, TL.t1 + dt); }
function fitTime() { setTimeWindow(TL.T.windowStart, TL.T.windowEnd); }

function wireTimeline() {
  const E = TL.el;
  const pos = (ev, el) => { const r = el.getBoundingClientRect(); return [ev.clientX - r.left, ev.clientY - r.top]; };
  E.canvas.addEventListener('wheel', (ev) => {
    ev.preventDefault();
    const [x] = pos(ev, E.canvas);
    if (ev.shiftKey || Math.abs(ev.deltaX) > Math.abs(ev.deltaY)) panTime((ev.deltaX || ev.deltaY) / tlScale());
    else zoomTime(Math.exp(ev.deltaY * (ev.deltaMode === 1 ? 0.05 : 0.002)), TL.t0 + x / tlScale());
  }, { passive: false });
  E.canvas.addEventListener('mousedown', (ev) => {
    if (ev.button !== 0) return;
    TL.drag = { x: ev.clientX, y: ev.clientY, t0: TL.t0, t1: TL.t1, top: E.scroll.scrollTop, moved: false };
  });
  window.addEventListener('mousemove', (ev) => {
    const d = TL.drag;
    if (d) {
      const dx = ev.clientX - d.x, dy = ev.clientY - d.y;
      if (!d.moved && Math.abs(dx) + Math.abs(dy) > 3) { d.moved = true; tip.hidden = true; }
      if (d.moved) {
        setTimeWindow(d.t0 - dx / (TL.width / (d.t1 - d.t0)), d.t1 - dx / (TL.width / (d.t1 - d.t0)));
        E.scroll.scrollTop = d.top - dy;
      }
      return;
    }
    if (TL.stripDrag) {
      const [x] = pos(ev, E.strip), a = tlStripT(TL.stripDrag.x), b = tlStripT(x);
      TL.stripDrag.moved = TL.stripDrag.moved || Math.abs(x - TL.stripDrag.x) > 3;
      TL.stripDrag.range = [Math.min(a, b), Math.max(a, b)];
      drawStrip();
    }
  });
  window.addEventListener('mouseup', (ev) => {
    const d = TL.drag;
    if (d) {
      TL.drag = null;
      if (!d.moved && ev.target === E.canvas) {
        const [x, y] = pos(ev, E.canvas), i = tlHit(x, y);
        if (i >= 0) showEventInFlame(i);
      }
      return;
    }
    const s = TL.stripDrag;
    if (s) {
      TL.stripDrag = null;
      if (s.moved && s.range) setRange(s.range);
      else { const t = tlStripT(s.x), half = (TL.t1 - TL.t0) / 2; setTimeWindow(t - half, t + half); }
    }
  });
  E.canvas.addEventListener('mousemove', (ev) => {
    if (TL.drag) return;
    const [x, y] = pos(ev, E.canvas), i = tlHit(x, y);
    if (i !== TL.hover || i >= 0) setHover(i, ev);
  });
  E.canvas.addEventListener('mouseleave', () => { if (!TL.drag) setHover(-1); });
  E.strip.addEventListener('mousedown', (ev) => {
    if (ev.button !== 0) return;
    ev.preventDefault();
    TL.stripDrag = { x: pos(ev, E.strip)[0], range: null, moved: false };
  });
  E.scroll.addEventListener('scroll', () => redrawTimeline(), { passive: true });
  new ResizeObserver(() => { if (TL.T && !E.sec.hidden && E.scroll.clientWidth !== TL.width) { sizeTimeline(); redrawTimeline(); } }).observe(E.scroll);
  document.addEventListener('keydown', (ev) => {
    if (S.viewId !== 'timeline' || ev.target instanceof HTMLInputElement || ev.ctrlKey || ev.metaKey || ev.altKey) return;
    const k = ev.key, span = TL.t1 - TL.t0;
    if (k === 'w' || k === 'W' || k === '+' || k === '=') zoomTime(0.7);
    else if (k === 's' || k === 'S' || k === '-') zoomTime(1 / 0.7);
    else if (k === 'a' || k === 'A' || k === 'ArrowLeft') panTime(-span * 0.15);
    else if (k === 'd' || k === 'D' || k === 'ArrowRight') panTime(span * 0.15);
    else if (k === '0' || k === 'Home') fitTime();
    else if (k === 'n' || k === 'p') stepFocus(k === 'n' ? 1 : -1);
    else return;
    ev.preventDefault();
    ev.stopImmediatePropagation();
  }, true);
}

// ---- the flame graph and the chart, both ways ----------------------------------------------
// Base node -> node of the flame graph's current tree (filters and merging applied), -1 when its
// thread is hidden: matched by frame along the path, group levels skipped when merged.
function baseToView() {
  if (TL.b2v && TL.b2v.view === S.view) return TL.b2v.map;
  const B = S.base, V = S.view, map = new Int32Array(B.N).fill(-1);
  if (V === B || V.N === B.N && !S.merge && !S.excluded.some((x) => x)) {
    for (let i = 0; i < B.N; i++) map[i] = i;
  } else {
    const F = S.data.frames.count + 1, kids = new Map();
    for (let i = 1; i < V.N; i++) kids.set(V.parent[i] * F + V.frame[i], i);
    map[0] = 0;
    for (let b = 1; b < B.N; b++) {
      const pv = map[B.parent[b]];
      if (pv < 0 || S.excluded[b]) continue;
      if (S.merge && S.isGroupNode[b]) { map[b] = pv; continue; }
      const v = kids.get(pv * F + B.frame[b]);
      if (v !== undefined) map[b] = v;
    }
  }
  TL.b2v = { view: S.view, map };
  return map;
}

// A block clicked in the chart: its node zoomed in the flame graph (its thread shown again if it
// was hidden).
function showEventInFlame(i) {
  const b = TL.T.node[i];
  let v = baseToView()[b];
  if (v < 0) { S.excluded.fill(0); applyFilter(); v = baseToView()[b]; }
  tip.hidden = true; $('status').textContent = '';
  setView('flame');
  zoomTo(Math.max(0, v));
}

// The occurrences in time of a flame-graph node (of the current tree): every event whose node it
// merges; shown highlighted (others dimmed), the view moved to the first when none is in sight.
function focusViewNode(v) {
  tlEnsure();
  if (!(v > 0)) { clearFocus(); return 0; }
  const map = baseToView(), mark = new Uint8Array(S.base.N);
  for (let b = 0; b < map.length; b++) if (map[b] === v) mark[b] = 1;
  const T = TL.T, list = [];
  for (let i = 0; i < T.n; i++) if (mark[T.node[i]]) list.push(i);
  list.sort((a, b) => T.start[a] - T.start[b]);
  TL.focus = mark; TL.focusList = list; TL.focusAt = -1;
  TL.focusName = frameName(S.view.frame[v]);
  if (list.length && !list.some((i) => T.end[i] >= TL.t0 && T.start[i] <= TL.t1)) stepFocus(1);
  renderFocus();
  redrawTimeline();
  return list.length;
}
function clearFocus() {
  TL.focus = TL.focusList = null; TL.focusAt = -1;
  if (TL.el) renderFocus();
  redrawTimeline();
}
// Moves the view to the next (dir 1) or previous occurrence, keeping the zoom when it fits.
function stepFocus(dir) {
  const list = TL.focusList, T = TL.T;
  if (!list || !list.length) return;
  TL.focusAt = (TL.focusAt + dir + list.length) % list.length;
  const i = list[TL.focusAt], d = T.end[i] - T.start[i];
  let span = TL.t1 - TL.t0;
  if (d > span * 0.8) span = d * 1.5;
  const mid = (T.start[i] + T.end[i]) / 2;
  setTimeWindow(mid - span / 2, mid + span / 2);
  const b = tlBox(i, 0), top = TL.el.scroll.scrollTop;
  if (b.y < top || b.y + TL_ROW > top + TL.height) TL.el.scroll.scrollTop = Math.max(0, b.y - TL.height / 3);
  renderFocus();
}
function renderFocus() {
  const box = TL.el.focus;
  box.replaceChildren();
  if (!TL.focusList) return;
  const n = TL.focusList.length;
  const t = document.createElement('span');
  t.textContent = clip(TL.focusName) + ': ' + (n ? n.toLocaleString('en-US') + ' occurrence' + (n === 1 ? '' : 's') + ' in the chart' + (TL.focusAt >= 0 ? ' (' + (TL.focusAt + 1) + ' shown)' : '') + ' · N / P: next / previous' : 'no occurrence in the chart');
  const x = document.createElement('button'); x.type = 'button'; x.className = 'link'; x.textContent = 'clear';
  x.addEventListener('click', clearFocus);
  box.append(t, ' ', x);
}

// ---- the time range: the flame graph weighs only [a, b] ------------------------------------
// Per node, from the events: host time is the time of its events in the range less its
// children's (nodes without events, as group frames, hold their children's), calls count its
// host events in the range, device time and counts go to the device operation's node.
function rangeWeights(a, b) {
  const T = tlEnsure(), tree = S.data.tree, N = tree.N, cols = S.data.header.columns;
  const direct = new Float64Array(N), has = new Uint8Array(N), calls = new Float64Array(N);
  const dev = new Float64Array(N), count = new Float64Array(N);
  const { n, start, end, node, lane } = T, device = T.lanes.map((l) => l.device);
  for (let i = 0; i < n; i++) {
    const s = start[i], e = end[i];
    if (s >= b || e < a || (e === a && s < a)) continue;
    const o = Math.min(e, b) - Math.max(s, a), v = node[i];
    if (device[lane[i]]) { dev[v] += o; count[v]++; } else { direct[v] += o; calls[v]++; has[v] = 1; }
  }
  const cpu = new Float64Array(N), kids = new Float64Array(N), parent = tree.parent;
  for (let v = N - 1; v > 0; v--) {
    const total = has[v] ? direct[v] : kids[v];
    cpu[v] = Math.max(0, total - kids[v]);
    kids[parent[v]] += total;
  }
  return cols.map((c) => c.name === 'cpu' ? cpu : c.name === 'calls' ? calls : (c.name === 'gpu' || c.name === 'npu') ? dev
    : c.name === 'kernels' ? count : new Float64Array(N));
}

function setRange(r) {
  const T = tlEnsure();
  if (r) {
    const a = Math.max(T.windowStart, Math.min(r[0], r[1])), b = Math.min(T.windowEnd, Math.max(r[0], r[1]));
    r = b > a ? [Math.round(a), Math.round(b)] : null;
  }
  if (!r && !TL.range) return;
  const t0 = performance.now();
  TL.range = r;
  setBaseWeights(r ? rangeWeights(r[0], r[1]) : null);
  api.timings.lastRange = performance.now() - t0;
  TL.b2v = null;
  renderRangeChip();
  if (r) setTimeWindow(r[0] - (r[1] - r[0]) * 0.02, r[1] + (r[1] - r[0]) * 0.02);
  redrawTimeline();
  noteState();
}
function renderRangeChip() {
  let chip = $('range-chip');
  if (!TL.range) { if (chip) chip.remove(); return; }
  if (!chip) {
    chip = document.createElement('span'); chip.id = 'range-chip';
    chip.title = 'the flame graph weighs only this time range (drag across the flame chart\'s strip to change it)';
    $('weights').after(chip);
  }
  const [a, b] = TL.range;
  const text = document.createElement('span');
  text.textContent = 'Range ' + fmtValue(a, 'ns') + ' – ' + fmtValue(b, 'ns') + ' (' + fmtValue(b - a, 'ns') + ')';
  const x = document.createElement('button'); x.type = 'button'; x.textContent = '×'; x.title = 'the whole trace again';
  x.addEventListener('click', () => setRange(null));
  chip.replaceChildren(text, x);
}
// Shared state: the range as START-END, integer ns from the trace's first event.
shareState('range', () => (TL.range ? TL.range[0] + '-' + TL.range[1] : null), (v) => {
  if (!timelineBytes()) return;
  const m = /^(\d+)-(\d+)$/.exec(v || '');
  setRange(m ? [Number(m[1]), Number(m[2])] : null);
}, 12);

// ---- the view ----------------------------------------------------------------------------
// The flame graph's toolbar gets "Show in time" (the zoomed frame's occurrences in the chart),
// and a shift-click on a frame does the same; made once, when the tabs are first offered.
function offerTimelineControls() {
  if (TL.controls) return;
  TL.controls = true;
  const b = document.createElement('button');
  b.type = 'button'; b.id = 'in-time'; b.className = 'flame-only';
  b.textContent = 'Show in time'; b.title = 'the zoomed frame\'s occurrences in the flame chart (or shift-click a frame)';
  b.addEventListener('click', () => { focusViewNode(S.zoom); setView('timeline'); });
  $('reset').after(b);
  $('canvas').addEventListener('click', (ev) => {
    if (!ev.shiftKey) return;
    const r = $('canvas').getBoundingClientRect(), hit = hitTest(ev.clientX - r.left, ev.clientY - r.top);
    if (!hit || hit.merged) return;
    ev.stopImmediatePropagation();
    tip.hidden = true;
    focusViewNode(hit.node);
    setView('timeline');
  }, true);
}

defineView('timeline', {
  label: 'Flame chart', title: 'time-ordered: each thread\'s stacks over time, device streams below, busy time above',
  available() {
    const ok = !!timelineBytes();
    if (ok) offerTimelineControls();
    return ok;
  },
  section: makeTimelineSection,
  enter() {
    const T = tlEnsure();
    TL.el.scope.textContent = scopeText(T);
    sizeTimeline();
    TL.stripCache = null;
    drawTimeline();
    renderFocus();
  },
  leave() { setHover(-1); TL.drag = TL.stripDrag = null; },
});

// Test and automation hooks.
api.timeline = {
  state() {
    const T = tlEnsure();
    return { t0: TL.t0, t1: TL.t1, width: TL.width, height: TL.height, origin: String(T.origin), events: T.n,
      traceEvents: T.traceEvents, scope: ['all', 'steps', 'window'][T.scope], windowStart: T.windowStart, windowEnd: T.windowEnd,
      traceEnd: T.traceEnd, firstStep: T.firstStep, lastStep: T.lastStep, range: TL.range, hover: TL.hover, linked: TL.linked.slice(),
      focus: TL.focusList ? TL.focusList.length : null, lanes: T.lanes.map((l, k) => ({ name: l.name, device: l.device, y: T.lay.laneY[k] })),
      scopeText: scopeText(T) };
  },
  // The nth event named `name` (by lane, then start), with its box in chart canvas px.
  find(name, nth = 0) {
    const T = tlEnsure();
    for (let i = 0; i < T.n; i++) if (S.data.frames.name[frameOfEvent(i)] === name && nth-- === 0) return api.timeline.box(i);
    return null;
  },
  box(i) {
    const T = tlEnsure(), b = TL.el ? tlBox(i) : { x: 0, w: 0, y: 0, h: TL_ROW };
    return Object.assign(b, { i, start: T.start[i], end: T.end[i], lane: T.lane[i], launch: T.launch[i], node: T.node[i],
      name: frameName(frameOfEvent(i)), colour: colorOf(frameOfEvent(i)) });
  },
  setTimeWindow: (a, b) => { setTimeWindow(a, b); drawTimeline(); },
  zoom: (factor, at) => { zoomTime(factor, at); drawTimeline(); return api.timings.lastChartDraw; },
  pan: (dt) => { panTime(dt); drawTimeline(); return api.timings.lastChartDraw; },
  setRange: (a, b) => setRange(a === null ? null : [a, b]),
  stripX: (t) => tlStripX(t), stripT: (x) => tlStripT(x),
  focus: (viewNode) => focusViewNode(viewNode),
  pixel(x, y) {
    const d = TL.el.ctx.getImageData(Math.floor(x * TL.dpr), Math.floor(y * TL.dpr), 1, 1).data;
    return [d[0], d[1], d[2]];
  },
  lastDrawStats: null,
};
