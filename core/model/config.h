#pragma once
// config.json of a Hugging Face model folder, reduced to what the forward passes need.
#include <string>

#include "core/model/layers.h"
#include "core/model/model.h"

namespace headmap {

enum class Family { Gpt2, Bert, Llama };

struct ModelConfig {
  Family family = Family::Llama;
  std::string modelType;  // as written in config.json: "gpt2", "bert", "llama", "qwen2", ...
  int vocab = 0;
  int dModel = 0;
  int layers = 0;
  int heads = 0;
  int kvHeads = 0;  // == heads unless grouped-query attention
  int dHead = 0;    // d_model / heads unless config.json says head_dim
  int dFf = 0;      // MLP width
  int maxPositions = 0;
  int typeVocab = 0;  // BERT token types
  float eps = 1e-5f;  // LayerNorm / RMSNorm epsilon
  float ropeTheta = 10000.0f;
  bool tieEmbeddings = false;
  Activation act = Activation::GeluTanh;
};

// Parses config.json text. `file` names the file in error messages. Throws headmap::Error naming
// the file and the key for any missing, mistyped or out-of-range value the family needs, and for
// unsupported model types or features (e.g. rope_scaling).
ModelConfig parseModelConfig(const std::string& json, const std::string& file);

std::string familyName(Family family);

// What the app and the CLI show of a Hugging Face model: the config's shape under `name`
// (GPT-2 and Llama families are causal, BERT is not).
ModelInfo modelInfo(const ModelConfig& config, const std::string& name);

}  // namespace headmap
