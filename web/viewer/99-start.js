// ---------------------------------------------------------------- start
async function start() {
  const t0 = performance.now();
  try {
    const data = decode(await inflate());
    api.timings.decode = performance.now() - t0;
    S.data = data;
    S.base = S.view = data.tree;
    S.colors = new Array(data.frames.count);
    S.excluded = new Uint8Array(data.tree.N);
    const h = data.header;
    S.col = h.default_column >= 0 && h.default_column < h.columns.length ? h.default_column : 0;
    S.diff = findDiff(h.columns);
    if (S.diff && S.diff.before.indexOf(S.col) >= 0) S.col = S.diff.before.indexOf(S.col);  // a before column chosen: show its pair
    S.icicle = !!h.inverted;
    S.negate = !!h.negate;
    $('title').textContent = h.title;
    $('subtitle').textContent = h.subtitle;
    document.title = h.title;
    $('flame').setAttribute('aria-pressed', String(!S.icicle));
    $('icicle').setAttribute('aria-pressed', String(S.icicle));
    findGroups();
    renderViews();
    if (S.diff) setupDiff();
    renderGroups();
    renderInfo();
    wire();
    refreshAll(0);
    api.timings.firstPaint = performance.now();
    api.timings.startToPaint = performance.now() - t0;
    api.ready = true;
    document.documentElement.dataset.ready = 'true';
  } catch (e) {
    api.error = String(e && e.stack || e);
    $('empty').style.display = 'flex';
    $('empty').textContent = 'Could not read the embedded profile: ' + (e && e.message || e);
    document.documentElement.dataset.ready = 'error';
    throw e;
  }
}
start();
