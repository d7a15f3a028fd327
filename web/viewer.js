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
  const GROUP_CATS = new Set(['process', 'thread', 'rank', 'device', 'label']);
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
    if (col.name.startsWith(BEFORE)) return columnLabel({ name: sideName(col.name) }) + ' (before)';
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
    // Differential profiles only (null otherwise): see "differential mode" below.
    diff: null, widthBy: 'after', colourBy: 'self', diffKey: 'total', diffColours: null, hatch: null,
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

  // ---------------------------------------------------------------- differential mode
  // `flamefold diff` writes one tree (the union of both runs) whose ordinary columns are the
  // after side and whose "before:<name>" columns hold the before side on the same nodes
  // (include/flamefold/diff.h). The page then offers: colour by change, width by after, before
  // or the larger of the two, before/after/delta in the tooltip, and a grew/shrank table.
  const BEFORE = 'before:';
  const NEW = 1, GONE = 2;  // node status: only the after side has weight / only the before side
  // The before column of every column (-1 when it has none); null when nothing pairs up.
  function findDiff(cols) {
    const at = new Map(cols.map((c, k) => [c.name, k]));
    const before = cols.map((c) => (c.name.startsWith(BEFORE) || !at.has(BEFORE + c.name)) ? -1 : at.get(BEFORE + c.name));
    return before.some((b) => b >= 0) ? { before } : null;
  }
  const sideName = (name) => name.startsWith(BEFORE) ? name.slice(BEFORE.length) : name;
  function zeros(tree) { return tree.zeros || (tree.zeros = new Float64Array(tree.N)); }
  function beforeTotals(tree, c) { const b = S.diff.before[c]; return b >= 0 ? totals(tree, b) : zeros(tree); }
  function beforeSelf(tree, c) { const b = S.diff.before[c]; return b >= 0 ? tree.self[b] : zeros(tree); }

  // The totals frames are laid out by: the weight column, or in a differential view the before
  // side, or (width by "larger") each node as wide as the larger of its two totals and no
  // narrower than its children side by side: a parent's max(after, before) can be less than the
  // sum of its children's maxima (one child only before, another only after), and a parent
  // narrower than its children would break zoom, hit testing and the merged-run logic.
  function layTotals(tree = S.view) {
    if (!S.diff || S.widthBy === 'after') return totals(tree, S.col);
    if (S.widthBy === 'before') return beforeTotals(tree, S.col);
    const cache = tree.lay || (tree.lay = {});
    if (!cache[S.col]) {
      const a = totals(tree, S.col), b = beforeTotals(tree, S.col), p = tree.parent;
      const w = new Float64Array(tree.N);  // holds the sum of the children's widths until visited
      for (let i = tree.N - 1; i >= 0; i--) {
        w[i] = Math.max(w[i], a[i], b[i]);
        if (i > 0) w[p[i]] += w[i];
      }
      cache[S.col] = w;
    }
    return cache[S.col];
  }

  // flamegraph.pl's colour scale, as the SVG writer draws it (svg::change_colour): white when
  // unchanged, red as a frame grew and blue as it shrank, fully saturated at the largest change
  // in the view. 211 steps each way, as hex strings made once.
  const hex2 = (v) => v.toString(16).padStart(2, '0');
  const RED = [], BLUE = [];
  for (let g = 0; g <= 210; g++) { RED.push('#ff' + hex2(g) + hex2(g)); BLUE.push('#' + hex2(g) + hex2(g) + 'ff'); }
  // --negate (the header's "negate") swaps the hues: blue where a frame grew.
  function changeColour(v, max) {
    if (S.negate) v = -v;
    if (v > 0) return RED[Math.trunc(210 * (max - Math.min(v, max)) / max)];
    if (v < 0) return BLUE[Math.trunc(210 * (max + Math.max(v, -max)) / max)];
    return '#ffffff';
  }
  // Per node of the view: the change the colour shows, the scale, and new/gone.
  // Colour by self change is the default: it is what flamegraph.pl (and our SVG) show, and it
  // points at the frames whose own work changed, where an inclusive change also reddens every
  // caller up to the root. "Total" colours by inclusive change, as diff views in the style of
  // Firefox's profiler comparison do, for when the question is which subtree grew.
  // The scale is the largest change anywhere in the view, not in the zoom, so a frame keeps its
  // colour while zooming and the legend's scale holds everywhere.
  function diffColours() {
    const tree = S.view, c = S.col, by = S.colourBy, dc = S.diffColours;
    if (dc && dc.tree === tree && dc.col === c && dc.by === by) return dc;
    const N = tree.N, a = totals(tree, c), b = beforeTotals(tree, c);
    const delta = new Float64Array(N), status = new Uint8Array(N);
    let max = 0, gone = 0;
    if (by === 'total') for (let i = 0; i < N; i++) delta[i] = a[i] - b[i];
    else { const sa = tree.self[c], sb = beforeSelf(tree, c); for (let i = 0; i < N; i++) delta[i] = sa[i] - sb[i]; }
    for (let i = 0; i < N; i++) {
      const m = Math.abs(delta[i]);
      if (m > max) max = m;
      if (a[i] === 0) { if (b[i] > 0) { status[i] = GONE; gone++; } } else if (b[i] === 0) status[i] = NEW;
    }
    S.diffColours = { tree, col: c, by, delta, status, max, gone, fill: (i) => changeColour(delta[i], max || 1) };
    return S.diffColours;
  }
  // A gone frame is hatched (it was there), a new one gets a dark strip along its bottom edge.
  function markPattern() {
    if (S.hatch) return S.hatch;
    const t = document.createElement('canvas');
    t.width = t.height = 6;
    const g = t.getContext('2d');
    g.strokeStyle = 'rgba(17,24,39,0.55)'; g.lineWidth = 1.5;
    g.beginPath(); g.moveTo(-1, 7); g.lineTo(7, -1); g.moveTo(-1, 1); g.lineTo(1, -1); g.moveTo(5, 7); g.lineTo(7, 5); g.stroke();
    return (S.hatch = ctx.createPattern(t, 'repeat'));
  }

  const signed = (v, unit, bare) => (v > 0 ? '+' : v < 0 ? '-' : '') + fmtValue(Math.abs(v), unit, bare);
  // part/whole as a signed percentage, with fmtPct's precision.
  function fmtDeltaPct(part, whole) {
    if (!(whole > 0)) return part === 0 ? '0%' : '–';
    return (part > 0 ? '+' : part < 0 ? '-' : '') + fmtPct(Math.abs(part), whole);
  }

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
    const tot = layTotals();
    const W = S.width, H = S.height, z = S.zoom;
    const cs = getComputedStyle(document.documentElement);
    ctx.setTransform(S.dpr, 0, 0, S.dpr, 0, 0);
    // Unchanged frames are white in a differential view: a light grey ground keeps them apart.
    ctx.fillStyle = S.diff && !dark() ? '#e9ebef' : cs.getPropertyValue('--bg').trim() || '#fff';
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
    const dc = S.diff ? diffColours() : null, status = dc && dc.status, marks = [];
    const fill = dc ? (i) => (match && frame[i] >= 0 && match[frame[i]]) ? matchColor : dc.fill(i)
      : (i) => (match && frame[i] >= 0 && match[frame[i]]) ? matchColor : (frame[i] < 0 ? '#a9adb5' : colorOf(frame[i]));
    const mark = (x, w, d, kind) => {
      const y = rowY(d, scrollTop);
      if (y > -ROW && y < H) marks.push(x, y, w, kind);
    };
    if (T > 0) {
      // The zoomed node and its ancestors span the whole width.
      for (let a = z; a >= 0; a = parent[a]) {
        bar(0, W, depth[a], fill(a), nodeName(a), a !== z);
        if (status && status[a]) mark(0, W, depth[a], status[a]);
      }
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
        if (status && status[i]) mark(x, w, d, status[i]);
        cursor[d + 1] = x;
        i++;
      }
      for (let d = 0; d < pendX1.length; d++) flush(d);
    }
    if (marks.length) {
      const hatch = markPattern();
      for (let k = 0; k < marks.length; k += 4) {
        const x = marks[k], y = marks[k + 1], w = marks[k + 2];
        if (marks[k + 3] === GONE) { ctx.fillStyle = hatch; ctx.fillRect(x, y + 0.5, Math.max(w - 0.5, 0.5), ROW - 1); }
        else { ctx.fillStyle = '#7a0a0a'; ctx.fillRect(x, y + ROW - 3.5, Math.max(w - 0.5, 0.5), 3); }
      }
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
    const tot = layTotals(), z = S.zoom;
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
    const tot = layTotals(), all = tot[0], unit = unitOf(S.col);
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
      if (S.diff) diffTipRows(table, i);
      else {
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
      }
      tip.append(table);
    }
    tip.hidden = false;
    const pad = 14, r = tip.getBoundingClientRect();
    let x = ev.clientX + pad, y = ev.clientY + pad;
    if (x + r.width > window.innerWidth - 4) x = Math.max(4, ev.clientX - pad - r.width);
    if (y + r.height > window.innerHeight - 4) y = Math.max(4, ev.clientY - pad - r.height);
    tip.style.left = x + 'px'; tip.style.top = y + 'px';
  }
  // Before, after and the change of node i; each delta also as a share of each side's whole.
  function diffTipRows(table, i) {
    const v = S.view, c = S.col, unit = unitOf(c), dc = diffColours();
    const a = totals(v, c), b = beforeTotals(v, c), sa = v.self[c][i], sb = beforeSelf(v, c)[i];
    const d = a[i] - b[i];
    if (dc.status[i]) row(table, 'status', dc.status[i] === NEW ? 'new: only in after' : 'gone: only in before');
    row(table, 'before', fmtValue(b[i], unit) + '  (' + fmtPct(b[i], b[0]) + ' of before)');
    row(table, 'after', fmtValue(a[i], unit) + '  (' + fmtPct(a[i], a[0]) + ' of after)');
    row(table, 'delta', signed(d, unit) + (b[i] > 0 ? '  (' + fmtDeltaPct(d, b[i]) + ')' : ''));
    row(table, 'delta % of before', fmtDeltaPct(d, b[0]));
    row(table, 'delta % of after', fmtDeltaPct(d, a[0]));
    row(table, 'self', fmtValue(sb, unit) + ' → ' + fmtValue(sa, unit) + '  (' + signed(sa - sb, unit) + ')');
    S.data.header.columns.forEach((col, k) => {
      if (k === c || col.name.startsWith(BEFORE)) return;
      const x = totals(v, k)[i], y = beforeTotals(v, k)[i];
      if (col.name === 'calls') { row(table, 'calls', fmtValue(beforeSelf(v, k)[i], '') + ' → ' + fmtValue(v.self[k][i], '')); return; }
      row(table, columnLabel(col) + ' total', fmtValue(y, unitOf(k)) + ' → ' + fmtValue(x, unitOf(k)) + '  (' + signed(x - y, unitOf(k)) + ')');
    });
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
  function matchedWeight(from, tot = totals(S.view, S.col)) {
    const { frame, end } = S.view, m = S.match;
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
    let before = null;
    if (S.diff) {
      // Both sides: "matched 54.0% (54) after, 40.0% (40) before".
      const bt = beforeTotals(S.view, S.col), bw = matchedWeight(0, bt);
      before = { weight: bw, total: bt[0], share: bt[0] > 0 ? bw / bt[0] : 0 };
      text = 'matched ' + fmtPct(w, all) + ' (' + fmtValue(w, unit) + ') after, ' + fmtPct(bw, bt[0]) + ' (' + fmtValue(bw, unit) + ') before';
      if (S.zoom !== 0) text += ' · of zoom ' + fmtPct(matchedWeight(S.zoom), tot[S.zoom]) + ' after, ' + fmtPct(matchedWeight(S.zoom, bt), bt[S.zoom]) + ' before';
    }
    if (S.matchCount === 0) text = 'no match';
    out.textContent = text;
    out.classList.add('on');
    api.matched = { weight: w, total: all, share: all > 0 ? w / all : 0, frames: S.matchCount };
    if (before) api.matched.before = before;
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

  // ---------------------------------------------------------------- table of changed frames (differential)
  // Per frame, both sides' self and total (a recursive frame's total counted at its outermost
  // call, as in the top-frames table and `flamefold diff`'s own table); group frames left out.
  function computeDiffTable() {
    const { N, frame, end } = S.view, F = S.data.frames.count, c = S.col;
    const a = totals(S.view, c), b = beforeTotals(S.view, c), sa = S.view.self[c], sb = beforeSelf(S.view, c);
    const aSelf = new Float64Array(F), bSelf = new Float64Array(F), aTotal = new Float64Array(F), bTotal = new Float64Array(F);
    const seen = new Uint8Array(F), onStack = new Uint32Array(F), open = [];
    for (let i = 1; i < N; i++) {
      while (open.length && end[open[open.length - 1]] <= i) onStack[frame[open.pop()]]--;
      const f = frame[i];
      aSelf[f] += sa[i]; bSelf[f] += sb[i];
      if (onStack[f] === 0) { aTotal[f] += a[i]; bTotal[f] += b[i]; }
      if (a[i] > 0 || b[i] > 0) seen[f] = 1;
      onStack[f]++;
      open.push(i);
    }
    const rows = [];
    for (let f = 0; f < F; f++) if (seen[f] && !GROUP_CATS.has(catName(f))) rows.push(f);
    S.tableRows = { rows, aSelf, bSelf, aTotal, bTotal, before: b[0] };
  }
  const DIFF_ROWS = 100;  // per list
  function renderDiffTable() {
    const { rows, aSelf, bSelf, aTotal, bTotal, before } = S.tableRows;
    const { name, file, line } = S.data.frames;
    const key = S.diffKey, unit = unitOf(S.col);
    const A = key === 'self' ? aSelf : aTotal, B = key === 'self' ? bSelf : bTotal;
    const grew = rows.filter((f) => A[f] > B[f]).sort((x, y) => (A[y] - B[y]) - (A[x] - B[x]) || x - y);
    const shrank = rows.filter((f) => A[f] < B[f]).sort((x, y) => (A[x] - B[x]) - (A[y] - B[y]) || x - y);
    const table = $('difftable'), body = table.tBodies[0], frag = document.createDocumentFragment();
    const num = (v) => v === 0 ? '0' : fmtValue(v, unit, true);
    const change = (v) => v === 0 ? '0' : signed(v, unit, true);
    const list = (title, which, frames) => {
      const head = document.createElement('tr'); head.className = 'section';
      const hc = head.insertCell(); hc.colSpan = 8; hc.textContent = title + ' (by ' + key + ')';
      frag.append(head);
      if (!frames.length) { const tr = document.createElement('tr'); tr.className = 'none'; const td = tr.insertCell(); td.colSpan = 8; td.textContent = '(none)'; frag.append(tr); }
      for (const f of frames.slice(0, DIFF_ROWS)) {
        const tr = document.createElement('tr');
        tr.dataset.frame = f; tr.dataset.list = which;
        const td = tr.insertCell(); td.className = 'name';
        const nm = document.createElement('span'); nm.className = 'nm'; nm.textContent = clip(name[f]); td.append(nm);
        if (file[f]) { const sm = document.createElement('small'); sm.textContent = clip(file[f]) + (line[f] ? ':' + line[f] : ''); td.append(sm); }
        const tag = aTotal[f] === 0 ? 'gone' : bTotal[f] === 0 ? 'new' : '';
        if (tag) { const t = document.createElement('span'); t.className = 'tag ' + tag; t.textContent = tag; td.append(t); }
        td.title = clip(name[f]);
        const cell = (text, cls) => { const c = tr.insertCell(); c.className = cls; c.textContent = text; };
        const dir = (v) => v > 0 ? ' up' : v < 0 ? ' down' : '';
        cell(num(bSelf[f]), 'num bself'); cell(num(aSelf[f]), 'num aself');
        cell(change(aSelf[f] - bSelf[f]), 'num dself' + dir(aSelf[f] - bSelf[f]));
        cell(num(bTotal[f]), 'num btotal'); cell(num(aTotal[f]), 'num atotal');
        cell(change(aTotal[f] - bTotal[f]), 'num dtotal' + dir(aTotal[f] - bTotal[f]));
        cell(fmtDeltaPct(A[f] - B[f], before), 'num pct');
        frag.append(tr);
      }
    };
    list('Grew most', 'grew', grew);
    list('Shrank most', 'shrank', shrank);
    body.replaceChildren(frag);
    for (const th of table.tHead.rows[1].cells) if (th.dataset.key) th.setAttribute('aria-sort', th.dataset.key === key ? 'descending' : 'none');
    const cut = grew.length > DIFF_ROWS || shrank.length > DIFF_ROWS ? ' (showing up to ' + DIFF_ROWS + ' of each)' : '';
    $('tablemore').textContent = grew.length + ' grew, ' + shrank.length + ' shrank, ' + (rows.length - grew.length - shrank.length) + ' unchanged' + cut;
  }
  // The differential page's own controls and table, made once: the width and colour switches
  // beside the weight switch, and a grew/shrank table in place of the top-frames table.
  function setupDiff() {
    const seg = (label, id, choices, current, set) => {
      const box = document.createElement('div'); box.className = 'seg'; box.id = id;
      box.setAttribute('role', 'group'); box.setAttribute('aria-label', label);
      const tag = document.createElement('span'); tag.className = 'seglabel'; tag.textContent = label;
      box.append(tag);
      for (const [value, text, title] of choices) {
        const b = document.createElement('button');
        b.type = 'button'; b.dataset.value = value; b.textContent = text; b.title = title;
        b.setAttribute('aria-pressed', String(value === current));
        b.addEventListener('click', () => set(value));
        box.append(b);
      }
      return box;
    };
    $('views').after(
      seg('width', 'widthby', [['after', 'After', 'frame widths from the after side'],
        ['before', 'Before', 'frame widths from the before side: frames that are gone are wide, new ones invisible'],
        ['max', 'Larger', 'each frame as wide as the larger of its two sides: nothing new or gone is hidden']], S.widthBy, setWidthBy),
      seg('colour', 'colourby', [['self', 'Self Δ', 'colour by the change in self weight (flamegraph.pl)'],
        ['total', 'Total Δ', 'colour by the change in total (inclusive) weight']], S.colourBy, setColourBy));
    // Two header rows (Self and Total over before, after, Δ) keep the eight columns narrow.
    const table = document.createElement('table'); table.id = 'difftable';
    const thead = table.createTHead(), top = thead.insertRow(), sub = thead.insertRow();
    const th = (tr, text, cls, span) => {
      const c = document.createElement('th'); c.textContent = text; c.className = cls;
      if (span) { if (span[0] > 1) c.colSpan = span[0]; if (span[1] > 1) c.rowSpan = span[1]; }
      tr.append(c);
      return c;
    };
    th(top, 'Frame', 'name', [1, 2]);
    th(top, 'Self', 'group', [3, 1]);
    th(top, 'Total', 'group', [3, 1]);
    th(top, 'Δ of before', 'num pct', [1, 2]).title = 'the change (self or total, as ranked) as a share of the before side\'s whole';
    for (const key of ['self', 'total']) {
      th(sub, 'before', 'num'); th(sub, 'after', 'num');
      const d = th(sub, 'Δ', 'num');
      d.dataset.key = key; d.title = 'rank by the change in ' + key + ' weight';
      d.addEventListener('click', () => { S.diffKey = key; renderDiffTable(); });
    }
    table.createTBody().addEventListener('click', (ev) => {
      const tr = ev.target.closest('tr');
      if (tr && tr.dataset.frame) searchFrame(Number(tr.dataset.frame));
    });
    $('table').hidden = true;
    $('table').after(table);
    const head = $('tablebox').querySelector('.panel-head');
    head.querySelector('h2').textContent = 'Frames that changed most';
    head.querySelector('.hint').textContent = 'click Δ self or Δ total to rank by it, a row to search it';
  }
  function pressed(id, value) { for (const b of $(id).querySelectorAll('button')) b.setAttribute('aria-pressed', String(b.dataset.value === value)); }
  function setWidthBy(mode) {
    S.widthBy = mode;
    pressed('widthby', mode);
    // A frame that has no width at the new setting cannot stay zoomed.
    const keep = layTotals()[S.zoom] > 0 ? S.zoom : 0;
    renderGroups();
    renderLegend();
    zoomTo(keep);
  }
  function setColourBy(mode) {
    S.colourBy = mode;
    pressed('colourby', mode);
    renderLegend();
    draw();
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
    const words = { process: 'Processes', thread: 'Threads', rank: 'Ranks', device: 'Devices', label: 'Labels' };
    $('groupstitle').textContent = [...cats].map((c) => words[c] || c).join(' & ');
    const list = $('groups');
    list.replaceChildren();
    const tot = layTotals(S.base), all = tot[0], base = S.base.depth;
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
    // A differential profile lists the after side's weights: each brings its before companion.
    const choices = cols.map((c, k) => k).filter((k) => (cols[k].name !== 'calls' || cols.length === 1) && !(S.diff && cols[k].name.startsWith(BEFORE)));
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
    const keep = layTotals()[S.zoom] > 0 ? S.zoom : 0;
    renderGroups();
    refreshAll(keep);
  }

  // ---------------------------------------------------------------- legend, summary, info
  function renderLegend() {
    if (S.diff) { renderDiffLegend(); return; }
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
  // The colour scale (blue, white, red; the steps as drawn) with the change it stands for at
  // each end, and the marks for new and gone frames.
  function renderDiffLegend() {
    const box = $('legend'), dc = diffColours(), unit = unitOf(S.col), max = dc.max;
    box.replaceChildren();
    const item = (cls, text, style) => {
      const it = document.createElement('span'); it.className = 'item';
      const sw = document.createElement('i'); if (cls) sw.className = cls; if (style) sw.style.background = style;
      const t = document.createElement('span'); t.textContent = text;
      it.append(sw, t); box.append(it);
    };
    const scale = document.createElement('span'); scale.className = 'item scale'; scale.id = 'diffscale';
    const lo = document.createElement('span'); lo.className = 'lo'; lo.textContent = max > 0 ? signed(-max, unit) : '0';
    const bar = document.createElement('i'); bar.className = 'bar';
    const [neg, pos] = S.negate ? [RED, BLUE] : [BLUE, RED];  // the colour of a shrink, of a growth
    bar.style.background = 'linear-gradient(to right, ' + neg[0] + ', ' + neg[210] + ' 49.5%, #ffffff 49.5%, #ffffff 50.5%, ' + pos[210] + ' 50.5%, ' + pos[0] + ')';
    const hi = document.createElement('span'); hi.className = 'hi'; hi.textContent = max > 0 ? signed(max, unit) : '0';
    const what = document.createElement('span'); what.className = 'what';
    what.textContent = columnLabel(S.data.header.columns[S.col]) + ' ' + S.colourBy + ' change, after − before';
    scale.append(lo, bar, hi, what);
    box.append(scale);
    const hidden = S.widthBy === 'after' && dc.gone ? ' — ' + dc.gone.toLocaleString('en-US') + ' hidden at this width (width: Before or Larger shows them)' : '';
    item('gone', 'gone: only in before' + hidden);
    item('new', 'new: only in after');
    item('', 'search match', 'var(--match)');
    item('', 'frames narrower than a pixel, merged', 'var(--merged)');
  }
  function renderSummary() {
    if (S.diff) {
      // "14 → 16 samples (+14.3%)": both sides and the change of the whole.
      const tot = totals(S.view, S.col), bt = beforeTotals(S.view, S.col), unit = unitOf(S.col), col = S.data.header.columns[S.col];
      const what = unit in NS_PER ? ' ' + columnLabel(col) + ' time' : unit === 'count' ? ' ' + col.name : '';
      const parts = ['before ' + fmtValue(bt[0], unit) + ' → after ' + fmtValue(tot[0], unit) + what + ' (' + fmtDeltaPct(tot[0] - bt[0], bt[0]) + ')'];
      parts.push((S.view.N - 1).toLocaleString('en-US') + ' nodes');
      if (S.groupNodes.length) parts.push(S.groupNodes.length + ' ' + $('groupstitle').textContent.toLowerCase());
      $('summary').textContent = parts.join(' · ');
      return;
    }
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
    h.columns.forEach((c, k) => add(columnLabel(c), fmtValue(totals(S.base, k)[0], unitOf(k), unitOf(k) === sideName(c.name))));
    add('nodes', (S.base.N - 1).toLocaleString('en-US'));
    add('frames', S.data.frames.count.toLocaleString('en-US'));
    add('max depth', String(S.base.maxDepth));
    for (const [k, v] of h.facts) add(k, v);
    for (const [k, v] of h.counters) add(k, v.toLocaleString('en-US'), 'warn');
  }

  function refreshAll(zoom) {
    if (S.diff) { computeDiffTable(); renderDiffTable(); }
    else { computeTable(); renderTable(); }
    renderLegend();
    renderSummary();
    zoomTo(zoom);
  }

  // ---------------------------------------------------------------- events
  function searchFrame(f) {
    const re = '^' + S.data.frames.name[f].replace(/[.*+?^${}()|[\]\\/]/g, '\\$&') + '$';
    $('search').value = re;
    setSearch(re);
  }
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
      searchFrame(Number(tr.dataset.frame));
    });
    $('merge-threads').addEventListener('change', (ev) => { S.merge = ev.target.checked; applyFilter(); });
    $('groups-all').addEventListener('click', () => { S.excluded.fill(0); applyFilter(); });
    $('groups-none').addEventListener('click', () => { for (const i of S.groupNodes) if (S.base.depth[i] === 1) S.excluded[i] = 1; applyFilter(); });
    new ResizeObserver(() => { const w = chart.clientWidth; if (w && w !== S.width) { layout(); draw(); positionHover(); } }).observe(chart);
    window.matchMedia('(prefers-color-scheme: dark)').addEventListener('change', () => { S.colors = new Array(S.data.frames.count); renderLegend(); draw(); });
  }

  // ---------------------------------------------------------------- test and automation hooks
  Object.assign(api, {
    state: () => Object.assign({ zoom: S.zoom, zoomName: nodeName(S.zoom), column: S.col, columnName: S.data.header.columns[S.col].name,
      icicle: S.icicle, nodes: S.view.N, merge: S.merge, search: $('search').value, width: S.width, height: S.height },
      S.diff ? { diff: true, widthBy: S.widthBy, colourBy: S.colourBy, scale: diffColours().max } : {}),
    // The first node (depth-first) whose frame name is `name`, with its box in canvas CSS pixels.
    find(name, nth = 0) {
      const { N, frame } = S.view, names = S.data.frames.name;
      for (let i = 1; i < N; i++) if (names[frame[i]] === name && nth-- === 0) return api.box(i);
      return null;
    },
    box(i) {
      const path = [];
      for (let a = i; a >= 0; a = S.view.parent[a]) path.push(a);
      const tot = layTotals(), z = S.zoom;
      if (!path.includes(z)) return { node: i, visible: false };
      const scale = S.width / tot[z];
      let x = 0;
      for (let k = path.indexOf(z) - 1; k >= 0; k--) {
        const n = path[k], p = path[k + 1];
        for (let c = p + 1; c < n; c = S.view.end[c]) x += tot[c] * scale;
      }
      const d = S.view.depth[i];
      const box = { node: i, x, w: i === z || path.indexOf(z) < 0 ? S.width : tot[i] * scale, y: rowY(d), h: ROW, depth: d,
        total: tot[i], self: S.view.self[S.col][i], visible: true };
      if (S.diff) {
        const dc = diffColours();
        Object.assign(box, { after: totals(S.view, S.col)[i], before: beforeTotals(S.view, S.col)[i],
          delta: dc.delta[i], status: dc.status[i] === NEW ? 'new' : dc.status[i] === GONE ? 'gone' : '' });
      }
      return box;
    },
    hitTest: (x, y) => hitTest(x, y),
    // The child of node i with the most weight in the current view (-1 for a leaf).
    widestChild(i) {
      const tot = layTotals(), end = S.view.end;
      let best = -1;
      for (let c = i + 1; c < end[i]; c = end[c]) if (best < 0 || tot[c] > tot[best]) best = c;
      return best;
    },
    zoomTo: (i) => zoomTo(i),
    search: (t) => { $('search').value = t; setSearch(t); return api.matched; },
    setColumn: (k) => setColumn(k),
    setWidthBy: (m) => setWidthBy(m),
    setColourBy: (m) => setColourBy(m),
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
      S.diff = findDiff(h.columns);
      if (S.diff && S.diff.before.indexOf(S.col) >= 0) S.col = S.diff.before.indexOf(S.col);  // a before column chosen: show its pair
      S.icicle = !!h.inverted;
      S.negate = !!h.negate;
      $('title').textContent = h.title;
      $('subtitle').textContent = h.subtitle;
      document.title = h.title;
      $('flame').setAttribute('aria-pressed', String(!S.icicle));
      $('icicle').setAttribute('aria-pressed', String(S.icicle));
      findGroups();
      renderViews();
      if (S.diff) setupDiff();
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
