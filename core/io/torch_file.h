#pragma once
// torch.save zip archives (PyTorch >= 1.6) read through a restricted unpickler.
#include <memory>
#include <string>

#include "core/io/tensor_source.h"

namespace headmap {

// True when the file starts with the zip magic or the legacy torch.save pickle magic.
bool looksLikeTorchFile(const std::string& path);
// Throws headmap::Error naming the file and the refused global / bad record.
std::unique_ptr<TensorSource> openTorchFile(const std::string& path);

}  // namespace headmap
