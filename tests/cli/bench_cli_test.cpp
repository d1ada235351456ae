// headmap-cli bench: the JSON it prints (fields, configuration echoed, consistent statistics) and
// its usage errors. Timing values are not checked: performance claims come from
// scripts/bench/run_benchmarks.sh, not from tests.
#include <gtest/gtest.h>

#include <algorithm>
#include <nlohmann/json.hpp>

#include "tests/test_support.h"

namespace headmap {
namespace {

using test::fixture;
using test::shellQuote;

test::CommandResult bench(const std::string& args) {
  return test::runCommand(shellQuote(test::cliPath()) + " bench " + args);
}

nlohmann::json parsed(const test::CommandResult& r) {
  EXPECT_EQ(r.exitCode, 0) << r.err;
  // Exactly one JSON object on one line.
  EXPECT_EQ(std::count(r.out.begin(), r.out.end(), '\n'), 1) << r.out;
  return nlohmann::json::parse(r.out);
}

// best <= median <= worst, R positive times, gflops = flops / best.
void expectConsistentTimes(const nlohmann::json& j, int repeat) {
  ASSERT_TRUE(j["times_ms"].is_array());
  ASSERT_EQ(j["times_ms"].size(), static_cast<size_t>(repeat));
  const double best = j["best_ms"], median = j["median_ms"];
  EXPECT_GT(best, 0.0);
  EXPECT_LE(best, median);
  EXPECT_LE(median, j["times_ms"].back().get<double>());
  EXPECT_DOUBLE_EQ(best, j["times_ms"].front().get<double>());
  EXPECT_NEAR(j["gflops"].get<double>(), j["flops"].get<double>() / (best * 1e-3) * 1e-9,
              1e-9 * j["gflops"].get<double>());
  EXPECT_EQ(j["repeat"], repeat);
  EXPECT_EQ(j["warmup"], 1);
}

TEST(CliBench, LayerEchoesConfigurationAndCountsFlops) {
  const nlohmann::json j =
      parsed(bench("--d-model 64 --heads 4 --tokens 9 --repeat 3 --threads 1"));
  EXPECT_EQ(j["mode"], "layer");
  EXPECT_EQ(j["d_model"], 64);
  EXPECT_EQ(j["heads"], 4);
  EXPECT_EQ(j["tokens"], 9);
  EXPECT_EQ(j["threads"], 1);
  // Whether glibc's mallopt took the settings: true with plain glibc, false under AddressSanitizer,
  // whose allocator replaces malloc; the field must be there either way.
  EXPECT_TRUE(j["keep_freed_memory"].is_boolean());
  // 4 projections 4*2*n*d^2 + scores 2*n^2*d + context 2*n^2*d, written out by hand.
  EXPECT_DOUBLE_EQ(j["flops"].get<double>(), 4 * 2 * 9 * 64 * 64 + 2 * 2 * 81 * 64);
  expectConsistentTimes(j, 3);
}

TEST(CliBench, DefaultsAreGpt2SmallWidth) {
  const nlohmann::json j = parsed(bench("--tokens 4 --repeat 1"));
  EXPECT_EQ(j["d_model"], 768);
  EXPECT_EQ(j["heads"], 12);
  EXPECT_GE(j["threads"].get<int>(), 1);
  expectConsistentTimes(j, 1);
}

TEST(CliBench, ModelRecordsEveryLayersHeads) {
  const nlohmann::json j =
      parsed(bench("--model " + shellQuote(fixture("models/gpt2")) + " --tokens 8 --repeat 2"));
  EXPECT_EQ(j["mode"], "model");
  EXPECT_EQ(j["family"], "gpt2");
  EXPECT_EQ(j["layers"], 2);  // tests/fixtures/models/gpt2/config.json: 2 layers of 4 heads
  EXPECT_EQ(j["heads"], 4);
  EXPECT_EQ(j["heads_recorded"], 8);
  EXPECT_EQ(j["tokens"], 8);
  expectConsistentTimes(j, 2);
}

TEST(CliBench, GemmReportsItsSize) {
  const nlohmann::json j = parsed(bench("--gemm 64 --repeat 2 --threads 2"));
  EXPECT_EQ(j["mode"], "gemm");
  EXPECT_EQ(j["size"], 64);
  EXPECT_EQ(j["threads"], 2);
  EXPECT_DOUBLE_EQ(j["flops"].get<double>(), 2.0 * 64 * 64 * 64);
  EXPECT_FALSE(j.contains("tokens"));
  expectConsistentTimes(j, 2);
}

void expectUsageError(const std::string& args, const std::string& message) {
  const test::CommandResult r = bench(args);
  EXPECT_EQ(r.exitCode, 2) << args << "\n" << r.err;
  EXPECT_NE(r.err.find(message), std::string::npos) << args << "\n" << r.err;
  EXPECT_TRUE(r.out.empty()) << r.out;
}

TEST(CliBench, UsageErrors) {
  expectUsageError("--d-model 100 --heads 12", "not divisible");
  expectUsageError("--tokens 0", "--tokens");
  expectUsageError("--repeat abc", "--repeat");
  expectUsageError("--threads 0", "--threads");
  expectUsageError("--heads -1", "--heads");
  expectUsageError("--model x --gemm 64", "--gemm");
  expectUsageError("--gemm 64 --heads 4", "--heads");
  expectUsageError("--model ''", "--model is empty");
  expectUsageError("--bogus 1", "--bogus");
  expectUsageError("--model " + shellQuote(fixture("models/gpt2")) + " --tokens 25",
                   "exceeds the model's 24 positions");
}

TEST(CliBench, UnreadableModelIsAnInputError) {
  const test::CommandResult r = bench("--model " + shellQuote(test::tempPath("absent")));
  EXPECT_EQ(r.exitCode, 1) << r.err;
  EXPECT_NE(r.err.find("absent"), std::string::npos) << r.err;
  EXPECT_TRUE(r.out.empty());
}

TEST(CliBench, HelpDocumentsTheFlopConvention) {
  const test::CommandResult r = bench("--help");
  EXPECT_EQ(r.exitCode, 0);
  for (const char* option : {"--d-model", "--heads", "--tokens", "--repeat", "--threads", "--model",
                             "--gemm", "4*2*n*d^2"}) {
    EXPECT_NE(r.out.find(option), std::string::npos) << option;
  }
}

}  // namespace
}  // namespace headmap
