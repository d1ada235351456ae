#include "core/model/run_checks.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <functional>
#include <limits>

#include "core/common/error.h"

namespace headmap {
namespace {

ModelInfo info(int layers, int heads, int maxPositions = 0) {
  ModelInfo i;
  i.name = "m";
  i.layers = layers;
  i.heads = heads;
  i.maxPositions = maxPositions;
  return i;
}

std::string messageOf(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST(RunChecks, TokenCountRefusesEmptyAndTooLong) {
  EXPECT_NE(messageOf([] { checkTokenCount(info(1, 1), 0); }).find("no tokens"), std::string::npos);
  EXPECT_NE(messageOf([] {
              checkTokenCount(info(1, 1, 1024), 1025);
            }).find("1025 tokens, but the model supports at most 1024"),
            std::string::npos);
  EXPECT_NO_THROW(checkTokenCount(info(1, 1, 1024), 1024));
  EXPECT_NO_THROW(checkTokenCount(info(1, 1, 0), 100000));  // bare layer: no position table
}

TEST(RunChecks, AttentionEstimateCountsMapsMaskAndTemporaries) {
  // 12 layers x 12 heads x 1024^2 x 4 bytes + 12 masks of 1024^2 + 8 * 1024^2 temporaries.
  const uint64_t cells = 1024ull * 1024;
  EXPECT_EQ(estimateAttentionBytes(12, 12, 1024, false), 12 * (12 * cells * 4 + cells) + 8 * cells);
  EXPECT_EQ(estimateAttentionBytes(1, 2, 10, true), 2 * 100 * 16 + 100 + 800);
  EXPECT_EQ(estimateAttentionBytes(1000, 1000, int64_t(1) << 40, true),
            std::numeric_limits<uint64_t>::max());  // saturates, no overflow
  EXPECT_EQ(estimateAttentionBytes(1, 1, 0, false), 0u);
}

TEST(RunChecks, MemoryCheckNamesEstimateAndAvailable) {
  const std::string m =
      messageOf([] { checkAttentionMemory(info(12, 12), 0, 8192, false, 1 << 30); });
  EXPECT_NE(m.find("8192 tokens (12 layers x 12 heads"), std::string::npos) << m;
  EXPECT_NE(m.find("need about 37."), std::string::npos) << m;
  EXPECT_NE(m.find("GB, but only 1.0 GB of memory is available"), std::string::npos) << m;
  EXPECT_NE(m.find("--layer"), std::string::npos) << m;
  EXPECT_NO_THROW(checkAttentionMemory(info(12, 12), 1, 1024, false, 1ull << 30));
  // One recorded layer: no --layer advice.
  const std::string one =
      messageOf([] { checkAttentionMemory(info(12, 12), 1, 65536, false, 1 << 30); });
  EXPECT_EQ(one.find("--layer"), std::string::npos) << one;
  EXPECT_NE(one.find("use fewer tokens"), std::string::npos) << one;
}

TEST(RunChecks, EnvironmentCapsAvailableMemory) {
  ::setenv("HEADMAP_MEMORY_LIMIT_MB", "3", 1);
  EXPECT_EQ(availableMemoryBytes(), 3u << 20);
  ::setenv("HEADMAP_MEMORY_LIMIT_MB", "junk", 1);
  EXPECT_GT(availableMemoryBytes(), 3u << 20);
  ::unsetenv("HEADMAP_MEMORY_LIMIT_MB");
}

TEST(RunChecks, CheckedByteCountRefusesOverflowAndNegative) {
  EXPECT_EQ(checkedByteCount({2, 3}, 4, "x"), 24u);
  EXPECT_NE(messageOf([] {
              checkedByteCount({int64_t(1) << 62, 16}, 4, "w");
            }).find("overflows"),
            std::string::npos);
  EXPECT_NE(messageOf([] {
              checkedByteCount({3, -1}, 4, "w");
            }).find("negative"),
            std::string::npos);
}

TEST(RunChecks, FindNonFiniteNamesLayersAndHeads) {
  ModelRun run;
  LayerAttention layer;
  layer.layer = 3;
  layer.result.weights.heads = 3;
  layer.result.weights.q = 2;
  layer.result.weights.k = 2;
  layer.result.weights.values.assign(12, 0.5f);
  layer.result.weights.values[5] = std::numeric_limits<float>::quiet_NaN();   // head 1
  layer.result.weights.values[11] = std::numeric_limits<float>::infinity();   // head 2
  layer.result.weights.values[10] = -std::numeric_limits<float>::infinity();  // head 2
  run.layers.push_back(layer);
  LayerAttention clean = layer;
  clean.layer = 4;
  clean.result.weights.values.assign(12, 0.5f);
  run.layers.push_back(clean);
  const auto bad = findNonFinite(run);
  ASSERT_EQ(bad.size(), 1u);
  EXPECT_EQ(bad[0].layer, 3);
  EXPECT_EQ(bad[0].heads, (std::vector<int>{1, 2}));
  EXPECT_EQ(bad[0].values, 3);
  EXPECT_EQ(describeNonFinite(bad), "layer 3 heads 1,2 (3 values)");
}

TEST(RunChecks, FormatBytes) {
  EXPECT_EQ(formatBytes(512), "512 bytes");
  EXPECT_EQ(formatBytes(1536), "1.5 KB");
  EXPECT_EQ(formatBytes(3ull << 30), "3.0 GB");
}

}  // namespace
}  // namespace headmap
