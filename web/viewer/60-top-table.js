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
// The first k of rows (frame ids, ascending) in the order sortRowsBy gives, by one pass with a
// heap of k: what the table shows until a search asks for more of the order.
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
// Frame ids in the order rows.sort((a, b) => first.sign * (first.of[a] - first.of[b]) ||
// second.sign * (second.of[a] - second.of[b]) || (a - b)) gives, by stable radix passes over
// the keys' bits (second, then first) from the ids in ascending order: linear, where a
// comparison sort of a million rows took over a second.
function sortRowsBy(rows, first, second) {
  const n = rows.length;
  let ids = Uint32Array.from(rows).sort(), tmp = new Uint32Array(n);
  const keys = new Float64Array(n), words = new Uint32Array(keys.buffer);
  let lo = new Uint32Array(n), hi = new Uint32Array(n), lo2 = new Uint32Array(n), hi2 = new Uint32Array(n);
  const count = new Uint32Array(65537);
  for (const { of, sign } of [second, first]) {
    // Each key as an unsigned 64-bit number in the order of the doubles (-0 as 0).
    for (let i = 0; i < n; i++) keys[i] = sign * of[ids[i]] + 0;
    for (let i = 0; i < n; i++) {
      let l = words[2 * i], h = words[2 * i + 1];
      if (h & 0x80000000) { l = ~l >>> 0; h = ~h >>> 0; } else h = (h | 0x80000000) >>> 0;
      lo[i] = l; hi[i] = h;
    }
    for (let pass = 0; pass < 4; pass++) {
      const word = pass < 2 ? lo : hi, shift = pass % 2 ? 16 : 0;
      count.fill(0);
      for (let i = 0; i < n; i++) count[((word[i] >>> shift) & 0xFFFF) + 1]++;
      if (count[((word[0] >>> shift) & 0xFFFF) + 1] === n) continue;  // one digit for all: nothing moves
      for (let d = 1; d < 65537; d++) count[d] += count[d - 1];
      for (let i = 0; i < n; i++) {
        const at = count[(word[i] >>> shift) & 0xFFFF]++;
        tmp[at] = ids[i]; lo2[at] = lo[i]; hi2[at] = hi[i];
      }
      let t = ids; ids = tmp; tmp = t;
      t = lo; lo = lo2; lo2 = t;
      t = hi; hi = hi2; hi2 = t;
    }
  }
  return Array.from(ids);
}
function renderTable() {
  if (!S.tableRows) return;  // not summed yet (start() does it after the first paint)
  const { selfBy, totalBy, callsBy } = S.tableRows;
  const { name, file, line } = S.data.frames;
  const key = S.sortKey, dir = S.sortDir;
  const val = key === 'self' ? selfBy : key === 'total' ? totalBy : key === 'calls' ? (callsBy || selfBy) : null;
  // Sorted once per order (a search re-renders the table: with a million frames a sort per
  // keystroke would cost more than the search); until a search asks, only the rows shown.
  const match = S.match, sorted = S.tableRows.sortedBy === key + dir;
  let shown = [];
  if (val && !match && !sorted) {
    shown = topRowsBy(S.tableRows.rows, TABLE_ROWS, { of: val, sign: dir }, { of: totalBy, sign: -1 });
  } else {
    if (!sorted) {
      if (val) S.tableRows.rows = sortRowsBy(S.tableRows.rows, { of: val, sign: dir }, { of: totalBy, sign: -1 });
      else S.tableRows.rows.sort((a, b) => dir * (name[a] < name[b] ? -1 : name[a] > name[b] ? 1 : a - b));
      S.tableRows.sortedBy = key + dir;
    }
    // A search narrows the list to the frames it matches.
    const rows = S.tableRows.rows;
    for (let k = 0; k < rows.length && shown.length < TABLE_ROWS; k++) if (!match || match[rows[k]]) shown.push(rows[k]);
  }
  const rows = S.tableRows.rows;
  const all = totals(S.view, S.col)[0], unit = unitOf(S.col);
  const body = $('table').tBodies[0];
  const frag = document.createDocumentFragment();
  for (const f of shown) {
    const tr = document.createElement('tr');
    tr.dataset.frame = f;
    if (f === S.selectedFrame) tr.setAttribute('aria-selected', 'true');
    const td = tr.insertCell(); td.className = 'name';
    const nm = document.createElement('span'); nm.textContent = clip(name[f]); td.append(nm);
    if (file[f]) { const sm = document.createElement('small'); sm.textContent = clip(file[f]) + (line[f] ? ':' + line[f] : ''); td.append(sm); }
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
  let matching = rows.length;
  if (match) { matching = 0; for (const f of rows) matching += match[f]; }
  const of = match ? ' matching the search (of ' + rows.length.toLocaleString('en-US') + ')' : '';
  const frames = matching.toLocaleString('en-US') + (matching === 1 ? ' frame' : ' frames');
  $('tablemore').textContent = (matching > shown.length ? 'showing ' + shown.length + ' of ' + frames : frames) + of;
}
