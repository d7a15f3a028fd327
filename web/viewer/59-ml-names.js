// ---------------------------------------------------------------- readable ML stacks
// Two switches (and --short-names / --merge-modules, which turn them on):
// * short names: C++ names shortened for display (`void at::native::elementwise_kernel<128, 4, …>(…)`
//   -> `at::native::elementwise_kernel<…>`). frameName(f) is the name shown, fullName(f) the
//   profile's; the tooltip and the tables' titles keep the full name. Frames are not merged.
// * merge modules: `nn.Module: Layer_0` … `_23` become one `nn.Module: Layer` frame and their
//   subtrees merge (the view's tree is rebuilt: readableTree, called by applyFilter).
// shortName() and moduleClass() follow src/flamefold/model/readable_names.cpp step by step;
// tests/data/short_names.tsv holds both to the same answers.
// Also the kernels table of the device views (GPU/NPU/kernels): per kernel name its count,
// total, mean, min, max and share; min and max come from the payload's kernel statistics
// (section 3), which the summed tree cannot give.
const ELLIPSIS = '\u2026';
const ANONYMOUS = '(anonymous namespace)::';
const SECTION_DEVICE_OPS = 3;
const identStart = (c) => (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c === '_' || c === '~';
const identChar = (c) => identStart(c) || (c >= '0' && c <= '9') || c === '$';

function operatorEnd(s, i) {
  if (!s.startsWith('operator', i) || (i > 0 && identChar(s[i - 1]))) return i;
  const j = i + 8;
  if (j < s.length && identChar(s[j])) return i;
  if (s.startsWith('()', j) || s.startsWith('[]', j)) return j + 2;
  let k = j;
  while (k < s.length && '<>=!+-*/%^&|~,'.includes(s[k])) k++;
  return k > j ? k : i;
}
// Depth-0 characters of s go to at(i), which returns how many it consumed (0: s[i] is scanned
// as usual, -1: stop). Angles count as brackets only outside () [] {}. False when unbalanced.
function scanDepth0(s, at) {
  const open = [];
  for (let i = 0; i < s.length;) {
    const c = s[i];
    if (!open.length) {
      const used = at(i);
      if (used < 0) return true;
      if (used) { i += used; continue; }
    } else {
      const op = operatorEnd(s, i);
      if (op !== i) { i = op; continue; }
    }
    const angles = !open.length || open[open.length - 1] === '>';
    if (c === '(') open.push(')');
    else if (c === '[') open.push(']');
    else if (c === '{') open.push('}');
    else if (c === '<' && angles) open.push('>');
    else if (c === ')' || c === ']' || c === '}' || (c === '>' && angles && !(i > 0 && s[i - 1] === '-'))) {
      if (!open.length || open[open.length - 1] !== c) return false;
      open.pop();
    }
    i++;
  }
  return open.length === 0;
}
function matchingClose(s, at) {
  const open = [];
  for (let j = at; j < s.length; j++) {
    if (j > at) { const op = operatorEnd(s, j); if (op !== j) { j = op - 1; continue; } }
    const c = s[j], angles = !open.length || open[open.length - 1] === '>';
    if (c === '(') open.push(')');
    else if (c === '[') open.push(']');
    else if (c === '{') open.push('}');
    else if (c === '<' && angles) open.push('>');
    else if (c === ')' || c === ']' || c === '}' || (c === '>' && angles && !(j > 0 && s[j - 1] === '-'))) {
      if (!open.length || open[open.length - 1] !== c) return -1;
      open.pop();
    }
    if (!open.length) return j;
  }
  return -1;
}
// Template arguments: one is kept (itself shortened, 3 levels deep, up to 120 characters),
// several become "…".
function templateArguments(args, level) {
  let several = false;
  scanDepth0(args, (i) => { if (args[i] === ',') several = true; return several ? -1 : 0; });
  const a = args.replace(/^ +| +$/g, '');
  if (!a) return '<>';
  if (!several && level < 3) {
    const kept = shortenPart(a, level + 1);
    if (kept !== null && kept.length <= 120) return '<' + kept + '>';
  }
  return '<' + ELLIPSIS + '>';
}
// A qualified name or a template argument with its templates rewritten; null when it holds
// what a name or type does not.
function shortenPart(s, level) {
  let out = '', ok = true;
  const balanced = scanDepth0(s, (i) => {
    const op = operatorEnd(s, i);
    if (op !== i) { out += s.slice(i, op); return op - i; }
    const c = s[i];
    if (c === '<') {
      const close = matchingClose(s, i);
      if (close < 0) { ok = false; return -1; }
      out += templateArguments(s.slice(i + 1, close), level);
      return close + 1 - i;
    }
    if (identChar(c) || c === ':' || c === '*' || c === '&' || c === '-' || (c === ' ' && level > 0)) {
      if (c === ' ' && (!out || out[out.length - 1] === '>')) return 1;
      out += c;
      return 1;
    }
    ok = false;
    return -1;
  });
  return ok && balanced && out ? out : null;
}
function tensileShort(name) {
  if (!name.startsWith('Cijk_')) return null;
  const mt = name.indexOf('_MT');
  if (mt < 0 || mt + 3 >= name.length || !(name[mt + 3] >= '0' && name[mt + 3] <= '9')) return null;
  let end = name.indexOf('_', mt + 3);
  if (end >= 0 && name.startsWith('_MI', end)) end = name.indexOf('_', end + 3);
  if (end < 0 || end + 1 >= name.length) return null;
  return name.slice(0, end + 1) + ELLIPSIS;
}
function shortName(raw) {
  if (raw.indexOf('<') < 0 && raw.indexOf('(') < 0) return tensileShort(raw) || raw;
  const s = raw.split(ANONYMOUS).join('');
  let start = 0, end = s.length, operatorAt = -1, odd = false;
  const balanced = scanDepth0(s, (i) => {
    const op = operatorEnd(s, i);
    if (op !== i) { operatorAt = op; return op - i; }
    const c = s[i];
    if (c === ' ') start = i + 1;
    const afterName = i > 0 && (identChar(s[i - 1]) || s[i - 1] === '>' || i === operatorAt);
    if (c === '(') { if (!afterName) odd = true; else end = i; return -1; }
    if (c === '<' && !afterName) { odd = true; return -1; }
    return 0;
  });
  if (odd || !balanced || start >= end || !(identStart(s[start]) || s[start] === ':')) return raw;
  const out = shortenPart(s.slice(start, end), 0);
  return out === null ? raw : out;
}
const MODULE_PREFIX = 'nn.Module: ';
// "nn.Module: Layer_12" -> "nn.Module: Layer"; '' for anything else.
function moduleClass(name) {
  const prefix = MODULE_PREFIX;
  if (!name.startsWith(prefix)) return '';
  const u = name.lastIndexOf('_');
  if (u <= prefix.length || u + 1 === name.length) return '';
  for (let i = u + 1; i < name.length; i++) if (name[i] < '0' || name[i] > '9') return '';
  return name.slice(0, u);
}

// ---- the switches
const ML = { ready: false, rep: null, modules: 0, shortable: false, defaults: { short: false, modules: false } };
// Names looked at on the spot for the short-names switch; past them (a million Python frames,
// none shortable, took 1.5 s) the search goes on in slices after the first paint.
const SHORTABLE_AT_START = 20000;
function isGroupFrame(f) {
  if (!ML.groupCat) ML.groupCat = S.data.header.categories.map((c) => GROUP_CATS.has(c || ''));
  return ML.groupCat[S.data.frames.cat[f]] === true;
}
// Whether frames [from, to) hold one whose short name differs: -1 if so, else `to`.
function scanShortable(from, to) {
  for (let f = from; f < to; f++) {
    const n = fullName(f);
    if ((n.indexOf('<') >= 0 || n.indexOf('(') >= 0 || n.startsWith('Cijk_')) && !isGroupFrame(f) && shortName(n) !== n) return -1;
  }
  return to;
}
// The search for a shortable name: ML.shortableAt is the next frame to look at while it goes on.
function findShortable(preset) {
  const F = S.data.frames.count;
  const at = scanShortable(0, preset ? F : Math.min(F, SHORTABLE_AT_START));
  ML.shortable = at < 0;
  ML.shortablePending = at >= 0 && at < F;
  ML.shortableAt = at;
  const more = () => {
    if (!ML.shortablePending) return;  // settled meanwhile (settleShortable)
    const next = scanShortable(ML.shortableAt, Math.min(F, ML.shortableAt + SHORTABLE_AT_START));
    ML.shortableAt = next;
    if (next < 0) { ML.shortable = true; ML.shortablePending = false; renderNameSwitches(); }
    else if (next >= F) ML.shortablePending = false;
    else setTimeout(more, 0);
  };
  if (ML.shortablePending) setTimeout(more, 0);
}
// The search finished now (a fragment or a click asks for short names before it ended).
function settleShortable() {
  if (!ML.shortablePending) return;
  ML.shortablePending = false;
  ML.shortable = scanShortable(ML.shortableAt, S.data.frames.count) < 0;
  renderNameSwitches();
}
// The frames whose names start with `prefix` (ASCII): frames come sorted by name
// (src/flamefold/writers/html.cpp), so they are one run, found without making every name.
function framesNamed(prefix) {
  const F = S.data.frames.count;
  let lo = 0, hi = F;
  while (lo < hi) { const mid = (lo + hi) >>> 1; if (fullName(mid) < prefix) lo = mid + 1; else hi = mid; }
  let to = lo;
  while (to < F && fullName(to).startsWith(prefix)) to++;
  return [lo, to];
}
function mlSetup() {
  const fr = S.data.frames, F = fr.count;
  ML.groupCat = null;
  // Module instances: every frame of one class (and category) points at the first of them.
  ML.rep = null;
  ML.instances = new Map();  // first instance -> how many instances its class has
  const byClass = new Map();
  const [from, to] = framesNamed(MODULE_PREFIX);
  for (let f = from; f < to; f++) {
    if (isGroupFrame(f)) continue;
    const cls = moduleClass(fullName(f));
    if (!cls) continue;
    const key = cls + '\u0000' + fr.cat[f];
    if (!ML.rep) { ML.rep = new Int32Array(F); for (let g = 0; g < F; g++) ML.rep[g] = g; }
    if (byClass.has(key)) ML.rep[f] = byClass.get(key); else byClass.set(key, f);
    ML.instances.set(ML.rep[f], (ML.instances.get(ML.rep[f]) || 0) + 1);
    ML.modules++;
  }
  ML.cls = byClass;
  const h = S.data.header;
  findShortable(!!h.short_names);
  ML.defaults = { short: !!h.short_names && ML.shortable, modules: !!h.merge_modules && ML.modules > 0 };
  S.shortNames = ML.defaults.short;
  S.mergeModules = ML.defaults.modules;
  applyNames();
  if (S.mergeModules) S.view = readableTree(S.view);
  renderNameSwitches();
  ML.ready = true;
}
// frames.shown: the names shown when a switch changes them (null: as in the profile). A merged
// module's first instance shows the class.
function applyNames() {
  const fr = S.data.frames, F = fr.count;
  S.colors = new Array(F);
  fr.shown = null;
  if (!S.shortNames && !S.mergeModules) return;  // as in the profile
  const names = new Array(F);
  for (let f = 0; f < F; f++) {
    const n = fr.full[f];
    if (S.mergeModules && ML.rep && ML.rep[f] === f && moduleClass(n)) names[f] = moduleClass(n);
    else names[f] = S.shortNames && !isGroupFrame(f) ? shortName(n) : n;
  }
  fr.shown = names;
}
// The tree with module instances merged (when the switch is on): frames mapped to their
// class's first instance, and siblings that meet merged with their subtrees (deriveTree's
// merge with no group levels to drop). `map` as deriveTree's.
function readableTree(tree, map = null) {
  if (!S.mergeModules || !ML.rep) {
    if (map) for (let i = 0; i < tree.N; i++) map[i] = i;
    return tree;
  }
  const frame = new Int32Array(tree.N);
  for (let i = 0; i < tree.N; i++) frame[i] = tree.frame[i] < 0 ? tree.frame[i] : ML.rep[tree.frame[i]];
  const none = new Uint8Array(tree.N);
  return deriveTree(Object.assign({}, tree, { frame }), none, true, none, map);
}
function renderNameSwitches() {
  let box = $('names');
  if (!box) {
    box = document.createElement('div');
    box.id = 'names'; box.className = 'seg'; box.setAttribute('role', 'group'); box.setAttribute('aria-label', 'names');
    $('weights').after(box);
  }
  box.replaceChildren();
  const add = (id, text, title, on, set) => {
    const b = document.createElement('button');
    b.type = 'button'; b.id = id; b.textContent = text; b.title = title;
    b.setAttribute('aria-pressed', String(on));
    b.addEventListener('click', () => set(!on));
    box.append(b);
  };
  if (ML.shortable) add('short-names', 'Short names', 'C++ template arguments and parameter lists collapsed (the full name in the tooltip)', S.shortNames, setShortNames);
  if (ML.modules) add('merge-modules', 'Merge modules', 'nn.Module instances (Layer_0 … Layer_23) as one frame per class, their subtrees merged', S.mergeModules, setMergeModules);
}
function setShortNames(on) {
  settleShortable();
  if (!ML.rep && !ML.shortable) return;
  S.shortNames = !!on;
  applyNames();
  renderNameSwitches();
  const t = $('search').value;
  if (t) setSearch(t);  // matches follow the names shown
  refreshAll(S.zoom);
  noteState();
}
function setMergeModules(on) {
  if (!ML.modules) return;
  S.mergeModules = !!on;
  applyNames();
  renderNameSwitches();
  applyFilter();
  const t = $('search').value;
  if (t) setSearch(t);  // matches follow the names shown
}
// The tooltip keeps the full name: under the short one, or the instances a merged module holds.
function appendFullNameToTip(tip, node, f) {
  if (f < 0 || !ML.ready) return;
  const full = fullName(f), shown = frameName(f);
  let text = '';
  if (S.mergeModules && ML.rep && moduleClass(full) && shown === moduleClass(full)) {
    const n = ML.instances.get(f) || 1;
    text = n + (n === 1 ? ' instance' : ' instances') + ' merged: ' + full + (n > 1 ? ' …' : '');
  } else if (full !== shown) {
    text = full;
  }
  if (!text) return;
  const el = document.createElement('div'); el.className = 'tfull';
  el.textContent = clip(text);
  tip.querySelector('.tname').after(el);
}
HOOKS.tip.push(appendFullNameToTip);
HOOKS.start.push(mlSetup);
shareState('short', () => (!ML.ready || S.shortNames === ML.defaults.short ? null : S.shortNames ? '1' : '0'),
  (v) => { const on = v === null ? ML.defaults.short : v === '1'; if (on !== S.shortNames) setShortNames(on); }, 12);
shareState('modules', () => (!ML.ready || S.mergeModules === ML.defaults.modules ? null : S.mergeModules ? '1' : '0'),
  (v) => { const on = v === null ? ML.defaults.modules : v === '1'; if (on !== S.mergeModules) setMergeModules(on); }, 13);

// ---- the kernels table
const K = { stats: null, sortKey: 'total', sortDir: -1, picked: null };
// Section 3: per frame (payload index) count, total, min, max.
function deviceOpStats() {
  if (K.stats) return K.stats;
  K.stats = new Map();
  const bytes = S.data.sections.get(SECTION_DEVICE_OPS);
  if (bytes) {
    const r = new Reader(bytes), n = r.varint();
    for (let k = 0; k < n; k++) {
      const f = r.varint(), count = r.varint(), total = r.varint(), min = r.varint(), max = r.varint();
      K.stats.set(f, { count, total, min, max });
    }
  }
  return K.stats;
}
const deviceColumn = () => S.data.header.columns.findIndex((c) => c.name === 'gpu' || c.name === 'npu');
function kernelsShown() {
  const name = S.data.header.columns[S.col].name;
  return !S.diff && (name === 'gpu' || name === 'npu' || name === 'kernels') && deviceColumn() >= 0;
}
// Rows per name shown: count (the kernels column, else the statistics), total device time in
// the current view (filters and module merging apply), min and max over the whole profile.
function computeKernels() {
  const dev = deviceColumn(), cols = S.data.header.columns, countCol = cols.findIndex((c) => c.name === 'kernels');
  const { N, frame, self } = S.view, stats = deviceOpStats();
  const byName = new Map();
  for (let i = 1; i < N; i++) {
    const w = self[dev][i], f = frame[i];
    if (!(w > 0) || GROUP_CATS.has(catName(f))) continue;
    const name = frameName(f);
    let row = byName.get(name);
    if (!row) byName.set(name, row = { name, frames: new Set(), count: 0, total: 0, min: Infinity, max: -Infinity });
    row.total += w;
    if (countCol >= 0) row.count += self[countCol][i];
    row.frames.add(f);
  }
  const rows = [...byName.values()];
  let all = 0;
  for (const row of rows) {
    let statCount = 0;
    for (const f of row.frames) {
      const s = stats.get(f);
      if (!s) continue;
      statCount += s.count;
      if (s.min < row.min) row.min = s.min;
      if (s.max > row.max) row.max = s.max;
    }
    if (countCol < 0) row.count = statCount;
    if (row.min === Infinity) { row.min = NaN; row.max = NaN; }
    row.mean = row.count > 0 ? row.total / row.count : NaN;
    all += row.total;
  }
  for (const row of rows) row.share = all > 0 ? row.total / all : 0;
  return rows;
}
const KERNEL_COLUMNS = [['name', 'Kernel', 'name'], ['count', 'Count', 'num'], ['total', 'Total', 'num'], ['mean', 'Mean', 'num'],
  ['min', 'Min', 'num'], ['max', 'Max', 'num'], ['share', 'Share', 'num pct']];
function kernelsPanel() {
  let panel = $('kernelsbox');
  if (panel) return panel;
  panel = document.createElement('div');
  panel.id = 'kernelsbox'; panel.className = 'panel';
  const head = document.createElement('div'); head.className = 'panel-head';
  const h2 = document.createElement('h2'); h2.textContent = 'Kernels';
  const hint = document.createElement('span'); hint.className = 'hint'; hint.textContent = 'click a heading to sort, a row to find the kernel in the graph';
  head.append(h2, hint);
  const scroll = document.createElement('div'); scroll.className = 'tablescroll';
  const table = document.createElement('table'); table.id = 'kernels';
  const tr = table.createTHead().insertRow();
  for (const [key, text, cls] of KERNEL_COLUMNS) {
    const th = document.createElement('th'); th.textContent = text; th.className = cls; th.dataset.key = key;
    th.addEventListener('click', () => {
      K.sortDir = K.sortKey === key ? -K.sortDir : (key === 'name' ? 1 : -1);
      K.sortKey = key;
      renderKernels();
    });
    tr.append(th);
  }
  table.createTBody().addEventListener('click', (ev) => {
    const row = ev.target.closest('tr');
    if (!row || row.dataset.frame === undefined) return;
    K.picked = row.dataset.name;
    searchFrame(Number(row.dataset.frame));  // every frame of that name, as the graph shows them
    for (const r of $('kernels').tBodies[0].rows) r.classList.toggle('on', r.dataset.name === K.picked);
  });
  scroll.append(table);
  const more = document.createElement('div'); more.id = 'kernelsmore'; more.className = 'hint';
  panel.append(head, scroll, more);
  $('lower').after(panel);
  return panel;
}
function renderKernels() {
  const panel = kernelsPanel();
  if (!kernelsShown()) { panel.hidden = true; return; }
  const rows = computeKernels();
  panel.hidden = rows.length === 0;
  if (!rows.length) return;
  const key = K.sortKey, dir = K.sortDir;
  rows.sort(key === 'name' ? (a, b) => dir * (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)
    : (a, b) => dir * ((isNaN(a[key]) ? -Infinity : a[key]) - (isNaN(b[key]) ? -Infinity : b[key])) || (b.total - a.total) || (a.name < b.name ? -1 : 1));
  const dev = deviceColumn(), unit = unitOf(dev);
  const body = $('kernels').tBodies[0], frag = document.createDocumentFragment();
  const time = (v) => isNaN(v) ? '–' : fmtValue(v, unit, true);
  for (const row of rows.slice(0, TABLE_ROWS)) {
    const tr = document.createElement('tr');
    const first = row.frames.values().next().value;
    tr.dataset.frame = first; tr.dataset.name = row.name;
    if (row.name === K.picked) tr.classList.add('on');
    const td = tr.insertCell(); td.className = 'name';
    td.textContent = clip(row.name);
    td.title = clip([...row.frames].slice(0, 5).map(fullName).join('\n') + (row.frames.size > 5 ? '\n… ' + row.frames.size + ' names' : ''));
    const cell = (text, cls) => { const c = tr.insertCell(); c.className = cls; c.textContent = text; };
    cell(fmtValue(row.count, ''), 'num count');
    cell(time(row.total), 'num total');
    cell(time(row.mean), 'num mean');
    cell(time(row.min), 'num min');
    cell(time(row.max), 'num max');
    cell(fmtPct(row.share, 1), 'num pct share');
    frag.append(tr);
  }
  body.replaceChildren(frag);
  for (const th of $('kernels').tHead.rows[0].cells) th.setAttribute('aria-sort', th.dataset.key === key ? (dir < 0 ? 'descending' : 'ascending') : 'none');
  const filtered = S.view !== S.base && (S.merge || S.excluded.some((x) => x));
  $('kernelsmore').textContent = (rows.length > TABLE_ROWS ? 'showing ' + TABLE_ROWS + ' of ' + rows.length.toLocaleString('en-US') : rows.length.toLocaleString('en-US')) +
    ' kernel names' + (filtered ? ' · counts and totals of the threads shown; min and max over the whole profile' : '');
}
HOOKS.refresh.push(renderKernels);

Object.assign(api, {
  shortName: (n) => shortName(n),
  moduleClass: (n) => moduleClass(n),
  setShortNames: (on) => setShortNames(on),
  setMergeModules: (on) => setMergeModules(on),
  names: () => ({ short: !!S.shortNames, modules: !!S.mergeModules, shortable: ML.shortable, shortablePending: !!ML.shortablePending, moduleFrames: ML.modules }),
  // The kernels table as shown: name, count, total, mean, min, max, share (numbers).
  kernels: () => (kernelsShown() ? [...$('kernels').tBodies[0].rows].map((tr) => tr.dataset.name) : null),
  kernelRows: () => computeKernels(),
});
