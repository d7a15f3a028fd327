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
  // Sorted once per order (a search re-renders the table: with a million frames a sort per
  // keystroke would cost more than the search).
  if (S.tableRows.sortedBy !== key + dir) {
    rows.sort(val ? (a, b) => dir * (val[a] - val[b]) || (totalBy[b] - totalBy[a]) || (a - b)
                  : (a, b) => dir * (name[a] < name[b] ? -1 : name[a] > name[b] ? 1 : a - b));
    S.tableRows.sortedBy = key + dir;
  }
  // A search narrows the list to the frames it matches.
  const match = S.match, shown = [];
  for (let k = 0; k < rows.length && shown.length < TABLE_ROWS; k++) if (!match || match[rows[k]]) shown.push(rows[k]);
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
