#include "core/attention/embedding.h"

#include <cmath>

#include "core/common/error.h"

namespace headmap {

uint64_t fnv1a64(const std::string& bytes) {
  uint64_t h = 0xcbf29ce484222325ULL;
  for (unsigned char c : bytes) {
    h ^= c;
    h *= 0x100000001b3ULL;
  }
  return h;
}

uint64_t SplitMix64::next() {
  m_state += 0x9e3779b97f4a7c15ULL;
  uint64_t z = m_state;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

float SplitMix64::uniformSigned() {
  // 24 bits fit a float mantissa exactly: k * 2^-23 - 1 is exact for k < 2^24.
  const uint32_t k = static_cast<uint32_t>(next() >> 40);
  return static_cast<float>(k) * (1.0f / 8388608.0f) - 1.0f;
}

VectorXf tokenVector(const std::string& token, int dModel) {
  SplitMix64 rng(fnv1a64(token));
  VectorXf e(dModel);
  for (int c = 0; c < dModel; ++c) e[c] = rng.uniformSigned();
  return e;
}

RowMatrixXf sinusoidalPositions(int n, int dModel) {
  RowMatrixXf pe(n, dModel);
  for (int c = 0; c < dModel; ++c) {
    const int i2 = c - (c % 2);  // 2i for both the sin and the cos column
    const double invFreq = std::pow(10000.0, -static_cast<double>(i2) / dModel);
    for (int pos = 0; pos < n; ++pos) {
      const double angle = pos * invFreq;
      pe(pos, c) = static_cast<float>(c % 2 == 0 ? std::sin(angle) : std::cos(angle));
    }
  }
  return pe;
}

RowMatrixXf tokenEmbeddings(const std::vector<std::string>& tokens, int dModel) {
  if (dModel <= 0)
    throw Error("token embeddings: d_model must be positive, got " + std::to_string(dModel));
  const int n = static_cast<int>(tokens.size());
  RowMatrixXf x = sinusoidalPositions(n, dModel);
  for (int pos = 0; pos < n; ++pos) x.row(pos) += tokenVector(tokens[pos], dModel).transpose();
  return x;
}

AttentionLayerWeights randomAttentionLayer(int dModel, int nHeads, uint64_t seed) {
  if (dModel <= 0 || nHeads <= 0 || dModel % nHeads != 0) {
    throw Error("random attention layer: d_model " + std::to_string(dModel) +
                " must be a positive multiple of the head count " + std::to_string(nHeads));
  }
  AttentionLayerWeights w;
  w.dModel = dModel;
  w.nHeads = nHeads;
  SplitMix64 rng(seed);
  const float bound = 1.0f / std::sqrt(static_cast<float>(dModel));
  auto fill = [&](float* p, size_t count) {
    for (size_t i = 0; i < count; ++i) p[i] = rng.uniformSigned() * bound;
  };
  RowMatrixXf* mats[] = {&w.wq, &w.wk, &w.wv, &w.wo};
  VectorXf* biases[] = {&w.bq, &w.bk, &w.bv, &w.bo};
  for (int m = 0; m < 4; ++m) {
    mats[m]->resize(dModel, dModel);
    fill(mats[m]->data(), mats[m]->size());
    biases[m]->resize(dModel);
    fill(biases[m]->data(), biases[m]->size());
  }
  return w;
}

}  // namespace headmap
