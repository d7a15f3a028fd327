// ---------------------------------------------------------------- tooltip
const tip = $('tooltip');
function row(table, label, value) {
  const tr = table.insertRow();
  tr.insertCell().textContent = label;
  tr.insertCell().textContent = value;
}
// `g`: the graph hovered (50-flame.js), the main one by default; a graph of a part of the
// profile (the sandwich's) gives `all`, the whole's total, and may add rows (`tipRows`).
function showTip(hit, ev, g = null) {
  tip.replaceChildren();
  const { frames, header } = S.data;
  const tree = g ? g.tree : S.view, zoom = g ? g.zoom : S.zoom;
  const tot = g ? g.tot : layTotals(), all = g ? g.all : tot[0], unit = unitOf(S.col);
  const name = document.createElement('div'); name.className = 'tname';
  const table = document.createElement('table');
  if (hit.merged) {
    name.textContent = hit.count + (hit.count === 1 ? ' frame' : ' frames') + ' narrower than a pixel';
    tip.append(name);
    row(table, 'total', fmtValue(hit.sum, unit) + '  (' + fmtPct(hit.sum, all) + ' of all)');
    row(table, 'zoom', 'click to zoom into the one under the pointer');
    tip.append(table);
  } else {
    const i = hit.node, f = tree.frame[i];
    name.textContent = clip(treeNodeName(tree, i));
    tip.append(name);
    if (f >= 0 && (frameFile(f) || frames.line[f])) {
      const loc = document.createElement('div'); loc.className = 'tloc';
      loc.textContent = clip(frameFile(f) || '?') + (frames.line[f] ? ':' + frames.line[f] : '');
      tip.append(loc);
    }
    if (f >= 0 && catName(f)) row(table, 'category', catName(f));
    if (S.diff) diffTipRows(table, i, tree);
    else {
      const p = tree.parent[i];
      row(table, 'total', fmtValue(tot[i], unit));
      if (!(g && g.noSelf)) row(table, 'self', fmtValue(tree.self[S.col][i], unit));
      row(table, '% of all', fmtPct(tot[i], all));
      if (p >= 0) row(table, '% of parent', fmtPct(tot[i], tot[p]));
      if (zoom !== 0 && i !== zoom) row(table, '% of zoom', fmtPct(tot[i], tot[zoom]));
      header.columns.forEach((col, c) => {
        if (c === S.col) return;
        if (col.name === 'calls') { row(table, 'calls', fmtValue(tree.self[c][i], '')); return; }
        row(table, columnLabel(col) + ' total', fmtValue(totals(tree, c)[i], unitOf(c)));
      });
    }
    if (g && g.tipRows) g.tipRows(table, i);
    tip.append(table);
    for (const h of HOOKS.tip) h(tip, i, f);
  }
  placeTip(tip, ev);
}
// Shows the tooltip beside the pointer, kept inside the window (the flame chart's tooltip too).
function placeTip(tip, ev) {
  tip.hidden = false;
  const pad = 14, r = tip.getBoundingClientRect();
  let x = ev.clientX + pad, y = ev.clientY + pad;
  if (x + r.width > window.innerWidth - 4) x = Math.max(4, ev.clientX - pad - r.width);
  if (y + r.height > window.innerHeight - 4) y = Math.max(4, ev.clientY - pad - r.height);
  tip.style.left = x + 'px'; tip.style.top = y + 'px';
}
// Before, after and the change of node i; each delta also as a share of each side's whole.
function diffTipRows(table, i, v = S.view) {
  const c = S.col, unit = unitOf(c);
  const a = totals(v, c), b = beforeTotals(v, c), sa = v.self[c][i], sb = beforeSelf(v, c)[i];
  // The sides' names: before/after, or a rank against the mean of the others (57-ranks.js).
  const d = a[i] - b[i], [bn, an] = diffSides();
  if (a[i] === 0 && b[i] > 0) row(table, 'status', 'gone: only in ' + bn);
  else if (b[i] === 0 && a[i] > 0) row(table, 'status', 'new: only in ' + an);
  row(table, bn, fmtValue(b[i], unit) + '  (' + fmtPct(b[i], b[0]) + ' of ' + bn + ')');
  row(table, an, fmtValue(a[i], unit) + '  (' + fmtPct(a[i], a[0]) + ' of ' + an + ')');
  row(table, 'delta', signed(d, unit) + (b[i] > 0 ? '  (' + fmtDeltaPct(d, b[i]) + ')' : ''));
  row(table, 'delta % of ' + bn, fmtDeltaPct(d, b[0]));
  row(table, 'delta % of ' + an, fmtDeltaPct(d, a[0]));
  row(table, 'self', fmtValue(sb, unit) + ' → ' + fmtValue(sa, unit) + '  (' + signed(sa - sb, unit) + ')');
  S.data.header.columns.forEach((col, k) => {
    if (k === c || col.name.startsWith(BEFORE)) return;
    const x = totals(v, k)[i], y = beforeTotals(v, k)[i];
    if (col.name === 'calls') { row(table, 'calls', fmtValue(beforeSelf(v, k)[i], '') + ' → ' + fmtValue(v.self[k][i], '')); return; }
    row(table, columnLabel(col) + ' total', fmtValue(y, unitOf(k)) + ' → ' + fmtValue(x, unitOf(k)) + '  (' + signed(x - y, unitOf(k)) + ')');
  });
}
function positionHover() {
  const box = $('hoverbox');
  if (!S.hoverHit) { box.style.display = 'none'; return; }
  const h = S.hoverHit, y = rowY(h.d);
  box.style.display = 'block';
  box.style.left = h.x + 'px'; box.style.width = Math.max(2, h.w) + 'px';
  box.style.top = (y + S.scrollTop) + 'px'; box.style.height = ROW + 'px';
}
