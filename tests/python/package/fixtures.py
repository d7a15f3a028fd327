"""Small inputs written by the tests: Kineto traces (Python frames, ops, launches, kernels with
their ac2g flows, ProfilerStep#N ranges, a rank) and folded stacks."""
import json
import random


def kineto_trace(rank=0, steps=3, seed=0, with_rank=True, first_step=1):
    """A PyTorch-profiler (Kineto) trace as JSON text: a main thread with Python frames and ops
    that launch kernels, an autograd thread, one GPU stream."""
    rnd = random.Random(seed * 1000 + rank)
    pid, tid, bwd = 1000 + rank, 1000 + rank, 2000 + rank
    events = [
        {"name": "process_name", "ph": "M", "ts": 0, "pid": pid, "tid": 0, "args": {"name": "python3"}},
        {"name": "thread_name", "ph": "M", "ts": 0, "pid": pid, "tid": tid, "args": {"name": "MainThread"}},
        {"name": "thread_name", "ph": "M", "ts": 0, "pid": pid, "tid": bwd, "args": {"name": "pt_autograd_0"}},
        {"name": "process_name", "ph": "M", "ts": 0, "pid": 0, "tid": 0, "args": {"name": "GPU 0"}},
        {"name": "thread_name", "ph": "M", "ts": 0, "pid": 0, "tid": 7, "args": {"name": "stream 7"}},
    ]
    t = 1_700_000_000_000.0 + rank * 10.0
    corr = 1
    pyid = 1

    def x(cat, name, ts, dur, p=pid, th=tid, **args):
        ev = {"ph": "X", "cat": cat, "name": name, "pid": p, "tid": th, "ts": round(ts, 3), "dur": round(dur, 3)}
        if args:
            ev["args"] = args
        events.append(ev)

    for s in range(first_step, first_step + steps):
        step_len = 1000 + rnd.randint(0, 200)
        x("user_annotation", "ProfilerStep#%d" % s, t, step_len)
        x("python_function", "train.py(42): train_step", t + 5, step_len - 10,
          **{"Python id": pyid, "Python parent id": None})
        parent = pyid
        pyid += 1
        at = t + 10
        for layer in range(2):
            fwd = 200 + rnd.randint(0, 50)
            x("python_function", "model.py(%d): forward" % (10 + layer), at, fwd,
              **{"Python id": pyid, "Python parent id": parent})
            pyid += 1
            x("cpu_op", "aten::linear", at + 5, fwd - 20, **{"External id": corr})
            x("cpu_op", "aten::addmm", at + 10, fwd - 40, **{"External id": corr})
            x("cuda_runtime", "cudaLaunchKernel", at + 15, 8, correlation=corr, **{"External id": corr})
            events.append({"ph": "s", "id": corr, "pid": pid, "tid": tid, "ts": round(at + 15, 3), "cat": "ac2g", "name": "ac2g"})
            k_at = at + 30 + rnd.randint(0, 20)
            k_len = 50 + rnd.randint(0, 30) + layer * 10
            x("kernel", "sm80_gemm_%d" % layer, k_at, k_len, p=0, th=7, device=0, stream=7, correlation=corr)
            events.append({"ph": "f", "id": corr, "pid": 0, "tid": 7, "ts": round(k_at, 3), "cat": "ac2g",
                           "name": "ac2g", "bp": "e"})
            corr += 1
            at += fwd + 10
        b_at = at + 20
        x("cpu_op", "autograd::engine::evaluate_function: AddmmBackward0", b_at, 150, th=bwd)
        x("cpu_op", "aten::mm", b_at + 10, 100, th=bwd)
        t += step_len + 50
    trace = {"schemaVersion": 1, "traceEvents": events, "traceName": "rank%d.pt.trace.json" % rank}
    if with_rank:
        trace["distributedInfo"] = {"backend": "nccl", "rank": rank, "world_size": 8}
    return json.dumps(trace)


def write_kineto(path, **kw):
    with open(path, "w") as f:
        f.write(kineto_trace(**kw))
    return str(path)


FOLDED = """main;parse;read_line 30
main;parse;tokenize 20
main;render;draw 45
main;render;layout;measure 5
idle 10
"""


def write_folded(path, text=FOLDED):
    with open(path, "w") as f:
        f.write(text)
    return str(path)
