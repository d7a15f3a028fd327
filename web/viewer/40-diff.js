// ---------------------------------------------------------------- differential mode
// `flamefold diff` writes one tree (the union of both runs) whose ordinary columns are the
// after side and whose "before:<name>" columns hold the before side on the same nodes
// (include/flamefold/diff.h). The page then offers: colour by change, width by after, before
// or the larger of the two, before/after/delta in the tooltip, and a grew/shrank table.
const BEFORE = 'before:';
const NEW = 1, GONE = 2;  // node status: only the after side has weight / only the before side
// The before column of every column (-1 when it has none); null when nothing pairs up.
function findDiff(cols) {
  const at = new Map(cols.map((c, k) => [c.name, k]));
  const before = cols.map((c) => (c.name.startsWith(BEFORE) || !at.has(BEFORE + c.name)) ? -1 : at.get(BEFORE + c.name));
  return before.some((b) => b >= 0) ? { before } : null;
}
// What the two sides are called: a diff's before and after, or what another view compares
// (the rank view: the mean of the others and the picked rank) when it sets S.diffSides.
const diffSides = () => S.diffSides || ['before', 'after'];
const sideName = (name) => name.startsWith(BEFORE) ? name.slice(BEFORE.length) : name;
function zeros(tree) { return tree.zeros || (tree.zeros = new Float64Array(tree.N)); }
// (A tree without the before columns, the unfiltered tree under the rank view's comparison, has zeros.)
function beforeTotals(tree, c) { const b = S.diff.before[c]; return b >= 0 && b < tree.self.length ? totals(tree, b) : zeros(tree); }
function beforeSelf(tree, c) { const b = S.diff.before[c]; return b >= 0 && b < tree.self.length ? tree.self[b] : zeros(tree); }

// The totals frames are laid out by: the weight column, or in a differential view the before
// side, or (width by "larger") each node as wide as the larger of its two totals and no
// narrower than its children side by side: a parent's max(after, before) can be less than the
// sum of its children's maxima (one child only before, another only after), and a parent
// narrower than its children would break zoom, hit testing and the merged-run logic.
function layTotals(tree = S.view) {
  if (!S.diff || S.widthBy === 'after') return totals(tree, S.col);
  if (S.widthBy === 'before') return beforeTotals(tree, S.col);
  const cache = tree.lay || (tree.lay = {});
  if (!cache[S.col]) {
    const a = totals(tree, S.col), b = beforeTotals(tree, S.col), p = tree.parent;
    const w = new Float64Array(tree.N);  // holds the sum of the children's widths until visited
    for (let i = tree.N - 1; i >= 0; i--) {
      w[i] = Math.max(w[i], a[i], b[i]);
      if (i > 0) w[p[i]] += w[i];
    }
    cache[S.col] = w;
  }
  return cache[S.col];
}

// flamegraph.pl's colour scale, as the SVG writer draws it (svg::change_colour): white when
// unchanged, red as a frame grew and blue as it shrank, fully saturated at the largest change
// in the view. 211 steps each way, as hex strings made once.
const hex2 = (v) => v.toString(16).padStart(2, '0');
const RED = [], BLUE = [];
for (let g = 0; g <= 210; g++) { RED.push('#ff' + hex2(g) + hex2(g)); BLUE.push('#' + hex2(g) + hex2(g) + 'ff'); }
// --negate (the header's "negate") swaps the hues: blue where a frame grew.
function changeColour(v, max) {
  if (S.negate) v = -v;
  if (v > 0) return RED[Math.trunc(210 * (max - Math.min(v, max)) / max)];
  if (v < 0) return BLUE[Math.trunc(210 * (max + Math.max(v, -max)) / max)];
  return '#ffffff';
}
// Per node of the view: the change the colour shows, the scale, and new/gone.
// Colour by self change is the default: it is what flamegraph.pl (and our SVG) show, and it
// points at the frames whose own work changed, where an inclusive change also reddens every
// caller up to the root. "Total" colours by inclusive change, as diff views in the style of
// Firefox's profiler comparison do, for when the question is which subtree grew.
// The scale is the largest change anywhere in the view, not in the zoom, so a frame keeps its
// colour while zooming and the legend's scale holds everywhere.
function diffColours() {
  const tree = S.view, c = S.col, by = S.colourBy, dc = S.diffColours;
  if (dc && dc.tree === tree && dc.col === c && dc.by === by) return dc;
  const N = tree.N, a = totals(tree, c), b = beforeTotals(tree, c);
  const delta = new Float64Array(N), status = new Uint8Array(N);
  let max = 0, gone = 0;
  if (by === 'total') for (let i = 0; i < N; i++) delta[i] = a[i] - b[i];
  else { const sa = tree.self[c], sb = beforeSelf(tree, c); for (let i = 0; i < N; i++) delta[i] = sa[i] - sb[i]; }
  for (let i = 0; i < N; i++) {
    const m = Math.abs(delta[i]);
    if (m > max) max = m;
    if (a[i] === 0) { if (b[i] > 0) { status[i] = GONE; gone++; } } else if (b[i] === 0) status[i] = NEW;
  }
  S.diffColours = { tree, col: c, by, delta, status, max, gone, fill: (i) => changeColour(delta[i], max || 1) };
  return S.diffColours;
}
// A gone frame is hatched (it was there), a new one gets a dark strip along its bottom edge.
function markPattern() {
  if (S.hatch) return S.hatch;
  const t = document.createElement('canvas');
  t.width = t.height = 6;
  const g = t.getContext('2d');
  g.strokeStyle = 'rgba(17,24,39,0.55)'; g.lineWidth = 1.5;
  g.beginPath(); g.moveTo(-1, 7); g.lineTo(7, -1); g.moveTo(-1, 1); g.lineTo(1, -1); g.moveTo(5, 7); g.lineTo(7, 5); g.stroke();
  return (S.hatch = ctx.createPattern(t, 'repeat'));
}

const signed = (v, unit, bare) => (v > 0 ? '+' : v < 0 ? '-' : '') + fmtValue(Math.abs(v), unit, bare);
// part/whole as a signed percentage, with fmtPct's precision.
function fmtDeltaPct(part, whole) {
  if (!(whole > 0)) return part === 0 ? '0%' : '–';
  return (part > 0 ? '+' : part < 0 ? '-' : '') + fmtPct(Math.abs(part), whole);
}
