// Instruments' Time Profiler exported with `xctrace export --xpath '...time-profile'`, as
// inferno-collapse-xctrace reads it: <trace-query-result><node><row>...<backtrace id=N>
// <frame id=M name="..."/>...</backtrace></row>. A backtrace or frame seen once is referred to
// later by <backtrace ref=N/> and <frame ref=M/>. Frames are listed leaf first; each row counts
// one sample of its backtrace.
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "flamefold/errors.h"
#include "flamefold/readers/text/collapse.h"
#include "flamefold/readers/text/collapse_common.h"

namespace flamefold {

using namespace collapse;

namespace {

// A pull parser for the XML subset xctrace writes: tags with quoted attributes, text, comments,
// processing instructions, CDATA and a DOCTYPE. Throws InputError naming the byte offset.
class XmlCursor {
 public:
  enum class Kind { Start, Empty, End, Eof };
  struct Attribute {
    std::string_view name, raw;  // raw: the value before entity references are replaced
  };

  XmlCursor(std::string_view text, const std::string& path) : t_(text), path_(path) {}

  Kind next() {
    while (true) {
      size_t lt = t_.find('<', pos_);
      if (lt == std::string_view::npos) return Kind::Eof;
      pos_ = lt;
      if (starts("<!--")) {
        skip_past("-->");
      } else if (starts("<![CDATA[")) {
        skip_past("]]>");
      } else if (starts("<?")) {
        skip_past("?>");
      } else if (starts("<!")) {
        skip_doctype();
      } else {
        return tag();
      }
    }
  }
  std::string_view name() const { return name_; }
  const std::vector<Attribute>& attributes() const { return attrs_; }
  size_t offset() const { return tag_at_; }
  [[noreturn]] void fail(const std::string& problem) const {
    throw InputError(path_, "byte " + std::to_string(tag_at_), problem);
  }
  // The value of an attribute with entity references replaced, or false when absent.
  bool attribute(std::string_view name, std::string& value) const {
    for (const Attribute& a : attrs_)
      if (a.name == name) {
        value = unescape(a.raw);
        return true;
      }
    return false;
  }

 private:
  bool starts(std::string_view s) const { return t_.substr(pos_, s.size()) == s; }
  void skip_past(std::string_view end) {
    size_t e = t_.find(end, pos_);
    if (e == std::string_view::npos) {
      tag_at_ = pos_;
      fail("unterminated markup (no '" + std::string(end) + "')");
    }
    pos_ = e + end.size();
  }
  void skip_doctype() {
    int depth = 0;
    for (size_t i = pos_; i < t_.size(); ++i) {
      if (t_[i] == '[') ++depth;
      else if (t_[i] == ']') --depth;
      else if (t_[i] == '>' && depth <= 0) {
        pos_ = i + 1;
        return;
      }
    }
    tag_at_ = pos_;
    fail("unterminated <!DOCTYPE");
  }
  static bool name_char(char c) {
    return !(c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '/' || c == '>' || c == '=' || c == '<');
  }
  void spaces() {
    while (pos_ < t_.size() && is_space(t_[pos_])) ++pos_;
  }
  Kind tag() {
    tag_at_ = pos_;
    attrs_.clear();
    ++pos_;  // '<'
    bool end = pos_ < t_.size() && t_[pos_] == '/';
    if (end) ++pos_;
    size_t b = pos_;
    while (pos_ < t_.size() && name_char(t_[pos_])) ++pos_;
    name_ = t_.substr(b, pos_ - b);
    if (name_.empty()) fail("a tag without a name");
    while (true) {
      spaces();
      if (pos_ >= t_.size()) fail("unterminated tag <" + std::string(name_));
      char c = t_[pos_];
      if (c == '>') {
        ++pos_;
        return end ? Kind::End : Kind::Start;
      }
      if (c == '/' && !end && pos_ + 1 < t_.size() && t_[pos_ + 1] == '>') {
        pos_ += 2;
        return Kind::Empty;
      }
      if (end) fail("unexpected text in </" + std::string(name_) + ">");
      size_t nb = pos_;
      while (pos_ < t_.size() && name_char(t_[pos_])) ++pos_;
      std::string_view an = t_.substr(nb, pos_ - nb);
      spaces();
      if (an.empty() || pos_ >= t_.size() || t_[pos_] != '=') fail("a malformed attribute in <" + std::string(name_) + ">");
      ++pos_;
      spaces();
      if (pos_ >= t_.size() || (t_[pos_] != '"' && t_[pos_] != '\'')) fail("an attribute value without quotes");
      char q = t_[pos_++];
      size_t close = t_.find(q, pos_);
      if (close == std::string_view::npos) fail("an unterminated attribute value");
      attrs_.push_back(Attribute{an, t_.substr(pos_, close - pos_)});
      pos_ = close + 1;
    }
  }
  std::string unescape(std::string_view raw) const {
    std::string out;
    out.reserve(raw.size());
    for (size_t i = 0; i < raw.size(); ++i) {
      if (raw[i] != '&') {
        out += raw[i];
        continue;
      }
      size_t semi = raw.find(';', i);
      if (semi == std::string_view::npos) fail("an unterminated entity reference in an attribute");
      std::string_view e = raw.substr(i + 1, semi - i - 1);
      if (e == "lt") out += '<';
      else if (e == "gt") out += '>';
      else if (e == "amp") out += '&';
      else if (e == "apos") out += '\'';
      else if (e == "quot") out += '"';
      else if (e.size() > 1 && e[0] == '#') append_code_point(e, out);
      else fail("an unknown entity &" + std::string(e) + ";");
      i = semi;
    }
    return out;
  }
  void append_code_point(std::string_view e, std::string& out) const {
    bool hex = e.size() > 2 && e[1] == 'x';
    uint32_t cp = 0;
    std::string_view digits = e.substr(hex ? 2 : 1);
    if (digits.empty() || digits.size() > 8) fail("a bad character reference &" + std::string(e) + ";");
    for (char c : digits) {
      int d = is_digit(c) ? c - '0' : hex && c >= 'a' && c <= 'f' ? c - 'a' + 10 : hex && c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
      if (d < 0) fail("a bad character reference &" + std::string(e) + ";");
      cp = cp * (hex ? 16 : 10) + static_cast<uint32_t>(d);
    }
    if (cp == 0 || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) fail("a bad character reference &" + std::string(e) + ";");
    if (cp < 0x80) {
      out += static_cast<char>(cp);
    } else if (cp < 0x800) {
      out += static_cast<char>(0xC0 | (cp >> 6));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
      out += static_cast<char>(0xE0 | (cp >> 12));
      out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    } else {
      out += static_cast<char>(0xF0 | (cp >> 18));
      out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
      out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    }
  }

  std::string_view t_;
  const std::string& path_;
  size_t pos_ = 0, tag_at_ = 0;
  std::string_view name_;
  std::vector<Attribute> attrs_;
};

struct Backtrace {
  std::vector<std::shared_ptr<const std::string>> frames;  // leaf first
};

uint64_t id_attribute(const XmlCursor& x, std::string_view which) {
  std::string v;
  uint64_t id = 0;
  if (!x.attribute(which, v)) x.fail("<" + std::string(x.name()) + "> without its " + std::string(which) + " attribute");
  if (!parse_usize(v, id)) x.fail("<" + std::string(x.name()) + "> with " + std::string(which) + "=\"" + v + "\" (not a number)");
  return id;
}

}  // namespace

Profile read_xctrace(Input& input, const ReadOptions& options) {
  const std::string text = read_text(input);
  XmlCursor x(text, input.path());
  // Where the cursor is, as inferno tracks it: the elements it reads, anything else as Other.
  enum class At { Result, Node, Row, Backtrace, Frame, Other };
  struct Open {
    At at;
    std::string_view name;
  };
  std::vector<Open> open;
  std::map<uint64_t, std::shared_ptr<Backtrace>> backtraces;
  std::map<uint64_t, std::shared_ptr<const std::string>> frames;
  std::shared_ptr<Backtrace> current;           // the <backtrace> being read
  std::shared_ptr<Backtrace> row_backtrace;     // the backtrace of the <row> being read
  std::map<uint64_t, std::pair<std::shared_ptr<Backtrace>, uint64_t>> rows;  // backtrace id -> rows
  uint64_t current_id = 0, row_count = 0, backtrace_id_of_row = 0;
  bool done = false;
  auto top = [&]() { return open.empty() ? At::Other : open.back().at; };
  auto frame_of = [&](bool from_ref) -> std::shared_ptr<const std::string> {
    std::string ref;
    if (x.attribute("ref", ref)) {
      uint64_t id = id_attribute(x, "ref");
      auto it = frames.find(id);
      if (it == frames.end()) x.fail("<frame ref=\"" + ref + "\"> refers to no frame seen before");
      return it->second;
    }
    uint64_t id = id_attribute(x, "id");
    std::string name;
    if (!x.attribute("name", name)) x.fail("<frame> without a name");
    auto f = std::make_shared<const std::string>(std::move(name));
    if (!frames.emplace(id, f).second) x.fail("a second <frame> with id " + std::to_string(id));
    return f;
  };
  while (!done) {
    XmlCursor::Kind k = x.next();
    if (k == XmlCursor::Kind::Eof) x.fail("the file ends inside <trace-query-result> (cut off?)");
    std::string_view n = x.name();
    if (k == XmlCursor::Kind::Start) {
      At at = At::Other;
      if (open.empty() && n == "trace-query-result") at = At::Result;
      else if (top() == At::Result && n == "node") at = At::Node;
      else if (top() == At::Node && n == "row") {
        at = At::Row;
        row_backtrace.reset();
      } else if (top() == At::Row && n == "backtrace") {
        at = At::Backtrace;
        current_id = id_attribute(x, "id");
        current = std::make_shared<Backtrace>();
      } else if (top() == At::Backtrace && n == "frame") {
        at = At::Frame;
        current->frames.push_back(frame_of(false));
      }
      open.push_back(Open{at, n});
    } else if (k == XmlCursor::Kind::End) {
      if (open.empty() || open.back().name != n) x.fail("</" + std::string(n) + "> does not close the element open here");
      At at = open.back().at;
      open.pop_back();
      if (at == At::Result && open.empty()) done = true;
      else if (at == At::Backtrace) {
        if (!backtraces.emplace(current_id, current).second) x.fail("a second <backtrace> with id " + std::to_string(current_id));
        row_backtrace = current;
        backtrace_id_of_row = current_id;
      } else if (at == At::Row && row_backtrace) {  // rows without a backtrace (<sentinel/>) count nothing
        auto& r = rows[backtrace_id_of_row];
        r.first = row_backtrace;
        ++r.second;
        ++row_count;
      }
    } else if (k == XmlCursor::Kind::Empty) {
      if (top() == At::Row && n == "backtrace") {
        std::string ref;
        if (x.attribute("ref", ref)) {
          uint64_t id = id_attribute(x, "ref");
          auto it = backtraces.find(id);
          if (it == backtraces.end()) x.fail("<backtrace ref=\"" + ref + "\"> refers to no backtrace seen before");
          row_backtrace = it->second;
          backtrace_id_of_row = id;
        } else {  // an empty backtrace of its own
          uint64_t id = id_attribute(x, "id");
          row_backtrace = std::make_shared<Backtrace>();
          backtraces[id] = row_backtrace;
          backtrace_id_of_row = id;
        }
      } else if (top() == At::Backtrace && n == "frame") {
        current->frames.push_back(frame_of(true));
      }
    }
  }
  StackCounts counts;
  for (const auto& [id, r] : rows) {
    std::string stack;
    const auto& f = r.first->frames;
    for (size_t i = f.size(); i-- > 0;) {
      if (i + 1 != f.size()) stack += ';';
      stack += fix_rust_symbol(*f[i]);
    }
    counts.add(stack, static_cast<double>(r.second));
  }
  Profile p = counts.build(input, "xctrace (Instruments)");
  p.facts.emplace_back("rows with a backtrace", std::to_string(row_count));
  return p;
}

bool looks_like_xctrace(std::string_view head) {
  // inferno takes any XML declaration; the result element makes it Instruments'.
  size_t i = 0;
  while (i < head.size() && is_space(head[i])) ++i;
  return head.substr(i, 5) == "<?xml" && head.find("<trace-query-result") != std::string_view::npos;
}

}  // namespace flamefold
