#pragma once
// Helpers shared by the test executables: fixture paths, .npy loading, tolerant comparison.
#include <string>
#include <vector>

namespace headmap::test {

std::string fixture(const std::string& relative);  // tests/fixtures/<relative>
// ../shared/models/<relative>, or "" when the shared folder is absent (the test then skips).
std::string sharedModel(const std::string& relative);
std::string cliPath();
std::string tempPath(const std::string& name);  // a fresh path under a per-test temp folder

struct CommandResult {
  int exitCode = -1;  // -1 when the process died from a signal
  int signal = 0;
  std::string out;
  std::string err;
};
// Runs a command line through /bin/sh; captures stdout and stderr.
CommandResult runCommand(const std::string& commandLine);
std::string shellQuote(const std::string& s);

}  // namespace headmap::test

#define HEADMAP_SKIP_WITHOUT(path)                                                  \
  if ((path).empty()) {                                                             \
    GTEST_SKIP() << "../shared/models is absent beside the repository; skipping"; \
  }
