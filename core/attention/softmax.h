#pragma once
// The fused masked softmax of the attention kernel, exposed for benchmarks and tests.
#include <cstdint>

#include "core/common/tensor.h"

namespace headmap {

// In place over a block of score rows (rows, k), each row a softmax over its visible keys.
// keyMask: the block's (rows, k) row-major mask, 1 = masked; read only when hasPadding.
// causalShift >= 0: row i of the block sees keys j < i + causalShift (the rest is hidden
// without reading the mask); causalShift < 0: no causal limit.
// Masked cells become exactly 0; a row with every key masked becomes all zeros (torch: NaN).
void maskedSoftmaxRows(RowMatrixMap scores, const uint8_t* keyMask, bool hasPadding,
                       int causalShift);

}  // namespace headmap
