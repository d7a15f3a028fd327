"""flamefold.merge is `flamefold merge` (main's canonical merge), flamefold.diff is
`flamefold diff`: same outputs byte for byte."""
import pytest

import flamefold
from fixtures import write_folded, write_kineto


@pytest.fixture
def ranks(tmp):
    return [write_kineto(tmp / ("rank%d.json" % r), rank=r, seed=r) for r in range(3)]


@pytest.mark.parametrize("label_by", ["file", "rank", "none"])
def test_merge_equals_the_cli_merge(ranks, tmp, flamefold_cli, label_by):
    merged = flamefold.merge([flamefold.load(r) for r in ranks], label_by=label_by)
    for ext in ("folded", "pb.gz"):
        out = tmp / ("cli-%s.%s" % (label_by, ext))
        flamefold_cli("merge", "--label-by", label_by, *ranks, "-o", out)
        mine = tmp / ("mine-%s.%s" % (label_by, ext))
        merged.write(mine)
        assert mine.read_bytes() == out.read_bytes(), ext
    assert merged.format == "merge"


def test_merge_is_associative_and_keeps_rank_levels(ranks):
    loaded = [flamefold.load(r) for r in ranks]
    whole = flamefold.merge(loaded)
    nested = flamefold.merge([flamefold.merge(loaded[:2]), flamefold.merge(loaded[2:])])
    assert nested.to_bytes() == whole.to_bytes()
    assert flamefold.merge(loaded[::-1]).to_bytes() == whole.to_bytes()
    tops = {whole.frames["name"][f] for n, f in enumerate(whole.tree["frame"]) if n and whole.tree["parent"][n] == 0}
    assert tops == {"rank0.json", "rank1.json", "rank2.json"}


def test_merge_weight_and_errors(ranks, tmp):
    loaded = [flamefold.load(r) for r in ranks]
    assert flamefold.merge(loaded, weight="gpu").default_weight == "gpu"
    with pytest.raises(flamefold.UsageError):
        flamefold.merge(loaded, weight="npu")
    with pytest.raises(flamefold.UsageError):
        flamefold.merge([])
    with pytest.raises(flamefold.UsageError):
        flamefold.merge(loaded, label_by="host")
    with pytest.raises(TypeError):
        flamefold.merge([loaded[0], "rank1.json"])
    # No rank recorded, no number in the names: the CLI's error, naming the file.
    a = flamefold.load(write_folded(tmp / "a.folded", "x;y 3\n"))
    b = flamefold.load(write_folded(tmp / "b.folded", "x;y 3\n"))
    assert flamefold.merge([a, b]).total() == 6
    with pytest.raises(flamefold.InputError, match="a.folded: cannot tell its rank"):
        flamefold.merge([a, b], label_by="rank")


def test_merged_profile_filters_again(ranks):
    merged = flamefold.merge([flamefold.load(r) for r in ranks], label_by="rank")
    again = merged.filter(steps="2")
    want = flamefold.merge([flamefold.load(r, steps="2") for r in ranks], label_by="rank")
    assert again.to_bytes() == want.to_bytes() and again.total("cpu") < merged.total("cpu")


def test_diff_equals_the_cli_diff(tmp, flamefold_cli):
    before = write_folded(tmp / "before.folded", "main;parse 30\nmain;render 45\nmain;render;0x7fab12 5\n")
    after = write_folded(tmp / "after.folded", "main;parse 60\nmain;render 40\nmain;render;0x7fcd34 5\nmain;new 7\n")
    for kw, args in ((dict(), []), (dict(normalize=True), ["-n"]), (dict(strip_hex=True), ["-s"])):
        d = flamefold.diff(before, after, **kw)
        assert d.weights == ["samples", "before:samples"]
        out = tmp / "cli.folded"
        flamefold_cli("diff", *args, before, after, "-o", out)
        assert d.to_folded() == out.read_text(), kw
        svg = tmp / "cli.svg"
        flamefold_cli("diff", *args, before, after, "-o", svg)
        assert d.to_svg() == svg.read_text(), kw
    from_profiles = flamefold.diff(flamefold.load(before, group_by="none"), flamefold.load(after, group_by="none"))
    assert from_profiles.to_folded() == flamefold.diff(before, after).to_folded()
    assert flamefold.load(before).total() == 80  # the sides are not changed
