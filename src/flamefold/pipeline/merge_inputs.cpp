#include <cctype>
#include <string>

#include "flamefold/errors.h"
#include "flamefold/merge.h"
#include "flamefold/pipeline.h"

namespace flamefold {

namespace {

std::string base_name(const std::string& path) {
  size_t slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

// The rank an input records (a Kineto trace's distributedInfo, a pprof's "rank" comment), else
// the number after "rank" in its file name (rank12.pb.gz, trace_rank_3.json), else the last
// number in it; "" when there is none.
std::string rank_of(const Profile& p, const std::string& path) {
  for (const auto& [key, value] : p.facts)
    if (key == "rank" && !value.empty()) return value;
  std::string name = base_name(path), lower = name;
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  auto number_at = [&](size_t i) {
    size_t j = i;
    while (j < name.size() && std::isdigit(static_cast<unsigned char>(name[j]))) ++j;
    return name.substr(i, j - i);
  };
  for (size_t at = lower.rfind("rank"); at != std::string::npos;) {
    size_t i = at + 4;
    while (i < name.size() && (name[i] == '_' || name[i] == '-' || name[i] == '.')) ++i;
    std::string n = number_at(i);
    if (!n.empty()) return n;
    at = at == 0 ? std::string::npos : lower.rfind("rank", at - 1);
  }
  for (size_t i = name.size(); i-- > 0;)
    if (std::isdigit(static_cast<unsigned char>(name[i]))) {
      size_t b = i;
      while (b > 0 && std::isdigit(static_cast<unsigned char>(name[b - 1]))) --b;
      return name.substr(b, i + 1 - b);
    }
  return "";
}

}  // namespace

std::string merge_label(const Profile& one, const std::string& path, std::string_view label_by) {
  if (label_by != "file" && label_by != "rank" && label_by != "none")
    throw UsageError("--label-by takes file, rank or none (not '" + std::string(label_by) + "')");
  if (label_by == "none" || has_rank_levels(one)) return "";
  if (label_by == "file") return base_name(path);
  std::string rank = rank_of(one, path);
  if (rank.empty())
    throw InputError(path, "", "cannot tell its rank: it records none and its name has no number (use --label-by file)");
  return "rank " + rank;
}

Profile merge_inputs(const std::vector<std::string>& paths, const ReadOptions& o, std::string_view label_by,
                     const std::function<void(const std::string&, const Profile&)>& on_read) {
  if (paths.empty()) throw UsageError("merge needs at least one input");
  if (label_by != "file" && label_by != "rank" && label_by != "none")
    throw UsageError("--label-by takes file, rank or none (not '" + std::string(label_by) + "')");
  ReadOptions one_read = o;
  one_read.weight.clear();  // the merged profile's default is chosen at the end
  Merger merger;
  for (const std::string& path : paths) {
    // One at a time: memory holds the merged profile and one input.
    Profile one = read_profile({path}, one_read);
    if (on_read) on_read(path, one);
    merger.add(one, merge_label(one, path, label_by), path);
  }
  return merger.finish(o.weight);
}

}  // namespace flamefold
