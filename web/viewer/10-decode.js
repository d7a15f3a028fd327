// ---------------------------------------------------------------- decoding
// A big payload comes as several gzip members, each in base64 of its own, separated by '.'
// (src/flamefold/writers/html.cpp): DecompressionStream takes one member at a time.
async function inflate() {
  const parts = $('ff-data').textContent.replace(/\s+/g, '').split('.');
  const members = parts.map((text) => {
    if (typeof Uint8Array.fromBase64 === 'function') return Uint8Array.fromBase64(text);
    const bin = atob(text);
    const bytes = new Uint8Array(bin.length);
    for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
    return bytes;
  });
  // Each member ends with its inflated size (ISIZE, mod 2^32; members are far smaller): every one
  // is inflated straight into its place in one buffer, all at once. (Read from a Blob's stream
  // and gathered by a Response, then joined, the same took half as long again.)
  const sizes = members.map((b) => {
    if (b.length < 18) throw new Error('the embedded profile is damaged (a gzip member of ' + b.length + ' bytes)');
    return (b[b.length - 4] | b[b.length - 3] << 8 | b[b.length - 2] << 16 | b[b.length - 1] << 24) >>> 0;
  });
  const starts = [0];
  for (const k of sizes) starts.push(starts[starts.length - 1] + k);
  const all = new Uint8Array(starts[starts.length - 1]);
  await Promise.all(members.map(async (bytes, i) => {
    const from = starts[i], to = starts[i + 1];
    const ds = new DecompressionStream('gzip');
    const writer = ds.writable.getWriter();
    writer.write(bytes).catch(() => {});  // a failure shows in the reader
    writer.close().catch(() => {});
    const reader = ds.readable.getReader();
    let at = from;
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      if (at + value.length > to) throw new Error('the embedded profile is damaged (a member inflates past its size)');
      all.set(value, at);
      at += value.length;
    }
    if (at !== to) throw new Error('the embedded profile is damaged (a member inflates short of its size)');
  }));
  return all;
}

class Reader {
  constructor(bytes) { this.b = bytes; this.p = 0; }
  varint() {
    const b = this.b;
    let c = b[this.p++], x = c & 127, s = 128;
    while (c & 128) { c = b[this.p++]; x += (c & 127) * s; s *= 128; }
    return x;
  }
  varints(n, out, at = 0) {
    const b = this.b;
    let p = this.p;
    for (let i = at; i < n + at; i++) {
      let c = b[p++];
      if (c < 128) { out[i] = c; continue; }
      let x = c & 127, s = 128;
      do { c = b[p++]; x += (c & 127) * s; s *= 128; } while (c & 128);
      out[i] = x;
    }
    this.p = p;
    return out;
  }
  // varints() into a Uint32Array (values below 2^32). A loop of its own: V8 keeps it specialised
  // to one element type, where varints() sees several (a fifth of the decode for a million
  // nodes went to its generic element stores).
  u32(n, out, at = 0) {
    const b = this.b;
    let p = this.p;
    for (let i = at; i < n + at; i++) {
      let c = b[p++];
      if (c < 128) { out[i] = c; continue; }
      let x = c & 127, s = 128;
      do { c = b[p++]; x += (c & 127) * s; s *= 128; } while (c & 128);
      out[i] = x;
    }
    this.p = p;
    return out;
  }
  bytes(n) { const v = this.b.subarray(this.p, this.p + n); this.p += n; return v; }
}

// The payload's strings, each made when first asked for: making a million names took 0.4 s of
// the first paint, which shows a few thousand. Front-coded (src/flamefold/writers/html.cpp):
// string i is the first pairs[2i] UTF-16 units of string i - 1, then pairs[2i + 1] units of the
// blob; the first of every `restart` strings shares nothing, so a string is made from the start
// of its block, and the whole block is kept.
class StringTable {
  constructor(pairs, blob, restart) {
    const count = pairs.length / 2;
    this.count = count; this.pairs = pairs; this.blob = blob; this.restart = restart;
    this.made = new Array(count);
    this.madeCount = 0;
    this.blockAt = new Float64Array(Math.ceil(count / restart));  // where each block's units start in the blob
    let at = 0;
    for (let i = 0; i < count; i++) {
      if (i % restart === 0) {
        if (pairs[2 * i] !== 0) throw new Error('the embedded profile is damaged (string ' + i + ' starts a block but shares a prefix)');
        this.blockAt[i / restart] = at;
      }
      at += pairs[2 * i + 1];
    }
    if (at > blob.length) throw new Error('the embedded profile is damaged (its strings run ' + (at - blob.length) + ' units past their text)');
  }
  get(i) {
    const s = this.made[i];
    return s !== undefined ? s : this.makeBlock(Math.floor(i / this.restart))[i];
  }
  makeBlock(b) {
    const { pairs, blob, made } = this, to = Math.min(this.count, (b + 1) * this.restart);
    let at = this.blockAt[b], before = '';
    this.madeCount += to - b * this.restart;
    for (let i = b * this.restart; i < to; i++) {
      const shared = pairs[2 * i], len = pairs[2 * i + 1];
      before = made[i] = (shared ? before.slice(0, shared) : '') + blob.substr(at, len);
      at += len;
    }
    return made;
  }
  // Makes blocks [from, from + n); returns the next block, this.blocks once all are made.
  makeBlocks(from, n) {
    const to = Math.min(this.blockAt.length, from + n);
    for (let b = from; b < to; b++) if (this.made[b * this.restart] === undefined) this.makeBlock(b);
    return to;
  }
  get blocks() { return this.blockAt.length; }
  // Strings ids[0], ids[1], ... as an array.
  pick(ids) {
    const out = new Array(ids.length);
    for (let k = 0; k < ids.length; k++) out[k] = this.get(ids[k]);
    return out;
  }
}

function decode(bytes) {
  const r = new Reader(bytes);
  const magic = String.fromCharCode(...r.bytes(4));
  if (magic !== 'FFD1') throw new Error('unknown data format ' + magic);
  const utf8 = new TextDecoder('utf-8');
  const header = JSON.parse(utf8.decode(r.bytes(r.varint())));
  const stringCount = r.varint();
  let strings;
  if (header.front_coded) {
    const pairs = r.u32(2 * stringCount, new Uint32Array(2 * stringCount));
    strings = new StringTable(pairs, utf8.decode(r.bytes(r.varint())), header.front_restart || stringCount);
  } else {
    // As front-coded strings that share nothing, each a block of its own.
    const pairs = new Uint32Array(2 * stringCount);
    for (let i = 0; i < stringCount; i++) pairs[2 * i + 1] = r.varint();
    strings = new StringTable(pairs, utf8.decode(r.bytes(r.varint())), 1);
  }
  const F = r.varint();
  const fName = r.u32(F, new Uint32Array(F));
  for (let f = 1; f < F; f++) fName[f] += fName[f - 1];  // written as differences (frames come sorted by name)
  const fFile = r.u32(F, new Uint32Array(F));
  const fLine = r.u32(F, new Uint32Array(F));
  const fCat = new Uint16Array(r.u32(F, new Uint32Array(F)));
  for (let f = 0; f < F; f++) if (fName[f] >= stringCount || fFile[f] >= stringCount) throw new Error('the embedded profile is damaged (a frame names string ' + Math.max(fName[f], fFile[f]) + ' of ' + stringCount + ')');
  // Names by frame, made when first asked for (frameName(f), fullName(f), frameFile(f) in
  // 30-state.js); the whole array only for what reads every name (a search, the fragment's
  // function). `shown`: the names shown when the short-names or merge-modules switch changes them.
  const frames = { count: F, nameId: fName, fileId: fFile, line: fLine, cat: fCat, strings, shown: null,
    get full() { return this.allFull || (this.allFull = strings.pick(fName)); },
    get name() { return this.shown || this.full; } };
  const N = r.varint();
  const depth = new Uint32Array(N);
  const step = r.u32(N - 1, new Uint32Array(N));
  for (let i = 1; i < N; i++) depth[i] = depth[i - 1] + 1 - step[i - 1];
  const frame = new Int32Array(N);
  r.u32(N - 1, new Uint32Array(frame.buffer), 1);  // frame ids are below 2^31
  frame[0] = -1;
  const self = [];
  for (let c = 0; c < header.columns.length; c++) {
    const kind = r.bytes(1)[0];
    if (kind === 0) {
      self.push(r.varints(N, new Float64Array(N)));
    } else {
      const raw = r.bytes(N * 8);
      const copy = new Uint8Array(N * 8);
      copy.set(raw);
      self.push(new Float64Array(copy.buffer));
    }
  }
  // Optional sections (src/flamefold/writers/html.cpp, PayloadSection), by tag.
  const sections = new Map();
  while (r.p < bytes.length) {
    const tag = r.varint(), n = r.varint();
    sections.set(tag, r.bytes(n));
  }
  return { header, frames, sections, tree: makeTree(N, depth, frame, self) };
}
