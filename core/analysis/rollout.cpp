#include "core/analysis/rollout.h"

#include <algorithm>
#include <string>

#include "core/common/error.h"

namespace headmap {
namespace {

std::string shape3(const HeadMaps& w) {
  return "(" + std::to_string(w.heads) + ", " + std::to_string(w.q) + ", " + std::to_string(w.k) +
         ")";
}

}  // namespace

RowMatrixXf meanOverHeads(const HeadMaps& weights) {
  if (weights.heads <= 0) throw Error("mean over heads: the attention weights hold no heads");
  const size_t cells = static_cast<size_t>(weights.q) * weights.k;
  if (weights.values.size() != cells * weights.heads) {
    throw Error("mean over heads: weights (heads, q, k) = " + shape3(weights) + " need " +
                std::to_string(cells * weights.heads) + " values, got " +
                std::to_string(weights.values.size()));
  }
  // Accumulate in double: 12+ heads of float maps, and the result is compared to 1e-6.
  Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor> sum =
      weights.head(0).cast<double>();
  for (int h = 1; h < weights.heads; ++h) sum += weights.head(h).cast<double>();
  return (sum / weights.heads).cast<float>();
}

RowMatrixXf addResidual(const Eigen::Ref<const RowMatrixXf>& a) {
  if (a.rows() != a.cols()) {
    throw Error("attention rollout: needs a square map (q == k), got (" + std::to_string(a.rows()) +
                ", " + std::to_string(a.cols()) + ")");
  }
  RowMatrixXf out = a;
  out.diagonal().array() += 1.0f;
  // Rows of a are non-negative, so every row sum is ≥ 1: no division by zero.
  Eigen::VectorXf sums = out.rowwise().sum();
  out.array().colwise() /= sums.array();
  return out;
}

RowMatrixXf residualAttention(const AttentionResult& result) {
  const HeadMaps& w = result.weights;
  RowMatrixXf a = meanOverHeads(w);
  for (size_t q = 0; q < result.fullyMasked.size() && q < static_cast<size_t>(a.rows()); ++q) {
    if (result.fullyMasked[q]) a.row(q).setZero();
  }
  return addResidual(a);
}

RowMatrixXf rolloutStep(const Eigen::Ref<const RowMatrixXf>& rollout,
                        const AttentionResult& result) {
  const HeadMaps& w = result.weights;
  if (w.q != w.k || rollout.rows() != w.q || rollout.cols() != w.k) {
    throw Error("attention rollout: layer weights " + shape3(w) +
                " do not match the rollout so far (" + std::to_string(rollout.rows()) + ", " +
                std::to_string(rollout.cols()) + "); maps must be square and keep their size");
  }
  return residualAttention(result) * rollout;
}

RowMatrixXf attentionRollout(const ModelRun& run) {
  if (run.layers.empty()) throw Error("attention rollout: the run recorded no layers");
  for (size_t i = 1; i < run.layers.size(); ++i) {
    if (run.layers[i].layer != run.layers[i - 1].layer + 1) {
      throw Error("attention rollout: needs consecutive layers, the run has layer " +
                  std::to_string(run.layers[i - 1].layer) + " followed by layer " +
                  std::to_string(run.layers[i].layer));
    }
  }
  // R_1 = Â_1 directly: starting from the identity would cost one needless n³ product.
  RowMatrixXf rollout = residualAttention(run.layers.front().result);
  for (size_t i = 1; i < run.layers.size(); ++i) {
    rollout = rolloutStep(rollout, run.layers[i].result);
  }
  return rollout;
}

void RolloutStream::add(const HeadWeights& head) {
  if (head.q != head.k || (m_n > 0 && head.q != m_n)) {
    throw Error("attention rollout: layer " + std::to_string(head.layer) + " map (" +
                std::to_string(head.q) + ", " + std::to_string(head.k) +
                ") is not square or does not match the earlier layers' " + std::to_string(m_n));
  }
  if (head.layer != m_layer) {
    if (m_layer >= 0) closeLayer();
    if (m_layers > 0 && head.layer != m_layer + 1) {
      throw Error("attention rollout: needs consecutive layers, got layer " +
                  std::to_string(m_layer) + " followed by layer " + std::to_string(head.layer));
    }
    m_layer = head.layer;
    m_n = head.q;
    m_sum.setZero(m_n, m_n);
    m_heads = 0;
    m_fullyMasked = head.fullyMasked ? *head.fullyMasked : std::vector<uint8_t>{};
  }
  m_sum += head.map();
  ++m_heads;
}

void RolloutStream::closeLayer() {
  // Â = rownorm(mean + I) with fully masked rows zeroed first: residualAttention, in place.
  m_sum /= static_cast<float>(m_heads);
  for (size_t q = 0; q < m_fullyMasked.size() && q < static_cast<size_t>(m_n); ++q) {
    if (m_fullyMasked[q]) m_sum.row(q).setZero();
  }
  m_sum.diagonal().array() += 1.0f;
  const Eigen::VectorXf sums = m_sum.rowwise().sum();
  m_sum.array().colwise() /= sums.array();
  bool lower = true;
  for (int q = 0; q < m_n && lower; ++q) {
    lower = (m_sum.row(q).tail(m_n - q - 1).array() == 0.0f).all();
  }
  if (m_layers == 0) {
    m_rollout.swap(m_sum);  // R_1 = Â_1
  } else {
    // R ← Â · R, row block by row block into Â's own rows (each block of Â is read only for
    // its own rows of the product), then swap: no third n × n matrix.
    const bool triangular = lower && m_lower;
    constexpr int kBlock = 64;
    RowMatrixXf block;
    for (int r0 = 0; r0 < m_n; r0 += kBlock) {
      const int rows = std::min(kBlock, m_n - r0);
      // Lower triangular Â and R: row q of the product only reaches columns ≤ q.
      const int width = triangular ? r0 + rows : m_n;
      block.noalias() = m_sum.block(r0, 0, rows, width) * m_rollout.topLeftCorner(width, width);
      m_sum.block(r0, 0, rows, width) = block;
      if (width < m_n) m_sum.block(r0, width, rows, m_n - width).setZero();
    }
    m_rollout.swap(m_sum);
  }
  m_lower = m_lower && lower;
  ++m_layers;
  m_heads = 0;
}

RowMatrixXf RolloutStream::finish() {
  if (m_layer >= 0 && m_heads > 0) closeLayer();
  if (m_layers == 0) throw Error("attention rollout: no layer was added");
  m_sum.resize(0, 0);
  return std::move(m_rollout);
}

}  // namespace headmap
