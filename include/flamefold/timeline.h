// What traced formats (Kineto JSON, Nsight Systems, Ascend DBs, CUPTI) read into: columnar
// events on tracks, times in integer nanoseconds. build/nest turns host tracks into call
// paths; build/correlate joins device work to the launch that caused it.
#pragma once
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "flamefold/profile.h"

namespace flamefold {

enum class EventKind : uint8_t {
  HostRange,         // cpu_op, user_annotation, python_function, NVTX range, PYTORCH_API row ...
  Launch,            // runtime / driver call that may launch device work (cudaLaunchKernel, aclnn ...)
  Kernel,            // device compute
  Memcpy,
  Memset,
  DeviceAnnotation,  // gpu_user_annotation and other device-side ranges that are not work
  Instant,           // zero-length markers
  Other,
};

bool is_device_work(EventKind k);  // Kernel, Memcpy, Memset

struct Track {
  StrId name = 0;       // "python main thread", "stream 7" ...
  int64_t pid = 0;
  int64_t tid = 0;      // for device tracks: the stream
  uint32_t rank = 0;    // index into Timeline::ranks
  bool device = false;  // GPU/NPU stream
  int32_t device_index = -1;
  StrId process_name = 0;  // from the trace's process metadata; 0 = unknown (shown as "process <pid>")
};

// Python call stacks given as text on ops (older Kineto traces' "Call stack" args), interned:
// many ops share one. Stack ids start at 1; 0 is the empty stack.
struct CallStacks {
  std::vector<FrameId> frames;  // every stack's frames one after another, outermost first
  std::vector<uint32_t> ends;   // stack s ends at ends[s - 1] and starts where stack s - 1 ends

  size_t size() const { return ends.size(); }
  uint32_t add(std::span<const FrameId> stack) {
    frames.insert(frames.end(), stack.begin(), stack.end());
    ends.push_back(static_cast<uint32_t>(frames.size()));
    return static_cast<uint32_t>(ends.size());
  }
  std::span<const FrameId> operator[](uint32_t id) const {
    if (id == 0) return {};
    uint32_t begin = id > 1 ? ends[id - 2] : 0;
    return std::span<const FrameId>(frames.data() + begin, ends[id - 1] - begin);
  }
};

struct Timeline {
  Symbols symbols;  // event names are frames here (name, file, line, category)
  std::vector<Track> tracks;
  std::vector<std::string> ranks;  // rank labels ("rank 0", file name ...); at least one

  // Events, struct of arrays; index = event id.
  std::vector<uint32_t> track;
  std::vector<int64_t> start;  // ns
  std::vector<int64_t> end;    // ns, >= start
  std::vector<FrameId> frame;
  std::vector<EventKind> kind;
  std::vector<uint64_t> correlation;  // launch <-> device work; 0 = none
  // An explicit parent event when the format gives one (Kineto "Python parent id",
  // callchains); kNone = place by time nesting.
  std::vector<uint32_t> parent_hint;
  // The Python stack of an op when the format writes it as text on the op (Kineto "Call
  // stack"): an id into call_stacks, 0 = none. nest puts the frames between the op and the
  // event enclosing it. Optional: empty when no event has one, and may be shorter than the
  // events (the rest have none), so readers without stacks never touch it. A reader that
  // drops or reorders events after setting it must carry it along.
  std::vector<uint32_t> call_stack;
  CallStacks call_stacks;

  std::vector<Counter> counters;  // recoverable oddities met while reading
  std::vector<std::pair<std::string, std::string>> facts;
  std::string source_format;
  std::vector<std::string> inputs;

  size_t size() const { return start.size(); }
  uint32_t add_track(const Track& t) {
    tracks.push_back(t);
    return static_cast<uint32_t>(tracks.size() - 1);
  }
  uint32_t add(uint32_t track_id, int64_t start_ns, int64_t end_ns, FrameId f, EventKind k,
               uint64_t correlation_id = 0, uint32_t parent = kNone) {
    track.push_back(track_id);
    start.push_back(start_ns);
    end.push_back(end_ns);
    frame.push_back(f);
    kind.push_back(k);
    correlation.push_back(correlation_id);
    parent_hint.push_back(parent);
    return static_cast<uint32_t>(start.size() - 1);
  }
  uint32_t call_stack_of(size_t e) const { return e < call_stack.size() ? call_stack[e] : 0; }
  void set_call_stack(uint32_t e, uint32_t stack_id) {
    if (call_stack.size() <= e) call_stack.resize(size_t(e) + 1, 0);
    call_stack[e] = stack_id;
  }
  void reserve(size_t n) {
    track.reserve(n);
    start.reserve(n);
    end.reserve(n);
    frame.reserve(n);
    kind.reserve(n);
    correlation.reserve(n);
    parent_hint.reserve(n);
  }
  void count(std::string_view what, uint64_t n = 1) { add_to_counters(counters, what, n); }
};

}  // namespace flamefold
