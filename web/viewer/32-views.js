// ---------------------------------------------------------------- views (flame graph, sandwich, flame chart, ranks)
// Each way of looking at the profile is a view: a tab in the toolbar and a <section> of the page.
// The flame graph is the page's own markup (#view-flame); other views make their section when
// first entered, after the flame graph's. A view that does not apply to this profile (no time
// axis, one rank) is not offered. Toolbar items marked .flame-only hide with the flame graph.
const VIEWS = [];
// spec: { label, title, available() -> bool, section() -> the view's <section> (made on first
//   call), enter(), leave(), refresh(what) (the data shown changed while the view is on:
//   'data' = filters, weight or widths, 'order', 'search', 'colour'), escape() (the Esc key, when the view has
//   its own meaning for it) }; every function optional.
function defineView(id, spec) {
  VIEWS.push(Object.assign({ id, label: id, available: () => true }, spec));
}
function viewById(id) { return VIEWS.find((v) => v.id === id) || null; }
function renderViewTabs() {
  const box = $('viewtabs');
  box.replaceChildren();
  const offered = VIEWS.filter((v) => v.available());
  if (offered.length < 2) return;
  for (const v of offered) {
    const b = document.createElement('button');
    b.type = 'button'; b.dataset.view = v.id; b.setAttribute('role', 'tab');
    b.textContent = v.label;
    if (v.title) b.title = v.title;
    b.setAttribute('aria-pressed', String(v.id === S.viewId));
    b.addEventListener('click', () => setView(v.id));
    box.append(b);
  }
}
function refreshView(what) {
  const v = viewById(S.viewId);
  if (v && v.refresh) v.refresh(what);
}
function setView(id) {
  const next = viewById(id);
  if (!next || !next.available()) return false;
  const prev = viewById(S.viewId);
  if (prev && prev !== next && prev.leave) prev.leave();
  S.viewId = id;
  for (const v of VIEWS) {
    const el = v.id === 'flame' ? $('view-flame') : v.el;
    if (el) el.hidden = v.id !== id;
  }
  if (next.id !== 'flame' && !next.el) {
    next.el = next.section();
    next.el.classList.add('view');
    next.el.id = next.el.id || 'view-' + id;
    $('view-flame').parentNode.insertBefore(next.el, $('status'));
  }
  for (const el of document.querySelectorAll('.flame-only')) el.hidden = id !== 'flame';
  for (const b of $('viewtabs').children) b.setAttribute('aria-pressed', String(b.dataset.view === id));
  if (next.enter) next.enter();
  noteState();
  return true;
}

// The flame graph itself: its drawing lives in 50-flame.js; coming back redraws at the current
// width, which may have changed while it was hidden.
defineView('flame', {
  label: 'Flame graph', title: 'stacks merged, width = weight',
  enter() { if (S.data) { layout(); draw(); } },
});
shareState('view', () => (S.viewId === 'flame' ? null : S.viewId), (v) => setView(v || 'flame'), 90);
