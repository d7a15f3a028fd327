// ---------------------------------------------------------------- keys, focus box, status line
// Arrow keys move a focus box over the frames of the graph in view: ←/→ to the frame beside
// it under the same parent, ↑/↓ to the frame drawn above/below it (in a flame graph a child
// is above its parent, in an icicle below). Enter zooms to the focused frame, Esc resets,
// s opens the sandwich of its function, ? lists the keys. The status line (#status) names the
// frame under the mouse or the focus, with its total and share.
S.focus = -1; S.focusTree = null;

// What the keys move in: a graph (50-flame.js) with its focus, zoom and scrolling. Views with
// graphs of their own give one through their spec's keyNav() (55-sandwich.js).
const mainNav = {
  trail: [],  // the children left by moving to a parent, to come back to
  scrollBy(dy) { chart.scrollTop += dy; S.scrollTop = chart.scrollTop; },
  graph: () => mainGraph(),
  focus: () => (S.focusTree === S.view ? S.focus : -1),
  setFocus(i) { S.focus = i; S.focusTree = S.view; },
  draw: () => draw(),
  zoomTo: (i) => zoomTo(i),
};
function currentNav() {
  if (S.viewId === 'flame') return mainNav;
  const v = viewById(S.viewId);
  return v && v.keyNav ? v.keyNav() : null;
}

function focusNode(nav, i) {
  nav.setFocus(i);
  const g = nav.graph(), b = frameBox(g, i);
  // Keep the focused row in sight (the graph's box scrolls when it is taller than the screen).
  if (b && b.y < 0) nav.scrollBy(b.y);
  else if (b && b.y + ROW > g.height) nav.scrollBy(b.y + ROW - g.height);
  nav.draw();
  setStatus(nav.graph(), { node: i });
}
function moveFocus(nav, key) {
  const g = nav.graph(), { parent, end } = g.tree, tot = g.tot, z = g.zoom;
  if (!(tot[z] > 0)) return;
  const f = nav.focus();
  if (f < 0 || !frameBox(g, f)) { nav.trail = []; focusNode(nav, z); return; }
  const scale = g.width / tot[z];
  const shown = (c) => tot[c] * scale >= MIN_W;  // frames drawn on their own (not merged runs)
  const inside = f > z && f < end[z];              // else f is the zoomed frame or an ancestor (full width)
  let to = -1;
  if (key === 'ArrowLeft' || key === 'ArrowRight') {
    if (!inside) return;
    const p = parent[f];
    let prev = -1, next = -1;
    for (let c = p + 1, e = end[p]; c < e && next < 0; c = end[c]) {
      if (c === f || !shown(c)) continue;
      if (c < f) prev = c; else next = c;
    }
    to = key === 'ArrowLeft' ? prev : next;
    if (to >= 0) nav.trail = [];
  } else if ((key === 'ArrowUp') !== g.icicle) {  // toward the children
    if (!inside && f !== z) {
      to = z;
      while (parent[to] !== f) to = parent[to];
    } else {
      const back = nav.trail.length ? nav.trail[nav.trail.length - 1] : -1;
      if (back >= 0 && parent[back] === f && shown(back)) { to = back; nav.trail.pop(); }
      else {
        nav.trail = [];
        for (let c = f + 1, e = end[f]; c < e; c = end[c]) if (shown(c) && (to < 0 || tot[c] > tot[to])) to = c;
      }
    }
  } else if (parent[f] >= 0) {
    nav.trail.push(f);
    to = parent[f];
  }
  if (to >= 0) focusNode(nav, to);
}

// ---- the status line
function statusText(g, hit) {
  const tot = g.tot, all = g.all ?? tot[0], unit = unitOf(S.col);
  if (hit.merged) return hit.count + ' frames narrower than a pixel — total ' + fmtValue(hit.sum, unit) + ' (' + fmtPct(hit.sum, all) + ' of all)';
  const i = hit.node, name = treeNodeName(g.tree, i);
  let text;
  if (S.diff) {
    const a = totals(g.tree, S.col), b = beforeTotals(g.tree, S.col);
    text = clip(name) + ' — after ' + fmtValue(a[i], unit) + ' (' + fmtPct(a[i], g.all ?? a[0]) + ' of all), before ' +
      fmtValue(b[i], unit) + ' (' + fmtPct(b[i], g.allBefore ?? b[0]) + '), change ' + signed(a[i] - b[i], unit);
  } else {
    text = clip(name) + ' — total ' + fmtValue(tot[i], unit) + ' (' + fmtPct(tot[i], all) + ' of all)';
    if (!g.noSelf) text += ', self ' + fmtValue(g.tree.self[S.col][i], unit);
  }
  if (g.statusNote) text += g.statusNote(i);
  return text;
}
function setStatus(g, hit) { $('status').textContent = g && hit ? statusText(g, hit) : ''; }
canvas.addEventListener('mousemove', (ev) => {
  if (!api.ready) return;
  const r = canvas.getBoundingClientRect(), g = mainGraph();
  setStatus(g, hitFlame(g, ev.clientX - r.left, ev.clientY - r.top));
});
canvas.addEventListener('mouseleave', () => setStatus(null));

// ---- popups closed by Esc: the key list (below), the frame menu (55-sandwich.js)
const POPUPS = [];  // { open() -> bool, close() }
function closePopup() {
  for (const p of POPUPS) if (p.open()) { p.close(); return true; }
  return false;
}
const KEYS = [
  ['/', 'search frames (a regular expression)'],
  ['Esc', 'reset the zoom; in the sandwich: unzoom, then clear the function, then back to the flame graph; closes this list'],
  ['← →', 'focus the frame beside, under the same parent'],
  ['↑ ↓', 'focus the frame drawn above / below (a child or the parent)'],
  ['Enter', 'zoom to the focused frame'],
  ['s', 'sandwich view of the focused frame\'s function'],
  ['?', 'this list'],
  ['click', 'zoom to a frame'],
  ['right-click', 'a frame\'s menu: its sandwich (callers and callees), zoom, search'],
];
function keysOverlay() {
  let box = $('keys');
  if (box) return box;
  box = document.createElement('div');
  box.id = 'keys'; box.hidden = true;
  box.setAttribute('role', 'dialog'); box.setAttribute('aria-modal', 'true'); box.setAttribute('aria-label', 'keyboard shortcuts');
  const card = document.createElement('div'); card.className = 'card';
  const h = document.createElement('h2'); h.textContent = 'Keys';
  const t = document.createElement('table');
  for (const [k, what] of KEYS) {
    const tr = t.insertRow();
    const kc = tr.insertCell(); const kbd = document.createElement('kbd'); kbd.textContent = k; kc.append(kbd);
    tr.insertCell().textContent = what;
  }
  const close = document.createElement('button');
  close.type = 'button'; close.className = 'link'; close.textContent = 'close (Esc)';
  close.addEventListener('click', () => { box.hidden = true; });
  card.append(h, t, close);
  box.append(card);
  box.addEventListener('click', (ev) => { if (ev.target === box) box.hidden = true; });
  document.body.append(box);
  return box;
}
POPUPS.push({ open: () => !!$('keys') && !$('keys').hidden, close: () => { $('keys').hidden = true; } });

// Called first by the page's keydown handler (80-events.js) for keys outside the search box;
// true when the key was handled here.
function onKey(ev) {
  if (ev.ctrlKey || ev.metaKey || ev.altKey || !api.ready) return false;
  if (ev.key === '?') { const box = keysOverlay(); box.hidden = !box.hidden; return true; }
  if (ev.key === 'Escape') {
    if (closePopup()) return true;
    const v = viewById(S.viewId);
    if (v && v.escape) { v.escape(); return true; }
    return false;
  }
  // Keys in a menu, and Enter on a button or link, keep their own meaning.
  const on = (sel) => ev.target instanceof Element && ev.target.closest(sel);
  if (on('[role=menu], select, textarea') || (ev.key === 'Enter' && on('button, a'))) return false;
  const nav = currentNav();
  if (!nav) return false;
  if (ev.key.startsWith('Arrow')) { ev.preventDefault(); moveFocus(nav, ev.key); return true; }
  const f = nav.focus();
  if (ev.key === 'Enter' && f >= 0) { nav.zoomTo(f); return true; }
  if (ev.key === 's' && f >= 0 && nav.graph().tree.frame[f] >= 0) { openSandwich(nav.graph().tree.frame[f]); return true; }
  return false;
}
Object.assign(api, {
  // The frame with the keyboard focus in the current view: { node, name, x, w, y } or null.
  focus() {
    const nav = currentNav(), f = nav ? nav.focus() : -1;
    if (f < 0) return null;
    const g = nav.graph(), b = frameBox(g, f);
    return Object.assign({ node: f, name: treeNodeName(g.tree, f) }, b || { visible: false });
  },
});
