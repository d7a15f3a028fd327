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
  if (c === undefined) c = S.colors[f] = frameColor(frameName(f), catName(f));
  return c;
}
function unitOf(c) {
  const h = S.data.header, col = h.columns[c];
  return c === S.data.header.default_column && h.countname ? h.countname : col.unit;
}
// A frame's name as shown (the short-names and merge-modules switches change it, 59-ml-names.js),
// as the profile has it, and its file: made when first asked for (10-decode.js, StringTable).
function frameName(f) { return S.data.frames.shown ? S.data.frames.shown[f] : fullName(f); }
function fullName(f) { return S.data.frames.strings.get(S.data.frames.nameId[f]); }
function frameFile(f) { return S.data.frames.strings.get(S.data.frames.fileId[f]); }
// Hooks for features that live in files of their own: start() runs before the first paint,
// refresh() after the tables and legend have followed a change (weight, filters, names),
// tip(tip, node, frame) after the tooltip of a frame is built.
const HOOKS = { start: [], refresh: [], tip: [] };
function nodeName(i) { return i === 0 ? 'all' : frameName(S.view.frame[i]); }
