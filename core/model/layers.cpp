#include "core/model/layers.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "core/attention/gemm.h"
#include "core/attention/parallel.h"

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

namespace {

// out (n, cols) = fn over column chunks [c0, c0 + width), spread over the compute pool. The chunk
// width is fixed, not derived from the thread count, so that every thread count gives the same
// bits. 128 columns split GPT-2's and BERT's widths (768, 2304, 3072) into an even number of
// chunks for 2 threads; x is packed once for all of them.
template <class Fn>
void byColumnChunks(Eigen::Index cols, double flops, Fn&& fn) {
  constexpr Eigen::Index width = 128;
  const int chunks = static_cast<int>((cols + width - 1) / width);
  parallelFor(chunks, flops, [&](int c) {
    const Eigen::Index c0 = c * width;
    fn(c0, std::min(cols, c0 + width) - c0);
  });
}

}  // namespace

RowMatrixXf linear(const ConstMatrixRef& x, const ConstMatrixRef& w, const ConstVectorRef& bias) {
  RowMatrixXf out(x.rows(), w.rows());
  const double flops = 2.0 * x.rows() * x.cols() * w.rows();
  PackedA& packed = packedInput();  // x packed once for every chunk
  packed.pack(x);
  byColumnChunks(w.rows(), flops, [&](Eigen::Index c0, Eigen::Index cw) {
    auto dst = out.middleCols(c0, cw);
    gemmTransposedInto(dst, packed, w.middleRows(c0, cw));
    if (bias.size() > 0) dst.rowwise() += bias.segment(c0, cw).transpose();
  });
  return out;
}

RowMatrixXf linear(const ConstMatrixRef& x, const ConstMatrixRef& w) {
  return linear(x, w, Eigen::Map<const VectorXf>(nullptr, 0));
}

RowMatrixXf conv1d(const ConstMatrixRef& x, const ConstMatrixRef& w, const ConstVectorRef& bias) {
  RowMatrixXf out(x.rows(), w.cols());
  const double flops = 2.0 * x.rows() * x.cols() * w.cols();
  PackedA& packed = packedInput();
  packed.pack(x);
  byColumnChunks(w.cols(), flops, [&](Eigen::Index c0, Eigen::Index cw) {
    auto dst = out.middleCols(c0, cw);
    gemmInto(dst, packed, w.middleCols(c0, cw));
    if (bias.size() > 0) dst.rowwise() += bias.segment(c0, cw).transpose();
  });
  return out;
}

namespace {

float geluErf(float v) { return 0.5f * v * (1.0f + std::erf(v * 0.7071067811865476f)); }

}  // namespace

void activateInPlace(RowMatrixXf& x, Activation act) {
  float* p = x.data();
  const Eigen::Index n = x.size();
  switch (act) {
    case Activation::GeluTanh: {
      // Eigen's packet tanh (AVX-512): scalar std::tanh over a GPT-2-small MLP, 128 x 3072 per
      // layer, was a large share of the whole forward.
      Eigen::Map<Eigen::ArrayXf> a(p, n);
      const float c = 0.7978845608028654f;  // sqrt(2 / pi)
      a = 0.5f * a * (1.0f + (c * (a + 0.044715f * a.cube())).tanh());
      break;
    }
    case Activation::GeluErf:
      for (Eigen::Index i = 0; i < n; ++i) p[i] = geluErf(p[i]);
      break;
    case Activation::Silu: {
      Eigen::Map<Eigen::ArrayXf> a(p, n);
      a = a / (1.0f + (-a).exp());  // packet exp, as for GeluTanh
      break;
    }
    case Activation::Relu:
      for (Eigen::Index i = 0; i < n; ++i) p[i] = p[i] > 0.0f ? p[i] : 0.0f;
      break;
  }
}

void swigluInPlace(RowMatrixXf& gate, const ConstMatrixRef& up) {
  activateInPlace(gate, Activation::Silu);
  gate.array() *= up.array();
}

void applyRope(RowMatrixXf& x, int heads, int dHead, float theta, RopeLayout layout,
               int first) {
  const int half = dHead / 2;
  // Angles in double: positions up to tens of thousands times small frequencies lose digits in
  // float, and the references (torch, llama.c) differ from each other below 1e-6 anyway.
  std::vector<double> invFreq(half);
  for (int i = 0; i < half; ++i) invFreq[i] = std::pow(double(theta), -2.0 * i / dHead);
  for (Eigen::Index t = 0; t < x.rows(); ++t) {
    float* row = x.data() + t * x.cols();
    for (int i = 0; i < half; ++i) {
      const double angle = double(first + t) * invFreq[i];
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
