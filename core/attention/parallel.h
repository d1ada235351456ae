#pragma once
// A minimal fork-join over a small persistent thread pool, for the attention kernels: the machine
// this targets has 2 cores, so at most hardware_concurrency() threads run (the caller's thread is
// one of them) and small jobs stay on the calling thread, where a thread start would cost more than
// the work.
#include <functional>

namespace headmap {

// Upper bound on threads for compute (default: std::thread::hardware_concurrency(), at least 1).
// n <= 0 restores the default. Not thread-safe against concurrent compute calls.
void setComputeThreads(int n);
int computeThreads();

// How many threads a job of `flops` floating-point operations should use (1 below ~2 MFLOP).
int projectionThreads(double flops);

// Calls fn(i) for i in [0, count), spread over projectionThreads(flops) threads. Rethrows the
// first exception a call threw, after every thread has finished.
void parallelFor(int count, double flops, const std::function<void(int)>& fn);

}  // namespace headmap

namespace headmap {

// Keeps freed memory of up to a few hundred MB in the process instead of returning it to the
// kernel (glibc mallopt: M_MMAP_THRESHOLD 32 MB, M_TRIM_THRESHOLD 256 MB). Eigen's GEMMs allocate
// their packing workspace (> 128 KB) on every call; with glibc's defaults each call then maps
// fresh pages and pays ~500 page faults per d_model-768 layer at n = 128, which doubled the
// layer's time on the measured VM (docs/benchmarks.md). Process-wide: meant for a program's
// main(), called once before computing. Returns false where mallopt is unavailable.
bool keepFreedMemory();

}  // namespace headmap
