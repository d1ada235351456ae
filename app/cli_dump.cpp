// headmap-cli dump MODEL ... --out OUT.npy: per-head attention maps as a float32 C-order .npy of
// shape (layers, heads, q, k), and optionally the tokens as JSON. Nothing is written unless the
// whole computation succeeded.
#include <cstdio>
#include <iostream>
#include <limits>
#include <nlohmann/json.hpp>

#include "app/cli_aggregate.h"
#include "app/cli_commands.h"
#include "app/cli_common.h"
#include "core/common/atomic_file.h"
#include "core/common/error.h"
#include "core/io/npy.h"

namespace headmap::cli {

namespace {

enum class Stage { Softmax, Scores, Scaled, Masked };

Stage parseStage(const std::string& text) {
  if (text == "softmax") return Stage::Softmax;
  if (text == "scores") return Stage::Scores;
  if (text == "scaled") return Stage::Scaled;
  if (text == "masked") return Stage::Masked;
  throw UsageError("--stage '" + text + "' is not one of softmax, scores, scaled, masked");
}

const HeadMaps& stageMaps(const AttentionResult& r, Stage stage) {
  switch (stage) {
    case Stage::Scores:
      return r.raw;
    case Stage::Scaled:
      return r.scaled;
    case Stage::Masked:
      return r.masked;
    case Stage::Softmax:
      break;
  }
  return r.weights;
}

// (layers, heads, q, k) from the recorded layers, all of one shape.
std::vector<float> stack(const ModelRun& run, Stage stage, std::vector<int64_t>& shape) {
  if (run.layers.empty()) throw Error("the model recorded no attention layer");
  const HeadMaps& first = stageMaps(run.layers.front().result, stage);
  std::vector<float> values;
  for (const LayerAttention& layer : run.layers) {
    const HeadMaps& maps = stageMaps(layer.result, stage);
    if (maps.empty()) {
      throw Error("layer " + std::to_string(layer.layer) + " returned no maps for this stage");
    }
    if (maps.heads != first.heads || maps.q != first.q || maps.k != first.k) {
      throw Error("layer " + std::to_string(layer.layer) + " maps are (" +
                  std::to_string(maps.heads) + ", " + std::to_string(maps.q) + ", " +
                  std::to_string(maps.k) + "), unlike the first layer's");
    }
    values.insert(values.end(), maps.values.begin(), maps.values.end());
  }
  shape = {static_cast<int64_t>(run.layers.size()), first.heads, first.q, first.k};
  return values;
}

std::string tokensJson(const std::vector<Token>& tokens, const AttentionOptions& options) {
  nlohmann::ordered_json j;
  j["ids"] = nlohmann::json::array();
  j["pieces"] = nlohmann::json::array();
  j["display"] = nlohmann::json::array();
  j["special"] = nlohmann::json::array();
  for (const Token& t : tokens) {
    j["ids"].push_back(t.id);
    j["pieces"].push_back(t.piece);
    j["display"].push_back(t.display);
    j["special"].push_back(t.special);
  }
  j["padded"] = options.paddedKeys;
  j["causal"] = options.causal;
  return j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

ArgSpec dumpSpec() {
  ArgSpec spec("dump",
               "Write the per-head attention maps of MODEL for some tokens to a .npy file.\n"
               "The array is float32, C order, of shape (layers, heads, q, k); layers is 1 for\n"
               "a bare attention layer, or for a full model with --layer.");
  spec.positional("MODEL", "weight file (.safetensors, torch.save), model folder or llama2.c .bin");
  addInputOptions(spec);
  addModelOptions(spec);
  addMaskOptions(spec);
  addAggregateOption(spec);
  spec.option("--stage", "STAGE",
              "which scores to write: softmax (default) the attention weights;\n"
              "scores raw Q·Kᵀ; scaled Q·Kᵀ/sqrt(d_k); masked: scaled, -inf where masked")
      .option("--out", "OUT.npy", "where to write the maps (required)")
      .option("--tokens-out", "T.json",
              "also write the tokens: ids, pieces, display strings, padded positions")
      .note(
          "Outputs are written through temporary files renamed into place: on any error\n"
          "neither OUT nor T.json is created or changed.");
  return spec;
}

int runDump(const Args& args) {
  if (!args.has("--out")) throw UsageError("--out OUT.npy is required");
  const std::string out = args.get("--out");
  const std::string tokensOut = args.get("--tokens-out");
  if (out.empty()) throw UsageError("--out is empty");
  if (!tokensOut.empty() && tokensOut == out) {
    throw UsageError("--out and --tokens-out name the same file");
  }
  const Stage stage = parseStage(args.get("--stage", "softmax"));
  const Aggregate aggregate = aggregateFrom(args, stage == Stage::Softmax);
  // Check the cheap options before loading a possibly large model.
  args.getIntList("--ids", 0, std::numeric_limits<int>::max());
  LoadOptions loadOptions = loadOptionsFrom(args);

  LoadedModel loaded = loadModel(args.positional(0), loadOptions);
  ModelInput input = modelInputFrom(args, loaded);
  const int n = input.embeddings ? static_cast<int>(input.embeddings->rows())
                                 : static_cast<int>(input.tokens.size());
  RunOptions runOptions;
  runOptions.attention = attentionOptionsFrom(args, n);
  runOptions.attention.keepStages = stage != Stage::Softmax;
  runOptions.layers = aggregateLayers(aggregate, recordedLayersFrom(args, loaded.model->info()));

  std::vector<int64_t> shape;
  std::vector<float> values;
  if (aggregate == Aggregate::None) {
    checkRunInput(loaded, input, runOptions);
    ModelRun run = loaded.model->run(input, runOptions);
    warnNonFinite(run);
    values = stack(run, stage, shape);
  } else {
    // Aggregates are streamed: no layer's maps are kept (long inputs fit in memory).
    const ModelInfo info = loaded.model->info();
    checkTokenCount(info, n);
    checkAttentionMemory(info, 1, n, false);
    std::vector<NonFiniteLayer> bad;
    values = runAggregate(*loaded.model, input, runOptions, aggregate, shape, bad);
    if (!bad.empty()) {
      std::cerr << "headmap-cli: warning: attention weights hold NaN or Inf (the model's weights "
                   "or inputs are not finite): "
                << describeNonFinite(bad) << "\n";
    }
  }

  writeNpy(out, shape, values.data());
  if (!tokensOut.empty()) {
    try {
      const std::string text = tokensJson(input.tokens, runOptions.attention);
      writeFileAtomic(tokensOut, [&](std::ostream& s) { s << text; });
    } catch (...) {
      std::remove(out.c_str());  // all or nothing
      throw;
    }
  }
  return 0;
}

const bool kRegistered = registerCommand({"dump", dumpSpec, runDump});

}  // namespace

}  // namespace headmap::cli
