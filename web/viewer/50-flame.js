// ---------------------------------------------------------------- layout & drawing
// One renderer draws every flame graph of the page: the main one (#canvas, its state in S)
// and the sandwich view's callers and callees. It draws a graph description
//   g = { ctx, tree, tot (the totals frames are laid out by), zoom, width, height, dpr,
//         contentH, maxRow, icicle, scrollTop, dc (differential colours { fill(i), status }
//         or null), focus (node with the keyboard focus box, or -1) }
// mainGraph() describes the main one; other graphs build their own (55-sandwich.js).
function visibleMaxDepth(tree = S.view, z = S.zoom) {
  const { depth, end } = tree;
  let m = depth[z];
  for (let i = z, e = end[z]; i < e; i++) if (depth[i] > m) m = depth[i];
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

// The chart's scroll position, from its scroll events and zoomTo: read from the element in
// every draw it would lay the page out again after each change to it (a table re-rendered
// by a search), where the page is laid out once before it is painted anyway.
S.scrollTop = 0;
chart.addEventListener('scroll', () => { S.scrollTop = chart.scrollTop; }, { passive: true });
// Row (absolute depth) -> y on the canvas.
function rowY(d, scrollTop = S.scrollTop) {
  const y = S.icicle ? d * ROW : S.contentH - (d + 1) * ROW;
  return y - scrollTop;
}
function rowOf(g, d) { return (g.icicle ? d * ROW : g.contentH - (d + 1) * ROW) - g.scrollTop; }

function mainGraph() {
  return { ctx, tree: S.view, tot: layTotals(), zoom: S.zoom, width: S.width, height: S.height, dpr: S.dpr,
    contentH: S.contentH, maxRow: S.maxRow, icicle: S.icicle, scrollTop: S.scrollTop, dc: null,
    focus: S.focusTree === S.view ? S.focus : -1 };
}
function treeNodeName(tree, i) { return tree.frame[i] < 0 ? 'all' : frameName(tree.frame[i]); }
// The style sheet's colours the canvas needs, read once per colour scheme: getComputedStyle
// and matchMedia bring the page's style up to date after any change to it, which can cost
// more than the drawing.
function themeColours() {
  if (!S.theme) {
    const cs = getComputedStyle(document.documentElement), v = (k) => cs.getPropertyValue(k).trim();
    S.theme = { dark: dark(), bg: v('--bg') || '#fff', dim: v('--dim'), match: v('--match'), merged: v('--merged'), accent: v('--accent') || '#2f6fde' };
  }
  return S.theme;
}
window.matchMedia('(prefers-color-scheme: dark)').addEventListener('change', () => { S.theme = null; });

function draw() {
  const t0 = performance.now();
  const g = mainGraph();
  if (S.diff) g.dc = diffColours();
  const T = g.tot[g.zoom];
  $('empty').style.display = T > 0 ? 'none' : 'flex';
  $('empty').textContent = T > 0 ? '' : 'No ' + columnLabel(S.data.header.columns[S.col]) + ' weight here.';
  api.lastDrawStats = drawFlame(g);
  api.timings.lastDraw = performance.now() - t0;
}

// Draws graph g (see the top of this file); returns { drawn, merged } bar counts.
function drawFlame(g) {
  const { ctx, tree, tot, zoom: z, width: W, height: H } = g;
  const { depth, frame, end, parent } = tree;
  const theme = themeColours();
  ctx.setTransform(g.dpr, 0, 0, g.dpr, 0, 0);
  // Unchanged frames are white in a differential view: a light grey ground keeps them apart.
  ctx.fillStyle = S.diff && !theme.dark ? '#e9ebef' : theme.bg;
  ctx.fillRect(0, 0, W, H);
  ctx.font = '12px system-ui, -apple-system, "Segoe UI", Roboto, sans-serif';
  ctx.textBaseline = 'middle';
  const charW = S.charW || (S.charW = ctx.measureText('abcdefghijklmnopqrstuvwxyz_ABCDEFGH').width / 35);
  const T = tot[z];
  let drawn = 0, merged = 0;
  const scrollTop = g.scrollTop, icicle = g.icicle, contentH = g.contentH;
  const rowAt = (d) => (icicle ? d * ROW : contentH - (d + 1) * ROW) - scrollTop;
  const dimFill = theme.dim;
  // Bars now, labels after them in one colour: fewer fillStyle changes.
  let lastFill = '';
  const labels = [];
  const bar = (x, w, d, fill, label, dim) => {
    const y = rowAt(d);
    if (y <= -ROW || y >= H) return;
    if (fill !== lastFill) { ctx.fillStyle = fill; lastFill = fill; }
    ctx.fillRect(x, y + 0.5, Math.max(w - 0.5, 0.5), ROW - 1);
    if (dim) { ctx.fillStyle = lastFill = dimFill; ctx.fillRect(x, y + 0.5, w, ROW - 1); }
    if (label !== null && w >= LABEL_W) labels.push(x, y, w, label);
    drawn++;
  };
  const match = S.match, matchColor = theme.match;
  const dc = g.dc, status = dc && dc.status, marks = [];
  const fill = dc ? (i) => (match && frame[i] >= 0 && match[frame[i]]) ? matchColor : dc.fill(i)
    : (i) => (match && frame[i] >= 0 && match[frame[i]]) ? matchColor : (frame[i] < 0 ? '#a9adb5' : colorOf(frame[i]));
  const mark = (x, w, d, kind) => {
    const y = rowAt(d);
    if (y > -ROW && y < H) marks.push(x, y, w, kind);
  };
  if (T > 0) {
    // The zoomed node and its ancestors span the whole width.
    for (let a = z; a >= 0; a = parent[a]) {
      bar(0, W, depth[a], fill(a), treeNodeName(tree, a), a !== z);
      if (status && status[a]) mark(0, W, depth[a], status[a]);
    }
    const scale = W / T;
    const cursor = new Float64Array(g.maxRow + 2);
    const pendX0 = new Float64Array(g.maxRow + 2), pendX1 = new Float64Array(g.maxRow + 2).fill(-1);
    const mergedFill = theme.merged;
    const flush = (d) => {
      if (pendX1[d] >= 0) {
        if (pendX1[d] - pendX0[d] >= 0.75) { bar(pendX0[d], pendX1[d] - pendX0[d], d, mergedFill, null, false); merged++; }
        pendX1[d] = -1;
      }
    };
    // Rows from this depth on are off the canvas (above it for a flame, below for an icicle).
    const rowLimit = Math.ceil((icicle ? scrollTop + H : contentH - scrollTop) / ROW);
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
      bar(x, w, d, fill(i), frameName(frame[i]), false);
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
  // The keyboard focus: a ring in the accent colour around the frame (54-keys.js moves it).
  const fb = g.focus >= 0 && T > 0 ? frameBox(g, g.focus) : null;
  if (fb && fb.y > -ROW && fb.y < H) {
    ctx.strokeStyle = theme.accent;
    ctx.lineWidth = 2;
    ctx.strokeRect(fb.x + 1, fb.y + 1, Math.max(fb.w - 2, 1), ROW - 2);
  }
  return { drawn, merged };
}

// Node i's box in graph g (CSS pixels), or null when the zoom leaves it out: the zoomed node
// and its ancestors span the width, its descendants share it by weight.
function frameBox(g, i) {
  const { parent, end, depth } = g.tree, tot = g.tot, z = g.zoom;
  let x = 0, w = g.width;
  if (i > z && i < end[z]) {
    if (!(tot[z] > 0)) return null;
    const scale = g.width / tot[z];
    for (let n = i; n !== z; n = parent[n]) {
      for (let c = parent[n] + 1; c < n; c = end[c]) x += tot[c] * scale;
    }
    w = tot[i] * scale;
  } else if (!(i <= z && z < end[i])) {
    return null;
  }
  return { x, w, y: rowOf(g, depth[i]), h: ROW, depth: depth[i] };
}

function redraw() {
  cancelAnimationFrame(S.raf);
  S.raf = requestAnimationFrame(() => { draw(); positionHover(); });
}

// The frame under (x, y) in canvas CSS pixels: { node } or { merged run } or null.
function hitTest(mx, my) { return hitFlame(mainGraph(), mx, my); }
function hitFlame(g, mx, my) {
  const { depth, end, parent } = g.tree;
  const tot = g.tot, z = g.zoom, W = g.width;
  if (!(tot[z] > 0) || mx < 0 || mx >= W) return null;
  const contentY = my + g.scrollTop;
  const d = g.icicle ? Math.floor(contentY / ROW) : Math.floor((g.contentH - contentY) / ROW);
  if (d < 0 || d > g.maxRow) return null;
  if (d <= depth[z]) {
    let a = z;
    while (depth[a] > d) a = parent[a];
    return { node: a, x: 0, w: W, d };
  }
  const scale = W / tot[z];
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
