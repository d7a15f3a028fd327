// ---------------------------------------------------------------- views (weight columns)
function renderWeights() {
  const box = $('weights'), cols = S.data.header.columns;
  box.replaceChildren();
  // A differential profile lists the after side's weights: each brings its before companion.
  const choices = cols.map((c, k) => k).filter((k) => (cols[k].name !== 'calls' || cols.length === 1) && !(S.diff && cols[k].name.startsWith(BEFORE)));
  if (choices.length < 2) return;
  choices.sort((a, b) => (TIME_UNITS.has(cols[b].unit) - TIME_UNITS.has(cols[a].unit)) || a - b);
  for (const k of choices) {
    const b = document.createElement('button');
    b.type = 'button'; b.dataset.col = k;
    b.textContent = columnLabel(cols[k]);
    b.title = cols[k].name + ' (' + (cols[k].unit || 'count') + ')';
    b.setAttribute('aria-pressed', String(k === S.col));
    b.addEventListener('click', () => setColumn(k));
    box.append(b);
  }
}
function setColumn(k) {
  S.col = k;
  for (const b of $('weights').children) b.setAttribute('aria-pressed', String(Number(b.dataset.col) === k));
  const keep = layTotals()[S.zoom] > 0 ? S.zoom : 0;
  renderGroups();
  refreshAll(keep);
  noteState();
}
// Shared state: the weight by column name (the default column is left out).
shareState('weight', () => (S.col === defaultColumn() ? null : S.data.header.columns[S.col].name), (v) => {
  const k = v === null ? defaultColumn() : S.data.header.columns.findIndex((c) => c.name === v);
  if (k >= 0 && k !== S.col) setColumn(k);
}, 20);
