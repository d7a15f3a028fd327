// ---------------------------------------------------------------- test and automation hooks
Object.assign(api, {
  state: () => Object.assign({ zoom: S.zoom, zoomName: nodeName(S.zoom), column: S.col, columnName: S.data.header.columns[S.col].name,
    icicle: S.icicle, nodes: S.view.N, merge: S.merge, search: $('search').value, width: S.width, height: S.height },
    S.diff ? { diff: true, widthBy: S.widthBy, colourBy: S.colourBy, scale: diffColours().max } : {}),
  // The first node (depth-first) whose frame name is `name`, with its box in canvas CSS pixels.
  find(name, nth = 0) {
    const { N, frame } = S.view, names = S.data.frames.name;
    for (let i = 1; i < N; i++) if (names[frame[i]] === name && nth-- === 0) return api.box(i);
    return null;
  },
  box(i) {
    const tot = layTotals(), b = frameBox(mainGraph(), i);
    if (!b) return { node: i, visible: false };
    const box = { node: i, x: b.x, w: b.w, y: b.y, h: ROW, depth: b.depth, total: tot[i], self: S.view.self[S.col][i], visible: true };
    if (S.diff) {
      const dc = diffColours();
      Object.assign(box, { after: totals(S.view, S.col)[i], before: beforeTotals(S.view, S.col)[i],
        delta: dc.delta[i], status: dc.status[i] === NEW ? 'new' : dc.status[i] === GONE ? 'gone' : '' });
    }
    return box;
  },
  hitTest: (x, y) => hitTest(x, y),
  // The payload's strings as made so far, the class that makes them (10-decode.js), and the
  // name shown of every frame.
  strings: () => ({ table: S.data.frames.strings, restart: S.data.header.front_restart, StringTable }),
  frameNames: () => Array.from({ length: S.data.frames.count }, (_, f) => frameName(f)),
  // The child of node i with the most weight in the current view (-1 for a leaf).
  widestChild(i) {
    const tot = layTotals(), end = S.view.end;
    let best = -1;
    for (let c = i + 1; c < end[i]; c = end[c]) if (best < 0 || tot[c] > tot[best]) best = c;
    return best;
  },
  zoomTo: (i) => zoomTo(i),
  search: (t) => { $('search').value = t; setSearch(t); return api.matched; },
  setColumn: (k) => setColumn(k),
  setWidthBy: (m) => setWidthBy(m),
  setColourBy: (m) => setColourBy(m),
  pixel(x, y) {
    const d = ctx.getImageData(Math.floor(x * S.dpr), Math.floor(y * S.dpr), 1, 1).data;
    return [d[0], d[1], d[2]];
  },
});
