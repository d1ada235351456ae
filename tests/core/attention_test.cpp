// multiHeadAttention / attendProjected against torch.nn.MultiheadAttention fixtures
// (scripts/fixtures/make_attention_fixtures.py) and a naive loop reference for GQA.
#include "core/attention/attention.h"

#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>

#include "core/attention/parallel.h"
#include "core/attention/softmax.h"
#include "core/common/error.h"
#include "core/io/npy.h"
#include "tests/test_support.h"

namespace headmap {
namespace {

// The formula of make_attention_fixtures.py, in float64 rounded once to float32.
RowMatrixXf formulaMatrix(int d, double c) {
  RowMatrixXf m(d, d);
  for (int i = 0; i < d; ++i)
    for (int j = 0; j < d; ++j)
      m(i, j) = static_cast<float>(std::sin(0.37 * i + 0.11 * j + c) * (0.4 / std::sqrt(d)));
  return m;
}
VectorXf formulaVector(int d, double c) {
  VectorXf v(d);
  for (int i = 0; i < d; ++i) v[i] = static_cast<float>(std::cos(0.23 * i + c) * 0.02);
  return v;
}
RowMatrixXf formulaInput(int n, int d) {
  RowMatrixXf x(n, d);
  for (int t = 0; t < n; ++t)
    for (int j = 0; j < d; ++j)
      x(t, j) = static_cast<float>(std::sin(0.71 * t + 0.13 * j + 0.3) +
                                   0.5 * std::cos(1.3 * t * (j % 7) + 0.1 * j));
  return x;
}
AttentionLayerWeights formulaLayer(int d, int heads) {
  AttentionLayerWeights w;
  w.dModel = d;
  w.nHeads = heads;
  w.wq = formulaMatrix(d, 0.1);
  w.wk = formulaMatrix(d, 0.2);
  w.wv = formulaMatrix(d, 0.3);
  w.wo = formulaMatrix(d, 0.4);
  w.bq = formulaVector(d, 0.5);
  w.bk = formulaVector(d, 0.6);
  w.bv = formulaVector(d, 0.7);
  w.bo = formulaVector(d, 0.8);
  return w;
}

// Max |a - b| over two float arrays; -inf == -inf counts as 0, any other non-finite as +inf.
double maxDiff(const float* a, const float* b, size_t count) {
  double worst = 0;
  for (size_t i = 0; i < count; ++i) {
    if (std::isinf(a[i]) && std::isinf(b[i]) && a[i] == b[i]) continue;
    const double d = std::fabs(static_cast<double>(a[i]) - b[i]);
    worst = std::max(worst, std::isfinite(d) ? d : std::numeric_limits<double>::infinity());
  }
  return worst;
}

void expectClose(const NpyArray& ref, const float* got, size_t count, double tol,
                 const std::string& what) {
  ASSERT_EQ(ref.values.size(), count) << what;
  const double diff = maxDiff(ref.values.data(), got, count);
  EXPECT_LE(diff, tol) << what << ": max |diff| vs torch = " << diff;
  std::cout << "  " << what << ": max |diff| = " << diff << "\n";
}

bool anyNan(const std::vector<float>& v) {
  for (float f : v)
    if (std::isnan(f)) return true;
  return false;
}

nlohmann::json cases() {
  std::ifstream in(test::fixture("attention/cases.json"));
  return nlohmann::json::parse(in);
}

TEST(AttentionFormula, InputMatchesPython) {
  NpyArray ref = readNpy(test::fixture("attention/formula_input_d64_n9.npy"));
  RowMatrixXf x = formulaInput(9, 64);
  expectClose(ref, x.data(), x.size(), 1e-6, "formula input");
}

TEST(AttentionVsTorch, EveryFixtureCase) {
  const auto all = cases();
  ASSERT_GE(all.size(), 10u);
  for (const auto& c : all) {
    const std::string name = c["name"];
    SCOPED_TRACE(name);
    std::cout << name << "\n";
    const int d = c["d_model"], heads = c["heads"], n = c["n"];
    AttentionOptions options;
    options.causal = c["causal"];
    options.paddedKeys = c["padded"].get<std::vector<int>>();
    options.keepStages = c["stages"];
    AttentionResult r = multiHeadAttention(formulaInput(n, d), formulaLayer(d, heads), options);

    const std::string base = "attention/" + name;
    expectClose(readNpy(test::fixture(base + "_weights.npy")), r.weights.values.data(),
                r.weights.values.size(), 1e-5, "weights");
    expectClose(readNpy(test::fixture(base + "_output.npy")), r.output.data(), r.output.size(),
                1e-5, "output");
    EXPECT_FALSE(anyNan(r.weights.values));
    std::vector<uint8_t> expectedFull(n, 0);
    for (int row : c["fully_masked"]) {
      expectedFull[row] = 1;
      for (int h = 0; h < heads; ++h) EXPECT_EQ(r.weights.head(h).row(row).norm(), 0.0f);
    }
    EXPECT_EQ(r.fullyMasked, expectedFull);
    if (options.keepStages) {
      expectClose(readNpy(test::fixture(base + "_raw.npy")), r.raw.values.data(),
                  r.raw.values.size(), 1e-5, "raw");
      expectClose(readNpy(test::fixture(base + "_scaled.npy")), r.scaled.values.data(),
                  r.scaled.values.size(), 1e-5, "scaled");
      expectClose(readNpy(test::fixture(base + "_masked.npy")), r.masked.values.data(),
                  r.masked.values.size(), 1e-5, "masked");
    } else {
      EXPECT_TRUE(r.raw.empty() && r.scaled.empty() && r.masked.empty());
    }
  }
}

TEST(Attention, KeyMaskAlwaysFilled) {
  AttentionOptions options;
  options.causal = true;
  options.paddedKeys = {1};
  AttentionResult r = multiHeadAttention(formulaInput(3, 8), formulaLayer(8, 2), options);
  // Row-major (q, k): causal hides j > i, padding hides column 1.
  EXPECT_EQ(r.keyMask, (std::vector<uint8_t>{0, 1, 1, 0, 1, 1, 0, 1, 0}));
  EXPECT_EQ(r.fullyMasked, (std::vector<uint8_t>{0, 0, 0}));
  for (int h = 0; h < 2; ++h) {
    for (int i = 0; i < 3; ++i) EXPECT_NEAR(r.weights.head(h).row(i).sum(), 1.0f, 1e-6);
    EXPECT_EQ(r.weights.head(h)(2, 1), 0.0f);  // exactly zero, not tiny
  }
}

// Naive per-cell reference for attendProjected: loops in double, no Eigen products. Queries are
// the last q.rows() positions of k.rows().
std::vector<float> naiveWeights(const RowMatrixXf& q, const RowMatrixXf& k, int heads, int kvHeads,
                                bool scale, bool causal = false,
                                const std::vector<int>& padded = {}) {
  const int nq = q.rows(), nk = k.rows(), dk = q.cols() / heads;
  std::vector<float> w(static_cast<size_t>(heads) * nq * nk, 0.0f);
  for (int h = 0; h < heads; ++h) {
    const int g = h / (heads / kvHeads);
    for (int i = 0; i < nq; ++i) {
      std::vector<double> s(nk);
      std::vector<bool> visible(nk, true);
      for (int p : padded) visible[p] = false;
      double mx = -1e300, sum = 0;
      for (int j = 0; j < nk; ++j) {
        if (causal && j > i + nk - nq) visible[j] = false;
        double dot = 0;
        for (int c = 0; c < dk; ++c) dot += double(q(i, h * dk + c)) * k(j, g * dk + c);
        s[j] = scale ? dot / std::sqrt(double(dk)) : dot;
        if (visible[j]) mx = std::max(mx, s[j]);
      }
      for (int j = 0; j < nk; ++j) sum += visible[j] ? (s[j] = std::exp(s[j] - mx)) : 0.0;
      for (int j = 0; j < nk; ++j) {
        if (visible[j]) w[(size_t(h) * nq + i) * nk + j] = float(s[j] / sum);
      }
    }
  }
  return w;
}

TEST(Attention, ManyRowBlocksCausalPaddedMatchNaive) {
  // n = 300 splits every head into several row blocks; causal skips hidden keys per block.
  const int n = 300, heads = 3, dk = 8;
  RowMatrixXf q = formulaInput(n, heads * dk) * 0.7f;
  RowMatrixXf k = formulaInput(n, heads * dk).colwise().reverse();
  RowMatrixXf v = formulaInput(n, heads * dk);
  AttentionOptions options;
  options.causal = true;
  options.paddedKeys = {0, 150, 299};
  AttentionResult r = attendProjected(q, k, v, heads, heads, options);
  std::vector<float> ref = naiveWeights(q, k, heads, heads, true, true, options.paddedKeys);
  const double diff = maxDiff(ref.data(), r.weights.values.data(), ref.size());
  EXPECT_LE(diff, 1e-5) << "max |diff| = " << diff;
  EXPECT_EQ(r.fullyMasked[0], 1);
  EXPECT_EQ(r.fullyMasked[1], 0);
  for (int h = 0; h < heads; ++h) {
    RowMatrixXf expected = r.weights.head(h) * v.middleCols(h * dk, dk);
    EXPECT_LE((r.context.middleCols(h * dk, dk) - expected).cwiseAbs().maxCoeff(), 1e-5);
  }
}

TEST(Attention, QueriesForTheLastPositionsOnly) {
  // The last 5 queries against all 40 keys give the last 5 rows of the full map.
  const int n = 40, heads = 2, dk = 8;
  RowMatrixXf x = formulaInput(n, heads * dk);
  AttentionOptions options;
  options.causal = true;
  AttentionResult full = attendProjected(x, x, x, heads, heads, options);
  AttentionResult tail = attendProjected(x.bottomRows(5), x, x, heads, heads, options);
  for (int h = 0; h < heads; ++h) {
    EXPECT_LE((tail.weights.head(h) - full.weights.head(h).bottomRows(5)).cwiseAbs().maxCoeff(),
              1e-6);
  }
  EXPECT_EQ(tail.keyMask[0 * n + 35], 0);
  EXPECT_EQ(tail.keyMask[0 * n + 36], 1);
}

TEST(Attention, ReusedResultDropsStagesAndMatches) {
  AttentionLayerWeights w = formulaLayer(32, 4);
  AttentionOptions stages;
  stages.keepStages = true;
  AttentionResult r;
  multiHeadAttention(formulaInput(9, 32), w, stages, r);
  EXPECT_EQ(r.raw.values.size(), 4u * 9 * 9);
  AttentionOptions plain;
  multiHeadAttention(formulaInput(5, 32), w, plain, r);
  EXPECT_TRUE(r.raw.empty() && r.scaled.empty() && r.masked.empty());
  AttentionResult fresh = multiHeadAttention(formulaInput(5, 32), w, plain);
  EXPECT_EQ(r.weights.values, fresh.weights.values);
  EXPECT_EQ(r.keyMask, fresh.keyMask);
  EXPECT_EQ(r.output, fresh.output);
  EXPECT_EQ(r.weights.q, 5);
}

TEST(Attention, GroupedQueryHeadsReadTheirKvHead) {
  const int n = 7, heads = 6, kvHeads = 2, dk = 4;
  RowMatrixXf q = formulaInput(n, heads * dk);
  RowMatrixXf k = formulaMatrix(n * 3, 0.9).topLeftCorner(n, kvHeads * dk) * 3.0f;
  RowMatrixXf v = formulaMatrix(n * 3, 1.7).topLeftCorner(n, kvHeads * dk);
  for (bool scale : {true, false}) {
    AttentionOptions options;
    options.scale = scale;
    AttentionResult r = attendProjected(q, k, v, heads, kvHeads, options);
    std::vector<float> ref = naiveWeights(q, k, heads, kvHeads, scale);
    const double diff = maxDiff(ref.data(), r.weights.values.data(), ref.size());
    EXPECT_LE(diff, 1e-6) << "scale=" << scale << " max |diff| = " << diff;
    // Context of head 5 reads KV head 5 / 3 = 1.
    RowMatrixXf expected = r.weights.head(5) * v.middleCols(1 * dk, dk);
    EXPECT_LE((r.context.middleCols(5 * dk, dk) - expected).cwiseAbs().maxCoeff(), 1e-6);
    EXPECT_TRUE(r.output.size() == 0);
  }
}

TEST(Attention, ThreadCountDoesNotChangeResults) {
  AttentionLayerWeights w = formulaLayer(256, 8);
  RowMatrixXf x = formulaInput(64, 256);
  AttentionOptions options;
  options.causal = true;
  setComputeThreads(1);
  AttentionResult one = multiHeadAttention(x, w, options);
  setComputeThreads(2);
  AttentionResult two = multiHeadAttention(x, w, options);
  setComputeThreads(0);
  EXPECT_EQ(one.weights.values, two.weights.values);
  EXPECT_EQ(maxDiff(one.output.data(), two.output.data(), one.output.size()), 0.0);
}

template <typename F>
void expectError(F&& f, const std::vector<std::string>& parts) {
  try {
    f();
    FAIL() << "no headmap::Error thrown";
  } catch (const Error& e) {
    for (const auto& p : parts)
      EXPECT_NE(std::string(e.what()).find(p), std::string::npos)
          << "message '" << e.what() << "' lacks '" << p << "'";
  }
}

TEST(AttentionErrors, NameTheValues) {
  AttentionLayerWeights w = formulaLayer(12, 4);
  AttentionOptions none;
  w.nHeads = 5;
  expectError([&] { multiHeadAttention(formulaInput(3, 12), w, none); }, {"12", "5 heads"});
  w.nHeads = 4;
  expectError([&] { multiHeadAttention(formulaInput(3, 10), w, none); }, {"10", "12"});
  expectError([&] { multiHeadAttention(RowMatrixXf(0, 12), w, none); }, {"empty", "0"});
  AttentionOptions pad;
  pad.paddedKeys = {3};
  expectError([&] { multiHeadAttention(formulaInput(3, 12), w, pad); }, {"3", "0..2"});
  pad.paddedKeys = {-1};
  expectError([&] { multiHeadAttention(formulaInput(3, 12), w, pad); }, {"-1"});
  AttentionLayerWeights bad = w;
  bad.wk = RowMatrixXf::Zero(12, 11);
  expectError([&] { multiHeadAttention(formulaInput(3, 12), bad, none); }, {"W_k", "(12, 11)"});
  bad = w;
  bad.bo = VectorXf::Zero(7);
  expectError([&] { multiHeadAttention(formulaInput(3, 12), bad, none); }, {"b_o", "7"});

  RowMatrixXf q = formulaInput(3, 12);
  expectError([&] { attendProjected(q, formulaInput(3, 8), formulaInput(3, 8), 4, 4, none); },
              {"K", "12", "8"});
  expectError([&] { attendProjected(q, q, formulaInput(4, 12), 4, 4, none); }, {"V", "(4, 12)"});
  expectError([&] { attendProjected(q, q, q, 4, 3, none); }, {"4 heads", "3 KV"});
  expectError([&] { attendProjected(q, q, q, 5, 5, none); }, {"12", "5 heads"});
}

}  // namespace
}  // namespace headmap

namespace headmap {
namespace {

TEST(MaskedSoftmax, SameBitsAtAnyAddress) {
  // The same 3 x 37 scores at float offsets 0..15 of a buffer: identical results.
  RowMatrixXf scores = formulaMatrix(37, 0.3).topRows(3) * 40.0f;
  std::vector<float> buffer(3 * 37 + 16);
  RowMatrixXf first;
  for (int shift = 0; shift < 16; ++shift) {
    RowMatrixMap s(buffer.data() + shift, 3, 37);
    s = scores;
    maskedSoftmaxRows(s, nullptr, false, -1);
    if (shift == 0) first = s;
    EXPECT_EQ(RowMatrixXf(s), first) << "offset " << shift;
  }
  EXPECT_NEAR(first.row(1).sum(), 1.0f, 1e-6);
}

TEST(MaskedSoftmax, HugeMaskedScoresDoNotLeak) {
  // A masked cell holding +inf or 1e30 must not turn the row into NaN or take weight.
  RowMatrixXf s(1, 4);
  s << 1.0f, std::numeric_limits<float>::infinity(), 2.0f, 1e30f;
  const std::vector<uint8_t> mask = {0, 1, 0, 1};
  maskedSoftmaxRows(RowMatrixMap(s.data(), 1, 4), mask.data(), true, -1);
  const float e = std::exp(-1.0f);
  EXPECT_NEAR(s(0, 0), e / (1 + e), 1e-7);
  EXPECT_EQ(s(0, 1), 0.0f);
  EXPECT_NEAR(s(0, 2), 1 / (1 + e), 1e-7);
  EXPECT_EQ(s(0, 3), 0.0f);
}

}  // namespace
}  // namespace headmap
