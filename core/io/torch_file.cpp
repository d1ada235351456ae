#include "core/io/torch_file.h"

#include "core/common/error.h"

namespace headmap {

// Placeholder until the torch.save reader lands.
bool looksLikeTorchFile(const std::string&) { return false; }

std::unique_ptr<TensorSource> openTorchFile(const std::string& path) {
  throw Error(path + ": torch.save files are not supported yet");
}

}  // namespace headmap
