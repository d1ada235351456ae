// headmap-cli bench: times the forward pass so anyone can compare with a reference (PyTorch) on
// their own machine. Prints one JSON object: the configuration, best and median milliseconds over
// --repeat runs after one warm-up run, and the effective GFLOP/s.
//   layer (default): a random d_model x heads attention layer on random inputs, per-head weights
//                    returned, into one result reused across runs (as the app between keystrokes).
//   --model PATH:    the whole forward of that model on N tokens, every layer's heads recorded,
//                    no LM head (logits) — the work needed for the maps.
//   --gemm N:        an (N, N) x (N, N) float GEMM through headmap's gemm (gemm.h), split over the
//                    same thread pool as the attention: the practical peak for the efficiency
//                    figure. Eigen's GEMM on the same split is reported beside it (eigen_*).
#include <Eigen/Core>
#include <algorithm>
#include <chrono>
#include <iostream>
#include <nlohmann/json.hpp>
#include <vector>

#include "app/cli_commands.h"
#include "core/attention/attention.h"
#include "core/attention/embedding.h"
#include "core/attention/gemm.h"
#include "core/attention/parallel.h"
#include "core/model/load.h"

namespace headmap::cli {

namespace {

ArgSpec benchSpec() {
  ArgSpec spec("bench",
               "Time the attention forward pass; print one JSON object with the configuration\n"
               "and the best and median milliseconds over --repeat runs (after one warm-up).");
  spec.option("--d-model", "D", "model width of the random layer (default 768)")
      .option("--heads", "H", "heads of the random layer (default 12)")
      .option("--tokens", "N", "tokens per forward pass (default 128)")
      .option("--repeat", "R", "timed runs (default 10)")
      .option("--threads", "T", "compute threads (default: all cores)")
      .option("--model", "PATH",
              "time this model's full forward instead (all layers' heads recorded, no logits)")
      .option("--gemm", "S", "time an (S, S) x (S, S) float GEMM instead (GFLOP/s peak)")
      .note(
          "FLOP convention (multiply and add count 2): a layer is 4 projections 4*2*n*d^2 plus\n"
          "scores 2*n^2*d plus context 2*n^2*d; causal models count the same full n^2 terms;\n"
          "softmax, masks and layer norms are not counted. A model adds its MLP, 2*2*n*d*ff\n"
          "per layer (gpt2, bert) or 3*2*n*d*ff (llama family), with KV projections scaled by\n"
          "kv_heads/heads. gflops = flops / best time.")
      .note(
          "Output keys: mode, threads, tokens, repeat, best_ms, median_ms, flops, gflops, and\n"
          "d_model, heads (layer), model, family, layers, heads_recorded (model), size (gemm).");
  return spec;
}

using Clock = std::chrono::steady_clock;

// One warm-up call, then `repeat` timed calls. Returns the times in ms, sorted.
template <class Fn>
std::vector<double> timeRuns(int repeat, Fn&& fn) {
  fn();
  std::vector<double> ms;
  for (int i = 0; i < repeat; ++i) {
    const auto t0 = Clock::now();
    fn();
    ms.push_back(std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
  }
  std::sort(ms.begin(), ms.end());
  return ms;
}

double median(const std::vector<double>& sorted) {
  const size_t n = sorted.size();
  return n % 2 ? sorted[n / 2] : 0.5 * (sorted[n / 2 - 1] + sorted[n / 2]);
}

void addTimes(nlohmann::json& out, const std::vector<double>& ms, double flops) {
  out["best_ms"] = ms.front();
  out["median_ms"] = median(ms);
  out["times_ms"] = ms;
  out["flops"] = flops;
  out["gflops"] = flops / (ms.front() * 1e-3) * 1e-9;
}

// Deterministic stand-in tokens ("tok0", "tok1", ...), as the benchmarks elsewhere use.
std::vector<std::string> tokenNames(int n) {
  std::vector<std::string> tokens;
  for (int i = 0; i < n; ++i) tokens.push_back("tok" + std::to_string(i % 97));
  return tokens;
}

double layerFlops(double n, double d) { return 8.0 * n * d * d + 4.0 * n * n * d; }

nlohmann::json benchLayer(const Args& args, int n, int repeat) {
  const int d = args.getInt("--d-model", 768, 1, 16384);
  const int heads = args.getInt("--heads", 12, 1, 1024);
  if (d % heads != 0) {
    throw UsageError("--d-model " + std::to_string(d) + " is not divisible by --heads " +
                     std::to_string(heads));
  }
  const AttentionLayerWeights w = randomAttentionLayer(d, heads, 42);
  const RowMatrixXf x = tokenEmbeddings(tokenNames(n), d);  // (n, d)
  const AttentionOptions options;
  AttentionResult result;  // reused: the app's per-keystroke path
  const std::vector<double> ms =
      timeRuns(repeat, [&] { multiHeadAttention(x, w, options, result); });
  nlohmann::json out;
  out["mode"] = "layer";
  out["d_model"] = d;
  out["heads"] = heads;
  addTimes(out, ms, layerFlops(n, d));
  return out;
}

// Ids spread over the vocabulary (a model reads ids; a bare layer reads embeddings).
ModelInput modelInput(const LoadedModel& loaded, int n) {
  const ModelInfo info = loaded.model->info();
  ModelInput input;
  const std::vector<std::string> names = tokenNames(n);
  for (int i = 0; i < n; ++i) {
    Token t;
    t.id = info.vocab > 0 ? static_cast<int>((i * 7919LL + 13) % info.vocab) : i;
    t.piece = t.display = names[i];
    input.tokens.push_back(t);
  }
  if (info.family == "attention") input.embeddings = tokenEmbeddings(names, info.dModel);
  return input;
}

nlohmann::json benchModel(const Args& args, int n, int repeat) {
  const std::string path = args.get("--model");
  const LoadedModel loaded = loadModel(path);
  const ModelInfo info = loaded.model->info();
  if (info.maxPositions > 0 && n > info.maxPositions) {
    throw UsageError("--tokens " + std::to_string(n) + " exceeds the model's " +
                     std::to_string(info.maxPositions) + " positions");
  }
  const ModelInput input = modelInput(loaded, n);
  RunOptions options;
  options.logits = false;
  int recorded = 0;
  const std::vector<double> ms = timeRuns(repeat, [&] {
    const ModelRun run = loaded.model->run(input, options);
    recorded = 0;
    for (const LayerAttention& l : run.layers) recorded += l.result.weights.heads;
  });
  nlohmann::json out;
  out["mode"] = "model";
  out["model"] = path;
  out["family"] = info.family;
  out["layers"] = info.layers;
  out["heads"] = info.heads;
  out["d_model"] = info.dModel;
  out["heads_recorded"] = recorded;
  // Attention layers only; the MLP FLOPs depend on the family's width, not in ModelInfo.
  const double kvShare = info.heads ? double(info.kvHeads) / info.heads : 1.0;
  const double d = info.dModel;
  const double attention = info.layers * ((2.0 + 2.0 * kvShare) * 2 * n * d * d + 4.0 * n * n * d);
  addTimes(out, ms, attention);
  out["flops_counted"] = "attention layers only (projections, scores, context)";
  return out;
}

nlohmann::json benchGemm(const Args& args, int repeat) {
  const int s = args.getInt("--gemm", 1024, 16, 8192);
  const RowMatrixXf a = RowMatrixXf::Random(s, s), b = RowMatrixXf::Random(s, s);
  RowMatrixXf c(s, s);
  // Column chunks of 128 over the pool, as the attention's projections split their GEMMs.
  constexpr int width = 128;
  const double flops = 2.0 * s * s * s;
  auto chunked = [&](auto&& product) {
    return timeRuns(repeat, [&] {
      parallelFor((s + width - 1) / width, flops, [&](int i) {
        const int c0 = i * width;
        product(c0, std::min(s, c0 + width) - c0);
      });
    });
  };
  const std::vector<double> ms = chunked([&](int c0, int cw) {
    gemmInto(c.middleCols(c0, cw), a, b.middleCols(c0, cw));
  });
  // Eigen's own GEMM on the same split, for comparison (headmap used it before gemm.h).
  const std::vector<double> eigenMs = chunked([&](int c0, int cw) {
    c.middleCols(c0, cw).noalias() = a * b.middleCols(c0, cw);
  });
  nlohmann::json out;
  out["mode"] = "gemm";
  out["size"] = s;
  addTimes(out, ms, flops);
  const double eigenBest = *std::min_element(eigenMs.begin(), eigenMs.end());
  out["eigen_best_ms"] = eigenBest;
  out["eigen_gflops"] = flops / (eigenBest * 1e6);
  return out;
}

int runBench(const Args& args) {
  if (args.has("--model") && args.has("--gemm")) {
    throw UsageError("--model and --gemm are different benchmarks; give one");
  }
  if ((args.has("--model") || args.has("--gemm")) &&
      (args.has("--d-model") || args.has("--heads"))) {
    throw UsageError("--d-model and --heads describe the random layer; not with --model/--gemm");
  }
  if (args.has("--model") && args.get("--model").empty()) throw UsageError("--model is empty");
  const int n = args.getInt("--tokens", 128, 1, 1 << 16);
  const int repeat = args.getInt("--repeat", 10, 1, 100000);
  const int threads = args.getInt("--threads", 0, 1, 1024);
  setComputeThreads(threads);                 // 0 (absent) = all cores
  const bool keptMemory = keepFreedMemory();  // as an app's main() should; see parallel.h

  nlohmann::json out;
  if (args.has("--gemm")) {
    out = benchGemm(args, repeat);
  } else if (args.has("--model")) {
    out = benchModel(args, n, repeat);
  } else {
    out = benchLayer(args, n, repeat);
  }
  out["threads"] = computeThreads();
  if (!args.has("--gemm")) out["tokens"] = n;
  out["repeat"] = repeat;
  out["warmup"] = 1;
  out["keep_freed_memory"] = keptMemory;
  std::cout << out.dump() << "\n";
  return 0;
}

const bool kRegistered = registerCommand({"bench", benchSpec, runBench});

}  // namespace

}  // namespace headmap::cli
