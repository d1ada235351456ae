#pragma once
// Checks made before and after a model run so that hostile or oversized inputs end in a message
// instead of an out-of-memory kill or a silently blank heatmap. The CLI and the app call the same
// functions:
//   before run():  checkTokenCount(info, n); checkAttentionMemory(info, layers, n, options)
//   after run():   findNonFinite(run) -> warn (CLI: stderr; app: a notice naming layer/heads)
// Input embeddings given directly (bare layer, .npy) go through countNonFinite before the run.
#include <cstdint>
#include <string>
#include <vector>

#include "core/model/model.h"

namespace headmap {

// Throws headmap::Error for no tokens, or more than the model's position table holds.
void checkTokenCount(const ModelInfo& info, int64_t n);

// Bytes the recorded attention maps of a run take: per recorded layer heads × n × n float32
// maps (× 4 with the raw/scaled/masked stages) plus the n × n key mask, plus one head's
// temporaries. Saturates at UINT64_MAX instead of overflowing.
uint64_t estimateAttentionBytes(int recordedLayers, int heads, int64_t n, bool keepStages);

// Memory the process may still use: MemAvailable from /proc/meminfo, else physical memory
// (sysconf), capped by the environment variable HEADMAP_MEMORY_LIMIT_MB when set; 0 when
// nothing is known (the check is then skipped).
uint64_t availableMemoryBytes();

// Throws headmap::Error naming the estimate and the available memory (and suggesting --layer or
// fewer tokens) when the run's attention maps would not fit. recordedLayers = 0 means all.
// availableBytes = 0 asks availableMemoryBytes().
void checkAttentionMemory(const ModelInfo& info, int recordedLayers, int64_t n, bool keepStages,
                          uint64_t availableBytes = 0);

// Product of a shape's dimensions times elementSize; throws headmap::Error naming `what` and the
// shape when a dimension is negative or the product overflows 64 bits.
uint64_t checkedByteCount(const std::vector<int64_t>& shape, uint64_t elementSize,
                          const std::string& what);

// NaN / ±Inf values among n floats.
int64_t countNonFinite(const float* data, size_t n);

struct NonFiniteLayer {
  int layer = 0;
  std::vector<int> heads;  // heads whose softmax maps hold NaN or Inf
  int64_t values = 0;      // how many values in total
};
// Layers of a run whose attention weights hold NaN or Inf (empty when all are finite).
std::vector<NonFiniteLayer> findNonFinite(const ModelRun& run);
// "layer 2 heads 0,3 (18 values)" style summary, one line, for warnings.
std::string describeNonFinite(const std::vector<NonFiniteLayer>& layers);

// "1.5 GB" / "12.0 MB" / "512 bytes" for messages.
std::string formatBytes(uint64_t bytes);

}  // namespace headmap
