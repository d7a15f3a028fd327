"""Reads what an HTML page written by flamefold hands its viewer: the gzip + base64 payload
(format: src/flamefold/writers/html.cpp, decoded by web/viewer/10-decode.js), as call paths with
their self weights per column. Tests compare it with what the input holds."""
import base64
import gzip
import itertools
import json
import re
import struct


class _Reader:
    def __init__(self, data):
        self.b, self.p = data, 0

    def varint(self):
        x = shift = 0
        while True:
            c = self.b[self.p]
            self.p += 1
            x |= (c & 0x7F) << shift
            shift += 7
            if not c & 0x80:
                return x

    def varints(self, n):
        return [self.varint() for _ in range(n)]

    def bytes(self, n):
        v = self.b[self.p:self.p + n]
        self.p += n
        return v


def decode(page: str):
    """{"header": ..., "paths": [tuple of frame names per node], "self": {column: [per node]},
    "categories": [per node]}, nodes in the page's depth-first order (node 0 = root, path ())."""
    m = re.search(r'<script type="application/x-flamefold\+gzip\+base64" id="ff-data">(.*?)</script>', page, re.S)
    assert m, "no payload in the page"
    # Big payloads are several gzip members, each in base64 of its own, separated by '.'.
    members = "".join(m.group(1).split()).split(".")
    r = _Reader(b"".join(gzip.decompress(base64.b64decode(part)) for part in members))
    assert r.bytes(4) == b"FFD1"
    header = json.loads(r.bytes(r.varint()).decode("utf-8"))
    count = r.varint()
    # UTF-16 code units each; big payloads are front-coded: (units shared with the string
    # before, units of its own) per string.
    front = bool(header.get("front_coded"))
    lengths = r.varints(2 * count if front else count)
    pairs = [(lengths[2 * i], lengths[2 * i + 1]) for i in range(count)] if front else [(0, n) for n in lengths]
    blob = r.bytes(r.varint()).decode("utf-8").encode("utf-16-le")
    strings, at, before = [], 0, b""
    for shared, n in pairs:
        before = before[:2 * shared] + blob[at:at + 2 * n]
        strings.append(before.decode("utf-16-le"))
        at += 2 * n
    nframes = r.varint()
    fname = list(itertools.accumulate(r.varints(nframes)))  # differences from the frame before
    r.varints(nframes)  # files
    r.varints(nframes)  # lines
    fcat = r.varints(nframes)
    n = r.varint()
    steps = r.varints(n - 1)
    frames = r.varints(n - 1)
    depth = [0] * n
    for i in range(1, n):
        depth[i] = depth[i - 1] + 1 - steps[i - 1]
    paths, cats, open_path = [()], [""], []
    for i in range(1, n):
        del open_path[depth[i] - 1:]
        open_path.append(strings[fname[frames[i - 1]]])
        paths.append(tuple(open_path))
        cats.append(header["categories"][fcat[frames[i - 1]]] if header["categories"] else "")
    selfw = {}
    for col in header["columns"]:
        kind = r.bytes(1)[0]
        if kind == 0:
            selfw[col["name"]] = [float(v) for v in r.varints(n)]
        else:
            selfw[col["name"]] = list(struct.unpack("<%dd" % n, r.bytes(8 * n)))
    return {"header": header, "paths": paths, "self": selfw, "categories": cats}
