#pragma once
// llama2.c "v0" checkpoints (stories*.bin) with a llama2.c tokenizer.bin.
#include <string>

#include "core/model/load.h"

namespace headmap {

// True when the file starts with a plausible llama2.c header (7 int32 within sane bounds).
bool looksLikeLlama2c(const std::string& path);
LoadedModel loadLlama2c(const std::string& path, const LoadOptions& options);

}  // namespace headmap
