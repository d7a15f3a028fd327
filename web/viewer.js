// flamefold's interactive flame graph. The data is a gzip + base64 payload (see
// src/flamefold/writers/html.cpp for its layout); the tree is kept as depth-first arrays, so a
// subtree is the index range [i, end[i]) and drawing skips any subtree narrower than a pixel.
// Every name from the profile reaches the page through textContent or canvas fillText only.
(() => {
  'use strict';
  const $ = (id) => document.getElementById(id);
  const ROW = 18;          // px per frame row
  const MIN_W = 1;         // frames narrower than this many px are merged into one block
  const LABEL_W = 28;      // frames narrower than this get no label
  const GROUP_CATS = new Set(['process', 'thread', 'rank', 'device']);
  const TABLE_ROWS = 300;

  const api = { ready: false, timings: {}, error: null };
  window.flamefold = api;

  // ---------------------------------------------------------------- decoding
  async function inflate() {
    const text = $('ff-data').textContent.replace(/\s+/g, '');
    let bytes;
    if (typeof Uint8Array.fromBase64 === 'function') {
      bytes = Uint8Array.fromBase64(text);
    } else {
      const bin = atob(text);
      bytes = new Uint8Array(bin.length);
      for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
    }
    const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream('gzip'));
    return new Uint8Array(await new Response(stream).arrayBuffer());
  }

  class Reader {
    constructor(bytes) { this.b = bytes; this.p = 0; }
    varint() {
      const b = this.b;
      let c = b[this.p++], x = c & 127, s = 128;
      while (c & 128) { c = b[this.p++]; x += (c & 127) * s; s *= 128; }
      return x;
    }
    varints(n, out, at = 0) {
      const b = this.b;
      let p = this.p;
      for (let i = at; i < n + at; i++) {
        let c = b[p++];
        if (c < 128) { out[i] = c; continue; }
        let x = c & 127, s = 128;
        do { c = b[p++]; x += (c & 127) * s; s *= 128; } while (c & 128);
        out[i] = x;
      }
      this.p = p;
      return out;
    }
    bytes(n) { const v = this.b.subarray(this.p, this.p + n); this.p += n; return v; }
  }

  function decode(bytes) {
    const r = new Reader(bytes);
    const magic = String.fromCharCode(...r.bytes(4));
    if (magic !== 'FFD1') throw new Error('unknown data format ' + magic);
    const utf8 = new TextDecoder('utf-8');
    const header = JSON.parse(utf8.decode(r.bytes(r.varint())));
    const stringCount = r.varint();
    const lengths = r.varints(stringCount, new Uint32Array(stringCount));
    const blob = utf8.decode(r.bytes(r.varint()));
    const strings = new Array(stringCount);
    for (let i = 0, at = 0; i < stringCount; i++) { strings[i] = blob.substr(at, lengths[i]); at += lengths[i]; }
    const F = r.varint();
    const fName = r.varints(F, new Uint32Array(F));
    const fFile = r.varints(F, new Uint32Array(F));
    const fLine = r.varints(F, new Uint32Array(F));
    const fCat = r.varints(F, new Uint16Array(F));
    const frames = { count: F, name: new Array(F), file: new Array(F), line: fLine, cat: fCat };
    for (let f = 0; f < F; f++) { frames.name[f] = strings[fName[f]]; frames.file[f] = strings[fFile[f]]; }
    const N = r.varint();
    const depth = new Uint32Array(N);
    const step = r.varints(N - 1, new Uint32Array(N));
    for (let i = 1; i < N; i++) depth[i] = depth[i - 1] + 1 - step[i - 1];
    const frame = new Int32Array(N);
    r.varints(N - 1, frame, 1);
    frame[0] = -1;
    const self = [];
    for (let c = 0; c < header.columns.length; c++) {
      const kind = r.bytes(1)[0];
      if (kind === 0) {
        self.push(r.varints(N, new Float64Array(N)));
      } else {
        const raw = r.bytes(N * 8);
        const copy = new Uint8Array(N * 8);
        copy.set(raw);
        self.push(new Float64Array(copy.buffer));
      }
    }
    return { header, frames, tree: makeTree(N, depth, frame, self) };
  }

  // ---------------------------------------------------------------- the tree
  // depth/frame/self in depth-first order -> parent, end (one past the subtree), maxDepth.
  function makeTree(N, depth, frame, self) {
    const parent = new Int32Array(N), end = new Uint32Array(N);
    let maxDepth = 0;
    for (let i = 0; i < N; i++) if (depth[i] > maxDepth) maxDepth = depth[i];
    const open = new Uint32Array(maxDepth + 2);
    let top = -1;
    for (let i = 0; i < N; i++) {
      const d = depth[i];
      while (top >= d) end[open[top--]] = i;
      parent[i] = d > 0 ? open[d - 1] : -1;
      open[++top] = i;
    }
    while (top >= 0) end[open[top--]] = N;
    return { N, depth, frame, self, parent, end, maxDepth, totals: [] };
  }

  function totals(tree, c) {
    if (!tree.totals[c]) {
      const t = Float64Array.from(tree.self[c]), p = tree.parent;
      for (let i = tree.N - 1; i > 0; i--) t[p[i]] += t[i];
      tree.totals[c] = t;
    }
    return tree.totals[c];
  }

  // The tree with excluded group subtrees left out and, when merging, the group levels
  // dropped and identical stacks merged (children stay in frame-id order = name order).
  function deriveTree(base, excluded, merge, isGroupNode) {
    const { N, depth, frame, self, end, parent } = base;
    const C = self.length;
    if (!merge) {
      let n = 0;
      const keep = new Uint32Array(N);
      for (let i = 0; i < N;) {
        if (excluded[i]) { i = end[i]; continue; }
        keep[n++] = i++;
      }
      const d2 = new Uint32Array(n), f2 = new Int32Array(n), s2 = [];
      for (let k = 0; k < n; k++) { d2[k] = depth[keep[k]]; f2[k] = frame[keep[k]]; }
      for (let c = 0; c < C; c++) {
        const s = new Float64Array(n), src = self[c];
        for (let k = 0; k < n; k++) s[k] = src[keep[k]];
        s2.push(s);
      }
      return makeTree(n, d2, f2, s2);
    }
    // Merge, straight into depth-first order: a stack entry is a run of base nodes with the
    // same frame under the same merged parent (one merged node). Its children are the base
    // children of the whole run (group nodes expanded in place), sorted by frame, then cut
    // into runs again. Every base node lands in `pool` exactly once, so N slots suffice.
    const pool = new Int32Array(N + 1), runStart = new Int32Array(N + 1), runLen = new Int32Array(N + 1), runDepth = new Int32Array(N + 1);
    const d2 = new Uint32Array(N), f2 = new Int32Array(N), s2 = [];
    for (let c = 0; c < C; c++) s2.push(new Float64Array(N));
    let top = 0, sp = 0, n = 0, expanded = false;
    const gather = (b, o) => {
      for (let c = b + 1, e = end[b]; c < e; c = end[c]) {
        if (excluded[c]) continue;
        if (isGroupNode[c]) {
          expanded = true;
          for (let k = 0; k < C; k++) s2[k][o] += self[k][c];  // a group's own weight stays with its parent
          gather(c, o);
        } else {
          pool[top++] = c;
        }
      }
    };
    const byFrame = (a, b) => (frame[a] - frame[b]) || (a - b);
    pool[top++] = 0;
    runStart[sp] = 0; runLen[sp] = 1; runDepth[sp] = 0; sp++;
    while (sp) {
      sp--;
      const r0 = runStart[sp], len = runLen[sp], d = runDepth[sp], o = n++;
      d2[o] = d;
      f2[o] = o === 0 ? -1 : frame[pool[r0]];
      for (let k = r0; k < r0 + len; k++) for (let c = 0; c < C; c++) s2[c][o] += self[c][pool[k]];
      const g0 = top;
      expanded = false;
      for (let k = r0; k < r0 + len; k++) gather(pool[k], o);
      const g1 = top;
      if (len > 1 || expanded) {
        if (g1 - g0 <= 32) {
          for (let i = g0 + 1; i < g1; i++) {
            const v = pool[i];
            let j = i - 1;
            while (j >= g0 && byFrame(pool[j], v) > 0) { pool[j + 1] = pool[j]; j--; }
            pool[j + 1] = v;
          }
        } else {
          pool.set(Array.from(pool.subarray(g0, g1)).sort(byFrame), g0);
        }
      }
      // Runs of equal frames become merged children, pushed last-first.
      for (let j = g1; j > g0;) {
        let i = j - 1;
        const fr = frame[pool[i]];
        while (i > g0 && frame[pool[i - 1]] === fr) i--;
        runStart[sp] = i; runLen[sp] = j - i; runDepth[sp] = d + 1; sp++;
        j = i;
      }
    }
    return makeTree(n, d2.slice(0, n), f2.slice(0, n), s2.map((col) => col.slice(0, n)));
  }

  // ---------------------------------------------------------------- formatting
  const NS_PER = { ns: 1, us: 1e3, 'µs': 1e3, ms: 1e6, s: 1e9 };
  // `bare`: no unit after plain counts (table cells); times always get one.
  function fmtValue(v, unit, bare) {
    if (unit in NS_PER) {
      const ns = v * NS_PER[unit], a = Math.abs(ns);
      if (a >= 1e9) return (ns / 1e9).toFixed(a >= 1e11 ? 0 : a >= 1e10 ? 1 : 2) + ' s';
      if (a >= 1e6) return (ns / 1e6).toFixed(a >= 1e8 ? 0 : a >= 1e7 ? 1 : 2) + ' ms';
      if (a >= 1e3) return (ns / 1e3).toFixed(a >= 1e5 ? 0 : a >= 1e4 ? 1 : 2) + ' µs';
      return Math.round(ns) + ' ns';
    }
    const s = Number.isInteger(v) ? v.toLocaleString('en-US') : v.toLocaleString('en-US', { maximumFractionDigits: 2 });
    return unit && unit !== 'count' && !bare ? s + ' ' + unit : s;
  }
  // Names shown in the DOM are cut short: a 10 MB frame name must not become a 10 MB cell.
  const clip = (text) => (text.length > 600 ? text.slice(0, 600) + '…' : text);
  function fmtPct(part, whole) {
    if (!(whole > 0)) return '–';
    const p = 100 * part / whole;
    return (p >= 10 || p === 0 ? p.toFixed(1) : p >= 0.01 ? p.toFixed(2) : '<0.01') + '%';
  }
  const TIME_UNITS = new Set(['ns', 'us', 'µs', 'ms', 's', 'samples']);
  function columnLabel(col) {
    const known = { cpu: 'CPU', gpu: 'GPU', npu: 'NPU', samples: 'Samples', kernels: 'Kernels', calls: 'Calls' };
    return known[col.name] || col.name || 'weight';
  }

  // ---------------------------------------------------------------- colours
  function hash32(s) {
    let h = 2166136261;
    for (let i = 0; i < s.length; i++) { h ^= s.charCodeAt(i); h = Math.imul(h, 16777619); }
    h ^= h >>> 15; h = Math.imul(h, 2246822507); h ^= h >>> 13;
    return h >>> 0;
  }
  // [hue, hue range, saturation, lightness] per category; unknown ones get a hashed hue.
  const CAT_STYLE = {
    '': [8, 42, 78, 60],
    native: [8, 42, 78, 60], cpu: [8, 42, 78, 60],
    python: [205, 30, 62, 62], python_function: [205, 30, 62, 62], python_framework: [225, 25, 55, 66],
    cpu_op: [28, 22, 85, 58], operator: [28, 22, 85, 58], aten: [28, 22, 85, 58],
    user_annotation: [268, 24, 52, 68], nvtx: [268, 24, 52, 68], gpu_user_annotation: [292, 20, 48, 68],
    cuda_runtime: [48, 14, 85, 55], cuda_driver: [40, 12, 80, 55], runtime: [48, 14, 85, 55], cann: [320, 20, 55, 65],
    kernel: [112, 34, 52, 52], memcpy: [172, 14, 55, 48], memset: [190, 14, 55, 52],
    process: [220, 0, 10, 64], thread: [220, 0, 12, 70], rank: [220, 0, 14, 60], device: [220, 0, 14, 60],
    unknown: [30, 10, 10, 62],
  };
  function catStyle(cat) {
    const k = cat.toLowerCase();
    if (CAT_STYLE[k]) return CAT_STYLE[k];
    return [hash32(k) % 360, 24, 60, 62];
  }
  const dark = () => window.matchMedia && window.matchMedia('(prefers-color-scheme: dark)').matches;
  function frameColor(name, cat) {
    const [h, range, s, l] = catStyle(cat);
    const x = hash32(name);
    const hue = (h + ((x & 0xffff) / 65535) * range + 360) % 360;
    const light = l + (((x >>> 16) & 0xff) / 255 - 0.5) * 12 - (dark() ? 8 : 0);
    return hslHex(hue, s, light);
  }
  // Hex colours: the canvas parses a fillStyle string on every assignment, and '#rrggbb'
  // is the cheapest form to parse.
  function hslHex(h, s, l) {
    s /= 100; l /= 100;
    const k = (n) => (n + h / 30) % 12, a = s * Math.min(l, 1 - l);
    const c = (n) => Math.round(255 * (l - a * Math.max(-1, Math.min(k(n) - 3, 9 - k(n), 1)))).toString(16).padStart(2, '0');
    return '#' + c(0) + c(8) + c(4);
  }
  function swatch(cat) {
    const [h, range, s, l] = catStyle(cat);
    return `hsl(${(h + range / 2) % 360},${s}%,${l - (dark() ? 8 : 0)}%)`;
  }

  // ---------------------------------------------------------------- state
  const S = {
    data: null, base: null, view: null, col: 0, zoom: 0, icicle: false,
    matcher: null, match: null, matchCount: 0, excluded: null, merge: false, isGroupNode: null, groupNodes: [],
    sortKey: 'self', sortDir: -1, tableRows: null, colors: null, hover: -1, width: 0, height: 0, contentH: 0,
  };
  const canvas = $('canvas'), ctx = canvas.getContext('2d', { alpha: false });
  const chart = $('chart');

  function catName(f) { return S.data.header.categories[S.data.frames.cat[f]] || ''; }
  function colorOf(f) {
    let c = S.colors[f];
    if (c === undefined) c = S.colors[f] = frameColor(S.data.frames.name[f], catName(f));
    return c;
  }
  function unitOf(c) {
    const h = S.data.header, col = h.columns[c];
    return c === S.data.header.default_column && h.countname ? h.countname : col.unit;
  }
  function nodeName(i) { return i === 0 ? 'all' : S.data.frames.name[S.view.frame[i]]; }

  // ---------------------------------------------------------------- layout & drawing
  function visibleMaxDepth() {
    const { depth, end } = S.view;
    let m = depth[S.zoom];
    for (let i = S.zoom, e = end[S.zoom]; i < e; i++) if (depth[i] > m) m = depth[i];
    return m;
  }

  function layout() {
    const rows = S.maxRow + 1;
    S.contentH = rows * ROW;
    const maxH = Math.max(240, Math.floor(window.innerHeight * 0.7));
    const h = Math.min(S.contentH, maxH);
    const w = Math.max(200, chart.clientWidth);
    const dpr = window.devicePixelRatio || 1;
    if (w !== S.width || h !== S.height || dpr !== S.dpr) {
      S.width = w; S.height = h; S.dpr = dpr;
      canvas.width = Math.round(w * dpr); canvas.height = Math.round(h * dpr);
      canvas.style.height = h + 'px';
      chart.style.height = (h + 2) + 'px';
    }
    $('spacer').style.height = Math.max(0, S.contentH - h) + 'px';
  }

  // Row (absolute depth) -> y on the canvas.
  function rowY(d, scrollTop = chart.scrollTop) {
    const y = S.icicle ? d * ROW : S.contentH - (d + 1) * ROW;
    return y - scrollTop;
  }

  function draw() {
    const t0 = performance.now();
    const { depth, frame, end, parent } = S.view;
    const tot = totals(S.view, S.col);
    const W = S.width, H = S.height, z = S.zoom;
    const cs = getComputedStyle(document.documentElement);
    ctx.setTransform(S.dpr, 0, 0, S.dpr, 0, 0);
    ctx.fillStyle = cs.getPropertyValue('--bg').trim() || '#fff';
    ctx.fillRect(0, 0, W, H);
    ctx.font = '12px system-ui, -apple-system, "Segoe UI", Roboto, sans-serif';
    ctx.textBaseline = 'middle';
    const charW = S.charW || (S.charW = ctx.measureText('abcdefghijklmnopqrstuvwxyz_ABCDEFGH').width / 35);
    const T = tot[z];
    $('empty').style.display = T > 0 ? 'none' : 'flex';
    $('empty').textContent = T > 0 ? '' : 'No ' + columnLabel(S.data.header.columns[S.col]) + ' weight here.';
    let drawn = 0, merged = 0;
    const scrollTop = chart.scrollTop;  // read once: a DOM read per bar costs more than the bar
    const dimFill = cs.getPropertyValue('--dim').trim();
    // Bars now, labels after them in one colour: fewer fillStyle changes.
    let lastFill = '';
    const labels = [];
    const bar = (x, w, d, fill, label, dim) => {
      const y = rowY(d, scrollTop);
      if (y <= -ROW || y >= H) return;
      if (fill !== lastFill) { ctx.fillStyle = fill; lastFill = fill; }
      ctx.fillRect(x, y + 0.5, Math.max(w - 0.5, 0.5), ROW - 1);
      if (dim) { ctx.fillStyle = lastFill = dimFill; ctx.fillRect(x, y + 0.5, w, ROW - 1); }
      if (label !== null && w >= LABEL_W) labels.push(x, y, w, label);
      drawn++;
    };
    const match = S.match, matchColor = cs.getPropertyValue('--match').trim();
    const fill = (i) => (match && frame[i] >= 0 && match[frame[i]]) ? matchColor : (frame[i] < 0 ? '#a9adb5' : colorOf(frame[i]));
    if (T > 0) {
      // The zoomed node and its ancestors span the whole width.
      for (let a = z; a >= 0; a = parent[a]) bar(0, W, depth[a], fill(a), nodeName(a), a !== z);
      const scale = W / T;
      const cursor = new Float64Array(S.maxRow + 2);
      const pendX0 = new Float64Array(S.maxRow + 2), pendX1 = new Float64Array(S.maxRow + 2).fill(-1);
      const mergedFill = cs.getPropertyValue('--merged').trim();
      const flush = (d) => {
        if (pendX1[d] >= 0) {
          if (pendX1[d] - pendX0[d] >= 0.75) { bar(pendX0[d], pendX1[d] - pendX0[d], d, mergedFill, null, false); merged++; }
          pendX1[d] = -1;
        }
      };
      // Rows from this depth on are off the canvas (above it for a flame, below for an icicle).
      const rowLimit = Math.ceil((S.icicle ? scrollTop + H : S.contentH - scrollTop) / ROW);
      cursor[depth[z] + 1] = 0;
      for (let i = z + 1, e = end[z]; i < e;) {
        const d = depth[i], x = cursor[d], w = tot[i] * scale;
        cursor[d] = x + w;
        if (w < MIN_W) {
          if (pendX1[d] >= 0 && Math.abs(pendX1[d] - x) < 1e-6) pendX1[d] = x + w;
          else { flush(d); pendX0[d] = x; pendX1[d] = x + w; }
          i = end[i];
          continue;
        }
        flush(d);
        if (d >= rowLimit) { i = end[i]; continue; }
        bar(x, w, d, fill(i), S.data.frames.name[frame[i]], false);
        cursor[d + 1] = x;
        i++;
      }
      for (let d = 0; d < pendX1.length; d++) flush(d);
    }
    ctx.fillStyle = '#111';
    for (let k = 0; k < labels.length; k += 4) {
      const x = labels[k], y = labels[k + 1], w = labels[k + 2], label = labels[k + 3];
      const room = Math.floor((w - 8) / charW);
      const text = label.length > room ? label.slice(0, Math.max(1, room - 1)) + '…' : label;
      ctx.fillText(text, x + 4, y + ROW / 2 + 0.5, w - 8);
    }
    api.timings.lastDraw = performance.now() - t0;
    api.lastDrawStats = { drawn, merged };
  }

  function redraw() {
    cancelAnimationFrame(S.raf);
    S.raf = requestAnimationFrame(() => { draw(); positionHover(); });
  }

  // The frame under (x, y) in canvas CSS pixels: { node } or { merged run } or null.
  function hitTest(mx, my) {
    const { depth, end, parent } = S.view;
    const tot = totals(S.view, S.col), z = S.zoom;
    if (!(tot[z] > 0) || mx < 0 || mx >= S.width) return null;
    const contentY = my + chart.scrollTop;
    const d = S.icicle ? Math.floor(contentY / ROW) : Math.floor((S.contentH - contentY) / ROW);
    if (d < 0 || d > S.maxRow) return null;
    if (d <= depth[z]) {
      let a = z;
      while (depth[a] > d) a = parent[a];
      return { node: a, x: 0, w: S.width, d };
    }
    const scale = S.width / tot[z];
    let node = z, x0 = 0;
    for (let level = depth[z] + 1; level <= d; level++) {
      let found = -1, x = x0;
      for (let c = node + 1, e = end[node]; c < e; c = end[c]) {
        const w = tot[c] * scale;
        if (mx < x + w) {
          if (w < MIN_W) {
            // A merged run of tiny siblings: report its extent.
            let a = x, b = x + w, count = 1, sum = tot[c];
            for (let c2 = end[c], xx = x + w; c2 < e; c2 = end[c2]) {
              const w2 = tot[c2] * scale;
              if (w2 >= MIN_W) break;
              b = xx + w2; xx += w2; count++; sum += tot[c2];
            }
            // walk back is cheap enough: recompute from the first child
            let xs = x0, runStart = x0, runCount = 0, runSum = 0;
            for (let c3 = node + 1; c3 < c; c3 = end[c3]) {
              const w3 = tot[c3] * scale;
              if (w3 < MIN_W) { if (runCount === 0) runStart = xs; runCount++; runSum += tot[c3]; } else runCount = 0, runSum = 0;
              xs += w3;
            }
            if (runCount) { a = runStart; count += runCount; sum += runSum; }
            if (level !== d) return null;
            return { merged: true, parentNode: node, node: c, count, sum, x: a, w: b - a, d };
          }
          found = c;
          break;
        }
        x += w;
      }
      if (found < 0) return null;
      node = found; x0 = x;
    }
    return { node, x: x0, w: tot[node] * scale, d };
  }

  // ---------------------------------------------------------------- tooltip
  const tip = $('tooltip');
  function row(table, label, value) {
    const tr = table.insertRow();
    tr.insertCell().textContent = label;
    tr.insertCell().textContent = value;
  }
  function showTip(hit, ev) {
    tip.replaceChildren();
    const { frames, header } = S.data;
    const tot = totals(S.view, S.col), all = tot[0], unit = unitOf(S.col);
    const name = document.createElement('div'); name.className = 'tname';
    const table = document.createElement('table');
    if (hit.merged) {
      name.textContent = hit.count + (hit.count === 1 ? ' frame' : ' frames') + ' narrower than a pixel';
      tip.append(name);
      row(table, 'total', fmtValue(hit.sum, unit) + '  (' + fmtPct(hit.sum, all) + ' of all)');
      row(table, 'zoom', 'click to zoom into the one under the pointer');
      tip.append(table);
    } else {
      const i = hit.node, f = S.view.frame[i];
      name.textContent = clip(nodeName(i));
      tip.append(name);
      if (f >= 0 && (frames.file[f] || frames.line[f])) {
        const loc = document.createElement('div'); loc.className = 'tloc';
        loc.textContent = clip(frames.file[f] || '?') + (frames.line[f] ? ':' + frames.line[f] : '');
        tip.append(loc);
      }
      if (f >= 0 && catName(f)) row(table, 'category', catName(f));
      const p = S.view.parent[i];
      row(table, 'total', fmtValue(tot[i], unit));
      row(table, 'self', fmtValue(S.view.self[S.col][i], unit));
      row(table, '% of all', fmtPct(tot[i], all));
      if (p >= 0) row(table, '% of parent', fmtPct(tot[i], tot[p]));
      if (S.zoom !== 0 && i !== S.zoom) row(table, '% of zoom', fmtPct(tot[i], tot[S.zoom]));
      header.columns.forEach((col, c) => {
        if (c === S.col) return;
        if (col.name === 'calls') { row(table, 'calls', fmtValue(S.view.self[c][i], '')); return; }
        row(table, columnLabel(col) + ' total', fmtValue(totals(S.view, c)[i], unitOf(c)));
      });
      tip.append(table);
    }
    tip.hidden = false;
    const pad = 14, r = tip.getBoundingClientRect();
    let x = ev.clientX + pad, y = ev.clientY + pad;
    if (x + r.width > window.innerWidth - 4) x = Math.max(4, ev.clientX - pad - r.width);
    if (y + r.height > window.innerHeight - 4) y = Math.max(4, ev.clientY - pad - r.height);
    tip.style.left = x + 'px'; tip.style.top = y + 'px';
  }
  function positionHover() {
    const box = $('hoverbox');
    if (!S.hoverHit) { box.style.display = 'none'; return; }
    const h = S.hoverHit, y = rowY(h.d);
    box.style.display = 'block';
    box.style.left = h.x + 'px'; box.style.width = Math.max(2, h.w) + 'px';
    box.style.top = (y + chart.scrollTop) + 'px'; box.style.height = ROW + 'px';
  }

  // ---------------------------------------------------------------- zoom & breadcrumb
  function zoomTo(node) {
    const t0 = performance.now();
    S.zoom = node;
    S.maxRow = visibleMaxDepth();
    layout();
    if (!S.icicle) chart.scrollTop = chart.scrollHeight;  // keep the root in sight
    else chart.scrollTop = 0;
    draw();
    crumbs();
    updateMatch();
    $('reset').disabled = node === 0;
    api.timings.lastZoom = performance.now() - t0;
  }
  function crumbs() {
    const box = $('crumbs');
    box.replaceChildren();
    const path = [];
    for (let a = S.zoom; a >= 0; a = S.view.parent[a]) path.push(a);
    path.reverse();
    const shown = path.length > 9 ? [path[0], -1, ...path.slice(-7)] : path;
    shown.forEach((n, k) => {
      if (k) { const s = document.createElement('span'); s.className = 'sep'; s.textContent = '›'; box.append(s); }
      if (n === -1) { const s = document.createElement('span'); s.textContent = '…'; box.append(s); return; }
      const b = document.createElement('button');
      b.type = 'button';
      b.textContent = clip(nodeName(n));
      b.title = clip(nodeName(n));
      b.dataset.node = n;
      if (n === S.zoom) b.setAttribute('aria-current', 'true');
      else b.addEventListener('click', () => zoomTo(n));
      box.append(b);
    });
  }

  // ---------------------------------------------------------------- search
  function setSearch(text) {
    const t0 = performance.now();
    const input = $('search');
    input.classList.remove('bad');
    input.title = '';
    S.matcher = null; S.match = null;
    if (text) {
      try {
        S.matcher = new RegExp(text, /[A-Z]/.test(text) ? '' : 'i');
      } catch (e) {
        input.classList.add('bad');
        input.title = String(e.message || e);
      }
    }
    if (S.matcher) {
      const { name, file, count } = S.data.frames;
      const m = new Uint8Array(count), re = S.matcher;
      let k = 0;
      for (let f = 0; f < count; f++) if (re.test(name[f]) || (file[f] && re.test(file[f]))) { m[f] = 1; k++; }
      S.match = m; S.matchCount = k;
    }
    draw();
    updateMatch();
    api.timings.lastSearch = performance.now() - t0;
  }
  // Matched weight: each matched subtree counted once.
  function matchedWeight(from) {
    const { frame, end } = S.view, tot = totals(S.view, S.col), m = S.match;
    let sum = 0;
    for (let i = from + 1, e = end[from]; i < e;) {
      if (m[frame[i]]) { sum += tot[i]; i = end[i]; } else i++;
    }
    return (from > 0 && m[frame[from]]) ? tot[from] : sum;
  }
  function updateMatch() {
    const out = $('match');
    if (!S.match) { out.textContent = ''; out.classList.remove('on'); api.matched = null; return; }
    const tot = totals(S.view, S.col), all = tot[0], w = matchedWeight(0), unit = unitOf(S.col);
    let text = 'matched ' + fmtPct(w, all) + ' (' + fmtValue(w, unit) + ')';
    if (S.zoom !== 0) text += ' · ' + fmtPct(matchedWeight(S.zoom), tot[S.zoom]) + ' of zoom';
    if (S.matchCount === 0) text = 'no match';
    out.textContent = text;
    out.classList.add('on');
    api.matched = { weight: w, total: all, share: all > 0 ? w / all : 0, frames: S.matchCount };
  }

  // ---------------------------------------------------------------- table of top frames
  function computeTable() {
    const { N, frame, end, self } = S.view, F = S.data.frames.count;
    const tot = totals(S.view, S.col), s = self[S.col];
    const selfBy = new Float64Array(F), totalBy = new Float64Array(F), seen = new Uint8Array(F);
    const callsCol = S.data.header.columns.findIndex((c) => c.name === 'calls');
    const callsBy = callsCol >= 0 ? new Float64Array(F) : null;
    const onStack = new Uint32Array(F), open = [];
    for (let i = 1; i < N; i++) {
      while (open.length && end[open[open.length - 1]] <= i) onStack[frame[open.pop()]]--;
      const f = frame[i];
      selfBy[f] += s[i];
      if (callsBy) callsBy[f] += self[callsCol][i];
      if (onStack[f] === 0) totalBy[f] += tot[i];  // recursion: the outermost call only
      if (tot[i] > 0) seen[f] = 1;
      onStack[f]++;
      open.push(i);
    }
    const rows = [];
    for (let f = 0; f < F; f++) if (seen[f]) rows.push(f);
    S.tableRows = { rows, selfBy, totalBy, callsBy };
  }
  function renderTable() {
    const { rows, selfBy, totalBy, callsBy } = S.tableRows;
    const { name, file, line } = S.data.frames;
    const key = S.sortKey, dir = S.sortDir;
    const val = key === 'self' ? selfBy : key === 'total' ? totalBy : key === 'calls' ? (callsBy || selfBy) : null;
    rows.sort(val ? (a, b) => dir * (val[a] - val[b]) || (totalBy[b] - totalBy[a]) || (a - b)
                  : (a, b) => dir * (name[a] < name[b] ? -1 : name[a] > name[b] ? 1 : a - b));
    const all = totals(S.view, S.col)[0], unit = unitOf(S.col);
    const body = $('table').tBodies[0];
    const frag = document.createDocumentFragment();
    for (const f of rows.slice(0, TABLE_ROWS)) {
      const tr = document.createElement('tr');
      tr.dataset.frame = f;
      const td = tr.insertCell(); td.className = 'name';
      const nm = document.createElement('span'); nm.textContent = clip(name[f]); td.append(nm);
      if (file[f]) { const sm = document.createElement('small'); sm.textContent = clip(file[f]) + (line[f] ? ':' + line[f] : ''); td.append(sm); }
      td.title = clip(name[f]);
      const cell = (text, cls) => { const c = tr.insertCell(); c.className = cls; c.textContent = text; };
      const num = (v) => v === 0 ? '0' : fmtValue(v, unit, true);
      cell(num(selfBy[f]), 'num self');
      cell(fmtPct(selfBy[f], all), 'num pct');
      cell(num(totalBy[f]), 'num total');
      cell(fmtPct(totalBy[f], all), 'num pct');
      if (callsBy) cell(fmtValue(callsBy[f], ''), 'num calls');
      frag.append(tr);
    }
    body.replaceChildren(frag);
    for (const th of $('table').tHead.rows[0].cells) {
      if (th.classList.contains('calls')) th.hidden = !callsBy;
      if (th.dataset.key) th.setAttribute('aria-sort', th.dataset.key === key ? (dir < 0 ? 'descending' : 'ascending') : 'none');
    }
    $('tablemore').textContent = rows.length > TABLE_ROWS ? 'showing ' + TABLE_ROWS + ' of ' + rows.length.toLocaleString('en-US') + ' frames' : rows.length + ' frames';
  }

  // ---------------------------------------------------------------- groups (threads, processes, ranks)
  function findGroups() {
    const { N, frame, parent, end } = S.base, cat = S.data.frames.cat, cats = S.data.header.categories;
    const isGroupNode = new Uint8Array(N), list = [];
    for (let i = 1; i < N;) {
      const p = parent[i];
      if ((p === 0 || isGroupNode[p]) && GROUP_CATS.has(cats[cat[frame[i]]])) { isGroupNode[i] = 1; list.push(i); i++; }
      else i = end[i];  // groups only sit at the top levels: skip ordinary subtrees
    }
    S.isGroupNode = isGroupNode; S.groupNodes = list;
  }
  function renderGroups() {
    const box = $('groupsbox');
    if (!S.groupNodes.length) { box.hidden = true; return; }
    box.hidden = false;
    const cats = new Set(S.groupNodes.map((i) => catName(S.base.frame[i])));
    const words = { process: 'Processes', thread: 'Threads', rank: 'Ranks', device: 'Devices' };
    $('groupstitle').textContent = [...cats].map((c) => words[c] || c).join(' & ');
    const list = $('groups');
    list.replaceChildren();
    const tot = totals(S.base, S.col), all = tot[0], base = S.base.depth;
    for (const i of S.groupNodes) {
      const label = document.createElement('label');
      label.style.paddingLeft = (base[i] - 1) * 16 + 'px';
      const cb = document.createElement('input');
      cb.type = 'checkbox'; cb.checked = !S.excluded[i]; cb.dataset.node = i;
      let off = false;
      for (let a = S.base.parent[i]; a > 0; a = S.base.parent[a]) if (S.excluded[a]) off = true;
      cb.disabled = off;
      cb.addEventListener('change', () => { S.excluded[i] = cb.checked ? 0 : 1; applyFilter(); });
      const name = document.createElement('span'); name.className = 'g'; name.textContent = clip(S.data.frames.name[S.base.frame[i]]);
      const share = document.createElement('small'); share.textContent = fmtPct(tot[i], all);
      label.classList.toggle('off', !cb.checked || off);
      label.append(cb, name, share);
      list.append(label);
    }
    $('merge-threads').checked = S.merge;
  }
  function applyFilter() {
    const t0 = performance.now();
    S.view = (!S.merge && !S.excluded.some((x) => x)) ? S.base : deriveTree(S.base, S.excluded, S.merge, S.isGroupNode);
    api.timings.lastFilter = performance.now() - t0;
    renderGroups();
    refreshAll(0);
  }

  // ---------------------------------------------------------------- views (weight columns)
  function renderViews() {
    const box = $('views'), cols = S.data.header.columns;
    box.replaceChildren();
    const choices = cols.map((c, k) => k).filter((k) => cols[k].name !== 'calls' || cols.length === 1);
    if (choices.length < 2) return;
    choices.sort((a, b) => (TIME_UNITS.has(cols[b].unit) - TIME_UNITS.has(cols[a].unit)) || a - b);
    for (const k of choices) {
      const b = document.createElement('button');
      b.type = 'button'; b.dataset.col = k;
      b.textContent = columnLabel(cols[k]);
      b.title = cols[k].name + ' (' + (cols[k].unit || 'count') + ')';
      b.setAttribute('aria-pressed', String(k === S.col));
      b.addEventListener('click', () => setColumn(k));
      box.append(b);
    }
  }
  function setColumn(k) {
    S.col = k;
    for (const b of $('views').children) b.setAttribute('aria-pressed', String(Number(b.dataset.col) === k));
    const keep = totals(S.view, k)[S.zoom] > 0 ? S.zoom : 0;
    renderGroups();
    refreshAll(keep);
  }

  // ---------------------------------------------------------------- legend, summary, info
  function renderLegend() {
    const box = $('legend'), present = new Set();
    for (const f of S.tableRows.rows) present.add(catName(f));  // frames with weight in this view
    box.replaceChildren();
    const cats = [...present].sort();
    if (cats.length > 1 || (cats.length === 1 && cats[0] !== '')) {
      for (const c of cats) {
        const it = document.createElement('span'); it.className = 'item';
        const sw = document.createElement('i'); sw.style.background = swatch(c);
        const t = document.createElement('span'); t.textContent = c || 'other';
        it.append(sw, t); box.append(it);
      }
    }
    const extra = (color, text) => {
      const it = document.createElement('span'); it.className = 'item';
      const sw = document.createElement('i'); sw.style.background = color;
      const t = document.createElement('span'); t.textContent = text;
      it.append(sw, t); box.append(it);
    };
    extra('var(--match)', 'search match');
    extra('var(--merged)', 'frames narrower than a pixel, merged');
  }
  function renderSummary() {
    const h = S.data.header, tot = totals(S.view, S.col);
    // The unit the input gives: "90.09 ms sampled" (perf clock periods), "1,234 samples", "5,000 cycles", "2.1 s CPU time".
    const unit = unitOf(S.col), col = h.columns[S.col];
    const what = unit in NS_PER ? (col.name === 'samples' ? ' sampled' : ' ' + columnLabel(col) + ' time') : unit === 'count' ? ' ' + col.name : '';
    const parts = [fmtValue(tot[0], unit) + what];
    parts.push((S.view.N - 1).toLocaleString('en-US') + ' nodes');
    if (S.groupNodes.length) parts.push(S.groupNodes.length + ' ' + $('groupstitle').textContent.toLowerCase());
    $('summary').textContent = parts.join(' · ');
  }
  function renderInfo() {
    const h = S.data.header, dl = $('info');
    dl.replaceChildren();
    const add = (k, v, cls) => {
      const dt = document.createElement('dt'); dt.textContent = clip(k);
      const dd = document.createElement('dd'); dd.textContent = clip(String(v)); if (cls) dd.className = cls;
      dl.append(dt, dd);
    };
    if (h.source_format) add('format', h.source_format);
    h.inputs.forEach((p, k) => add(k ? '' : (h.inputs.length > 1 ? 'inputs' : 'input'), p));
    h.columns.forEach((c, k) => add(columnLabel(c), fmtValue(totals(S.base, k)[0], unitOf(k), unitOf(k) === c.name)));
    add('nodes', (S.base.N - 1).toLocaleString('en-US'));
    add('frames', S.data.frames.count.toLocaleString('en-US'));
    add('max depth', String(S.base.maxDepth));
    for (const [k, v] of h.facts) add(k, v);
    for (const [k, v] of h.counters) add(k, v.toLocaleString('en-US'), 'warn');
  }

  function refreshAll(zoom) {
    computeTable();
    renderTable();
    renderLegend();
    renderSummary();
    zoomTo(zoom);
  }

  // ---------------------------------------------------------------- events
  function wire() {
    canvas.addEventListener('mousemove', (ev) => {
      const r = canvas.getBoundingClientRect();
      const hit = hitTest(ev.clientX - r.left, ev.clientY - r.top);
      S.hoverHit = hit;
      positionHover();
      if (hit) showTip(hit, ev); else tip.hidden = true;
    });
    canvas.addEventListener('mouseleave', () => { S.hoverHit = null; positionHover(); tip.hidden = true; });
    canvas.addEventListener('click', (ev) => {
      const r = canvas.getBoundingClientRect();
      const hit = hitTest(ev.clientX - r.left, ev.clientY - r.top);
      if (!hit) return;
      tip.hidden = true; S.hoverHit = null;
      zoomTo(hit.node);
    });
    chart.addEventListener('scroll', () => redraw(), { passive: true });
    let timer = 0;
    $('search').addEventListener('input', (ev) => {
      clearTimeout(timer);
      timer = setTimeout(() => setSearch(ev.target.value), 60);
    });
    $('search').addEventListener('keydown', (ev) => {
      if (ev.key === 'Enter') { clearTimeout(timer); setSearch(ev.target.value); }
      if (ev.key === 'Escape') { ev.stopPropagation(); ev.target.value = ''; setSearch(''); ev.target.blur(); }
    });
    document.addEventListener('keydown', (ev) => {
      if (ev.target instanceof HTMLInputElement) return;
      if (ev.key === 'Escape') { zoomTo(0); }
      else if (ev.key === '/') { ev.preventDefault(); $('search').focus(); $('search').select(); }
    });
    $('reset').addEventListener('click', () => zoomTo(0));
    const setOrientation = (icicle) => {
      S.icicle = icicle;
      $('flame').setAttribute('aria-pressed', String(!icicle));
      $('icicle').setAttribute('aria-pressed', String(icicle));
      zoomTo(S.zoom);
    };
    $('flame').addEventListener('click', () => setOrientation(false));
    $('icicle').addEventListener('click', () => setOrientation(true));
    S.setOrientation = setOrientation;
    for (const th of $('table').tHead.rows[0].cells) {
      if (!th.dataset.key) continue;
      th.addEventListener('click', () => {
        const k = th.dataset.key;
        S.sortDir = S.sortKey === k ? -S.sortDir : (k === 'name' ? 1 : -1);
        S.sortKey = k;
        renderTable();
      });
    }
    $('table').tBodies[0].addEventListener('click', (ev) => {
      const tr = ev.target.closest('tr');
      if (!tr) return;
      const name = S.data.frames.name[Number(tr.dataset.frame)];
      const re = '^' + name.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&') + '$';
      $('search').value = re;
      setSearch(re);
    });
    $('merge-threads').addEventListener('change', (ev) => { S.merge = ev.target.checked; applyFilter(); });
    $('groups-all').addEventListener('click', () => { S.excluded.fill(0); applyFilter(); });
    $('groups-none').addEventListener('click', () => { for (const i of S.groupNodes) if (S.base.depth[i] === 1) S.excluded[i] = 1; applyFilter(); });
    new ResizeObserver(() => { const w = chart.clientWidth; if (w && w !== S.width) { layout(); draw(); positionHover(); } }).observe(chart);
    window.matchMedia('(prefers-color-scheme: dark)').addEventListener('change', () => { S.colors = new Array(S.data.frames.count); renderLegend(); draw(); });
  }

  // ---------------------------------------------------------------- test and automation hooks
  Object.assign(api, {
    state: () => ({ zoom: S.zoom, zoomName: nodeName(S.zoom), column: S.col, columnName: S.data.header.columns[S.col].name,
      icicle: S.icicle, nodes: S.view.N, merge: S.merge, search: $('search').value, width: S.width, height: S.height }),
    // The first node (depth-first) whose frame name is `name`, with its box in canvas CSS pixels.
    find(name, nth = 0) {
      const { N, frame } = S.view, names = S.data.frames.name;
      for (let i = 1; i < N; i++) if (names[frame[i]] === name && nth-- === 0) return api.box(i);
      return null;
    },
    box(i) {
      const path = [];
      for (let a = i; a >= 0; a = S.view.parent[a]) path.push(a);
      const tot = totals(S.view, S.col), z = S.zoom;
      if (!path.includes(z)) return { node: i, visible: false };
      const scale = S.width / tot[z];
      let x = 0;
      for (let k = path.indexOf(z) - 1; k >= 0; k--) {
        const n = path[k], p = path[k + 1];
        for (let c = p + 1; c < n; c = S.view.end[c]) x += tot[c] * scale;
      }
      const d = S.view.depth[i];
      return { node: i, x, w: i === z || path.indexOf(z) < 0 ? S.width : tot[i] * scale, y: rowY(d), h: ROW, depth: d,
        total: tot[i], self: S.view.self[S.col][i], visible: true };
    },
    hitTest: (x, y) => hitTest(x, y),
    // The child of node i with the most weight in the current view (-1 for a leaf).
    widestChild(i) {
      const tot = totals(S.view, S.col), end = S.view.end;
      let best = -1;
      for (let c = i + 1; c < end[i]; c = end[c]) if (best < 0 || tot[c] > tot[best]) best = c;
      return best;
    },
    zoomTo: (i) => zoomTo(i),
    search: (t) => { $('search').value = t; setSearch(t); return api.matched; },
    setColumn: (k) => setColumn(k),
    pixel(x, y) {
      const d = ctx.getImageData(Math.floor(x * S.dpr), Math.floor(y * S.dpr), 1, 1).data;
      return [d[0], d[1], d[2]];
    },
  });

  // ---------------------------------------------------------------- start
  async function start() {
    const t0 = performance.now();
    try {
      const data = decode(await inflate());
      api.timings.decode = performance.now() - t0;
      S.data = data;
      S.base = S.view = data.tree;
      S.colors = new Array(data.frames.count);
      S.excluded = new Uint8Array(data.tree.N);
      const h = data.header;
      S.col = h.default_column >= 0 && h.default_column < h.columns.length ? h.default_column : 0;
      S.icicle = !!h.inverted;
      $('title').textContent = h.title;
      $('subtitle').textContent = h.subtitle;
      document.title = h.title;
      $('flame').setAttribute('aria-pressed', String(!S.icicle));
      $('icicle').setAttribute('aria-pressed', String(S.icicle));
      findGroups();
      renderViews();
      renderGroups();
      renderInfo();
      wire();
      refreshAll(0);
      api.timings.firstPaint = performance.now();
      api.timings.startToPaint = performance.now() - t0;
      api.ready = true;
      document.documentElement.dataset.ready = 'true';
    } catch (e) {
      api.error = String(e && e.stack || e);
      $('empty').style.display = 'flex';
      $('empty').textContent = 'Could not read the embedded profile: ' + (e && e.message || e);
      document.documentElement.dataset.ready = 'error';
      throw e;
    }
  }
  start();
})();
