// flamefold._native: the C++ library seen from Python (pybind11). The Python package
// (python/flamefold/) wraps it with keyword arguments, docstrings and type hints; this layer
// converts options, releases the GIL around every read, write, merge and encoding, turns the
// library's errors into flamefold.InputError / UsageError / Error, and hands out the profile's
// arrays as read-only buffers that keep the profile alive (numpy wraps them without a copy).
#include <malloc.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>
#include <stdlib.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "flamefold/call_stats.h"
#include "flamefold/diff.h"
#include "flamefold/errors.h"
#include "flamefold/function_stats.h"
#include "flamefold/input.h"
#include "flamefold/merge.h"
#include "flamefold/output.h"
#include "flamefold/pipeline.h"
#include "flamefold/profile_binary.h"
#include "flamefold/writers/kernel_summary.h"
#include "flamefold/writers/pstats.h"

namespace py = pybind11;
using namespace flamefold;

namespace {

using ProfilePtr = std::shared_ptr<Profile>;

// ---------------------------------------------------------------- text and errors

// Names come from profiles: invalid UTF-8 becomes U+FFFD, as in the HTML viewer.
py::str text(std::string_view s) {
  PyObject* o = PyUnicode_DecodeUTF8(s.data(), static_cast<Py_ssize_t>(s.size()), "replace");
  if (!o) throw py::error_already_set();
  return py::reinterpret_steal<py::str>(o);
}
// Whole outputs (folded, SVG, HTML): bytes that are not UTF-8 survive as surrogates, so
// .encode("utf-8", "surrogateescape") gives back exactly what the CLI writes.
py::str output_text(const std::string& s) {
  PyObject* o = PyUnicode_DecodeUTF8(s.data(), static_cast<Py_ssize_t>(s.size()), "surrogateescape");
  if (!o) throw py::error_already_set();
  return py::reinterpret_steal<py::str>(o);
}

void raise(const char* cls_name, py::tuple args) {
  py::object cls = py::module_::import("flamefold._errors").attr(cls_name);
  py::object exc = cls(*args);
  PyErr_SetObject(cls.ptr(), exc.ptr());
}

void translate(std::exception_ptr p) {
  try {
    if (p) std::rethrow_exception(p);
  } catch (const InputError& e) {
    raise("InputError", py::make_tuple(e.what(), e.file(), e.place(), e.problem()));
  } catch (const UsageError& e) {
    raise("UsageError", py::make_tuple(e.what()));
  } catch (const py::builtin_exception&) {
    throw;  // pybind11's own (cast errors, ...): its translator
  } catch (const py::error_already_set&) {
    throw;
  } catch (const std::runtime_error& e) {
    // What the CLI prints as "flamefold: error: ..." for anything else (an output that cannot
    // be created, a zstd failure ...).
    raise("Error", py::make_tuple(e.what()));
  }
}

// ---------------------------------------------------------------- options

ReadOptions read_options(const py::dict& d) {
  ReadOptions r;
  for (auto [key_obj, v] : d) {
    const std::string key = py::cast<std::string>(key_obj);
    if (v.is_none()) continue;
    if (key == "format") {
      r.format = py::cast<std::string>(v);
      if (r.format == "auto") r.format.clear();
      if (!r.format.empty()) parse_format(r.format);  // an unknown name: UsageError now
    } else if (key == "pid") r.perf.pid = py::cast<bool>(v);
    else if (key == "tid") r.perf.tid = py::cast<bool>(v);
    else if (key == "kernel") r.perf.kernel = py::cast<bool>(v);
    else if (key == "jit") r.perf.jit = py::cast<bool>(v);
    else if (key == "all") r.perf.all = py::cast<bool>(v);
    else if (key == "addrs") r.perf.addrs = py::cast<bool>(v);
    else if (key == "event_filter") r.perf.event_filter = py::cast<std::string>(v);
    else if (key == "stacks") r.stacks = py::cast<std::string>(v);
    else if (key == "max_input_bytes") r.max_input_bytes = py::cast<uint64_t>(v);
    else if (key == "category_rule") r.category_rules = py::cast<std::vector<std::string>>(v);
    else if (key == "weight") r.weight = py::cast<std::string>(v);
    else if (key == "threads_to_use") r.threads_to_use = py::cast<unsigned>(v);
    else if (key == "steps") r.steps = py::cast<std::string>(v);
    else if (key == "thread") r.threads = py::cast<std::vector<std::string>>(v);
    else if (key == "categories") r.categories = py::cast<std::vector<std::string>>(v);
    else if (key == "group_by") {
      r.group_by = py::cast<std::string>(v);
      if (r.group_by != "process" && r.group_by != "thread" && r.group_by != "none" && r.group_by != "auto")
        throw UsageError("group_by: expected process, thread, none or auto, not '" + r.group_by + "'");
    } else if (key == "window") parse_time_window(py::cast<std::string>(v), r);
    else if (key == "progress") r.progress = py::cast<bool>(v) && isatty(2);
    else if (key == "timeline_events") r.chart_events = py::cast<uint64_t>(v);
    else if (key == "stream_traces") {
      const std::string mode = py::cast<std::string>(v);
      if (mode != "auto" && mode != "always" && mode != "never")
        throw UsageError("stream_traces: expected auto, always or never, not '" + mode + "'");
      r.stream_traces = mode == "always" ? 1 : mode == "never" ? -1 : 0;
    }
    else throw UsageError("unknown read option '" + key + "'");
  }
  return r;
}

WriteOptions write_options(const py::dict& d, const Profile& p) {
  WriteOptions w;
  for (auto [key_obj, v] : d) {
    const std::string key = py::cast<std::string>(key_obj);
    if (v.is_none()) continue;
    if (key == "weight") w.column = choose_column(p, py::cast<std::string>(v));
    else if (key == "title") w.title = py::cast<std::string>(v);
    else if (key == "subtitle") w.subtitle = py::cast<std::string>(v);
    else if (key == "countname") w.countname = py::cast<std::string>(v);
    else if (key == "colors") w.palette = py::cast<std::string>(v);
    else if (key == "width") w.width = py::cast<int>(v);
    else if (key == "minwidth") {
      std::string t = py::str(v);  // 0.1 (pixels) or "0.5%"
      bool percent = !t.empty() && t.back() == '%';
      std::string number = percent ? t.substr(0, t.size() - 1) : t;
      char* end = nullptr;
      double x = std::strtod(number.c_str(), &end);
      if (number.empty() || *end != '\0' || !(x >= 0))
        throw UsageError("minwidth: expected pixels (0.1) or a percentage ('0.5%'), not '" + t + "'");
      (percent ? w.minwidth_percent : w.minwidth) = x;
    } else if (key == "inverted") w.inverted = py::cast<bool>(v);
    else if (key == "reverse") w.reverse = py::cast<bool>(v);
    else if (key == "height") w.frame_height = py::cast<int>(v);
    else if (key == "fonttype") w.font_type = py::cast<std::string>(v);
    else if (key == "fontsize") w.font_size = py::cast<double>(v);
    else if (key == "fontwidth") w.font_width = py::cast<double>(v);
    else if (key == "nametype") w.name_type = py::cast<std::string>(v);
    else if (key == "notes") w.notes = py::cast<std::string>(v);
    else if (key == "bgcolors") w.bgcolors = py::cast<std::string>(v);
    else if (key == "search_color") w.search_color = py::cast<std::string>(v);
    else if (key == "negate") w.negate = py::cast<bool>(v);
    else if (key == "short_names") w.names.short_names = py::cast<bool>(v);
    else if (key == "merge_modules") w.names.merge_modules = py::cast<bool>(v);
    else if (key == "source_roots") w.source_roots = py::cast<std::vector<std::string>>(v);
    else throw UsageError("unknown write option '" + key + "'");
  }
  if (w.column < 0) w.column = p.default_column;
  return w;
}

// ---------------------------------------------------------------- reading and writing

// After reading: `weight` picks the profile's default column, as --weight picks the column the
// CLI writes.
void apply_weight(Profile& p, const ReadOptions& r) {
  if (!r.weight.empty()) p.default_column = choose_column(p, r.weight);
}

ProfilePtr read_paths(const std::vector<std::string>& paths, const py::dict& options) {
  ReadOptions r = read_options(options);
  py::gil_scoped_release nogil;
  auto p = std::make_shared<Profile>(read_profile(paths, r));
  apply_weight(*p, r);
  return p;
}

ProfilePtr read_bytes(const py::bytes& data, const std::string& name, const py::dict& options) {
  ReadOptions r = read_options(options);
  char* ptr = nullptr;
  Py_ssize_t size = 0;
  if (PyBytes_AsStringAndSize(data.ptr(), &ptr, &size) != 0) throw py::error_already_set();
  // `data` is immutable and referenced by the caller for the whole call: readable without the GIL.
  py::gil_scoped_release nogil;
  Input input = Input::from_memory(name, std::string(ptr, static_cast<size_t>(size)));
  Format f = r.format.empty() ? sniff_format(input.head(), name) : parse_format(r.format);
  if (f == Format::Nsys || f == Format::Ascend)
    throw UsageError(name + ": SQLite databases are read from files (pass a path)");
  auto p = std::make_shared<Profile>(read_profile(input, r));
  apply_weight(*p, r);
  return p;
}

// The column the pstats writer uses: `cpu` when there is one and no weight was asked for (as
// `flamefold convert x.prof` does).
int pstats_column(const Profile& p, const py::dict& options) {
  if (options.contains("weight") && !options["weight"].is_none())
    return choose_column(p, py::cast<std::string>(options["weight"]));
  int cpu = p.column("cpu");
  return cpu >= 0 ? cpu : p.default_column;
}

// --short-names / --merge-modules rename frames: on a copy (a Profile object never changes);
// HTML keeps the names and gets the page's switches instead, as the CLI's outputs.
void write_with_names(const Profile& p, const std::string& path, const WriteOptions& w) {
  if (!w.names.any() || output_kind(path, w.to) == OutputKind::Html) {
    write_profile(p, path, w);
    return;
  }
  Profile renamed = copy_profile(p);
  apply_name_options(renamed, path, w);
  write_profile(renamed, path, w);
}

void write_file(const ProfilePtr& p, const std::string& path, const py::dict& options) {
  std::string ext = output_extension(path);
  if (ext == "prof" || ext == "pstats") {
    int column = pstats_column(*p, options);
    py::gil_scoped_release nogil;
    CallStats st = call_stats(*p, column);
    st.source = p->inputs.empty() ? std::string("profile") : p->inputs[0];
    OutputFile out(path);
    write_pstats(st, out);
    out.commit();
    return;
  }
  WriteOptions w = write_options(options, *p);
  py::gil_scoped_release nogil;
  write_with_names(*p, path, w);
}

// An output as text: written to a temporary file by the same writer, read back.
py::str render(const ProfilePtr& p, const std::string& kind, const py::dict& options) {
  if (kind != "html" && kind != "svg" && kind != "folded") throw UsageError("render: html, svg or folded, not " + kind);
  WriteOptions w = write_options(options, *p);
  std::string out;
  {
    py::gil_scoped_release nogil;
    const char* dir = getenv("TMPDIR");
    std::string path = std::string(dir && *dir ? dir : "/tmp") + "/flamefold-XXXXXX." + kind;
    int fd = mkstemps(path.data(), static_cast<int>(kind.size() + 1));
    if (fd < 0) throw std::runtime_error("cannot create a temporary file in " + std::string(dir && *dir ? dir : "/tmp"));
    close(fd);
    try {
      write_with_names(*p, path, w);
      std::ifstream in(path, std::ios::binary);
      std::ostringstream ss;
      ss << in.rdbuf();
      out = std::move(ss).str();
    } catch (...) {
      unlink(path.c_str());
      throw;
    }
    unlink(path.c_str());
  }
  return output_text(out);
}

// ---------------------------------------------------------------- arrays without copies

// A read-only one-dimensional view of numbers that `owner` keeps alive: a column of the profile
// (the profile is the owner), or an array computed for the caller.
struct Column {
  std::shared_ptr<const void> owner;
  const void* data = nullptr;
  size_t size = 0;
  ssize_t stride = 0;
  std::string format;  // struct-module code: "I" uint32, "d" float64
  ssize_t itemsize = 0;
};

template <typename T>
Column view(const ProfilePtr& p, const T* data, size_t size, ssize_t stride = sizeof(T)) {
  return Column{p, data, size, stride, py::format_descriptor<T>::format(), static_cast<ssize_t>(sizeof(T))};
}

template <typename T>
Column owned(std::vector<T>&& values) {
  auto v = std::make_shared<std::vector<T>>(std::move(values));
  return Column{v, v->data(), v->size(), sizeof(T), py::format_descriptor<T>::format(), static_cast<ssize_t>(sizeof(T))};
}

// ---------------------------------------------------------------- tables

py::dict frame_row(const Profile& p, FrameId f) {
  py::dict row;
  const Frame& fr = p.symbols[f];
  row["frame"] = text(p.symbols.name(f));
  row["file"] = fr.file ? py::object(text(p.symbols.file(f))) : py::object(py::none());
  row["line"] = fr.line ? py::object(py::int_(fr.line)) : py::object(py::none());
  row["category"] = fr.category ? py::object(text(p.symbols.category_name(fr.category))) : py::object(py::none());
  return row;
}

// `flamefold top`'s rows: frames by self (or total) weight, ties in frame order.
py::list top(const ProfilePtr& p, int column, const std::string& sort, size_t limit) {
  if (column < 0 || column >= static_cast<int>(p->columns.size())) throw UsageError("no such weight column");
  if (sort != "self" && sort != "total") throw UsageError("sort: self or total, not '" + sort + "'");
  const bool by_total = sort == "total";
  std::vector<FrameStats> stats;
  double all = 0;
  {
    py::gil_scoped_release nogil;
    stats = frame_stats(*p, column);
    std::stable_sort(stats.begin(), stats.end(), [&](const FrameStats& a, const FrameStats& b) {
      double ka = by_total ? a.total : a.self, kb = by_total ? b.total : b.self;
      if (ka != kb) return ka > kb;
      return a.frame < b.frame;
    });
    all = p->total(column);
  }
  const bool has_calls = p->column("calls") >= 0;
  size_t rows = std::min(stats.size(), limit ? limit : stats.size());
  py::list out;
  for (size_t i = 0; i < rows; ++i) {
    const FrameStats& s = stats[i];
    py::dict row = frame_row(*p, s.frame);
    row["self"] = s.self;
    row["total"] = s.total;
    row["calls"] = has_calls ? py::object(py::float_(s.calls)) : py::object(py::none());
    row["self_pct"] = all ? 100 * s.self / all : 0.0;
    row["total_pct"] = all ? 100 * s.total / all : 0.0;
    out.append(row);
  }
  return out;
}

// The kernel summary of `top --weight gpu`: per device op, sorted by total time.
py::list kernels(const ProfilePtr& p, size_t limit) {
  int64_t all = 0;
  for (const DeviceOpStats& s : p->device_ops) all += s.total_ns;
  size_t rows = std::min(p->device_ops.size(), limit ? limit : p->device_ops.size());
  py::list out;
  for (size_t i = 0; i < rows; ++i) {
    const DeviceOpStats& s = p->device_ops[i];
    py::dict row;
    row["name"] = text(p->symbols.name(s.frame));
    row["kind"] = text(p->symbols.category_name(p->symbols[s.frame].category));
    row["count"] = s.count;
    row["total_ns"] = s.total_ns;
    row["mean_ns"] = s.count ? double(s.total_ns) / double(s.count) : 0.0;
    row["min_ns"] = s.min_ns;
    row["max_ns"] = s.max_ns;
    row["percent"] = all ? 100.0 * double(s.total_ns) / double(all) : 0.0;
    out.append(row);
  }
  return out;
}

// flamefold merge's merge (merge.h: Merger): each part under the level merge_label gives it by
// `label_by` (its first input names it; `sources[i]` when it has none), one canonical profile
// out: associative, so partial merges (Dask's tree reduction) give the same bytes.
ProfilePtr merge(const std::vector<ProfilePtr>& parts, const std::vector<std::string>& sources,
                 const std::string& label_by, const std::string& weight) {
  if (parts.size() != sources.size()) throw UsageError("merge: one source name per part");
  for (const ProfilePtr& part : parts)
    if (!part) throw UsageError("merge: a part is None");
  py::gil_scoped_release nogil;
  Merger merger;
  for (size_t i = 0; i < parts.size(); ++i) {
    const Profile& one = *parts[i];
    const std::string& source = one.inputs.empty() ? sources[i] : one.inputs[0];
    merger.add(one, merge_label(one, source, label_by), source);
  }
  return std::make_shared<Profile>(merger.finish(weight));
}

ProfilePtr diff(const ProfilePtr& before, const ProfilePtr& after, bool normalize, bool strip_hex) {
  DiffOptions o;
  o.normalize = normalize;
  o.strip_hex = strip_hex;
  py::gil_scoped_release nogil;
  // make_diff consumes its sides; the Python objects stay as they are.
  return std::make_shared<Profile>(make_diff(copy_profile(*before), copy_profile(*after), o));
}

py::bytes encode(const ProfilePtr& p, bool compress) {
  std::string bytes;
  {
    py::gil_scoped_release nogil;
    bytes = encode_profile(*p, compress);
  }
  return py::bytes(bytes);
}

ProfilePtr decode(const py::bytes& data, const std::string& name) {
  std::string_view view(data);  // immutable, referenced by the caller: readable without the GIL
  py::gil_scoped_release nogil;
  return std::make_shared<Profile>(decode_profile(view, name));
}

py::list pairs(const std::vector<std::pair<std::string, std::string>>& v) {
  py::list out;
  for (const auto& [k, x] : v) out.append(py::make_tuple(text(k), text(x)));
  return out;
}

}  // namespace

PYBIND11_MODULE(_native, m) {
  m.doc() = "flamefold's C++ library (use the flamefold package, not this module)";
  // As the CLI's main(): buffers of 1 MB and more get mappings of their own and go back to the
  // OS when freed, so reading a big trace does not leave the process at its high-water mark.
  mallopt(M_MMAP_THRESHOLD, 1 << 20);
  py::register_exception_translator(&translate);

  py::class_<Column>(m, "Column", py::buffer_protocol())
      .def_buffer([](Column& c) {
        static const uint64_t nothing = 0;  // an empty view still points somewhere
        return py::buffer_info(const_cast<void*>(c.size ? c.data : &nothing), c.itemsize, c.format, 1, {static_cast<ssize_t>(c.size)},
                               {c.stride}, /*readonly=*/true);
      })
      .def("__len__", [](const Column& c) { return c.size; });

  py::class_<Profile, ProfilePtr>(m, "Profile")
      .def_property_readonly("weights",
                             [](const ProfilePtr& p) {
                               std::vector<std::string> v;
                               for (const WeightColumn& c : p->columns) v.push_back(c.name);
                               return v;
                             })
      .def_property_readonly("units",
                             [](const ProfilePtr& p) {
                               std::vector<std::string> v;
                               for (const WeightColumn& c : p->columns) v.push_back(c.unit);
                               return v;
                             })
      .def_property_readonly("default_column", [](const ProfilePtr& p) { return p->default_column; })
      .def_property_readonly("source_format", [](const ProfilePtr& p) { return p->source_format; })
      .def_property_readonly("inputs", [](const ProfilePtr& p) { return p->inputs; })
      .def_property_readonly("facts", [](const ProfilePtr& p) { return pairs(p->facts); })
      .def_property_readonly("counters",
                             [](const ProfilePtr& p) {
                               py::list out;
                               for (const Counter& c : p->counters) out.append(py::make_tuple(text(c.what), c.count));
                               return out;
                             })
      .def_property_readonly("node_count", [](const ProfilePtr& p) { return p->node_count(); })
      .def_property_readonly("frame_count", [](const ProfilePtr& p) { return p->symbols.frame_count(); })
      .def("choose_column", [](const ProfilePtr& p, const std::string& w) { return choose_column(*p, w); })
      .def("total", [](const ProfilePtr& p, int c) {
        if (c < 0 || c >= static_cast<int>(p->columns.size())) throw UsageError("no such weight column");
        return p->total(c);
      })
      .def("top", &top)
      .def("kernels", &kernels)
      .def("frame_names",
           [](const ProfilePtr& p) {
             py::list out(p->symbols.frame_count());
             for (FrameId f = 0; f < p->symbols.frame_count(); ++f) out[f] = text(p->symbols.name(f));
             return out;
           })
      .def("frame_files",
           [](const ProfilePtr& p) {
             py::list out(p->symbols.frame_count());
             for (FrameId f = 0; f < p->symbols.frame_count(); ++f) out[f] = text(p->symbols.file(f));
             return out;
           })
      .def("frame_categories",
           [](const ProfilePtr& p) {
             std::vector<py::object> names;  // one str per category, shared by its frames
             for (size_t c = 0; c < p->symbols.category_count(); ++c)
               names.push_back(text(p->symbols.category_name(static_cast<CategoryId>(c))));
             py::list out(p->symbols.frame_count());
             for (FrameId f = 0; f < p->symbols.frame_count(); ++f) out[f] = names[p->symbols[f].category];
             return out;
           })
      .def("frame_lines",
           [](const ProfilePtr& p) {
             const size_t n = p->symbols.frame_count();
             const uint32_t* first = n ? &p->symbols[0].line : nullptr;
             return view(p, first, n, static_cast<ssize_t>(sizeof(Frame)));
           })
      .def("frame_is_group",
           [](const ProfilePtr& p) {
             std::vector<uint8_t> v(p->symbols.frame_count());
             for (FrameId f = 0; f < v.size(); ++f) v[f] = p->symbols.is_group(f);
             return owned(std::move(v));
           })
      .def("parents", [](const ProfilePtr& p) { return view(p, p->parent.data(), p->parent.size()); })
      .def("node_frames", [](const ProfilePtr& p) { return view(p, p->frame.data(), p->frame.size()); })
      .def("self_weights",
           [](const ProfilePtr& p, int c) {
             if (c < 0 || c >= static_cast<int>(p->columns.size())) throw UsageError("no such weight column");
             return view(p, p->columns[c].self.data(), p->columns[c].self.size());
           })
      .def("total_weights",
           [](const ProfilePtr& p, int c) {
             if (c < 0 || c >= static_cast<int>(p->columns.size())) throw UsageError("no such weight column");
             py::gil_scoped_release nogil;
             return owned(p->totals(c));
           })
      .def("write", &write_file)
      .def("render", &render)
      .def("encode", &encode, py::arg("compress") = true);

  m.def("read", &read_paths, py::arg("paths"), py::arg("options"));
  m.def("read_bytes", &read_bytes, py::arg("data"), py::arg("name"), py::arg("options"));
  m.def("merge", &merge, py::arg("parts"), py::arg("sources"), py::arg("label_by"), py::arg("weight"));
  m.def("diff", &diff, py::arg("before"), py::arg("after"), py::arg("normalize"), py::arg("strip_hex"));
  m.def("decode", &decode, py::arg("data"), py::arg("name"));
}
