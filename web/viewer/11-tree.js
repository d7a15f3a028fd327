// ---------------------------------------------------------------- the tree
// depth/frame/self in depth-first order -> parent, end (one past the subtree), maxDepth.
function makeTree(N, depth, frame, self) {
  const parent = new Int32Array(N), end = new Uint32Array(N);
  let maxDepth = 0;
  for (let i = 0; i < N; i++) if (depth[i] > maxDepth) maxDepth = depth[i];
  const open = new Uint32Array(maxDepth + 2);
  let top = -1;
  for (let i = 0; i < N; i++) {
    const d = depth[i];
    while (top >= d) end[open[top--]] = i;
    parent[i] = d > 0 ? open[d - 1] : -1;
    open[++top] = i;
  }
  while (top >= 0) end[open[top--]] = N;
  return { N, depth, frame, self, parent, end, maxDepth, totals: [] };
}

function totals(tree, c) {
  if (!tree.totals[c]) {
    const t = Float64Array.from(tree.self[c]), p = tree.parent;
    for (let i = tree.N - 1; i > 0; i--) t[p[i]] += t[i];
    tree.totals[c] = t;
  }
  return tree.totals[c];
}

// The tree with excluded group subtrees left out and, when merging, the group levels
// dropped and identical stacks merged (children stay in frame-id order = name order).
// `map` (optional, N entries): filled with each base node's node in the result (-1: left out;
// a dropped group level: the node its weight went to).
function deriveTree(base, excluded, merge, isGroupNode, map = null) {
  const { N, depth, frame, self, end, parent } = base;
  const C = self.length;
  if (map) map.fill(-1);
  if (!merge) {
    let n = 0;
    const keep = new Uint32Array(N);
    for (let i = 0; i < N;) {
      if (excluded[i]) { i = end[i]; continue; }
      keep[n++] = i++;
    }
    const d2 = new Uint32Array(n), f2 = new Int32Array(n), s2 = [];
    for (let k = 0; k < n; k++) { d2[k] = depth[keep[k]]; f2[k] = frame[keep[k]]; }
    if (map) for (let k = 0; k < n; k++) map[keep[k]] = k;
    for (let c = 0; c < C; c++) {
      const s = new Float64Array(n), src = self[c];
      for (let k = 0; k < n; k++) s[k] = src[keep[k]];
      s2.push(s);
    }
    return makeTree(n, d2, f2, s2);
  }
  // Merge, straight into depth-first order: a stack entry is a run of base nodes with the
  // same frame under the same merged parent (one merged node). Its children are the base
  // children of the whole run (group nodes expanded in place), sorted by frame, then cut
  // into runs again. Every base node lands in `pool` exactly once, so N slots suffice.
  const pool = new Int32Array(N + 1), runStart = new Int32Array(N + 1), runLen = new Int32Array(N + 1), runDepth = new Int32Array(N + 1);
  const d2 = new Uint32Array(N), f2 = new Int32Array(N), s2 = [];
  for (let c = 0; c < C; c++) s2.push(new Float64Array(N));
  let top = 0, sp = 0, n = 0, expanded = false;
  const gather = (b, o) => {
    for (let c = b + 1, e = end[b]; c < e; c = end[c]) {
      if (excluded[c]) continue;
      if (isGroupNode[c]) {
        expanded = true;
        for (let k = 0; k < C; k++) s2[k][o] += self[k][c];  // a group's own weight stays with its parent
        if (map) map[c] = o;
        gather(c, o);
      } else {
        pool[top++] = c;
      }
    }
  };
  const byFrame = (a, b) => (frame[a] - frame[b]) || (a - b);
  pool[top++] = 0;
  runStart[sp] = 0; runLen[sp] = 1; runDepth[sp] = 0; sp++;
  while (sp) {
    sp--;
    const r0 = runStart[sp], len = runLen[sp], d = runDepth[sp], o = n++;
    d2[o] = d;
    f2[o] = o === 0 ? -1 : frame[pool[r0]];
    for (let k = r0; k < r0 + len; k++) for (let c = 0; c < C; c++) s2[c][o] += self[c][pool[k]];
    if (map) for (let k = r0; k < r0 + len; k++) map[pool[k]] = o;
    const g0 = top;
    expanded = false;
    for (let k = r0; k < r0 + len; k++) gather(pool[k], o);
    const g1 = top;
    if (len > 1 || expanded) {
      if (g1 - g0 <= 32) {
        for (let i = g0 + 1; i < g1; i++) {
          const v = pool[i];
          let j = i - 1;
          while (j >= g0 && byFrame(pool[j], v) > 0) { pool[j + 1] = pool[j]; j--; }
          pool[j + 1] = v;
        }
      } else {
        pool.set(Array.from(pool.subarray(g0, g1)).sort(byFrame), g0);
      }
    }
    // Runs of equal frames become merged children, pushed last-first.
    for (let j = g1; j > g0;) {
      let i = j - 1;
      const fr = frame[pool[i]];
      while (i > g0 && frame[pool[i - 1]] === fr) i--;
      runStart[sp] = i; runLen[sp] = j - i; runDepth[sp] = d + 1; sp++;
      j = i;
    }
  }
  return makeTree(n, d2.slice(0, n), f2.slice(0, n), s2.map((col) => col.slice(0, n)));
}
