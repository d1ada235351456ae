#pragma once
// torch.save zip archives (PyTorch >= 1.6) read through a restricted unpickler.
#include <memory>
#include <string>
#include <vector>

#include "core/io/tensor_source.h"

namespace headmap {

// True when the file starts with the zip magic or the legacy torch.save pickle magic.
bool looksLikeTorchFile(const std::string& path);
// Throws headmap::Error naming the file and the refused global / bad record.
// Legacy (pre-1.6, non-zip) files are refused with a message saying how to re-save them.
std::unique_ptr<TensorSource> openTorchFile(const std::string& path);
// The same over an archive held in memory (fuzzing, tests); `name` stands for the file in messages.
std::unique_ptr<TensorSource> openTorchBytes(std::vector<uint8_t> bytes, const std::string& name);

}  // namespace headmap
