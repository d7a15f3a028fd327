// ---------------------------------------------------------------- sandwich view (callers and callees of one function)
// speedscope's sandwich: pick a function (a row of the function list, a frame's right-click
// menu, or `s` on the focused frame) and see, merged over every place it occurs,
//   above: its callers as an inverted flame graph (the function at the bottom, each frame above
//          is the caller of the one below it), built from the stack above each occurrence;
//   below: its callees as a flame graph (the function at the top), its subtrees merged;
// and beside them tables of its direct callers and callees in the current weight.
// Recursion: the graphs start at the outermost occurrences (no f above them), so the
// function's total, the graphs' roots, counts each sample once. The tables count a pair
// (caller calls f, f calls callee) once per sample even where it repeats in the stack (pprof's
// rule), so a recursive function lists itself as a caller and a callee.
// The function list is the top-frames table (60-top-table.js), moved into this view while it
// is shown: sortable by self and total, narrowed by the search.
S.sw = { frame: -1, want: null, built: null, tables: null, zoom: { callers: 0, callees: 0 }, zoomFor: null, active: null };
const NO_CALLER = '(top of stack)';

// ---- the trees
// Every node of frame f in tree t, and the outermost ones (no f above them), depth-first.
function occurrencesOf(t, f) {
  const { N, frame, end } = t, all = [], outer = [];
  let outerEnd = 0;
  for (let i = 1; i < N; i++) {
    if (frame[i] !== f) continue;
    all.push(i);
    if (i >= outerEnd) { outer.push(i); outerEnd = end[i]; }
  }
  return { all, outer };
}
// Sorts pool[g0, g1) by frame[pool[k]] (and `also`, a second array kept alongside, if given).
// Frames and positions fit in 26 bits each, so one float64 key sorts both without a comparator.
const KEY = 67108864;  // 2^26
function sortByFrame(frame, pool, g0, g1, also) {
  const n = g1 - g0;
  if (n < 2) return;
  if (n <= 24) {
    for (let i = g0 + 1; i < g1; i++) {
      const v = pool[i], w = also ? also[i] : 0, fv = frame[v];
      let j = i - 1;
      while (j >= g0 && frame[pool[j]] > fv) { pool[j + 1] = pool[j]; if (also) also[j + 1] = also[j]; j--; }
      pool[j + 1] = v; if (also) also[j + 1] = w;
    }
    return;
  }
  const keys = new Float64Array(n), a = pool.slice(g0, g1), b = also ? also.slice(g0, g1) : null;
  for (let k = 0; k < n; k++) keys[k] = frame[a[k]] * KEY + k;
  keys.sort();
  for (let k = 0; k < n; k++) {
    const at = keys[k] % KEY;
    pool[g0 + k] = a[at];
    if (b) also[g0 + k] = b[at];
  }
}
// Cuts pool[g0, g1) (sorted by frame) into runs of one frame; pushes them on `runs` as
// (start, length, depth) triples, last first, so they pop in order.
function pushRuns(frame, pool, g0, g1, d, runs, sp) {
  for (let j = g1; j > g0;) {
    let i = j - 1;
    const fr = frame[pool[i]];
    while (i > g0 && frame[pool[i - 1]] === fr) i--;
    runs[sp++] = i; runs[sp++] = j - i; runs[sp++] = d;
    j = i;
  }
  return sp;
}
// Callees: the subtrees of the outermost occurrences `occ` merged into one tree rooted at f,
// children in frame (name) order. A run of one node copies its subtree as it is (a node's
// children are already one per frame); only where occurrences meet does merging happen.
function calleeTree(t, f, occ) {
  const { frame, end, depth, self } = t, C = self.length;
  let M = 1;
  for (const o of occ) M += end[o] - o;
  const d2 = new Uint32Array(M), f2 = new Int32Array(M), s2 = self.map(() => new Float64Array(M));
  const pool = new Int32Array(M), runs = new Int32Array(3 * M + 3);
  let top = 0, sp = 0, n = 0;
  for (const o of occ) pool[top++] = o;
  runs[sp++] = 0; runs[sp++] = occ.length; runs[sp++] = 0;
  while (sp) {
    const d = runs[--sp], len = runs[--sp], r0 = runs[--sp];
    if (len === 1) {
      const b = pool[r0], e = end[b], shift = d - depth[b];
      f2.set(frame.subarray(b, e), n);
      for (let c = 0; c < C; c++) s2[c].set(self[c].subarray(b, e), n);
      for (let k = b; k < e; k++, n++) d2[n] = depth[k] + shift;
      continue;
    }
    const o = n++;
    d2[o] = d; f2[o] = len ? frame[pool[r0]] : f;
    const g0 = top;
    for (let k = r0; k < r0 + len; k++) {
      const b = pool[k];
      for (let c = 0; c < C; c++) s2[c][o] += self[c][b];
      for (let ch = b + 1, e = end[b]; ch < e; ch = end[ch]) pool[top++] = ch;
    }
    sortByFrame(frame, pool, g0, top);
    sp = pushRuns(frame, pool, g0, top, d + 1, runs, sp);
  }
  return makeTree(n, d2.subarray(0, n), f2.subarray(0, n), s2.map((s) => s.subarray(0, n)));
}
// Callers: the stack above each outermost occurrence, read upwards, merged into one tree
// rooted at f; each occurrence carries its total along its path, and a path that reaches the
// top of the stack leaves it as self weight there. A cursor is (node, occurrence).
function callerTree(t, f, occ) {
  const { frame, parent, depth } = t, C = t.self.length;
  const tots = t.self.map((_, c) => totals(t, c));
  let P = 1;
  for (const o of occ) P += depth[o];
  const d2 = new Uint32Array(P), f2 = new Int32Array(P), s2 = tots.map(() => new Float64Array(P));
  const node = new Int32Array(P), from = new Int32Array(P), runs = new Int32Array(3 * P + 3);
  let top = 0, sp = 0, n = 0;
  occ.forEach((o, q) => { node[top] = o; from[top++] = q; });
  runs[sp++] = 0; runs[sp++] = occ.length; runs[sp++] = 0;
  while (sp) {
    const d = runs[--sp], len = runs[--sp], r0 = runs[--sp];
    if (len === 1) {  // one path to the top of the stack: a chain
      const o = occ[from[r0]];
      for (let b = node[r0], dd = d; ; b = parent[b], dd++, n++) {
        d2[n] = dd; f2[n] = frame[b];
        if (parent[b] <= 0) { for (let c = 0; c < C; c++) s2[c][n] = tots[c][o]; n++; break; }
      }
      continue;
    }
    const o = n++;
    d2[o] = d; f2[o] = len ? frame[node[r0]] : f;
    const g0 = top;
    for (let k = r0; k < r0 + len; k++) {
      const p = parent[node[k]];
      if (p > 0) { node[top] = p; from[top++] = from[k]; }
      else for (let c = 0; c < C; c++) s2[c][o] += tots[c][occ[from[k]]];
    }
    sortByFrame(frame, node, g0, top, from);
    sp = pushRuns(frame, node, g0, top, d + 1, runs, sp);
  }
  return makeTree(n, d2.subarray(0, n), f2.subarray(0, n), s2.map((s) => s.subarray(0, n)));
}
// The tables: per direct caller (-1: none, f at the top of the stack) and per direct callee,
// the weight of the samples where that pair occurs, each sample once per pair; and f's self
// and total (outermost occurrences). Nodes are taken in depth-first order, and `open` keeps,
// per caller or callee frame, the end of the subtree last counted for it: a pair inside that
// subtree repeats in the same samples.
function directNeighbours(t, occ, c) {
  const { frame, parent, end } = t, tot = totals(t, c), self = t.self[c];
  const callers = new Map(), callees = new Map(), open = new Map();
  let selfW = 0, total = 0;
  for (const o of occ.outer) total += tot[o];
  for (const i of occ.all) {
    selfW += self[i];
    const p = parent[i], g = p > 0 ? frame[p] : -1;
    if (!(i < (open.get(g) || 0))) { callers.set(g, (callers.get(g) || 0) + tot[i]); open.set(g, end[i]); }
  }
  // The children of inner occurrences lie between those of outer ones: sort them all.
  const kids = [];
  for (const i of occ.all) for (let ch = i + 1, e = end[i]; ch < e; ch = end[ch]) kids.push(ch);
  open.clear();
  for (const ch of Int32Array.from(kids).sort()) {
    const h = frame[ch];
    if (!(ch < (open.get(h) || 0))) { callees.set(h, (callees.get(h) || 0) + tot[ch]); open.set(h, end[ch]); }
  }
  const list = (m) => [...m].filter(([, w]) => w > 0).sort((a, b) => b[1] - a[1] || (a[0] < 0 ? -1 : b[0] < 0 ? 1 : frameName(a[0]) < frameName(b[0]) ? -1 : 1));
  return { self: selfW, total, callers: list(callers), callees: list(callees) };
}

// ---- colours of a differential profile: the change of each sandwich node on the main scale
function sandwichDiff(tree) {
  const c = S.col, by = S.colourBy, max = diffColours().max || 1, kept = tree.dcache;
  if (kept && kept.col === c && kept.by === by && kept.max === max) return kept;
  const N = tree.N, a = totals(tree, c), b = beforeTotals(tree, c), delta = new Float64Array(N), status = new Uint8Array(N);
  const sa = tree.self[c], sb = beforeSelf(tree, c);
  for (let i = 0; i < N; i++) {
    delta[i] = by === 'total' ? a[i] - b[i] : sa[i] - sb[i];
    if (a[i] === 0) { if (b[i] > 0) status[i] = GONE; } else if (b[i] === 0) status[i] = NEW;
  }
  return (tree.dcache = { col: c, by, max, status, fill: (i) => changeColour(delta[i], max) });
}

const clipName = (name) => (name.length > 40 ? name.slice(0, 39) + '…' : name);

// ---- a pane: one of the two graphs, with its own canvas, zoom, hover and focus
class SandwichPane {
  constructor(kind) {
    this.kind = kind;
    this.icicle = kind === 'callees';  // callers grow up from the function, callees down
    this.tree = null; this.zoom = 0; this.maxRow = 0; this.contentH = 0; this.scrollTop = 0;
    this.width = 0; this.height = 0; this.dpr = 1; this.focusNode = -1; this.trail = []; this.hoverHit = null;
    const el = this.el = document.createElement('div');
    el.className = 'sw-graph'; el.dataset.kind = kind;
    const head = document.createElement('div'); head.className = 'sw-graph-head';
    const h = document.createElement('h3');
    h.textContent = kind === 'callers' ? 'Callers' : 'Callees';
    const note = document.createElement('span'); note.className = 'hint';
    note.textContent = kind === 'callers' ? 'inverted: each frame calls the one below it' : 'each frame is called by the one above it';
    this.reset = document.createElement('button');
    this.reset.type = 'button'; this.reset.className = 'link'; this.reset.textContent = 'reset zoom';
    this.reset.addEventListener('click', () => this.zoomTo(0));
    head.append(h, note, this.reset);
    const chartEl = this.chart = document.createElement('div'); chartEl.className = 'sw-chart';
    this.canvas = document.createElement('canvas');
    this.ctx = this.canvas.getContext('2d', { alpha: false });
    this.spacer = document.createElement('div');
    this.hover = document.createElement('div'); this.hover.className = 'sw-hover';
    this.empty = document.createElement('div'); this.empty.className = 'sw-empty';
    chartEl.append(this.canvas, this.spacer, this.hover, this.empty);
    el.append(head, chartEl);
    const at = (ev) => { const r = this.canvas.getBoundingClientRect(); return hitFlame(this.graph(), ev.clientX - r.left, ev.clientY - r.top); };
    this.canvas.addEventListener('mousemove', (ev) => {
      if (!this.tree) return;
      const hit = at(ev), g = this.graph();
      S.sw.active = this;
      this.hoverHit = hit;
      this.positionHover();
      if (hit) showTip(hit, ev, g); else tip.hidden = true;
      setStatus(g, hit);
    });
    this.canvas.addEventListener('mouseleave', () => { this.hoverHit = null; this.positionHover(); tip.hidden = true; setStatus(null); });
    this.canvas.addEventListener('click', (ev) => {
      if (!this.tree) return;
      const hit = at(ev);
      S.sw.active = this;
      if (!hit) return;
      tip.hidden = true; this.hoverHit = null;
      this.zoomTo(hit.node);
    });
    this.canvas.addEventListener('contextmenu', (ev) => {
      if (!this.tree) return;
      const hit = at(ev);
      if (!hit || hit.merged) return;
      ev.preventDefault();
      S.sw.active = this;
      const i = hit.node, f = this.tree.frame[i];
      frameMenu(ev, f, [
        f !== S.sw.frame ? ['Callers and callees of this function', () => openSandwich(f)] : null,
        ['Zoom to this frame', () => this.zoomTo(i)],
        ['Search this function', () => searchFrame(f)],
      ]);
    });
    chartEl.addEventListener('scroll', () => { this.scrollTop = chartEl.scrollTop; this.redraw(); }, { passive: true });
    // The width is learnt here, where reading it costs no extra layout (0 while hidden).
    new ResizeObserver(() => {
      const w = chartEl.clientWidth;
      if (!w) return;
      this.knownWidth = w;
      if (this.tree && Math.max(200, w) !== this.width) { this.layout(w); this.draw(); }
    }).observe(chartEl);
  }
  graph() {
    const all = layTotals(S.view)[0];
    return { ctx: this.ctx, tree: this.tree, tot: layTotals(this.tree), zoom: this.zoom, width: this.width, height: this.height,
      dpr: this.dpr, contentH: this.contentH, maxRow: this.maxRow, icicle: this.icicle, scrollTop: this.scrollTop,
      dc: S.diff ? sandwichDiff(this.tree) : null, focus: this.focusNode, all,
      allBefore: S.diff ? beforeTotals(S.view, S.col)[0] : undefined,
      noSelf: this.kind === 'callers',  // the weight of a caller path ending there, not the frame's own
      tipRows: (table, i) => row(table, '% of ' + clipName(frameName(S.sw.frame)), fmtPct(layTotals(this.tree)[i], layTotals(this.tree)[0])),
      statusNote: (i) => ' · ' + fmtPct(layTotals(this.tree)[i], layTotals(this.tree)[0]) + ' of ' + clip(frameName(S.sw.frame)) };
  }
  setTree(tree, zoom) {
    if (tree !== this.tree) { this.focusNode = this.tree && tree ? sameNode(this.tree, this.focusNode, tree) : -1; this.trail = []; }
    this.tree = tree;
    this.el.hidden = !tree;
    if (tree) this.zoomTo(zoom, true);
  }
  // Reading the width from the page lays it out (after any change to it, a full reflow): the
  // width is read once, then kept up to date by the ResizeObserver.
  layout(width = this.knownWidth || (this.knownWidth = this.chart.clientWidth)) {
    this.contentH = (this.maxRow + 1) * ROW;
    const maxH = Math.max(150, Math.floor((window.innerHeight - 220) / 2));
    const h = Math.min(this.contentH, maxH), w = Math.max(200, width), dpr = window.devicePixelRatio || 1;
    if (w !== this.width || h !== this.height || dpr !== this.dpr) {
      this.width = w; this.height = h; this.dpr = dpr;
      this.canvas.width = Math.round(w * dpr); this.canvas.height = Math.round(h * dpr);
      this.canvas.style.height = h + 'px';
      this.chart.style.height = (h + 2) + 'px';
    }
    this.spacer.style.height = Math.max(0, this.contentH - h) + 'px';
  }
  draw() {
    if (!this.tree) return;
    const g = this.graph(), T = g.tot[g.zoom];
    this.empty.style.display = T > 0 ? 'none' : 'flex';
    this.empty.textContent = T > 0 ? '' : 'No ' + columnLabel(S.data.header.columns[S.col]) + ' weight here.';
    this.lastDrawStats = drawFlame(g);
  }
  redraw() {
    cancelAnimationFrame(this.raf);
    this.raf = requestAnimationFrame(() => { this.draw(); this.positionHover(); });
  }
  zoomTo(i, quiet) {
    const tot = layTotals(this.tree);
    this.zoom = Number.isInteger(i) && i > 0 && i < this.tree.N && tot[i] > 0 ? i : 0;
    S.sw.zoom[this.kind] = this.zoom;
    this.maxRow = visibleMaxDepth(this.tree, this.zoom);
    this.layout();
    // The function's row in sight; the box scrolls there at the next frame (setting scrollTop
    // now would lay out the page), the canvas is drawn for it now.
    this.scrollTop = this.icicle ? 0 : Math.max(0, this.contentH - this.height);
    cancelAnimationFrame(this.scrollRaf);
    this.scrollRaf = requestAnimationFrame(() => { this.chart.scrollTop = this.scrollTop; });
    this.draw();
    this.reset.hidden = this.zoom === 0;
    if (!quiet) noteState();
  }
  positionHover() {
    const h = this.hoverHit;
    if (!h) { this.hover.style.display = 'none'; return; }
    const y = rowOf(this.graph(), h.d);
    Object.assign(this.hover.style, { display: 'block', left: h.x + 'px', width: Math.max(2, h.w) + 'px', top: (y + this.scrollTop) + 'px', height: ROW + 'px' });
  }
  // the keys' interface (54-keys.js)
  scrollBy(dy) { cancelAnimationFrame(this.scrollRaf); this.chart.scrollTop = this.scrollTop + dy; this.scrollTop = this.chart.scrollTop; }
  focus() { return this.tree ? this.focusNode : -1; }
  setFocus(i) { this.focusNode = i; }
}

// ---- the frame menu (right click on a frame of any graph)
function frameMenu(ev, f, items) {
  let menu = $('framemenu');
  if (!menu) {
    menu = document.createElement('div');
    menu.id = 'framemenu'; menu.setAttribute('role', 'menu'); menu.hidden = true;
    document.body.append(menu);
    document.addEventListener('mousedown', (e) => { if (!menu.hidden && !menu.contains(e.target)) menu.hidden = true; }, true);
    window.addEventListener('blur', () => { menu.hidden = true; });
    document.addEventListener('scroll', () => { menu.hidden = true; }, true);
  }
  menu.replaceChildren();
  const title = document.createElement('div'); title.className = 'mtitle'; title.textContent = clip(frameName(f));
  menu.append(title);
  for (const it of items) {
    if (!it) continue;
    const b = document.createElement('button');
    b.type = 'button'; b.setAttribute('role', 'menuitem'); b.textContent = it[0];
    b.addEventListener('click', () => { menu.hidden = true; it[1](); });
    menu.append(b);
  }
  tip.hidden = true;
  menu.hidden = false;
  const r = menu.getBoundingClientRect();
  menu.style.left = Math.max(4, Math.min(ev.clientX, window.innerWidth - r.width - 4)) + 'px';
  menu.style.top = Math.max(4, Math.min(ev.clientY, window.innerHeight - r.height - 4)) + 'px';
  menu.querySelector('button').focus();
}
POPUPS.push({ open: () => !!$('framemenu') && !$('framemenu').hidden, close: () => { $('framemenu').hidden = true; } });
canvas.addEventListener('contextmenu', (ev) => {
  if (!api.ready) return;
  const r = canvas.getBoundingClientRect(), hit = hitTest(ev.clientX - r.left, ev.clientY - r.top);
  if (!hit || hit.merged || S.view.frame[hit.node] < 0) return;  // the browser's own menu elsewhere
  ev.preventDefault();
  const i = hit.node, f = S.view.frame[i];
  frameMenu(ev, f, [
    ['Callers and callees of this function', () => openSandwich(f)],
    ['Zoom to this frame', () => zoomTo(i)],
    ['Search this function', () => searchFrame(f)],
  ]);
});

// ---- the view
const SW = {};  // its elements, made on first entry
function sandwichSection() {
  const sec = document.createElement('section');
  sec.id = 'view-sandwich';
  const grid = document.createElement('div'); grid.className = 'sw-grid';
  SW.list = document.createElement('div'); SW.list.className = 'sw-list';
  const center = document.createElement('div'); center.className = 'sw-center';
  const head = document.createElement('div'); head.className = 'sw-head';
  SW.name = document.createElement('h2'); SW.name.id = 'sw-name';
  SW.loc = document.createElement('small'); SW.loc.className = 'sw-loc';
  SW.figures = document.createElement('div'); SW.figures.id = 'sw-figures';
  head.append(SW.name, SW.loc, SW.figures);
  SW.hint = document.createElement('div'); SW.hint.className = 'sw-hint';
  SW.hint.textContent = 'Pick a function: a row of the list (the search narrows it), or right-click a frame in the flame graph. ' +
    'Its callers are then drawn above it and its callees below it, merged over every place it occurs.';
  SW.callers = new SandwichPane('callers');
  SW.callees = new SandwichPane('callees');
  center.append(head, SW.hint, SW.callers.el, SW.callees.el);
  const side = document.createElement('div'); side.className = 'sw-side';
  const table = (kind, title) => {
    const box = document.createElement('div'); box.className = 'panel sw-table'; box.dataset.kind = kind;
    const ph = document.createElement('div'); ph.className = 'panel-head';
    const h = document.createElement('h2'); h.textContent = title;
    const hint = document.createElement('span'); hint.className = 'hint'; hint.textContent = 'a row: its sandwich';
    ph.append(h, hint);
    const scroll = document.createElement('div'); scroll.className = 'tablescroll';
    const t = document.createElement('table'); t.id = 'sw-' + kind;
    const tr = t.createTHead().insertRow();
    for (const [text, cls] of [[kind === 'callers' ? 'Caller' : 'Callee', 'name'], ['', 'num weight'], ['% of fn', 'num pct']]) {
      const th = document.createElement('th'); th.className = cls; th.textContent = text; tr.append(th);
    }
    t.createTBody().addEventListener('click', (ev) => {
      const r = ev.target.closest('tr');
      if (r && r.dataset.frame) openSandwich(Number(r.dataset.frame));
    });
    const more = document.createElement('div'); more.className = 'sw-more';
    scroll.append(t);
    box.append(ph, scroll, more);
    side.append(box);
    return { box, table: t, more };
  };
  SW.callersTable = table('callers', 'Direct callers');
  SW.calleesTable = table('callees', 'Direct callees');
  grid.append(SW.list, center, side);
  sec.append(grid);
  return sec;
}

// The frame the fragment names (fn=name, and fnloc=file:line when names repeat).
function resolveWanted() {
  const want = S.sw.want;
  if (!want) return;
  S.sw.want = null;
  const { name, count } = S.data.frames;
  let found = -1;
  for (let f = 0; f < count; f++) {
    if (name[f] !== want.name) continue;
    if (found < 0) found = f;
    if (want.loc && frameLoc(f) === want.loc) { found = f; break; }
  }
  S.sw.frame = found;
  S.selectedFrame = found;
}
const frameLoc = (f) => (frameFile(f) || '') + ':' + (S.data.frames.line[f] || 0);

// Builds (or reuses) the trees and tables of the selected function and draws the view.
function renderSandwich() {
  const t0 = performance.now();
  resolveWanted();
  const f = S.sw.frame, source = S.view.plain || S.view;
  SW.hint.hidden = f >= 0;
  if (f < 0) {
    SW.name.textContent = ''; SW.loc.textContent = ''; SW.figures.textContent = '';
    SW.callers.setTree(null); SW.callees.setTree(null);
    SW.callersTable.box.hidden = SW.calleesTable.box.hidden = true;
    return;
  }
  let b = S.sw.built;
  if (!b || b.source !== source || b.frame !== f) {
    const occ = occurrencesOf(source, f);
    b = S.sw.built = { source, frame: f, occ, callers: callerTree(source, f, occ.outer), callees: calleeTree(source, f, occ.outer) };
  }
  markSelected();
  // Zooms carry over while the same sandwich is redrawn (a new order moves their nodes); the
  // fragment's apply to the trees built next; anything else starts unzoomed.
  const zf = S.sw.zoomFor, same = zf && zf !== 'fragment' && zf.source === source && zf.frame === f;
  if (!same && zf !== 'fragment') S.sw.zoom = { callers: 0, callees: 0 };
  S.sw.zoomFor = { source, frame: f };
  for (const pane of [SW.callers, SW.callees]) {
    const plain = b[pane.kind], tree = orderedTree(plain);
    const z = same && pane.tree && (pane.tree.plain || pane.tree) === plain ? sameNode(pane.tree, pane.zoom, tree) : S.sw.zoom[pane.kind];
    pane.setTree(tree, z);
  }
  renderSandwichTables(b);
  api.timings.lastSandwich = performance.now() - t0;
}
function renderSandwichTables(b) {
  const { source, frame: f } = b, c = S.col, kept = S.sw.tables;
  const nb = kept && kept.source === source && kept.frame === f && kept.col === c ? kept.nb : directNeighbours(source, b.occ, c);
  S.sw.tables = { source, frame: f, col: c, nb };
  const line = S.data.frames.line, file = frameFile(f), unit = unitOf(c), all = totals(source, c)[0];
  SW.name.textContent = clip(frameName(f));
  SW.name.title = clip(frameName(f));
  SW.loc.textContent = file ? clip(file) + (line[f] ? ':' + line[f] : '') : '';
  const w = columnLabel(S.data.header.columns[c]) + (S.diff ? ' (after)' : '');
  SW.figures.textContent = w + ': self ' + fmtValue(nb.self, unit) + ' (' + fmtPct(nb.self, all) + ') · total ' + fmtValue(nb.total, unit) +
    ' (' + fmtPct(nb.total, all) + ') · ' + nb.callers.length + (nb.callers.length === 1 ? ' caller' : ' callers') + ' · ' +
    nb.callees.length + (nb.callees.length === 1 ? ' callee' : ' callees');
  const fill = (t, rows) => {
    t.box.hidden = false;
    t.table.tHead.rows[0].cells[1].textContent = w;
    const frag = document.createDocumentFragment();
    for (const [g, v] of rows.slice(0, TABLE_ROWS)) {
      const tr = document.createElement('tr');
      const td = tr.insertCell(); td.className = 'name';
      const nm = document.createElement('span');
      if (g >= 0) {
        tr.dataset.frame = g;
        nm.textContent = clip(frameName(g)); td.title = clip(frameName(g));
        if (g === f) { const r = document.createElement('small'); r.textContent = 'recursion'; nm.after(r); td.append(nm, r); } else td.append(nm);
      } else {
        tr.className = 'none'; nm.textContent = NO_CALLER; td.append(nm);
        td.title = 'samples where the function is the outermost frame';
      }
      const wc = tr.insertCell(); wc.className = 'num weight'; wc.textContent = v === 0 ? '0' : fmtValue(v, unit, true);
      const pc = tr.insertCell(); pc.className = 'num pct'; pc.textContent = fmtPct(v, nb.total);
      frag.append(tr);
    }
    t.table.tBodies[0].replaceChildren(frag);
    t.more.textContent = rows.length > TABLE_ROWS ? 'showing ' + TABLE_ROWS + ' of ' + rows.length.toLocaleString('en-US') : '';
  };
  fill(SW.callersTable, nb.callers);
  fill(SW.calleesTable, nb.callees);
}

// Opens the sandwich of frame f (from a table row, a frame's menu, a key).
function openSandwich(f) {
  S.sw.frame = f; S.sw.want = null;
  S.sw.zoom = { callers: 0, callees: 0 }; S.sw.zoomFor = null;
  S.selectedFrame = f;
  if (S.viewId !== 'sandwich') setView('sandwich');
  else { renderSandwich(); noteState(); }
}
function clearSandwich() {
  S.sw.frame = -1; S.selectedFrame = -1;
  markSelected();
  renderSandwich();
  noteState();
}
// The function list marks the function shown (renderTable marks it too when it redraws).
function markSelected() {
  const body = $('table').tBodies[0];
  for (const tr of body.querySelectorAll('tr[aria-selected]')) tr.removeAttribute('aria-selected');
  const tr = S.selectedFrame >= 0 ? body.querySelector('tr[data-frame="' + S.selectedFrame + '"]') : null;
  if (tr) tr.setAttribute('aria-selected', 'true');
}

let listHead = null;  // the borrowed table's title and hint, given back on leaving
defineView('sandwich', {
  label: 'Sandwich', title: 'the callers and callees of one function',
  section: sandwichSection,
  enter() {
    // The function list is the top-frames table, borrowed while the view is on.
    if (!SW.list.contains($('tablebox'))) {
      const head = $('tablebox').querySelector('.panel-head'), h = head.querySelector('h2'), hint = head.querySelector('.hint');
      listHead = [h.textContent, hint.textContent];
      h.textContent = S.diff ? h.textContent : 'Functions';
      hint.textContent = 'a row: its callers and callees; a heading sorts; the search narrows the list';
      SW.list.append($('tablebox'));
    }
    renderSandwich();
  },
  leave() {
    const head = $('tablebox').querySelector('.panel-head');
    [head.querySelector('h2').textContent, head.querySelector('.hint').textContent] = listHead;
    $('lower').prepend($('tablebox'));
    tip.hidden = true;
    setStatus(null);
  },
  refresh(what) {
    if (what === 'search' || what === 'colour') { SW.callers.draw(); SW.callees.draw(); return; }
    renderSandwich();
  },
  escape() {
    if (SW.callers.zoom || SW.callees.zoom) { SW.callers.zoomTo(0); SW.callees.zoomTo(0); }
    else if (S.sw.frame >= 0) clearSandwich();
    else setView('flame');
  },
  keyNav: () => (S.sw.frame < 0 ? null : S.sw.active && S.sw.active.tree ? S.sw.active : SW.callees),
});
// In this view a click on a row of the function list opens that function's sandwich (the
// capture phase runs before the table's own handler, which searches the row's frame).
$('tablebox').addEventListener('click', (ev) => {
  if (S.viewId !== 'sandwich') return;
  const tr = ev.target.closest('tbody tr');
  if (!tr || !tr.dataset.frame) return;
  ev.stopPropagation();
  openSandwich(Number(tr.dataset.frame));
}, true);
window.matchMedia('(prefers-color-scheme: dark)').addEventListener('change', () => {
  if (S.viewId === 'sandwich' && SW.callers) { SW.callers.draw(); SW.callees.draw(); }
});

// Shared state: the function by name (and file:line when several frames share the name),
// the zoom of each graph as a node of its tree; restored before the view (order 90).
const swShown = () => S.viewId === 'sandwich' && S.sw.frame >= 0;
shareState('fn', () => (swShown() ? frameName(S.sw.frame) : null), (v) => {
  if (v === null) { S.sw.frame = -1; S.sw.want = null; S.selectedFrame = -1; return; }
  S.sw.want = { name: v, loc: null };
}, 50);
shareState('fnloc', () => {
  if (!swShown()) return null;
  const { name, count } = S.data.frames, f = S.sw.frame;
  for (let k = 0; k < count; k++) if (k !== f && name[k] === name[f]) return frameLoc(f);
  return null;
}, (v) => { if (S.sw.want) S.sw.want.loc = v; }, 51);
for (const [kind, order] of [['callers', 52], ['callees', 53]]) {
  shareState(kind, () => (swShown() && S.sw.zoom[kind] ? String(S.sw.zoom[kind]) : null), (v) => {
    S.sw.zoom[kind] = v === null ? 0 : Number(v);
    S.sw.zoomFor = 'fragment';
  }, order);
}

// ---- test and automation hooks
Object.assign(api, {
  // Opens the sandwich of the first frame named `name`; returns the time it took (ms).
  openSandwich(name) {
    const f = S.data.frames.name.indexOf(name);
    if (f < 0) return null;
    const t0 = performance.now();
    openSandwich(f);
    return performance.now() - t0;
  },
  // What the view shows: the function, its self and total, the tables' rows as
  // [name, weight], and each graph's tree size, zoom and root total.
  sandwich() {
    if (S.sw.frame < 0 || !S.sw.tables) return { fn: null };
    const nb = S.sw.tables.nb, names = S.data.frames.name;
    const rows = (list) => list.map(([g, v]) => [g < 0 ? NO_CALLER : names[g], v]);
    const pane = (p) => ({ nodes: p.tree.N, zoom: p.zoom, zoomName: treeNodeName(p.tree, p.zoom), total: layTotals(p.tree)[0], icicle: p.icicle, width: p.width, height: p.height });
    return { fn: names[S.sw.frame], self: nb.self, total: nb.total, callers: rows(nb.callers), callees: rows(nb.callees),
      panes: { callers: pane(SW.callers), callees: pane(SW.callees) } };
  },
  // The box of the nth node named `name` in a sandwich graph ('callers' or 'callees').
  swFind(kind, name, nth = 0) {
    const p = SW[kind], t = p.tree, names = S.data.frames.name;
    for (let i = 0; i < t.N; i++) {
      if (names[t.frame[i]] !== name || nth-- > 0) continue;
      const b = frameBox(p.graph(), i);
      return Object.assign({ node: i, total: layTotals(t)[i], depth: t.depth[i], visible: !!b }, b || {});
    }
    return null;
  },
  // The children of node i of a sandwich graph, left to right: [name, total].
  swChildren(kind, i) {
    const t = SW[kind].tree, tot = layTotals(t), out = [];
    for (let c = i + 1; c < t.end[i]; c = t.end[c]) out.push([treeNodeName(t, c), tot[c]]);
    return out;
  },
  swZoomTo: (kind, i) => SW[kind].zoomTo(i),
  // Functions worth timing (bench/html_bench.js): the heaviest by total, the one with the
  // most nodes, and the leaf-only one with the most nodes; group frames left out.
  sandwichCandidates() {
    const { N, frame, end } = S.view, F = S.data.frames.count;
    const nodes = new Uint32Array(F), inner = new Uint8Array(F);
    for (let i = 1; i < N; i++) { nodes[frame[i]]++; if (end[i] > i + 1) inner[frame[i]] = 1; }
    const total = S.tableRows.totalBy || S.tableRows.aTotal;
    let heaviest = -1, frequent = -1, leaf = -1;
    for (let f = 0; f < F; f++) {
      if (!nodes[f] || GROUP_CATS.has(catName(f))) continue;
      if (heaviest < 0 || total[f] > total[heaviest]) heaviest = f;
      if (frequent < 0 || nodes[f] > nodes[frequent]) frequent = f;
      if (!inner[f] && (leaf < 0 || nodes[f] > nodes[leaf])) leaf = f;
    }
    const one = (f) => (f < 0 ? null : { name: frameName(f), nodes: nodes[f], total: total[f] });
    return { heaviest: one(heaviest), mostFrequent: one(frequent), leaf: one(leaf) };
  },
  swPixel(kind, x, y) {
    const p = SW[kind], d = p.ctx.getImageData(Math.floor(x * p.dpr), Math.floor(y * p.dpr), 1, 1).data;
    return [d[0], d[1], d[2]];
  },
});
