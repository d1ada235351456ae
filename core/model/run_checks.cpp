#include "core/model/run_checks.h"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <sstream>

#include "core/common/error.h"
#include "core/common/tensor.h"

namespace headmap {

namespace {

constexpr uint64_t kSaturated = std::numeric_limits<uint64_t>::max();

uint64_t mulSat(uint64_t a, uint64_t b) {
  uint64_t r;
  return __builtin_mul_overflow(a, b, &r) ? kSaturated : r;
}

uint64_t addSat(uint64_t a, uint64_t b) {
  uint64_t r;
  return __builtin_add_overflow(a, b, &r) ? kSaturated : r;
}

// "MemAvailable:   19888000 kB" -> bytes; 0 when the line is absent.
uint64_t memAvailableFromProc() {
  std::ifstream in("/proc/meminfo");
  std::string key;
  uint64_t kb = 0;
  std::string unit;
  while (in >> key >> kb >> unit) {
    if (key == "MemAvailable:") return mulSat(kb, 1024);
  }
  return 0;
}

}  // namespace

void checkTokenCount(const ModelInfo& info, int64_t n) {
  if (n <= 0) {
    throw Error(info.name + ": there are no tokens to attend over (the text is empty)");
  }
  if (info.maxPositions > 0 && n > info.maxPositions) {
    throw Error(info.name + ": " + std::to_string(n) + " tokens, but the model supports at most " +
                std::to_string(info.maxPositions) + " positions; shorten the text");
  }
}

uint64_t estimateAttentionBytes(int recordedLayers, int heads, int64_t n, bool keepStages) {
  if (recordedLayers <= 0 || heads <= 0 || n <= 0) return 0;
  const uint64_t cells = mulSat(static_cast<uint64_t>(n), static_cast<uint64_t>(n));
  const uint64_t mapsPerHead = keepStages ? 4 : 1;  // softmax (+ raw, scaled, masked)
  uint64_t perLayer = mulSat(mulSat(cells, static_cast<uint64_t>(heads)), 4 * mapsPerHead);
  perLayer = addSat(perLayer, cells);  // the uint8 key mask
  // One head's scores and softmax are live while a layer is computed.
  return addSat(mulSat(perLayer, static_cast<uint64_t>(recordedLayers)), mulSat(cells, 8));
}

uint64_t availableMemoryBytes() {
  uint64_t available = memAvailableFromProc();
  if (available == 0) {
    const long pages = sysconf(_SC_PHYS_PAGES);
    const long pageSize = sysconf(_SC_PAGE_SIZE);
    if (pages > 0 && pageSize > 0) {
      available = mulSat(static_cast<uint64_t>(pages), static_cast<uint64_t>(pageSize));
    }
  }
  // HEADMAP_MEMORY_LIMIT_MB caps what headmap allows itself (shared machines, tests).
  if (const char* limit = std::getenv("HEADMAP_MEMORY_LIMIT_MB")) {
    char* end = nullptr;
    const unsigned long long mb = std::strtoull(limit, &end, 10);
    if (end != limit && *end == '\0' && mb > 0) {
      const uint64_t cap = mulSat(mb, uint64_t(1) << 20);
      available = available ? std::min(available, cap) : cap;
    }
  }
  return available;
}

void checkAttentionMemory(const ModelInfo& info, int recordedLayers, int64_t n, bool keepStages,
                          uint64_t availableBytes) {
  const int layers = recordedLayers > 0 ? recordedLayers : std::max(info.layers, 1);
  const uint64_t needed = estimateAttentionBytes(layers, info.heads, n, keepStages);
  const uint64_t available = availableBytes ? availableBytes : availableMemoryBytes();
  if (available == 0 || needed <= available) return;
  std::string advice = "use fewer tokens";
  if (layers > 1) advice = "record one layer (--layer) or " + advice;
  throw Error(info.name + ": the attention maps of " + std::to_string(n) + " tokens (" +
              std::to_string(layers) + " layers x " + std::to_string(info.heads) +
              " heads x n^2 x 4 bytes" + (keepStages ? " x 4 stages" : "") + ") need about " +
              formatBytes(needed) + ", but only " + formatBytes(available) +
              " of memory is available; " + advice);
}

uint64_t checkedByteCount(const std::vector<int64_t>& shape, uint64_t elementSize,
                          const std::string& what) {
  uint64_t count = elementSize;
  for (const int64_t d : shape) {
    if (d < 0) throw Error(what + ": negative dimension in shape " + shapeString(shape));
    if (__builtin_mul_overflow(count, static_cast<uint64_t>(d), &count)) {
      throw Error(what + ": shape " + shapeString(shape) + " of " + std::to_string(elementSize) +
                  "-byte elements overflows 64 bits");
    }
  }
  return count;
}

int64_t countNonFinite(const float* data, size_t n) {
  int64_t count = 0;
  for (size_t i = 0; i < n; ++i) count += !std::isfinite(data[i]);
  return count;
}

std::vector<NonFiniteLayer> findNonFinite(const ModelRun& run) {
  std::vector<NonFiniteLayer> found;
  for (const LayerAttention& layer : run.layers) {
    const HeadMaps& maps = layer.result.weights;
    const size_t perHead = static_cast<size_t>(maps.q) * maps.k;
    NonFiniteLayer entry;
    entry.layer = layer.layer;
    for (int h = 0; h < maps.heads && perHead * (h + 1) <= maps.values.size(); ++h) {
      const int64_t bad = countNonFinite(maps.values.data() + perHead * h, perHead);
      if (bad == 0) continue;
      const std::vector<int>& kept = layer.result.keptHeads;
      entry.heads.push_back(h < static_cast<int>(kept.size()) ? kept[h] : h);
      entry.values += bad;
    }
    if (!entry.heads.empty()) found.push_back(entry);
  }
  return found;
}

std::string describeNonFinite(const std::vector<NonFiniteLayer>& layers) {
  std::string text;
  for (const NonFiniteLayer& l : layers) {
    if (!text.empty()) text += "; ";
    text += "layer " + std::to_string(l.layer) + (l.heads.size() == 1 ? " head " : " heads ");
    for (size_t i = 0; i < l.heads.size(); ++i) {
      text += (i ? "," : "") + std::to_string(l.heads[i]);
    }
    text += " (" + std::to_string(l.values) + " values)";
  }
  return text;
}

std::string formatBytes(uint64_t bytes) {
  static const char* const kUnits[] = {"KB", "MB", "GB", "TB", "PB", "EB"};
  if (bytes < 1024) return std::to_string(bytes) + " bytes";
  double value = static_cast<double>(bytes) / 1024;
  int unit = 0;
  while (value >= 1024 && unit < 5) {
    value /= 1024;
    ++unit;
  }
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.1f %s", value, kUnits[unit]);
  return buffer;
}

}  // namespace headmap
