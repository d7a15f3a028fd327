// Readers' internal helpers for the stack collapsers (readers/text/collapse_*.cpp): text lines
// with their numbers, the folded stacks a peer collapser would print (stack text -> count), and
// small parsers that behave like the peers' (Perl regexes, Rust's str methods).
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>

#include "flamefold/input.h"
#include "flamefold/profile.h"
#include "flamefold/readers/text/text_source.h"

namespace flamefold::collapse {

// The lines of a text input (UTF-16 decoded, a byte-order mark dropped), without their '\n'
// and a '\r' before it, numbered from 1.
class Lines {
 public:
  explicit Lines(Input& input) : src_(input) {}
  bool next(std::string_view& line);
  uint64_t number() const { return number_; }  // of the line next() returned last
  uint64_t decode_errors() const { return src_.decode_errors(); }

 private:
  TextSource src_;
  std::string_view chunk_;
  size_t pos_ = 0;
  uint64_t number_ = 0;
};

// The whole text of an input (for the XML reader).
std::string read_text(Input& input);

// Folded stacks as a peer collapser prints them: the stack text (frames joined by ';') and its
// count. The profile is built by splitting each text at ';', as flamegraph.pl reads the peer's
// output, so `flamefold collapse` writes the same lines back.
class StackCounts {
 public:
  void add(std::string_view stack, double count);  // adds to a stack seen before
  void set(std::string_view stack, double count);  // replaces it (inferno's vtune and vsprof)
  size_t size() const { return counts_.size(); }
  // A new profile of these stacks; `unit` names what a count is.
  Profile build(const Input& input, std::string_view source_format, std::string_view unit = "samples");

 private:
  struct Hash {
    using is_transparent = void;
    size_t operator()(std::string_view s) const;
  };
  std::unordered_map<std::string, double, Hash, std::equal_to<>> counts_;
};

// Perl's \s and Rust's ASCII whitespace; Rust's char::is_whitespace for a code point.
inline bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; }
inline bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_unicode_space(uint32_t cp);
std::string_view trim(std::string_view s);        // Rust's str::trim (Unicode whitespace)
std::string_view trim_start(std::string_view s);  // Rust's str::trim_start
std::string_view trim_end(std::string_view s);    // Rust's str::trim_end
std::string_view perl_trim_start(std::string_view s);  // s/^\s*//
// Rust's usize::from_str: an optional '+', then digits only, no overflow.
bool parse_usize(std::string_view s, uint64_t& v);
// Rust's f64::from_str (an optional sign, digits with a point and exponent, inf, nan).
bool parse_f64(std::string_view s, double& v);
// Perl's /^\s*(\d+)+$/ (a count line of DTrace and SystemTap output): the digits.
bool perl_count_line(std::string_view line, std::string_view& digits);
// A Perl number (Perl reads "007" as 7 and sums counts as doubles).
double perl_number(std::string_view digits);
// Rust casts of a double to usize: NaN and negatives to 0, saturating above.
double as_usize(double v);
// inferno's repair of Rust symbols that sample, DTrace and Instruments left half demangled
// ("_$LT$a..b$GT$::run::h0123456789abcdef" -> "<a::b>::run"); other names are returned as they are.
std::string fix_rust_symbol(std::string_view symbol);

}  // namespace flamefold::collapse
