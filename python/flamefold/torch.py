"""flamefold for torch.profiler: an ``on_trace_ready`` handler that turns each ready trace into
flame graphs (and anything else flamefold writes) while the program runs.

    import torch
    from flamefold.torch import trace_handler

    with torch.profiler.profile(
            with_stack=True,
            schedule=torch.profiler.schedule(wait=1, warmup=1, active=2),
            on_trace_ready=trace_handler("./prof", formats=("html", "svg"))) as prof:
        for batch in data:
            train_step(batch)
            prof.step()
    # ./prof/<worker>.<step>.html, ./prof/<worker>.<step>.svg and ./prof/<worker>.<step>.pt.trace.json

It works with both kinds of PyTorch build: with Kineto (a Chrome trace with Python stacks, GPU
kernels and their launches) and without it (as Debian's CPU build: torch.profiler falls back to
the autograd profiler, whose trace is a bare list of op events). This module does not import
torch: the handler only calls the profiler's ``export_chrome_trace``.
"""
from __future__ import annotations

import os
import socket
import tempfile
import warnings
from typing import Any, Callable, List, Optional, Sequence

from ._core import load
from ._errors import Error

__all__ = ["trace_handler"]


def trace_handler(dir_name: str, worker_name: Optional[str] = None, formats: Sequence[str] = ("html",),
                  keep_trace: bool = True, use_gzip: bool = False, **load_options: Any) -> Callable[[Any], None]:
    """A handler for ``torch.profiler.profile(on_trace_ready=...)``, called as
    ``torch.profiler.tensorboard_trace_handler`` is: each time a trace is ready it exports the
    Chrome trace, reads it with ``flamefold.load(**load_options)`` and writes
    ``<dir_name>/<worker>.<step>.<format>`` for each of ``formats`` (any extension
    ``Profile.write`` takes: "html", "svg", "folded", "prof" ...).

    ``worker_name`` defaults to ``<hostname>_<pid>`` (unique per rank, as tensorboard's);
    ``<step>`` is the profiler's step number when the trace became ready. Every file is written
    aside and renamed into place, so a reader of the directory never sees half a file. The trace
    itself is kept as ``<worker>.<step>.pt.trace.json`` (``.gz`` with ``use_gzip``) unless
    ``keep_trace=False``. When flamefold cannot read the trace, a ``RuntimeWarning`` says why and
    the trace is kept: profiling never stops the program.
    """
    formats = tuple(f.lstrip(".") for f in formats)
    if any(f in ("html", "htm") for f in formats):
        # The page's flame chart view, as `flamefold flamegraph -o x.html` keeps it.
        load_options.setdefault("timeline_events", 1_000_000)
    calls = 0

    def handler(prof: Any) -> None:
        nonlocal worker_name, calls
        calls += 1
        os.makedirs(dir_name, exist_ok=True)
        if not worker_name:
            worker_name = "%s_%d" % (socket.gethostname(), os.getpid())
        # torch.profiler.profile counts steps; anything else exporting Chrome traces (the
        # autograd profiler) is numbered by the handler's calls.
        step = getattr(prof, "step_num", None)
        base = os.path.join(dir_name, "%s.%s" % (worker_name, step if step is not None else calls))
        suffix = ".pt.trace.json" + (".gz" if use_gzip else "")  # torch gzips a path ending in .gz
        fd, exported = tempfile.mkstemp(dir=dir_name, prefix="." + os.path.basename(base) + ".", suffix=suffix)
        os.close(fd)
        keep = keep_trace
        try:
            prof.export_chrome_trace(exported)
            handler.written = _write_formats(exported, base, formats, load_options)  # type: ignore[attr-defined]
        except Error as e:
            keep = True
            warnings.warn("flamefold could not read the trace of step %s (kept as %s): %s"
                          % (step, base + suffix, e), RuntimeWarning, stacklevel=2)
        except BaseException:
            os.unlink(exported)
            raise
        if keep:
            os.replace(exported, base + suffix)
        else:
            os.unlink(exported)

    handler.written = []  # type: ignore[attr-defined]  # the paths the last call wrote
    return handler


def _write_formats(trace: str, base: str, formats: Sequence[str], load_options: Any) -> List[str]:
    profile = load(trace, **load_options)
    written = []
    for fmt in formats:
        written.append(profile.write(base + "." + fmt))
    return written
