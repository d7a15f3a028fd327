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
// The first k of rows (frame ids) in the order first.sign * (first.of[a] - first.of[b]) ||
// second.sign * (second.of[a] - second.of[b]) || (a - b), by one pass with a heap of k: all the
// table shows, where sorting a million rows whole took 0.3 s.
function topRowsBy(rows, k, first, second) {
  const a = first.of, sa = first.sign, b = second.of, sb = second.sign;
  const cmp = (x, y) => sa * (a[x] - a[y]) || sb * (b[x] - b[y]) || x - y;
  const heap = [];  // the k best so far, the worst on top
  const swap = (i, j) => { const t = heap[i]; heap[i] = heap[j]; heap[j] = t; };
  for (const f of rows) {
    if (heap.length < k) {
      heap.push(f);
      for (let i = heap.length - 1, p; i > 0 && cmp(heap[p = (i - 1) >> 1], heap[i]) < 0; i = p) swap(i, p);
    } else if (k > 0 && cmp(f, heap[0]) < 0) {
      heap[0] = f;
      for (let i = 0; ;) {
        const l = 2 * i + 1, r = l + 1;
        let w = i;
        if (l < heap.length && cmp(heap[w], heap[l]) < 0) w = l;
        if (r < heap.length && cmp(heap[w], heap[r]) < 0) w = r;
        if (w === i) break;
        swap(i, w);
        i = w;
      }
    }
  }
  return heap.sort(cmp);
}
function renderTable() {
  if (!S.tableRows) return;  // not summed yet (start() does it after the first paint)
  const { selfBy, totalBy, callsBy } = S.tableRows;
  const line = S.data.frames.line;
  const key = S.sortKey, dir = S.sortDir;
  const val = key === 'self' ? selfBy : key === 'total' ? totalBy : key === 'calls' ? (callsBy || selfBy) : null;
  // By name, the rows are sorted once per order; by a weight, only the rows shown are picked,
  // in one pass (a million rows sorted whole took the first search 0.3 s).
  const rows = S.tableRows.rows, match = S.match;
  if (!val && S.tableRows.sortedBy !== key + dir) {
    const shown = S.data.frames.shown;
    if (shown) {  // names a switch changed: compared
      rows.sort((a, b) => dir * (shown[a] < shown[b] ? -1 : shown[a] > shown[b] ? 1 : a - b));
    } else {
      // As in the profile, frames are numbered in name order (by bytes, src/flamefold/writers/
      // html.cpp): the order by name is the ids', and no name needs to be made or compared.
      const ids = Uint32Array.from(rows).sort();
      if (dir < 0) ids.reverse();
      for (let k = 0; k < ids.length; k++) rows[k] = ids[k];
    }
    S.tableRows.sortedBy = key + dir;
  }
  const listed = match ? rows.filter((f) => match[f] === 1) : rows;  // a search narrows the list
  const shown = val ? topRowsBy(listed, TABLE_ROWS, { of: val, sign: dir }, { of: totalBy, sign: -1 })
                    : listed.slice(0, TABLE_ROWS);
  const all = totals(S.view, S.col)[0], unit = unitOf(S.col);
  const body = $('table').tBodies[0];
  const frag = document.createDocumentFragment();
  for (const f of shown) {
    const tr = document.createElement('tr');
    tr.dataset.frame = f;
    if (f === S.selectedFrame) tr.setAttribute('aria-selected', 'true');
    const td = tr.insertCell(); td.className = 'name';
    const nm = document.createElement('span'); nm.textContent = clip(frameName(f)); td.append(nm);
    const file = frameFile(f);
    if (file) { const sm = document.createElement('small'); sm.textContent = clip(file) + (line[f] ? ':' + line[f] : ''); td.append(sm); }
    td.title = clip(fullName(f));
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
  const matching = listed.length;
  const of = match ? ' matching the search (of ' + rows.length.toLocaleString('en-US') + ')' : '';
  const frames = matching.toLocaleString('en-US') + (matching === 1 ? ' frame' : ' frames');
  $('tablemore').textContent = (matching > shown.length ? 'showing ' + shown.length + ' of ' + frames : frames) + of;
}
