// A persistent pool of computeThreads() - 1 workers, woken per parallelFor. Starting threads for
// every call cost ~50 µs each, as much as a whole head at n = 16.
#include "core/attention/parallel.h"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace headmap {

namespace {

int defaultThreads() { return std::max(1u, std::thread::hardware_concurrency()); }

std::atomic<int> g_threads{0};  // 0 = default

// Below this a wake-up (~10-30 µs) costs as much as the work at ~100 GFLOP/s.
constexpr double kFlopsPerExtraThread = 2e6;

class Pool {
 public:
  ~Pool() {
    {
      std::lock_guard<std::mutex> lock(m_mutex);
      m_stop = true;
    }
    m_wake.notify_all();
    for (auto& t : m_workers) t.join();
  }

  // Runs fn over [0, count) on the caller plus `helpers` workers. Only one job at a time: a
  // concurrent or nested call finds the pool busy and runs on its own thread.
  void run(int count, int helpers, const std::function<void(int)>& fn) {
    std::unique_lock<std::mutex> busy(m_busy, std::try_to_lock);
    if (!busy.owns_lock() || helpers <= 0) {
      for (int i = 0; i < count; ++i) fn(i);
      return;
    }
    ensureWorkers(helpers);
    {
      std::lock_guard<std::mutex> lock(m_mutex);
      m_fn = &fn;
      m_count = count;
      m_next = 0;
      m_error = nullptr;
      m_active = helpers;
      m_helpers = helpers;
      ++m_generation;
    }
    m_wake.notify_all();
    work();
    std::unique_lock<std::mutex> lock(m_mutex);
    m_done.wait(lock, [&] { return m_active == 0; });
    m_fn = nullptr;
    if (m_error) std::rethrow_exception(m_error);
  }

 private:
  void ensureWorkers(int helpers) {
    while (static_cast<int>(m_workers.size()) < helpers) {
      const int index = static_cast<int>(m_workers.size());
      m_workers.emplace_back([this, index] { loop(index); });
    }
  }

  void loop(int index) {
    uint64_t seen = 0;
    std::unique_lock<std::mutex> lock(m_mutex);
    for (;;) {
      m_wake.wait(lock, [&] { return m_stop || m_generation != seen; });
      if (m_stop) return;
      seen = m_generation;
      if (index >= m_helpers) continue;  // not needed for this job
      lock.unlock();
      work();
      lock.lock();
      if (--m_active == 0) m_done.notify_one();
    }
  }

  void work() {
    for (int i; (i = m_next.fetch_add(1)) < m_count;) {
      try {
        (*m_fn)(i);
      } catch (...) {
        std::lock_guard<std::mutex> lock(m_errorMutex);
        if (!m_error) m_error = std::current_exception();
      }
    }
  }

  std::mutex m_busy;
  std::mutex m_mutex;
  std::mutex m_errorMutex;
  std::condition_variable m_wake, m_done;
  std::vector<std::thread> m_workers;
  const std::function<void(int)>* m_fn = nullptr;
  int m_count = 0;
  std::atomic<int> m_next{0};
  int m_active = 0;
  int m_helpers = 0;
  uint64_t m_generation = 0;
  bool m_stop = false;
  std::exception_ptr m_error;
};

Pool& pool() {
  static Pool instance;
  return instance;
}

}  // namespace

void setComputeThreads(int n) { g_threads = n > 0 ? n : 0; }

int computeThreads() {
  int n = g_threads.load();
  return n > 0 ? n : defaultThreads();
}

int projectionThreads(double flops) {
  const double byWork = flops / kFlopsPerExtraThread + 1;
  return std::max(1, static_cast<int>(std::min<double>(computeThreads(), byWork)));
}

void parallelFor(int count, double flops, const std::function<void(int)>& fn) {
  const int threads = std::min(count, projectionThreads(flops));
  if (threads <= 1) {
    for (int i = 0; i < count; ++i) fn(i);
    return;
  }
  pool().run(count, threads - 1, fn);
}

bool keepFreedMemory() {
#if defined(__GLIBC__)
  return mallopt(M_MMAP_THRESHOLD, 32 << 20) == 1 && mallopt(M_TRIM_THRESHOLD, 256 << 20) == 1;
#else
  return false;
#endif
}

}  // namespace headmap
