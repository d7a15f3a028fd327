// Bundles: a .tar (plain, .gz, .zst), .tgz or .zip of profiles, as the PyTorch and Ascend
// tools ship rank traces. A bundle is read as the files it holds, as if each had been given on
// the command line: its members are extracted (libarchive) into a private temporary directory
// in $TMPDIR that lives as long as the Bundle object; members whose format flamefold cannot
// tell (READMEs, CSV summaries), empty files and macOS metadata (__MACOSX/, ._*) are skipped.
#pragma once
#include <string>
#include <string_view>
#include <vector>

namespace flamefold {

// Whether these first bytes of an input (decoded, as Input::head() shows them) are a bundle.
bool is_bundle(std::string_view head);

class Bundle {
 public:
  struct Member {
    std::string file;  // the extracted copy
    std::string name;  // its path inside the bundle
  };
  // Extracts `path`'s members; throws InputError on a damaged archive or one without profiles.
  explicit Bundle(const std::string& path);
  Bundle(Bundle&&) noexcept;
  Bundle& operator=(Bundle&&) noexcept;
  ~Bundle();  // removes the extracted copies

  const std::string& path() const { return path_; }
  const std::vector<Member>& members() const { return members_; }
  // Members left out, and why ("README.md (not a profile)").
  const std::vector<std::string>& skipped() const { return skipped_; }

 private:
  void clean();
  std::string path_, dir_;
  std::vector<Member> members_;
  std::vector<std::string> skipped_;
  std::vector<std::string> created_;  // files and directories to remove, in creation order
};

}  // namespace flamefold
