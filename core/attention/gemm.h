#pragma once
// headmap's float GEMM, for every product the attention and the model forwards run.
//
// Why not Eigen's: on the Zen 5 VMs headmap is measured on, Eigen 3.4's float GEMM reaches about
// 120 GFLOP/s per core with AVX-512, half of what the cores can do (docs/benchmarks.md). With
// AVX-512 this is a packed GEMM in the usual three-level blocking around a 12 x 32 register
// kernel; without it, it forwards to Eigen. It is single-threaded: callers split rows or columns
// over the pool (parallel.h).
//
// Results do not depend on how callers split C: every C element sums its k terms in the same
// order (blocks of kGemmKc), whatever m, n and the pointer offsets.
#include <Eigen/Core>
#include <vector>

#include "core/common/tensor.h"

namespace headmap {

// A row-major (rows, cols) operand with row stride `ld`. As B, `transposed` reads it as its
// transpose: B (k, n) = data (n, k)ᵀ, the nn.Linear weight layout (out, in).
struct GemmOperand {
  const float* data = nullptr;
  Eigen::Index ld = 0;
  bool transposed = false;
};

// k-block of the packed GEMM; part of the summation order (see above).
inline constexpr int kGemmKc = 256;

// C (m, n) = alpha · A (m, k) · B (k, n), or C += alpha · A · B when `accumulate`.
// A: row-major, row stride lda. C: row-major, row stride ldc; must not overlap A or B.
// k == 0 gives C = 0 (or leaves C when accumulating).
void gemm(int m, int n, int k, float alpha, const float* a, Eigen::Index lda, GemmOperand b,
          float* c, Eigen::Index ldc, bool accumulate = false);

// Eigen views over the same: dst (m, n) = alpha · a (m, k) · b (k, n), and
// dst (m, n) = alpha · a (m, k) · bt (n, k)ᵀ. Sizes must agree (checked by the caller's shapes).
using GemmOut = Eigen::Ref<RowMatrixXf, 0, Eigen::OuterStride<>>;
using GemmIn = Eigen::Ref<const RowMatrixXf, 0, Eigen::OuterStride<>>;
void gemmInto(GemmOut dst, const GemmIn& a, const GemmIn& b, float alpha = 1.0f,
              bool accumulate = false);
void gemmTransposedInto(GemmOut dst, const GemmIn& a, const GemmIn& bt, float alpha = 1.0f,
                        bool accumulate = false);

// A (m, k) packed once for several products with it. The projections split their output
// columns over threads, and each split would otherwise pack the same input again (about 10 % of
// a GPT-2-small forward at 128 tokens). pack() reuses the buffer, which only grows: keep one
// PackedA per thread (packedInput()) rather than one per call.
class PackedA {
 public:
  void pack(const GemmIn& a);
  int rows() const { return m_rows; }
  int depth() const { return m_depth; }
  const float* data() const { return m_data.data(); }

 private:
  std::vector<float, Eigen::aligned_allocator<float>> m_data;
  int m_rows = 0, m_depth = 0;
};

// This thread's PackedA for inputs packed once and read by the pool's workers (who must reach
// it through the reference, never by calling this themselves).
PackedA& packedInput();

// The two products above with a packed A; the same sums in the same order as unpacked.
void gemmInto(GemmOut dst, const PackedA& a, const GemmIn& b, float alpha = 1.0f,
              bool accumulate = false);
void gemmTransposedInto(GemmOut dst, const PackedA& a, const GemmIn& bt, float alpha = 1.0f,
                        bool accumulate = false);

}  // namespace headmap
