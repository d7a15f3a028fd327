// InputAhead (include/flamefold/input_ahead.h): the same chunks as Input::next_chunk, in order,
// for plain and gzip input; a damaged stream's error arrives where the chunks stop; dropping it
// half-read does not hang.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "flamefold/compress.h"
#include "flamefold/errors.h"
#include "flamefold/input.h"
#include "flamefold/input_ahead.h"
#include "test_support.h"

using namespace flamefold;

namespace {

std::string lines(size_t count) {
  std::string s;
  for (size_t i = 0; i < count; ++i) s += "line " + std::to_string(i) + std::string(i % 37, 'x') + "\n";
  return s;
}

std::vector<std::string> direct(const std::string& path, size_t chunk) {
  Input in = Input::open(path);
  std::vector<std::string> out;
  std::string_view c;
  while (in.next_chunk(c, chunk)) out.emplace_back(c);
  return out;
}

std::vector<std::string> ahead(const std::string& path, size_t chunk, size_t buffers) {
  Input in = Input::open(path);
  InputAhead a(in, chunk, buffers);
  std::vector<std::string> out;
  std::string_view c;
  while (a.next_chunk(c)) out.emplace_back(c);
  EXPECT_FALSE(a.next_chunk(c));  // and stays at the end
  return out;
}

}  // namespace

TEST(InputAhead, HandsOutTheChunksInputWouldInOrder) {
  const std::string text = lines(20000);
  const std::string plain = test::write_file("ahead.txt", text);
  const std::string gz = test::write_file("ahead.txt.gz", gzip_compress(text, 6, "test"));
  for (size_t chunk : {size_t(64), size_t(4096), size_t(1) << 20}) {
    for (size_t buffers : {size_t(1), size_t(3)}) {
      SCOPED_TRACE("chunk " + std::to_string(chunk) + ", buffers " + std::to_string(buffers));
      std::vector<std::string> want = direct(plain, chunk);
      EXPECT_GE(want.size(), chunk < (size_t(1) << 20) ? 2u : 1u);  // several chunks: their order counts
      EXPECT_EQ(ahead(plain, chunk, buffers), want);
      EXPECT_EQ(ahead(gz, chunk, buffers), direct(gz, chunk));
      std::string joined;
      for (const std::string& c : ahead(gz, chunk, buffers)) joined += c;
      EXPECT_EQ(joined, text);
    }
  }
}

TEST(InputAhead, ADamagedStreamsErrorComesWhereTheChunksStop) {
  std::string packed = gzip_compress(lines(50000), 6, "test");
  packed.resize(packed.size() / 2);  // cut off mid-stream
  const std::string path = test::write_file("cut.txt.gz", packed);
  std::string direct_error, ahead_error;
  size_t direct_bytes = 0, ahead_bytes = 0;
  try {
    Input in = Input::open(path);
    std::string_view c;
    while (in.next_chunk(c, 4096)) direct_bytes += c.size();
  } catch (const InputError& e) {
    direct_error = e.what();
  }
  try {
    Input in = Input::open(path);
    InputAhead a(in, 4096, 2);
    std::string_view c;
    while (a.next_chunk(c)) ahead_bytes += c.size();
  } catch (const InputError& e) {
    ahead_error = e.what();
  }
  EXPECT_FALSE(direct_error.empty());
  EXPECT_EQ(ahead_error, direct_error);
  EXPECT_EQ(ahead_bytes, direct_bytes);
}

TEST(InputAhead, DroppedHalfReadItStopsItsWorker) {
  const std::string path = test::write_file("big.txt", lines(200000));
  for (int k = 0; k < 20; ++k) {
    Input in = Input::open(path);
    InputAhead a(in, 1024, 1);  // the worker fills its one buffer and waits
    std::string_view c;
    ASSERT_TRUE(a.next_chunk(c));
    EXPECT_EQ(c.substr(0, 7), "line 0\n");
  }  // each destructor returns (a hang would time the test out)
}
