#include "core/common/limits.h"

#include <sys/stat.h>

#include <cerrno>
#include <cstring>

#include "core/common/error.h"

namespace headmap {

void requireRegularFile(const std::string& path, const std::string& expected) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) {
    const int err = errno;
    if (err == ENOENT)
      throw Error(path + ": cannot open: no such file (expected " + expected + ")");
    throw Error(path + ": cannot read: " + std::strerror(err));
  }
  if (S_ISDIR(st.st_mode)) throw Error(path + ": is a directory, expected " + expected);
  if (!S_ISREG(st.st_mode)) {
    throw Error(path + ": is not a regular file (a device, FIFO or socket), expected " + expected);
  }
}

}  // namespace headmap
