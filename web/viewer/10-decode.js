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

function decode(bytes) {
  const r = new Reader(bytes);
  const magic = String.fromCharCode(...r.bytes(4));
  if (magic !== 'FFD1') throw new Error('unknown data format ' + magic);
  const utf8 = new TextDecoder('utf-8');
  const header = JSON.parse(utf8.decode(r.bytes(r.varint())));
  const stringCount = r.varint();
  const strings = new Array(stringCount);
  if (header.front_coded) {
    // Each string: the first shared[i] units of the one before, then len[i] units of the blob.
    const pairs = r.u32(2 * stringCount, new Uint32Array(2 * stringCount));
    const blob = utf8.decode(r.bytes(r.varint()));
    for (let i = 0, at = 0, before = ''; i < stringCount; i++) {
      const shared = pairs[2 * i], len = pairs[2 * i + 1];
      before = strings[i] = (shared ? before.slice(0, shared) : '') + blob.substr(at, len);
      at += len;
    }
  } else {
    const lengths = r.u32(stringCount, new Uint32Array(stringCount));
    const blob = utf8.decode(r.bytes(r.varint()));
    for (let i = 0, at = 0; i < stringCount; i++) { strings[i] = blob.substr(at, lengths[i]); at += lengths[i]; }
  }
  const F = r.varint();
  const fName = r.u32(F, new Uint32Array(F));
  const fFile = r.u32(F, new Uint32Array(F));
  const fLine = r.u32(F, new Uint32Array(F));
  const fCat = new Uint16Array(r.u32(F, new Uint32Array(F)));
  const frames = { count: F, name: new Array(F), file: new Array(F), line: fLine, cat: fCat };
  for (let f = 0; f < F; f++) { frames.name[f] = strings[fName[f]]; frames.file[f] = strings[fFile[f]]; }
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
