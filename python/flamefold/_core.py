"""The package's body: load, Profile, merge, diff (flamefold/__init__.py re-exports them)."""
from __future__ import annotations

import html
import os
import tempfile
import warnings
from typing import IO, Any, Dict, Iterable, List, Optional, Sequence, Tuple, Union

from . import _native
from ._errors import InputError, InputWarning, UsageError

PathLike = Union[str, "os.PathLike[str]"]
Source = Union[PathLike, Sequence[PathLike], bytes, bytearray, memoryview, IO[bytes], IO[str]]
Window = Union[str, Tuple[Optional[float], Optional[float]]]

try:  # numpy is optional: without it, arrays are memoryviews of the same memory
    import numpy as _np
except ImportError:  # pragma: no cover - Debian's python3-numpy is there when the tests run
    _np = None


# ---------------------------------------------------------------------------- tables

class Rows(List[Dict[str, Any]]):
    """A list of rows (dicts), as ``Profile.top`` and ``Profile.kernels`` return them."""

    def to_pandas(self):
        """The rows as a ``pandas.DataFrame`` (pandas must be installed)."""
        import pandas
        return pandas.DataFrame.from_records(list(self))


class Table(Dict[str, Any]):
    """Columns by name, each an array of one length (numpy arrays when numpy is installed,
    else memoryviews; lists for strings), as ``Profile.frames`` and ``Profile.tree`` return them."""

    def to_pandas(self):
        """The columns as a ``pandas.DataFrame`` (pandas must be installed)."""
        import pandas
        return pandas.DataFrame({k: (v if isinstance(v, list) or _np is not None else list(v)) for k, v in self.items()})


def _array(column: "_native.Column"):
    # numpy wraps the buffer (read-only, no copy; the array keeps the profile alive).
    return _np.asarray(column) if _np is not None else memoryview(column)


# ---------------------------------------------------------------------------- options

_GROUP_BY = ("process", "thread", "none", "auto")


def _listed(value: Union[None, str, Iterable[str]], split_commas: bool = False) -> Optional[List[str]]:
    if value is None:
        return None
    if isinstance(value, str):
        return [v for v in value.split(",")] if split_commas else [value]
    return [str(v) for v in value]


def _window_text(window: Optional[Window]) -> Optional[str]:
    if window is None or isinstance(window, str):
        return window
    start, end = window  # numbers in ms, as the CLI's --window; None: open
    return "%s:%s" % ("" if start is None else repr(float(start)), "" if end is None else repr(float(end)))


def _read_options(**given: Any) -> Dict[str, Any]:
    """The options dict the extension reads (only the options given)."""
    out: Dict[str, Any] = {}
    for key, value in given.items():
        if value is None or value is False:
            continue
        if key in ("thread", "category_rule"):
            value = _listed(value)
        elif key == "categories":
            value = _listed(value, split_commas=True)
        elif key == "window":
            value = _window_text(value)
        elif key == "steps":
            value = str(value)
        elif key in ("threads_to_use", "max_input_bytes", "timeline_events"):
            value = int(value)
        out[key] = value
    return out


# ---------------------------------------------------------------------------- load

def _is_paths(source: Any) -> bool:
    return isinstance(source, (list, tuple)) and all(isinstance(s, (str, os.PathLike)) for s in source)


# Content the extension reads from files only (databases), or decodes while reading a file
# (gzip, zstd): such bytes go through a temporary file.
# Bundles (zip, tar) are unpacked from files too.
_FILE_ONLY_MAGIC = (b"SQLite format 3\x00", b"\x1f\x8b", b"\x28\xb5\x2f\xfd", b"PK\x03\x04")


def _read_bytes(data: bytes, name: str, options: Dict[str, Any]) -> "_native.Profile":
    if not data.startswith(_FILE_ONLY_MAGIC) and data[257:262] != b"ustar":
        return _native.read_bytes(data, name, options)
    fd, path = tempfile.mkstemp(prefix="flamefold-", suffix=".input")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        try:
            return _native.read([path], options)
        except InputError as e:  # name the source, not the temporary file
            raise InputError(str(e).replace(path, name), name, e.place, e.problem.replace(path, name)) from None
    finally:
        os.unlink(path)


def _warn_counters(native: "_native.Profile") -> None:
    for what, count in native.counters:
        warnings.warn("%s: %d" % (what, count), InputWarning, stacklevel=3)


def load(source: Source, *,
         format: Optional[str] = None,
         weight: Optional[str] = None,
         steps: Union[None, str, int] = None,
         thread: Union[None, str, Sequence[str]] = None,
         window: Optional[Window] = None,
         group_by: Optional[str] = None,
         categories: Union[None, str, Sequence[str]] = None,
         stacks: Optional[str] = None,
         category_rule: Union[None, str, Sequence[str]] = None,
         max_input_bytes: Optional[int] = None,
         threads_to_use: Optional[int] = None,
         pid: bool = False, tid: bool = False, kernel: bool = False, jit: bool = False,
         all: bool = False, addrs: bool = False,
         event_filter: Optional[str] = None,
         timeline_events: int = 0,
         stream_traces: Optional[str] = None,
         progress: bool = False) -> "Profile":
    """Reads a profile: any input ``flamefold`` reads, recognised from its content.

    ``source`` is a path, a list of paths (several ranks or files merged into one profile, as
    ``flamefold flamegraph a.json b.json`` merges them), ``bytes``, or a file object opened for
    reading. ``.gz`` and ``.zst`` inputs are decompressed. The GIL is released while reading.

    Options (the CLI's read options, ``--group-by`` as ``group_by=`` and so on):

    format           input format: folded, perf, kineto, nsys, ascend, pstats, speedscope,
                     cpuprofile, gecko, pprof, dtrace, sample, xctrace, vtune, vsprof, ghcprof,
                     bpftrace, go, jstack, stap (default: sniffed from the content)
    weight           the profile's default weight: samples, cpu, gpu, npu, kernels, calls
                     (default: the input's); ``top``, ``write`` and ``to_folded`` use it
    steps            traces: only these ProfilerStep#N ranges: 3, "3-5", "3,5,7-9"
    thread           traces: only threads whose name contains this, with this tid, or "main"
                     (tid = pid); a string or a list of them
    window           traces: "START:END" from the first event, in ms or with a unit (ns, us, ms,
                     s): "100:250", "1s:2.5s", ":300ms"; or a (start, end) tuple in ms, None open
    group_by         traces: levels above the stacks: process, thread, none or auto (default:
                     Kineto and nsys by process, Ascend by thread); several ranks keep a rank level
    categories       traces: only events of these categories ("python_function,cpu_op" or a list)
    stacks           nsys: nvtx (default) or backtrace; Ascend: ops (default) or callchain
    category_rule    Ascend: frame category keywords, "CATEGORY=KW1,KW2" or "CATEGORY+=KW" (list ok)
    max_input_bytes  refuse database inputs larger than this (Ascend default: 10 GiB)
    threads_to_use   worker threads (default: all cores)
    pid, tid, kernel, jit, all, addrs
                     perf script: stackcollapse-perf.pl's switches of the same names
    event_filter     perf script: only samples of this event (default: the first seen)
    timeline_events  traces: events kept for the HTML viewer's flame chart view (the CLI's
                     --timeline-events; default 0 here: no chart, the profile stays small)
    stream_traces    Chrome/Kineto traces: "always" builds the profile as the events stream by,
                     in memory that follows the call tree; "never" from all events at once;
                     "auto" (default) streams traces of 2 GB or more
    progress         a progress line on stderr while reading, when stderr is a terminal

    Bad input raises ``flamefold.InputError`` with the CLI's one-line message; options the input
    cannot take raise ``flamefold.UsageError``. Recoverable oddities are ``InputWarning`` warnings.
    """
    options = _read_options(format=format, weight=weight, steps=steps, thread=thread, window=window,
                            group_by=group_by, categories=categories, stacks=stacks, category_rule=category_rule,
                            max_input_bytes=max_input_bytes, threads_to_use=threads_to_use, pid=pid, tid=tid,
                            kernel=kernel, jit=jit, all=all, addrs=addrs, event_filter=event_filter,
                            timeline_events=timeline_events or None, stream_traces=stream_traces,
                            progress=progress)
    native, origin = _load_native(source, options)
    _warn_counters(native)
    return Profile(native, origin)


def _load_native(source: Source, options: Dict[str, Any]) -> Tuple["_native.Profile", Any]:
    if isinstance(source, (str, os.PathLike)) or _is_paths(source):
        paths = [os.fspath(source)] if isinstance(source, (str, os.PathLike)) else [os.fspath(p) for p in source]
        if not paths:
            raise UsageError("load: no input (an empty list of paths)")
        # What filter() reads again: absolute paths, in case the working directory changes.
        return _native.read(paths, options), ("load", [os.path.abspath(p) for p in paths], options)
    if isinstance(source, (bytes, bytearray, memoryview)):
        data = bytes(source)  # no copy for bytes itself
        return _read_bytes(data, "<bytes>", options), ("load", data, options)
    if hasattr(source, "read"):
        data = source.read()
        if isinstance(data, str):
            data = data.encode("utf-8")
        name = getattr(source, "name", None)
        name = name if isinstance(name, str) else "<file>"
        # The bytes are not kept (they may be large): filter() cannot read them again.
        return _read_bytes(data, name, options), None
    raise TypeError("load: expected a path, a list of paths, bytes or a file object, not %s" % type(source).__name__)


# ---------------------------------------------------------------------------- Profile

class Profile:
    """A profile: a call tree with one or more weight columns (``weights``), as the CLI's writers
    see it. Immutable; arrays handed out share its memory. Pickles (through the profile's own
    compact binary form, see ``to_bytes``)."""

    __slots__ = ("_native", "_origin", "_frames", "__weakref__")

    def __init__(self, native: "_native.Profile", origin: Any = None):
        self._native = native
        self._origin = origin  # how it was made, for filter(): a tree of ("load" | "merge" | "diff", ...)
        self._frames: Optional[Table] = None

    # -- what it holds

    @property
    def weights(self) -> List[str]:
        """The weight columns: ``['cpu', 'calls', 'gpu', 'kernels']`` for a PyTorch trace."""
        return self._native.weights

    @property
    def units(self) -> Dict[str, str]:
        """Each weight's unit: ``ns``, ``count``, ``samples``, or perf's event (``cycles`` ...)."""
        return dict(zip(self._native.weights, self._native.units))

    @property
    def default_weight(self) -> str:
        """The weight ``top``, ``write`` and ``to_folded`` use unless told (``load(weight=...)``)."""
        weights = self._native.weights
        return weights[self._native.default_column] if weights else ""

    @property
    def format(self) -> str:
        """The input format the profile was read from (``kineto``, ``perf``, ``folded`` ...)."""
        return self._native.source_format

    @property
    def inputs(self) -> List[str]:
        return self._native.inputs

    @property
    def facts(self) -> Dict[str, str]:
        """What the reader learned (``events``, ``device ops`` ...), as ``flamefold info`` prints it."""
        return dict(self._native.facts)

    @property
    def counters(self) -> Dict[str, int]:
        """Recoverable oddities seen while reading, by what they were."""
        return dict(self._native.counters)

    @property
    def node_count(self) -> int:
        """Nodes of the call tree, the root included."""
        return self._native.node_count

    def _column(self, weight: Optional[str]) -> int:
        return self._native.default_column if weight is None else self._native.choose_column(weight)

    def total(self, weight: Optional[str] = None) -> float:
        """The sum of a weight over the whole profile."""
        return self._native.total(self._column(weight))

    def top(self, n: int = 10, weight: Optional[str] = None, sort: str = "self") -> Rows:
        """The hottest frames, as ``flamefold top``: rows with ``frame``, ``file``, ``line``,
        ``category``, ``self``, ``total`` (counted once per call path under recursion), ``calls``
        (when the profile counts calls), ``self_pct``, ``total_pct``; ``sort`` is ``self`` or
        ``total``; ``n=0`` gives every frame. ``.to_pandas()`` makes a DataFrame."""
        if n < 0:
            raise UsageError("top: n must be 0 (all) or more")
        return Rows(self._native.top(self._column(weight), sort, n))

    def kernels(self, n: int = 0) -> Rows:
        """Per device operation (kernel, memcpy, memset) of a traced profile, by total time: the
        kernel summary of ``flamefold top --weight gpu`` (``name``, ``kind``, ``count``,
        ``total_ns``, ``mean_ns``, ``min_ns``, ``max_ns``, ``percent``)."""
        return Rows(self._native.kernels(n))

    @property
    def frames(self) -> Table:
        """The frame table, one entry per frame id: ``name``, ``file`` and ``category`` (lists of
        str, "" when unknown), ``line`` (uint32, 0 when unknown) and ``group`` (1 for the thread,
        process and rank frames at the top of the tree)."""
        if self._frames is None:
            n = self._native
            self._frames = Table(name=n.frame_names(), file=n.frame_files(), line=_array(n.frame_lines()),
                                 category=n.frame_categories(), group=_array(n.frame_is_group()))
        return self._frames

    @property
    def tree(self) -> Table:
        """The call tree in columns, one entry per node (node 0 is the root, parents come before
        their children): ``parent`` and ``frame`` (uint32 ids into ``frames``; the root's are
        0xFFFFFFFF) and each weight's self value by its name (float64). No copy is made: the
        arrays are read-only views of the profile."""
        n = self._native
        table = Table(parent=_array(n.parents()), frame=_array(n.node_frames()))
        for i, w in enumerate(n.weights):
            table[w] = _array(n.self_weights(i))
        return table

    def totals(self, weight: Optional[str] = None):
        """Inclusive weights per node (a new array, float64)."""
        return _array(self._native.total_weights(self._column(weight)))

    # -- outputs

    def write(self, path: PathLike, *, weight: Optional[str] = None, title: Optional[str] = None,
              subtitle: Optional[str] = None, width: Optional[int] = None,
              minwidth: Union[None, float, str] = None, colors: Optional[str] = None,
              inverted: bool = False, reverse: bool = False, countname: Optional[str] = None,
              height: Optional[int] = None, fonttype: Optional[str] = None, fontsize: Optional[float] = None,
              fontwidth: Optional[float] = None, nametype: Optional[str] = None, notes: Optional[str] = None,
              bgcolors: Optional[str] = None, search_color: Optional[str] = None,
              negate: bool = False, short_names: bool = False, merge_modules: bool = False,
              source_roots: Union[None, str, Sequence[str]] = None) -> str:
        """Writes the profile, the kind chosen by the extension as the CLI's ``-o``: ``.html``
        (the interactive viewer), ``.svg``, ``.folded`` (also ``.collapsed``, ``.txt``),
        ``.prof``/``.pstats`` (cProfile statistics derived from the tree, for snakeviz),
        ``.pb.gz``/``.pb`` (pprof), ``.speedscope.json``. The
        file appears whole or not at all (written aside, renamed into place); the GIL is released
        meanwhile. Returns the path.

        Options (``flamefold flamegraph``'s): weight (the column for SVG and folded outputs; the
        HTML carries them all), title, subtitle, width, minwidth (pixels or "0.5%"), colors (SVG
        palette: hot, mem, io, java, js, perl, red, green, blue, aqua, yellow, purple, orange),
        inverted, reverse, countname, height, fonttype, fontsize, fontwidth, nametype, notes,
        bgcolors, search_color, negate (differential hues swapped), short_names and
        merge_modules (readable ML stacks: ``--short-names``, ``--merge-modules``; the HTML page
        gets its switches turned on instead), source_roots (HTML: folders whose files give the
        source lines around frames, ``--source-root``)."""
        options = dict(weight=weight, title=title, subtitle=subtitle, width=width, minwidth=minwidth,
                       colors=colors, inverted=inverted or None, reverse=reverse or None, countname=countname,
                       height=height, fonttype=fonttype, fontsize=fontsize, fontwidth=fontwidth,
                       nametype=nametype, notes=notes, bgcolors=bgcolors, search_color=search_color,
                       negate=negate or None, short_names=short_names or None,
                       merge_modules=merge_modules or None, source_roots=_listed(source_roots))
        path = os.fspath(path)
        self._native.write(path, {k: v for k, v in options.items() if v is not None})
        return path

    def to_folded(self, weight: Optional[str] = None) -> str:
        """Folded stacks (``a;b;c 12`` lines, byte order), as ``flamefold collapse`` writes them."""
        return self._native.render("folded", {} if weight is None else {"weight": weight})

    def to_svg(self, **options: Any) -> str:
        """The SVG flame graph as text (``write``'s options)."""
        return self._native.render("svg", _write_options(options))

    def to_html(self, **options: Any) -> str:
        """The interactive HTML viewer as text: one self-contained page (``write``'s options)."""
        return self._native.render("html", _write_options(options))

    def _repr_html_(self) -> str:
        # Jupyter: the viewer in an iframe whose document is the page itself (srcdoc), sandboxed
        # to scripts only, so it runs apart from the notebook (no same origin, no storage, no
        # navigation of the notebook) and makes no network request (its own CSP).
        page = self.to_html()
        return ('<iframe class="flamefold" title="flamefold flame graph" sandbox="allow-scripts" '
                'style="width:100%%;height:620px;border:1px solid #ccc" srcdoc="%s"></iframe>'
                % html.escape(page, quote=True))

    def __repr__(self) -> str:
        units = self.units
        weights = ", ".join("%s (%s)" % (w, units[w]) for w in self.weights)
        source = self.inputs[0] if len(self.inputs) == 1 else "%d inputs" % len(self.inputs)
        return "<flamefold.Profile %s from %s: %d call paths; weights %s>" % (
            self.format or "profile", source, self.node_count - 1, weights or "none")

    # -- derived profiles

    def filter(self, threads: Union[None, str, Sequence[str]] = None, steps: Union[None, str, int] = None,
               window: Optional[Window] = None) -> "Profile":
        """The profile again with only these threads, ProfilerStep ranges or time window (the
        meaning of ``load``'s ``thread``, ``steps`` and ``window``; given values replace the
        load's own). Steps and windows select events, which the call tree no longer has: the
        inputs are read again (merged and differential profiles: each of their inputs), so this
        needs the inputs where they were; profiles from file objects or unpickled ones cannot."""
        extra = _read_options(thread=threads, steps=steps, window=window)
        if self._origin is None:
            raise UsageError("filter: this profile was not read from paths or bytes (a file object, or unpickled): "
                             "load the input again with thread=, steps=, window=")
        native, origin = _replay(self._origin, extra)
        return Profile(native, origin)

    # -- pickling

    def to_bytes(self, compress: bool = True) -> bytes:
        """The profile's own binary form (zstd-compressed unless told): everything it holds,
        from which ``Profile.from_bytes`` makes an equal profile (byte-identical outputs)."""
        return self._native.encode(compress)

    @staticmethod
    def from_bytes(data: bytes, name: str = "<bytes>") -> "Profile":
        """The profile ``to_bytes`` encoded; ``InputError`` on anything else."""
        return Profile(_native.decode(bytes(data), name))

    def __reduce__(self):
        return (_unpickle, (self.to_bytes(),))


def _unpickle(data: bytes) -> Profile:
    return Profile.from_bytes(data, "<pickle>")


_WRITE_KEYS = ("weight", "title", "subtitle", "width", "minwidth", "colors", "inverted", "reverse", "countname",
               "height", "fonttype", "fontsize", "fontwidth", "nametype", "notes", "bgcolors", "search_color",
               "negate", "short_names", "merge_modules", "source_roots")


def _write_options(options: Dict[str, Any]) -> Dict[str, Any]:
    unknown = sorted(set(options) - set(_WRITE_KEYS))
    if unknown:
        raise TypeError("unknown write option(s): %s (known: %s)" % (", ".join(unknown), ", ".join(_WRITE_KEYS)))
    out = {k: v for k, v in options.items() if v is not None and v is not False}
    if "source_roots" in out:
        out["source_roots"] = _listed(out["source_roots"])
    return out


def _replay(origin: Any, extra: Dict[str, Any]) -> Tuple["_native.Profile", Any]:
    kind = origin[0]
    if kind == "load":
        _, source, options = origin
        options = dict(options, **extra)
        if isinstance(source, bytes):
            return _read_bytes(source, "<bytes>", options), ("load", source, options)
        return _native.read(source, options), ("load", source, options)
    if kind == "merge":
        _, origins, label_by, weight = origin
        parts = [_replay(o, extra) for o in origins]
        natives = [p for p, _ in parts]
        return (_native.merge(natives, _sources(natives), label_by, weight or ""),
                ("merge", [o for _, o in parts], label_by, weight))
    if kind == "diff":
        _, before, after, normalize, strip_hex = origin
        b, bo = _replay(before, extra)
        a, ao = _replay(after, extra)
        return _native.diff(b, a, normalize, strip_hex), ("diff", bo, ao, normalize, strip_hex)
    raise UsageError("filter: this profile cannot be read again")


# ---------------------------------------------------------------------------- merge and diff

def _sources(parts: Sequence["_native.Profile"]) -> List[str]:
    # What names a part that has no input (bytes, a merge): its place in the list.
    return ["profile %d" % (i + 1) for i in range(len(parts))]


def merge(profiles: Iterable[Profile], *, label_by: str = "file", weight: Optional[str] = None) -> Profile:
    """One profile from several (ranks, files, runs): ``flamefold merge``'s merge, in memory.

    Each profile goes under a top-level level by ``label_by``: ``"file"`` (its input's file
    name), ``"rank"`` (``"rank N"``: the rank its trace records, else the number in its file
    name) or ``"none"`` (all stacks merged); profiles that are merges already keep their levels.
    Weights are matched by name (a weight in other units in two profiles is an ``InputError``)
    and listed by name; ``weight`` chooses the default (else the least by name of the parts'
    defaults). The result is canonical: merging is associative and order-independent, byte for
    byte, so partial merges (``flamefold.dask.load_many``) give the same profile. Like the CLI's
    merge, it keeps the call trees and weights, not the parts' facts or kernel statistics."""
    profiles = list(profiles)
    if not profiles:
        raise UsageError("merge: no profiles")
    for p in profiles:
        if not isinstance(p, Profile):
            raise TypeError("merge: expected flamefold.Profile objects, not %s" % type(p).__name__)
    if label_by not in ("file", "rank", "none"):
        raise UsageError("merge: label_by takes file, rank or none (not %r)" % (label_by,))
    natives = [p._native for p in profiles]
    origin = None
    if all(p._origin is not None for p in profiles):
        origin = ("merge", [p._origin for p in profiles], label_by, weight)
    return Profile(_native.merge(natives, _sources(natives), label_by, weight or ""), origin)


def diff(before: Union[Profile, Source], after: Union[Profile, Source], *, normalize: bool = False,
         strip_hex: bool = False, **load_options: Any) -> Profile:
    """A differential profile, as ``flamefold diff``: the union of both trees, the after side's
    weights as the ordinary columns and each before side's in ``before:<name>``. Its HTML opens
    in the viewer's differential mode, its SVG is red/blue, its folded output has
    ``stack before after`` lines.

    Each side is a Profile or anything ``load`` takes (read with ``load_options``; like the CLI,
    ``group_by="none"`` unless given, so the threads of two runs line up). For Profiles, load
    both with ``group_by="none"`` for the same effect. ``normalize`` scales the before side to
    the after side's total; ``strip_hex`` reads hex numbers in names as ``0x...``."""
    load_options.setdefault("group_by", "none")

    def side(x: Union[Profile, Source]) -> Profile:
        return x if isinstance(x, Profile) else load(x, **load_options)

    b, a = side(before), side(after)
    origin = None
    if b._origin is not None and a._origin is not None:
        origin = ("diff", b._origin, a._origin, bool(normalize), bool(strip_hex))
    return Profile(_native.diff(b._native, a._native, bool(normalize), bool(strip_hex)), origin)
