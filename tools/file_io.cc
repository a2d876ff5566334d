#include "tools/file_io.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "absl/strings/str_cat.h"

namespace hlo {
namespace {

absl::StatusOr<std::string> ReadAll(int fd, const std::string& what) {
  std::string data;
  char buf[1 << 16];
  for (;;) {
    ssize_t n = read(fd, buf, sizeof(buf));
    if (n == 0) break;
    if (n < 0) {
      if (errno == EINTR) continue;
      return absl::InvalidArgumentError(
          absl::StrCat("cannot read '", what, "': ", strerror(errno)));
    }
    data.append(buf, static_cast<size_t>(n));
  }
  return data;
}

}  // namespace

absl::StatusOr<std::string> ReadInput(const std::string& path) {
  if (path == "-") return ReadAll(STDIN_FILENO, "<stdin>");
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    return absl::NotFoundError(absl::StrCat("cannot open '", path, "': ", strerror(errno)));
  }
  struct stat st;
  if (fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
    close(fd);
    return absl::InvalidArgumentError(absl::StrCat("cannot read '", path, "': is a directory"));
  }
  absl::StatusOr<std::string> data = ReadAll(fd, path);
  close(fd);
  return data;
}

namespace {

absl::Status WriteFully(int fd, absl::string_view data, const std::string& what) {
  while (!data.empty()) {
    ssize_t n = write(fd, data.data(), data.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      return absl::InternalError(absl::StrCat("cannot write '", what, "': ", strerror(errno)));
    }
    data.remove_prefix(static_cast<size_t>(n));
  }
  return absl::OkStatus();
}

absl::Status WriteFully(int fd, absl::Span<const absl::string_view> pieces, const std::string& what) {
  for (absl::string_view data : pieces) {
    absl::Status st = WriteFully(fd, data, what);
    if (!st.ok()) return st;
  }
  return absl::OkStatus();
}

// Writes the pieces of `data` to the regular file `path` atomically: a
// temporary file in the same directory, then rename(). On failure nothing
// is left behind and an existing file is untouched. `shown` is the name
// used in messages.
absl::Status WriteFileAtomically(const std::string& path, const std::string& shown,
                                 absl::Span<const absl::string_view> data) {
  std::string tmp = absl::StrCat(path, ".tmp.XXXXXX");
  std::vector<char> tmpl(tmp.begin(), tmp.end());
  tmpl.push_back('\0');
  int fd = mkstemp(tmpl.data());
  if (fd < 0) {
    return absl::InternalError(
        absl::StrCat("cannot create output file '", shown, "': ", strerror(errno)));
  }
  tmp.assign(tmpl.data());
  // mkstemp creates the file 0600; give it the usual 0666 & ~umask.
  mode_t mask = umask(0);
  umask(mask);
  (void)fchmod(fd, 0666 & ~mask);
  absl::Status st = WriteFully(fd, data, shown);
  if (close(fd) != 0 && st.ok()) {
    st = absl::InternalError(absl::StrCat("cannot write '", shown, "': ", strerror(errno)));
  }
  if (st.ok() && rename(tmp.c_str(), path.c_str()) != 0) {
    st = absl::InternalError(
        absl::StrCat("cannot rename output into '", shown, "': ", strerror(errno)));
  }
  if (!st.ok()) unlink(tmp.c_str());
  return st;
}

}  // namespace

absl::Status WriteOutput(const std::string& path, absl::string_view data) {
  return WriteOutput(path, absl::Span<const absl::string_view>(&data, 1));
}

absl::Status WriteOutput(const std::string& path, absl::Span<const absl::string_view> data) {
  if (path == "-") {
    fflush(stdout);
    return WriteFully(STDOUT_FILENO, data, "<stdout>");
  }
  std::string target = path;
  struct stat st_target;
  if (stat(path.c_str(), &st_target) == 0 && !S_ISREG(st_target.st_mode)) {
    // A device, FIFO or the like (/dev/stdout, /dev/null): write in place;
    // renaming over it would replace the special file.
    int fd = open(path.c_str(), O_WRONLY | O_TRUNC | O_CLOEXEC);
    if (fd < 0) {
      return absl::InternalError(absl::StrCat("cannot open output '", path, "': ", strerror(errno)));
    }
    absl::Status st = WriteFully(fd, data, path);
    close(fd);
    return st;
  }
  struct stat st_link;
  if (lstat(path.c_str(), &st_link) == 0 && S_ISLNK(st_link.st_mode)) {
    // Replace the file the link points to, not the link itself.
    char* resolved = realpath(path.c_str(), nullptr);
    if (resolved != nullptr) {
      target = resolved;
      free(resolved);
    }
  }
  return WriteFileAtomically(target, path, data);
}



}  // namespace hlo
