// Chrome trace JSON cut off before its closing ']' (the Trace Event Format allows it for traces
// a crash cut short), with or without a trailing comma, as an array or inside a traceEvents
// object: read to its end, with B/E pairs and X events as usual, at any batch size.
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "flamefold/errors.h"
#include "flamefold/pipeline.h"
#include "flamefold/readers/json/kineto.h"
#include "kineto_test_util.h"
#include "test_support.h"

using namespace flamefold;

namespace {

const std::string kEvents =
    "  {\"pid\": 1, \"tid\": 2, \"ph\": \"B\", \"name\": \"step\", \"ts\": 0},\n"
    "  {\"pid\": 1, \"tid\": 2, \"ph\": \"B\", \"name\": \"forward\", \"ts\": 10},\n"
    "  {\"pid\": 1, \"tid\": 2, \"ph\": \"X\", \"name\": \"matmul\", \"ts\": 20, \"dur\": 50, \"args\": {\"note\": \"a ] and a , inside\"}},\n"
    "  {\"pid\": 1, \"tid\": 2, \"ph\": \"E\", \"name\": \"forward\", \"ts\": 100},\n"
    "  {\"pid\": 1, \"tid\": 2, \"ph\": \"X\", \"name\": \"backward\", \"ts\": 110, \"dur\": 40},\n"
    "  {\"pid\": 1, \"tid\": 2, \"ph\": \"E\", \"name\": \"step\", \"ts\": 200}";

std::map<std::string, double> expected() {
  return {{"process 1;thread 2;step", 70000},
          {"process 1;thread 2;step;forward", 40000},
          {"process 1;thread 2;step;forward;matmul", 50000},
          {"process 1;thread 2;step;backward", 40000}};
}

Profile read_json(const std::string& json) { return read_profile({test::write_file("cut.json", json)}, ReadOptions{}); }

}  // namespace

TEST(KinetoCutOff, ArraysAndObjectsWithoutTheirClosingBracketAreRead) {
  const std::string variants[] = {
      "[\n" + kEvents + "\n]\n",            // whole: the reference
      "[\n" + kEvents + "\n",               // no ']'
      "[\n" + kEvents + ",\n",              // a trailing comma
      "[\n" + kEvents + ",",                // ... at the very end
      "[\n" + kEvents + ",\n  \n\t\n",      // ... and blank lines
      "[" + kEvents,                        // no line break at all
      "{\"traceEvents\": [\n" + kEvents + ",\n",                       // an object cut off in its events
      "{\"schemaVersion\": 1, \"traceEvents\": [\n" + kEvents + "\n",  // ... without the comma
  };
  for (size_t chunk : {size_t(0), size_t(7), size_t(64)}) {
    set_kineto_chunk_bytes(chunk);
    for (size_t v = 0; v < std::size(variants); ++v) {
      SCOPED_TRACE("variant " + std::to_string(v) + ", chunk " + std::to_string(chunk));
      Input in = Input::from_memory("x.json", variants[v]);
      EXPECT_EQ(sniff_format(in.head(), "x.json"), Format::Kineto);
      Profile p = read_json(variants[v]);
      EXPECT_EQ(kineto_test::folded(p, "cpu"), expected());
      EXPECT_EQ(kineto_test::counter(p, "without its closing ']'"), v == 0 ? 0u : 1u);
    }
  }
  set_kineto_chunk_bytes(0);
}

TEST(KinetoCutOff, AnEventCutInHalfIsStillAnError) {
  for (size_t chunk : {size_t(0), size_t(16)}) {
    set_kineto_chunk_bytes(chunk);
    std::string json = "[\n" + kEvents + ",\n  {\"pid\": 1, \"tid\": 2, \"ph\": \"X\", \"name\": \"lo";
    std::string path = test::write_file("half.json", json);
    test::RunResult r = test::flamefold("collapse " + path);
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_NE(r.err.find(path), std::string::npos) << r.err;
    EXPECT_TRUE(r.out.empty());
    EXPECT_THROW(read_json(json), InputError);
    // Garbage after the last event is not a cut-off trace either.
    EXPECT_THROW(read_json("[\n" + kEvents + ",\n  oops\n"), InputError);
  }
  set_kineto_chunk_bytes(0);
}

TEST(KinetoCutOff, SeveralCutOffRanksReadTogether) {
  std::string a = test::write_file("rank0.json", "[\n" + kEvents + ",\n");
  std::string b = test::write_file("rank1.json", "{\"distributedInfo\": {\"rank\": 1}, \"traceEvents\": [\n" + kEvents + "\n");
  Profile p = read_profile({a, b}, ReadOptions{});
  std::map<std::string, double> f = kineto_test::folded(p, "cpu");
  EXPECT_EQ(f["rank0.json;process 1;thread 2;step;forward;matmul"], 50000);
  EXPECT_EQ(f["rank 1;process 1;thread 2;step;forward;matmul"], 50000);
  EXPECT_EQ(kineto_test::counter(p, "without its closing ']'"), 2u);
}
