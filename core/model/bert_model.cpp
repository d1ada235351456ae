#include "core/model/bert_model.h"

#include "core/model/config.h"
#include "core/model/forward_common.h"
#include "core/model/layers.h"
#include "core/model/tensor_fetch.h"

namespace headmap {

namespace {

struct Norm {
  FloatTensor gain, bias;  // (d), (d)
};

// nn.Linear layout (out, in).
struct BertBlock {
  FloatTensor wq, bq, wk, bk, wv, bv;  // (d, d), (d)
  FloatTensor wo, bo;                  // attention.output.dense: (d, d), (d)
  Norm attnNorm;                       // attention.output.LayerNorm
  FloatTensor wi, bi;                  // intermediate.dense: (ff, d), (ff)
  FloatTensor wOut, bOut;              // output.dense: (d, ff), (d)
  Norm outNorm;                        // output.LayerNorm
};

struct BertWeights {
  FloatTensor word, position, tokenType;  // (vocab, d), (positions, d), (types, d)
  Norm embNorm;
  std::vector<BertBlock> blocks;
};

RowMatrixXf applyNorm(const ConstMatrixRef& x, const Norm& norm, float eps) {
  return layerNorm(x, norm.gain.vector(), norm.bias.vector(), eps);
}

class BertModel : public Model {
 public:
  BertModel(ModelInfo info, float eps, Activation act, BertWeights w)
      : m_info(std::move(info)), m_eps(eps), m_act(act), m_w(std::move(w)) {}

  ModelInfo info() const override { return m_info; }

  ModelRun run(const ModelInput& input, const RunOptions& options) const override {
    const std::vector<int> ids = checkedTokenIds(input, m_info);
    const LayerPlan plan = planLayers(options, m_info);
    const auto n = static_cast<Eigen::Index>(ids.size());

    ModelRun run;
    // h: (n, d). Every token is segment 0 (a single sentence).
    RowMatrixXf e = gatherRows(m_w.word.matrix(), ids) + m_w.position.matrix().topRows(n);
    e.rowwise() += m_w.tokenType.matrix().row(0);
    RowMatrixXf h = applyNorm(e, m_w.embNorm, m_eps);
    for (int l = 0; l <= plan.lastLayer; ++l) {
      const BertBlock& b = m_w.blocks[l];
      const RowMatrixXf q = linear(h, b.wq.matrix(), b.bq.vector());  // (n, d)
      const RowMatrixXf k = linear(h, b.wk.matrix(), b.bk.vector());
      const RowMatrixXf v = linear(h, b.wv.matrix(), b.bv.vector());
      AttentionResult att = attendProjected(q, k, v, m_info.heads, m_info.heads,
                                            layerAttentionOptions(options, m_info, plan, l));
      RowMatrixXf a = linear(att.context, b.wo.matrix(), b.bo.vector());
      a += h;
      h = applyNorm(a, b.attnNorm, m_eps);
      RowMatrixXf f = linear(h, b.wi.matrix(), b.bi.vector());  // (n, ff)
      activateInPlace(f, m_act);
      RowMatrixXf o = linear(f, b.wOut.matrix(), b.bOut.vector());
      o += h;
      h = applyNorm(o, b.outNorm, m_eps);
      if (plan.record[l]) run.layers.push_back({l, std::move(att)});
    }
    return run;
  }

 private:
  ModelInfo m_info;
  float m_eps;
  Activation m_act;
  BertWeights m_w;
};

Norm getNorm(const TensorFetcher& t, const std::string& prefix, int64_t d) {
  return {t.getAny({prefix + ".weight", prefix + ".gamma"}, {d}),
          t.getAny({prefix + ".bias", prefix + ".beta"}, {d})};
}

}  // namespace

std::shared_ptr<Model> buildBertModel(const ModelConfig& c, const TensorFetcher& t,
                                      const std::string& name) {
  const int64_t d = c.dModel, ff = c.dFf;
  BertWeights w;
  w.word = t.get("embeddings.word_embeddings.weight", {c.vocab, d});
  w.position = t.get("embeddings.position_embeddings.weight", {c.maxPositions, d});
  w.tokenType = t.get("embeddings.token_type_embeddings.weight", {c.typeVocab, d});
  w.embNorm = getNorm(t, "embeddings.LayerNorm", d);
  for (int l = 0; l < c.layers; ++l) {
    const std::string p = "encoder.layer." + std::to_string(l) + ".";
    BertBlock b;
    b.wq = t.get(p + "attention.self.query.weight", {d, d});
    b.bq = t.get(p + "attention.self.query.bias", {d});
    b.wk = t.get(p + "attention.self.key.weight", {d, d});
    b.bk = t.get(p + "attention.self.key.bias", {d});
    b.wv = t.get(p + "attention.self.value.weight", {d, d});
    b.bv = t.get(p + "attention.self.value.bias", {d});
    b.wo = t.get(p + "attention.output.dense.weight", {d, d});
    b.bo = t.get(p + "attention.output.dense.bias", {d});
    b.attnNorm = getNorm(t, p + "attention.output.LayerNorm", d);
    b.wi = t.get(p + "intermediate.dense.weight", {ff, d});
    b.bi = t.get(p + "intermediate.dense.bias", {ff});
    b.wOut = t.get(p + "output.dense.weight", {d, ff});
    b.bOut = t.get(p + "output.dense.bias", {d});
    b.outNorm = getNorm(t, p + "output.LayerNorm", d);
    w.blocks.push_back(std::move(b));
  }

  return std::make_shared<BertModel>(modelInfo(c, name), c.eps, c.act, std::move(w));
}

}  // namespace headmap
