#pragma once
// Checks shared by every loader before it opens a path the user gave.
#include <string>

namespace headmap {

// Throws headmap::Error when `path` does not exist, is a directory, or is not a regular file
// (a FIFO would block open() forever, /dev/zero would be read forever). `expected` names what
// was wanted, e.g. "a .npy file". Does not open the file.
void requireRegularFile(const std::string& path, const std::string& expected);

}  // namespace headmap
