// Every input a fuzzer once failed on (tests/fixtures/fuzz_regressions/<target>/) is refused with
// a message by the parser that target drives; run under scripts/sanitize.sh it also shows the
// sanitizer finding is gone.
#include <gtest/gtest.h>

#include <filesystem>
#include <functional>
#include <map>

#include "core/common/error.h"
#include "core/model/load.h"
#include "tests/test_support.h"

namespace headmap {
namespace {

namespace fs = std::filesystem;

// Target folder -> what its fuzzer calls with the input file.
const std::map<std::string, std::function<void(const std::string&)>>& parsers() {
  static const std::map<std::string, std::function<void(const std::string&)>> table{
      {"llama2c_checkpoint", [](const std::string& path) { loadModel(path); }},
  };
  return table;
}

TEST(FuzzRegressions, EveryStoredInputIsRefusedWithAMessage) {
  const fs::path root = test::fixture("fuzz_regressions");
  int files = 0;
  for (const auto& target : fs::directory_iterator(root)) {
    if (!target.is_directory()) continue;
    const std::string name = target.path().filename().string();
    auto parser = parsers().find(name);
    ASSERT_NE(parser, parsers().end()) << "no parser registered for " << name;
    for (const auto& input : fs::directory_iterator(target.path())) {
      ++files;
      try {
        parser->second(input.path().string());
        ADD_FAILURE() << input.path() << " was accepted";
      } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find(input.path().filename().string()), std::string::npos)
            << "the message should name the file: " << e.what();
      }
    }
  }
  EXPECT_GE(files, 1);
}

}  // namespace
}  // namespace headmap
