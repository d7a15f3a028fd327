// Optional sections of the HTML payload: kernel statistics and source lines (html_sections.h).
#include "html_sections.h"

#include <algorithm>
#include <map>
#include <numeric>
#include <optional>
#include <utility>

#include "flamefold/varint.h"
#include "flamefold/json_text.h"
#include "flamefold/source_lines.h"
#include "flamefold/utf8.h"

namespace flamefold::html_sections {


std::string device_ops(const Profile& p, const std::vector<uint32_t>& frame_index, const std::vector<uint8_t>& used) {
  std::string out, rows;
  size_t n = 0;
  for (const DeviceOpStats& s : p.device_ops) {
    if (s.frame >= used.size() || !used[s.frame]) continue;  // its nodes were left out (a selection)
    put_varint(rows, frame_index[s.frame]);
    put_varint(rows, s.count);
    put_varint(rows, uint64_t(std::max<int64_t>(0, s.total_ns)));
    put_varint(rows, uint64_t(std::max<int64_t>(0, s.min_ns)));
    put_varint(rows, uint64_t(std::max<int64_t>(0, s.max_ns)));
    ++n;
  }
  put_varint(out, n);
  return out + rows;
}

std::string sources(const Profile& p, int column, const std::vector<uint32_t>& frame_index,
                    const std::vector<uint8_t>& used, const std::vector<std::string>& roots, size_t max_bytes,
                    size_t max_snippets) {
  const Symbols& sym = p.symbols;
  SourceRoots source_roots(roots);
  // Frames with a location, heaviest first: the sum of their nodes' totals (recursion counted
  // again; only the order matters).
  std::vector<double> weight(sym.frame_count(), 0);
  if (column >= 0 && column < int(p.columns.size())) {
    std::vector<double> totals = p.totals(column);
    for (NodeId n = 1; n < p.node_count(); ++n) weight[p.frame[n]] += totals[n];
  }
  std::vector<FrameId> located;
  for (FrameId f = 0; f < sym.frame_count(); ++f)
    if (f < used.size() && used[f] && sym[f].file && sym[f].line) located.push_back(f);
  std::stable_sort(located.begin(), located.end(), [&](FrameId a, FrameId b) { return weight[a] > weight[b]; });

  std::map<StrId, std::optional<std::string>> resolved_files;  // by the frame's file string
  std::map<std::pair<std::string, uint32_t>, uint32_t> snippet_of;  // (real path, line) -> snippet
  std::string snippets, frames;
  size_t bytes = 0, resolved = 0, embedded = 0, cut = 0, count = 0;
  bool full = false;
  for (FrameId f : located) {
    auto [it, fresh] = resolved_files.try_emplace(sym[f].file);
    if (fresh) it->second = source_roots.resolve(sym.strings[sym[f].file]);
    if (!it->second) continue;
    ++resolved;
    auto key = std::make_pair(*it->second, sym[f].line);
    auto known = snippet_of.find(key);
    uint32_t index;
    if (known != snippet_of.end()) {
      index = known->second;
    } else {
      if (full || count >= max_snippets) {
        ++cut;
        continue;
      }
      std::optional<SourceSnippet> s = source_roots.snippet(*it->second, sym[f].line, kSourceContext);
      if (!s) {
        --resolved;  // the line is not in the file: as if it did not resolve
        continue;
      }
      std::string text;
      for (size_t i = 0; i < s->lines.size(); ++i) {
        if (i) text.push_back('\n');
        text += s->lines[i];
      }
      if (bytes + text.size() > max_bytes) {
        ++cut;
        full = true;  // later frames are cut too: the bound keeps the heaviest, in weight order
        continue;
      }
      bytes += text.size();
      index = uint32_t(count++);
      snippet_of.emplace(std::move(key), index);
      if (index) snippets.push_back(',');
      snippets += '[' + std::to_string(s->first_line) + ',';
      append_clean_json_string(snippets, text);
      snippets.push_back(']');
    }
    if (embedded++) frames.push_back(',');
    frames += '[' + std::to_string(frame_index[f]) + ',' + std::to_string(index) + ']';
  }
  std::string out = "{\"context\":" + std::to_string(kSourceContext) + ",\"max_bytes\":" + std::to_string(max_bytes) +
                    ",\"max_snippets\":" + std::to_string(max_snippets) + ",\"located\":" +
                    std::to_string(located.size()) + ",\"resolved\":" + std::to_string(resolved) +
                    ",\"embedded\":" + std::to_string(embedded) + ",\"cut\":" + std::to_string(cut) +
                    ",\"bytes\":" + std::to_string(bytes) + ",\"snippets\":[";
  out += snippets;
  out += "],\"frames\":[";
  out += frames;
  out += "]}";
  return out;
}

}  // namespace flamefold::html_sections
