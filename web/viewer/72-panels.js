// ---------------------------------------------------------------- legend, summary, info
function renderLegend() {
  if (S.diff) { renderDiffLegend(); return; }
  if (!S.tableRows) return;  // drawn with the table, after the first paint
  const box = $('legend'), present = new Set(), names = S.data.header.categories, cat = S.data.frames.cat;
  const seen = new Uint8Array(names.length + 1);
  for (const f of S.tableRows.rows) seen[cat[f]] = 1;  // frames with weight in this view
  for (let c = 0; c < seen.length; c++) if (seen[c]) present.add(names[c] || '');
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
  const [bn, an] = diffSides();
  what.textContent = columnLabel(S.data.header.columns[S.col]) + ' ' + S.colourBy + ' change, ' + an + ' − ' + bn;
  scale.append(lo, bar, hi, what);
  box.append(scale);
  const hidden = S.widthBy === 'after' && dc.gone ? ' — ' + dc.gone.toLocaleString('en-US') + ' hidden at this width (the other widths show them)' : '';
  item('gone', 'gone: only in ' + bn + hidden);
  item('new', 'new: only in ' + an);
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
  const view = viewById(S.viewId);
  if (view && view.redraw) { view.redraw(zoom); return; }  // a view that shows the graph its own way (ranks)
  zoom = orderView(zoom);
  if (S.diff) { computeDiffTable(); renderDiffTable(); }
  else if (S.tableAfterPaint) S.tableRows = null;  // start() sums it once the graph is drawn
  else { computeTable(); renderTable(); }
  renderLegend();
  renderSummary();
  zoomTo(zoom);
  refreshView('data');
  for (const h of HOOKS.refresh) h();
}
