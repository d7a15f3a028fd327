// ---------------------------------------------------------------- events
function searchFrame(f) {
  const re = '^' + frameName(f).replace(/[.*+?^${}()|[\]\\/]/g, '\\$&') + '$';
  $('search').value = re;
  setSearch(re);
}
function wire() {
  canvas.addEventListener('mousemove', (ev) => {
    const r = canvas.getBoundingClientRect();
    const hit = hitTest(ev.clientX - r.left, ev.clientY - r.top);
    S.hoverHit = hit;
    positionHover();
    if (hit) showTip(hit, ev); else tip.hidden = true;
  });
  canvas.addEventListener('mouseleave', () => { S.hoverHit = null; positionHover(); tip.hidden = true; });
  canvas.addEventListener('click', (ev) => {
    const r = canvas.getBoundingClientRect();
    const hit = hitTest(ev.clientX - r.left, ev.clientY - r.top);
    if (!hit) return;
    tip.hidden = true; S.hoverHit = null;
    zoomTo(hit.node);
  });
  chart.addEventListener('scroll', () => redraw(), { passive: true });
  let timer = 0;
  $('search').addEventListener('input', (ev) => {
    clearTimeout(timer);
    timer = setTimeout(() => setSearch(ev.target.value), 60);
  });
  $('search').addEventListener('keydown', (ev) => {
    if (ev.key === 'Enter') { clearTimeout(timer); setSearch(ev.target.value); }
    if (ev.key === 'Escape') { ev.stopPropagation(); ev.target.value = ''; setSearch(''); ev.target.blur(); }
  });
  document.addEventListener('keydown', (ev) => {
    if (ev.target instanceof HTMLInputElement) return;
    if (onKey(ev)) return;  // 54-keys.js: the key list, frame focus, the views' own Esc
    if (ev.key === 'Escape') { zoomTo(0); }
    else if (ev.key === '/') { ev.preventDefault(); $('search').focus(); $('search').select(); }
  });
  $('reset').addEventListener('click', () => zoomTo(0));
  const setOrientation = (icicle) => {
    S.icicle = icicle;
    $('flame').setAttribute('aria-pressed', String(!icicle));
    $('icicle').setAttribute('aria-pressed', String(icicle));
    zoomTo(S.zoom);
  };
  $('flame').addEventListener('click', () => setOrientation(false));
  $('icicle').addEventListener('click', () => setOrientation(true));
  S.setOrientation = setOrientation;
  for (const th of $('table').tHead.rows[0].cells) {
    if (!th.dataset.key) continue;
    th.addEventListener('click', () => {
      const k = th.dataset.key;
      S.sortDir = S.sortKey === k ? -S.sortDir : (k === 'name' ? 1 : -1);
      S.sortKey = k;
      renderTable();
    });
  }
  $('table').tBodies[0].addEventListener('click', (ev) => {
    const tr = ev.target.closest('tr');
    if (!tr) return;
    searchFrame(Number(tr.dataset.frame));
  });
  $('merge-threads').addEventListener('change', (ev) => { S.merge = ev.target.checked; applyFilter(); });
  $('groups-all').addEventListener('click', () => { S.excluded.fill(0); applyFilter(); });
  $('groups-none').addEventListener('click', () => { for (const i of S.groupNodes) if (S.base.depth[i] === 1) S.excluded[i] = 1; applyFilter(); });
  new ResizeObserver(() => { const w = chart.clientWidth; if (w && w !== S.width) { layout(); draw(); positionHover(); } }).observe(chart);
  window.matchMedia('(prefers-color-scheme: dark)').addEventListener('change', () => { S.colors = new Array(S.data.frames.count); renderLegend(); draw(); });
}
shareState('layout', () => (S.icicle === !!S.data.header.inverted ? null : S.icicle ? 'icicle' : 'flame'),
  (v) => S.setOrientation(v === null ? !!S.data.header.inverted : v === 'icicle'), 15);
