#include "core/model/hf_folder.h"

#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/common/error.h"
#include "core/io/tensor_source.h"
#include "core/model/bert_model.h"
#include "core/model/config.h"
#include "core/model/gpt2_model.h"
#include "core/model/ids_tokenizer.h"
#include "core/model/llama_model.h"
#include "core/model/sharded_source.h"
#include "core/model/tensor_fetch.h"
#include "core/model/tokenizer_lookup.h"

namespace headmap {

namespace fs = std::filesystem;

namespace {

std::string readText(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(path.string() + ": cannot open");
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// The weights file(s) of the folder, in the order Hugging Face prefers them.
std::unique_ptr<TensorSource> openWeights(const fs::path& dir) {
  if (fs::is_regular_file(dir / "model.safetensors")) {
    return openTensorFile((dir / "model.safetensors").string());
  }
  if (fs::is_regular_file(dir / "model.safetensors.index.json")) {
    return openShardedTensors((dir / "model.safetensors.index.json").string());
  }
  if (fs::is_regular_file(dir / "pytorch_model.bin")) {
    return openTensorFile((dir / "pytorch_model.bin").string());
  }
  if (fs::is_regular_file(dir / "pytorch_model.bin.index.json")) {
    return openShardedTensors((dir / "pytorch_model.bin.index.json").string());
  }
  throw Error(dir.string() +
              ": no weights found (looked for model.safetensors, model.safetensors.index.json, "
              "pytorch_model.bin, pytorch_model.bin.index.json)");
}

// Checkpoints of a base model name tensors bare ("wte.weight"); those saved from a model with a
// head put them under a prefix ("transformer.wte.weight"). Pick the one present.
std::string detectPrefix(const TensorSource& source, const std::string& probe,
                         const std::vector<std::string>& prefixes) {
  for (const std::string& prefix : prefixes) {
    if (source.contains(prefix + probe)) return prefix;
  }
  std::string tried;
  for (const std::string& prefix : prefixes) {
    tried += (tried.empty() ? "'" : ", '") + prefix + probe + "'";
  }
  throw Error(source.path() + ": missing tensor " + tried.substr(0) +
              " (none of these names is present)");
}

std::shared_ptr<Model> buildModel(const ModelConfig& config, const TensorSource& source,
                                  const std::string& name) {
  switch (config.family) {
    case Family::Gpt2: {
      const std::string prefix = detectPrefix(source, "wte.weight", {"transformer.", ""});
      return buildGpt2Model(config, TensorFetcher(source, prefix), name);
    }
    case Family::Bert: {
      const std::string prefix =
          detectPrefix(source, "embeddings.word_embeddings.weight", {"bert.", ""});
      return buildBertModel(config, TensorFetcher(source, prefix), name);
    }
    case Family::Llama: {
      const std::string prefix = detectPrefix(source, "embed_tokens.weight", {"model.", ""});
      return buildLlamaModel(config, TensorFetcher(source, prefix), name);
    }
  }
  throw Error(source.path() + ": unsupported model family");
}

}  // namespace

bool isHuggingFaceFolder(const std::string& path) {
  std::error_code ec;
  return fs::is_directory(path, ec) && fs::is_regular_file(fs::path(path) / "config.json", ec);
}

LoadedModel loadHuggingFaceFolder(const std::string& dirName, const LoadOptions& options) {
  const fs::path dir(dirName);
  const fs::path configPath = dir / "config.json";
  if (!fs::is_regular_file(configPath)) throw Error(dirName + ": no config.json in this folder");
  const ModelConfig config = parseModelConfig(readText(configPath), configPath.string());
  std::shared_ptr<TensorSource> source = openWeights(dir);
  std::string name = dir.filename().string();
  if (name.empty()) name = dir.parent_path().filename().string();

  LoadedModel loaded;
  // Borrowed F32 tensors point into the source's mapping: the model keeps the source alive
  // (aliasing shared_ptr), whatever the reader does with FloatTensor owners.
  struct Holder {
    std::shared_ptr<TensorSource> source;
    std::shared_ptr<Model> model;
  };
  auto holder = std::make_shared<Holder>(Holder{source, buildModel(config, *source, name)});
  loaded.model = std::shared_ptr<const Model>(holder, holder->model.get());
  loaded.tokenizer = options.tokenizerPath.empty()
                         ? tokenizerFromFolder(dirName, config.vocab)
                         : tokenizerFromFile(options.tokenizerPath, config.vocab);
  if (!loaded.tokenizer) {
    loaded.tokenizer = std::make_shared<IdsOnlyTokenizer>(
        config.vocab, dirName +
                          ": no tokenizer in this folder (tokenizer.json, vocab.json + merges.txt "
                          "or vocab.txt); pass one with --tokenizer FILE, or give token ids with "
                          "--ids");
  }
  loaded.sourcePath = dirName;
  loaded.format = "huggingface (" + source->formatName() + ")";
  loaded.tensors = source->tensors();
  return loaded;
}

}  // namespace headmap
