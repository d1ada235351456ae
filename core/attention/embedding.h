#pragma once
// Inputs for a bare attention layer, built from tokens alone, identical on every run and platform.
//
// Recipe for token t at position pos, d = d_model, columns c = 0..d-1:
//   seed     = FNV-1a 64 over the token's UTF-8 bytes
//              (offset basis 0xcbf29ce484222325, prime 0x100000001b3)
//   stream   = SplitMix64 starting at state = seed: state += 0x9e3779b97f4a7c15, then
//              z = state; z = (z ^ z>>30) * 0xbf58476d1ce4e5b9; z = (z ^ z>>27) *
//              0x94d049bb133111eb; z ^= z>>31
//   E[c]     = the c-th draw mapped to [-1, 1): (z >> 40) * 2^-24 * 2 - 1 (integer arithmetic then
//              one exact float op, so bit-identical everywhere; variance 1/3)
//   PE[pos, 2i]   = sin(pos / 10000^(2i/d)),  PE[pos, 2i+1] = cos(pos / 10000^(2i/d))
//              ("Attention Is All You Need", section 3.5; computed in double, rounded to float)
//   row[pos] = E(t) + PE[pos]
// Equal tokens get equal embeddings; only the position term tells them apart.
#include <cstdint>
#include <string>
#include <vector>

#include "core/attention/attention.h"
#include "core/common/tensor.h"

namespace headmap {

uint64_t fnv1a64(const std::string& bytes);

// Deterministic stream of 64-bit values (SplitMix64), as described above.
class SplitMix64 {
 public:
  explicit SplitMix64(uint64_t seed) : m_state(seed) {}
  uint64_t next();
  float uniformSigned();  // [-1, 1), 24 random bits
 private:
  uint64_t m_state;
};

// -> (d_model): E(token) without position.
VectorXf tokenVector(const std::string& token, int dModel);
// -> (n, d_model): the sinusoidal position encoding of positions 0..n-1.
RowMatrixXf sinusoidalPositions(int n, int dModel);
// -> (n, d_model): tokenVector(tokens[pos]) + PE[pos]. Throws headmap::Error for d_model <= 0.
RowMatrixXf tokenEmbeddings(const std::vector<std::string>& tokens, int dModel);

// A layer with nn.Linear's default init scale: every weight and bias ~ U(-1/√d, 1/√d), drawn from
// SplitMix64(seed) in the order W_q, b_q, W_k, b_k, W_v, b_v, W_o, b_o (row-major).
// Throws headmap::Error naming d_model and heads when d_model % heads != 0 or either is <= 0.
AttentionLayerWeights randomAttentionLayer(int dModel, int nHeads, uint64_t seed);

}  // namespace headmap
