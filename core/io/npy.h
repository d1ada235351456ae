#pragma once
// NumPy .npy files: float32 C-order arrays in and out (inputs for a bare layer, dumped maps).
#include <cstdint>
#include <string>
#include <vector>

namespace headmap {

struct NpyArray {
  std::vector<int64_t> shape;
  std::vector<float> values;  // C order; f8/f2 inputs are converted to float32
};

// Throws headmap::Error naming the file and what is wrong (bad magic, dtype, Fortran order,
// shape product beyond the file).
NpyArray readNpy(const std::string& path);
// The same on a file's bytes already in memory; `source` names it in messages (fuzzing, tests).
NpyArray parseNpy(const std::string& bytes, const std::string& source);

// Writes a float32 '<f4' C-order array through a temporary file renamed into place, so a failure
// never leaves a half-written OUT.
void writeNpy(const std::string& path, const std::vector<int64_t>& shape, const float* data);

}  // namespace headmap
