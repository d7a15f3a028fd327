"""flamefold.torch.trace_handler with the real PyTorch (Debian's python3-torch 1.13, CPU, without
Kineto: its trace is a bare array of op events with "pid": "CPU functions"), and with Kineto
traces (the real ones in ../shared/data, through a profiler stand-in that exports them)."""
import glob
import gzip
import json
import os
import shutil
import warnings

import pytest

import flamefold
from flamefold.torch import trace_handler
from viewer_payload import decode


def host_time_ns(events):
    """What the trace says the host threads were busy: per thread, the union of its X events."""
    spans = {}
    for e in events:
        if e.get("ph") == "X" and "dur" in e:
            spans.setdefault((e["pid"], e["tid"]), []).append((e["ts"], e["ts"] + e["dur"]))
    busy = 0
    for intervals in spans.values():
        end = None
        for a, b in sorted(intervals):
            if end is None or a >= end:
                busy += b - a
                end = b
            elif b > end:
                busy += b - end
                end = b
    return busy * 1000  # µs -> ns


def test_real_torch_profile_of_a_small_model(tmp):
    torch = pytest.importorskip("torch")
    model = torch.nn.Sequential(torch.nn.Linear(16, 32), torch.nn.ReLU(), torch.nn.Linear(32, 4))
    out = tmp / "prof"
    handler = trace_handler(str(out), worker_name="w0", formats=("html", "folded"))
    with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU], with_stack=True,
                                schedule=torch.profiler.schedule(wait=1, warmup=1, active=2, repeat=2),
                                on_trace_ready=handler) as prof:
        for _ in range(9):
            model(torch.randn(8, 16)).sum().backward()
            prof.step()
    pages = sorted(glob.glob(str(out / "w0.*.html")))
    assert len(pages) == 2, os.listdir(out)
    assert not [f for f in os.listdir(out) if f.startswith(".")]  # nothing half-written left
    for page_path in pages:
        base = page_path[:-len(".html")]
        trace = json.load(open(base + ".pt.trace.json"))
        assert isinstance(trace, list) and trace[0]["pid"] == "CPU functions"  # the build without Kineto
        page = decode(open(page_path, encoding="utf-8").read())
        cpu = page["self"]["cpu"]
        ops = {path[-1] for path, w in zip(page["paths"], cpu) if w > 0 and path}
        assert {"aten::linear", "aten::addmm", "aten::relu", "aten::mm", "aten::sum"} <= ops, ops
        assert any(p[-1].startswith("ProfilerStep#") for p in page["paths"] if p)
        assert sum(cpu) == host_time_ns(trace)
        assert open(base + ".folded").read() == flamefold.load(base + ".pt.trace.json").to_folded()


class KinetoStandIn:
    """What the handler needs of torch.profiler.profile: export_chrome_trace(path), step_num."""

    def __init__(self, trace_gz, step_num):
        self.trace_gz, self.step_num = trace_gz, step_num

    def export_chrome_trace(self, path):
        with gzip.open(self.trace_gz, "rb") as src, (gzip.open if path.endswith(".gz") else open)(path, "wb") as dst:
            shutil.copyfileobj(src, dst)


@pytest.fixture
def kineto_trace_gz(shared_dir):
    path = os.path.join(shared_dir, "data/kineto/AMD-AGI__TraceLens/tests/traces/h100/gaunernst_bert-small-uncased__1016001.json.gz")
    if not os.path.exists(path):
        pytest.skip("the Kineto trace of ../shared/data is absent")
    return path


def test_kineto_traces_keep_python_frames(tmp, kineto_trace_gz):
    handler = trace_handler(str(tmp), worker_name="rank0", formats=("html", "pb.gz"), use_gzip=True)
    handler(KinetoStandIn(kineto_trace_gz, 12))
    assert sorted(os.listdir(tmp)) == ["rank0.12.html", "rank0.12.pb.gz", "rank0.12.pt.trace.json.gz"]
    assert handler.written == [str(tmp / "rank0.12.html"), str(tmp / "rank0.12.pb.gz")]
    page = decode((tmp / "rank0.12.html").read_text(encoding="utf-8"))
    cats = {c for c in page["categories"] if c}
    assert "python" in cats or "python_function" in cats, cats
    assert page["header"]["columns"] and "gpu" in [c["name"] for c in page["header"]["columns"]]
    loaded = flamefold.load(kineto_trace_gz)
    assert flamefold.load(str(tmp / "rank0.12.pb.gz")).total("gpu") == loaded.total("gpu") > 0
    assert sum(page["self"]["cpu"]) == loaded.total("cpu")


def test_keep_trace_false_and_a_trace_flamefold_cannot_read(tmp, kineto_trace_gz):
    handler = trace_handler(str(tmp / "a"), worker_name="w", keep_trace=False)
    handler(KinetoStandIn(kineto_trace_gz, 3))
    assert os.listdir(tmp / "a") == ["w.3.html"]

    class Broken:
        step_num = 4

        def export_chrome_trace(self, path):
            with open(path, "w") as f:
                f.write('[{"name": "x", "ph": "X", "ts": ')

    handler = trace_handler(str(tmp / "b"), worker_name="w", keep_trace=False)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        handler(Broken())  # profiling never stops the program: a warning, the trace kept
    assert any("w.4.pt.trace.json" in str(w.message) for w in caught)
    assert os.listdir(tmp / "b") == ["w.4.pt.trace.json"]


def test_default_worker_name_is_unique_per_process(tmp, kineto_trace_gz):
    handler = trace_handler(str(tmp), formats=("folded",), keep_trace=False)
    handler(KinetoStandIn(kineto_trace_gz, 1))
    (name,) = os.listdir(tmp)
    assert name.endswith("_%d.1.folded" % os.getpid())
