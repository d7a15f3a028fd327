"""flamefold.load: paths, bytes and file objects, the CLI's read options as keywords, errors as
flamefold.InputError with the CLI's line, the GIL released while reading."""
import gzip
import io
import os
import subprocess
import sys
import tempfile
import textwrap

import pytest

import flamefold
from fixtures import FOLDED, kineto_trace, write_folded, write_kineto


def test_weights_and_format_of_a_kineto_trace(tmp):
    p = flamefold.load(write_kineto(tmp / "rank0.json"))
    assert p.format == "kineto"
    assert set(p.weights) >= {"cpu", "calls", "gpu", "kernels"}
    assert p.units["cpu"] == "ns" and p.units["calls"] == "count"


def test_path_bytes_gzip_and_file_objects_read_alike(tmp):
    path = write_kineto(tmp / "rank0.json")
    text = kineto_trace()
    from_path = flamefold.load(path).to_folded("gpu")
    assert flamefold.load(text.encode()).to_folded("gpu") == from_path
    assert flamefold.load(gzip.compress(text.encode())).to_folded("gpu") == from_path
    with open(path, "rb") as f:
        assert flamefold.load(f).to_folded("gpu") == from_path
    assert flamefold.load(io.StringIO(text)).to_folded("gpu") == from_path
    assert flamefold.load(memoryview(text.encode())).to_folded("gpu") == from_path


def test_options_as_keywords_match_the_cli(tmp, flamefold_cli):
    path = write_kineto(tmp / "rank0.json", steps=4)
    cases = [
        (dict(steps="2-3"), ["--steps", "2-3"]),
        (dict(steps=2, weight="gpu"), ["--steps", "2", "--weight", "gpu"]),
        (dict(thread="pt_autograd"), ["--thread", "pt_autograd"]),
        (dict(window="1:3"), ["--window", "1:3"]),
        (dict(window=(1, None)), ["--window", "1:"]),
        (dict(group_by="none", categories=["cpu_op", "kernel"]), ["--group-by", "none", "--categories", "cpu_op,kernel"]),
        (dict(stream_traces="always"), ["--stream-traces", "always"]),
        (dict(stream_traces="never", weight="gpu"), ["--stream-traces", "never", "--weight", "gpu"]),
    ]
    for kw, args in cases:
        got = flamefold.load(path, **kw).to_folded()
        want = flamefold_cli("collapse", *args, path).stdout
        assert got == want, (kw, args)


def test_the_cli_message_is_the_exception_message(tmp, flamefold_cli):
    bad = tmp / "bad.json"
    bad.write_text('{"traceEvents": [{"ph": "X", "name": "a", "ts": 1, "dur": ')
    with pytest.raises(flamefold.InputError) as e:
        flamefold.load(str(bad))
    cli = flamefold_cli("collapse", bad, check=False)
    assert cli.returncode != 0
    assert cli.stderr.strip() == "flamefold: error: " + str(e.value)
    assert e.value.file == str(bad) and e.value.problem and str(e.value).startswith(str(bad) + ":")
    assert isinstance(e.value, flamefold.Error)
    with pytest.raises(flamefold.InputError):
        flamefold.load(b"")
    with pytest.raises(flamefold.InputError) as missing:
        flamefold.load(str(tmp / "absent.json"))
    assert "absent.json" in str(missing.value)


def test_usage_errors(tmp):
    path = write_folded(tmp / "x.folded")
    with pytest.raises(flamefold.UsageError):
        flamefold.load(path, weight="gpu")
    with pytest.raises(flamefold.UsageError):
        flamefold.load(path, format="nonsense")
    with pytest.raises(flamefold.UsageError):
        flamefold.load(path, window="later")
    with pytest.raises(flamefold.UsageError):
        flamefold.load(path, group_by="everything")
    with pytest.raises(flamefold.UsageError):
        flamefold.load(path, stream_traces="sometimes")
    with pytest.raises(TypeError):
        flamefold.load(path, stepz=3)
    with pytest.raises(TypeError):
        flamefold.load(42)


def test_a_streamed_trace_reads_as_the_whole_one(tmp):
    path = write_kineto(tmp / "rank0.json", steps=4)
    for weight in ("cpu", "gpu", "calls"):
        assert flamefold.load(path, stream_traces="always").to_folded(weight) == \
            flamefold.load(path, stream_traces="never").to_folded(weight)


def test_several_paths_are_ranks(tmp, flamefold_cli):
    a, b = write_kineto(tmp / "a.json", rank=0), write_kineto(tmp / "b.json", rank=1)
    assert flamefold.load([a, b]).to_folded() == flamefold_cli("collapse", a, b).stdout


def test_help_lists_the_options():
    doc = flamefold.load.__doc__
    for option in ("format", "weight", "steps", "thread", "window", "group_by", "categories", "stacks",
                   "threads_to_use", "timeline_events", "stream_traces"):
        assert "\n    %s " % option in doc, option
    assert flamefold.load.__annotations__["steps"]


def test_the_gil_is_released_while_reading():
    # The child reads its standard input on a thread, which blocks until we write; its main
    # thread must meanwhile run Python code and say so. With the GIL held by the reading
    # thread, it could not, and we would wait in vain.
    script = textwrap.dedent("""
        import sys, threading, time, flamefold
        got = {}
        t = threading.Thread(target=lambda: got.update(p=flamefold.load("-")))
        t.start()
        time.sleep(0.2)
        print("running", flush=True)
        t.join()
        print(got["p"].total(), flush=True)
    """)
    child = subprocess.Popen([sys.executable, "-c", script], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True, env=os.environ)
    try:
        import selectors
        sel = selectors.DefaultSelector()
        sel.register(child.stdout, selectors.EVENT_READ)
        assert sel.select(timeout=30), "the main thread did not run while another read"
        assert child.stdout.readline().strip() == "running"
        out, err = child.communicate(FOLDED, timeout=30)
    finally:
        if child.poll() is None:
            child.kill()
    assert child.returncode == 0, err
    assert float(out) == 110


def test_bundles_and_databases_as_bytes(tmp, flamefold_cli):
    import tarfile
    import zipfile
    a, b = write_kineto(tmp / "rank0.json", rank=0), write_kineto(tmp / "rank1.json", rank=1)
    with zipfile.ZipFile(tmp / "ranks.zip", "w") as z:
        z.write(a, "rank0.json")
        z.write(b, "rank1.json")
    with tarfile.open(tmp / "ranks.tar", "w") as t:
        t.add(a, "rank0.json")
        t.add(b, "rank1.json")
    want = flamefold_cli("collapse", tmp / "ranks.zip").stdout
    assert flamefold.load((tmp / "ranks.zip").read_bytes()).to_folded() == want
    assert flamefold.load((tmp / "ranks.tar").read_bytes()).to_folded() == flamefold_cli("collapse", tmp / "ranks.tar").stdout
    def ours():
        return {n for n in os.listdir(tempfile.gettempdir()) if n.startswith("flamefold-") and n.endswith(".input")}
    before = ours()
    with pytest.raises(flamefold.InputError) as e:
        flamefold.load(gzip.compress(b'{"traceEvents": [{"ph": "X", "name": "a", "ts": 1, "dur": '))
    assert str(e.value).startswith("<bytes>:")  # not the temporary file's name
    assert ours() <= before  # nothing left behind


def test_databases_from_shared_data_as_paths_and_bytes(shared_dir, flamefold_cli):
    for rel in ("data/nsys/hpcgroup__pipit/pipit/tests/data/saxpy-mpi-cuda_nsys_perlmutter0.sqlite",
                "data/ascend/level0/ascend_pytorch_profiler_0.db"):
        path = os.path.join(shared_dir, rel)
        if not os.path.exists(path):
            continue
        want = flamefold_cli("collapse", path).stdout
        assert flamefold.load(path).to_folded() == want, rel
        with open(path, "rb") as f:
            assert flamefold.load(f).to_folded() == want, rel  # through a temporary file
