// Ascend profiler databases: torch_npu's ascend_pytorch_profiler_N.db and msprof's
// msprof_N.db / report_N.db (older schemas: API vs CANN_API, start/end vs startNs/endNs,
// correlationId vs globalTaskId), also after MindStudio Insight rewrote them (extra depth
// columns and tables). Host intervals come from PYTORCH_API (or CANN_API/API when a DB has
// no PYTORCH_API); NPU tasks (TASK, named from COMPUTE_TASK_INFO) are joined to the op that
// launched them through PYTORCH_API.connectionId -> CONNECTION_IDS -> TASK.connectionId.
#pragma once
#include <string>
#include <string_view>
#include <vector>

#include "flamefold/options.h"
#include "flamefold/profile.h"
#include "flamefold/readers/sqlite/sqlite_db.h"
#include "flamefold/timeline.h"
#include "flamefold/timeline/build_profile.h"
#include "flamefold/writers/chrome_trace.h"

namespace flamefold {

// MindStudio flamegraph.py's frame categories: the first rule that matches wins, keywords are
// matched case-insensitively as substrings; then ".py"/"python" -> python; else unknown.
struct AscendCategoryRules {
  std::vector<std::string> cann = {"cann", "ascendcl", "aclnn", "aclrt", "aclmdl", "aclprof", "hccl"};
  std::vector<std::string> python_framework = {"torch", "torch_npu", "aten::", "c10::", "aten_"};
  // Empty with python_default: the seed's rule (".py" case-sensitively, or "python").
  std::vector<std::string> python;
  bool python_default = true;
};
std::string_view classify_ascend_frame(std::string_view name, const AscendCategoryRules& rules = {});
// Applies --category-rule texts ("cann=aclnn,hccl" replaces, "cann+=mykernel" adds);
// throws UsageError on an unknown category or a malformed rule.
void apply_category_rules(AscendCategoryRules& rules, const std::vector<std::string>& texts);

struct AscendOptions {
  bool for_flamegraph = false;  // PYTORCH_API ops become the launches of their NPU tasks
  bool callchains = false;      // PYTORCH_CALLCHAINS Python frames above each op (--stacks callchain)
  bool cann_launches = false;   // CANN_API rows as host events (launches of the tasks no op claims)
  AscendCategoryRules rules;
};

struct AscendTrace {
  Timeline timeline;
  TraceSideInfo side;
};

// The seed's size cap when ReadOptions::max_input_bytes is 0.
inline constexpr uint64_t kAscendDefaultMaxBytes = 10ull << 30;

bool is_ascend_db(const sqlite::Db& db);  // STRING_IDS plus PYTORCH_API, CANN_API or API
AscendTrace read_ascend_trace(const std::string& path, const ReadOptions& read, const AscendOptions& options);
// Flame graph: by default the seed's view (host PYTORCH_API intervals per thread, ns, under
// `thread_<tid> (globalTid: <n>)`); "npu" column = NPU task time under the launching op.
// Streamed (ascend_stream.cpp): memory follows the call tree, not the rows.
Profile read_ascend(const std::string& path, const ReadOptions& read);
// The same profile from the whole timeline in memory (read_ascend_trace + build_profile): the
// reference the streaming reader is tested against.
Profile read_ascend_in_memory(const std::string& path, const ReadOptions& read);
// The reader and build options of an Ascend flame graph for these read options.
void ascend_profile_options(const ReadOptions& read, AscendOptions& o, BuildOptions& b);

}  // namespace flamefold
