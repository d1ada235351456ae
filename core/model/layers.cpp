#include "core/model/layers.h"

#include <cmath>
#include <vector>

namespace headmap {

RowMatrixXf layerNorm(const ConstMatrixRef& x, const ConstVectorRef& gain,
                      const ConstVectorRef& bias, float eps) {
  RowMatrixXf out(x.rows(), x.cols());
  const auto d = static_cast<float>(x.cols());
  for (Eigen::Index r = 0; r < x.rows(); ++r) {
    const float mean = x.row(r).sum() / d;
    const auto centred = x.row(r).array() - mean;
    const float var = centred.square().sum() / d;
    const float inv = 1.0f / std::sqrt(var + eps);
    out.row(r) = (centred * inv * gain.transpose().array() + bias.transpose().array()).matrix();
  }
  return out;
}

RowMatrixXf rmsNorm(const ConstMatrixRef& x, const ConstVectorRef& gain, float eps) {
  RowMatrixXf out(x.rows(), x.cols());
  const auto d = static_cast<float>(x.cols());
  for (Eigen::Index r = 0; r < x.rows(); ++r) {
    const float inv = 1.0f / std::sqrt(x.row(r).squaredNorm() / d + eps);
    out.row(r) = (x.row(r).array() * inv * gain.transpose().array()).matrix();
  }
  return out;
}

RowMatrixXf linear(const ConstMatrixRef& x, const ConstMatrixRef& w, const ConstVectorRef& bias) {
  RowMatrixXf out = x * w.transpose();
  if (bias.size() > 0) out.rowwise() += bias.transpose();
  return out;
}

RowMatrixXf linear(const ConstMatrixRef& x, const ConstMatrixRef& w) {
  RowMatrixXf out = x * w.transpose();
  return out;
}

RowMatrixXf conv1d(const ConstMatrixRef& x, const ConstMatrixRef& w, const ConstVectorRef& bias) {
  RowMatrixXf out = x * w;
  if (bias.size() > 0) out.rowwise() += bias.transpose();
  return out;
}

namespace {

float geluTanh(float v) {
  const float c = 0.7978845608028654f;  // sqrt(2 / pi)
  return 0.5f * v * (1.0f + std::tanh(c * (v + 0.044715f * v * v * v)));
}

float geluErf(float v) { return 0.5f * v * (1.0f + std::erf(v * 0.7071067811865476f)); }

float silu(float v) { return v / (1.0f + std::exp(-v)); }

}  // namespace

void activateInPlace(RowMatrixXf& x, Activation act) {
  float* p = x.data();
  const Eigen::Index n = x.size();
  switch (act) {
    case Activation::GeluTanh:
      for (Eigen::Index i = 0; i < n; ++i) p[i] = geluTanh(p[i]);
      break;
    case Activation::GeluErf:
      for (Eigen::Index i = 0; i < n; ++i) p[i] = geluErf(p[i]);
      break;
    case Activation::Silu:
      for (Eigen::Index i = 0; i < n; ++i) p[i] = silu(p[i]);
      break;
    case Activation::Relu:
      for (Eigen::Index i = 0; i < n; ++i) p[i] = p[i] > 0.0f ? p[i] : 0.0f;
      break;
  }
}

void swigluInPlace(RowMatrixXf& gate, const ConstMatrixRef& up) {
  activateInPlace(gate, Activation::Silu);
  gate.array() *= up.array();
}

void applyRope(RowMatrixXf& x, int heads, int dHead, float theta, RopeLayout layout) {
  const int half = dHead / 2;
  // Angles in double: positions up to tens of thousands times small frequencies lose digits in
  // float, and the references (torch, llama.c) differ from each other below 1e-6 anyway.
  std::vector<double> invFreq(half);
  for (int i = 0; i < half; ++i) invFreq[i] = std::pow(double(theta), -2.0 * i / dHead);
  for (Eigen::Index t = 0; t < x.rows(); ++t) {
    float* row = x.data() + t * x.cols();
    for (int i = 0; i < half; ++i) {
      const double angle = double(t) * invFreq[i];
      const float c = float(std::cos(angle));
      const float s = float(std::sin(angle));
      for (int h = 0; h < heads; ++h) {
        float* head = row + h * dHead;
        const int a = layout == RopeLayout::RotateHalf ? i : 2 * i;
        const int b = layout == RopeLayout::RotateHalf ? i + half : 2 * i + 1;
        const float x0 = head[a];
        const float x1 = head[b];
        head[a] = x0 * c - x1 * s;
        head[b] = x0 * s + x1 * c;
      }
    }
  }
}

RowMatrixXf gatherRows(const ConstMatrixRef& table, const std::vector<int>& ids) {
  RowMatrixXf out(static_cast<Eigen::Index>(ids.size()), table.cols());
  for (size_t i = 0; i < ids.size(); ++i) out.row(i) = table.row(ids[i]);
  return out;
}

}  // namespace headmap
