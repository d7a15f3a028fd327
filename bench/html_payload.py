#!/usr/bin/env python3
"""Prints the payload of flamefold HTML pages: its gzip members joined and inflated, as the
viewer reads them. Pages whose member boundaries differ (a payload split on two threads, say)
then compare by what they hold.

  bench/html_payload.py PAGE.html ...   ->  one line per page: members, bytes, md5 of the payload
"""
import base64
import gzip
import hashlib
import re
import sys

for path in sys.argv[1:]:
    page = open(path, encoding='utf-8').read()
    m = re.search(r'<script type="application/x-flamefold\+gzip\+base64" id="ff-data">(.*?)</script>', page, re.S)
    if not m:
        sys.exit(f"{path}: no flamefold payload")
    members = ''.join(m.group(1).split()).split('.')
    raw = b''.join(gzip.decompress(base64.b64decode(p)) for p in members)
    print(f"{path}: {len(members)} members, {len(raw)} bytes, md5 {hashlib.md5(raw).hexdigest()}")
