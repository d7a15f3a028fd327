#!/usr/bin/env python3
"""Inputs for the --source-root benchmark (bench/viewer_ml.sh):
  tree DIR      a source tree for the Python-looking frames of html_gen_folded.py
                (torch/nn/modules/module.py ...: 900 lines of ~250 characters of made-up code
                each), so that ~4,000 distinct frames resolve, more source (~4.7 MB in the snippets) than the
                4 MB bound holds;
  stdlib FILE   a script whose cProfile run touches a good part of CPython's standard library
                (its frames' files resolve under /usr/lib/python3.X)."""
import os
import random
import sys

MODULES = ["torch/nn/modules/module", "model/attention", "model/mlp", "data/loader", "utils/io",
           "numpy/core/multiarray", "runtime/executor"]

STDLIB_WORK = r'''
import difflib, email, email.parser, json, pydoc, re, textwrap, tokenize, io, argparse, statistics
import xml.dom.minidom, html.parser, csv, decimal, fractions, inspect, ast, dataclasses
text = "\n".join("line %d: the quick brown fox %s" % (i, "jumps" * (i % 7)) for i in range(3000))
difflib.unified_diff(text.splitlines(), text.upper().splitlines())
list(difflib.unified_diff(text.splitlines()[:800], text.replace("fox", "cat").splitlines()[:800]))
json.loads(json.dumps([{"k": i, "v": [i] * 5} for i in range(20000)]))
msg = email.parser.Parser().parsestr("From: a@b\nTo: c@d\nSubject: hi\n\n" + text)
for mod in (json, re, difflib, textwrap, statistics, argparse, csv):
    pydoc.render_doc(mod, renderer=pydoc.plaintext)
list(tokenize.generate_tokens(io.StringIO(open(inspect.getsourcefile(difflib)).read()).readline))
ast.parse(open(inspect.getsourcefile(argparse)).read())
xml.dom.minidom.parseString("<a>" + "<b x='1'>t</b>" * 5000 + "</a>").toxml()
statistics.median([decimal.Decimal(i) / 7 for i in range(20000)])
'''

def main():
    kind, out = sys.argv[1], sys.argv[2]
    if kind == "tree":
        rng = random.Random(13)
        word = lambda: "".join(rng.choice("abcdefghijklmnopqrstuvwxyz_") for _ in range(rng.randint(4, 12)))
        for m in MODULES:
            path = os.path.join(out, m + ".py")
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "w") as f:
                for i in range(1, 901):
                    args = ", ".join(word() for _ in range(16))
                    f.write(f"    {word()}_{i} = {word()}.{word()}({args})  # {word()} {word()}\n")
    elif kind == "stdlib":
        with open(out, "w") as f:
            f.write(STDLIB_WORK)
    else:
        sys.exit("usage: sources_gen.py tree DIR | stdlib FILE")

main()
