#pragma once
// A file of named tensors (safetensors, torch.save zip, a sharded folder), seen the same way by
// everything above the loaders.
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "core/common/tensor.h"

namespace headmap {

struct TensorInfo {
  std::string name;
  DType dtype = DType::F32;
  std::vector<int64_t> shape;
};

class TensorSource {
 public:
  virtual ~TensorSource() = default;
  virtual std::string path() const = 0;
  virtual std::string formatName() const = 0;  // "safetensors", "torch", ...
  virtual const std::vector<TensorInfo>& tensors() const = 0;
  // Converted to float32; F32 data may be borrowed from a memory map. Throws headmap::Error
  // naming the file and the tensor when the tensor is missing or cannot be converted.
  virtual FloatTensor load(const std::string& name) const = 0;
  virtual std::map<std::string, std::string> metadata() const { return {}; }

  bool contains(const std::string& name) const;
  const TensorInfo* find(const std::string& name) const;
};

// Opens a tensor file by its content (magic bytes), not its extension.
std::unique_ptr<TensorSource> openTensorFile(const std::string& path);

}  // namespace headmap
