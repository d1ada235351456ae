#pragma once
// `headmap-cli dump --aggregate mean|rollout`: head aggregates instead of per-head maps.
//   mean    -> (layers, 1, q, k): each recorded layer's mean over heads (layers = 1 for a bare
//              layer or with --layer L on a full model);
//   rollout -> (1, 1, q, k): attention rollout (core/analysis/rollout.h) through every layer of
//              the model, or through layers 0..L with --layer L.
#include <cstdint>
#include <string>
#include <vector>

#include "app/cli_args.h"
#include "core/model/model.h"
#include "core/model/run_checks.h"

namespace headmap::cli {

enum class Aggregate { None, Mean, Rollout };

// Declares --aggregate on dump's spec.
ArgSpec& addAggregateOption(ArgSpec& spec);

// --aggregate: absent -> None, "mean", "rollout"; anything else, or an aggregate of a stage
// other than the softmax weights (softmaxStage false), is a UsageError.
Aggregate aggregateFrom(const Args& args, bool softmaxStage);

// The layers to record: rollout with one selected layer L needs 0..L; otherwise unchanged.
std::vector<int> aggregateLayers(Aggregate aggregate, const std::vector<int>& recorded);

// The aggregate maps, float32 C order, and their shape (see above).
std::vector<float> aggregateMaps(const ModelRun& run, Aggregate aggregate,
                                 std::vector<int64_t>& shape);

// The same, computed while the model runs (RunOptions::onHead) with no map kept: memory is two
// (q, k) matrices instead of layers × heads × q × k floats. options.layers as aggregateLayers
// gives them. Heads whose maps hold NaN or Inf are reported in `nonFinite`.
std::vector<float> runAggregate(const Model& model, const ModelInput& input, RunOptions options,
                                Aggregate aggregate, std::vector<int64_t>& shape,
                                std::vector<NonFiniteLayer>& nonFinite);

}  // namespace headmap::cli
