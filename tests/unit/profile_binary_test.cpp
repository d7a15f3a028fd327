// The profile's own binary form (profile_binary.h): what the Python package pickles and ships
// between Dask workers. Exact round trips; anything cut or damaged is an InputError, never a crash.
#include <gtest/gtest.h>

#include "flamefold/errors.h"
#include "flamefold/pipeline.h"
#include "flamefold/profile_binary.h"
#include "kineto_test_util.h"
#include "test_support.h"

using namespace flamefold;

namespace {

Profile kineto_sample() {
  // Python frames, ops, a launch and its kernel: categories, files, lines, kernel statistics.
  const char* trace = R"J({"traceEvents": [
    {"ph": "X", "cat": "python_function", "name": "train.py(3): step", "pid": 1, "tid": 1, "ts": 0, "dur": 100},
    {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": 10, "dur": 50},
    {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 20, "dur": 5, "args": {"correlation": 7}},
    {"ph": "X", "cat": "kernel", "name": "gemm", "pid": 0, "tid": 7, "ts": 30, "dur": 12.5, "args": {"correlation": 7, "device": 0, "stream": 7}}
  ]})J";
  return read_profile({test::write_file("t.json", trace)}, {});
}

std::string outputs(const Profile& p, std::initializer_list<const char*> kinds = {"folded", "svg", "html", "pb"}) {
  std::string all;
  for (const char* ext : kinds) {
    std::string path = test::tmp_path(std::string("out.") + ext);
    WriteOptions w;
    write_profile(p, path, w);
    all += test::read_file(path);
  }
  return all;
}

}  // namespace

TEST(ProfileBinary, RoundTripsWriteTheSameBytes) {
  Profile p = kineto_sample();
  p.facts.emplace_back("note", "x");
  p.count("odd thing", 3);
  for (bool compress : {false, true}) {
    Profile q = decode_profile(encode_profile(p, compress), "mem");
    EXPECT_EQ(outputs(q), outputs(p));
    EXPECT_EQ(q.source_format, p.source_format);
    EXPECT_EQ(q.facts, p.facts);
    ASSERT_EQ(q.counters.size(), 1u);
    EXPECT_EQ(q.counters[0].count, 3u);
    ASSERT_EQ(q.device_ops.size(), p.device_ops.size());
    EXPECT_EQ(q.device_ops[0].total_ns, p.device_ops[0].total_ns);
    EXPECT_EQ(encode_profile(q, compress), encode_profile(p, compress));
  }
  Profile copy = copy_profile(p);
  EXPECT_EQ(outputs(copy), outputs(p));
}

TEST(ProfileBinary, CutOrDamagedBytesAreInputErrors) {
  const std::string bytes = encode_profile(kineto_sample(), false);
  for (size_t n = 0; n < bytes.size(); ++n) {
    try {
      decode_profile(std::string_view(bytes).substr(0, n), "cut");
      ADD_FAILURE() << "a prefix of " << n << " bytes decoded";
    } catch (const InputError& e) {
      EXPECT_EQ(e.file(), "cut");
    }
  }
  // Every byte changed in turn: decoded (a different but consistent profile) or refused.
  for (size_t i = 4; i < bytes.size(); ++i)
    for (uint8_t flip : {0x01, 0x80, 0xff}) {
      std::string bad = bytes;
      bad[i] = static_cast<char>(bad[i] ^ flip);
      try {
        Profile q = decode_profile(bad, "bad");
        outputs(q, {"folded", "pb"});
      } catch (const InputError&) {
      }
    }
  EXPECT_THROW(decode_profile("FFPB\x01\x01garbage", "z"), InputError);
  EXPECT_THROW(decode_profile("PK\x03\x04", "zip"), InputError);
}
