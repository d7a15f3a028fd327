"""Many rank files on a Dask cluster: each file read on a worker, the partial profiles merged in a
tree, one profile back.

    from dask.distributed import Client
    from flamefold.dask import load_many

    client = Client("tcp://scheduler:8786")          # or a LocalCluster
    p = load_many(["rank0.json", ..., "rank255.json"], client=client, label_by="rank")
    p.write("all-ranks.html")

Files are read where the workers are (a path must name the same file there: a shared file
system). A worker holds one file's profile at a time; what travels between workers is the
profile's own compact binary form (``Profile.to_bytes``: zstd-compressed), and merging is
``flamefold.merge``'s (associative and order-independent), so the result is the profile
``flamefold.merge([flamefold.load(f) for f in paths])`` gives, whatever the tree.
"""
from __future__ import annotations

import os
import warnings
from typing import Any, List, Optional, Sequence, Tuple

from ._core import PathLike, Profile, load, merge
from ._errors import InputWarning, UsageError

__all__ = ["load_many"]


# A partial: the encoded profile and the oddities counted while reading its files, as
# (path, what, count), which a merged profile no longer carries.
Partial = Tuple[bytes, List[Tuple[str, str, int]]]


def _partial(path: str, label_by: str, load_options: dict) -> Partial:
    # On a worker: one file, under its level, as bytes (the profile itself is freed on return).
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", InputWarning)  # reported by the caller, from the counters
        one = load(path, **load_options)
    counted = [(path, what, count) for what, count in one.counters.items()]
    return merge([one], label_by=label_by).to_bytes(), counted


def _combine(*parts: Partial) -> Partial:
    # On a worker: partial merges into one; their levels are already there.
    merged = merge([Profile.from_bytes(data, "<partial profile>") for data, _ in parts], label_by="none")
    return merged.to_bytes(), [c for _, counted in parts for c in counted]


def load_many(paths: Sequence[PathLike], client: Any = None, *, label_by: str = "file",
              weight: Optional[str] = None, fan_in: int = 8, **load_options: Any) -> Profile:
    """Reads many profiles on a Dask cluster and merges them: ``flamefold merge`` of ``paths``
    (``label_by``: "file", "rank" or "none", as ``flamefold.merge``) with one task per file.

    ``client`` is a ``dask.distributed.Client`` (default: the current one); ``load_options`` are
    ``flamefold.load``'s (``steps``, ``thread``, ``group_by`` ...), applied on the workers;
    ``weight`` chooses the merged profile's default weight. Partial profiles are merged on the
    workers ``fan_in`` at a time until ``fan_in`` or fewer are left, which the caller merges.
    A file a worker cannot read raises its ``flamefold.InputError`` here; what the readers
    counted (a cut-off trace ...) comes back as ``InputWarning``s naming the file, as
    ``flamefold merge`` prints them."""
    from dask.distributed import default_client  # python3-distributed; imported only when used

    paths = [os.fspath(p) for p in paths]
    if not paths:
        raise UsageError("load_many: no paths")
    if label_by not in ("file", "rank", "none"):
        raise UsageError("load_many: label_by takes file, rank or none (not %r)" % (label_by,))
    if fan_in < 2:
        raise UsageError("load_many: fan_in must be 2 or more")
    load_options.pop("weight", None)  # chosen once, on the merged profile (as `flamefold merge`)
    client = client if client is not None else default_client()
    # pure=False: a path given twice is read twice (its weights count twice, as in the CLI).
    level: List[Any] = [client.submit(_partial, path, label_by, load_options, pure=False) for path in paths]
    while len(level) > fan_in:
        level = [client.submit(_combine, *level[i:i + fan_in], pure=False) for i in range(0, len(level), fan_in)]
    parts = client.gather(level)
    for _, counted in parts:
        for path, what, count in counted:
            warnings.warn("%s: %s: %d" % (path, what, count), InputWarning, stacklevel=2)
    return merge([Profile.from_bytes(data, "<partial profile>") for data, _ in parts], label_by="none", weight=weight)
