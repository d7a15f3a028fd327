// ---------------------------------------------------------------- start
// The column shown first: the input's default weight; in a differential profile, when that is
// a before column, its after pair.
function defaultColumn() {
  const h = S.data.header;
  const k = h.default_column >= 0 && h.default_column < h.columns.length ? h.default_column : 0;
  return S.diff && S.diff.before.indexOf(k) >= 0 ? S.diff.before.indexOf(k) : k;
}
// The names not shown yet are made in slices after the first paint (10-decode.js, StringTable),
// so that the first search finds them made.
const NAMES_PER_SLICE = 65536;  // ~25 ms
function makeNamesWhileIdle() {
  const strings = S.data.frames.strings;
  api.timings.namesMade = null;  // pending
  const slice = (b) => {
    const next = strings.makeBlocks(b, Math.ceil(NAMES_PER_SLICE / strings.restart));
    if (next < strings.blocks) { setTimeout(() => slice(next), 0); return; }
    void S.data.frames.full;  // the array by frame that a search reads
    api.timings.namesMade = performance.now() - api.timings.firstPaint;
  };
  slice(0);
}
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
    S.diff = findDiff(h.columns);
    S.col = defaultColumn();
    S.icicle = !!h.inverted;
    S.negate = !!h.negate;
    $('title').textContent = h.title;
    $('subtitle').textContent = h.subtitle;
    document.title = h.title;
    $('flame').setAttribute('aria-pressed', String(!S.icicle));
    $('icicle').setAttribute('aria-pressed', String(S.icicle));
    findGroups();
    renderWeights();
    if (S.diff) setupDiff();
    renderGroups();
    renderInfo();
    wire();
    S.viewId = 'flame';
    for (const h of HOOKS.start) h();
    renderViewTabs();
    // A big profile's table (a sum over every node, a fraction of a second at a million) comes
    // right after the first paint instead of before it.
    S.tableAfterPaint = !S.diff && data.tree.N > TABLE_AFTER_PAINT;
    refreshAll(0);
    if (location.hash) applyFragment(location.hash, false);
    window.addEventListener('hashchange', () => applyFragment(location.hash, true));
    api.timings.firstPaint = performance.now();
    api.timings.namesAtPaint = data.frames.strings.madeCount;
    api.timings.startToPaint = performance.now() - t0;
    if (S.tableAfterPaint) {
      await new Promise((done) => setTimeout(done, 0));  // let the graph show
      S.tableAfterPaint = false;
      const view = viewById(S.viewId);
      if (!S.tableRows && !(view && view.redraw)) { computeTable(); renderTable(); renderLegend(); }
      api.timings.tableAfterPaint = performance.now() - api.timings.firstPaint;
    }
    makeNamesWhileIdle();
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
