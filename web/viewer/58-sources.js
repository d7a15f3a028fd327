// ---------------------------------------------------------------- source lines (--source-root)
// The payload's section 2 (src/flamefold/writers/html_sections.h): JSON with snippets of the
// source around frames' file:line, for the heaviest frames up to a bound. The tooltip shows a
// frame's snippet with its line marked; the info panel says how many frames have one and how
// many were left out by the bound. Source text reaches the page through textContent only.
const SECTION_SOURCES = 2;
const SRC = { data: undefined, byFrame: null };
function sources() {
  if (SRC.data !== undefined) return SRC.data;
  SRC.data = null;
  const bytes = S.data.sections.get(SECTION_SOURCES);
  if (!bytes) return null;
  try {
    SRC.data = JSON.parse(new TextDecoder('utf-8').decode(bytes));
  } catch (e) {
    return null;  // a damaged section costs the snippets, not the page
  }
  SRC.byFrame = new Map();
  for (const [f, k] of SRC.data.frames || []) SRC.byFrame.set(f, k);
  return SRC.data;
}
function sourceSnippet(f) {
  const d = sources();
  if (!d || !SRC.byFrame.has(f)) return null;
  const [first, text] = d.snippets[SRC.byFrame.get(f)];
  return { first, lines: text.split('\n'), at: S.data.frames.line[f] };
}
function appendSourceToTip(tip, node, f) {
  if (f < 0) return;
  const s = sourceSnippet(f);
  if (!s) return;
  const box = document.createElement('div'); box.className = 'tsrc';
  s.lines.forEach((text, k) => {
    const line = document.createElement('div');
    const n = s.first + k;
    if (n === s.at) line.className = 'at';
    const num = document.createElement('span'); num.className = 'ln'; num.textContent = String(n);
    const code = document.createElement('span'); code.className = 'code'; code.textContent = text;
    line.append(num, code);
    box.append(line);
  });
  tip.append(box);
}
HOOKS.tip.push(appendSourceToTip);
// One line in the info panel: what was embedded and what the bound left out.
function noteSources() {
  const d = sources();
  if (!d || $('info-sources')) return;
  const dt = document.createElement('dt'); dt.textContent = 'source lines';
  const dd = document.createElement('dd'); dd.id = 'info-sources';
  const n = (v) => Number(v || 0).toLocaleString('en-US');
  let text = n(d.embedded) + ' of ' + n(d.located) + ' frames with a file:line';
  if (d.cut > 0) {
    text += ' · ' + n(d.cut) + ' more found but left out: the page holds at most ' + (d.max_bytes / 1048576).toLocaleString('en-US', { maximumFractionDigits: 1 }) + ' MB' +
      ' of source and ' + n(d.max_snippets) + ' snippets, heaviest frames first';
    dd.className = 'warn';
  }
  dd.textContent = text;
  $('info').append(dt, dd);
}
HOOKS.start.push(noteSources);
Object.assign(api, {
  sources: () => { const d = sources(); return d && { located: d.located, resolved: d.resolved, embedded: d.embedded, cut: d.cut }; },
  sourceOf: (f) => sourceSnippet(f),
});
