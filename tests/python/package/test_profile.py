"""Profile: top, frames/tree as columnar arrays without copies, write/to_folded equal to the
CLI's outputs, filter, the notebook display, pickling."""
import html
import json
import pickle
import re

import pytest

import flamefold
from fixtures import write_folded, write_kineto
from viewer_payload import decode

np = pytest.importorskip("numpy")


@pytest.fixture
def trace(tmp):
    return write_kineto(tmp / "rank0.json", steps=3)


def test_top_matches_cli_top_json(trace, flamefold_cli):
    p = flamefold.load(trace)
    for weight in ("cpu", "gpu"):
        rows = p.top(5, weight=weight)
        cli = json.loads(flamefold_cli("top", "--json", "-n", "5", "--weight", weight, trace).stdout)
        assert [(r["frame"], r["self"], r["total"]) for r in rows] == [
            (r["name"], r["self"], r["total"]) for r in cli["frames"]]
        if weight == "gpu":
            assert [(k["name"], k["count"], k["total_ns"]) for k in p.kernels()] == [
                (k["name"], k["count"], k["total"]) for k in cli["kernels"]]
    every = json.loads(flamefold_cli("top", "--json", "-n", "0", trace).stdout)["frames"]
    assert [r["frame"] for r in p.top(0)] == [r["name"] for r in every]
    assert p.top(3, sort="total")[0]["total"] >= p.top(3, sort="total")[1]["total"]


def test_top_to_pandas(trace):
    pd = pytest.importorskip("pandas")
    df = flamefold.load(trace).top(4, weight="gpu").to_pandas()
    assert isinstance(df, pd.DataFrame) and list(df.columns[:2]) == ["frame", "file"] and len(df) == 4


def test_tree_and_frames_are_views_of_the_profile(trace):
    p = flamefold.load(trace)
    tree = p.tree
    assert isinstance(tree["parent"], np.ndarray) and tree["parent"].dtype == np.uint32
    assert len(tree["frame"]) == p.node_count and set(p.weights) <= set(tree)
    for column in tree.values():
        assert not column.flags.writeable and not column.flags.owndata  # no copy: the profile's memory
    again = p.tree
    assert np.shares_memory(tree["cpu"], again["cpu"])
    assert tree["cpu"].sum() == pytest.approx(p.total("cpu"))
    # Parents before children; inclusive totals add up.
    assert all(tree["parent"][n] < n for n in range(1, p.node_count))
    totals = p.totals("gpu")
    assert totals[0] == pytest.approx(p.total("gpu"))
    names = p.frames["name"]
    kernel_nodes = [n for n in range(1, p.node_count) if names[tree["frame"][n]].startswith("sm80_gemm")]
    assert kernel_nodes and all(tree["gpu"][n] > 0 for n in kernel_nodes)
    # The arrays outlive the Profile object.
    cpu = p.tree["cpu"]
    del p, tree, again
    assert cpu.sum() > 0


def test_write_and_to_folded_equal_the_cli(trace, tmp, flamefold_cli):
    p = flamefold.load(trace, weight="gpu")
    assert p.to_folded() == flamefold_cli("collapse", "--weight", "gpu", trace).stdout
    for ext in ("svg", "folded", "pb.gz"):
        mine, theirs = tmp / ("mine." + ext), tmp / ("cli." + ext)
        assert p.write(mine, title="T") == str(mine)
        flamefold_cli("flamegraph" if ext in ("svg", "speedscope.json") else "convert" if ext == "pb.gz" else "collapse",
                      "--weight", "gpu", *(["--title", "T"] if ext in ("svg", "speedscope.json") else []), trace, "-o", theirs)
        assert mine.read_bytes() == theirs.read_bytes(), ext
    # speedscope lists every weight, the reader's default first (load(weight=) makes it gpu);
    # its time-ordered profiles are the flame chart's events, kept when load is asked to.
    flamefold.load(trace, timeline_events=1_000_000).write(tmp / "mine.speedscope.json")
    flamefold_cli("flamegraph", trace, "-o", tmp / "cli.speedscope.json")
    assert (tmp / "mine.speedscope.json").read_bytes() == (tmp / "cli.speedscope.json").read_bytes()
    page = p.to_html()
    assert decode(page)["header"]["columns"]
    with pytest.raises(flamefold.UsageError):
        p.write(tmp / "x.unknownkind")
    assert not (tmp / "x.unknownkind").exists()


def test_short_names_on_a_copy(tmp):
    path = write_folded(tmp / "t.folded", "main;std::vector<int, std::allocator<int> >::push_back(int const&) 3\n")
    p = flamefold.load(path)
    short = tmp / "short.folded"
    p.write(short, short_names=True)
    assert "std::allocator" not in short.read_text() and "push_back" in short.read_text()
    assert "std::allocator" in p.to_folded()  # the profile itself keeps its names


def test_filter_reads_again_with_steps_threads_window(trace):
    p = flamefold.load(trace)
    assert p.filter(steps="2").to_folded() == flamefold.load(trace, steps="2").to_folded()
    assert p.filter(threads="pt_autograd").to_folded() == flamefold.load(trace, thread="pt_autograd").to_folded()
    assert p.filter(window=(0.5, 2)).to_folded() == flamefold.load(trace, window="0.5:2").to_folded()
    assert p.filter(steps="2").total("cpu") < p.total("cpu")
    with open(trace, "rb") as f:
        from_file = flamefold.load(f)
    with pytest.raises(flamefold.UsageError):
        from_file.filter(steps="2")
    data = open(trace, "rb").read()
    assert flamefold.load(data).filter(steps=2).to_folded() == flamefold.load(trace, steps=2).to_folded()


def test_repr_html_is_the_viewer_in_a_sandboxed_iframe(tmp):
    hostile = '<img src=x onerror="alert(1)">;"\'</iframe><script>alert(2)</script> 5\nmain;ok 1\n'
    p = flamefold.load(write_folded(tmp / "h.folded", hostile))
    shown = p._repr_html_()
    m = re.fullmatch(r'<iframe ([^>]*) srcdoc="([^"]*)"></iframe>', shown)
    assert m, shown[:200]
    assert 'sandbox="allow-scripts"' in m.group(1) and "allow-same-origin" not in m.group(1)
    page = html.unescape(m.group(2))
    assert page == p.to_html()
    assert "default-src 'none'" in page
    paths = decode(page)["paths"]
    assert ('<img src=x onerror="alert(1)">', '"\'</iframe><script>alert(2)</script>') in paths
    assert "<script>alert(2)" not in shown and "<img" not in shown


def test_pickle_and_bytes_round_trip(trace, tmp):
    p = flamefold.load(trace)
    q = pickle.loads(pickle.dumps(p))
    assert q.weights == p.weights and q.to_folded("gpu") == p.to_folded("gpu") and q.to_html() == p.to_html()
    assert q.top(5, weight="gpu") == p.top(5, weight="gpu") and q.kernels() == p.kernels()
    assert flamefold.Profile.from_bytes(p.to_bytes(compress=False)).to_svg() == p.to_svg()
    with pytest.raises(flamefold.InputError) as e:
        flamefold.Profile.from_bytes(p.to_bytes()[:-7], "cut")
    assert str(e.value).startswith("cut:")
    with pytest.raises(flamefold.InputError):
        flamefold.Profile.from_bytes(b"FFPB\x01\x00" + b"\xff" * 20)


def test_kernels_and_repr(trace):
    p = flamefold.load(trace)
    k = p.kernels()
    assert {r["name"] for r in k} == {"sm80_gemm_0", "sm80_gemm_1"}
    assert sum(r["total_ns"] for r in k) == p.total("gpu")
    assert "kineto" in repr(p) and "gpu (ns)" in repr(p)


def test_without_numpy_arrays_are_memoryviews(trace):
    import subprocess
    import sys
    script = ("import sys; sys.modules['numpy'] = None\n"
              "import flamefold\n"
              "p = flamefold.load(sys.argv[1])\n"
              "t = p.tree\n"
              "assert isinstance(t['cpu'], memoryview) and t['cpu'].readonly and t['cpu'].format == 'd'\n"
              "assert t['parent'].format == 'I' and len(t['parent']) == p.node_count\n"
              "assert sum(t['cpu']) == p.total('cpu')\n"
              "assert list(p.frames['line'])[:1] == [0]\n"
              "print('ok')\n")
    done = subprocess.run([sys.executable, "-c", script, trace], capture_output=True, text=True)
    assert done.returncode == 0 and done.stdout.strip() == "ok", done.stderr


def test_big_page_decodes_from_front_coded_members(tmp):
    # Past 16 MB of payload the page holds gzip members, its strings front-coded, with neighbours
    # in name order differing inside a multi-byte character.
    accents = ["\u00e9", "\u00e8", "\U0001F600", "\U0001F601", ""]
    lines = [f"main;mod_{i % 7};leaf_{i >> 2}{accents[i % 5]}_{'abcdefghij' * 10} {1 + i % 5}" for i in range(160000)]
    p = flamefold.load(write_folded(tmp / "big.folded", "\n".join(lines) + "\n"))
    page = p.to_html()
    assert page.count(".", page.index('id="ff-data">'), page.index("</script>", page.index('id="ff-data">'))) > 3
    d = decode(page)
    assert d["header"]["front_coded"] is True
    self_of = dict(zip(d["paths"], d["self"][d["header"]["columns"][0]["name"]]))
    for i in (0, 3, 4, 80001, 159999):
        assert self_of[("main", f"mod_{i % 7}", lines[i].split(";")[2].split(" ")[0])] == 1 + i % 5
    assert sum(self_of.values()) == sum(1 + i % 5 for i in range(160000))
