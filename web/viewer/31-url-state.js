// ---------------------------------------------------------------- shareable state (URL fragment)
// The fragment holds what the reader is looking at (#view=sandwich&fn=aten%3A%3Amm&weight=gpu),
// so a link opens where its sender was. Every feature that has state worth sharing registers a
// key: get() returns the fragment's value, or null for the default (left out of the fragment);
// set(value) restores it. Keys are restored in `order` (filters before the zoom that depends on
// them). The page writes the fragment with replaceState: no history entry per zoom, and no
// hashchange event of its own to react to.
const SHARED = [];
function shareState(key, get, set, order = 50) {
  SHARED.push({ key, get, set, order });
  SHARED.sort((a, b) => a.order - b.order);
}
function stateFragment() {
  const parts = [];
  for (const s of SHARED) {
    const v = s.get();
    if (v !== null && v !== undefined && v !== '') parts.push(s.key + '=' + encodeURIComponent(v));
  }
  return parts.join('&');
}
let restoring = false;
// Called after any change to shared state; coalesced to one write per frame.
function noteState() {
  if (restoring || !api.ready) return;
  cancelAnimationFrame(S.stateRaf);
  S.stateRaf = requestAnimationFrame(() => {
    const frag = stateFragment();
    if (frag === location.hash.replace(/^#/, '')) return;
    // A page shown through srcdoc (the Python package's notebook display: a sandboxed iframe,
    // opaque origin, URL about:srcdoc resolving against its host's) cannot rewrite its URL:
    // it goes on without shareable state rather than failing.
    try {
      history.replaceState(null, '', frag ? '#' + frag : location.pathname + location.search);
    } catch (e) {
      if (!(e instanceof DOMException)) throw e;
    }
  });
}
function parseFragment(hash) {
  const out = new Map();
  for (const part of hash.replace(/^#/, '').split('&')) {
    if (!part) continue;
    const eq = part.indexOf('=');
    const k = eq < 0 ? part : part.slice(0, eq);
    let v = eq < 0 ? '' : part.slice(eq + 1);
    try { v = decodeURIComponent(v.replace(/\+/g, ' ')); } catch (e) { continue; }  // a mangled value is skipped, not fatal
    out.set(k, v);
  }
  return out;
}
// Restores every registered key present in the fragment; keys absent go back to their default
// only when `reset` (a hashchange: the reader pasted or followed a link).
function applyFragment(hash, reset) {
  const values = parseFragment(hash);
  restoring = true;
  try {
    for (const s of SHARED) {
      if (values.has(s.key)) s.set(values.get(s.key));
      else if (reset) s.set(null);
    }
  } finally {
    restoring = false;
  }
}
