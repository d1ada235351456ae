// headmap-cli compare MODEL ...: the attention of two runs that differ in their input (--text-b,
// --ids-b, --input-b) or in their model (--model-b, same layers × heads), head by head: a table of
// max and mean |A − B| per (layer, head), and optionally A − B itself as a .npy of shape
// (layers, heads, q, k). The desktop app shows the same difference as a heatmap.
#include <cmath>
#include <iomanip>
#include <iostream>
#include <limits>
#include <nlohmann/json.hpp>
#include <optional>

#include "app/cli_commands.h"
#include "app/cli_common.h"
#include "core/common/atomic_file.h"
#include "core/common/error.h"
#include "core/io/npy.h"

namespace headmap::cli {

namespace {

ArgSpec compareSpec() {
  ArgSpec spec("compare",
               "Compare the attention of two inputs, or of two models of the same shape, head\n"
               "by head: max and mean |A - B| per (layer, head), and A - B as a .npy.");
  spec.positional("MODEL", "model A: weight file, model folder or llama2.c .bin");
  addInputOptions(spec);
  addModelOptions(spec);
  addMaskOptions(spec);
  spec.option("--model-b", "MODEL_B", "model B (default: MODEL); same layers and heads as A")
      .option("--text-b", "TEXT", "B's text (default: A's input)")
      .option("--ids-b", "I,J,...", "B's token ids")
      .option("--input-b", "X.npy", "B's input vectors (bare layer)")
      .option("--out", "DIFF.npy", "also write A - B, float32 (layers, heads, q, k)")
      .option("--format", "csv|json", "the table on stdout (default csv)")
      .note(
          "At least one of --model-b, --text-b, --ids-b, --input-b must be given. Both runs use\n"
          "the same masks (--causal, --pad, --no-scale) and layer choice (--layer, --heads).\n"
          "The difference needs the same number of tokens on both sides. Cells masked on\n"
          "either side are left out of mean_abs_diff; the JSON lists the positions whose\n"
          "tokens differ.")
      .note("CSV columns: layer, head, max_abs_diff, mean_abs_diff, max_q, max_k.");
  return spec;
}

// B's input options spelled as A's, so modelInputFrom reads them with A's rules.
Args inputArgsForB(const Args& args) {
  std::vector<std::string> argv;
  const std::pair<const char*, const char*> renames[] = {
      {"--text-b", "--text"}, {"--ids-b", "--ids"}, {"--input-b", "--input"}};
  bool any = false;
  for (const auto& [from, to] : renames) {
    if (!args.has(from)) continue;
    argv.insert(argv.end(), {to, args.get(from)});
    any = true;
  }
  if (!any) {  // B reads A's input
    for (const char* name : {"--text", "--ids", "--input"})
      if (args.has(name)) argv.insert(argv.end(), {name, args.get(name)});
  }
  ArgSpec spec("compare", "");
  addInputOptions(spec);
  return spec.parse(argv);
}

struct Side {
  LoadedModel loaded;
  ModelInput input;
  ModelRun run;
  int n = 0;
};

Side runSide(const std::string& modelPath, const Args& args, const Args& inputArgs,
             const std::optional<LoadedModel>& reuse) {
  Side side;
  side.loaded = reuse ? *reuse : loadModel(modelPath, loadOptionsFrom(args));
  side.input = modelInputFrom(inputArgs, side.loaded);
  side.n = side.input.embeddings ? static_cast<int>(side.input.embeddings->rows())
                                 : static_cast<int>(side.input.tokens.size());
  RunOptions options;
  options.attention = attentionOptionsFrom(args, side.n);
  options.layers = recordedLayersFrom(args, side.loaded.model->info());
  options.logits = false;
  checkRunInput(side.loaded, side.input, options);
  side.run = side.loaded.model->run(side.input, options);
  warnNonFinite(side.run);
  return side;
}

void checkComparable(const Side& a, const Side& b, const std::string& pathA,
                     const std::string& pathB) {
  const ModelInfo ia = a.loaded.model->info(), ib = b.loaded.model->info();
  if (ia.layers != ib.layers || ia.heads != ib.heads) {
    throw Error(pathB + ": model B has " + std::to_string(ib.layers) + " layers × " +
                std::to_string(ib.heads) + " heads, model A (" + pathA + ") has " +
                std::to_string(ia.layers) + " × " + std::to_string(ia.heads) +
                ": compare needs models of the same shape");
  }
  if (a.n != b.n) {
    throw Error("A has " + std::to_string(a.n) + " tokens, B has " + std::to_string(b.n) +
                ": the difference needs inputs of equal length");
  }
}

struct HeadDiff {
  int layer = 0, head = 0;
  double maxAbs = 0, meanAbs = 0;
  int maxQ = 0, maxK = 0;
};

// diff: (layers, heads, q, k) A − B, appended layer by layer; one HeadDiff per (layer, head).
std::vector<HeadDiff> difference(const ModelRun& a, const ModelRun& b, std::vector<float>& diff) {
  std::vector<HeadDiff> heads;
  for (size_t l = 0; l < a.layers.size(); ++l) {
    const AttentionResult& ra = a.layers[l].result;
    const AttentionResult& rb = b.layers[l].result;
    const HeadMaps& wa = ra.weights;
    const HeadMaps& wb = rb.weights;
    const size_t cells = static_cast<size_t>(wa.q) * wa.k;
    for (int h = 0; h < wa.heads; ++h) {
      HeadDiff d{a.layers[l].layer, h};
      size_t counted = 0;
      for (size_t c = 0; c < cells; ++c) {
        const float v = wa.values[h * cells + c] - wb.values[h * cells + c];
        diff.push_back(v);
        const bool masked =
            (!ra.keyMask.empty() && ra.keyMask[c]) || (!rb.keyMask.empty() && rb.keyMask[c]);
        if (masked) continue;
        const double m = std::fabs(double(v));
        d.meanAbs += m;
        ++counted;
        if (m > d.maxAbs || std::isnan(m)) {
          d.maxAbs = m;
          d.maxQ = static_cast<int>(c / wa.k);
          d.maxK = static_cast<int>(c % wa.k);
        }
      }
      d.meanAbs = counted ? d.meanAbs / counted : 0.0;
      heads.push_back(d);
    }
  }
  return heads;
}

void writeTable(std::ostream& out, const std::vector<HeadDiff>& heads) {
  out << "layer,head,max_abs_diff,mean_abs_diff,max_q,max_k\n" << std::setprecision(9);
  for (const HeadDiff& d : heads)
    out << d.layer << ',' << d.head << ',' << d.maxAbs << ',' << d.meanAbs << ',' << d.maxQ << ','
        << d.maxK << '\n';
}

nlohmann::ordered_json sideJson(const Side& s, const std::string& path) {
  nlohmann::ordered_json j;
  j["model"] = path;
  j["name"] = s.loaded.model->info().name;
  j["tokens"] = nlohmann::json::array();
  for (const Token& t : s.input.tokens) j["tokens"].push_back(t.display);
  return j;
}

void writeJson(std::ostream& out, const std::vector<HeadDiff>& heads, const Side& a, const Side& b,
               const std::string& pathA, const std::string& pathB) {
  nlohmann::ordered_json j;
  j["a"] = sideJson(a, pathA);
  j["b"] = sideJson(b, pathB);
  j["differing_positions"] = nlohmann::json::array();
  for (size_t i = 0; i < a.input.tokens.size() && i < b.input.tokens.size(); ++i)
    if (a.input.tokens[i].id != b.input.tokens[i].id ||
        a.input.tokens[i].piece != b.input.tokens[i].piece)
      j["differing_positions"].push_back(i);
  double overall = 0;
  j["heads"] = nlohmann::json::array();
  for (const HeadDiff& d : heads) {
    overall = std::max(overall, d.maxAbs);
    j["heads"].push_back({{"layer", d.layer},
                          {"head", d.head},
                          {"max_abs_diff", d.maxAbs},
                          {"mean_abs_diff", d.meanAbs},
                          {"max_at", {d.maxQ, d.maxK}}});
  }
  j["max_abs_diff"] = overall;
  out << j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
}

int runCompare(const Args& args) {
  const std::string format = args.get("--format", "csv");
  if (format != "csv" && format != "json")
    throw UsageError("--format '" + format + "' is not one of csv, json");
  const bool otherInput = args.has("--text-b") || args.has("--ids-b") || args.has("--input-b");
  if (!args.has("--model-b") && !otherInput)
    throw UsageError("nothing to compare: give --model-b, --text-b, --ids-b or --input-b");
  if (args.has("--out") && args.get("--out").empty()) throw UsageError("--out is empty");
  const Args inputB = inputArgsForB(args);

  const std::string pathA = args.positional(0);
  const std::string pathB = args.get("--model-b", pathA);
  Side a = runSide(pathA, args, args, std::nullopt);
  std::optional<LoadedModel> reuse;
  if (!args.has("--model-b")) reuse = a.loaded;
  Side b = runSide(pathB, args, inputB, reuse);
  checkComparable(a, b, pathA, pathB);

  std::vector<float> diff;
  const std::vector<HeadDiff> heads = difference(a.run, b.run, diff);
  if (args.has("--out")) {
    const HeadMaps& first = a.run.layers.front().result.weights;
    writeNpy(args.get("--out"),
             {static_cast<int64_t>(a.run.layers.size()), first.heads, first.q, first.k},
             diff.data());
  }
  if (format == "json")
    writeJson(std::cout, heads, a, b, pathA, pathB);
  else
    writeTable(std::cout, heads);
  std::cout.flush();
  return 0;
}

const bool kRegistered = registerCommand({"compare", compareSpec, runCompare});

}  // namespace

}  // namespace headmap::cli
