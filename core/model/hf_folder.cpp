#include "core/model/hf_folder.h"

#include <filesystem>

#include "core/common/error.h"

namespace headmap {

// Placeholder until the pretrained-model loaders land.
bool isHuggingFaceFolder(const std::string& path) {
  return std::filesystem::is_directory(path) &&
         std::filesystem::exists(std::filesystem::path(path) / "config.json");
}

LoadedModel loadHuggingFaceFolder(const std::string& dir, const LoadOptions&) {
  throw Error(dir + ": Hugging Face model folders are not supported yet");
}

}  // namespace headmap
