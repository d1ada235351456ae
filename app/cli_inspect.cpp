// headmap-cli inspect MODEL: what a weight file or model folder holds, as JSON on stdout.
#include <filesystem>
#include <iostream>
#include <nlohmann/json.hpp>

#include "app/cli_commands.h"
#include "app/cli_common.h"
#include "core/common/limits.h"
#include "core/io/attention_layers.h"
#include "core/io/safetensors.h"
#include "core/io/tensor_source.h"
#include "core/io/torch_file.h"
#include "core/model/llama2c_model.h"

namespace headmap::cli {

namespace {

using Json = nlohmann::ordered_json;

Json tensorsJson(const std::vector<TensorInfo>& tensors) {
  Json list = Json::array();
  for (const TensorInfo& t : tensors) {
    list.push_back({{"name", t.name}, {"dtype", dtypeName(t.dtype)}, {"shape", t.shape}});
  }
  return list;
}

// A single tensor file that is not a llama2.c checkpoint: listed without choosing a layer or
// knowing the head count, so inspect works before the user knows what to pass to dump.
bool isBareTensorFile(const std::string& path) {
  if (std::filesystem::is_directory(path)) return false;
  // The sniffers below open the file: a FIFO would block them forever.
  requireRegularFile(path, "a weight file or a model folder");
  if (looksLikeSafetensors(path) || looksLikeTorchFile(path)) return true;
  return !looksLikeLlama2c(path);
}

Json inspectTensorFile(const std::string& path, int requestedHeads) {
  auto source = openTensorFile(path);
  Json out;
  out["path"] = path;
  out["format"] = source->formatName();
  const auto layers = findAttentionLayers(*source);
  if (!layers.empty()) out["family"] = "attention";
  Json layerList = Json::array();
  for (size_t i = 0; i < layers.size(); ++i) {
    const auto& l = layers[i];
    const int heads = l.heads > 0 ? l.heads : requestedHeads;
    Json j = {{"index", i}, {"prefix", l.prefix}, {"layout", l.layout}, {"d_model", l.dModel}};
    j["heads"] = heads > 0 ? Json(heads) : Json(nullptr);
    j["heads_from"] = l.heads > 0 ? "metadata" : (heads > 0 ? "--heads" : "unknown");
    j["d_k"] = heads > 0 && l.dModel % heads == 0 ? Json(l.dModel / heads) : Json(nullptr);
    layerList.push_back(j);
  }
  out["attention_layers"] = layerList;
  out["metadata"] = source->metadata();
  out["tensors"] = tensorsJson(source->tensors());
  return out;
}

Json inspectModel(const std::string& path, const LoadOptions& options) {
  LoadedModel loaded = loadModel(path, options);
  const ModelInfo info = loaded.model->info();
  Json out;
  out["path"] = path;
  out["format"] = loaded.format.empty() ? info.family : loaded.format;
  out["family"] = info.family;
  out["name"] = info.name;
  out["layers"] = info.layers;
  out["heads"] = info.heads;
  out["kv_heads"] = info.kvHeads;
  out["d_model"] = info.dModel;
  out["d_k"] = info.heads > 0 ? info.dModel / info.heads : 0;
  out["vocab"] = info.vocab;
  out["max_positions"] = info.maxPositions;
  out["causal"] = info.causalBuiltIn;
  if (loaded.tokenizer) out["tokenizer"] = loaded.tokenizer->kind();
  out["attention_layers"] = Json::array();
  out["tensors"] = tensorsJson(loaded.tensors);
  return out;
}

ArgSpec inspectSpec() {
  ArgSpec spec("inspect",
               "Print as JSON what MODEL holds.\n"
               "The format, the attention layers found (prefix, layout, d_model, heads, d_k),\n"
               "every tensor's name, dtype and shape, and for full models family, layers,\n"
               "heads, kv_heads, d_model, vocab and max_positions.");
  spec.positional("MODEL", "weight file (.safetensors, torch.save), model folder or llama2.c .bin")
      .option("--heads", "N", "head count to report for bare layers whose file does not store it")
      .option("--tokenizer", "FILE", "tokenizer file when it is not beside the model");
  return spec;
}

int runInspect(const Args& args) {
  const std::string path = args.positional(0);
  LoadOptions options = loadOptionsFrom(args);
  Json out =
      isBareTensorFile(path) ? inspectTensorFile(path, options.heads) : inspectModel(path, options);
  // Tensor names are untrusted bytes: replace invalid UTF-8 rather than fail.
  std::cout << out.dump(2, ' ', false, Json::error_handler_t::replace) << "\n";
  return 0;
}

const bool kRegistered = registerCommand({"inspect", inspectSpec, runInspect});

}  // namespace

}  // namespace headmap::cli
