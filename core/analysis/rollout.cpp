#include "core/analysis/rollout.h"

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

}  // namespace headmap
