#include "core/model/attention_model.h"

#include <algorithm>
#include <cmath>

#include "core/attention/embedding.h"
#include "core/common/error.h"

namespace headmap {

AttentionModel::AttentionModel(AttentionLayerWeights weights, std::string name)
    : m_weights(std::move(weights)), m_name(std::move(name)) {
  m_weights.validate(m_name);
}

ModelInfo AttentionModel::info() const {
  ModelInfo info;
  info.family = "attention";
  info.name = m_name;
  info.layers = 1;
  info.heads = m_weights.nHeads;
  info.kvHeads = m_weights.nHeads;
  info.dModel = m_weights.dModel;
  info.vocab = 0;
  info.maxPositions = 0;
  info.causalBuiltIn = false;
  return info;
}

namespace {

void checkFinite(const RowMatrixXf& x, const std::string& where) {
  for (Eigen::Index r = 0; r < x.rows(); ++r) {
    for (Eigen::Index c = 0; c < x.cols(); ++c) {
      if (!std::isfinite(x(r, c))) {
        throw Error(where + " holds " + (std::isnan(x(r, c)) ? "NaN" : "Inf") + " at row " +
                    std::to_string(r) + ", column " + std::to_string(c) +
                    "; inputs must be finite");
      }
    }
  }
}

}  // namespace

ModelRun AttentionModel::run(const ModelInput& input, const RunOptions& options) const {
  for (int layer : options.layers) {
    if (layer != 0) {
      throw Error(m_name + ": layer " + std::to_string(layer) +
                  " requested, a bare attention layer has only layer 0");
    }
  }
  RowMatrixXf x;
  if (input.embeddings) {
    const RowMatrixXf& e = *input.embeddings;
    if (e.cols() != m_weights.dModel) {
      throw Error("input embeddings have " + std::to_string(e.cols()) +
                  " columns, the layer's d_model is " + std::to_string(m_weights.dModel));
    }
    if (!input.tokens.empty() && static_cast<Eigen::Index>(input.tokens.size()) != e.rows()) {
      throw Error("input embeddings have " + std::to_string(e.rows()) + " rows but there are " +
                  std::to_string(input.tokens.size()) + " tokens");
    }
    x = e;
    checkFinite(x, "input embeddings");
  } else {
    std::vector<std::string> texts;
    texts.reserve(input.tokens.size());
    for (const Token& t : input.tokens) texts.push_back(t.piece);
    if (texts.empty()) throw Error("no tokens: the input is empty");
    x = tokenEmbeddings(texts, m_weights.dModel);
  }
  if (x.rows() == 0) throw Error("no tokens: the input is empty");

  // The only layer is always recorded: RunOptions::keepHeads / onHead apply to it.
  AttentionOptions attention = options.attention;
  attention.keepHeads = options.keepHeads;
  attention.onHead = options.onHead;
  const double n = static_cast<double>(x.rows());
  const double kept = options.keepHeads ? options.keepHeads->size() : m_weights.nHeads;
  // Kept maps, plus one head of scratch when some are dropped.
  const double maps = std::min<double>(m_weights.nHeads, kept + (kept < m_weights.nHeads));
  const double bytes = n * n * 4.0 * maps * (options.attention.keepStages ? 4 : 1);
  if (bytes > kMaxAttentionBytes) {
    throw Error(std::to_string(x.rows()) + " tokens × " + std::to_string(m_weights.nHeads) +
                " heads need " + std::to_string(static_cast<long long>(bytes / (1 << 20))) +
                " MiB of attention maps, above the limit of " +
                std::to_string(static_cast<long long>(kMaxAttentionBytes / (1 << 20))) + " MiB");
  }

  ModelRun run;
  LayerAttention layer;
  layer.layer = 0;
  layer.result = multiHeadAttention(x, m_weights, attention);
  run.layers.push_back(std::move(layer));
  return run;
}

}  // namespace headmap
