"""flamefold.dask.load_many on a LocalCluster of 2 worker processes: one task per file, partial
profiles merged in a tree, the result equal to flamefold.merge of the same files read here."""
import pytest

import flamefold
from fixtures import write_kineto

distributed = pytest.importorskip("distributed")
from flamefold.dask import load_many  # noqa: E402


@pytest.fixture(scope="module")
def client():
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None,
                                       worker_dashboard_address=None, silence_logs=40)
    c = distributed.Client(cluster)
    yield c
    c.close()
    cluster.close()


@pytest.fixture(scope="module")
def ranks(tmp_path_factory):
    d = tmp_path_factory.mktemp("ranks")
    return [write_kineto(d / ("rank%d.json" % r), rank=r, seed=r, steps=2 + r % 3) for r in range(11)]


@pytest.mark.parametrize("label_by,fan_in", [("rank", 3), ("file", 8), ("none", 2)])
def test_equals_the_local_merge(client, ranks, label_by, fan_in):
    got = load_many(ranks, client=client, label_by=label_by, fan_in=fan_in)
    want = flamefold.merge([flamefold.load(r) for r in ranks], label_by=label_by)
    assert got.to_bytes() == want.to_bytes()
    assert got.to_folded("gpu") == want.to_folded("gpu") and got.total("cpu") == want.total("cpu")


def test_one_task_per_file_on_the_workers_and_a_tree_of_merges(client, ranks):
    # The scheduler records tasks from the first request on; the tasks of this call are those
    # new since (by key: each task of load_many has a key of its own).
    before = {t["key"] for t in client.get_task_stream()}
    p = load_many(ranks, client=client, steps="2", weight="gpu", fan_in=3)
    tasks = [t for t in client.get_task_stream() if t["key"] not in before]
    names = [t["key"].split("-")[0] for t in tasks]
    assert names.count("_partial") == len(ranks)
    assert names.count("_combine") == 4 + 2  # 11 partials -> 4 merges of 3 -> 2 merges; the last here
    assert len({t["worker"] for t in tasks}) == 2
    assert p.default_weight == "gpu"
    assert p.to_bytes() == flamefold.merge([flamefold.load(r, steps="2") for r in ranks], weight="gpu").to_bytes()


def test_a_bad_file_raises_its_input_error(client, ranks, tmp):
    bad = tmp / "rank99.json"
    bad.write_text('{"traceEvents": [{"ph": "X", "name": "a", "ts": 1, "dur": ')
    with pytest.raises(flamefold.InputError) as e:
        load_many(ranks[:2] + [str(bad)], client=client)
    assert e.value.file == str(bad) and str(e.value).startswith(str(bad) + ":")
    with pytest.raises(flamefold.UsageError):
        load_many([], client=client)


def test_what_the_readers_counted_comes_back_as_warnings(client, ranks, tmp):
    cut = tmp / "rank42.json"
    text = open(ranks[0]).read()
    cut.write_text(text[:text.rindex("]")])  # the events array without its closing ']'
    with pytest.warns(flamefold.InputWarning, match="rank42.json: .*cut-off trace.*: 1"):
        p = load_many(ranks[:2] + [str(cut)], client=client)
    with pytest.warns(flamefold.InputWarning):
        want = flamefold.merge([flamefold.load(r) for r in ranks[:2] + [str(cut)]])
    assert p.to_bytes() == want.to_bytes()
