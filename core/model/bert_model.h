#pragma once
// BERT encoder: word + position + token_type embeddings, post-LayerNorm blocks, exact (erf) GELU,
// bidirectional attention; padding through RunOptions.attention.paddedKeys. No LM head.
#include <memory>
#include <string>

#include "core/model/model.h"

namespace headmap {

class TensorFetcher;
struct ModelConfig;

// Tensors named as BertModel names them ("embeddings.word_embeddings.weight",
// "encoder.layer.0.attention.self.query.weight", ...) under the fetcher's prefix ("bert." for
// BertFor* checkpoints); LayerNorm parameters as weight/bias or the older gamma/beta.
std::shared_ptr<Model> buildBertModel(const ModelConfig& config, const TensorFetcher& tensors,
                                      const std::string& name);

}  // namespace headmap
