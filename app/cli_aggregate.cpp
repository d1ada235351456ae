#include "app/cli_aggregate.h"

#include <algorithm>

#include "core/analysis/rollout.h"
#include "core/common/error.h"

namespace headmap::cli {

ArgSpec& addAggregateOption(ArgSpec& spec) {
  return spec.option("--aggregate", "mean|rollout",
                     "write a head aggregate of the softmax weights instead of every head:\n"
                     "mean: each layer's mean over heads, shape (layers, 1, q, k);\n"
                     "rollout: attention rollout (Abnar & Zuidema 2020) through all layers,\n"
                     "or layers 0..L with --layer L, shape (1, 1, q, k)");
}

Aggregate aggregateFrom(const Args& args, bool softmaxStage) {
  if (!args.has("--aggregate")) return Aggregate::None;
  const std::string text = args.get("--aggregate");
  Aggregate aggregate;
  if (text == "mean") {
    aggregate = Aggregate::Mean;
  } else if (text == "rollout") {
    aggregate = Aggregate::Rollout;
  } else {
    throw UsageError("--aggregate '" + text + "' is not one of mean, rollout");
  }
  if (!softmaxStage) {
    throw UsageError("--aggregate " + text + " averages the softmax weights; drop --stage " +
                     args.get("--stage") + " (aggregates need --stage softmax)");
  }
  return aggregate;
}

std::vector<int> aggregateLayers(Aggregate aggregate, const std::vector<int>& recorded) {
  if (aggregate != Aggregate::Rollout || recorded.size() != 1) return recorded;
  std::vector<int> upTo;
  for (int l = 0; l <= recorded.front(); ++l) upTo.push_back(l);
  return upTo;
}

std::vector<float> aggregateMaps(const ModelRun& run, Aggregate aggregate,
                                 std::vector<int64_t>& shape) {
  if (run.layers.empty()) throw Error("the model recorded no attention layer");
  if (aggregate == Aggregate::Rollout) {
    const RowMatrixXf r = attentionRollout(run);  // (q, k)
    shape = {1, 1, r.rows(), r.cols()};
    return std::vector<float>(r.data(), r.data() + r.size());
  }
  std::vector<float> values;
  int64_t q = 0, k = 0;
  for (const LayerAttention& layer : run.layers) {
    const RowMatrixXf m = meanOverHeads(layer.result.weights);  // (q, k)
    if (values.empty()) {
      q = m.rows();
      k = m.cols();
    } else if (m.rows() != q || m.cols() != k) {
      throw Error("layer " + std::to_string(layer.layer) + " maps are (" +
                  std::to_string(m.rows()) + ", " + std::to_string(m.cols()) +
                  "), unlike the first layer's (" + std::to_string(q) + ", " + std::to_string(k) +
                  ")");
    }
    values.insert(values.end(), m.data(), m.data() + m.size());
  }
  shape = {static_cast<int64_t>(run.layers.size()), 1, q, k};
  return values;
}

std::vector<float> runAggregate(const Model& model, const ModelInput& input, RunOptions options,
                                Aggregate aggregate, std::vector<int64_t>& shape,
                                std::vector<NonFiniteLayer>& nonFinite) {
  const std::vector<int> recorded = options.layers;  // empty = every layer
  RolloutStream rollout;
  std::vector<float> means;  // (layers, q, k) for mean
  RowMatrixXf sum;           // (q, k) of the current layer
  int sumLayer = -1, heads = 0, layers = 0;
  auto closeMean = [&] {
    if (heads == 0) return;
    sum /= static_cast<float>(heads);
    means.insert(means.end(), sum.data(), sum.data() + sum.size());
    ++layers;
    heads = 0;
  };
  options.keepHeads = std::vector<int>{};
  options.logits = false;
  options.onHead = [&](const HeadWeights& w) {
    if (!recorded.empty() &&
        std::find(recorded.begin(), recorded.end(), w.layer) == recorded.end()) {
      return;
    }
    const int64_t bad = countNonFinite(w.weights, static_cast<size_t>(w.q) * w.k);
    if (bad > 0) {
      if (nonFinite.empty() || nonFinite.back().layer != w.layer)
        nonFinite.push_back({w.layer, {}, 0});
      nonFinite.back().heads.push_back(w.head);
      nonFinite.back().values += bad;
    }
    if (aggregate == Aggregate::Rollout) {
      rollout.add(w);
      return;
    }
    if (w.layer != sumLayer) {
      closeMean();
      sum.setZero(w.q, w.k);
      sumLayer = w.layer;
    }
    sum += w.map();
    ++heads;
  };
  model.run(input, options);
  if (aggregate == Aggregate::Rollout) {
    const RowMatrixXf r = rollout.finish();  // (q, k)
    shape = {1, 1, r.rows(), r.cols()};
    return std::vector<float>(r.data(), r.data() + r.size());
  }
  closeMean();
  if (layers == 0) throw Error("the model recorded no attention layer");
  shape = {layers, 1, sum.rows(), sum.cols()};
  return means;
}

}  // namespace headmap::cli
