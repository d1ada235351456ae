#pragma once
// Finds bare attention layers among the tensors of a file, under any name prefix, in the two
// layouts people save:
//   tutorial module:            <p>w_q.weight, <p>w_k.weight, <p>w_v.weight, <p>w_o.weight (+
//   .bias) nn.MultiheadAttention:      <p>in_proj_weight (3d, d), <p>in_proj_bias (3d),
//                               <p>out_proj.weight (d, d), <p>out_proj.bias (d)
// Biases are optional (zeros). The head count is not in the weights: it comes from the
// safetensors __metadata__ ("<p>num_heads", then "num_heads"), else from the caller.
#include <string>
#include <vector>

#include "core/attention/attention.h"
#include "core/io/tensor_source.h"

namespace headmap {

struct AttentionLayerCandidate {
  std::string prefix;  // e.g. "encoder.layers.3.self_attn." ("" for a top-level layer)
  std::string layout;  // "tutorial" (w_q/w_k/w_v/w_o) or "torch_mha" (in_proj_weight, out_proj)
  int dModel = 0;
  int heads = 0;  // from __metadata__ num_heads; 0 when unknown
};

// Every complete layer in the source, naturally sorted by prefix ("layers.2." before
// "layers.10."). Throws headmap::Error when a metadata num_heads is not a positive integer.
std::vector<AttentionLayerCandidate> findAttentionLayers(const TensorSource& source);

// choice: "" = the first layer, a number = index into layers, else a prefix (the trailing '.' may
// be omitted). Throws headmap::Error listing the available prefixes when nothing matches.
const AttentionLayerCandidate& chooseAttentionLayer(
    const std::vector<AttentionLayerCandidate>& layers, const std::string& choice,
    const std::string& file);

// Loads the layer's weights in nn.Linear layout and checks every shape against d_model.
// heads: candidate.heads when the file stores it (an explicit, different heads is an error),
// else requestedHeads, else an error saying to pass --heads.
AttentionLayerWeights loadAttentionLayer(const TensorSource& source,
                                         const AttentionLayerCandidate& candidate,
                                         int requestedHeads);

// "layers.2." < "layers.10.": digit runs compare as numbers.
bool naturalLess(const std::string& a, const std::string& b);

}  // namespace headmap
