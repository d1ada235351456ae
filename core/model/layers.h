#pragma once
// Building blocks shared by the Transformer forward passes (GPT-2, BERT, Llama family).
// Every activation matrix is row-major (tokens, features); weights are Eigen::Maps over the
// checkpoint's float32 data, never copied.
#include "core/common/tensor.h"

namespace headmap {

using ConstMatrixRef = Eigen::Ref<const RowMatrixXf>;
using ConstVectorRef = Eigen::Ref<const VectorXf>;

// A 1-D tensor as a vector; size 0 for an absent (default-constructed) tensor such as a missing
// bias.
inline Eigen::Map<const VectorXf> optionalVector(const FloatTensor& t) {
  return t.data() ? t.vector() : Eigen::Map<const VectorXf>(nullptr, 0);
}
inline bool present(const FloatTensor& t) { return t.data() != nullptr; }

// x: (n, d), gain and bias: (d) -> (n, d). Biased variance, as torch.nn.LayerNorm.
RowMatrixXf layerNorm(const ConstMatrixRef& x, const ConstVectorRef& gain,
                      const ConstVectorRef& bias, float eps);

// x: (n, d), gain: (d) -> (n, d): x / sqrt(mean(x²) + eps) * gain (Llama RMSNorm).
RowMatrixXf rmsNorm(const ConstMatrixRef& x, const ConstVectorRef& gain, float eps);

// nn.Linear layout. x: (n, in), w: (out, in), bias: (out) or empty -> (n, out).
// linear and conv1d split their GEMM over the compute pool (core/attention/parallel.h) in fixed
// column chunks: the result does not depend on the thread count.
RowMatrixXf linear(const ConstMatrixRef& x, const ConstMatrixRef& w, const ConstVectorRef& bias);
RowMatrixXf linear(const ConstMatrixRef& x, const ConstMatrixRef& w);

// GPT-2 Conv1D layout. x: (n, in), w: (in, out), bias: (out) -> (n, out).
RowMatrixXf conv1d(const ConstMatrixRef& x, const ConstMatrixRef& w, const ConstVectorRef& bias);

enum class Activation { GeluTanh, GeluErf, Silu, Relu };

// Element-wise, in place, on any (n, f) matrix.
void activateInPlace(RowMatrixXf& x, Activation act);

// SwiGLU: gate, up: (n, f) -> silu(gate) ⊙ up, written into gate.
void swigluInPlace(RowMatrixXf& gate, const ConstMatrixRef& up);

// How a checkpoint pairs the features that one rotary frequency rotates inside a head.
enum class RopeLayout {
  RotateHalf,     // Hugging Face: feature i pairs with i + d_head/2
  AdjacentPairs,  // llama2.c / Meta: feature 2i pairs with 2i + 1
};

// x: (n, heads * d_head), row t at position first + t. Pair i of a head turns by
// position * theta^(-2i/d_head).
void applyRope(RowMatrixXf& x, int heads, int dHead, float theta, RopeLayout layout,
               int first = 0);

// Rows of an embedding table. table: (vocab, d) -> (ids.size(), d).
RowMatrixXf gatherRows(const ConstMatrixRef& table, const std::vector<int>& ids);

}  // namespace headmap
