// gemm.h against a plain triple loop in double precision, over the shapes where a packed GEMM
// goes wrong: row and column counts around the 12 x 32 register tile, k around the 16-float
// transpose blocks and the 256 k-block, strided views, transposed B, alpha and accumulation.
#include "core/attention/gemm.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <tuple>
#include <vector>

namespace headmap {
namespace {

struct Case {
  int m, n, k;
  bool transposed;
};

// A row-major (rows, cols) buffer of random values with row stride cols + pad, so that views
// with ld > cols are exercised; the pad is filled with NaN, which would poison any result that
// reads it.
struct Strided {
  int rows, cols, ld;
  std::vector<float> data;
  Strided(int r, int c, int pad, std::mt19937& rng) : rows(r), cols(c), ld(c + pad) {
    std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
    data.assign(static_cast<size_t>(std::max(r, 1)) * ld, std::nanf(""));
    for (int i = 0; i < r; ++i)
      for (int j = 0; j < c; ++j) data[static_cast<size_t>(i) * ld + j] = dist(rng);
  }
  float at(int i, int j) const { return data[static_cast<size_t>(i) * ld + j]; }
};

// C = alpha A B (+ C0), in double.
std::vector<double> reference(const Case& c, float alpha, const Strided& a, const Strided& b,
                              const Strided* c0) {
  std::vector<double> out(static_cast<size_t>(c.m) * c.n);
  for (int i = 0; i < c.m; ++i) {
    for (int j = 0; j < c.n; ++j) {
      double sum = 0;
      for (int p = 0; p < c.k; ++p) sum += double(a.at(i, p)) * (c.transposed ? b.at(j, p) : b.at(p, j));
      out[static_cast<size_t>(i) * c.n + j] = alpha * sum + (c0 ? c0->at(i, j) : 0.0);
    }
  }
  return out;
}

void check(const Case& c, float alpha, bool accumulate, std::mt19937& rng) {
  const Strided a(c.m, c.k, 3, rng);
  const Strided b = c.transposed ? Strided(c.n, c.k, 5, rng) : Strided(c.k, c.n, 5, rng);
  Strided out(c.m, c.n, 7, rng);  // random start: must be overwritten or accumulated into
  const Strided start = out;
  gemm(c.m, c.n, c.k, alpha, a.data.data(), a.ld, {b.data.data(), b.ld, c.transposed},
       out.data.data(), out.ld, accumulate);
  const std::vector<double> want = reference(c, alpha, a, b, accumulate ? &start : nullptr);
  // float accumulation of k terms of size <= 1: error grows like sqrt(k) ulps, k ulps at worst.
  const double tol = 1e-6 * (c.k + 4) * std::max(1.0f, std::abs(alpha));
  for (int i = 0; i < c.m; ++i) {
    for (int j = 0; j < c.n; ++j) {
      const double got = out.at(i, j), w = want[static_cast<size_t>(i) * c.n + j];
      ASSERT_NEAR(got, w, tol) << "m=" << c.m << " n=" << c.n << " k=" << c.k
                               << " transposed=" << c.transposed << " alpha=" << alpha
                               << " accumulate=" << accumulate << " at (" << i << ", " << j << ")";
    }
    // The row's padding is untouched (still NaN).
    for (int j = c.n; j < out.ld; ++j) ASSERT_TRUE(std::isnan(out.at(i, j))) << "wrote past n";
  }
}

TEST(Gemm, MatchesDoublePrecisionLoopsAroundTileEdges) {
  std::mt19937 rng(5);
  for (int m : {1, 5, 11, 12, 13, 24, 25, 241, 250}) {
    for (int n : {1, 15, 16, 17, 31, 32, 33, 64, 97}) {
      for (int k : {1, 7, 16, 17, 64, 255, 256, 257, 600}) {
        if (m * n * k > 4'000'000) continue;  // keep the double loops quick
        for (bool transposed : {false, true}) check({m, n, k, transposed}, 1.0f, false, rng);
      }
    }
  }
}

TEST(Gemm, ScalesAndAccumulates) {
  std::mt19937 rng(6);
  for (const Case& c : {Case{13, 40, 300, true}, Case{30, 70, 20, false}, Case{1, 1, 1, false}}) {
    check(c, 0.125f, false, rng);
    check(c, -2.5f, true, rng);
    check(c, 1.0f, true, rng);
  }
}

TEST(Gemm, EmptyInnerDimensionGivesZerosOrLeavesC) {
  std::vector<float> c(6, 3.0f);
  gemm(2, 3, 0, 1.0f, nullptr, 0, {nullptr, 0, false}, c.data(), 3, true);
  EXPECT_EQ(c, std::vector<float>(6, 3.0f));
  gemm(2, 3, 0, 1.0f, nullptr, 0, {nullptr, 0, false}, c.data(), 3, false);
  EXPECT_EQ(c, std::vector<float>(6, 0.0f));
}

TEST(Gemm, EigenViewsReadBlocksInPlace) {
  // gemmTransposedInto over blocks of larger matrices, as attention passes head columns.
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  RowMatrixXf a(20, 50), bt(40, 50), out = RowMatrixXf::Zero(20, 60);
  a = a.unaryExpr([&](float) { return dist(rng); });
  bt = bt.unaryExpr([&](float) { return dist(rng); });
  gemmTransposedInto(out.block(2, 5, 10, 30), a.block(3, 10, 10, 16), bt.block(4, 20, 30, 16),
                     0.5f);
  // Eigen's own product as the reference here: these checks are about which memory is read and
  // written, the arithmetic is checked against double loops above.
  const RowMatrixXf want = 0.5f * (a.block(3, 10, 10, 16) * bt.block(4, 20, 30, 16).transpose());
  EXPECT_LT((out.block(2, 5, 10, 30) - want).cwiseAbs().maxCoeff(), 1e-5f);
  // Outside the destination block nothing changed.
  RowMatrixXf outside = out;
  outside.block(2, 5, 10, 30).setZero();
  EXPECT_EQ(outside.cwiseAbs().maxCoeff(), 0.0f);

  RowMatrixXf c(10, 30);
  gemmInto(c, a.block(3, 10, 10, 16), bt.block(4, 20, 16, 30));
  const RowMatrixXf want2 = a.block(3, 10, 10, 16) * bt.block(4, 20, 16, 30);
  EXPECT_LT((c - want2).cwiseAbs().maxCoeff(), 1e-5f);
}

TEST(Gemm, PackedInputGivesTheSameBitsAsUnpacked) {
  // More than one A block in both directions (240 rows, 256 deep) and a ragged edge.
  std::mt19937 rng(8);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  for (const auto& [m, n, k] : {std::tuple{500, 70, 600}, std::tuple{7, 33, 5},
                                 std::tuple{241, 64, 256}}) {
    RowMatrixXf a(m, k + 3), b(k, n), bt(n, k);
    for (RowMatrixXf* x : {&a, &b, &bt}) *x = x->unaryExpr([&](float) { return dist(rng); });
    const auto view = a.leftCols(k);  // a strided A
    PackedA packed;
    packed.pack(view);
    ASSERT_EQ(packed.rows(), m);
    ASSERT_EQ(packed.depth(), k);
    RowMatrixXf want(m, n), got(m, n);
    gemmInto(want, view, b, 0.5f);
    gemmInto(got, packed, b, 0.5f);
    EXPECT_EQ(got, want) << m << "x" << n << "x" << k;
    gemmTransposedInto(want, view, bt);
    gemmTransposedInto(got, packed, bt);
    EXPECT_EQ(got, want) << m << "x" << n << "x" << k << " transposed";
    gemmTransposedInto(want, view, bt, 1.0f, true);
    gemmTransposedInto(got, packed, bt, 1.0f, true);
    EXPECT_EQ(got, want) << m << "x" << n << "x" << k << " accumulated";
    // And both against Eigen's product, so that equal-but-wrong cannot pass.
    EXPECT_LT((got - 2 * (view * bt.transpose())).cwiseAbs().maxCoeff(), 1e-3f);
  }
}

}  // namespace
}  // namespace headmap
