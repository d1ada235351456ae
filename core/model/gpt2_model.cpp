#include "core/model/gpt2_model.h"

#include "core/model/config.h"
#include "core/model/forward_common.h"
#include "core/model/layers.h"
#include "core/model/prefix_cache.h"
#include "core/model/tensor_fetch.h"

namespace headmap {

namespace {

// Conv1D weights are (in, out): y = x W + b, no transpose and no copy.
struct Gpt2Block {
  FloatTensor ln1Gain, ln1Bias;
  FloatTensor attnW, attnB;  // (d, 3d), (3d): columns [q | k | v]
  FloatTensor projW, projB;  // (d, d), (d)
  FloatTensor ln2Gain, ln2Bias;
  FloatTensor fcW, fcB;    // (d, ff), (ff)
  FloatTensor outW, outB;  // (ff, d), (d)
};

class Gpt2Model : public Model {
 public:
  Gpt2Model(ModelInfo info, float eps, Activation act, FloatTensor wte, FloatTensor wpe,
            std::vector<Gpt2Block> blocks, FloatTensor lnfGain, FloatTensor lnfBias)
      : m_info(std::move(info)),
        m_eps(eps),
        m_act(act),
        m_wte(std::move(wte)),
        m_wpe(std::move(wpe)),
        m_blocks(std::move(blocks)),
        m_lnfGain(std::move(lnfGain)),
        m_lnfBias(std::move(lnfBias)) {}

  ModelInfo info() const override { return m_info; }

  ModelRun run(const ModelInput& input, const RunOptions& options) const override {
    const std::vector<int> ids = checkedTokenIds(input, m_info);
    const LayerPlan plan = planLayers(options, m_info);
    const auto n = static_cast<Eigen::Index>(ids.size());
    const Eigen::Index d = m_info.dModel;

    std::unique_lock<std::mutex> cacheLock;
    PrefixCache* cache = m_cache.start(cacheLock, ids, options, plan.lastLayer + 1, m_info.heads);
    // Rows p..n-1 are computed; rows 0..p-1 come from the cache (p = 0 without one).
    ModelRun run;
    const Eigen::Index p = cache ? cache->reusedRows() : 0;
    run.reusedTokens = static_cast<int>(p);
    const std::vector<int> newIds(ids.begin() + p, ids.end());
    // h: (n - p, d) = token embeddings + positions p..n-1
    RowMatrixXf h = gatherRows(m_wte.matrix(), newIds) + m_wpe.matrix().middleRows(p, n - p);
    for (int l = 0; l <= plan.lastLayer; ++l) {
      const Gpt2Block& b = m_blocks[l];
      const RowMatrixXf x = layerNorm(h, b.ln1Gain.vector(), b.ln1Bias.vector(), m_eps);
      // qkv: (n - p, 3d); q, k, v are column views of it
      const RowMatrixXf qkv = conv1d(x, b.attnW.matrix(), b.attnB.vector());
      AttentionResult att =
          attendRows(cache, l, qkv.middleCols(0, d), qkv.middleCols(d, d), qkv.middleCols(2 * d, d),
                     m_info.heads, m_info.heads, layerAttentionOptions(options, m_info, plan, l));
      h += conv1d(att.context.bottomRows(n - p), b.projW.matrix(), b.projB.vector());
      const RowMatrixXf y = layerNorm(h, b.ln2Gain.vector(), b.ln2Bias.vector(), m_eps);
      RowMatrixXf f = conv1d(y, b.fcW.matrix(), b.fcB.vector());
      activateInPlace(f, m_act);
      h += conv1d(f, b.outW.matrix(), b.outB.vector());
      if (plan.record[l]) run.layers.push_back({l, std::move(att)});
    }
    if (cache) cache->commit();
    if (options.logits && plan.fullStack()) {
      // Never with a cache (PrefixCache::begin): h holds every row here.
      const RowMatrixXf out = layerNorm(h, m_lnfGain.vector(), m_lnfBias.vector(), m_eps);
      const RowMatrixXf logits = linear(out, m_wte.matrix());  // (n, vocab), tied to wte
      run.logits.assign(logits.data(), logits.data() + logits.size());
    }
    return run;
  }

 private:
  ModelInfo m_info;
  float m_eps;
  Activation m_act;
  FloatTensor m_wte, m_wpe;  // (vocab, d), (positions, d)
  std::vector<Gpt2Block> m_blocks;
  FloatTensor m_lnfGain, m_lnfBias;
  mutable PrefixCache m_cache;  // RunOptions::reusePrefix; guarded by its lock()
};

}  // namespace

std::shared_ptr<Model> buildGpt2Model(const ModelConfig& c, const TensorFetcher& t,
                                      const std::string& name) {
  const int64_t d = c.dModel, ff = c.dFf;
  FloatTensor wte = t.get("wte.weight", {c.vocab, d});
  FloatTensor wpe = t.get("wpe.weight", {c.maxPositions, d});
  std::vector<Gpt2Block> blocks;
  for (int l = 0; l < c.layers; ++l) {
    const std::string p = "h." + std::to_string(l) + ".";
    Gpt2Block b;
    b.ln1Gain = t.get(p + "ln_1.weight", {d});
    b.ln1Bias = t.get(p + "ln_1.bias", {d});
    b.attnW = t.get(p + "attn.c_attn.weight", {d, 3 * d});
    b.attnB = t.get(p + "attn.c_attn.bias", {3 * d});
    b.projW = t.get(p + "attn.c_proj.weight", {d, d});
    b.projB = t.get(p + "attn.c_proj.bias", {d});
    b.ln2Gain = t.get(p + "ln_2.weight", {d});
    b.ln2Bias = t.get(p + "ln_2.bias", {d});
    b.fcW = t.get(p + "mlp.c_fc.weight", {d, ff});
    b.fcB = t.get(p + "mlp.c_fc.bias", {ff});
    b.outW = t.get(p + "mlp.c_proj.weight", {ff, d});
    b.outB = t.get(p + "mlp.c_proj.bias", {d});
    blocks.push_back(std::move(b));
  }
  FloatTensor lnfGain = t.get("ln_f.weight", {d});
  FloatTensor lnfBias = t.get("ln_f.bias", {d});

  return std::make_shared<Gpt2Model>(modelInfo(c, name), c.eps, c.act, std::move(wte),
                                     std::move(wpe), std::move(blocks), std::move(lnfGain),
                                     std::move(lnfBias));
}

}  // namespace headmap
