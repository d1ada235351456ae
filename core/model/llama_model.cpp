#include "core/model/llama_model.h"

#include "core/common/error.h"
#include "core/model/config.h"
#include "core/model/forward_common.h"
#include "core/model/tensor_fetch.h"

namespace headmap {

LlamaModel::LlamaModel(LlamaSettings settings, LlamaWeights weights)
    : m_settings(std::move(settings)), m_weights(std::move(weights)) {
  m_settings.info.causalBuiltIn = true;
}

ModelRun LlamaModel::run(const ModelInput& input, const RunOptions& options) const {
  const ModelInfo& info = m_settings.info;
  const std::vector<int> ids = checkedTokenIds(input, info);
  const LayerPlan plan = planLayers(options, info);
  const float eps = m_settings.eps;
  const int dh = m_settings.dHead;

  std::unique_lock<std::mutex> cacheLock;
  PrefixCache* cache = m_cache.start(cacheLock, ids, options, plan.lastLayer + 1, info.heads);
  // Rows p..n-1 are computed; rows 0..p-1 come from the cache (p = 0 without one).
  ModelRun run;
  const int p = cache ? cache->reusedRows() : 0;
  run.reusedTokens = p;
  const std::vector<int> newIds(ids.begin() + p, ids.end());
  // h: (n - p, d) residual stream of the computed rows.
  RowMatrixXf h = gatherRows(m_weights.embed.matrix(), newIds);
  for (int l = 0; l <= plan.lastLayer; ++l) {
    const LlamaLayerWeights& w = m_weights.layers[l];
    const RowMatrixXf x = rmsNorm(h, w.attnNorm.vector(), eps);
    // q: (n - p, heads*dh); k, v: (n - p, kv*dh)
    RowMatrixXf q = linear(x, w.wq.matrix(), optionalVector(w.bq));
    RowMatrixXf k = linear(x, w.wk.matrix(), optionalVector(w.bk));
    const RowMatrixXf v = linear(x, w.wv.matrix(), optionalVector(w.bv));
    applyRope(q, info.heads, dh, m_settings.ropeTheta, m_settings.ropeLayout, p);
    applyRope(k, info.kvHeads, dh, m_settings.ropeTheta, m_settings.ropeLayout, p);
    AttentionResult att = attendRows(cache, l, q, k, v, info.heads, info.kvHeads,
                                     layerAttentionOptions(options, info, plan, l));
    h += linear(att.context.bottomRows(h.rows()), w.wo.matrix());
    // SwiGLU MLP: down(silu(gate x) ⊙ up x)
    const RowMatrixXf y = rmsNorm(h, w.ffnNorm.vector(), eps);
    RowMatrixXf g = linear(y, w.gate.matrix());
    swigluInPlace(g, linear(y, w.up.matrix()));
    h += linear(g, w.down.matrix());
    if (plan.record[l]) run.layers.push_back({l, std::move(att)});
  }
  if (cache) cache->commit();
  // Never with a cache (PrefixCache::begin): h holds every row here.
  if (options.logits && plan.fullStack() && present(m_weights.classifier)) {
    const RowMatrixXf out = rmsNorm(h, m_weights.finalNorm.vector(), eps);
    // logits: (n, vocab)
    const RowMatrixXf logits = linear(out, m_weights.classifier.matrix());
    run.logits.assign(logits.data(), logits.data() + logits.size());
  }
  return run;
}

std::shared_ptr<Model> buildLlamaModel(const ModelConfig& c, const TensorFetcher& t,
                                       const std::string& name) {
  const int64_t d = c.dModel, qd = int64_t(c.heads) * c.dHead, kvd = int64_t(c.kvHeads) * c.dHead;
  const int64_t ff = c.dFf, vocab = c.vocab;
  LlamaWeights w;
  w.embed = t.get("embed_tokens.weight", {vocab, d});
  for (int l = 0; l < c.layers; ++l) {
    const std::string p = "layers." + std::to_string(l) + ".";
    LlamaLayerWeights lw;
    lw.attnNorm = t.get(p + "input_layernorm.weight", {d});
    lw.wq = t.get(p + "self_attn.q_proj.weight", {qd, d});
    lw.wk = t.get(p + "self_attn.k_proj.weight", {kvd, d});
    lw.wv = t.get(p + "self_attn.v_proj.weight", {kvd, d});
    lw.wo = t.get(p + "self_attn.o_proj.weight", {d, qd});
    lw.bq = t.optional(p + "self_attn.q_proj.bias", {qd});
    lw.bk = t.optional(p + "self_attn.k_proj.bias", {kvd});
    lw.bv = t.optional(p + "self_attn.v_proj.bias", {kvd});
    lw.ffnNorm = t.get(p + "post_attention_layernorm.weight", {d});
    lw.gate = t.get(p + "mlp.gate_proj.weight", {ff, d});
    lw.up = t.get(p + "mlp.up_proj.weight", {ff, d});
    lw.down = t.get(p + "mlp.down_proj.weight", {d, ff});
    w.layers.push_back(std::move(lw));
  }
  w.finalNorm = t.get("norm.weight", {d});
  if (t.hasUnprefixed("lm_head.weight")) {
    w.classifier = t.getUnprefixed("lm_head.weight", {vocab, d});
  } else if (c.tieEmbeddings) {
    w.classifier = w.embed;
  }

  LlamaSettings s;
  s.info = modelInfo(c, name);
  s.dHead = c.dHead;
  s.dFf = c.dFf;
  s.eps = c.eps;
  s.ropeTheta = c.ropeTheta;
  s.ropeLayout = RopeLayout::RotateHalf;
  return std::make_shared<LlamaModel>(std::move(s), std::move(w));
}

}  // namespace headmap
