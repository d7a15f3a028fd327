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
#include <type_traits>

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
// (libxml2, ICU, nettle ...) it added ~3 ms to the start of every run, bundle or not.
struct LibArchive {
  decltype(&::archive_read_new) read_new = nullptr;
  decltype(&::archive_read_free) read_free = nullptr;
  decltype(&::archive_read_support_filter_all) support_filter_all = nullptr;
  decltype(&::archive_read_support_format_tar) support_format_tar = nullptr;
  decltype(&::archive_read_support_format_gnutar) support_format_gnutar = nullptr;
  decltype(&::archive_read_support_format_zip) support_format_zip = nullptr;
  decltype(&::archive_read_open_filename) open_filename = nullptr;
  decltype(&::archive_read_next_header) next_header = nullptr;
  decltype(&::archive_read_data_into_fd) data_into_fd = nullptr;
  decltype(&::archive_error_string) error_string = nullptr;
  decltype(&::archive_entry_pathname_utf8) entry_pathname_utf8 = nullptr;
  decltype(&::archive_entry_pathname) entry_pathname = nullptr;
  decltype(&::archive_entry_filetype) entry_filetype = nullptr;
  std::string problem;  // why it is not there (then every pointer is null)
};

const LibArchive& libarchive() {
  static const LibArchive lib = [] {
    LibArchive l;
    void* h = nullptr;
    for (const char* name : {"libarchive.so.13", "libarchive.so"})
      if ((h = ::dlopen(name, RTLD_NOW | RTLD_LOCAL)) != nullptr) break;
    if (!h) {
      const char* e = ::dlerror();
      l.problem = e ? e : "libarchive.so.13 not found";
      return l;
    }
    auto get = [&](auto& fn, const char* name) {
      fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(::dlsym(h, name));
      if (!fn && l.problem.empty()) l.problem = std::string("libarchive has no ") + name;
    };
    get(l.read_new, "archive_read_new");
    get(l.read_free, "archive_read_free");
    get(l.support_filter_all, "archive_read_support_filter_all");
    get(l.support_format_tar, "archive_read_support_format_tar");
    get(l.support_format_gnutar, "archive_read_support_format_gnutar");
    get(l.support_format_zip, "archive_read_support_format_zip");
    get(l.open_filename, "archive_read_open_filename");
    get(l.next_header, "archive_read_next_header");
    get(l.data_into_fd, "archive_read_data_into_fd");
    get(l.error_string, "archive_error_string");
    get(l.entry_pathname_utf8, "archive_entry_pathname_utf8");
    get(l.entry_pathname, "archive_entry_pathname");
    get(l.entry_filetype, "archive_entry_filetype");
    if (!l.problem.empty()) {
      LibArchive none;
      none.problem = l.problem;
      return none;
    }
    return l;
  }();
  return lib;
}

// libarchive's message for the last failure; it has none (NULL) for some damaged inputs.
std::string archive_problem(const LibArchive& lib, struct archive* a) {
  const char* text = lib.error_string(a);
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
  void operator()(archive* a) const { lib->read_free(a); }
};

}  // namespace

Bundle::Bundle(const std::string& path) : path_(path) {
  const LibArchive& lib = libarchive();
  if (!lib.read_new) throw InputError(path, "", "cannot read bundles (.zip, .tar): " + lib.problem);
  const char* tmp = std::getenv("TMPDIR");
  std::string dir = std::string(tmp && *tmp ? tmp : "/tmp") + "/flamefold-bundle-XXXXXX";
  if (!mkdtemp(dir.data()))
    throw InputError(path, "", std::string("cannot make a temporary directory to unpack into: ") + std::strerror(errno));
  dir_ = dir;
  try {
    std::unique_ptr<archive, ArchiveCloser> a(lib.read_new(), ArchiveCloser{&lib});
    lib.support_filter_all(a.get());
    lib.support_format_tar(a.get());
    lib.support_format_gnutar(a.get());
    lib.support_format_zip(a.get());
    if (lib.open_filename(a.get(), path.c_str(), 1 << 16) != ARCHIVE_OK)
      throw InputError(path, "", std::string("cannot open the bundle: ") + archive_problem(lib, a.get()));
    archive_entry* e = nullptr;
    size_t index = 0;
    int r;
    while ((r = lib.next_header(a.get(), &e)) == ARCHIVE_OK || r == ARCHIVE_WARN) {
      const char* raw = lib.entry_pathname_utf8(e);
      if (!raw) raw = lib.entry_pathname(e);
      std::string name = raw ? raw : "";
      if (lib.entry_filetype(e) != AE_IFREG) continue;  // directories, links
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
      int w = lib.data_into_fd(a.get(), fd);
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
