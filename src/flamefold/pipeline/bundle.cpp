#include "flamefold/bundle.h"

#include <archive.h>
#include <archive_entry.h>
#include <dlfcn.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <memory>

#include "flamefold/errors.h"
#include "flamefold/input.h"
#include "flamefold/pipeline.h"

namespace flamefold {

bool is_bundle(std::string_view head) {
  if (head.size() >= 4 && (head.substr(0, 4) == std::string_view("PK\x03\x04", 4) || head.substr(0, 4) == std::string_view("PK\x05\x06", 4)))
    return true;  // zip (an empty one ends at once)
  return head.size() >= 262 && head.substr(257, 5) == "ustar";  // POSIX and GNU tar
}

namespace {

// libarchive, loaded the first time a bundle is read: with the libraries it loads in turn
// (libxml2, ICU, nettle ...) it added ~3 ms to the start of every run, bundle or not. The
// functions used, each a member of LibArchive named as in archive.h.
#define FLAMEFOLD_LIBARCHIVE_FUNCTIONS(X)                                                                        \
  X(archive_read_new) X(archive_read_free) X(archive_read_support_filter_all) X(archive_read_support_format_tar) \
  X(archive_read_support_format_gnutar) X(archive_read_support_format_zip) X(archive_read_open_filename)         \
  X(archive_read_next_header) X(archive_read_data_into_fd) X(archive_error_string)                               \
  X(archive_entry_pathname_utf8) X(archive_entry_pathname) X(archive_entry_filetype)

struct LibArchive {
#define FLAMEFOLD_DECLARE(f) decltype(&::f) f = nullptr;
  FLAMEFOLD_LIBARCHIVE_FUNCTIONS(FLAMEFOLD_DECLARE)
#undef FLAMEFOLD_DECLARE
  std::string problem;  // why it cannot be used ("" when every function was found)
};

const LibArchive& libarchive() {
  static const LibArchive lib = [] {
    LibArchive l;
    void* h = nullptr;
    // Bound lazily, as the loader binds a library linked in: RTLD_NOW resolved libarchive's and
    // its libraries' every symbol and made a bundle's read ~4 ms slower than before.
    for (const char* name : {"libarchive.so.13", "libarchive.so"})
      if ((h = ::dlopen(name, RTLD_LAZY | RTLD_LOCAL)) != nullptr) break;
    if (!h) {
      const char* e = ::dlerror();
      l.problem = e ? e : "libarchive.so.13 not found";
      return l;
    }
#define FLAMEFOLD_LOAD(f)                                                            \
  l.f = reinterpret_cast<decltype(&::f)>(::dlsym(h, #f));                            \
  if (!l.f && l.problem.empty()) l.problem = "libarchive has no " #f;
    FLAMEFOLD_LIBARCHIVE_FUNCTIONS(FLAMEFOLD_LOAD)
#undef FLAMEFOLD_LOAD
    return l;
  }();
  return lib;
}
#undef FLAMEFOLD_LIBARCHIVE_FUNCTIONS

// libarchive's message for the last failure; it has none (NULL) for some damaged inputs.
std::string archive_problem(const LibArchive& lib, struct archive* a) {
  const char* text = lib.archive_error_string(a);
  return text && *text ? text : "unreadable data (libarchive gives no reason)";
}

std::string base_name(std::string_view path) {
  size_t slash = path.find_last_of('/');
  return std::string(slash == std::string_view::npos ? path : path.substr(slash + 1));
}

// Files that archivers add beside the real ones.
bool metadata_member(std::string_view name) {
  if (name.find("__MACOSX/") != std::string_view::npos) return true;
  std::string base = base_name(name);
  return base.substr(0, 2) == "._" || base == ".DS_Store" || base == "Thumbs.db";
}

struct ArchiveCloser {
  const LibArchive* lib;
  void operator()(archive* a) const { lib->archive_read_free(a); }
};

}  // namespace

Bundle::Bundle(const std::string& path) : path_(path) {
  const LibArchive& lib = libarchive();
  if (!lib.problem.empty()) throw InputError(path, "", "cannot read bundles (.zip, .tar): " + lib.problem);
  const char* tmp = std::getenv("TMPDIR");
  std::string dir = std::string(tmp && *tmp ? tmp : "/tmp") + "/flamefold-bundle-XXXXXX";
  if (!mkdtemp(dir.data()))
    throw InputError(path, "", std::string("cannot make a temporary directory to unpack into: ") + std::strerror(errno));
  dir_ = dir;
  try {
    std::unique_ptr<archive, ArchiveCloser> a(lib.archive_read_new(), ArchiveCloser{&lib});
    lib.archive_read_support_filter_all(a.get());
    lib.archive_read_support_format_tar(a.get());
    lib.archive_read_support_format_gnutar(a.get());
    lib.archive_read_support_format_zip(a.get());
    if (lib.archive_read_open_filename(a.get(), path.c_str(), 1 << 16) != ARCHIVE_OK)
      throw InputError(path, "", std::string("cannot open the bundle: ") + archive_problem(lib, a.get()));
    archive_entry* e = nullptr;
    size_t index = 0;
    int r;
    while ((r = lib.archive_read_next_header(a.get(), &e)) == ARCHIVE_OK || r == ARCHIVE_WARN) {
      const char* raw = lib.archive_entry_pathname_utf8(e);
      if (!raw) raw = lib.archive_entry_pathname(e);
      std::string name = raw ? raw : "";
      if (lib.archive_entry_filetype(e) != AE_IFREG) continue;  // directories, links
      if (metadata_member(name)) continue;
      // Named after the member's whole path, flattened: readers show the name (Kineto's rank
      // labels, SQLite's tie-breaks), and members of one name in several folders stay apart.
      std::string base = name;
      for (char& c : base)
        if (c == '/') c = '_';
      while (!base.empty() && (base[0] == '.' || base[0] == '_')) base.erase(0, 1);
      if (base.empty()) base = "member";
      // One directory per member: names from the archive never choose where a file goes.
      std::string sub = dir_ + "/" + std::to_string(index++);
      if (mkdir(sub.c_str(), 0700) != 0)
        throw InputError(path, "", "cannot unpack " + name + ": " + std::strerror(errno));
      created_.push_back(sub);
      std::string file = sub + "/" + base;
      int fd = ::open(file.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
      if (fd < 0) throw InputError(path, "", "cannot unpack " + name + ": " + std::strerror(errno));
      created_.push_back(file);
      int w = lib.archive_read_data_into_fd(a.get(), fd);
      bool closed = ::close(fd) == 0;
      if (w != ARCHIVE_OK && w != ARCHIVE_WARN)
        throw InputError(path + ":" + name, "", std::string("cannot unpack this member: ") + archive_problem(lib, a.get()));
      if (!closed) throw InputError(path + ":" + name, "", std::string("cannot unpack this member: ") + std::strerror(errno));
      struct stat st;
      if (::stat(file.c_str(), &st) == 0 && st.st_size == 0) {
        skipped_.push_back(name + " (empty)");
        continue;
      }
      Input in = Input::open(file);
      if (is_bundle(in.head())) {
        skipped_.push_back(name + " (a bundle inside the bundle: unpack it first)");
        continue;
      }
      if (sniff_format(in.head(), file) == Format::Unknown) {
        skipped_.push_back(name + " (not a profile)");
        continue;
      }
      members_.push_back(Member{file, name});
    }
    if (r != ARCHIVE_EOF)
      throw InputError(path, "", std::string("a damaged bundle: ") + archive_problem(lib, a.get()));
  } catch (...) {
    clean();
    throw;
  }
  if (members_.empty()) {
    std::string what = skipped_.empty()      ? "no files"
                       : skipped_.size() == 1 ? "1 file, not a profile"
                                              : std::to_string(skipped_.size()) + " files, none a profile";
    clean();
    throw InputError(path, "", "a bundle with no profile in it (" + what + ")");
  }
}

Bundle::Bundle(Bundle&& o) noexcept
    : path_(std::move(o.path_)), dir_(std::move(o.dir_)), members_(std::move(o.members_)),
      skipped_(std::move(o.skipped_)), created_(std::move(o.created_)) {
  o.dir_.clear();
  o.created_.clear();
}

Bundle& Bundle::operator=(Bundle&& o) noexcept {
  if (this != &o) {
    clean();
    path_ = std::move(o.path_);
    dir_ = std::move(o.dir_);
    members_ = std::move(o.members_);
    skipped_ = std::move(o.skipped_);
    created_ = std::move(o.created_);
    o.dir_.clear();
    o.created_.clear();
  }
  return *this;
}

Bundle::~Bundle() { clean(); }

void Bundle::clean() {
  // Files before their directories (a mapped file stays readable once unlinked).
  for (size_t i = created_.size(); i-- > 0;) ::remove(created_[i].c_str());
  created_.clear();
  if (!dir_.empty()) ::rmdir(dir_.c_str());
  dir_.clear();
}

}  // namespace flamefold
