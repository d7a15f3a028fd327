// ---------------------------------------------------------------- zoom & breadcrumb
function zoomTo(node) {
  const t0 = performance.now();
  S.zoom = node;
  S.maxRow = visibleMaxDepth();
  layout();
  if (!S.icicle) chart.scrollTop = chart.scrollHeight;  // keep the root in sight
  else chart.scrollTop = 0;
  S.scrollTop = chart.scrollTop;
  draw();
  crumbs();
  updateMatch();
  $('reset').disabled = node === 0;
  api.timings.lastZoom = performance.now() - t0;
  noteState();
}
// Shared state: the zoomed node, as its index in the current (filtered) tree: the same file
// under the same filters has the same tree, and the filters are restored first.
shareState('zoom', () => (S.zoom ? String(S.zoom) : null), (v) => {
  const i = Number(v);
  zoomTo(Number.isInteger(i) && i > 0 && i < S.view.N && layTotals()[i] > 0 ? i : 0);
}, 40);
function crumbs() {
  const box = $('crumbs');
  box.replaceChildren();
  const path = [];
  for (let a = S.zoom; a >= 0; a = S.view.parent[a]) path.push(a);
  path.reverse();
  const shown = path.length > 9 ? [path[0], -1, ...path.slice(-7)] : path;
  shown.forEach((n, k) => {
    if (k) { const s = document.createElement('span'); s.className = 'sep'; s.textContent = '›'; box.append(s); }
    if (n === -1) { const s = document.createElement('span'); s.textContent = '…'; box.append(s); return; }
    const b = document.createElement('button');
    b.type = 'button';
    b.textContent = clip(nodeName(n));
    b.title = clip(nodeName(n));
    b.dataset.node = n;
    if (n === S.zoom) b.setAttribute('aria-current', 'true');
    else b.addEventListener('click', () => zoomTo(n));
    box.append(b);
  });
}
