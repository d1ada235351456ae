#pragma once
// Pieces several headmap-cli commands share: the model-loading options and the token input
// options (--text/--ids/--input), so that stats, render, ... accept them exactly as dump does.
#include <string>
#include <vector>

#include "app/cli_args.h"
#include "core/model/load.h"

namespace headmap::cli {

// --heads, --layer, --tokenizer.
ArgSpec& addModelOptions(ArgSpec& spec);
LoadOptions loadOptionsFrom(const Args& args);

// --text, --ids, --input.
ArgSpec& addInputOptions(ArgSpec& spec);
// The tokens (and embeddings for --input) for the loaded model. Throws UsageError for missing or
// contradictory options, headmap::Error for unreadable inputs.
ModelInput modelInputFrom(const Args& args, const LoadedModel& loaded);

// --causal, --pad, --no-scale. n = number of tokens (pads are checked against it).
ArgSpec& addMaskOptions(ArgSpec& spec);
AttentionOptions attentionOptionsFrom(const Args& args, int n);

// For a full model, --layer L keeps layer L (checked against info.layers); a bare layer has the
// layer choice made at load time and records its only layer.
std::vector<int> recordedLayersFrom(const Args& args, const ModelInfo& info);

// Before Model::run: refuses (headmap::Error) no tokens, more tokens than the model supports, and
// attention maps that would not fit in memory. (NaN/Inf input vectors are refused by the model.)
void checkRunInput(const LoadedModel& loaded, const ModelInput& input, const RunOptions& options);
// After Model::run: a warning on stderr naming the layers and heads whose maps hold NaN or Inf.
void warnNonFinite(const ModelRun& run);

}  // namespace headmap::cli
