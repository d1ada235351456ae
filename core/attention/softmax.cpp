#include "core/attention/softmax.h"

#include <algorithm>
#include <limits>

namespace headmap {

namespace {

constexpr float kNegInf = -std::numeric_limits<float>::infinity();

// One row: keys [0, end) may be visible, keys from end on are causally hidden.
void softmaxRow(float* row, const uint8_t* mask, int nk, int end) {
  float maxValue = kNegInf;
  if (mask) {
    for (int j = 0; j < end; ++j) {
      if (!mask[j]) maxValue = std::max(maxValue, row[j]);
    }
  } else if (end > 0) {
    maxValue = Eigen::Map<Eigen::ArrayXf>(row, end).maxCoeff();
  }
  if (maxValue == kNegInf) {
    std::fill(row, row + nk, 0.0f);
    return;
  }
  Eigen::Map<Eigen::ArrayXf> a(row, end);
  a = (a - maxValue).exp();
  if (mask) {
    for (int j = 0; j < end; ++j) {
      if (mask[j]) row[j] = 0.0f;
    }
  }
  a *= 1.0f / a.sum();
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
