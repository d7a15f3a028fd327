// ---------------------------------------------------------------- search
function setSearch(text) {
  const t0 = performance.now();
  const input = $('search');
  input.classList.remove('bad');
  input.title = '';
  S.matcher = null; S.match = null;
  if (text) {
    try {
      S.matcher = new RegExp(text, /[A-Z]/.test(text) ? '' : 'i');
    } catch (e) {
      input.classList.add('bad');
      input.title = String(e.message || e);
    }
  }
  if (S.matcher) {
    const { name, fileId, strings, count } = S.data.frames;
    const m = new Uint8Array(count), re = S.matcher;
    // Files are few and shared by many frames: each is tested once (1 a match, 2 not).
    const fileHit = new Uint8Array(strings.count);
    let k = 0;
    for (let f = 0; f < count; f++) {
      if (re.test(name[f])) { m[f] = 1; k++; continue; }
      const s = fileId[f];
      let hit = fileHit[s];
      if (hit === 0) { const file = strings.get(s); hit = fileHit[s] = file && re.test(file) ? 1 : 2; }
      if (hit === 1) { m[f] = 1; k++; }
    }
    S.match = m; S.matchCount = k;
  }
  draw();
  updateMatch();
  if (!S.diff && S.tableRows) renderTable();  // the table lists the matching frames only
  refreshView('search');
  api.timings.lastSearch = performance.now() - t0;
  noteState();
}
shareState('search', () => S.matcher ? $('search').value : null, (v) => {
  $('search').value = v || '';
  setSearch(v || '');
}, 30);
// Matched weight: each matched subtree counted once.
function matchedWeight(from, tot = totals(S.view, S.col)) {
  const { frame, end } = S.view, m = S.match;
  let sum = 0;
  for (let i = from + 1, e = end[from]; i < e;) {
    if (m[frame[i]]) { sum += tot[i]; i = end[i]; } else i++;
  }
  return (from > 0 && m[frame[from]]) ? tot[from] : sum;
}
function updateMatch() {
  const out = $('match');
  if (!S.match) { out.textContent = ''; out.classList.remove('on'); api.matched = null; return; }
  const tot = totals(S.view, S.col), all = tot[0], w = matchedWeight(0), unit = unitOf(S.col);
  let text = 'matched ' + fmtPct(w, all) + ' (' + fmtValue(w, unit) + ')';
  if (S.zoom !== 0) text += ' · ' + fmtPct(matchedWeight(S.zoom), tot[S.zoom]) + ' of zoom';
  let before = null;
  if (S.diff) {
    // Both sides: "matched 54.0% (54) after, 40.0% (40) before".
    const bt = beforeTotals(S.view, S.col), bw = matchedWeight(0, bt);
    before = { weight: bw, total: bt[0], share: bt[0] > 0 ? bw / bt[0] : 0 };
    text = 'matched ' + fmtPct(w, all) + ' (' + fmtValue(w, unit) + ') after, ' + fmtPct(bw, bt[0]) + ' (' + fmtValue(bw, unit) + ') before';
    if (S.zoom !== 0) text += ' · of zoom ' + fmtPct(matchedWeight(S.zoom), tot[S.zoom]) + ' after, ' + fmtPct(matchedWeight(S.zoom, bt), bt[S.zoom]) + ' before';
  }
  if (S.matchCount === 0) text = 'no match';
  out.textContent = text;
  out.classList.add('on');
  api.matched = { weight: w, total: all, share: all > 0 ? w / all : 0, frames: S.matchCount };
  if (before) api.matched.before = before;
}
