#include "core/common/mapped_file.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "core/common/error.h"

namespace headmap {

namespace {

std::string systemError(const std::string& path, const std::string& what) {
  return path + ": " + what + ": " + std::strerror(errno);
}

// Closes the descriptor on every path out of open(); the mapping stays valid after close.
struct FdGuard {
  int fd;
  ~FdGuard() {
    if (fd >= 0) ::close(fd);
  }
};

}  // namespace

std::shared_ptr<const MappedFile> MappedFile::open(const std::string& path) {
  FdGuard guard{::open(path.c_str(), O_RDONLY | O_CLOEXEC)};
  if (guard.fd < 0) throw Error(systemError(path, "cannot open"));
  struct stat st {};
  if (::fstat(guard.fd, &st) != 0) throw Error(systemError(path, "cannot stat"));
  if (S_ISDIR(st.st_mode)) throw Error(path + ": is a directory, expected a file");
  if (!S_ISREG(st.st_mode)) throw Error(path + ": is not a regular file");

  std::shared_ptr<MappedFile> file(new MappedFile());
  file->m_path = path;
  file->m_size = static_cast<size_t>(st.st_size);
  if (file->m_size == 0) return file;
  void* p = ::mmap(nullptr, file->m_size, PROT_READ, MAP_PRIVATE, guard.fd, 0);
  if (p == MAP_FAILED) throw Error(systemError(path, "cannot memory-map"));
  file->m_data = static_cast<const uint8_t*>(p);
  return file;
}

MappedFile::~MappedFile() {
  if (m_data) ::munmap(const_cast<uint8_t*>(m_data), m_size);
}

}  // namespace headmap
