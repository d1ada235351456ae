#pragma once
// GPT-2: learned positions, pre-LayerNorm blocks, Conv1D weights stored (in, out), fused c_attn,
// GELU (tanh approximation unless config.json says otherwise), causal; LM head tied to wte.
#include <memory>
#include <string>

#include "core/model/model.h"

namespace headmap {

class TensorFetcher;
struct ModelConfig;

// Tensors named as GPT2Model names them ("wte.weight", "h.0.attn.c_attn.weight", ...), under
// whatever prefix the fetcher carries ("transformer." for GPT2LMHeadModel checkpoints).
std::shared_ptr<Model> buildGpt2Model(const ModelConfig& config, const TensorFetcher& tensors,
                                      const std::string& name);

}  // namespace headmap
