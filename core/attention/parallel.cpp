#include "core/attention/parallel.h"

#include <algorithm>
#include <atomic>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace headmap {

namespace {

int defaultThreads() { return std::max(1u, std::thread::hardware_concurrency()); }

std::atomic<int> g_threads{0};  // 0 = default

// Below this a thread start (~20-50 µs) costs as much as the work at ~100 GFLOP/s.
constexpr double kFlopsPerExtraThread = 4e6;

}  // namespace

void setComputeThreads(int n) { g_threads = n > 0 ? n : 0; }

int computeThreads() {
  int n = g_threads.load();
  return n > 0 ? n : defaultThreads();
}

int projectionThreads(double flops) {
  int byWork = static_cast<int>(flops / kFlopsPerExtraThread) + 1;
  return std::max(1, std::min(computeThreads(), byWork));
}

void parallelFor(int count, double flops, const std::function<void(int)>& fn) {
  const int threads = std::min(count, projectionThreads(flops));
  if (threads <= 1) {
    for (int i = 0; i < count; ++i) fn(i);
    return;
  }
  std::atomic<int> next{0};
  std::exception_ptr error;
  std::mutex errorMutex;
  auto worker = [&] {
    for (int i; (i = next.fetch_add(1)) < count;) {
      try {
        fn(i);
      } catch (...) {
        std::lock_guard<std::mutex> lock(errorMutex);
        if (!error) error = std::current_exception();
      }
    }
  };
  std::vector<std::thread> pool;
  pool.reserve(threads - 1);
  for (int t = 1; t < threads; ++t) pool.emplace_back(worker);
  worker();
  for (auto& t : pool) t.join();
  if (error) std::rethrow_exception(error);
}

}  // namespace headmap
