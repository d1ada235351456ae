#include "core/io/tensor_source.h"

#include <filesystem>
#include <fstream>

#include "core/common/error.h"
#include "core/common/limits.h"
#include "core/io/safetensors.h"
#include "core/io/torch_file.h"

namespace headmap {

bool TensorSource::contains(const std::string& name) const { return find(name) != nullptr; }

const TensorInfo* TensorSource::find(const std::string& name) const {
  for (const TensorInfo& info : tensors()) {
    if (info.name == name) return &info;
  }
  return nullptr;
}

namespace {

bool hasExtension(const std::string& path, const char* ext) {
  return std::filesystem::path(path).extension() == ext;
}

}  // namespace

std::unique_ptr<TensorSource> openTensorFile(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) throw Error(path + ": no such file");
  if (std::filesystem::is_directory(path, ec)) {
    throw Error(path + ": is a directory, expected a .safetensors or torch.save file");
  }
  requireRegularFile(path, "a .safetensors or torch.save file");
  // Content first; a .safetensors name only decides when the content is too broken to tell, so
  // that a truncated download gets the safetensors reader's precise message.
  if (looksLikeSafetensors(path)) return SafetensorsFile::open(path);
  if (looksLikeTorchFile(path)) return openTorchFile(path);
  if (hasExtension(path, ".safetensors")) return SafetensorsFile::open(path);
  throw Error(path +
              ": not a recognized tensor file; headmap reads safetensors (8-byte header length "
              "then a JSON header), torch.save files (.pt/.pth/.bin zip or legacy pickle), "
              "llama2.c checkpoints and Hugging Face model folders (with config.json)");
}

}  // namespace headmap
