#include "core/model/load.h"

#include <filesystem>

#include "core/attention/embedding.h"
#include "core/common/error.h"
#include "core/common/limits.h"
#include "core/io/attention_layers.h"
#include "core/io/safetensors.h"
#include "core/io/tensor_source.h"
#include "core/io/torch_file.h"
#include "core/model/attention_model.h"
#include "core/model/hf_folder.h"
#include "core/model/llama2c_model.h"
#include "core/tokenize/whitespace_tokenizer.h"

namespace fs = std::filesystem;

namespace headmap {

namespace {

std::string fileName(const std::string& path) {
  std::string name = fs::path(path).filename().string();
  return name.empty() ? path : name;
}

LoadedModel loadBareLayer(const std::string& path, const LoadOptions& options) {
  std::shared_ptr<const TensorSource> source = openTensorFile(path);
  const auto layers = findAttentionLayers(*source);
  if (layers.empty()) {
    throw Error(path + ": holds " + std::to_string(source->tensors().size()) +
                " tensors but no attention layer (expected <prefix>w_q/w_k/w_v/w_o.weight or "
                "<prefix>in_proj_weight + out_proj.weight); for a full model pass its folder "
                "with config.json");
  }
  const AttentionLayerCandidate& layer = chooseAttentionLayer(layers, options.layer, path);
  std::string name = fileName(path);
  if (!layer.prefix.empty()) name += " [" + layer.prefix + "]";

  LoadedModel loaded;
  loaded.model =
      std::make_shared<AttentionModel>(loadAttentionLayer(*source, layer, options.heads), name);
  loaded.tokenizer = std::make_shared<WhitespaceTokenizer>();
  loaded.sourcePath = path;
  loaded.format = source->formatName();
  loaded.tensors = source->tensors();
  return loaded;
}

}  // namespace

std::vector<AttentionLayerCandidate> listAttentionLayers(const std::string& path) {
  if (fs::is_directory(path)) return {};
  if (!looksLikeSafetensors(path) && !looksLikeTorchFile(path) && looksLikeLlama2c(path)) return {};
  auto source = openTensorFile(path);
  return findAttentionLayers(*source);
}

LoadedModel loadModel(const std::string& path, const LoadOptions& options) {
  std::error_code ec;
  if (!fs::exists(path, ec)) throw Error(path + ": no such file or folder");
  if (fs::is_directory(path, ec)) {
    if (isHuggingFaceFolder(path)) return loadHuggingFaceFolder(path, options);
    throw Error(path +
                ": a folder without config.json; headmap opens Hugging Face model "
                "folders (config.json + model.safetensors) or a single weight file");
  }
  requireRegularFile(path, "a weight file (.safetensors, torch.save, llama2.c .bin) or a model folder");
  // Formats with magic bytes first: llama2.c's header is only a plausibility check.
  if (looksLikeSafetensors(path) || looksLikeTorchFile(path)) return loadBareLayer(path, options);
  if (looksLikeLlama2c(path)) return loadLlama2c(path, options);
  return loadBareLayer(path, options);
}

LoadedModel makeRandomLayer(int dModel, int nHeads, unsigned seed) {
  if (dModel <= 0 || nHeads <= 0 || dModel % nHeads != 0) {
    throw Error("random layer: d_model " + std::to_string(dModel) +
                " must be positive and divisible by the head count " + std::to_string(nHeads));
  }
  LoadedModel loaded;
  loaded.model =
      std::make_shared<AttentionModel>(randomAttentionLayer(dModel, nHeads, seed),
                                       "random layer (seed " + std::to_string(seed) + ")");
  loaded.tokenizer = std::make_shared<WhitespaceTokenizer>();
  loaded.sourcePath = "";
  loaded.format = "random";
  return loaded;
}

}  // namespace headmap
