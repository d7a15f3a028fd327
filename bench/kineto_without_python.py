#!/usr/bin/env python3
# A Kineto trace without its python_function events (most real traces have none): the input of
# the streamed-reader rows of bench/kineto_memory.sh.  Usage: kineto_without_python.py IN OUT
import json, sys
src, dst = sys.argv[1], sys.argv[2]
with open(src) as f: d = json.load(f)
d['traceEvents'] = [e for e in d['traceEvents'] if e.get('cat') != 'python_function']
with open(dst, 'w') as f:
    f.write('{"traceEvents": [\n')
    ev = d.pop('traceEvents')
    for i, e in enumerate(ev):
        f.write(json.dumps(e, separators=(', ', ': ')) + (',\n' if i + 1 < len(ev) else '\n'))
    f.write(']')
    for k, v in d.items(): f.write(', ' + json.dumps(k) + ': ' + json.dumps(v))
    f.write('}\n')
