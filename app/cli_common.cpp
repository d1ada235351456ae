#include "app/cli_common.h"

#include <iostream>
#include <limits>

#include "core/common/error.h"
#include "core/io/npy.h"
#include "core/model/run_checks.h"

namespace headmap::cli {

ArgSpec& addModelOptions(ArgSpec& spec) {
  return spec
      .option("--heads", "N",
              "head count of a bare attention layer when the file does not store it\n"
              "(safetensors __metadata__ num_heads)")
      .option("--layer", "L",
              "bare layer file: which attention layer, by index or name prefix\n"
              "(e.g. 0 or encoder.layers.3.self_attn.); full model: keep layer L only")
      .option("--tokenizer", "FILE",
              "tokenizer file when it is not beside the model (e.g. tok512.bin)");
}

LoadOptions loadOptionsFrom(const Args& args) {
  LoadOptions options;
  options.heads = args.getInt("--heads", 0, 1, 65536);
  options.layer = args.get("--layer");
  options.tokenizerPath = args.get("--tokenizer");
  return options;
}

ArgSpec& addInputOptions(ArgSpec& spec) {
  return spec
      .option("--text", "TEXT", "the text to tokenize (a bare layer splits it on whitespace)")
      .option("--ids", "I,J,...", "token ids given directly instead of --text")
      .option("--input", "X.npy",
              "bare layer only: float32/float64 input vectors of shape (n, d_model);\n"
              "without --text the tokens are labelled by position (#0, #1, ...)");
}

ModelInput modelInputFrom(const Args& args, const LoadedModel& loaded) {
  const bool text = args.has("--text"), ids = args.has("--ids"), input = args.has("--input");
  if (text && ids) throw UsageError("give either --text or --ids, not both");
  if (!text && !ids && !input) throw UsageError("give the tokens: --text, --ids or --input");
  ModelInput result;
  const ModelInfo info = loaded.model->info();
  if (input) {
    if (info.family != "attention") {
      throw UsageError("--input gives vectors to a bare attention layer; " + info.name +
                       " is a full " + info.family + " model, use --text or --ids");
    }
    const std::string path = args.get("--input");
    NpyArray array = readNpy(path);
    if (array.shape.size() != 2) {
      throw Error(path + ": input must have shape (n, d_model), found " + shapeString(array.shape));
    }
    result.embeddings = ConstRowMatrixMap(array.values.data(), array.shape[0], array.shape[1]);
    if (!text && !ids) {
      std::vector<int> positions(array.shape[0]);
      for (size_t i = 0; i < positions.size(); ++i) positions[i] = static_cast<int>(i);
      result.tokens = loaded.tokenizer->fromIds(positions);
    }
  }
  if (text) {
    result.tokens = loaded.tokenizer->encode(args.get("--text"));
    if (result.tokens.empty()) throw UsageError("--text holds no tokens");
  }
  if (ids) {
    std::vector<int> list = args.getIntList("--ids", 0, std::numeric_limits<int>::max());
    if (list.empty()) throw UsageError("--ids is empty");
    result.tokens = loaded.tokenizer->fromIds(list);
  }
  return result;
}

ArgSpec& addMaskOptions(ArgSpec& spec) {
  return spec.flag("--causal", "mask keys after each query (built in for GPT-2 and Llama)")
      .option("--pad", "I,J,...",
              "0-based token positions that are padding: those keys get weight 0")
      .flag("--no-scale", "do not divide the scores by sqrt(d_k)");
}

AttentionOptions attentionOptionsFrom(const Args& args, int n) {
  AttentionOptions options;
  options.causal = args.has("--causal");
  options.scale = !args.has("--no-scale");
  if (args.has("--pad")) {
    if (n <= 0) throw UsageError("--pad given but there are no tokens");
    options.paddedKeys =
        args.getIntList("--pad", 0, n - 1, "--pad position (" + std::to_string(n) + " tokens)");
  }
  return options;
}

std::vector<int> recordedLayersFrom(const Args& args, const ModelInfo& info) {
  if (info.family == "attention" || !args.has("--layer")) return {};
  return {parseInt(args.get("--layer"), 0, info.layers - 1,
                   "--layer (" + info.name + " has " + std::to_string(info.layers) + " layers)")};
}

void checkRunInput(const LoadedModel& loaded, const ModelInput& input, const RunOptions& options) {
  const ModelInfo info = loaded.model->info();
  const int64_t n =
      input.embeddings ? input.embeddings->rows() : static_cast<int64_t>(input.tokens.size());
  checkTokenCount(info, n);
  checkAttentionMemory(info, static_cast<int>(options.layers.size()), n,
                       options.attention.keepStages);
}

void warnNonFinite(const ModelRun& run) {
  const std::vector<NonFiniteLayer> bad = findNonFinite(run);
  if (bad.empty()) return;
  std::cerr << "headmap-cli: warning: attention weights hold NaN or Inf (the model's weights or "
               "inputs are not finite): "
            << describeNonFinite(bad) << "\n";
}

}  // namespace headmap::cli
