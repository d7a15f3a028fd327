// The pprof reader on profiles built with libprotobuf's generated classes (so the hand-written
// wire code is checked against Debian's protobuf): sample types and units, inlined lines,
// unsymbolized locations, labels as group levels, ids of any size, packed and unpacked
// fields; sniffing; and bad input of every kind: one InputError naming the byte, never a crash.
#include <filesystem>
#include <random>
#include <string>

#include "flamefold/compress.h"
#include "flamefold/errors.h"
#include "flamefold/pipeline.h"
#include "flamefold/readers/proto/wire.h"
#include "pprof_util.h"

using namespace flamefold;
using PbProfile = pprof_test::pb::Profile;
namespace pb = pprof_test::pb;

namespace {

pb::Location* add_location(PbProfile& p, uint64_t id, uint64_t mapping, uint64_t address,
                           std::vector<std::pair<uint64_t, int64_t>> lines) {
  pb::Location* l = p.add_location();
  l->set_id(id);
  l->set_mapping_id(mapping);
  l->set_address(address);
  for (auto [fn, line] : lines) {
    pb::Line* x = l->add_line();
    x->set_function_id(fn);
    x->set_line(line);
  }
  return l;
}

void add_function(PbProfile& p, pprof_test::Strings& s, uint64_t id, const std::string& name, const std::string& file,
                  int64_t start_line, const std::string& system_name = "") {
  pb::Function* f = p.add_function();
  f->set_id(id);
  f->set_name(s(name));
  f->set_system_name(s(system_name.empty() ? name : system_name));
  f->set_filename(s(file));
  f->set_start_line(start_line);
}

pb::Sample* add_sample(PbProfile& p, std::vector<uint64_t> locs, std::vector<int64_t> values) {
  pb::Sample* x = p.add_sample();
  for (uint64_t l : locs) x->add_location_id(l);
  for (int64_t v : values) x->add_value(v);
  return x;
}

void add_label(pb::Sample* x, pprof_test::Strings& s, const std::string& key, const std::string& str) {
  pb::Label* l = x->add_label();
  l->set_key(s(key));
  l->set_str(s(str));
}
void add_num_label(pb::Sample* x, pprof_test::Strings& s, const std::string& key, int64_t num) {
  pb::Label* l = x->add_label();
  l->set_key(s(key));
  l->set_num(num);
}

// A profile with something of everything the reader handles.
PbProfile everything() {
  PbProfile p;
  pprof_test::Strings s(p);
  for (auto [type, unit] : {std::pair{"samples", "count"}, std::pair{"cpu", "nanoseconds"}}) {
    pb::ValueType* vt = p.add_sample_type();
    vt->set_type(s(type));
    vt->set_unit(s(unit));
  }
  p.set_default_sample_type(s("samples"));
  pb::Mapping* lib = p.add_mapping();
  lib->set_id(1);
  lib->set_memory_start(0x1000);
  lib->set_memory_limit(0x9000);
  lib->set_file_offset(0x200);
  lib->set_filename(s("/usr/lib/libfoo.so"));
  pb::Mapping* app = p.add_mapping();
  app->set_id(2);
  app->set_memory_start(0x400000);
  app->set_memory_limit(0x500000);
  app->set_filename(s("/opt/app/server"));
  add_function(p, s, 1, "outer", "app.cc", 10);
  add_function(p, s, 2, "inner", "inline.h", 3);
  add_function(p, s, 3, "main", "main.cc", 0);
  add_function(p, s, 4, "", "", 0, "_Z4leafv");  // no name: the system name stands in
  add_location(p, 1, 2, 0x400100, {{2, 5}, {1, 12}});  // inner inlined into outer
  add_location(p, 2, 1, 0x1234, {});                   // unsymbolized, in libfoo
  add_location(p, 3, 0, 0xdead, {});                   // nothing known
  add_location(p, 4, 2, 0x400200, {{3, 20}});
  add_location(p, 5, 2, 0x400300, {{4, 0}});
  pb::Sample* s1 = add_sample(p, {1, 4}, {2, 200});
  add_label(s1, s, "region", "eu");
  add_label(s1, s, "thread", "worker-1");
  add_num_label(s1, s, "pid", 42);
  add_num_label(s1, s, "bytes", 512);  // numeric, not a level
  pb::Sample* s2 = add_sample(p, {2, 1, 4}, {1, 100});
  add_label(s2, s, "thread", "worker-1");
  add_num_label(s2, s, "pid", 42);
  add_sample(p, {3}, {3, 300});
  pb::Sample* s4 = add_sample(p, {5, 4}, {1, 7});
  add_num_label(s4, s, "rank", 3);
  return p;
}

std::string error_of(const std::string& bytes) {
  try {
    pprof_test::read_bytes(bytes, "bad.pb");
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST(PprofReader, ReadsEverySampleTypeWithTheDefaultAndUnits) {
  flamefold::Profile p = pprof_test::read_bytes(everything().SerializeAsString());
  EXPECT_EQ(p.source_format, "pprof");
  ASSERT_EQ(p.columns.size(), 2u);
  EXPECT_EQ(p.columns[0].name, "samples");
  EXPECT_EQ(p.columns[0].unit, "samples");  // pprof's samples/count is flamefold's samples
  EXPECT_EQ(p.columns[1].name, "cpu");
  EXPECT_EQ(p.columns[1].unit, "ns");
  EXPECT_EQ(p.columns[p.default_column].name, "samples");
  EXPECT_EQ(p.total(0), 7);
  EXPECT_EQ(p.total(1), 607);
  EXPECT_EQ(choose_column(p, "cpu"), 1);
}

TEST(PprofReader, InlinedLinesLabelsAndUnsymbolizedLocations) {
  flamefold::Profile p = pprof_test::read_bytes(everything().SerializeAsString());
  std::map<std::string, double> want = {
      {"pid 42;worker-1;region=eu;main;outer;inner", 200},
      {"pid 42;worker-1;main;outer;inner;libfoo.so+0x434", 100},
      {"0xdead", 300},
      {"rank 3;main;_Z4leafv", 7},
  };
  EXPECT_EQ(pprof_test::weights(p, "cpu"), want);
  // Frames: a function with its file and start line, the mapping's file as the category.
  std::map<std::string, double> d = pprof_test::described(p, "samples");
  EXPECT_EQ(d.count("pid 42||0|process;worker-1||0|thread;region=eu||0|label;main|main.cc|0|server;"
                    "outer|app.cc|10|server;inner|inline.h|3|server"),
            1u);
  EXPECT_EQ(d.count("0xdead||0|"), 1u);
  EXPECT_EQ(d.count("rank 3||0|rank;main|main.cc|0|server;_Z4leafv||0|server"), 1u);
  // The numeric "bytes" label is named, not drawn.
  bool noted = false;
  for (const auto& [k, v] : p.facts) noted |= k == "numeric labels (not levels)" && v == "bytes";
  EXPECT_TRUE(noted);
}

TEST(PprofReader, DefaultIsTheLastTypeWithoutDefaultSampleType) {
  PbProfile pb = everything();
  pb.clear_default_sample_type();
  flamefold::Profile p = pprof_test::read_bytes(pb.SerializeAsString());
  EXPECT_EQ(p.columns[p.default_column].name, "cpu");
}

TEST(PprofReader, SamplesAtSeveralLinesOfAFunctionAddUpInOneFrame) {
  PbProfile pb;
  pprof_test::Strings s(pb);
  pb::ValueType* vt = pb.add_sample_type();
  vt->set_type(s("samples"));
  vt->set_unit(s("count"));
  add_function(pb, s, 1, "f", "f.go", 0);
  add_location(pb, 1, 0, 0x10, {{1, 7}});
  add_location(pb, 2, 0, 0x20, {{1, 9}});
  add_sample(pb, {1}, {2});
  add_sample(pb, {2}, {3});
  flamefold::Profile p = pprof_test::read_bytes(pb.SerializeAsString());
  EXPECT_EQ(pprof_test::weights(p, "samples"), (std::map<std::string, double>{{"f", 5}}));
}

TEST(PprofReader, IdsOfAnySizeAndUnpackedRepeatedFields) {
  // Sparse ids (a table would not do) through libprotobuf ...
  PbProfile pb;
  pprof_test::Strings s(pb);
  pb::ValueType* vt = pb.add_sample_type();
  vt->set_type(s("alloc"));
  vt->set_unit(s("bytes"));
  add_function(pb, s, 7777777777ull, "f", "", 0);
  add_function(pb, s, 3, "g", "", 0);
  add_location(pb, 1ull << 40, 0, 0, {{7777777777ull, 1}});
  add_location(pb, 5, 0, 0, {{3, 1}});
  add_sample(pb, {1ull << 40, 5}, {64});
  flamefold::Profile a = pprof_test::read_bytes(pb.SerializeAsString());
  EXPECT_EQ(pprof_test::weights(a, "alloc"), (std::map<std::string, double>{{"g;f", 64}}));
  EXPECT_EQ(a.columns[0].unit, "bytes");

  // ... and the same profile written by hand with the sample's repeated fields unpacked (one
  // tag per value, as proto2 writers do): the same result.
  std::string sample;
  proto::append_varint_field(sample, 1, 1ull << 40);
  proto::append_varint_field(sample, 1, 5);
  proto::append_varint_field(sample, 2, 64);
  PbProfile no_samples = pb;
  no_samples.clear_sample();
  std::string bytes = no_samples.SerializeAsString();
  proto::append_len_field(bytes, 2, sample);
  flamefold::Profile b = pprof_test::read_bytes(bytes);
  EXPECT_EQ(pprof_test::weights(b, "alloc"), pprof_test::weights(a, "alloc"));
}

TEST(PprofReader, SniffsPlainAndGzippedProfilesButNotText) {
  std::string bytes = everything().SerializeAsString();
  EXPECT_EQ(sniff_format(bytes, "x.pb"), Format::Pprof);
  EXPECT_TRUE(looks_like_pprof(bytes, 1 << 16));
  // A window that cuts the profile short still sniffs as one.
  EXPECT_TRUE(looks_like_pprof(bytes.substr(0, bytes.size() - 3), bytes.size() - 3));
  EXPECT_FALSE(looks_like_pprof(bytes.substr(0, bytes.size() - 3), 1 << 16));
  // A gzipped file, through Input (which decodes it) and the CLI.
  std::string gz = test::tmp_path("p.pb.gz");
  {
    flamefold::Profile p = pprof_test::read_bytes(bytes);
    test::RunResult r = test::flamefold("convert " + test::write_file("p.pb", bytes) + " -o " + gz);
    ASSERT_EQ(r.exit_code, 0) << r.err;
  }
  Input in = Input::open(gz);
  EXPECT_EQ(in.compression(), Compression::Gzip);
  EXPECT_EQ(sniff_format(in.head(), gz), Format::Pprof);
  test::RunResult info = test::flamefold("info " + gz);
  EXPECT_EQ(info.exit_code, 0) << info.err;
  EXPECT_NE(info.out.find("format: pprof"), std::string::npos);
  // Text that starts with the bytes pprof starts with ('\n' is field 1, length-delimited).
  EXPECT_EQ(sniff_format("\n\nmain;foo;bar 12\nmain;baz 3\n", "x.folded"), Format::Folded);
  EXPECT_FALSE(looks_like_pprof("\nmain;a 1\n", 1 << 16));
  EXPECT_FALSE(looks_like_pprof("2to3;main 1\n", 1 << 16));
  EXPECT_FALSE(looks_like_pprof("", 1 << 16));
}

TEST(PprofReader, NoRealFileOfAnotherFormatSniffsAsPprof) {
  REQUIRE_SHARED("data");
  size_t files = 0;
  for (const auto& e : std::filesystem::recursive_directory_iterator(shared_path + "data")) {
    if (!e.is_regular_file()) continue;
    Input in = Input::open(e.path().string());
    EXPECT_NE(sniff_format(in.head(), e.path().string()), Format::Pprof) << e.path();
    ++files;
  }
  EXPECT_GT(files, 50u);
  Input ex = Input::open(test::source_dir() + "/examples/python-perf.txt");
  EXPECT_EQ(sniff_format(ex.head(), "python-perf.txt"), Format::PerfScript);
}

// ---- bad input ----

TEST(PprofBadInput, EveryTruncationIsAnErrorOrAShorterProfileNeverACrash) {
  std::string bytes = everything().SerializeAsString();
  size_t errors = 0;
  for (size_t n = 0; n < bytes.size(); ++n) {
    try {
      pprof_test::read_bytes(bytes.substr(0, n), "cut.pb");
    } catch (const InputError& e) {
      ++errors;
      EXPECT_EQ(std::string(e.what()).rfind("cut.pb:", 0), 0u) << e.what();
    }
  }
  // Most cuts land inside a field (or leave a sample without its location).
  EXPECT_GT(errors, bytes.size() / 2);
}

TEST(PprofBadInput, RandomDamageIsAnErrorOrAProfileNeverACrash) {
  const std::string good = everything().SerializeAsString();
  std::mt19937 rng(12345);
  size_t errors = 0;
  for (int round = 0; round < 3000; ++round) {
    std::string bytes = good;
    int flips = 1 + static_cast<int>(rng() % 4);
    for (int k = 0; k < flips; ++k) bytes[rng() % bytes.size()] = static_cast<char>(rng());
    try {
      pprof_test::read_bytes(bytes, "damaged.pb");
    } catch (const InputError& e) {
      ++errors;
      EXPECT_EQ(std::string(e.what()).rfind("damaged.pb:", 0), 0u) << e.what();
    }
  }
  EXPECT_GT(errors, 1000u);
}

TEST(PprofBadInput, EachProblemIsNamed) {
  auto expect_error = [](const std::string& bytes, const std::string& part) {
    std::string e = error_of(bytes);
    EXPECT_NE(e.find(part), std::string::npos) << "expected '" << part << "' in: " << e;
    EXPECT_EQ(e.rfind("bad.pb:byte ", 0), 0u) << e;
  };
  expect_error(std::string("\x10\x05", 2), "field 2 (sample) has wire type 0 (varint), expected 2");
  expect_error(std::string("\x12\xff\xff\xff\xff\x0f", 6), "says it has 4294967295 bytes, but only 0 are left");
  expect_error(std::string("\x0b\x01\x0c", 3), "wire type 3 (start-group)");
  expect_error(std::string("\x0e", 1), "wire type 6");
  expect_error(std::string("\x38\x80\x80\x80\x80\x80\x80\x80\x80\x80\x80\x01", 12), "varint");
  expect_error(std::string("\x38\x80\x80", 3), "truncated varint");
  expect_error(std::string("\x00\x01", 2), "field number 0");

  PbProfile p = everything();
  p.mutable_sample(0)->set_location_id(0, 99);
  expect_error(p.SerializeAsString(), "refers to location 99");
  p = everything();
  p.mutable_location(0)->mutable_line(0)->set_function_id(1234);
  expect_error(p.SerializeAsString(), "refers to function 1234");
  p = everything();
  p.mutable_location(1)->set_mapping_id(9);
  expect_error(p.SerializeAsString(), "refers to mapping 9");
  p = everything();
  p.mutable_function(0)->set_name(100000);
  expect_error(p.SerializeAsString(), "string index 100000 is outside the string table");
  p = everything();
  p.mutable_sample(1)->add_value(5);
  expect_error(p.SerializeAsString(), "a sample has 3 values but the profile has 2 sample types");
  p = everything();
  p.mutable_location(2)->set_id(1);
  expect_error(p.SerializeAsString(), "location id 1 is defined twice");
  p = everything();
  p.mutable_location(2)->set_id(0);
  expect_error(p.SerializeAsString(), "location with id 0 (ids start at 1)");
  p = everything();
  p.set_string_table(0, "oops");
  expect_error(p.SerializeAsString(), "first entry is not the empty string");
  // A location whose line is a number instead of a message.
  std::string loc;
  proto::append_varint_field(loc, 1, 1);
  proto::append_varint_field(loc, 4, 1);
  std::string bytes;
  proto::append_len_field(bytes, 4, loc);
  expect_error(bytes, "field 4 (location line) has wire type 0 (varint), expected 2");
}

TEST(PprofBadInput, TheCommandLineSaysOneLineAndWritesNothing) {
  std::string good = everything().SerializeAsString();
  std::string bad = test::write_file("bad.pb", good.substr(0, good.size() / 2) + std::string("\x12\xff\xff\x7f", 4));
  std::string out = test::tmp_path("never.html");
  test::RunResult r = test::flamefold("flamegraph --format pprof " + bad + " -o " + out);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err.rfind("flamefold: error: " + bad + ":byte ", 0), 0u) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_FALSE(std::filesystem::exists(out));
  // Sniffed without --format too, and a truncated gzip.
  r = test::flamefold("info " + bad);
  EXPECT_EQ(r.exit_code, 2);
  std::string gz = test::tmp_path("good.pb.gz");
  ASSERT_EQ(test::flamefold("convert " + test::write_file("good.pb", good) + " -o " + gz).exit_code, 0);
  std::string z = test::read_file(gz);
  std::string cut = test::write_file("cut.pb.gz", z.substr(0, z.size() / 2));
  r = test::flamefold("convert " + cut + " -o " + test::tmp_path("never.pb.gz"));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("truncated gzip stream"), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(test::tmp_path("never.pb.gz")));
}

// Gzip read whole (libdeflate when built with it): several members, the last one small (its
// size in the trailer underestimates the whole), and a corrupt one (the zlib stream names it).
TEST(PprofReader, GzipMembersAndDamage) {
  std::string bytes;
  {
    PbProfile big = everything();
    pprof_test::Strings s(big);
    for (int i = 0; i < 3000; ++i) big.add_comment(s("comment number " + std::to_string(i)));
    bytes = big.SerializeAsString();
  }
  const std::string want = pprof_test::read_bytes(bytes).facts.back().second;
  auto gz = [](std::string_view part) { return gzip_compress(part, 6, "test"); };
  std::string two = gz(std::string_view(bytes).substr(0, bytes.size() - 10)) + gz(std::string_view(bytes).substr(bytes.size() - 10));
  std::string path = test::write_file("two.pb.gz", two);
  flamefold::Profile p = read_profile({path}, ReadOptions{});
  EXPECT_EQ(p.facts.back().second, want);
  EXPECT_EQ(pprof_test::weights(p, "cpu"), pprof_test::weights(pprof_test::read_bytes(bytes), "cpu"));
  std::string damaged = two;
  damaged[damaged.size() / 3] ^= 0x55;
  damaged[damaged.size() / 3 + 1] ^= 0x55;
  test::RunResult r = test::flamefold("info --format pprof " + test::write_file("damaged.pb.gz", damaged));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("damaged.pb.gz:byte "), std::string::npos) << r.err;
}
