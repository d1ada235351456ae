// headmap-cli on hostile command lines: huge text, missing / special / unreadable paths, outputs
// that cannot be written, NaN inputs. Each must end in a message and a non-zero exit (or a
// warning), never a crash, a signal or a hang (every command runs under `timeout`).
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <string>

#include "core/io/npy.h"
#include "tests/test_support.h"

namespace fs = std::filesystem;

namespace headmap {
namespace {

constexpr int kTimeoutExit = 124;  // timeout(1): the command hung

std::string fx(const std::string& name) { return test::shellQuote(test::fixture("cli/" + name)); }

// Runs headmap-cli under a 60 s timeout; a fixed memory cap makes the memory check deterministic.
test::CommandResult cli(const std::string& args) {
  return test::runCommand("HEADMAP_MEMORY_LIMIT_MB=4096 timeout 60 " +
                          test::shellQuote(test::cliPath()) + " " + args);
}

void expectRefused(const test::CommandResult& r, const std::string& message) {
  EXPECT_EQ(r.signal, 0) << "killed by signal " << r.signal << "\n" << r.err;
  EXPECT_NE(r.exitCode, kTimeoutExit) << "hung";
  EXPECT_NE(r.exitCode, 0) << r.err;
  EXPECT_NE(r.err.find(message), std::string::npos) << "stderr: " << r.err;
  EXPECT_EQ(r.err.find("Sanitizer"), std::string::npos) << r.err;
}

std::string dumpArgs(const std::string& model, const std::string& out) {
  return "dump " + model + " --input " + fx("input.npy") + " --out " + test::shellQuote(out);
}

TEST(RobustCli, HundredThousandCharacterTextIsRefusedByTheMemoryEstimate) {
  std::string text;
  while (text.size() < 100000) text += "a ";  // 50,000 whitespace tokens
  const std::string out = test::tempPath("out.npy");
  auto r = cli("dump " + fx("two_layers.safetensors") + " --text " + test::shellQuote(text) +
               " --out " + test::shellQuote(out));
  expectRefused(r, "of memory is available");
  EXPECT_NE(r.err.find("50000 tokens"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(out));
}

TEST(RobustCli, HundredThousandCharacterWordIsOneToken) {
  const std::string out = test::tempPath("out.npy");
  auto r = cli("dump " + fx("two_layers.safetensors") + " --text " +
               test::shellQuote(std::string(100000, 'x')) + " --out " + test::shellQuote(out));
  ASSERT_EQ(r.exitCode, 0) << r.err;
  EXPECT_EQ(readNpy(out).shape, (std::vector<int64_t>{1, 4, 1, 1}));
}

TEST(RobustCli, EmptyTextIsRefused) {
  auto r = cli("dump " + fx("two_layers.safetensors") + " --text '' --out " +
               test::shellQuote(test::tempPath("out.npy")));
  expectRefused(r, "no tokens");
}

TEST(RobustCli, MissingFilesAreNamed) {
  const std::string missing = test::tempPath("nope.safetensors");
  const auto r = cli("inspect " + test::shellQuote(missing));
  expectRefused(r, "no such file");
  EXPECT_NE(r.err.find(missing), std::string::npos) << r.err;
  expectRefused(
      cli("dump " + fx("two_layers.safetensors") + " --input " + test::shellQuote(missing) +
          " --out " + test::shellQuote(test::tempPath("o.npy"))),
      "no such file");
}

TEST(RobustCli, DirectoriesAsFilesAreRefused) {
  const std::string dir = test::tempPath("a_folder");
  fs::create_directories(dir);
  expectRefused(cli("inspect " + test::shellQuote(dir)), "without config.json");
  expectRefused(cli("dump " + fx("two_layers.safetensors") + " --input " + test::shellQuote(dir) +
                    " --out " + test::shellQuote(test::tempPath("o.npy"))),
                "is a directory");
}

TEST(RobustCli, DevZeroIsNotReadForever) {
  expectRefused(cli("inspect /dev/zero"), "not a regular file");
  expectRefused(cli("dump " + fx("two_layers.safetensors") + " --input /dev/zero --out " +
                    test::shellQuote(test::tempPath("o.npy"))),
                "not a regular file");
}

TEST(RobustCli, FifoDoesNotHang) {
  const std::string fifo = test::tempPath("pipe.safetensors");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  expectRefused(cli("inspect " + test::shellQuote(fifo)), "not a regular file");
  expectRefused(cli("dump " + fx("two_layers.safetensors") + " --input " + test::shellQuote(fifo) +
                    " --out " + test::shellQuote(test::tempPath("o.npy"))),
                "not a regular file");
}

TEST(RobustCli, UnreadableFileIsNamed) {
  if (::geteuid() == 0) GTEST_SKIP() << "root reads files whatever their mode";
  const std::string path = test::tempPath("secret.safetensors");
  fs::copy_file(test::fixture("cli/two_layers.safetensors"), path);
  ::chmod(path.c_str(), 0);
  expectRefused(cli("inspect " + test::shellQuote(path)), path);
  ::chmod(path.c_str(), 0600);
}

TEST(RobustCli, OutputToADirectoryIsRefusedAndLeavesNothing) {
  const std::string dir = test::tempPath("out_dir");
  fs::create_directories(dir);
  expectRefused(cli(dumpArgs(fx("two_layers.safetensors"), dir)), dir);
  EXPECT_TRUE(fs::is_directory(dir));
  for (const auto& e : fs::directory_iterator(fs::path(dir).parent_path())) {
    EXPECT_EQ(e.path().filename().string().find(".tmp-"), std::string::npos) << e.path();
  }
}

TEST(RobustCli, OutputIntoAMissingFolderIsRefused) {
  const std::string out = test::tempPath("no/such/folder/out.npy");
  expectRefused(cli(dumpArgs(fx("two_layers.safetensors"), out)), out);
}

TEST(RobustCli, NanInputIsRefusedNotShownBlank) {
  const NpyArray input = readNpy(test::fixture("cli/input.npy"));
  std::vector<float> values = input.values;
  values[0] = std::numeric_limits<float>::quiet_NaN();
  const std::string nanInput = test::tempPath("nan_input.npy");
  writeNpy(nanInput, input.shape, values.data());
  const std::string out = test::tempPath("out.npy");
  auto r = cli("dump " + fx("two_layers.safetensors") + " --input " + test::shellQuote(nanInput) +
               " --out " + test::shellQuote(out));
  expectRefused(r, "NaN at row 0, column 0");
  EXPECT_FALSE(fs::exists(out));
}

}  // namespace
}  // namespace headmap
