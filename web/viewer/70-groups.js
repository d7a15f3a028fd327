// ---------------------------------------------------------------- groups (threads, processes, ranks)
function findGroups() {
  const { N, frame, parent, end } = S.base, cat = S.data.frames.cat, cats = S.data.header.categories;
  const isGroupNode = new Uint8Array(N), list = [];
  for (let i = 1; i < N;) {
    const p = parent[i];
    if ((p === 0 || isGroupNode[p]) && GROUP_CATS.has(cats[cat[frame[i]]])) { isGroupNode[i] = 1; list.push(i); i++; }
    else i = end[i];  // groups only sit at the top levels: skip ordinary subtrees
  }
  S.isGroupNode = isGroupNode; S.groupNodes = list;
}
function renderGroups() {
  const box = $('groupsbox');
  if (!S.groupNodes.length) { box.hidden = true; return; }
  box.hidden = false;
  const cats = new Set(S.groupNodes.map((i) => catName(S.base.frame[i])));
  const words = { process: 'Processes', thread: 'Threads', rank: 'Ranks', device: 'Devices', label: 'Labels' };
  $('groupstitle').textContent = [...cats].map((c) => words[c] || c).join(' & ');
  const list = $('groups');
  list.replaceChildren();
  const tot = layTotals(S.base), all = tot[0], base = S.base.depth;
  for (const i of S.groupNodes) {
    const label = document.createElement('label');
    label.style.paddingLeft = (base[i] - 1) * 16 + 'px';
    const cb = document.createElement('input');
    cb.type = 'checkbox'; cb.checked = !S.excluded[i]; cb.dataset.node = i;
    let off = false;
    for (let a = S.base.parent[i]; a > 0; a = S.base.parent[a]) if (S.excluded[a]) off = true;
    cb.disabled = off;
    cb.addEventListener('change', () => { S.excluded[i] = cb.checked ? 0 : 1; applyFilter(); });
    const name = document.createElement('span'); name.className = 'g'; name.textContent = clip(frameName(S.base.frame[i]));
    const share = document.createElement('small'); share.textContent = fmtPct(tot[i], all);
    label.classList.toggle('off', !cb.checked || off);
    label.append(cb, name, share);
    list.append(label);
  }
  $('merge-threads').checked = S.merge;
}
function applyFilter() {
  const t0 = performance.now();
  S.view = (!S.merge && !S.excluded.some((x) => x)) ? S.base : deriveTree(S.base, S.excluded, S.merge, S.isGroupNode);
  S.view = readableTree(S.view);  // module instances merged when asked (59-ml-names.js)
  api.timings.lastFilter = performance.now() - t0;
  noteState();
  renderGroups();
  refreshAll(0);
}
// The flame graph's weights replaced: the same tree with other self columns (the flame chart's
// time range, 56-timeline.js), or the file's own again with null. Filters, merging and the zoom
// (while it keeps some weight) stay; node ids do not change, since the tree does not.
function setBaseWeights(self) {
  const t = S.data.tree, keep = S.zoom;
  S.base = self ? { N: t.N, depth: t.depth, frame: t.frame, self, parent: t.parent, end: t.end, maxDepth: t.maxDepth, totals: [] } : t;
  S.view = (!S.merge && !S.excluded.some((x) => x)) ? S.base : deriveTree(S.base, S.excluded, S.merge, S.isGroupNode);
  renderGroups();
  refreshAll(keep < S.view.N && layTotals()[keep] > 0 ? keep : 0);
}
// Shared state: the hidden groups as base node ids, and the merge switch.
shareState('hide', () => {
  const off = S.groupNodes.filter((i) => S.excluded[i]);
  return off.length ? off.join('.') : null;
}, (v) => {
  S.excluded.fill(0);
  for (const t of (v || '').split('.')) { const i = Number(t); if (t && S.isGroupNode[i]) S.excluded[i] = 1; }
  applyFilter();
}, 10);
shareState('merge', () => (S.merge ? '1' : null), (v) => {
  if (S.merge === (v === '1')) return;
  S.merge = v === '1';
  applyFilter();
}, 11);
