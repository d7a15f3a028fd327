#include "flamefold/utf8.h"
#include "flamefold/writers/svg.h"

#include "flamefold/diff.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <deque>
#include <string>
#include <vector>

#include "flamefold/errors.h"
#include "flamefold/frame_label.h"
#include "flamefold/transform.h"

namespace flamefold {
namespace svg {

// ---------------------------------------------------------------------------------------------
// Colours: flamegraph.pl's palettes with --hash (v1 from the name, v2 = v3 from the name reversed).

double name_hash(std::string_view name) {
  // flamegraph.pl drops a module prefix ("libc.so.6`memcpy" -> "memcpy") before hashing.
  if (name.size() > 1) {
    size_t tick = name.find('`', 1);
    if (tick != std::string_view::npos) name.remove_prefix(tick + 1);
  }
  double vector = 0, weight = 1, max = 1;
  int mod = 10;
  for (unsigned char c : name) {
    int i = c % mod;
    vector += (static_cast<double>(i) / (mod - 1)) * weight;
    ++mod;
    max += weight;
    weight *= 0.70;
    if (mod > 12) break;
  }
  return 1 - vector / max;
}

namespace {

enum class Hue { Hot, Mem, Io, Red, Green, Blue, Yellow, Purple, Aqua, Orange };

bool ends_with(std::string_view s, std::string_view tail) {
  return s.size() >= tail.size() && s.substr(s.size() - tail.size()) == tail;
}
bool contains(std::string_view s, std::string_view part) { return s.find(part) != std::string_view::npos; }

Hue java_hue(std::string_view name) {
  if (ends_with(name, "_[j]")) return Hue::Green;  // JIT
  if (ends_with(name, "_[i]")) return Hue::Aqua;   // inlined
  std::string_view n = name;
  if (!n.empty() && n[0] == 'L') n.remove_prefix(1);
  for (std::string_view pkg : {"java/", "javax/", "jdk/", "net/", "org/", "com/", "io/", "sun/"})
    if (n.substr(0, pkg.size()) == pkg) return Hue::Green;
  if (contains(name, ":::")) return Hue::Green;  // perf-map-agent's method separator
  if (contains(name, "::")) return Hue::Yellow;  // C++
  if (ends_with(name, "_[k]")) return Hue::Orange;
  return Hue::Red;
}

Hue js_hue(std::string_view name) {
  if (ends_with(name, "_[j]")) return contains(name, "/") ? Hue::Green : Hue::Aqua;
  if (contains(name, "::")) return Hue::Yellow;
  size_t slash = name.find('/');
  if (slash != std::string_view::npos && name.find(".js", slash + 1) != std::string_view::npos) return Hue::Green;
  if (contains(name, ":")) return Hue::Aqua;  // built-in
  if (name == " ") return Hue::Green;          // missing symbol
  if (contains(name, "_[k]")) return Hue::Orange;
  return Hue::Red;
}

Hue perl_hue(std::string_view name) {
  if (contains(name, "::")) return Hue::Yellow;
  if (contains(name, "Perl") || contains(name, ".pl")) return Hue::Green;
  if (ends_with(name, "_[k]")) return Hue::Orange;
  return Hue::Red;
}

enum class Palette { Hot, Mem, Io, Java, Js, Perl, Wakeup, Chain, Red, Green, Blue, Yellow, Purple, Aqua, Orange };

const char* const kPaletteNames[] = {"hot",  "mem",   "io",   "java",   "js",     "perl", "wakeup", "chain",
                                     "red",  "green", "blue", "yellow", "purple", "aqua", "orange"};

Palette parse_palette(std::string_view name) {
  for (size_t i = 0; i < std::size(kPaletteNames); ++i)
    if (name == kPaletteNames[i]) return static_cast<Palette>(i);
  throw UsageError("unknown palette '" + std::string(name) +
                   "' (use hot, mem, io, java, js, perl, wakeup, chain, red, green, blue, aqua, yellow, purple or orange)");
}

Rgb colour(Palette palette, std::string_view name) {
  double v1 = name_hash(name);
  char reversed[64];
  size_t n = std::min(name.size(), sizeof reversed);  // only the first few characters count
  for (size_t i = 0; i < n; ++i) reversed[i] = name[name.size() - 1 - i];
  // A module prefix in the reversed name is found only by a backtick in its first 64 bytes;
  // beyond that the hash reads the same three characters either way.
  double v2 = name_hash(std::string_view(reversed, n));
  double v3 = v2;
  auto i = [](double base, double span, double v) { return static_cast<int>(base) + static_cast<int>(span * v); };
  Hue hue;
  switch (palette) {
    case Palette::Hot: return Rgb{i(205, 50, v3), i(0, 230, v1), i(0, 55, v2)};
    case Palette::Mem: return Rgb{0, i(190, 50, v2), i(0, 210, v1)};
    case Palette::Io: {
      int r = i(80, 60, v1);
      return Rgb{r, r, i(190, 55, v2)};
    }
    case Palette::Java: hue = java_hue(name); break;
    case Palette::Js: hue = js_hue(name); break;
    case Palette::Perl: hue = perl_hue(name); break;
    case Palette::Wakeup: hue = Hue::Aqua; break;
    case Palette::Chain: hue = contains(name, "_[w]") ? Hue::Aqua : Hue::Blue; break;
    case Palette::Red: hue = Hue::Red; break;
    case Palette::Green: hue = Hue::Green; break;
    case Palette::Blue: hue = Hue::Blue; break;
    case Palette::Yellow: hue = Hue::Yellow; break;
    case Palette::Purple: hue = Hue::Purple; break;
    case Palette::Aqua: hue = Hue::Aqua; break;
    case Palette::Orange: hue = Hue::Orange; break;
    default: hue = Hue::Red;
  }
  switch (hue) {
    case Hue::Red: {
      int x = i(50, 80, v1);
      return Rgb{i(200, 55, v1), x, x};
    }
    case Hue::Green: {
      int x = i(50, 60, v1);
      return Rgb{x, i(200, 55, v1), x};
    }
    case Hue::Blue: {
      int x = i(80, 60, v1);
      return Rgb{x, x, i(205, 50, v1)};
    }
    case Hue::Yellow: {
      int x = i(175, 55, v1);
      return Rgb{x, x, i(50, 20, v1)};
    }
    case Hue::Purple: {
      int x = i(190, 65, v1);
      return Rgb{x, i(80, 60, v1), x};
    }
    case Hue::Aqua: return Rgb{i(50, 60, v1), i(165, 55, v1), i(165, 55, v1)};
    case Hue::Orange: return Rgb{i(190, 65, v1), i(90, 65, v1), 0};
    default: return Rgb{};
  }
}

}  // namespace

Rgb frame_colour(std::string_view palette, std::string_view name) { return colour(parse_palette(palette), name); }

// ---------------------------------------------------------------------------------------------
// Text: names are hostile. Everything written is valid XML 1.0 and cannot close an element.

namespace {

constexpr const char* kReplacement = kUtf8Replacement;

// Like utf8_sequence, but also 0 for the characters XML 1.0 forbids (U+FFFE, U+FFFF).
size_t xml_utf8_sequence(std::string_view s, size_t i) {
  size_t len = utf8_sequence(s, i);
  if (len == 3 && static_cast<unsigned char>(s[i]) == 0xEF && static_cast<unsigned char>(s[i + 1]) == 0xBF &&
      (static_cast<unsigned char>(s[i + 2]) == 0xBE || static_cast<unsigned char>(s[i + 2]) == 0xBF))
    return 0;
  return len;
}

// 256 flags: 1 = an ASCII byte that is copied as it is.
struct PlainBytes {
  bool plain[256] = {};
  constexpr PlainBytes() {
    for (int c = 0x20; c < 0x7F; ++c) plain[c] = true;
    plain[static_cast<unsigned char>('&')] = plain[static_cast<unsigned char>('<')] = false;
    plain[static_cast<unsigned char>('>')] = plain[static_cast<unsigned char>('"')] = false;
    plain[static_cast<unsigned char>('\'')] = false;
  }
};
constexpr PlainBytes kPlain;

// Appends s as valid UTF-8 without C0 controls (replaced by U+FFFD), not yet escaped.
void append_clean_utf8(std::string& out, std::string_view s) {
  size_t i = 0, n = s.size();
  while (i < n) {
    size_t run = i;
    while (run < n && static_cast<unsigned char>(s[run]) >= 0x20 && static_cast<unsigned char>(s[run]) < 0x80) ++run;
    out.append(s.data() + i, run - i);
    i = run;
    if (i == n) break;
    unsigned char c = static_cast<unsigned char>(s[i]);
    if (c < 0x20) {
      out.append(kReplacement);
      ++i;
      continue;
    }
    size_t len = xml_utf8_sequence(s, i);
    if (len == 0) {
      out.append(kReplacement);
      ++i;
    } else {
      out.append(s.data() + i, len);
      i += len;
    }
  }
}

}  // namespace

void append_xml_text(std::string& out, std::string_view s) {
  size_t i = 0, n = s.size();
  while (i < n) {
    size_t run = i;
    while (run < n && kPlain.plain[static_cast<unsigned char>(s[run])]) ++run;
    out.append(s.data() + i, run - i);
    i = run;
    if (i == n) break;
    unsigned char c = static_cast<unsigned char>(s[i]);
    switch (c) {
      case '&': out.append("&amp;"); ++i; continue;
      case '<': out.append("&lt;"); ++i; continue;
      case '>': out.append("&gt;"); ++i; continue;
      case '"': out.append("&quot;"); ++i; continue;
      case '\'': out.append("&apos;"); ++i; continue;
      default: break;
    }
    if (c < 0x80) {  // C0 control or DEL
      if (c == 0x7F) out.push_back(static_cast<char>(c));
      else out.append(kReplacement);
      ++i;
      continue;
    }
    size_t len = xml_utf8_sequence(s, i);
    if (len == 0) {
      out.append(kReplacement);
      ++i;
    } else {
      out.append(s.data() + i, len);
      i += len;
    }
  }
}

Rgb change_colour(double value, double max, bool negate) {
  // flamegraph.pl's color_scale.
  Rgb c{255, 255, 255};
  if (negate) value = -value;
  if (value > 0) c.g = c.b = static_cast<int>(210 * (max - value) / max);
  else if (value < 0) c.r = c.g = static_cast<int>(210 * (max + value) / max);
  return c;
}

}  // namespace svg

// ---------------------------------------------------------------------------------------------
// Numbers, written by hand: this is the hot loop.

namespace {

using svg::append_xml_text;

void append_uint(std::string& out, uint64_t v) {
  char buf[24];
  char* end = buf + sizeof buf;
  char* p = end;
  do {
    *--p = static_cast<char>('0' + v % 10);
    v /= 10;
  } while (v);
  out.append(p, static_cast<size_t>(end - p));
}

// v rounded to hundredths, written without trailing zeros: 12, 12.5, 12.34, -0.5.
void append_decimal(std::string& out, double v) {
  if (!(std::fabs(v) < 9e16)) {  // past int64 hundredths, or not finite (weights summing to inf): printf's way
    char text[400];
    std::snprintf(text, sizeof text, "%.2f", v);
    out.append(text);
    return;
  }
  int64_t h = std::llround(v * 100);
  if (h < 0) {
    out.push_back('-');
    h = -h;
  }
  append_uint(out, static_cast<uint64_t>(h / 100));
  int frac = static_cast<int>(h % 100);
  if (frac) {
    out.push_back('.');
    out.push_back(static_cast<char>('0' + frac / 10));
    if (frac % 10) out.push_back(static_cast<char>('0' + frac % 10));
  }
}

// v with two decimals always (flamegraph.pl's "%.2f" for percentages).
void append_fixed2(std::string& out, double v) {
  if (!(std::fabs(v) < 9e16)) {  // past int64 hundredths (weights near 2^64), or not finite: printf's way
    char text[400];
    std::snprintf(text, sizeof text, "%.2f", v);
    out.append(text);
    return;
  }
  int64_t h = std::llround(v * 100);
  if (h < 0) {
    out.push_back('-');
    h = -h;
  }
  append_uint(out, static_cast<uint64_t>(h / 100));
  out.push_back('.');
  out.push_back(static_cast<char>('0' + (h % 100) / 10));
  out.push_back(static_cast<char>('0' + h % 10));
}

void append_grouped(std::string& out, uint64_t v) {
  char digits[24];
  int n = 0;
  do {
    digits[n++] = static_cast<char>('0' + v % 10);
    v /= 10;
  } while (v);
  for (int i = n - 1; i >= 0; --i) {
    out.push_back(digits[i]);
    if (i > 0 && i % 3 == 0) out.push_back(',');
  }
}

// A weight as flamegraph.pl shows it (1,234,567), keeping up to 3 decimals of fractional weights.
void append_count(std::string& out, double v) {
  if (!std::isfinite(v)) {
    out.append("?");
    return;
  }
  if (v < 0) {
    out.push_back('-');
    v = -v;
  }
  if (v >= 9.0e15) {
    fmt::format_to(std::back_inserter(out), "{:.0f}", v);
    return;
  }
  int64_t thousandths = std::llround(v * 1000);
  append_grouped(out, static_cast<uint64_t>(thousandths / 1000));
  int frac = static_cast<int>(thousandths % 1000);
  if (frac) {
    char f[4] = {static_cast<char>('0' + frac / 100), static_cast<char>('0' + frac / 10 % 10),
                 static_cast<char>('0' + frac % 10), 0};
    int len = 3;
    while (f[len - 1] == '0') --len;
    out.push_back('.');
    out.append(f, static_cast<size_t>(len));
  }
}

// ---------------------------------------------------------------------------------------------
// The script: click-to-zoom, regex search with the matched share, details bar, URL state.
// Written for flamefold; behaves like flamegraph.pl's. It reads names from each frame's
// <title> and never turns them into markup (textContent only).

const char* const kScript = R"JS(
"use strict";
var fg = null;
function init(evt) {
  var doc = document, frames = doc.getElementById("frames");
  if (!frames) return;
  var attr = function (n) { return frames.getAttribute(n); };
  fg = {
    frames: frames, list: [],
    details: doc.getElementById("details").firstChild,
    matched: doc.getElementById("matched"),
    search: doc.getElementById("search"),
    unzoom: doc.getElementById("unzoom"),
    ic: doc.getElementById("ignorecase"),
    nametype: attr("data-nametype"), searchcolor: attr("data-searchcolor"),
    inverted: attr("data-inverted") === "1", fontsize: +attr("data-fontsize"),
    fontwidth: +attr("data-fontwidth"), xpad: +attr("data-xpad"),
    width: +doc.documentElement.getAttribute("width"),
    term: null, ignorecase: false, zoomed: null, total: 0
  };
  var gs = frames.children;
  for (var i = 0; i < gs.length; i++) {
    var g = gs[i], rect = g.getElementsByTagName("rect")[0], title = g.getElementsByTagName("title")[0];
    if (!rect || !title) continue;
    var info = title.textContent, cut = info.lastIndexOf(" (");
    var f = { g: g, rect: rect, text: g.getElementsByTagName("text")[0], info: info,
              name: cut < 0 ? info : info.substring(0, cut), fill: rect.getAttribute("fill"),
              x: +rect.getAttribute("x"), w: +rect.getAttribute("width"), y: +rect.getAttribute("y") };
    g.fgFrame = f;
    fg.list.push(f);
    if (f.w > fg.total) fg.total = f.w;
  }
  frames.addEventListener("click", function (e) { var f = frame_of(e.target); if (f) zoom(f, true); });
  frames.addEventListener("mouseover", function (e) {
    var f = frame_of(e.target); if (f) fg.details.nodeValue = fg.nametype + " " + f.info;
  });
  frames.addEventListener("mouseout", function (e) { if (frame_of(e.target)) fg.details.nodeValue = " "; });
  fg.unzoom.addEventListener("click", function () { unzoom(true); });
  fg.search.addEventListener("click", search_prompt);
  fg.ic.addEventListener("click", toggle_ignorecase);
  window.addEventListener("keydown", function (e) {
    var ctrl = e.ctrlKey || e.metaKey;
    if (e.keyCode === 114 || (ctrl && e.keyCode === 70)) { e.preventDefault(); search_prompt(); }
    else if (ctrl && e.keyCode === 73) { e.preventDefault(); toggle_ignorecase(); }
  });
  // State from the URL (?x=..&y=..&s=..), as flamegraph.pl links do.
  var params = null;
  try { params = new URL(window.location.href).searchParams; } catch (err) { params = null; }
  if (params) {
    if (params.get("s")) search(params.get("s"), false);
    if (params.get("x") !== null && params.get("y") !== null) {
      var px = +params.get("x"), py = +params.get("y");
      for (var k = 0; k < fg.list.length; k++)
        if (Math.abs(fg.list[k].x - px) < 0.005 && Math.abs(fg.list[k].y - py) < 0.005) { zoom(fg.list[k], false); break; }
    }
  }
}
function frame_of(el) {
  while (el && el !== fg.frames) { if (el.fgFrame) return el.fgFrame; el = el.parentNode; }
  return null;
}
function set_url(key, value) {
  if (!window.history || !history.replaceState) return;
  try {
    var url = new URL(window.location.href);
    if (value === null) url.searchParams.delete(key); else url.searchParams.set(key, value);
    history.replaceState(null, "", url.toString());
  } catch (err) { /* file: URLs in some viewers */ }
}
function place(f, x, w) {
  f.rect.setAttribute("x", x.toFixed(2));
  f.rect.setAttribute("width", w.toFixed(2));
  if (!f.text) return;
  f.text.setAttribute("x", (x + 3).toFixed(2));
  var chars = Math.floor(w / (fg.fontsize * fg.fontwidth)), s = "";
  if (chars >= 3) {
    var cps = Array.from(f.name);
    s = cps.length > chars ? cps.slice(0, chars - 2).join("") + ".." : f.name;
  }
  f.text.textContent = s;
}
function zoom(t, remember) {
  var eps = 0.005, full = fg.width - 2 * fg.xpad, scale = full / t.w;
  fg.zoomed = t;
  for (var i = 0; i < fg.list.length; i++) {
    var f = fg.list[i], cl = f.g.classList;
    var above = fg.inverted ? f.y < t.y : f.y > t.y;  // nearer the root than t
    if (f === t) {
      cl.remove("hide"); cl.remove("parent"); place(f, fg.xpad, full);
    } else if (above && f.x <= t.x + eps && f.x + f.w >= t.x + t.w - eps) {
      cl.remove("hide"); cl.add("parent"); place(f, fg.xpad, full);
    } else if (!above && f.y !== t.y && f.x >= t.x - eps && f.x + f.w <= t.x + t.w + eps) {
      cl.remove("hide"); cl.remove("parent"); place(f, fg.xpad + (f.x - t.x) * scale, f.w * scale);
    } else {
      cl.add("hide");
    }
  }
  fg.unzoom.classList.remove("hide");
  if (remember) { set_url("x", t.x.toFixed(2)); set_url("y", t.y.toFixed(2)); }
}
function unzoom(remember) {
  fg.zoomed = null;
  for (var i = 0; i < fg.list.length; i++) {
    var f = fg.list[i];
    f.g.classList.remove("hide"); f.g.classList.remove("parent");
    place(f, f.x, f.w);
  }
  fg.unzoom.classList.add("hide");
  if (remember) { set_url("x", null); set_url("y", null); }
}
function search(term, remember) {
  var re;
  try { re = new RegExp(term, fg.ignorecase ? "i" : ""); }
  catch (err) { fg.matched.textContent = "Bad regex"; fg.matched.classList.add("show"); return; }
  fg.term = term;
  var hits = [];
  for (var i = 0; i < fg.list.length; i++) {
    var f = fg.list[i];
    if (re.test(f.name)) { f.rect.setAttribute("fill", fg.searchcolor); hits.push(f); }
    else f.rect.setAttribute("fill", f.fill);
  }
  // The matched share counts a match inside another match once.
  hits.sort(function (a, b) { return a.x - b.x || b.w - a.w; });
  var end = -Infinity, sum = 0;
  for (var j = 0; j < hits.length; j++)
    if (hits[j].x >= end - 0.005) { sum += hits[j].w; end = hits[j].x + hits[j].w; }
  var pct = fg.total > 0 ? 100 * sum / fg.total : 0;
  fg.matched.textContent = "Matched: " + (pct >= 99.95 ? "100" : pct.toFixed(1)) + "%";
  fg.matched.classList.add("show");
  fg.search.classList.add("show");
  fg.search.textContent = "Reset Search";
  if (remember) set_url("s", term);
}
function reset_search() {
  fg.term = null;
  for (var i = 0; i < fg.list.length; i++) fg.list[i].rect.setAttribute("fill", fg.list[i].fill);
  fg.matched.textContent = " ";
  fg.matched.classList.remove("show");
  fg.search.classList.remove("show");
  fg.search.textContent = "Search";
  set_url("s", null);
}
function search_prompt() {
  if (fg.term !== null) { reset_search(); return; }
  var term = prompt("Enter a search term (regexp allowed, eg: ^ext4_)" + (fg.ignorecase ? ", ignoring case" : ""), "");
  if (term) search(term, true);
}
function toggle_ignorecase() {
  fg.ignorecase = !fg.ignorecase;
  fg.ic.classList.toggle("show", fg.ignorecase);
  if (fg.term !== null) search(fg.term, true);
}
)JS";

struct Background {
  std::string top, bottom;
};

Background background(const std::string& bgcolors, std::string_view palette) {
  std::string b = bgcolors;
  if (b.empty()) {
    if (palette == "mem") b = "green";
    else if (palette == "io" || palette == "wakeup" || palette == "chain") b = "blue";
    else if (palette == "red" || palette == "green" || palette == "blue" || palette == "aqua" ||
             palette == "yellow" || palette == "purple" || palette == "orange")
      b = "grey";
    else b = "yellow";
  }
  if (b == "yellow") return {"#eeeeee", "#eeeeb0"};
  if (b == "blue") return {"#eeeeee", "#e0e0ff"};
  if (b == "green") return {"#eef2ee", "#e0ffe0"};
  if (b == "grey") return {"#f8f8f8", "#e8e8e8"};
  bool hex = b.size() == 7 && b[0] == '#';
  for (size_t i = 1; hex && i < b.size(); ++i) hex = std::isxdigit(static_cast<unsigned char>(b[i])) != 0;
  if (!hex) throw UsageError("unknown --bgcolors '" + b + "' (use yellow, blue, green, grey or #rrggbb)");
  return {b, b};
}

// A font family is written into CSS: keep only characters that cannot end the declaration.
std::string css_font(std::string_view font) {
  std::string f;
  for (char c : font)
    if (std::isalnum(static_cast<unsigned char>(c)) || c == ' ' || c == '-' || c == '_' || c == ',') f.push_back(c);
  return f.empty() ? "Verdana" : f;
}

// Comments may not contain "--".
std::string comment_text(std::string_view s) {
  std::string clean;
  append_xml_text(clean, s);
  std::string out;
  for (char c : clean) {
    if (c == '-' && !out.empty() && out.back() == '-') out.push_back(' ');
    out.push_back(c);
  }
  if (!out.empty() && out.back() == '-') out.push_back(' ');
  return out;
}

// flamegraph.pl strips one annotation (_[k] kernel, _[j] JIT, _[i] inlined, _[w] waker) from shown names.
std::string_view strip_annotation(std::string_view name) {
  if (name.size() >= 4 && name[name.size() - 4] == '_' && name[name.size() - 3] == '[' && name.back() == ']') {
    char a = name[name.size() - 2];
    if (a == 'k' || a == 'w' || a == 'i' || a == 'j') name.remove_suffix(4);
  }
  return name;
}

struct Layout {
  double xpad = 10, frame_height = 16, font_size = 12, font_width = 0.59;
  double ypad1 = 36, ypad2 = 34, ypad3 = 24, top = 36;  // top: where an icicle's root starts
  double width = 1200, height = 0;
};

void write_header(std::string& b, const Layout& l, const WriteOptions& o, const Background& bg,
                  const std::string& title) {
  b.append("<?xml version=\"1.0\" standalone=\"no\"?>\n"
           "<!DOCTYPE svg PUBLIC \"-//W3C//DTD SVG 1.1//EN\" \"http://www.w3.org/Graphics/SVG/1.1/DTD/svg11.dtd\">\n"
           "<svg version=\"1.1\" width=\"");
  append_decimal(b, l.width);
  b.append("\" height=\"");
  append_decimal(b, l.height);
  b.append("\" onload=\"init(evt)\" viewBox=\"0 0 ");
  append_decimal(b, l.width);
  b.push_back(' ');
  append_decimal(b, l.height);
  b.append("\" xmlns=\"http://www.w3.org/2000/svg\" xmlns:xlink=\"http://www.w3.org/1999/xlink\">\n"
           "<!-- Flame graph drawn by flamefold; flamegraph.pl's layout and options. -->\n");
  if (!o.notes.empty()) {
    b.append("<!-- NOTES: ");
    b.append(comment_text(o.notes));
    b.append(" -->\n");
  }
  b.append("<defs><linearGradient id=\"background\" y1=\"0\" y2=\"1\" x1=\"0\" x2=\"0\"><stop stop-color=\"");
  b.append(bg.top);
  b.append("\" offset=\"5%\"/><stop stop-color=\"");
  b.append(bg.bottom);
  b.append("\" offset=\"95%\"/></linearGradient></defs>\n<style type=\"text/css\">\n");
  b.append("text { font-family:");
  b.append(css_font(o.font_type));
  b.append("; font-size:");
  append_decimal(b, l.font_size);
  b.append("px; fill:rgb(0,0,0); }\n"
           "#search, #ignorecase { opacity:0.1; cursor:pointer; }\n"
           "#search:hover, #search.show, #ignorecase:hover, #ignorecase.show { opacity:1; }\n"
           "#subtitle { text-anchor:middle; fill:rgb(160,160,160); }\n"
           "#title { text-anchor:middle; font-size:");
  append_decimal(b, l.font_size + 5);
  b.append("px; }\n"
           "#nosamples { text-anchor:middle; }\n"
           "#unzoom { cursor:pointer; }\n"
           "#frames > *:hover { stroke:black; stroke-width:0.5; cursor:pointer; }\n"
           ".hide { display:none; }\n"
           ".parent { opacity:0.5; }\n"
           "</style>\n<script type=\"text/ecmascript\"><![CDATA[");
  b.append(kScript);
  b.append("]]></script>\n<rect x=\"0\" y=\"0\" width=\"");
  append_decimal(b, l.width);
  b.append("\" height=\"");
  append_decimal(b, l.height);
  b.append("\" fill=\"url(#background)\"/>\n<text id=\"title\" x=\"");
  append_decimal(b, l.width / 2);
  b.append("\" y=\"");
  append_decimal(b, l.font_size * 2);
  b.append("\">");
  append_xml_text(b, title);
  b.append("</text>\n");
  if (!o.subtitle.empty()) {
    b.append("<text id=\"subtitle\" x=\"");
    append_decimal(b, l.width / 2);
    b.append("\" y=\"");
    append_decimal(b, l.font_size * 4);
    b.append("\">");
    append_xml_text(b, o.subtitle);
    b.append("</text>\n");
  }
  auto text = [&](const char* id, double x, double y, const char* cls, const char* content) {
    b.append("<text id=\"");
    b.append(id);
    b.append("\" x=\"");
    append_decimal(b, x);
    b.append("\" y=\"");
    append_decimal(b, y);
    b.append("\"");
    if (cls) {
      b.append(" class=\"");
      b.append(cls);
      b.append("\"");
    }
    b.append(">");
    b.append(content);
    b.append("</text>\n");
  };
  double bottom = l.height - l.ypad2 / 2;
  text("details", l.xpad, bottom, nullptr, " ");
  text("unzoom", l.xpad, l.font_size * 2, "hide", "Reset Zoom");
  text("search", l.width - l.xpad - 100, l.font_size * 2, nullptr, "Search");
  text("ignorecase", l.width - l.xpad - 16, l.font_size * 2, nullptr, "ic");
  text("matched", l.width - l.xpad - 100, bottom, nullptr, " ");
}

struct Drawn {
  NodeId node;
  uint32_t depth;
  double x;  // start, in weight units from the left edge
};

void draw(const Profile& p, int column, OutputFile& out, const WriteOptions& o) {
  if (column < 0 || column >= static_cast<int>(p.columns.size()))
    throw UsageError("the profile has no weight column " + std::to_string(column));
  const svg::Palette palette = svg::parse_palette(o.palette);
  const Background bg = background(o.bgcolors, o.palette);
  if (o.width <= 20) throw UsageError("--width must be more than 20 pixels");
  if (o.frame_height < 2) throw UsageError("--height must be at least 2 pixels");
  if (!(o.font_size > 0) || !(o.font_width > 0)) throw UsageError("--fontsize and --fontwidth must be positive");

  const WeightColumn& col = p.columns[column];
  std::string countname = o.countname.empty() ? (col.unit.empty() ? std::string("samples") : col.unit) : o.countname;
  std::string title = !o.title.empty() ? o.title : (o.inverted ? "Icicle Graph" : "Flame Graph");

  Layout l;
  l.width = o.width;
  l.frame_height = o.frame_height;
  l.font_size = o.font_size;
  l.font_width = o.font_width;
  l.ypad1 = l.font_size * 3;
  l.ypad2 = l.font_size * 2 + 10;
  l.ypad3 = l.font_size * 2;
  l.top = l.ypad1 + (o.subtitle.empty() ? 0 : l.ypad3);

  const std::vector<double>& self = col.self;
  std::vector<double> total = p.totals(column);
  const double timemax = total[0];
  // A differential profile (flamegraph.pl's three-column input): widths from the after side,
  // each frame coloured by its self weight's change, red grew, blue shrank, scaled to the
  // largest change (at least 1), white unchanged.
  const int before = before_column(p, column);
  std::vector<double> delta;
  double max_delta = 1;
  if (before >= 0) {
    delta.resize(p.node_count());
    for (NodeId n = 0; n < p.node_count(); ++n) {
      delta[n] = self[n] - p.columns[before].self[n];
      max_delta = std::max(max_delta, std::fabs(delta[n]));
    }
  }
  std::string& b = out.buffer();

  if (!(timemax > 0) || !std::isfinite(timemax)) {
    l.height = l.font_size * 5 + (o.subtitle.empty() ? 0 : l.ypad3);
    write_header(b, l, o, bg, title);
    b.append("<text id=\"nosamples\" x=\"");
    append_decimal(b, l.width / 2);
    b.append("\" y=\"");
    append_decimal(b, l.top + l.font_size);
    b.append("\">No samples: the profile has no ");
    append_xml_text(b, col.name);
    b.append(" weight to draw</text>\n<g id=\"frames\"></g>\n</svg>\n");
    out.maybe_flush();
    return;
  }

  const double width_per_weight = (l.width - 2 * l.xpad) / timemax;
  const double min_weight = o.minwidth_percent > 0 ? timemax * o.minwidth_percent / 100
                                                  : std::max(0.0, o.minwidth) / width_per_weight;

  // Frame labels (the name, or file:name:line), built once per frame on first use.
  const size_t frame_count = p.symbols.frame_count();
  std::vector<std::string_view> labels(frame_count);
  std::vector<uint8_t> labelled(frame_count, 0);
  std::deque<std::string> composed;
  auto label = [&](FrameId f) -> std::string_view {
    if (!labelled[f]) {
      labelled[f] = 1;
      if (p.symbols[f].file == 0) {
        labels[f] = p.symbols.name(f);
      } else {
        composed.push_back(frame_label(p.symbols, f));
        labels[f] = composed.back();
      }
    }
    return labels[f];
  };

  // Layout, depth first. Siblings are laid out by name; a parent's own weight comes first (as in
  // flamegraph.pl, whose sorted input puts "a 5" before "a;b 3"). Frames narrower than
  // --minwidth are skipped with their subtree; their weight still widens the parent.
  std::vector<Drawn> drawn;
  std::vector<Drawn> todo{{0, 0, 0.0}};
  std::vector<NodeId> kids;
  std::vector<Drawn> placed;
  uint32_t depth_max = 0;
  while (!todo.empty()) {
    Drawn d = todo.back();
    todo.pop_back();
    drawn.push_back(d);
    depth_max = std::max(depth_max, d.depth);
    kids.clear();
    bool any_wide = false;
    for (NodeId c = p.first_child[d.node]; c != kNone; c = p.next_sibling[c]) {
      if (!(total[c] > 0)) continue;
      kids.push_back(c);
      any_wide = any_wide || total[c] >= min_weight;
    }
    if (!any_wide) continue;
    for (NodeId c : kids) label(p.frame[c]);
    if (kids.size() > 1)
      std::sort(kids.begin(), kids.end(), [&](NodeId a, NodeId c) {
        std::string_view la = labels[p.frame[a]], lc = labels[p.frame[c]];
        if (la != lc) return la < lc;
        return p.frame[a] < p.frame[c];
      });
    double x = d.x + std::max(0.0, self[d.node]);
    placed.clear();
    for (NodeId c : kids) {
      if (total[c] >= min_weight) placed.push_back(Drawn{c, d.depth + 1, x});
      x += total[c];
    }
    for (size_t i = placed.size(); i-- > 0;) todo.push_back(placed[i]);
  }

  l.height = (depth_max + 1) * l.frame_height + l.ypad1 + l.ypad2 + (o.subtitle.empty() ? 0 : l.ypad3);
  write_header(b, l, o, bg, title);
  b.append("<g id=\"frames\" data-nametype=\"");
  append_xml_text(b, o.name_type);
  b.append("\" data-searchcolor=\"");
  append_xml_text(b, o.search_color);
  b.append(o.inverted ? "\" data-inverted=\"1\" data-fontsize=\"" : "\" data-inverted=\"0\" data-fontsize=\"");
  append_decimal(b, l.font_size);
  b.append("\" data-fontwidth=\"");
  append_decimal(b, l.font_width);
  b.append("\" data-xpad=\"");
  append_decimal(b, l.xpad);
  b.append("\">\n");

  std::string counts_suffix;  // " samples, "
  counts_suffix.push_back(' ');
  append_xml_text(counts_suffix, countname);
  counts_suffix.append(", ");

  // Colours, once per frame.
  std::vector<uint32_t> colours(frame_count, UINT32_MAX);
  const svg::Rgb root_colour = svg::colour(palette, "");
  std::string clean;
  const double char_width = l.font_size * l.font_width;
  const double rect_height = l.frame_height - 1;

  for (const Drawn& d : drawn) {
    const bool root = d.node == 0;
    const double weight = total[d.node];
    // Edges rounded once, so a child never sticks out of its parent.
    const double x1 = std::round((l.xpad + d.x * width_per_weight) * 100) / 100;
    const double x2 = std::round((l.xpad + (d.x + weight) * width_per_weight) * 100) / 100;
    double y1, y2;
    if (!o.inverted) {
      y1 = l.height - l.ypad2 - (d.depth + 1) * l.frame_height + 1;
      y2 = l.height - l.ypad2 - d.depth * l.frame_height;
    } else {
      y1 = l.top + d.depth * l.frame_height;
      y2 = l.top + (d.depth + 1) * l.frame_height - 1;
    }
    std::string_view name = root ? std::string_view("all") : strip_annotation(labels[p.frame[d.node]]);

    b.append("<g><title>");
    append_xml_text(b, name);
    b.append(" (");
    append_count(b, weight);
    b.append(counts_suffix);
    if (root) b.append("100");
    else append_fixed2(b, 100 * weight / timemax);
    if (before >= 0 && !root) {
      const double dd = o.negate ? -delta[d.node] : delta[d.node];
      b.append("%; ");
      if (dd > 0) b.push_back('+');
      append_fixed2(b, 100 * dd / timemax);
    }
    b.append("%)</title><rect x=\"");
    append_decimal(b, x1);
    b.append("\" y=\"");
    append_decimal(b, y1);
    b.append("\" width=\"");
    append_decimal(b, x2 - x1);
    b.append("\" height=\"");
    append_decimal(b, rect_height);
    b.append("\" fill=\"rgb(");
    svg::Rgb c;
    if (before >= 0) {
      c = svg::change_colour(delta[d.node], max_delta, o.negate);
    } else if (root) {
      c = root_colour;
    } else {
      uint32_t& packed = colours[p.frame[d.node]];
      if (packed == UINT32_MAX) {
        svg::Rgb k = svg::colour(palette, labels[p.frame[d.node]]);
        packed = static_cast<uint32_t>(k.r) << 16 | static_cast<uint32_t>(k.g) << 8 | static_cast<uint32_t>(k.b);
      }
      c = svg::Rgb{static_cast<int>(packed >> 16), static_cast<int>(packed >> 8 & 0xFF), static_cast<int>(packed & 0xFF)};
    }
    append_uint(b, static_cast<uint64_t>(c.r));
    b.push_back(',');
    append_uint(b, static_cast<uint64_t>(c.g));
    b.push_back(',');
    append_uint(b, static_cast<uint64_t>(c.b));
    b.append(")\" rx=\"2\" ry=\"2\"/><text x=\"");
    append_decimal(b, x1 + 3);
    b.append("\" y=\"");
    append_decimal(b, 3 + (y1 + y2) / 2);
    b.append("\">");
    // As many characters as fit (flamegraph.pl: at least 3, the last two ".." when cut).
    const long chars = static_cast<long>((x2 - x1) / char_width);
    if (chars >= 3) {
      clean.clear();
      svg::append_clean_utf8(clean, name);
      size_t cut = 0;
      long seen = 0;
      size_t keep_bytes = clean.size();
      for (size_t i = 0; i < clean.size(); ++i) {
        if ((static_cast<unsigned char>(clean[i]) & 0xC0) == 0x80) continue;
        if (seen == chars - 2) cut = i;
        if (++seen > chars) break;
      }
      if (seen > chars) keep_bytes = cut;
      append_xml_text(b, std::string_view(clean).substr(0, keep_bytes));
      if (keep_bytes < clean.size()) b.append("..");
    }
    b.append("</text></g>\n");
    out.maybe_flush();
  }
  b.append("</g>\n</svg>\n");
  out.maybe_flush();
}

}  // namespace

void write_svg(const Profile& profile, int column, OutputFile& out, const WriteOptions& options) {
  if (options.reverse) {
    Profile flipped = reversed(profile);
    draw(flipped, column, out, options);
    return;
  }
  draw(profile, column, out, options);
}

}  // namespace flamefold
