#!/usr/bin/python3
"""Writes the fuzzers' seed corpus: small, valid inputs of every variant each reader knows, so
the fuzzers start from files that reach deep into the readers instead of from nothing.

    fuzz/make_corpus.py OUT_DIR [SHARED_DATA_DIR]

OUT_DIR/<target>/ gets the seeds of fuzz target fuzz_<target>. With SHARED_DATA_DIR (the
project's ../shared/data), its files up to 256 KB are added to the targets of their format.
Debian's /usr/bin/python3 and its standard library only (sqlite3, cProfile, gzip).
"""
import cProfile
import gzip
import json
import os
import pathlib
import random
import re
import sqlite3
import sys

OUT = pathlib.Path(sys.argv[1])
SHARED = pathlib.Path(sys.argv[2]) if len(sys.argv) > 2 else None
ROOT = pathlib.Path(__file__).resolve().parent.parent
rnd = random.Random(13)


def put(target, name, data, sniffed=None):
    d = OUT / target
    d.mkdir(parents=True, exist_ok=True)
    (d / name).write_bytes(data if isinstance(data, bytes) else data.encode())
    # Every seed also seeds the target that has to sniff the format (`sniffed`: the file itself,
    # when the seed carries a selector byte).
    if target not in ('sniffed', 'gpu_cpu_merge', 'sqlite_pages'):
        data = data if sniffed is None else sniffed
        (OUT / 'sniffed').mkdir(parents=True, exist_ok=True)
        (OUT / 'sniffed' / (target + '-' + name)).write_bytes(data if isinstance(data, bytes) else data.encode())


# ------------------------------------------------------------------ folded stacks
put('folded', 'plain.folded', 'main;run;compute;matmul 40\nmain;run;io;read 15\nmain;init 5\nmain;run 20\n')
put('folded', 'cpython.folded', 'tid:101;main.py:main:1;model.py:forward:10;layers.py:linear:20 30\n'
    'tid:202;threading.py:run:900;queue.py:get:150 30\n')
put('folded', 'differential.folded', 'main;a 10 12\nmain;b 5 0\nmain;c 0 7.5\n')
put('folded', 'odd.folded', '# comment\r\n\r\nmain;x 1.5\r\nmain;x 2\n  main ; spaced 3\nno-count-line\nmain;0x7f00aa 4\n'
    'main;[unknown];libc.so.6`memcpy 9\nmain;caf\xc3\xa9;\xff\xfe 2\n')
put('folded', 'unsorted.folded', ''.join(f'{";".join(rnd.choice("abcdefg") for _ in range(rnd.randint(1, 9)))} {rnd.randint(1, 99)}\n'
                                         for _ in range(300)))

# ------------------------------------------------------------------ perf script
perf = (ROOT / 'examples' / 'python-perf.txt').read_text().splitlines(keepends=True)
put('perf', 'python-perf.txt', ''.join(perf[:400]))
put('perf', 'events.txt',
    'app 12/13 [001] 1.000001: 250000 cycles:u: \n\t400123 main+0x10 (/usr/bin/app)\n\t400100 _start (/usr/bin/app)\n\n'
    'app 12/14 [002] 1.000002:     1 sched:sched_switch: prev_comm=app prev_pid=14\n\tffffffff81000000 __schedule ([kernel.kallsyms])\n\n'
    'java 20 1.5: cpu-clock: \n\t7f00 Interpreter (/tmp/perf-20.map)\n\t7f01 LFoo;::bar (/tmp/perf-20.map)\n\n'
    'noframes 30/30 2.0: 1 cpu-clock:\n\n')

# ------------------------------------------------------------------ Kineto / Chrome trace JSON


def kineto_trace(steps=2, with_python=True, with_gpu=True):
    ev = [{"ph": "M", "name": "process_name", "pid": 1, "args": {"name": "python"}},
          {"ph": "M", "name": "thread_name", "pid": 1, "tid": 1, "args": {"name": "main"}}]
    t, corr, pyid = 1000, 1, 1
    for s in range(steps):
        ev.append({"ph": "X", "cat": "user_annotation", "name": f"ProfilerStep#{s}", "pid": 1, "tid": 1, "ts": t, "dur": 900})
        if with_python:
            ev.append({"ph": "X", "cat": "python_function", "name": "train.py(10): step", "pid": 1, "tid": 1, "ts": t + 1,
                       "dur": 800, "args": {"Python id": pyid, "Python parent id": None}})
            ev.append({"ph": "X", "cat": "python_function", "name": "nn.Module: Linear_0", "pid": 1, "tid": 1, "ts": t + 2,
                       "dur": 700, "args": {"Python id": pyid + 1, "Python parent id": pyid}})
            pyid += 2
        ev.append({"ph": "X", "cat": "cpu_op", "name": "aten::linear", "pid": 1, "tid": 1, "ts": t + 5, "dur": 600,
                   "args": {"External id": corr, "Input Dims": [[8, 16]], "Sequence number": s}})
        if with_gpu:
            ev.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": t + 10, "dur": 5,
                       "args": {"correlation": corr, "External id": corr}})
            ev.append({"ph": "X", "cat": "kernel", "name": "void gemm<float, 128>(float*, int)", "pid": 0, "tid": 7, "ts": t + 20,
                       "dur": 300, "args": {"correlation": corr, "device": 0, "stream": 7, "External id": corr}})
            ev.append({"ph": "s", "id": corr, "pid": 1, "tid": 1, "ts": t + 10, "cat": "ac2g", "name": "ac2g"})
            ev.append({"ph": "f", "id": corr, "pid": 0, "tid": 7, "ts": t + 20, "cat": "ac2g", "name": "ac2g", "bp": "e"})
            ev.append({"ph": "X", "cat": "gpu_memcpy", "name": "Memcpy HtoD (Pageable -> Device)", "pid": 0, "tid": 7,
                       "ts": t + 400, "dur": 20, "args": {"correlation": corr + 1000}})
        ev.append({"ph": "i", "s": "t", "name": "mark", "pid": 1, "tid": 1, "ts": t + 50})
        t += 1000
        corr += 1
    return ev


k = kineto_trace()
put('kineto', 'kineto.json', json.dumps({"schemaVersion": 1, "distributedInfo": {"rank": 0, "world_size": 2},
                                         "deviceProperties": [{"id": 0, "name": "A100"}], "traceEvents": k,
                                         "displayTimeUnit": "ms", "baseTimeNanoseconds": 1700000000000000000}))
put('kineto', 'array.json', json.dumps(kineto_trace(1, with_python=False, with_gpu=False)))
put('kineto', 'torch113.json', json.dumps([{"name": "aten::add", "ph": "X", "ts": 10.5, "dur": 3.25, "tid": 1, "pid": "CPU functions",
                                            "args": {}}, {"name": "aten::mul", "ph": "X", "ts": 11, "dur": 1, "tid": 1,
                                                          "pid": "CPU functions", "args": {}}]))
put('kineto', 'begin-end.json', json.dumps({"traceEvents": [
    {"ph": "B", "name": "outer", "pid": 2, "tid": 3, "ts": 1}, {"ph": "B", "name": "inner", "pid": 2, "tid": 3, "ts": 2},
    {"ph": "E", "pid": 2, "tid": 3, "ts": 5}, {"ph": "E", "pid": 2, "tid": 3, "ts": 9},
    {"ph": "X", "name": "negative", "pid": 2, "tid": 3, "ts": 20, "dur": -4},
    {"ph": "C", "name": "memory", "pid": 2, "ts": 3, "args": {"bytes": 100}}]}))
put('kineto', 'kineto.json.gz', gzip.compress(json.dumps({"traceEvents": k}).encode(), mtime=0))
put('kineto', 'truncated.json', json.dumps({"traceEvents": k})[:-40])

# ------------------------------------------------------------------ speedscope, .cpuprofile, gecko
schema = "https://www.speedscope.app/file-format-schema.json"
put('speedscope', 'sampled.speedscope.json', json.dumps({
    "$schema": schema, "version": "0.6.0", "name": "py-spy",
    "shared": {"frames": [{"name": "main", "file": "app.py", "line": 1}, {"name": "work", "file": "app.py", "line": 9},
                          {"name": "(idle)"}]},
    "profiles": [{"type": "sampled", "name": "MainThread", "unit": "seconds", "startValue": 0, "endValue": 3,
                  "samples": [[0, 1], [0, 1], [0], [2]], "weights": [0.01, 0.01, 0.02, 0.5]},
                 {"type": "evented", "name": "worker", "unit": "milliseconds", "startValue": 0, "endValue": 10,
                  "events": [{"type": "O", "frame": 0, "at": 0}, {"type": "O", "frame": 1, "at": 2},
                             {"type": "C", "frame": 1, "at": 5}, {"type": "C", "frame": 0, "at": 9}]}]}))
put('cpuprofile', 'node.cpuprofile', json.dumps({
    "nodes": [{"id": 1, "callFrame": {"functionName": "(root)", "scriptId": "0", "url": "", "lineNumber": -1, "columnNumber": -1},
               "hitCount": 0, "children": [2, 4]},
              {"id": 2, "callFrame": {"functionName": "main", "scriptId": "1", "url": "file:///app.js", "lineNumber": 3, "columnNumber": 2},
               "hitCount": 2, "children": [3]},
              {"id": 3, "callFrame": {"functionName": "work", "scriptId": "1", "url": "file:///app.js", "lineNumber": 9, "columnNumber": 0},
               "hitCount": 5},
              {"id": 4, "callFrame": {"functionName": "(garbage collector)", "scriptId": "0", "url": "", "lineNumber": -1,
                                      "columnNumber": -1}, "hitCount": 1}],
    "startTime": 1000, "endTime": 9000, "samples": [2, 3, 3, 3, 4, 3, 3, 2], "timeDeltas": [100, 1000, 1000, 1000, 1000, 1000, 1000, 1000]}))
put('cpuprofile', 'devtools-trace.json', json.dumps({"traceEvents": [
    {"ph": "M", "name": "thread_name", "pid": 5, "tid": 7, "args": {"name": "CrRendererMain"}},
    {"ph": "P", "name": "Profile", "cat": "disabled-by-default-v8.cpu_profiler", "id": "0x1", "pid": 5, "tid": 7, "ts": 100,
     "args": {"data": {"startTime": 100}}},
    {"ph": "P", "name": "ProfileChunk", "cat": "disabled-by-default-v8.cpu_profiler", "id": "0x1", "pid": 5, "tid": 7, "ts": 200,
     "args": {"data": {"cpuProfile": {"nodes": [{"id": 1, "callFrame": {"functionName": "(root)", "scriptId": 0}},
                                                {"id": 2, "parent": 1, "callFrame": {"functionName": "onClick", "scriptId": 3,
                                                                                     "url": "https://x/app.js", "lineNumber": 4}}],
                                      "samples": [2, 2, 1]}, "timeDeltas": [10, 20, 30]}}},
    {"ph": "X", "cat": "devtools.timeline,toplevel", "name": "RunTask", "pid": 5, "tid": 7, "ts": 100, "dur": 300}]}))
put('gecko', 'tachyon.json', json.dumps({
    "meta": {"interval": 1.0, "startTime": 0, "version": 32, "preprocessedProfileVersion": 57, "product": "Python",
             "categories": [{"name": "Other", "color": "grey", "subcategories": ["Other"]}]},
    "libs": [], "shared": {"stringArray": ["(root)", "<module>", "work", "app.py"]},
    "threads": [{"name": "MainThread", "pid": "42", "tid": 1, "processType": "default",
                 "samples": {"stack": [1, 2, 2, None], "time": [0.0, 1.0, 2.0, 3.0], "weight": None, "weightType": "samples", "length": 4},
                 "stackTable": {"frame": [0, 1, 2], "prefix": [None, 0, 1], "category": [0, 0, 0], "subcategory": [0, 0, 0], "length": 3},
                 "frameTable": {"func": [0, 1, 2], "line": [None, 10, 20], "category": [0, 0, 0], "address": [-1, -1, -1], "length": 3},
                 "funcTable": {"name": [0, 1, 2], "fileName": [None, 3, 3], "lineNumber": [None, 1, 15], "resource": [-1, -1, -1],
                               "isJS": [False, True, True], "length": 3}}]}))
put('gecko', 'firefox.json', json.dumps({"meta": {"version": 12, "interval": 1, "startTime": 0, "processType": 0},
    "libs": [], "processes": [], "threads": [{"name": "GeckoMain", "pid": 1, "tid": 1, "processType": "default",
    "samples": {"schema": {"stack": 0, "time": 1}, "data": [[1, 0.5], [1, 1.5], [0, 2.5]]},
    "stackTable": {"schema": {"prefix": 0, "frame": 1}, "data": [[None, 0], [0, 1]]},
    "frameTable": {"schema": {"location": 0, "line": 1}, "data": [[0], [1, 7]]},
    "stringTable": ["(root)", "alpha (http://localhost/simple.js:1:14)"]}]}))

# ------------------------------------------------------------------ SQLite databases


def sqlite_db(sql):
    path = OUT / 'tmp.sqlite'
    if path.exists():
        path.unlink()
    con = sqlite3.connect(path)
    con.executescript(sql)
    con.commit()
    con.close()
    data = path.read_bytes()
    path.unlink()
    return data


def gtid(pid, tid):
    return (1 << 48) | (pid << 24) | tid


g, gp = gtid(100, 100), gtid(100, 0)
nsys = sqlite_db(f'''
PRAGMA page_size=1024;
CREATE TABLE StringIds(id INTEGER PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE ThreadNames(nameId INTEGER, priority INTEGER, globalTid INTEGER);
CREATE TABLE PROCESSES(globalPid INTEGER, pid INTEGER, name TEXT);
CREATE TABLE TARGET_INFO_GPU(vmId INTEGER, id INTEGER, name TEXT, busLocation TEXT, isDiscrete INTEGER);
CREATE TABLE META_DATA_EXPORT(name TEXT, value TEXT);
CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL(start INTEGER NOT NULL, end INTEGER NOT NULL, deviceId INTEGER, contextId INTEGER,
  greenContextId INTEGER, streamId INTEGER, correlationId INTEGER, globalPid INTEGER, demangledName INTEGER,
  shortName INTEGER, mangledName INTEGER, launchType INTEGER, gridX INTEGER);
CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME(start INTEGER, end INTEGER, eventClass INTEGER, globalTid INTEGER,
  correlationId INTEGER, nameId INTEGER, returnValue INTEGER, callchainId INTEGER);
CREATE TABLE CUPTI_ACTIVITY_KIND_MEMCPY(start INTEGER, end INTEGER, deviceId INTEGER, contextId INTEGER,
  greenContextId INTEGER, streamId INTEGER, correlationId INTEGER, globalPid INTEGER, bytes INTEGER, copyKind INTEGER);
CREATE TABLE CUPTI_ACTIVITY_KIND_MEMSET(start INTEGER, end INTEGER, deviceId INTEGER, contextId INTEGER,
  streamId INTEGER, correlationId INTEGER, globalPid INTEGER, value INTEGER, bytes INTEGER, memKind INTEGER);
CREATE TABLE NVTX_EVENTS(start INTEGER NOT NULL, end INTEGER, eventType INTEGER NOT NULL, rangeId INTEGER,
  category INTEGER, color INTEGER, text TEXT, globalTid INTEGER, endGlobalTid INTEGER, textId INTEGER,
  domainId INTEGER, uint64Value INTEGER, int64Value INTEGER, doubleValue REAL, uint32Value INTEGER,
  int32Value INTEGER, floatValue REAL, jsonTextId INTEGER, jsonText TEXT, binaryData TEXT);
CREATE TABLE CUDA_CALLCHAINS(id INTEGER, symbol INTEGER, module INTEGER, unresolved INTEGER, originalIP INTEGER, stackDepth INTEGER);
INSERT INTO StringIds VALUES (0,'[Unknown]'),(1,'cudaLaunchKernel_v7000'),(2,'gemm'),(3,'relu'),
  (4,'void gemm<float>(...)'),(5,'python3'),(6,'cudaMemcpyAsync_v3020'),(7,'registered fwd'),(8,'cuMemsetD8_v2'),
  (9,'main'),(10,'libcudart.so');
INSERT INTO ThreadNames VALUES (5, 0, {g});
INSERT INTO PROCESSES VALUES ({gp}, 100, 'python3 train.py');
INSERT INTO TARGET_INFO_GPU VALUES (0, 0, 'NVIDIA A100', '0000:01:00.0', 1);
INSERT INTO META_DATA_EXPORT VALUES ('EXPORT_PRODUCT_VERSION','2024.5.1'),('EXPORT_SCHEMA_VERSION','3.13.2');
INSERT INTO NVTX_EVENTS(start,end,eventType,text,globalTid,domainId) VALUES (1000, 9000, 59, 'step', {g}, 0);
INSERT INTO NVTX_EVENTS(start,end,eventType,textId,globalTid,domainId) VALUES (1500, 5000, 59, 7, {g}, 0);
INSERT INTO NVTX_EVENTS(start,end,eventType,text,globalTid,domainId) VALUES (500, NULL, 75, 'mydomain', {g}, 3);
INSERT INTO NVTX_EVENTS(start,end,eventType,text,globalTid,domainId) VALUES (2000, 7000, 60, 'async', {g}, 0);
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (2000, 2100, 0, {g}, 11, 1, 0, 7);
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (3000, 3100, 0, {g}, 12, 1, 0, NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (6500, 6600, 0, {g}, 13, 6, 0, NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (7000, 7050, 1, {g}, 14, 8, 0, NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (2200, 2700, 0, 1, NULL, 7, 11, {gp}, 4, 2, NULL, 1, 1);
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (3300, 4100, 0, 1, NULL, 7, 12, {gp}, 4, 3, NULL, 1, 1);
INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY VALUES (6700, 6900, 0, 1, NULL, 13, 13, {gp}, 4096, 1);
INSERT INTO CUPTI_ACTIVITY_KIND_MEMSET VALUES (7100, 7200, 0, 1, 13, 14, {gp}, 0, 64, 2);
INSERT INTO CUDA_CALLCHAINS VALUES (7, 10, 10, 0, 0, 0), (7, 9, 5, 0, 0, 1);
''')
put('nsys', 'nsys.sqlite', nsys)

ascend = sqlite_db('''
PRAGMA page_size=1024;
CREATE TABLE STRING_IDS(id INTEGER PRIMARY KEY, value TEXT);
CREATE TABLE PYTORCH_API(startNs TEXT, endNs TEXT, globalTid INTEGER, connectionId INTEGER, name INTEGER,
  sequenceNumber INTEGER, fwdThreadId INTEGER, inputDtypes INTEGER, inputShapes INTEGER, callchainId INTEGER, type INTEGER);
CREATE TABLE CONNECTION_IDS(id INTEGER, connectionId INTEGER);
CREATE TABLE CANN_API(startNs INTEGER, endNs INTEGER, type INTEGER, globalTid INTEGER, connectionId INTEGER, name INTEGER);
CREATE TABLE TASK(startNs INTEGER, endNs INTEGER, deviceId INTEGER, connectionId INTEGER, globalTaskId INTEGER,
  globalPid INTEGER, taskType INTEGER, contextId INTEGER, streamId INTEGER, taskId INTEGER, modelId INTEGER);
CREATE TABLE COMPUTE_TASK_INFO(name INTEGER, globalTaskId INTEGER, blockDim INTEGER, mixBlockDim INTEGER, taskType INTEGER,
  opType INTEGER);
CREATE TABLE PYTORCH_CALLCHAINS(id INTEGER, stack INTEGER, stackDepth INTEGER);
INSERT INTO STRING_IDS VALUES (1, 'MatMulV2'), (2, 'KERNEL_AICORE'), (3, 'aclnnMatmul'), (4, 'EVENT_RECORD'),
  (268435456, 'train'), (268435457, 'aten::linear'), (268435458, 'ProfilerStep#1'), (268435459, 'overlap.py'),
  (536870912, 'main.py(10): main'), (536870913, 'model.py(42): forward');
INSERT INTO PYTORCH_API VALUES ('1000', '10000', 30064771142, NULL, 268435456, NULL, NULL, NULL, NULL, NULL, 50003);
INSERT INTO PYTORCH_API VALUES ('2000', '5000', 30064771142, 5, 268435457, NULL, NULL, NULL, NULL, 0, 50001);
INSERT INTO PYTORCH_API VALUES ('0', '20000', 30064771142, NULL, 268435458, NULL, NULL, NULL, NULL, NULL, 50001);
INSERT INTO PYTORCH_API VALUES ('4500', '6000', 30064771142, NULL, 268435459, NULL, NULL, NULL, NULL, NULL, 50003);
INSERT INTO PYTORCH_API VALUES ('100', '400', 30064771143, NULL, 268435457, NULL, NULL, NULL, NULL, NULL, 50001);
INSERT INTO CONNECTION_IDS VALUES (5, 900), (5, 901);
INSERT INTO CANN_API VALUES (2500, 4000, 20000, 30064771142, 900, 3);
INSERT INTO CANN_API VALUES (150, 300, 20000, 30064771143, 950, 3);
INSERT INTO TASK VALUES (3000, 3500, 0, 900, 1, 7, 2, 0, 4, 1, 0);
INSERT INTO TASK VALUES (3600, 3700, 0, 901, 2, 7, 4, 0, 4, 2, 0);
INSERT INTO TASK VALUES (200, 260, 0, 950, 3, 7, 2, 0, 5, 3, 0);
INSERT INTO COMPUTE_TASK_INFO VALUES (1, 1, 8, 0, 2, 1), (1, 3, 8, 0, 2, 1);
INSERT INTO PYTORCH_CALLCHAINS VALUES (0, 536870913, 0), (0, 536870912, 1);
''')
put('ascend', 'ascend_pytorch_profiler_0.db', ascend)
msprof = sqlite_db('''
PRAGMA page_size=512;
CREATE TABLE STRING_IDS(id INTEGER, value TEXT);
CREATE TABLE API(start TEXT, end TEXT, level INTEGER, globalTid INTEGER, connectionId INTEGER, name INTEGER);
CREATE TABLE TASK(start TEXT, end TEXT, deviceId INTEGER, connectionId INTEGER, correlationId INTEGER, globalPid INTEGER,
  taskType INTEGER, contextId INTEGER, streamId INTEGER, taskId INTEGER, modelId INTEGER);
CREATE TABLE COMPUTE_TASK_INFO(name INTEGER, correlationId INTEGER, block_dim INTEGER);
INSERT INTO STRING_IDS VALUES (1, 'aclnnAdd'), (2, 'Add'), (3, 'KERNEL');
INSERT INTO API VALUES ('1000', '2000', 20000, 5, 8, 1);
INSERT INTO API VALUES ('1.23282223627722e+17', '1.23282223627841e+17', 20000, 5, 9, 1);
INSERT INTO TASK VALUES ('1500', '1800', 0, 8, 77, 1, 3, 0, 2, 1, 0);
INSERT INTO COMPUTE_TASK_INFO VALUES (2, 77, 4);
''')
put('ascend', 'report_0.db', msprof)

# The page reader: every serial type, overflow pages, a three-level tree, a WITHOUT ROWID table.
rows = []
for i in range(400):
    rows.append(f"({i}, {rnd.randint(-2**63, 2**63 - 1)}, {rnd.choice([0, 1, 127, 128, 32767, 2**31, 2**47, -1])}, "
                f"{rnd.random() * 1e6!r}, '{'x' * rnd.choice([0, 1, 50, 1500])}', x'{os.urandom(rnd.choice([0, 3, 900])).hex()}', NULL)")
types = sqlite_db('PRAGMA page_size=512;\nCREATE TABLE t(id INTEGER PRIMARY KEY, big INTEGER, small INTEGER, r REAL, s TEXT, b BLOB, n);\n'
                  'INSERT INTO t VALUES ' + ',\n'.join(rows) + ';\n'
                  'CREATE TABLE w(k TEXT PRIMARY KEY, v) WITHOUT ROWID; INSERT INTO w VALUES (\'a\', 1), (\'b\', 2.5);\n'
                  'CREATE TABLE later(a); INSERT INTO later VALUES (1); ALTER TABLE later ADD COLUMN b DEFAULT 7;\n')
put('sqlite_pages', 'types.sqlite', types)
put('sqlite_pages', 'nsys.sqlite', nsys)
put('sqlite_pages', 'ascend.db', ascend)
put('sqlite_pages', 'msprof.db', msprof)

# ------------------------------------------------------------------ pstats (a real cProfile dump)


def work(n):
    return sum(i * i for i in range(n)) + (work(n // 2) if n > 10 else 0)


prof = cProfile.Profile()
prof.enable()
for _ in range(3):
    work(200)
sorted([3, 1, 2])
prof.disable()
prof.dump_stats(str(OUT / 'tmp.prof'))
put('pstats', 'cprofile.prof', (OUT / 'tmp.prof').read_bytes())
(OUT / 'tmp.prof').unlink()

# ------------------------------------------------------------------ the stack formats other tools collapse
# The inputs of the parity tests (tests/stack_fixtures.h: {"name", Format::X, perl, inferno,
# R"FIX(input)FIX", R"FIX(expected)FIX"}); the first byte picks the reader (targets.h, kStackFormats).
STACK_FORMATS = ['Dtrace', 'Stap', 'Sample', 'Xctrace', 'Vtune', 'Vsprof', 'Ghcprof', 'Bpftrace', 'GoPprofText', 'Jstack']
fixtures = (ROOT / 'tests' / 'stack_fixtures.h').read_text()
for m in re.finditer(r'\{"([^"]+)", flamefold::Format::(\w+),[^{]*?R"FIX\((.*?)\)FIX"', fixtures, re.S):
    name, fmt, text = m.groups()
    put('stacks', name, bytes([STACK_FORMATS.index(fmt)]) + text.encode(), sniffed=text)


# ------------------------------------------------------------------ pprof (profile.proto, by hand)
def varint(n):
    out = bytearray()
    while True:
        b = n & 0x7f
        n >>= 7
        out.append(b | (0x80 if n else 0))
        if not n:
            return bytes(out)


def field(number, value):  # a varint (int) or length-delimited (bytes) field
    if isinstance(value, int):
        return varint(number << 3) + varint(value)
    return varint(number << 3 | 2) + varint(len(value)) + value


def packed(number, values):
    return field(number, b''.join(varint(v) for v in values))


strings = ['', 'samples', 'count', 'cpu', 'nanoseconds', 'main', 'run', 'compute', 'app.go', 'thread', 'worker', '/bin/app']
profile = b''.join(field(1, field(1, 1) + field(2, 2)) for _ in range(1))  # sample_type samples/count
profile += field(1, field(1, 3) + field(2, 4))  # cpu/nanoseconds
for loc_ids, values, label in (([3, 2, 1], [4, 4000], None), ([2, 1], [1, 1000], (9, 10)), ([4, 1], [2, 250], None), ([5, 1], [1, 50], None)):
    s = packed(1, loc_ids) + packed(2, values)
    if label:
        s += field(3, field(1, label[0]) + field(2, label[1]))  # a string label: thread=worker
    profile += field(2, s)
profile += field(3, field(1, 1) + field(2, 0x400000) + field(3, 0x500000) + field(5, 11) + field(7, 1))  # mapping
for fid, name in ((1, 5), (2, 6), (3, 7)):
    profile += field(5, field(1, fid) + field(2, name) + field(4, 8) + field(5, fid * 10))
for lid, fid in ((1, 1), (2, 2), (3, 3)):
    profile += field(4, field(1, lid) + field(2, 1) + field(3, 0x400000 + lid * 16) + field(4, field(1, fid) + field(2, fid * 10 + 1)))
profile += field(4, field(1, 4) + field(2, 1) + field(3, 0x400123))  # no lines: module+0xoffset
profile += field(4, field(1, 5) + field(4, field(1, 3) + field(2, 31)) + field(4, field(1, 2) + field(2, 21)))  # inlined
for s_ in strings:
    profile += field(6, s_.encode())
profile += field(9, 1700000000000000000) + field(10, 1000000000) + field(11, field(1, 3) + field(2, 4)) + field(12, 10000000)
profile += field(14, 3)  # default_sample_type = cpu
put('pprof', 'profile.pb', profile)
put('pprof', 'profile.pb.gz', gzip.compress(profile, mtime=0))

# ------------------------------------------------------------------ bundles: tar and zip archives of profiles
import io
import tarfile
import zipfile


def tar_of(members, mode='w'):
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode=mode, format=tarfile.GNU_FORMAT) as t:
        for name, data in members:
            info = tarfile.TarInfo(name)
            info.size, info.mtime = len(data), 0
            t.addfile(info, io.BytesIO(data))
    return buf.getvalue()


def zip_of(members, method=zipfile.ZIP_DEFLATED):
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, 'w', method) as z:
        for name, data in members:
            z.writestr(zipfile.ZipInfo(name, (1980, 1, 1, 0, 0, 0)), data, compress_type=method)
    return buf.getvalue()


rank0 = json.dumps({"distributedInfo": {"rank": 0}, "traceEvents": kineto_trace(1)}).encode()
rank1 = json.dumps({"distributedInfo": {"rank": 1}, "traceEvents": kineto_trace(1, with_python=False)}).encode()
folded_seed = b'main;run;compute 40\nmain;init 5\n'
put('bundle', 'ranks.tar', tar_of([('run/rank0.pt.trace.json', rank0), ('run/rank1.pt.trace.json', rank1)]))
put('bundle', 'mixed.tar.gz', gzip.compress(tar_of([('a.folded', folded_seed), ('notes/readme.md', b'# not a profile\n'),
                                                     ('b.json.gz', gzip.compress(rank1, mtime=0))]), mtime=0))
put('bundle', 'ranks.zip', zip_of([('rank0.json', rank0), ('rank1.json', rank1)]))
put('bundle', 'stored.zip', zip_of([('dir/', b''), ('dir/perf.txt', ''.join(perf[:60]).encode())], zipfile.ZIP_STORED))

# ------------------------------------------------------------------ merge-gpu: first byte = where the cut falls
cpu = ('1000000 python 100 100 0 _start;__libc_start_main;main;train;cudaLaunchKernel\n'
       '2000000 python 100 100 0 main;eval;__device_stub__Z4gemmPf;cudaLaunchKernel\n'
       'bad line\n')
gpu = json.dumps({"traceEvents": [
    {"ph": "X", "cat": "CUDA_Runtime", "name": "cudaLaunchKernel", "ts": 1000, "dur": 5, "args": {"correlationId": 1}},
    {"ph": "X", "cat": "GPU_Kernel", "name": "Kernel: gemm", "ts": 1010, "dur": 50, "args": {"correlationId": 1}},
    {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "ts": 2000, "dur": 5, "args": {"correlation": 2}},
    {"ph": "X", "cat": "kernel", "name": "relu", "ts": 2010, "dur": 20, "args": {"correlation": 2}}]})
cut = round(len(cpu) * 255 / (len(cpu) + len(gpu)))
put('gpu_cpu_merge', 'pair', bytes([cut]) + (cpu + gpu).encode())

# ------------------------------------------------------------------ real files, when ../shared/data is there
if SHARED and SHARED.is_dir():
    kinds = {'.json': 'kineto', '.gz': 'kineto', '.folded': 'folded', '.collapsed': 'folded', '.prof': 'pstats',
             '.pstats': 'pstats', '.txt': 'perf', '.perf': 'perf', '.sqlite': 'nsys', '.db': 'ascend'}
    for f in sorted(SHARED.rglob('*')):
        if not f.is_file() or f.stat().st_size > 256 * 1024:
            continue
        target = kinds.get(f.suffix)
        if target:
            put(target, 'shared-' + '-'.join(f.relative_to(SHARED).parts), f.read_bytes())
            if target in ('nsys', 'ascend'):
                put('sqlite_pages', 'shared-' + f.name, f.read_bytes())
