#pragma once
// Llama-family decoder (llama, qwen2, mistral, llama2.c): RMSNorm, rotary embeddings, grouped-query
// attention with optional q/k/v biases, SwiGLU MLP.
#include <memory>
#include <vector>

#include "core/model/layers.h"
#include "core/model/model.h"
#include "core/model/prefix_cache.h"

namespace headmap {

class TensorFetcher;
struct ModelConfig;

// All weights in nn.Linear layout (out, in), float32, borrowed from the checkpoint where possible.
struct LlamaLayerWeights {
  FloatTensor attnNorm;        // (d)
  FloatTensor wq, wk, wv, wo;  // (heads*dh, d), (kv*dh, d), (kv*dh, d), (d, heads*dh)
  FloatTensor bq, bk, bv;      // (heads*dh), (kv*dh), (kv*dh); empty when absent (llama)
  FloatTensor ffnNorm;         // (d)
  FloatTensor gate, up, down;  // (ff, d), (ff, d), (d, ff)
};

struct LlamaWeights {
  FloatTensor embed;  // (vocab, d)
  std::vector<LlamaLayerWeights> layers;
  FloatTensor finalNorm;   // (d)
  FloatTensor classifier;  // (vocab, d); empty = no LM head; may share data with embed
};

struct LlamaSettings {
  ModelInfo info;  // family, name, layers, heads, kvHeads, dModel, vocab, maxPositions
  int dHead = 0;
  int dFf = 0;
  float eps = 1e-5f;
  float ropeTheta = 10000.0f;
  RopeLayout ropeLayout = RopeLayout::RotateHalf;
};

class LlamaModel : public Model {
 public:
  // Shapes must already be checked by the loader (it knows the tensor names for messages).
  LlamaModel(LlamaSettings settings, LlamaWeights weights);
  ModelInfo info() const override { return m_settings.info; }
  ModelRun run(const ModelInput& input, const RunOptions& options) const override;

 private:
  LlamaSettings m_settings;
  LlamaWeights m_weights;
  mutable PrefixCache m_cache;  // RunOptions::reusePrefix; guarded by its lock()
};

// From a Hugging Face folder's tensors (names under "model.", head "lm_head.weight").
std::shared_ptr<Model> buildLlamaModel(const ModelConfig& config, const TensorFetcher& tensors,
                                       const std::string& name);

}  // namespace headmap
