// ---------------------------------------------------------------- ranks: one rank (or process, or thread) against the others
// With several groups at one level of the tree's top (ranks, processes, threads: the group
// frames, 70-groups.js), this view shows
// * a table of the groups with their total in every weight column, the slowest in the current
//   weight marked, each one's deviation from the mean and the spread (max/median, CV): the
//   straggler view HTA gives as numbers;
// * the picked group as a differential flame graph against the mean of the others, in the
//   colours of `flamefold diff` (40-diff.js): red where it spends more than the mean, blue
//   less; "new" where only it has the stack, "gone" where only the others do.
// The comparison is a tree the diff machinery can draw unchanged: the stacks below the group
// levels merged over all groups (deriveTree's merge), with the picked group's weights as the
// ordinary columns and the others' mean as the "before" columns (S.diff.before). The flame
// graph's canvas and breadcrumbs move into this view while it is shown, and the flame view's
// state is put back when it is left.
const RANK_ORDER = ['rank', 'process', 'thread', 'device'];
const RANK_WORDS = { rank: ['rank', 'ranks'], process: ['process', 'processes'], thread: ['thread', 'threads'], device: ['device', 'devices'] };
const R = { levels: null, level: null, pickLabel: null, pick: -1, sortKey: null, sortDir: -1, cache: null, tree: null, saved: null, active: false };

// Levels with at least two groups, outermost first: [{ cat, units: [base node] }].
function rankLevels() {
  if (R.levels) return R.levels;
  const by = new Map();
  for (const i of S.groupNodes) {
    const c = catName(S.base.frame[i]);
    if (!by.has(c)) by.set(c, []);
    by.get(c).push(i);
  }
  const rank = (c) => { const k = RANK_ORDER.indexOf(c); return k < 0 ? RANK_ORDER.length : k; };
  R.levels = [...by.entries()].filter(([, units]) => units.length >= 2).sort((a, b) => rank(a[0]) - rank(b[0]))
    .map(([cat, units]) => ({ cat, units }));
  return R.levels;
}
function rankLevel() {
  const levels = rankLevels();
  return levels.find((l) => l.cat === R.level) || levels[0];
}
const rankWord = (cat, many) => (RANK_WORDS[cat] || [cat, cat])[many ? 1 : 0];
// "rank 1 › python3 (pid 7) › thread 7": the group frames from the top down to the unit.
function unitLabel(u) {
  const parts = [];
  for (let a = u; a > 0; a = S.base.parent[a]) if (S.isGroupNode[a]) parts.push(fullName(S.base.frame[a]));
  return parts.reverse().join(' › ');
}
const unitTotal = (u, c) => totals(S.base, c)[u];
// The unit shown against the others: the one the fragment or a click named, else the slowest.
function pickedUnit() {
  const lvl = rankLevel();
  let u = R.pickLabel !== null ? lvl.units.find((x) => unitLabel(x) === R.pickLabel) : undefined;
  if (u === undefined) {
    u = lvl.units[0];
    for (const x of lvl.units) if (unitTotal(x, S.col) > unitTotal(u, S.col)) u = x;
  }
  return u;
}

// The stacks below the group levels merged over every group (module instances merged too when
// that switch is on), and where each base node landed.
function rankMerged() {
  const key = S.mergeModules ? 'modules' : '';
  if (R.cache && R.cache.key === key) return R.cache;
  const N = S.base.N, map = new Int32Array(N);
  let tree = deriveTree(S.base, new Uint8Array(N), true, S.isGroupNode, map);
  if (S.mergeModules) {
    const then = new Int32Array(tree.N);
    tree = readableTree(tree, then);
    for (let b = 0; b < N; b++) if (map[b] >= 0) map[b] = then[map[b]];
  }
  R.cache = { key, tree, map, sums: new Map() };
  return R.cache;
}
// One unit's weights on the merged tree, per column.
function unitSelf(u, cache) {
  const C = S.base.self.length, n = cache.tree.N, map = cache.map, e = S.base.end[u];
  const out = [];
  for (let c = 0; c < C; c++) {
    const s = new Float64Array(n), src = S.base.self[c];
    for (let b = u; b < e; b++) if (map[b] >= 0) s[map[b]] += src[b];
    out.push(s);
  }
  return out;
}
// The sum of every unit of a level, per column (weight outside the level's units, such as a
// device lane when threads are compared, is in neither side).
function levelSums(cache, lvl) {
  if (cache.sums.has(lvl.cat)) return cache.sums.get(lvl.cat);
  const C = S.base.self.length, n = cache.tree.N, map = cache.map, sums = [];
  for (let c = 0; c < C; c++) sums.push(new Float64Array(n));
  for (const u of lvl.units) {
    const e = S.base.end[u];
    for (let c = 0; c < C; c++) {
      const s = sums[c], src = S.base.self[c];
      for (let b = u; b < e; b++) if (map[b] >= 0) s[map[b]] += src[b];
    }
  }
  cache.sums.set(lvl.cat, sums);
  return sums;
}
// The comparison tree: the picked unit's weights as the columns, the others' mean as their
// "before" companions.
function buildComparison() {
  const t0 = performance.now();
  const cache = rankMerged(), lvl = rankLevel(), u = pickedUnit();
  const C = S.base.self.length, T = cache.tree, n = T.N;
  const sums = levelSums(cache, lvl), mine = unitSelf(u, cache), others = lvl.units.length - 1;
  const self = mine.slice();
  for (let c = 0; c < C; c++) {
    const mean = new Float64Array(n), all = sums[c], m = mine[c];
    for (let o = 0; o < n; o++) mean[o] = (all[o] - m[o]) / others;
    self.push(mean);
  }
  R.pick = u;
  R.tree = { N: n, depth: T.depth, frame: T.frame, self, parent: T.parent, end: T.end, maxDepth: T.maxDepth, totals: [] };
  S.diff = { before: Array.from({ length: C }, (_, c) => C + c) };
  S.diffSides = ['mean of others', fullName(S.base.frame[u])];
  S.diffColours = null;
  S.view = R.tree;
  api.timings.rankCompare = performance.now() - t0;
}

// ---- the view
function rankSection() {
  const el = document.createElement('section');
  el.id = 'view-ranks';
  const head = document.createElement('div'); head.className = 'rank-head';
  const levels = document.createElement('div'); levels.id = 'ranklevels'; levels.className = 'seg'; levels.setAttribute('role', 'group'); levels.setAttribute('aria-label', 'compare');
  const seg = (label, id, choices, set) => {
    const box = document.createElement('div'); box.className = 'seg'; box.id = id; box.setAttribute('role', 'group'); box.setAttribute('aria-label', label);
    const tag = document.createElement('span'); tag.className = 'seglabel'; tag.textContent = label;
    box.append(tag);
    for (const [value, text, title] of choices) {
      const b = document.createElement('button');
      b.type = 'button'; b.dataset.value = value; b.textContent = text; b.title = title;
      b.addEventListener('click', () => set(value));
      box.append(b);
    }
    return box;
  };
  head.append(levels,
    seg('width', 'rankwidth', [['after', 'Picked', 'frame widths from the picked group'], ['before', 'Mean', 'frame widths from the mean of the others'],
      ['max', 'Larger', 'each frame as wide as the larger side: nothing is hidden']], (m) => { S.widthBy = m; showComparison(0); }),
    seg('colour', 'rankcolour', [['self', 'Self Δ', 'colour by the change in self weight'], ['total', 'Total Δ', 'colour by the change in total weight']],
      (m) => { S.colourBy = m; showComparison(S.zoom); }));
  const spread = document.createElement('div'); spread.id = 'rankspread';
  const panel = document.createElement('div'); panel.className = 'panel'; panel.id = 'rankbox';
  const phead = document.createElement('div'); phead.className = 'panel-head';
  const h2 = document.createElement('h2'); h2.id = 'ranktitle';
  const hint = document.createElement('span'); hint.className = 'hint'; hint.textContent = 'click a heading to sort, a row to compare it with the others';
  phead.append(h2, hint);
  const scroll = document.createElement('div'); scroll.className = 'tablescroll';
  const table = document.createElement('table'); table.id = 'ranktable';
  table.createTHead().insertRow();
  table.createTBody().addEventListener('click', (ev) => {
    const tr = ev.target.closest('tr');
    if (tr && tr.dataset.unit) pickRank(unitLabel(Number(tr.dataset.unit)));
  });
  scroll.append(table);
  panel.append(phead, scroll);
  const cmp = document.createElement('div'); cmp.id = 'rankcmp';
  const graph = document.createElement('div'); graph.id = 'rankgraph';
  el.append(head, spread, panel, cmp, graph);
  return el;
}
function renderRankLevels() {
  const box = $('ranklevels'), levels = rankLevels(), cur = rankLevel();
  box.replaceChildren();
  if (levels.length < 2) return;
  const tag = document.createElement('span'); tag.className = 'seglabel'; tag.textContent = 'compare';
  box.append(tag);
  for (const l of levels) {
    const b = document.createElement('button');
    b.type = 'button'; b.dataset.value = l.cat;
    b.textContent = rankWord(l.cat, true).replace(/^./, (c) => c.toUpperCase());
    b.setAttribute('aria-pressed', String(l === cur));
    b.addEventListener('click', () => setRankLevel(l.cat));
    box.append(b);
  }
}
// The units of the level with their totals; the order of the table.
function rankRows() {
  const lvl = rankLevel(), cols = S.data.header.columns;
  const rows = lvl.units.map((u) => ({ u, label: unitLabel(u), name: fullName(S.base.frame[u]), tot: cols.map((_, c) => unitTotal(u, c)) }));
  const key = R.sortKey === null ? S.col : R.sortKey, dir = R.sortDir;
  rows.sort(key === 'name' ? (a, b) => dir * (a.label < b.label ? -1 : a.label > b.label ? 1 : 0)
    : (a, b) => dir * (a.tot[key] - b.tot[key]) || (a.u - b.u));
  return rows;
}
// Mean, median, the slowest and fastest and the spread of one column over the level's units.
function rankStats(c) {
  const lvl = rankLevel(), v = lvl.units.map((u) => unitTotal(u, c));
  const sorted = v.slice().sort((a, b) => a - b), n = v.length;
  const mean = v.reduce((a, b) => a + b, 0) / n;
  const median = n % 2 ? sorted[(n - 1) / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
  let slow = 0, fast = 0;
  v.forEach((x, k) => { if (x > v[slow]) slow = k; if (x < v[fast]) fast = k; });
  const sd = Math.sqrt(v.reduce((a, x) => a + (x - mean) * (x - mean), 0) / n);
  return { mean, median, max: v[slow], min: v[fast], slowest: lvl.units[slow], fastest: lvl.units[fast], cv: mean > 0 ? sd / mean : 0 };
}
function renderRankTable() {
  const lvl = rankLevel(), cols = S.data.header.columns, table = $('ranktable');
  const st = rankStats(S.col), unit = unitOf(S.col);
  const many = rankWord(lvl.cat, true);
  $('ranktitle').textContent = lvl.units.length + ' ' + many + ' by ' + columnLabel(cols[S.col]);
  // The header: the name, every weight column, the deviation from the mean in the current one.
  const head = table.tHead.rows[0];
  head.replaceChildren();
  const th = (text, key, cls, title) => {
    const c = document.createElement('th'); c.textContent = text; c.className = cls;
    if (title) c.title = title;
    if (key !== undefined) {
      c.dataset.key = key;
      const cur = R.sortKey === null ? S.col : R.sortKey;
      c.setAttribute('aria-sort', String(key) === String(cur) ? (R.sortDir < 0 ? 'descending' : 'ascending') : 'none');
      c.addEventListener('click', () => {
        const k = key === 'name' ? 'name' : Number(key), was = R.sortKey === null ? S.col : R.sortKey;
        R.sortDir = was === k ? -R.sortDir : (k === 'name' ? 1 : -1);
        R.sortKey = k;
        renderRankTable();
      });
    }
    head.append(c);
  };
  th(rankWord(lvl.cat, false).replace(/^./, (c) => c.toUpperCase()), 'name', 'name');
  cols.forEach((col, c) => th(columnLabel(col), c, 'num' + (c === S.col ? ' cur' : ''), col.name + ' (' + (col.unit || 'count') + ')'));
  th('vs mean', undefined, 'num', 'the ' + columnLabel(cols[S.col]) + ' total against the mean of all ' + many);
  const body = table.tBodies[0], frag = document.createDocumentFragment();
  for (const row of rankRows()) {
    const tr = document.createElement('tr');
    tr.dataset.unit = row.u;
    if (row.u === st.slowest) tr.classList.add('slowest');
    if (row.u === R.pick) { tr.classList.add('picked'); tr.setAttribute('aria-selected', 'true'); }
    const td = tr.insertCell(); td.className = 'name';
    const nm = document.createElement('span'); nm.textContent = clip(row.name); td.append(nm);
    if (row.label !== row.name) { const sm = document.createElement('small'); sm.textContent = clip(row.label.slice(0, row.label.length - row.name.length - 3)); td.append(sm); }
    if (row.u === st.slowest) { const t = document.createElement('span'); t.className = 'tag slow'; t.textContent = 'slowest'; td.append(t); }
    td.title = clip(row.label);
    cols.forEach((col, c) => {
      const cell = tr.insertCell(); cell.className = 'num' + (c === S.col ? ' cur' : '');
      cell.textContent = fmtValue(row.tot[c], unitOf(c), true);
    });
    const dev = tr.insertCell(), d = row.tot[S.col] - st.mean;
    dev.className = 'num dev' + (d > 0 ? ' up' : d < 0 ? ' down' : '');
    dev.textContent = fmtDeltaPct(d, st.mean);
    frag.append(tr);
  }
  body.replaceChildren(frag);
  // The spread, in words.
  const name = (u) => fullName(S.base.frame[u]);
  const parts = [lvl.units.length + ' ' + many + ' · ' + columnLabel(cols[S.col]) + ': mean ' + fmtValue(st.mean, unit) + ', median ' + fmtValue(st.median, unit)];
  parts.push('slowest ' + name(st.slowest) + ' ' + fmtValue(st.max, unit) + ' (' + fmtDeltaPct(st.max - st.mean, st.mean) + ' over the mean)');
  parts.push('fastest ' + name(st.fastest) + ' ' + fmtValue(st.min, unit));
  parts.push('max/median ' + (st.median > 0 ? (st.max / st.median).toFixed(2) + '×' : '–') + ', CV ' + (100 * st.cv).toFixed(1) + '%');
  $('rankspread').textContent = parts.join(' · ');
  for (const [id, v] of [['rankwidth', S.widthBy], ['rankcolour', S.colourBy]])
    for (const b of $(id).querySelectorAll('button')) b.setAttribute('aria-pressed', String(b.dataset.value === v));
  renderRankLevels();
  const others = lvl.units.length - 1;
  $('rankcmp').textContent = name(R.pick) + ' against the mean of the ' + others + ' other ' + rankWord(lvl.cat, others !== 1) +
    ': red where it spends more than the mean, blue less; new: only ' + name(R.pick) + ' has the stack, gone: only the others.';
}
// Rebuilds the comparison (the pick, level or module switch changed) and shows it.
function showComparison(zoom) {
  buildComparison();
  renderRankTable();
  renderLegend();
  zoomTo(zoom > 0 && zoom < S.view.N && layTotals()[zoom] > 0 ? zoom : 0);
}
function moveGraph(into) {
  const main = chart.parentNode, crumbsEl = $('crumbs');
  if (into) { into.append(crumbsEl, main); return; }
  $('view-flame').prepend(crumbsEl, main);
}
function pickRank(label) {
  R.pickLabel = label;
  if (R.active) showComparison(0);
  noteState();
}
function setRankLevel(cat) {
  R.level = cat;
  R.pickLabel = null;
  R.sortKey = null;
  if (R.active) showComparison(0);
  noteState();
}
defineView('ranks', {
  label: 'Ranks', title: 'one rank, process or thread against the mean of the others, and the straggler table',
  available: () => (R.active || !S.diff) && rankLevels().length > 0,
  section: rankSection,
  enter() {
    if (!R.active) {
      R.saved = { view: S.view, zoom: S.zoom, widthBy: S.widthBy, colourBy: S.colourBy, stale: false };
      R.active = true;
      moveGraph($('rankgraph'));
    }
    showComparison(0);
  },
  leave() {
    if (!R.active) return;
    R.active = false;
    moveGraph(null);
    const saved = R.saved;
    R.saved = null;
    Object.assign(S, { view: saved.view, widthBy: saved.widthBy, colourBy: saved.colourBy, diff: null, diffSides: null, diffColours: null });
    if (saved.stale || !S.tableRows) { computeTable(); renderTable(); renderSummary(); }  // none yet: opened on this view
    renderLegend();
    zoomTo(saved.zoom < S.view.N && layTotals()[saved.zoom] > 0 ? saved.zoom : 0);
  },
  // A change of weight, filters or names while the view is shown (refreshAll): a filter or the
  // module switch has rebuilt the flame view's tree, which is kept for coming back.
  redraw(zoom) {
    if (S.view !== R.tree) { R.saved.view = S.view; R.saved.zoom = 0; R.saved.stale = true; }
    showComparison(zoom);
  },
});
shareState('rankby', () => (R.level && rankLevels().length && R.level !== rankLevels()[0].cat ? R.level : null),
  (v) => { if ((v || null) !== R.level) setRankLevel(v); }, 86);
shareState('rank', () => (R.active ? unitLabel(R.pick) : null), (v) => { if (v !== R.pickLabel) pickRank(v); }, 87);

Object.assign(api, {
  // The rank view as shown: its level, the picked unit, the table's rows (labels, in order).
  ranks: () => R.active ? {
    level: rankLevel().cat, levels: rankLevels().map((l) => l.cat), pick: unitLabel(R.pick),
    slowest: unitLabel(rankStats(S.col).slowest),
    rows: [...$('ranktable').tBodies[0].rows].map((tr) => unitLabel(Number(tr.dataset.unit))),
  } : null,
  pickRank: (label) => pickRank(label),
  setRankLevel: (cat) => setRankLevel(cat),
  setView: (id) => setView(id),
});
