#include "flamefold/readers/text/collapse.h"

#include <string>

#include "flamefold/readers/text/text_source.h"

namespace flamefold {

StackFormat sniff_stack_format(std::string_view head) {
  std::string storage;
  head = head_as_utf8(head, storage);
  // Formats with a header of their own first; DTrace's test (any blank line, then frames with a
  // backtick or an address, then a count) last, as it asks least.
  if (looks_like_xctrace(head)) return StackFormat::Xctrace;
  if (looks_like_vsprof(head)) return StackFormat::Vsprof;
  if (looks_like_vtune(head)) return StackFormat::Vtune;
  if (looks_like_ghcprof(head)) return StackFormat::Ghcprof;
  if (looks_like_mac_sample(head)) return StackFormat::Sample;
  if (looks_like_go_pprof_text(head)) return StackFormat::Go;
  if (looks_like_jstack(head)) return StackFormat::Jstack;
  if (looks_like_bpftrace(head)) return StackFormat::Bpftrace;
  if (looks_like_stap(head)) return StackFormat::Stap;
  if (looks_like_dtrace(head)) return StackFormat::Dtrace;
  return StackFormat::None;
}

std::string_view stack_format_name(StackFormat f) {
  switch (f) {
    case StackFormat::Dtrace: return "dtrace";
    case StackFormat::Sample: return "sample";
    case StackFormat::Xctrace: return "xctrace";
    case StackFormat::Vtune: return "vtune";
    case StackFormat::Vsprof: return "vsprof";
    case StackFormat::Ghcprof: return "ghcprof";
    case StackFormat::Bpftrace: return "bpftrace";
    case StackFormat::Go: return "go";
    case StackFormat::Jstack: return "jstack";
    case StackFormat::Stap: return "stap";
    case StackFormat::None: break;
  }
  return "none";
}

Profile read_stack_format(Input& input, StackFormat f, const ReadOptions& options) {
  switch (f) {
    case StackFormat::Dtrace: return read_dtrace(input, options);
    case StackFormat::Sample: return read_mac_sample(input, options);
    case StackFormat::Xctrace: return read_xctrace(input, options);
    case StackFormat::Vtune: return read_vtune(input, options);
    case StackFormat::Vsprof: return read_vsprof(input, options);
    case StackFormat::Ghcprof: return read_ghcprof(input, options);
    case StackFormat::Bpftrace: return read_bpftrace(input, options);
    case StackFormat::Go: return read_go_pprof_text(input, options);
    case StackFormat::Jstack: return read_jstack(input, options);
    case StackFormat::Stap: return read_stap(input, options);
    case StackFormat::None: break;
  }
  return Profile();
}

}  // namespace flamefold
