// headmap-cli stats MODEL ...: one row of head statistics per (layer, head) for the given input,
// as CSV (with a header) or JSON, to --out (written atomically) or stdout.
#include <iostream>
#include <limits>
#include <optional>

#include "app/cli_commands.h"
#include "app/cli_common.h"
#include "core/analysis/head_stats.h"
#include "core/analysis/stats_table.h"
#include "core/common/atomic_file.h"
#include "core/common/error.h"
#include "core/model/run_checks.h"

namespace headmap::cli {

namespace {

ArgSpec statsSpec() {
  ArgSpec spec("stats",
               "Per-head statistics of MODEL's attention on the given tokens, one row per\n"
               "(layer, head): entropy, mean distance, first-token mass, previous-token,\n"
               "diagonal and induction scores.");
  spec.positional("MODEL", "weight file (.safetensors, torch.save), model folder or llama2.c .bin");
  addInputOptions(spec);
  addModelOptions(spec);
  addMaskOptions(spec);
  spec.option("--out", "FILE.csv|FILE.json",
              "where to write the table; the extension picks the format (default: stdout)")
      .option("--format", "csv|json", "format on stdout (default csv); must agree with --out")
      .note(
          "Columns: layer, head, entropy (mean row entropy, nats), mean_distance (mean over\n"
          "queries of sum_k w*|q-k|), first_token_mass (mean w[q,0]), previous_token (mean\n"
          "w[q,q-1]), diagonal (mean w[q,q]), induction (mean weight on the token after the\n"
          "most recent earlier occurrence of the query's token; empty/null when no token\n"
          "repeats). Padding (--pad) and fully masked rows are left out of every mean; a value\n"
          "no query qualifies for is an empty CSV field or JSON null. See\n"
          "core/analysis/head_stats.h for the exact rules.")
      .note("--out is written through a temporary file renamed into place.");
  return spec;
}

StatsFormat formatFrom(const Args& args) {
  std::optional<StatsFormat> byFlag;
  if (args.has("--format")) {
    const std::string f = args.get("--format");
    if (f == "csv") {
      byFlag = StatsFormat::Csv;
    } else if (f == "json") {
      byFlag = StatsFormat::Json;
    } else {
      throw UsageError("--format '" + f + "' is not one of csv, json");
    }
  }
  if (!args.has("--out")) return byFlag.value_or(StatsFormat::Csv);
  const std::string out = args.get("--out");
  if (out.empty()) throw UsageError("--out is empty");
  StatsFormat byPath;
  try {
    byPath = statsFormatForPath(out);
  } catch (const Error& e) {
    throw UsageError(e.what());
  }
  if (byFlag && *byFlag != byPath) {
    throw UsageError("--format " + args.get("--format") + " contradicts --out " + out);
  }
  return byPath;
}

int runStats(const Args& args) {
  const StatsFormat format = formatFrom(args);
  args.getIntList("--ids", 0, std::numeric_limits<int>::max());  // cheap checks before loading
  LoadedModel loaded = loadModel(args.positional(0), loadOptionsFrom(args));
  ModelInput input = modelInputFrom(args, loaded);
  const int n = input.embeddings ? static_cast<int>(input.embeddings->rows())
                                 : static_cast<int>(input.tokens.size());
  RunOptions runOptions;
  runOptions.attention = attentionOptionsFrom(args, n);
  runOptions.layers = recordedLayersFrom(args, loaded.model->info());

  // A bare layer's words are identified by their text (its ids are positions); see idsFromPieces.
  std::vector<int> ids;
  if (loaded.tokenizer->kind() == "whitespace" && args.has("--text")) {
    ids = idsFromPieces(input.tokens);
  } else {
    for (const Token& t : input.tokens) ids.push_back(t.id);
  }

  // Streamed (core/analysis/head_stats.h): each head is read as it is computed and no map is
  // kept, so long inputs need one layer's scratch, not layers × heads × n² floats.
  const ModelInfo info = loaded.model->info();
  checkTokenCount(info, n);
  checkAttentionMemory(info, 1, n, false);
  HeadStatsStream stream(ids);
  std::vector<NonFiniteLayer> bad;
  const std::vector<int> wanted = runOptions.layers;  // empty = every layer
  runOptions.keepHeads = std::vector<int>{};
  runOptions.logits = false;  // (n, vocab) floats the table does not need
  runOptions.onHead = [&](const HeadWeights& w) {
    if (!wanted.empty() && w.layer != wanted.front()) return;
    stream.add(w);
    const int64_t count = countNonFinite(w.weights, static_cast<size_t>(w.q) * w.k);
    if (count == 0) return;
    if (bad.empty() || bad.back().layer != w.layer) bad.push_back({w.layer, {}, 0});
    bad.back().heads.push_back(w.head);
    bad.back().values += count;
  };
  loaded.model->run(input, runOptions);
  if (!bad.empty()) {
    std::cerr << "headmap-cli: warning: attention weights hold NaN or Inf (the model's weights or "
                 "inputs are not finite): "
              << describeNonFinite(bad) << "\n";
  }
  const std::vector<HeadStats>& stats = stream.stats();

  const std::string modelName = loaded.model->info().name;
  auto write = [&](std::ostream& out) {
    if (format == StatsFormat::Json) {
      writeStatsJson(out, stats, input.tokens, modelName);
    } else {
      writeStatsCsv(out, stats);
    }
  };
  if (args.has("--out")) {
    writeFileAtomic(args.get("--out"), write);
  } else {
    write(std::cout);
    std::cout.flush();
  }
  return 0;
}

const bool kRegistered = registerCommand({"stats", statsSpec, runStats});

}  // namespace

}  // namespace headmap::cli
