#include "backend_cpu/dot_skinny.h"

#include <algorithm>
#include <cstring>
#include <vector>

#include "backend_cpu/thread_pool.h"

namespace hlo::cpu {
namespace {

// Same per-ISA cloning as the elementwise loops (ew_types.h): AVX-512, AVX2
// and baseline clones picked at start-up; this file is built with
// -ffp-contract=off, so every clone does the same IEEE multiplies and adds
// in the same order and C does not depend on the CPU. Not under
// ThreadSanitizer: the clones' ifunc resolvers run before its runtime starts.
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && defined(__linux__) && \
    !defined(__SANITIZE_THREAD__)
#define HLO_SKINNY_CLONES __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#else
#define HLO_SKINNY_CLONES
#endif

// Eight and sixteen floats; the compiler maps them to whole registers of
// the clone's ISA or to several (an AVX2 clone issues two instructions per
// V16 operation): the same IEEE operations on every CPU, so results do not
// depend on the clone. Unaligned loads and stores go through memcpy.
typedef float V8 __attribute__((vector_size(32)));
typedef float V16 __attribute__((vector_size(64)));
template <typename V>
inline V LoadV(const float* p) {
  V v;
  std::memcpy(&v, p, sizeof(v));
  return v;
}
template <typename V>
inline void StoreV(float* p, V v) {
  std::memcpy(p, &v, sizeof(v));
}
template <typename V>
inline V SplatV(float x) {
  V v;
  for (size_t i = 0; i < sizeof(V) / sizeof(float); ++i) v[i] = x;
  return v;
}

// Small columns are processed in groups of up to this many, each group's
// accumulators in registers.
constexpr int64_t kGroup = 4;

// The large operand ("big"), `wide` x k, and the small one: value s(p, j)
// for j < few. out(w, j) is C's element for wide index w and small index j.
struct Skinny {
  const float* big;
  int64_t ld;          // big's leading dimension
  bool big_k_major;    // big(w, p) = k_major ? big[p*ld + w] : big[w*ld + p]
  int64_t wide, few, k;
  std::vector<float> small;  // packed small operand: small[j*k + p] = s(p, j)
  float* c;
  int64_t ldc;
  bool c_wide_rows;    // out(w, j) = c_wide_rows ? c[w*ldc + j] : c[j*ldc + w]
  float& Out(int64_t w, int64_t j) const { return c_wide_rows ? c[w * ldc + j] : c[j * ldc + w]; }
};

// acc[j*block + w] += sum over p in [p0, p0+NP) of rows[p](w) * s(p, j),
// for NJ small columns starting at s, added one p at a time in order: NP
// rows per pass so each accumulator is loaded and stored once per NP rows
// (and NP streams of big are read at once). The sums are the same for any
// NP: each element adds its products in p order.
template <int NJ, int NP>
HLO_SKINNY_CLONES void AccumulateRows(const float* r, int64_t ld, const float* s, int64_t k,
                                      int64_t nw, float* acc, int64_t block) {
  V16 sv[NJ][NP];
#pragma GCC unroll 8
  for (int j = 0; j < NJ; ++j)
#pragma GCC unroll 8
    for (int q = 0; q < NP; ++q) sv[j][q] = SplatV<V16>(s[j * k + q]);
  int64_t w = 0;
  for (; w + 16 <= nw; w += 16) {
    V16 x[NP];
#pragma GCC unroll 8
    for (int q = 0; q < NP; ++q) x[q] = LoadV<V16>(r + q * ld + w);
#pragma GCC unroll 4
    for (int j = 0; j < NJ; ++j) {
      float* aj = acc + j * block + w;
      V16 a = LoadV<V16>(aj);
#pragma GCC unroll 8
      for (int q = 0; q < NP; ++q) a = a + x[q] * sv[j][q];
      StoreV(aj, a);
    }
  }
  for (; w < nw; ++w)
    for (int j = 0; j < NJ; ++j) {
      float& a = acc[j * block + w];
      for (int q = 0; q < NP; ++q) a = a + r[q * ld + w] * s[j * k + q];
    }
}

template <int NJ>
HLO_SKINNY_CLONES void AccumulateRow(const float* r0, const float* s, int64_t k, int64_t nw,
                                     float* acc, int64_t block) {
  for (int j = 0; j < NJ; ++j) {
    const float sv = s[j * k];
    float* aj = acc + j * block;
    for (int64_t w = 0; w < nw; ++w) aj[w] = aj[w] + r0[w] * sv;
  }
}

// Rows of big read at once: more concurrent streams get more of one
// core's memory bandwidth (the loads wait on memory, not on arithmetic),
// as long as the accumulators stay in registers. DotRows's 4 x 4 V8
// accumulators take 16 of AVX-512's 32 registers; an AVX2 clone has 16,
// so it takes 2 rows (and StreamRows 4 rows per pass instead of 8).
int64_t RowsAtOnce() {
#if defined(__GNUC__) && defined(__x86_64__)
  static const int64_t rows = __builtin_cpu_supports("avx512f") ? 4 : 2;
  return rows;
#else
  return 2;
#endif
}

template <int NJ>
void AccumulateGroup(const Skinny& s, int64_t w0, int64_t nw, int64_t j0, float* acc,
                     int64_t block) {
  const float* sj = s.small.data() + j0 * s.k;
  float* aj = acc + j0 * block;
  int64_t p = 0;
  if (RowsAtOnce() >= 4)
    for (; p + 8 <= s.k; p += 8)
      AccumulateRows<NJ, 8>(s.big + p * s.ld + w0, s.ld, sj + p, s.k, nw, aj, block);
  for (; p + 4 <= s.k; p += 4)
    AccumulateRows<NJ, 4>(s.big + p * s.ld + w0, s.ld, sj + p, s.k, nw, aj, block);
  for (; p < s.k; ++p) AccumulateRow<NJ>(s.big + p * s.ld + w0, sj + p, s.k, nw, aj, block);
}

// big stored [k][wide]: stream its rows front to back; each thread keeps
// the sums of its slice of the wide dimension for every small column (at
// most 256 KB: in L2). Every element is summed over p in order, so the
// slicing (which follows the pool width, for long contiguous reads) does
// not change any bit.
void StreamRows(const Skinny& s) {
  const int64_t per_thread = (s.wide + ThreadPoolWidth() - 1) / ThreadPoolWidth();
  const int64_t block = std::clamp<int64_t>((per_thread + 63) / 64 * 64, 64,
                                            65536 / std::max<int64_t>(s.few, 1));
  const int64_t blocks = (s.wide + block - 1) / block;
  ParallelFor(blocks, 1, [&](int64_t b0, int64_t b1) {
    std::vector<float> acc(static_cast<size_t>(block * s.few));
    for (int64_t bi = b0; bi < b1; ++bi) {
      const int64_t w0 = bi * block, nw = std::min(block, s.wide - w0);
      std::fill(acc.begin(), acc.end(), 0.0f);
      for (int64_t j0 = 0; j0 < s.few; j0 += kGroup) {
        switch (std::min(kGroup, s.few - j0)) {
          case 1: AccumulateGroup<1>(s, w0, nw, j0, acc.data(), block); break;
          case 2: AccumulateGroup<2>(s, w0, nw, j0, acc.data(), block); break;
          case 3: AccumulateGroup<3>(s, w0, nw, j0, acc.data(), block); break;
          default: AccumulateGroup<4>(s, w0, nw, j0, acc.data(), block); break;
        }
      }
      for (int64_t j = 0; j < s.few; ++j)
        for (int64_t w = 0; w < nw; ++w) s.Out(w0 + w, j) = acc[j * block + w];
    }
  });
}

// Sum of the 8 lanes of v in a fixed tree.
inline float SumLanes(V8 v) {
  return ((v[0] + v[4]) + (v[2] + v[6])) + ((v[1] + v[5]) + (v[3] + v[7]));
}

// Dot products of length k of NR rows of big with NJ small columns: for
// each (row, column) 8 interleaved partial sums (vectorized without
// reassociation), combined in a fixed tree, then the tail in order. Every
// row gets the same arithmetic whether it is processed in a pair or alone
// (NR only shares the loads of the small columns), so results do not
// depend on how rows are split among threads.
template <int NR, int NJ>
HLO_SKINNY_CLONES void RowDots(const float* row, int64_t ld, const float* small, int64_t k,
                               float* sums /* [NR][kGroup] */) {
  V8 acc[NR][NJ];
  for (int r = 0; r < NR; ++r)
    for (int j = 0; j < NJ; ++j) acc[r][j] = SplatV<V8>(0.0f);
  int64_t p = 0;
  for (; p + 8 <= k; p += 8) {
    V8 x[NR];
    for (int r = 0; r < NR; ++r) x[r] = LoadV<V8>(row + r * ld + p);
    for (int j = 0; j < NJ; ++j) {
      const V8 y = LoadV<V8>(small + j * k + p);
      for (int r = 0; r < NR; ++r) acc[r][j] = acc[r][j] + x[r] * y;
    }
  }
  for (int r = 0; r < NR; ++r)
    for (int j = 0; j < NJ; ++j) {
      float sum = SumLanes(acc[r][j]);
      for (int64_t q = p; q < k; ++q) sum = sum + row[r * ld + q] * small[j * k + q];
      sums[r * kGroup + j] = sum;
    }
}

template <int NR>
void RowDotsGroup(const float* row, int64_t ld, const float* small, int64_t k, int64_t nj,
                  float* sums) {
  switch (nj) {
    case 1: RowDots<NR, 1>(row, ld, small, k, sums); break;
    case 2: RowDots<NR, 2>(row, ld, small, k, sums); break;
    case 3: RowDots<NR, 3>(row, ld, small, k, sums); break;
    default: RowDots<NR, 4>(row, ld, small, k, sums); break;
  }
}

// big stored [wide][k]: rows of big are read once (from memory), a few at
// a time, and dotted with every small column while they are in L1.
void DotRows(const Skinny& s) {
  const int64_t at_once = RowsAtOnce();
  ParallelFor(s.wide, 16, [&](int64_t w0, int64_t w1) {
    float sums[4 * kGroup];
    for (int64_t w = w0; w < w1;) {
      const int64_t nr = std::min(w1 - w, at_once) >= 4 ? 4 : std::min<int64_t>(w1 - w, 2);
      const float* row = s.big + w * s.ld;
      for (int64_t j0 = 0; j0 < s.few; j0 += kGroup) {
        const int64_t nj = std::min(kGroup, s.few - j0);
        const float* col = s.small.data() + j0 * s.k;
        if (nr == 4) {
          RowDotsGroup<4>(row, s.ld, col, s.k, nj, sums);
        } else if (nr == 2) {
          RowDotsGroup<2>(row, s.ld, col, s.k, nj, sums);
        } else {
          RowDotsGroup<1>(row, s.ld, col, s.k, nj, sums);
        }
        for (int64_t r = 0; r < nr; ++r)
          for (int64_t j = 0; j < nj; ++j) s.Out(w + r, j0 + j) = sums[r * kGroup + j];
      }
      w += nr;
    }
  });
}

// acc[j] += r[j] * s for j < n, one multiply and one add per element (the
// order and rounding of AccumulateRows' per-element sums).
HLO_SKINNY_CLONES void AxpyRow(const float* r, float s, int64_t n, float* acc) {
  const V16 sv = SplatV<V16>(s);
  int64_t j = 0;
  for (; j + 16 <= n; j += 16) StoreV(acc + j, LoadV<V16>(acc + j) + LoadV<V16>(r + j) * sv);
  for (; j < n; ++j) acc[j] = acc[j] + r[j] * s;
}

}  // namespace

bool InterleavedBatchGemv(int64_t batches, bool tb, int64_t n, int64_t k, const float* a, const float* big,
                          int64_t bstride, int64_t ld, float* c) {
  if (batches < 2 || n < kSkinnyMinWide || k < 1 || bstride < 1 || batches * bstride > ld) return false;
  if (tb) {
    // Row j of batch b at big + b*bstride + j*ld: for each j every batch's
    // row, front to back. RowDots gives a row the same arithmetic alone as
    // in DotRows' pairs: the bits of SkinnyGemm per batch.
    ParallelFor(n, 16, [&](int64_t j0, int64_t j1) {
      float sums[4 * kGroup];
      for (int64_t j = j0; j < j1; ++j)
        for (int64_t b = 0; b < batches; ++b) {
          RowDots<1, 1>(big + b * bstride + j * ld, ld, a + b * k, k, sums);
          c[b * n + j] = sums[0];
        }
    });
    return true;
  }
  // Row p of batch b (n values) at big + b*bstride + p*ld: for each p every
  // batch's row, each element's products added in p order from 0 (the sums
  // of StreamRows per batch). Threads take whole batches; accumulators of
  // at most 64 KB, so long rows are cut into column tiles.
  ParallelFor(batches, 1, [&](int64_t b0, int64_t b1) {
    const int64_t nb = b1 - b0;
    const int64_t tile = std::min<int64_t>(n, std::max<int64_t>(16, 16384 / nb / 16 * 16));
    std::vector<float> acc(static_cast<size_t>(nb * tile));
    for (int64_t j0 = 0; j0 < n; j0 += tile) {
      const int64_t nj = std::min(tile, n - j0);
      std::fill(acc.begin(), acc.end(), 0.0f);
      for (int64_t p = 0; p < k; ++p)
        for (int64_t b = b0; b < b1; ++b)
          AxpyRow(big + b * bstride + p * ld + j0, a[b * k + p], nj, acc.data() + (b - b0) * tile);
      for (int64_t b = b0; b < b1; ++b)
        std::copy(acc.begin() + (b - b0) * tile, acc.begin() + (b - b0) * tile + nj, c + b * n + j0);
    }
  });
  return true;
}

bool SkinnyGemm(bool ta, bool tb, int64_t m, int64_t n, int64_t k, const float* a, int64_t lda,
                const float* b, int64_t ldb, float* c, int64_t ldc) {
  const int64_t few = std::min(m, n), wide = std::max(m, n);
  // From 4 MB of large operand up, packing costs more than streaming. Below
  // that, GEMM's packing and edge handling still dominate when C has at most
  // kSkinnySmallMax rows or columns (measured on AVX2: 1x256x128 12 -> 4 us,
  // 6x300x300 41 -> 23 us; with 16 they are even and GEMM keeps them).
  if (few > kSkinnyMax || few < 1 || k < 1) return false;
  // Both sides narrow (C of 8 x 10 over k = 8192, a classifier head):
  // the vectors run along the wide side, so below 64 they are mostly tails
  // and the loops scalar; GEMM was faster on every such shape measured
  // (8x10x8192: 315 -> 24 us; 2x48x8192: 44 -> 30 us; at 64 and up the
  // two are even or streaming wins).
  if (wide < kSkinnyMinWide) return false;
  if (wide * k < (int64_t{1} << 20) && few > kSkinnySmallMax) return false;
  Skinny s{};
  s.wide = wide;
  s.few = few;
  s.k = k;
  s.c = c;
  s.ldc = ldc;
  s.small.resize(static_cast<size_t>(few * k));
  if (n <= m) {  // C's columns are few: big = A (wide = m), small = B
    s.big = a;
    s.ld = lda;
    s.big_k_major = ta;
    s.c_wide_rows = true;
    for (int64_t j = 0; j < n; ++j)
      for (int64_t p = 0; p < k; ++p) s.small[j * k + p] = tb ? b[j * ldb + p] : b[p * ldb + j];
  } else {  // C's rows are few: big = B (wide = n), small = A
    s.big = b;
    s.ld = ldb;
    s.big_k_major = !tb;
    s.c_wide_rows = false;
    for (int64_t j = 0; j < m; ++j)
      for (int64_t p = 0; p < k; ++p) s.small[j * k + p] = ta ? a[p * lda + j] : a[j * lda + p];
  }
  if (s.big_k_major) {
    StreamRows(s);
  } else {
    DotRows(s);
  }
  return true;
}

}  // namespace hlo::cpu
