// Format sniffing on inputs whose first line does not fit the 64 KiB head window (deep
// Java/Python stacks in folded files), through every way bytes arrive: a plain file, gzip,
// zstd and standard input. Also folded stacks that start with '[' are not JSON.
#include <zlib.h>
#include <zstd.h>

#include <string>

#include "flamefold/pipeline.h"
#include "test_support.h"

using namespace flamefold;

namespace {

// "java;pkg.m0.C0.f0;pkg.m1.C1.f1;... 5" about 200 KiB long, then a short line.
std::string deep_stack(const std::string& root = "java") {
  std::string line = root;
  for (int i = 0; line.size() < (200u << 10); ++i)
    line += ";org.example.pkg" + std::to_string(i % 97) + ".Service" + std::to_string(i) + ".handle";
  return line;
}

std::string deep_file(const std::string& root = "java") { return deep_stack(root) + " 5\njava;main 3\n"; }

std::string head_of(const std::string& text) { return text.substr(0, 1 << 16); }

std::string gzipped(const std::string& text) {
  uLongf size = compressBound(static_cast<uLong>(text.size())) + 32;
  std::string out(size, '\0');
  z_stream z{};
  deflateInit2(&z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY);  // gzip wrapper
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(text.data()));
  z.avail_in = static_cast<uInt>(text.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  EXPECT_EQ(deflate(&z, Z_FINISH), Z_STREAM_END);
  out.resize(z.total_out);
  deflateEnd(&z);
  return out;
}

std::string zstd_compressed(const std::string& text) {
  std::string out(ZSTD_compressBound(text.size()), '\0');
  size_t n = ZSTD_compress(out.data(), out.size(), text.data(), text.size(), 3);
  EXPECT_FALSE(ZSTD_isError(n));
  out.resize(n);
  return out;
}

std::string utf16le(const std::string& ascii) {
  std::string out = "\xFF\xFE";
  for (char c : ascii) {
    out.push_back(c);
    out.push_back('\0');
  }
  return out;
}

}  // namespace

TEST(MiscSniff, FirstLineLongerThanTheHeadWindow) {
  std::string text = deep_file();
  ASSERT_GT(text.find('\n'), 200u << 10);
  EXPECT_EQ(sniff_format(head_of(text), "stacks.txt"), Format::Folded);
  // Blank lines before it, a '[' first frame, a frame with spaces, UTF-16 LE with a BOM.
  EXPECT_EQ(sniff_format(head_of("\n\r\n" + text), "x"), Format::Folded);
  EXPECT_EQ(sniff_format(head_of(deep_file("[unknown]")), "x"), Format::Folded);
  EXPECT_EQ(sniff_format(head_of(deep_file("V8 WorkerThread")), "x"), Format::Folded);
  EXPECT_EQ(sniff_format(head_of(utf16le(text)), "x"), Format::Folded);
  // Not folded: no separator, control bytes, a perf header, JSON.
  EXPECT_EQ(sniff_format(head_of(std::string(200 << 10, 'x') + " 5\n"), "x"), Format::Unknown);
  std::string binary = text;
  binary[5000] = '\x01';
  EXPECT_EQ(sniff_format(head_of(binary), "x"), Format::Unknown);
  EXPECT_EQ(sniff_format(head_of("java 1 [000] 12345.678901: 1 cycles: " + deep_stack()), "x"), Format::Unknown);
  EXPECT_EQ(sniff_format(head_of("[{\"name\": \"" + deep_stack() + "\"}]"), "x"), Format::Kineto);
  EXPECT_EQ(sniff_format(head_of("{\"traceEvents\": [" + deep_stack()), "x"), Format::Kineto);
}

TEST(MiscSniff, FoldedStacksStartingWithABracketAreNotJson) {
  EXPECT_EQ(sniff_format("[unknown];main 3\n[libc.so.6];malloc 1\n", "x"), Format::Folded);
  EXPECT_EQ(sniff_format("[\n  {\"ph\": \"X\"}\n]\n", "x"), Format::Kineto);
  EXPECT_EQ(sniff_format("[]", "x"), Format::Kineto);
  EXPECT_EQ(sniff_format("{ \"traceEvents\": [] }", "x"), Format::Kineto);
}

TEST(MiscSniff, LongFirstLineThroughFileGzipZstdAndStdin) {
  std::string text = deep_file();
  std::string expected = "java;main 3\n" + deep_stack() + " 5\n";
  std::string plain = test::write_file("deep.folded", text);
  std::string gz = test::write_file("deep.folded.gz", gzipped(text));
  std::string zst = test::write_file("deep.folded.zst", zstd_compressed(text));
  std::string u16 = test::write_file("deep-utf16.folded", utf16le(text));
  // Standard input redirected from a file, and a real pipe (which cannot be rewound after the
  // compression is sniffed): compressed too.
  for (const std::string& input : {plain, gz, zst, u16, "- < " + plain, "- < " + u16, "- < " + gz, "- < " + zst}) {
    test::RunResult r = test::flamefold("collapse " + input);
    ASSERT_EQ(r.exit_code, 0) << input << ": " << r.err;
    EXPECT_EQ(r.out, expected) << input;
  }
  for (const std::string& file : {plain, gz, zst}) {
    test::RunResult r = test::run("cat " + file + " | " + test::binary() + " collapse -");
    ASSERT_EQ(r.exit_code, 0) << file << ": " << r.err;
    EXPECT_EQ(r.out, expected) << "through a pipe: " << file;
  }
  test::RunResult info = test::flamefold("info " + zst);
  EXPECT_NE(info.out.find("format: folded"), std::string::npos) << info.out << info.err;
}
