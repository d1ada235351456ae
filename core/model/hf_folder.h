#pragma once
// Hugging Face model folders: config.json + model.safetensors (or sharded, or pytorch_model.bin)
// and the tokenizer files beside them.
#include <string>

#include "core/model/load.h"

namespace headmap {

bool isHuggingFaceFolder(const std::string& path);
LoadedModel loadHuggingFaceFolder(const std::string& dir, const LoadOptions& options);

}  // namespace headmap
