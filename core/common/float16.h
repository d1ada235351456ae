#pragma once
// 16-bit floats in weight files (safetensors, torch.save, .npy) converted to float32.
#include <cstdint>

namespace headmap {

// IEEE 754 binary16 -> binary32, exact for every value (subnormals, ±inf, NaN payloads).
float halfToFloat(uint16_t bits);
// bfloat16 is the upper half of a float32.
float bfloat16ToFloat(uint16_t bits);

}  // namespace headmap
