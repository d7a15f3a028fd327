#include "flamefold/writers/folded.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "flamefold/diff.h"
#include "flamefold/frame_label.h"

namespace flamefold {

void append_weight(std::string& out, double w) {
  if (w == std::floor(w) && std::fabs(w) < 9.0e15) {
    fmt::format_to(std::back_inserter(out), "{}", static_cast<int64_t>(w));
  } else {
    fmt::format_to(std::back_inserter(out), "{}", w);
  }
}

namespace {

// Among siblings, each child contributes two items: its own line (key = label) and the
// block of its descendants' lines (key = label + ";", compared without being built). Sorting
// those keys bytewise yields the same order as sorting the finished lines, without building
// them all first.
struct Item {
  const std::string* key;
  NodeId node;
  bool block;
};

}  // namespace

void append_perl_number(std::string& out, double w) {
  // Perl prints numbers with %.15g (difffolded.pl's sums of fractional counts read so).
  char buf[40];
  int n = std::snprintf(buf, sizeof buf, "%.15g", w);
  out.append(buf, static_cast<size_t>(n));
}

void write_folded(const Profile& p, int column, OutputFile& out, const WriteOptions& options) {
  const std::vector<double>& self = p.columns[column].self;
  std::vector<double> total = p.totals(column);
  // A differential profile: `stack before after`, as difffolded.pl writes it; a stack is listed
  // when it has weight on either side.
  const int before = before_column(p, column);
  static const std::vector<double> kNoWeights;
  const std::vector<double>& before_self = before >= 0 ? p.columns[before].self : kNoWeights;
  if (before >= 0) {
    std::vector<double> before_total = p.totals(before);
    for (size_t n = 0; n < total.size(); ++n) total[n] = std::fabs(total[n]) + std::fabs(before_total[n]);
  }
  auto own_line = [&](NodeId n) { return self[n] != 0 || (before >= 0 && before_self[n] != 0); };
  std::vector<std::string> labels(p.symbols.frame_count());
  std::vector<bool> labelled(p.symbols.frame_count(), false);
  auto label = [&](NodeId n) -> const std::string& {
    FrameId f = p.frame[n];
    if (!labelled[f]) {
      labels[f] = frame_label(p.symbols, f);
      labelled[f] = true;
    }
    return labels[f];
  };

  std::string prefix;
  std::vector<std::string> block_keys;
  // Explicit stack: (items of one sibling group, position in it, prefix length before it).
  struct Level {
    std::vector<Item> items;
    size_t next = 0;
    size_t prefix_len = 0;
  };
  std::vector<Level> levels;

  auto make_level = [&](NodeId parent_node, size_t prefix_len) {
    Level lv;
    lv.prefix_len = prefix_len;
    for (NodeId c = p.first_child[parent_node]; c != kNone; c = p.next_sibling[c]) {
      if (total[c] == 0) continue;
      const std::string& l = label(c);
      if (own_line(c)) lv.items.push_back(Item{&l, c, false});
      bool has_children = before >= 0 ? total[c] != std::fabs(self[c]) + std::fabs(before_self[c]) : total[c] != self[c];
      if (has_children) lv.items.push_back(Item{&l, c, true});
    }
    // Compares the keys label (own line) and label + ";" (block) without building the
    // latter: one string per inner node would cost more memory than the profile itself.
    auto key_char = [](std::string_view k, bool block, size_t i) -> int {
      if (i < k.size()) return static_cast<unsigned char>(k[i]);
      return block && i == k.size() ? ';' : -1;  // -1: the key has ended
    };
    std::sort(lv.items.begin(), lv.items.end(), [&](const Item& a, const Item& b) {
      std::string_view ka = *a.key, kb = *b.key;
      size_t common = std::min(ka.size(), kb.size());
      int c = ka.substr(0, common).compare(kb.substr(0, common));
      if (c != 0) return c < 0;
      for (size_t i = common;; ++i) {
        int ca = key_char(ka, a.block, i), cb = key_char(kb, b.block, i);
        if (ca != cb) return ca < cb;
        if (ca < 0) return a.block < b.block;
      }
    });
    return lv;
  };

  (void)options;
  levels.push_back(make_level(0, 0));
  while (!levels.empty()) {
    Level& lv = levels.back();
    if (lv.next == lv.items.size()) {
      levels.pop_back();
      continue;
    }
    Item it = lv.items[lv.next++];
    prefix.resize(lv.prefix_len);
    if (!prefix.empty()) prefix.push_back(';');
    prefix.append(label(it.node));
    if (!it.block) {
      std::string& b = out.buffer();
      b.append(prefix);
      b.push_back(' ');
      if (before >= 0) {
        append_perl_number(b, before_self[it.node]);
        b.push_back(' ');
        append_perl_number(b, self[it.node]);
      } else {
        append_weight(b, self[it.node]);
      }
      b.push_back('\n');
      out.maybe_flush();
    } else {
      size_t len = prefix.size();
      levels.push_back(make_level(it.node, len));
    }
  }
}

}  // namespace flamefold
