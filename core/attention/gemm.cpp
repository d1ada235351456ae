// Packed GEMM (gemm.h). Loop nest, outermost first:
//   pc: k in blocks of kGemmKc
//   ic: m in blocks of kMc rows  -> pack A (mc, kc) into 12-row panels (the last one shorter),
//                                   ~240 KB, stays in L2
//   jr: 32-column panels         -> pack B (kc, 32), zero-padded: 32 KB, stays in L1
//   ir: 12-row panels            -> kernel: a (rows <= 12, 32) tile of C in 24 zmm registers
// Each kernel step loads one 32-float row of the B panel and broadcasts 12 floats of A: 24 FMAs
// for 14 loads, enough to keep both of a core's FMA pipes busy. Packing transposes 16 x 16 blocks
// in registers; a scalar transpose of nn.Linear's (out, in) weights cost as much as the kernel at
// 16 rows.
#include "core/attention/gemm.h"

#include <algorithm>
#include <cstring>
#include <vector>

#if defined(__AVX512F__)
#include <immintrin.h>
// GCC 12's AVX-512 intrinsics self-initialise an "undefined" vector (`__m512 __Y = __Y;`) and
// then warn about it wherever they are inlined (GCC bug 105593); nothing here is uninitialised.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
#endif

namespace headmap {

#if defined(__AVX512F__)

namespace {

constexpr int kMr = 12;    // rows of a register tile
constexpr int kNr = 32;    // columns of a register tile: two zmm
constexpr int kMc = 240;   // rows of a packed A block: 240 x 256 floats = 240 KB, in L2

// Packing buffers, reused across calls; one set per thread (pool workers call gemm at once).
struct Buffers {
  std::vector<float, Eigen::aligned_allocator<float>> a, b;
};
Buffers& buffers() {
  thread_local Buffers instance;
  return instance;
}

__mmask16 firstLanes(int count) {
  return count >= 16 ? static_cast<__mmask16>(0xFFFF)
                     : static_cast<__mmask16>((1u << std::max(count, 0)) - 1);
}

// dst (cols, ·) ← src (rows, cols)ᵀ for a block of at most 16 x 16: row p of dst gets column p
// of src, its first `width` floats stored (rows past `rows` read as zeros). src row stride lds,
// dst row stride ldd. The four shuffle stages swap 1-, 2-, 4- and 8-float groups.
void transpose16(const float* src, Eigen::Index lds, int rows, int cols, float* dst,
                 Eigen::Index ldd, int width) {
  const __mmask16 load = firstLanes(cols);
  __m512 r[16], t[16];
  for (int i = 0; i < 16; ++i) {
    r[i] = i < rows ? _mm512_maskz_loadu_ps(load, src + i * lds) : _mm512_setzero_ps();
  }
  for (int i = 0; i < 16; i += 2) {
    t[i] = _mm512_unpacklo_ps(r[i], r[i + 1]);
    t[i + 1] = _mm512_unpackhi_ps(r[i], r[i + 1]);
  }
  for (int i = 0; i < 16; i += 4) {
    r[i] = _mm512_shuffle_ps(t[i], t[i + 2], 0x44);
    r[i + 1] = _mm512_shuffle_ps(t[i], t[i + 2], 0xEE);
    r[i + 2] = _mm512_shuffle_ps(t[i + 1], t[i + 3], 0x44);
    r[i + 3] = _mm512_shuffle_ps(t[i + 1], t[i + 3], 0xEE);
  }
  for (int i = 0; i < 16; i += 8) {
    for (int j = 0; j < 4; ++j) {
      t[i + j] = _mm512_shuffle_f32x4(r[i + j], r[i + j + 4], 0x88);
      t[i + j + 4] = _mm512_shuffle_f32x4(r[i + j], r[i + j + 4], 0xDD);
    }
  }
  for (int j = 0; j < 8; ++j) {
    r[j] = _mm512_shuffle_f32x4(t[j], t[j + 8], 0x88);
    r[j + 8] = _mm512_shuffle_f32x4(t[j], t[j + 8], 0xDD);
  }
  const __mmask16 store = firstLanes(width);
  for (int p = 0; p < cols; ++p) _mm512_mask_storeu_ps(dst + p * ldd, store, r[p]);
}

// dst: panels of kMr rows, each (kc, rows) with the rows of one k adjacent; the last panel holds
// the remaining mc % kMr rows, its stride that count.
void packA(const float* a, Eigen::Index lda, int mc, int kc, float* dst) {
  for (int i0 = 0; i0 < mc; i0 += kMr) {
    const int rows = std::min(kMr, mc - i0);
    for (int p = 0; p < kc; p += 16) {
      transpose16(a + i0 * lda + p, lda, rows, std::min(16, kc - p), dst + p * rows, rows, rows);
    }
    dst += static_cast<size_t>(rows) * kc;
  }
}

// dst: panels of kNr columns, each (kc, kNr); columns past nc are zeros.
void packB(const GemmOperand& b, int p0, int kc, int j0, int nc, float* dst) {
  for (int jp = 0; jp < nc; jp += kNr, dst += static_cast<size_t>(kc) * kNr) {
    const int cols = std::min(kNr, nc - jp);
    if (!b.transposed) {
      const float* src = b.data + p0 * b.ld + j0 + jp;
      const __mmask16 m0 = firstLanes(cols), m1 = firstLanes(cols - 16);
      for (int p = 0; p < kc; ++p, src += b.ld) {
        _mm512_store_ps(dst + p * kNr, _mm512_maskz_loadu_ps(m0, src));
        _mm512_store_ps(dst + p * kNr + 16, _mm512_maskz_loadu_ps(m1, src + 16));
      }
      continue;
    }
    // B (p, j) = data[j * ld + p]: 16 x 16 transposes of the source rows j.
    const float* src = b.data + (j0 + jp) * b.ld + p0;
    for (int p = 0; p < kc; p += 16) {
      for (int half = 0; half < 2; ++half) {
        transpose16(src + half * 16 * b.ld + p, b.ld, std::clamp(cols - 16 * half, 0, 16),
                    std::min(16, kc - p), dst + p * kNr + 16 * half, kNr, 16);
      }
    }
  }
}

// C tile (R, up to 32) = alpha · A panel · B panel (+ C when add). m0/m1: valid columns.
template <int R>
void kernel(int kc, const float* ap, const float* bp, float* c, Eigen::Index ldc, float alpha,
            bool add, __mmask16 m0, __mmask16 m1) {
  __m512 acc[R][2];
#pragma GCC unroll 12
  for (int i = 0; i < R; ++i) acc[i][0] = acc[i][1] = _mm512_setzero_ps();
  for (int p = 0; p < kc; ++p, ap += R, bp += kNr) {
    const __m512 b0 = _mm512_load_ps(bp);
    const __m512 b1 = _mm512_load_ps(bp + 16);
#pragma GCC unroll 12
    for (int i = 0; i < R; ++i) {
      const __m512 a = _mm512_set1_ps(ap[i]);
      acc[i][0] = _mm512_fmadd_ps(a, b0, acc[i][0]);
      acc[i][1] = _mm512_fmadd_ps(a, b1, acc[i][1]);
    }
  }
  const __m512 va = _mm512_set1_ps(alpha);
#pragma GCC unroll 12
  for (int i = 0; i < R; ++i) {
    float* row = c + i * ldc;
    __m512 r0 = _mm512_mul_ps(acc[i][0], va);
    __m512 r1 = _mm512_mul_ps(acc[i][1], va);
    if (add) {
      r0 = _mm512_add_ps(r0, _mm512_maskz_loadu_ps(m0, row));
      r1 = _mm512_add_ps(r1, _mm512_maskz_loadu_ps(m1, row + 16));
    }
    _mm512_mask_storeu_ps(row, m0, r0);
    _mm512_mask_storeu_ps(row + 16, m1, r1);
  }
}

using Kernel = void (*)(int, const float*, const float*, float*, Eigen::Index, float, bool,
                        __mmask16, __mmask16);
constexpr Kernel kKernels[kMr + 1] = {nullptr,    kernel<1>, kernel<2>,  kernel<3>, kernel<4>,
                                      kernel<5>,  kernel<6>, kernel<7>,  kernel<8>, kernel<9>,
                                      kernel<10>, kernel<11>, kernel<12>};

// C (mc, n) (+)= alpha · packed A block (mc, kc) · B (kc, n) from row p0: each 32-column panel
// of B is packed right before its use, so it is still in L1 for the row panels.
void blockTimesB(int mc, int n, int kc, float alpha, const float* ap, const GemmOperand& b, int p0,
                 float* panelB, float* c, Eigen::Index ldc, bool add) {
  for (int jr = 0; jr < n; jr += kNr) {
    const int cols = std::min(kNr, n - jr);
    packB(b, p0, kc, jr, cols, panelB);
    const __mmask16 m0 = firstLanes(cols), m1 = firstLanes(cols - 16);
    for (int ir = 0; ir < mc; ir += kMr) {
      const int rows = std::min(kMr, mc - ir);
      kKernels[rows](kc, ap + static_cast<size_t>(ir) * kc, panelB, c + ir * ldc + jr, ldc, alpha,
                     add, m0, m1);
    }
  }
}

// m, n or k zero: C (m, n) = 0 (left alone when accumulating). Returns whether it was.
bool emptyProduct(int m, int n, int k, float* c, Eigen::Index ldc, bool accumulate) {
  if (m > 0 && n > 0 && k > 0) return false;
  if (m > 0 && n > 0 && !accumulate) {
    for (int i = 0; i < m; ++i) std::fill_n(c + i * ldc, n, 0.0f);
  }
  return true;
}

}  // namespace

void gemm(int m, int n, int k, float alpha, const float* a, Eigen::Index lda, GemmOperand b,
          float* c, Eigen::Index ldc, bool accumulate) {
  if (emptyProduct(m, n, k, c, ldc, accumulate)) return;
  Buffers& buf = buffers();
  const int kcMax = std::min(k, kGemmKc);
  buf.b.resize(static_cast<size_t>(kcMax) * kNr);
  buf.a.resize(static_cast<size_t>(kcMax) * std::min(m, kMc));
  for (int pc = 0; pc < k; pc += kGemmKc) {
    const int kc = std::min(kGemmKc, k - pc);
    for (int ic = 0; ic < m; ic += kMc) {
      const int mc = std::min(kMc, m - ic);
      packA(a + ic * lda + pc, lda, mc, kc, buf.a.data());
      blockTimesB(mc, n, kc, alpha, buf.a.data(), b, pc, buf.b.data(), c + ic * ldc, ldc,
                  accumulate || pc > 0);
    }
  }
}

// Layout: k blocks one after the other, each the m rows' A blocks as packA leaves them, so block
// (pc, ic) starts at pc * m + ic * kc.
void PackedA::pack(const GemmIn& a) {
  m_rows = static_cast<int>(a.rows());
  m_depth = static_cast<int>(a.cols());
  const size_t need = static_cast<size_t>(m_rows) * m_depth;
  if (m_data.size() < need) m_data.resize(need);  // grow only: no zeroing when reused
  for (int pc = 0; pc < m_depth; pc += kGemmKc) {
    const int kc = std::min(kGemmKc, m_depth - pc);
    for (int ic = 0; ic < m_rows; ic += kMc) {
      packA(a.data() + ic * a.outerStride() + pc, a.outerStride(), std::min(kMc, m_rows - ic), kc,
            m_data.data() + static_cast<size_t>(pc) * m_rows + static_cast<size_t>(ic) * kc);
    }
  }
}

namespace {

void gemmPacked(const PackedA& a, int n, float alpha, const GemmOperand& b, float* c,
                Eigen::Index ldc, bool accumulate) {
  const int m = a.rows(), k = a.depth();
  if (emptyProduct(m, n, k, c, ldc, accumulate)) return;
  Buffers& buf = buffers();
  buf.b.resize(static_cast<size_t>(std::min(k, kGemmKc)) * kNr);
  for (int pc = 0; pc < k; pc += kGemmKc) {
    const int kc = std::min(kGemmKc, k - pc);
    for (int ic = 0; ic < m; ic += kMc) {
      const float* ap = a.data() + static_cast<size_t>(pc) * m + static_cast<size_t>(ic) * kc;
      blockTimesB(std::min(kMc, m - ic), n, kc, alpha, ap, b, pc, buf.b.data(), c + ic * ldc,
                  ldc, accumulate || pc > 0);
    }
  }
}

}  // namespace

#else  // no AVX-512: Eigen's GEMM

void gemm(int m, int n, int k, float alpha, const float* a, Eigen::Index lda, GemmOperand b,
          float* c, Eigen::Index ldc, bool accumulate) {
  if (m <= 0 || n <= 0) return;
  using Stride = Eigen::OuterStride<>;
  Eigen::Map<RowMatrixXf, 0, Stride> dst(c, m, n, Stride(ldc));
  if (k <= 0) {
    if (!accumulate) dst.setZero();
    return;
  }
  Eigen::Map<const RowMatrixXf, 0, Stride> lhs(a, m, k, Stride(lda));
  auto product = [&](const auto& rhs) {
    if (accumulate) {
      dst.noalias() += alpha * (lhs * rhs);
    } else {
      dst.noalias() = alpha * (lhs * rhs);
    }
  };
  if (b.transposed) {
    product(Eigen::Map<const RowMatrixXf, 0, Stride>(b.data, n, k, Stride(b.ld)).transpose());
  } else {
    product(Eigen::Map<const RowMatrixXf, 0, Stride>(b.data, k, n, Stride(b.ld)));
  }
}

// Without AVX-512 "packed" is a plain row-major copy.
void PackedA::pack(const GemmIn& a) {
  m_rows = static_cast<int>(a.rows());
  m_depth = static_cast<int>(a.cols());
  const size_t need = static_cast<size_t>(m_rows) * m_depth;
  if (m_data.size() < need) m_data.resize(need);  // grow only: no zeroing when reused
  Eigen::Map<RowMatrixXf>(m_data.data(), m_rows, m_depth) = a;
}

namespace {

void gemmPacked(const PackedA& a, int n, float alpha, const GemmOperand& b, float* c,
                Eigen::Index ldc, bool accumulate) {
  gemm(a.rows(), n, a.depth(), alpha, a.data(), a.depth(), b, c, ldc, accumulate);
}

}  // namespace

#endif

PackedA& packedInput() {
  thread_local PackedA instance;
  return instance;
}

void gemmInto(GemmOut dst, const PackedA& a, const GemmIn& b, float alpha, bool accumulate) {
  gemmPacked(a, static_cast<int>(dst.cols()), alpha, {b.data(), b.outerStride(), false},
             dst.data(), dst.outerStride(), accumulate);
}

void gemmTransposedInto(GemmOut dst, const PackedA& a, const GemmIn& bt, float alpha,
                        bool accumulate) {
  gemmPacked(a, static_cast<int>(dst.cols()), alpha, {bt.data(), bt.outerStride(), true},
             dst.data(), dst.outerStride(), accumulate);
}

void gemmInto(GemmOut dst, const GemmIn& a, const GemmIn& b, float alpha, bool accumulate) {
  gemm(static_cast<int>(dst.rows()), static_cast<int>(dst.cols()), static_cast<int>(a.cols()),
       alpha, a.data(), a.outerStride(), {b.data(), b.outerStride(), false}, dst.data(),
       dst.outerStride(), accumulate);
}

void gemmTransposedInto(GemmOut dst, const GemmIn& a, const GemmIn& bt, float alpha,
                        bool accumulate) {
  gemm(static_cast<int>(dst.rows()), static_cast<int>(dst.cols()), static_cast<int>(a.cols()),
       alpha, a.data(), a.outerStride(), {bt.data(), bt.outerStride(), true}, dst.data(),
       dst.outerStride(), accumulate);
}

}  // namespace headmap
