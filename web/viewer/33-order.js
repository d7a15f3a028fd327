// ---------------------------------------------------------------- order of children: A–Z or left heavy
// Children are laid out alphabetically (flamegraph.pl's order: the payload's frame order), or
// "left heavy" (speedscope's term): heaviest first, by the current weight, ties alphabetical.
// Left heavy is a reordered copy of a tree; it keeps `plain` (the tree it was made from) and
// `perm` (its node k is plain's node perm[k]), so zooms and focus carry over between the two.
S.heavy = false;

function orderHeavy(tree, tot) {
  const { N, depth, frame, self, end } = tree;
  const perm = new Int32Array(N), pending = new Int32Array(N), kids = [];
  let sp = 0, n = 0;
  pending[sp++] = 0;
  while (sp) {
    const i = pending[--sp];
    perm[n++] = i;
    let k = 0;
    for (let c = i + 1, e = end[i]; c < e; c = end[c]) kids[k++] = c;
    kids.length = k;
    if (k > 1) kids.sort((a, b) => tot[b] - tot[a] || a - b);
    for (let j = k - 1; j >= 0; j--) pending[sp++] = kids[j];
  }
  const d2 = new Uint32Array(N), f2 = new Int32Array(N);
  for (let k = 0; k < N; k++) { d2[k] = depth[perm[k]]; f2[k] = frame[perm[k]]; }
  const s2 = self.map((col) => { const s = new Float64Array(N); for (let k = 0; k < N; k++) s[k] = col[perm[k]]; return s; });
  const out = makeTree(N, d2, f2, s2);
  const rank = new Int32Array(N);
  for (let k = 0; k < N; k++) rank[perm[k]] = k;
  return Object.assign(out, { plain: tree, perm, rank });
}

// The tree to show for `plain` in the current order (the left-heavy copy is kept on the plain
// tree, for the last weight it was made for).
function orderedTree(plain) {
  if (!S.heavy) return plain;
  const c = S.col, kept = plain.heavyCopy;
  if (kept && kept.col === c) return kept.tree;
  const tree = orderHeavy(plain, totals(plain, c));
  plain.heavyCopy = { col: c, tree };
  return tree;
}
// Node i of tree `from` in tree `to`, when both show the same plain tree (else 0, the root).
function sameNode(from, i, to) {
  if (i < 0) return i;
  if ((from.plain || from) !== (to.plain || to)) return 0;
  const p = from.plain ? from.perm[i] : i;
  return to.plain ? to.rank[p] : p;
}
// Puts S.view in the current order; returns the node `node` (of the old S.view) became.
function orderView(node) {
  const old = S.view;
  S.view = orderedTree(old.plain || old);
  if (S.focusTree === old && S.focus >= 0) { S.focus = sameNode(old, S.focus, S.view); S.focusTree = S.view; }
  return sameNode(old, node, S.view);
}
function setOrder(heavy) {
  S.heavy = heavy;
  for (const b of $('order').children) b.setAttribute('aria-pressed', String((b.dataset.value === 'heavy') === heavy));
  if (!S.data) return;
  const t0 = performance.now();
  zoomTo(orderView(S.zoom));
  refreshView('order');
  api.timings.lastOrder = performance.now() - t0;
  noteState();
}
// The switch, beside the flame/icicle one; it applies to every view's graphs.
(() => {
  const box = document.createElement('div');
  box.className = 'seg'; box.id = 'order';
  box.setAttribute('role', 'group'); box.setAttribute('aria-label', 'order of children');
  for (const [value, text, title] of [['name', 'A–Z', 'children in name order (flamegraph.pl)'],
    ['heavy', 'Heavy', 'left heavy: the heaviest child first, by the current weight']]) {
    const b = document.createElement('button');
    b.type = 'button'; b.dataset.value = value; b.textContent = text; b.title = title;
    b.setAttribute('aria-pressed', String(value === 'name'));
    b.addEventListener('click', () => setOrder(value === 'heavy'));
    box.append(b);
  }
  $('flame').parentNode.after(box);
})();
shareState('order', () => (S.heavy ? 'heavy' : null), (v) => { if ((v === 'heavy') !== S.heavy) setOrder(v === 'heavy'); }, 12);
