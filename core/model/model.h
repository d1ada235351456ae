#pragma once
// A model whose attention headmap shows: a bare attention layer, or a full Transformer whose
// forward pass records each layer's per-head attention.
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/attention/attention.h"
#include "core/io/tensor_source.h"
#include "core/tokenize/tokenizer.h"

namespace headmap {

struct ModelInfo {
  std::string family;  // "attention", "gpt2", "bert", "llama", "llama2c"
  std::string name;    // shown in the status bar, e.g. file or folder name
  int layers = 1;
  int heads = 0;
  int kvHeads = 0;
  int dModel = 0;
  int vocab = 0;
  int maxPositions = 0;  // 0 = unbounded (bare layer)
  bool causalBuiltIn = false;
};

struct ModelInput {
  std::vector<Token> tokens;              // what the user typed, tokenized
  std::optional<RowMatrixXf> embeddings;  // (n, d_model) given directly (bare layer, .npy)
};

struct RunOptions {
  AttentionOptions attention;  // padding, causal (forced on for causal families), scale, stages
  std::vector<int> layers;     // layers to record; empty = all
  bool logits = true;          // fill ModelRun.logits (needs the whole stack and the LM head)
  // Long inputs: memory-bounded runs (attention.keepHeads and attention.onHead are ignored;
  // these two apply per layer instead).
  // keepHeads: heads whose maps the recorded layers keep; nullopt = all, empty = none. Layers
  // that are not recorded keep no maps at all.
  std::optional<std::vector<int>> keepHeads;
  // When set, onHead sees each head's softmax weights (q, k) of every layer that runs as it is
  // computed, HeadWeights::layer = model layer, layers ascending and heads ascending within a
  // layer, on the calling thread. With allLayers every layer runs (statistics or rollout of the
  // whole model while recording one layer); else the run stops after the last recorded layer.
  // Peak memory is then the recorded layers' kept maps plus a scratch of a few heads, not
  // layers × heads × n² floats.
  HeadCallback onHead;
  bool allLayers = false;
  // Typing at the end of a sentence: let a causal model take the rows of its previous run whose
  // token ids (and padding) are unchanged instead of computing them again (core/model/
  // prefix_cache.h; GPT-2, Llama and llama2.c models). Results are the same as a full run's.
  // Runs with score stages or logits, and runs whose maps would exceed
  // PrefixCache::kMaxMapBytes, are always computed in full.
  bool reusePrefix = false;
};

struct LayerAttention {
  int layer = 0;
  AttentionResult result;
};

struct ModelRun {
  // One per recorded layer, in order; result.weights holds the kept heads (result.keptHeads).
  std::vector<LayerAttention> layers;
  std::vector<float> logits;  // (n, vocab) row-major when the model has an LM head
  int reusedTokens = 0;       // leading tokens taken from the previous run (reusePrefix)
};

class Model {
 public:
  virtual ~Model() = default;
  virtual ModelInfo info() const = 0;
  // Throws headmap::Error for empty input, too many tokens, or ids outside the vocabulary.
  virtual ModelRun run(const ModelInput& input, const RunOptions& options) const = 0;
};

// A model with the tokenizer that goes with it; what the app and the CLI hold.
struct LoadedModel {
  std::shared_ptr<const Model> model;
  std::shared_ptr<const Tokenizer> tokenizer;
  std::string sourcePath;
  // For inspect: the weight format ("safetensors", "huggingface", "llama2c", ...) and every
  // tensor the weight file(s) hold; loaders fill them when they can (empty = unknown).
  std::string format;
  std::vector<TensorInfo> tensors;
};

}  // namespace headmap
