#include "tests/test_support.h"

#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace fs = std::filesystem;

namespace headmap::test {

std::string fixture(const std::string& relative) {
  return std::string(HEADMAP_FIXTURES_DIR) + "/" + relative;
}

std::string sharedModel(const std::string& relative) {
  fs::path p = fs::path(HEADMAP_SHARED_MODELS_DIR) / relative;
  return fs::exists(p) ? p.string() : std::string();
}

std::string cliPath() { return HEADMAP_CLI_PATH; }

std::string tempPath(const std::string& name) {
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  std::string dir = info ? std::string(info->test_suite_name()) + "." + info->name() : "misc";
  fs::path base = fs::temp_directory_path() / ("headmap-tests-" + std::to_string(::getpid())) / dir;
  fs::create_directories(base);
  return (base / name).string();
}

std::string shellQuote(const std::string& s) {
  std::string q = "'";
  for (char c : s) {
    if (c == '\'') {
      q += "'\\''";
    } else {
      q += c;
    }
  }
  return q + "'";
}

CommandResult runCommand(const std::string& commandLine) {
  std::string errFile = tempPath("stderr.txt");
  std::string full = commandLine + " 2>" + shellQuote(errFile);
  CommandResult result;
  FILE* pipe = ::popen(full.c_str(), "r");
  if (!pipe) return result;
  char buffer[4096];
  size_t got;
  while ((got = fread(buffer, 1, sizeof buffer, pipe)) > 0) result.out.append(buffer, got);
  int status = ::pclose(pipe);
  // /bin/sh reports a child killed by signal S as exit code 128 + S.
  if (WIFEXITED(status)) {
    result.exitCode = WEXITSTATUS(status);
    if (result.exitCode > 128) {
      result.signal = result.exitCode - 128;
      result.exitCode = -1;
    }
  } else if (WIFSIGNALED(status)) {
    result.signal = WTERMSIG(status);
  }
  std::ifstream err(errFile);
  std::stringstream ss;
  ss << err.rdbuf();
  result.err = ss.str();
  return result;
}

}  // namespace headmap::test
