#include "core/common/atomic_file.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <vector>

#include "core/common/error.h"

namespace headmap {

namespace {

// mkstemp creates 0600; a finished file should get the usual 0666 & ~umask.
mode_t defaultFileMode() {
  mode_t mask = ::umask(0);
  ::umask(mask);
  return 0666 & ~mask;
}

}  // namespace

void writeFileAtomic(const std::string& path, const std::function<void(std::ostream&)>& writer) {
  std::string pattern = path + ".tmp-XXXXXX";
  std::vector<char> name(pattern.begin(), pattern.end());
  name.push_back('\0');
  const int fd = ::mkstemp(name.data());
  if (fd < 0) {
    throw Error(path + ": cannot create a temporary file beside it: " + std::strerror(errno));
  }
  const std::string tmp(name.data());
  ::fchmod(fd, defaultFileMode());
  ::close(fd);
  auto fail = [&](const std::string& cause) {
    std::remove(tmp.c_str());
    throw Error(path + ": " + cause);
  };
  try {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) fail(std::string("cannot open the temporary file: ") + std::strerror(errno));
    writer(out);
    out.flush();
    if (!out) fail("writing failed (disk full?)");
    out.close();
    if (!out) fail("closing the temporary file failed");
  } catch (const Error& e) {
    std::remove(tmp.c_str());
    // Keep messages that already name the file; add the path otherwise.
    if (std::string(e.what()).find(path) != std::string::npos) throw;
    throw Error(path + ": " + e.what());
  } catch (const std::exception& e) {
    std::remove(tmp.c_str());
    throw Error(path + ": " + e.what());
  } catch (...) {
    std::remove(tmp.c_str());
    throw;
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    const int err = errno;
    std::remove(tmp.c_str());
    throw Error(path + ": cannot rename the temporary file into place: " + std::strerror(err));
  }
}

}  // namespace headmap
