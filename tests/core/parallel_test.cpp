#include "core/attention/parallel.h"

#include <gtest/gtest.h>

#include <atomic>
#include <stdexcept>
#include <thread>
#include <vector>

namespace headmap {
namespace {

constexpr double kBigJob = 1e12;  // enough flops to use every thread

TEST(Parallel, VisitsEveryIndexOnce) {
  setComputeThreads(2);
  std::vector<std::atomic<int>> hits(1000);
  parallelFor(1000, kBigJob, [&](int i) { hits[i]++; });
  for (auto& h : hits) EXPECT_EQ(h.load(), 1);
  setComputeThreads(0);
}

TEST(Parallel, UsesAtMostComputeThreads) {
  setComputeThreads(2);
  EXPECT_EQ(projectionThreads(kBigJob), 2);
  EXPECT_EQ(projectionThreads(1000), 1);  // tiny jobs stay on the caller
  setComputeThreads(1);
  EXPECT_EQ(projectionThreads(kBigJob), 1);
  setComputeThreads(0);
  EXPECT_LE(computeThreads(), static_cast<int>(std::max(1u, std::thread::hardware_concurrency())));
}

TEST(Parallel, RethrowsAndStaysUsable) {
  setComputeThreads(2);
  EXPECT_THROW(parallelFor(50, kBigJob,
                           [](int i) {
                             if (i == 17) throw std::runtime_error("task 17");
                           }),
               std::runtime_error);
  std::atomic<int> sum{0};
  parallelFor(10, kBigJob, [&](int i) { sum += i; });
  EXPECT_EQ(sum.load(), 45);
  setComputeThreads(0);
}

TEST(Parallel, NestedAndConcurrentCallsFinish) {
  setComputeThreads(2);
  std::atomic<int> count{0};
  parallelFor(4, kBigJob, [&](int) { parallelFor(8, kBigJob, [&](int) { count++; }); });
  EXPECT_EQ(count.load(), 32);
  std::thread other([&] { parallelFor(100, kBigJob, [&](int) { count++; }); });
  parallelFor(100, kBigJob, [&](int) { count++; });
  other.join();
  EXPECT_EQ(count.load(), 232);
  setComputeThreads(0);
}

}  // namespace
}  // namespace headmap
