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
    const path = [];
    for (let a = i; a >= 0; a = S.view.parent[a]) path.push(a);
    const tot = layTotals(), z = S.zoom;
    if (!path.includes(z)) return { node: i, visible: false };
    const scale = S.width / tot[z];
    let x = 0;
    for (let k = path.indexOf(z) - 1; k >= 0; k--) {
      const n = path[k], p = path[k + 1];
      for (let c = p + 1; c < n; c = S.view.end[c]) x += tot[c] * scale;
    }
    const d = S.view.depth[i];
    const box = { node: i, x, w: i === z || path.indexOf(z) < 0 ? S.width : tot[i] * scale, y: rowY(d), h: ROW, depth: d,
      total: tot[i], self: S.view.self[S.col][i], visible: true };
    if (S.diff) {
      const dc = diffColours();
      Object.assign(box, { after: totals(S.view, S.col)[i], before: beforeTotals(S.view, S.col)[i],
        delta: dc.delta[i], status: dc.status[i] === NEW ? 'new' : dc.status[i] === GONE ? 'gone' : '' });
    }
    return box;
  },
  hitTest: (x, y) => hitTest(x, y),
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
