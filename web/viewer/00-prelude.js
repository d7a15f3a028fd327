// flamefold's interactive flame graph. The data is a gzip + base64 payload (see
// src/flamefold/writers/html.cpp for its layout); the tree is kept as depth-first arrays, so a
// subtree is the index range [i, end[i]) and drawing skips any subtree narrower than a pixel.
// Every name from the profile reaches the page through textContent or canvas fillText only.
//
// The files of web/viewer/ are joined in name order into one script inside one function scope
// (cmake/embed_assets.cmake), so they share these names without a bundler: the number in a
// file's name places it after what it uses at load time. Declarations only, until 99-start.js.
const $ = (id) => document.getElementById(id);
const ROW = 18;          // px per frame row
const MIN_W = 1;         // frames narrower than this many px are merged into one block
const LABEL_W = 28;      // frames narrower than this get no label
const GROUP_CATS = new Set(['process', 'thread', 'rank', 'device', 'label']);
const TABLE_ROWS = 300;
// Trees with more nodes than this draw the graph first and sum the table just after (99-start.js).
const TABLE_AFTER_PAINT = 250000;

const api = { ready: false, timings: {}, error: null };
window.flamefold = api;
