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
  const line = S.data.frames.line;
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
      const nm = document.createElement('span'); nm.className = 'nm'; nm.textContent = clip(frameName(f)); td.append(nm);
      const file = frameFile(f);
      if (file) { const sm = document.createElement('small'); sm.textContent = clip(file) + (line[f] ? ':' + line[f] : ''); td.append(sm); }
      const tag = aTotal[f] === 0 ? 'gone' : bTotal[f] === 0 ? 'new' : '';
      if (tag) { const t = document.createElement('span'); t.className = 'tag ' + tag; t.textContent = tag; td.append(t); }
      td.title = clip(fullName(f));
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
  $('weights').after(
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
  refreshView('data');
}
function setColourBy(mode) {
  S.colourBy = mode;
  pressed('colourby', mode);
  renderLegend();
  draw();
  refreshView('colour');
}
