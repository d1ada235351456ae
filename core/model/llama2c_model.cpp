#include "core/model/llama2c_model.h"

#include "core/common/error.h"

namespace headmap {

// Placeholder until the pretrained-model loaders land.
bool looksLikeLlama2c(const std::string&) { return false; }

LoadedModel loadLlama2c(const std::string& path, const LoadOptions&) {
  throw Error(path + ": llama2.c checkpoints are not supported yet");
}

}  // namespace headmap
