// ---------------------------------------------------------------- state
const S = {
  data: null, base: null, view: null, col: 0, zoom: 0, icicle: false,
  matcher: null, match: null, matchCount: 0, excluded: null, merge: false, isGroupNode: null, groupNodes: [],
  sortKey: 'self', sortDir: -1, tableRows: null, colors: null, hover: -1, width: 0, height: 0, contentH: 0,
  // Differential profiles only (null otherwise): see "differential mode" below.
  diff: null, widthBy: 'after', colourBy: 'self', diffKey: 'total', diffColours: null, hatch: null,
};
const canvas = $('canvas'), ctx = canvas.getContext('2d', { alpha: false });
const chart = $('chart');

function catName(f) { return S.data.header.categories[S.data.frames.cat[f]] || ''; }
function colorOf(f) {
  let c = S.colors[f];
  if (c === undefined) c = S.colors[f] = frameColor(S.data.frames.name[f], catName(f));
  return c;
}
function unitOf(c) {
  const h = S.data.header, col = h.columns[c];
  return c === S.data.header.default_column && h.countname ? h.countname : col.unit;
}
function nodeName(i) { return i === 0 ? 'all' : S.data.frames.name[S.view.frame[i]]; }
