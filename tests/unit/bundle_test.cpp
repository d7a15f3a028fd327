// Bundles: .tar.gz / .tgz / .zip of profiles, read as the files they hold, as if each had been
// given on the command line. The archives are written here with libarchive.
#include <archive.h>
#include <archive_entry.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "flamefold/bundle.h"
#include "flamefold/errors.h"
#include "flamefold/pipeline.h"
#include "kineto_test_util.h"
#include "test_support.h"

using namespace flamefold;

namespace {

using Members = std::vector<std::pair<std::string, std::string>>;  // path in the bundle, content

// kind: "tgz", "tar", "zip".
std::string write_bundle(const std::string& name, const std::string& kind, const Members& members) {
  std::string path = test::tmp_path(name);
  archive* a = archive_write_new();
  if (kind == "zip") {
    archive_write_set_format_zip(a);
  } else {
    archive_write_set_format_pax_restricted(a);
    if (kind == "tgz") archive_write_add_filter_gzip(a);
  }
  EXPECT_EQ(archive_write_open_filename(a, path.c_str()), ARCHIVE_OK);
  for (const auto& [member, content] : members) {
    archive_entry* e = archive_entry_new();
    archive_entry_set_pathname(e, member.c_str());
    bool dir = !member.empty() && member.back() == '/';
    archive_entry_set_filetype(e, dir ? AE_IFDIR : AE_IFREG);
    archive_entry_set_perm(e, dir ? 0755 : 0644);
    archive_entry_set_size(e, dir ? 0 : static_cast<la_int64_t>(content.size()));
    EXPECT_EQ(archive_write_header(a, e), ARCHIVE_OK);
    if (!dir) EXPECT_EQ(archive_write_data(a, content.data(), content.size()), static_cast<la_ssize_t>(content.size()));
    archive_entry_free(e);
  }
  archive_write_close(a);
  archive_write_free(a);
  return path;
}

std::string kineto(int rank, const std::string& op) {
  return "{\"distributedInfo\": {\"rank\": " + std::to_string(rank) +
         "}, \"traceEvents\": [\n"
         "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"" + op + "\", \"pid\": 10, \"tid\": 10, \"ts\": 100, \"dur\": 5}\n]}\n";
}

// Points $TMPDIR at a fresh directory for the test, so what a bundle unpacks can be watched.
struct TmpDir {
  std::string dir, old;
  bool had_old = false;
  TmpDir() : dir(test::tmp_path("tmpdir")) {
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
    if (const char* o = std::getenv("TMPDIR")) {
      old = o;
      had_old = true;
    }
    setenv("TMPDIR", dir.c_str(), 1);
  }
  ~TmpDir() {
    if (had_old) setenv("TMPDIR", old.c_str(), 1);
    else unsetenv("TMPDIR");
  }
  bool empty() const { return std::filesystem::is_empty(dir); }
};

}  // namespace

TEST(Bundle, TarGzOfFoldedFilesReadsAsTheFilesGivenOneByOne) {
  TmpDir tmp;
  Members m = {{"run/", ""}, {"run/host-a.folded", "main;work 5\nmain;io 2\n"}, {"run/host-b.folded", "main;work 3\n"},
               {"run/README.md", "# how this was made\n"}, {"__MACOSX/run/._host-a.folded", "junk"}, {"run/empty.txt", ""}};
  std::string tgz = write_bundle("runs.tgz", "tgz", m);
  Input in = Input::open(tgz);
  EXPECT_TRUE(is_bundle(in.head()));
  Profile p = read_profile({tgz}, ReadOptions{});
  std::map<std::string, double> f = kineto_test::folded(p, "samples");
  EXPECT_EQ(f, (std::map<std::string, double>{{"run/host-a.folded;main;work", 5}, {"run/host-a.folded;main;io", 2},
                                              {"run/host-b.folded;main;work", 3}}));
  EXPECT_EQ(kineto_test::fact(p, "bundle"), tgz + " (2 profiles)");
  std::vector<std::string> left_out;
  for (const auto& [k, v] : p.facts)
    if (k == "left out of the bundle") left_out.push_back(v);
  EXPECT_EQ(left_out, (std::vector<std::string>{"run/README.md (not a profile)", "run/empty.txt (empty)"}));
  EXPECT_EQ(p.inputs, (std::vector<std::string>{tgz + ":run/host-a.folded", tgz + ":run/host-b.folded"}));
  EXPECT_TRUE(tmp.empty()) << "the unpacked copies are removed";

  // The same files given one by one make the same stacks (under their file names).
  std::string a = test::write_file("host-a.folded", m[1].second), b = test::write_file("host-b.folded", m[2].second);
  std::map<std::string, double> direct = kineto_test::folded(read_profile({a, b}, ReadOptions{}), "samples");
  EXPECT_EQ(direct.size(), f.size());
  EXPECT_EQ(direct["host-a.folded;main;work"], 5);
}

TEST(Bundle, ZipOfKinetoRanksIsOneMultiRankTrace) {
  TmpDir tmp;
  std::string zip = write_bundle("ranks.zip", "zip",
                                 {{"prof/rank0/w.pt.trace.json", kineto(0, "aten::mm")},
                                  {"prof/rank1/w.pt.trace.json", kineto(1, "aten::add")},
                                  {"prof/kernel_details.csv", "Name,Duration\nx,1\n"}});
  Profile p = read_profile({zip}, ReadOptions{});
  EXPECT_EQ(p.source_format.substr(0, 6), "kineto");
  std::map<std::string, double> f = kineto_test::folded(p, "cpu");
  bool rank0 = false, rank1 = false;
  for (const auto& [stack, w] : f) {
    rank0 |= stack.rfind("rank 0;", 0) == 0 && stack.find("aten::mm") != std::string::npos;
    rank1 |= stack.rfind("rank 1;", 0) == 0 && stack.find("aten::add") != std::string::npos;
  }
  EXPECT_TRUE(rank0 && rank1) << "ranks from distributedInfo";
  EXPECT_TRUE(tmp.empty());
}

TEST(Bundle, OneProfileInABundleIsThatProfile) {
  std::string text = "a;b 4\na;c 1\n";
  std::string tar = write_bundle("one.tar", "tar", {{"only.folded", text}});
  std::map<std::string, double> f = kineto_test::folded(read_profile({tar}, ReadOptions{}), "samples");
  EXPECT_EQ(f, (std::map<std::string, double>{{"a;b", 4}, {"a;c", 1}})) << "no rank level for a single profile";
  // A bundle beside a plain file: both are inputs.
  std::string other = test::write_file("other.folded", "x;y 2\n");
  f = kineto_test::folded(read_profile({tar, other}, ReadOptions{}), "samples");
  EXPECT_EQ(f, (std::map<std::string, double>{{"only.folded;a;b", 4}, {"only.folded;a;c", 1}, {"other.folded;x;y", 2}}));
}

TEST(Bundle, BadBundlesGetOneClearError) {
  TmpDir tmp;
  std::string none = write_bundle("docs.tgz", "tgz", {{"README.md", "nothing to see\n"}});
  std::string bad_member = write_bundle("bad.zip", "zip", {{"traces/t.json", "{\"traceEvents\": [ {\"ph\": \"X\", \"ts\": }"}});
  std::string good = write_bundle("big.tgz", "tgz", {{"a.folded", std::string(200000, 'x') + ";y 1\n"}});
  std::string cut = test::write_file("cut.tgz", test::read_file(good).substr(0, 400));
  struct Case {
    std::string path, message;
  } cases[] = {
      {none, none + ": a bundle with no profile in it (1 file, not a profile)"},
      {bad_member, bad_member + ":traces/t.json:"},
      {cut, cut + ":"},
  };
  for (const Case& c : cases) {
    test::RunResult r = test::flamefold("collapse " + c.path);
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_NE(r.err.find("flamefold: error: " + c.message), std::string::npos) << r.err;
    EXPECT_EQ(r.err.find('\n'), r.err.size() - 1) << r.err;
    EXPECT_TRUE(r.out.empty());
    EXPECT_THROW(read_profile({c.path}, ReadOptions{}), InputError);
  }
  EXPECT_TRUE(tmp.empty()) << "nothing left behind after a failure either";
}

TEST(Bundle, MembersNeverWriteOutsideTheirDirectory) {
  TmpDir tmp;
  std::string evil = write_bundle("evil.tar", "tar", {{"../../escaped.folded", "a;b 1\n"}, {"/abs/x.folded", "c;d 2\n"}});
  Profile p = read_profile({evil}, ReadOptions{});
  std::map<std::string, double> f = kineto_test::folded(p, "samples");
  EXPECT_EQ(f.size(), 2u);
  EXPECT_FALSE(std::filesystem::exists(std::filesystem::path(tmp.dir).parent_path().parent_path() / "escaped.folded"));
  EXPECT_TRUE(tmp.empty());
}

// The CLI does not load libarchive (and the ICU, libxml2 ... it brings) until a bundle is read:
// a run on a plain file starts ~3 ms sooner. A bundle still reads the same.
TEST(Bundle, TheCliLoadsLibarchiveOnlyForABundle) {
  std::string text = "a;b 4\na;c 1\n";
  std::string plain = test::write_file("plain.folded", text);
  std::string tgz = write_bundle("plain.tgz", "tgz", {{"plain.folded", text}});
  // LD_DEBUG=files: the dynamic loader names on stderr every library it loads.
  test::RunResult from_file = test::run("LD_DEBUG=files " + test::binary() + " collapse " + plain);
  ASSERT_EQ(from_file.exit_code, 0) << from_file.err;
  EXPECT_NE(from_file.err.find("libsqlite3"), std::string::npos) << from_file.err;
  EXPECT_EQ(from_file.err.find("libarchive"), std::string::npos) << from_file.err;
  test::RunResult from_bundle = test::run("LD_DEBUG=files " + test::binary() + " collapse " + tgz);
  ASSERT_EQ(from_bundle.exit_code, 0) << from_bundle.err;
  EXPECT_NE(from_bundle.err.find("libarchive"), std::string::npos) << from_bundle.err;
  EXPECT_EQ(from_bundle.out, from_file.out);
  EXPECT_EQ(from_bundle.out, text);
}
