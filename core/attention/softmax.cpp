#include "core/attention/softmax.h"

#include <algorithm>
#include <limits>

namespace headmap {

namespace {

constexpr float kNegInf = -std::numeric_limits<float>::infinity();

// Eigen peels a dynamic-size Map up to its first aligned address with scalar code, and scalar
// std::exp differs from the vector exp in the last bit: results would then depend on where the
// buffer was allocated. Fixed 16-float chunks (one AVX-512 packet) and a zero-padded tail make
// every row's exp and sum independent of its address and of the thread that computes it.
using Chunk = Eigen::Array<float, 16, 1>;

// row[j] = exp(row[j] - shift) for j in [0, end).
void expShifted(float* row, int end, float shift) {
  int j = 0;
  for (; j + 16 <= end; j += 16) {
    Eigen::Map<Chunk> c(row + j);
    c = (c - shift).exp();
  }
  if (j < end) {
    Chunk tail = Chunk::Constant(shift);
    std::copy(row + j, row + end, tail.data());
    tail = (tail - shift).exp();
    std::copy(tail.data(), tail.data() + (end - j), row + j);
  }
}

float sumOf(const float* row, int end) {
  Chunk acc = Chunk::Zero();
  int j = 0;
  for (; j + 16 <= end; j += 16) acc += Eigen::Map<const Chunk>(row + j);
  if (j < end) {
    Chunk tail = Chunk::Zero();
    std::copy(row + j, row + end, tail.data());
    acc += tail;
  }
  return acc.sum();
}

// One row: keys [0, end) may be visible, keys from end on are causally hidden.
void softmaxRow(float* row, const uint8_t* mask, int nk, int end) {
  float maxValue = kNegInf;  // max is exact in any order: Eigen's reduction is safe here
  if (mask) {
    for (int j = 0; j < end; ++j) {
      if (!mask[j]) maxValue = std::max(maxValue, row[j]);
    }
  } else if (end > 0) {
    maxValue = Eigen::Map<const Eigen::ArrayXf>(row, end).maxCoeff();
  }
  if (maxValue == kNegInf) {
    std::fill(row, row + nk, 0.0f);
    return;
  }
  expShifted(row, end, maxValue);
  if (mask) {
    for (int j = 0; j < end; ++j) {
      if (mask[j]) row[j] = 0.0f;
    }
  }
  const float inverse = 1.0f / sumOf(row, end);
  for (int j = 0; j < end; ++j) row[j] *= inverse;
  std::fill(row + end, row + nk, 0.0f);
}

}  // namespace

void maskedSoftmaxRows(RowMatrixMap scores, const uint8_t* keyMask, bool hasPadding,
                       int causalShift) {
  const int rows = static_cast<int>(scores.rows()), nk = static_cast<int>(scores.cols());
  for (int i = 0; i < rows; ++i) {
    const int end = causalShift >= 0 ? std::clamp(i + causalShift, 0, nk) : nk;
    const uint8_t* mask = hasPadding ? keyMask + static_cast<size_t>(i) * nk : nullptr;
    softmaxRow(scores.row(i).data(), mask, nk, end);
  }
}

}  // namespace headmap
