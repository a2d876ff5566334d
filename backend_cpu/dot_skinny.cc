#include "backend_cpu/dot_skinny.h"

#include <algorithm>
#include <vector>

#include "backend_cpu/thread_pool.h"

namespace hlo::cpu {
namespace {

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

// big stored [k][wide]: stream its rows front to back; each thread keeps
// the sums of its slice of the wide dimension for every small column (at
// most 256 KB: in L2) and adds one row of big per step. Every element is
// still summed over p in order, so the slicing (which follows the pool
// width, for long contiguous reads) does not change any bit.
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
      for (int64_t p = 0; p < s.k; ++p) {
        const float* row = s.big + p * s.ld + w0;
        for (int64_t j = 0; j < s.few; ++j) {
          const float sv = s.small[j * s.k + p];
          float* aj = acc.data() + j * block;
          for (int64_t w = 0; w < nw; ++w) aj[w] += row[w] * sv;
        }
      }
      for (int64_t j = 0; j < s.few; ++j)
        for (int64_t w = 0; w < nw; ++w) s.Out(w0 + w, j) = acc[j * block + w];
    }
  });
}

// big stored [wide][k]: one dot product of length k per (w, j), in 8
// interleaved partial sums (vectorizable without reassociation) combined in
// a fixed order at the end.
void DotRows(const Skinny& s) {
  constexpr int64_t kLanes = 8;
  ParallelFor(s.wide, 16, [&](int64_t w0, int64_t w1) {
    for (int64_t w = w0; w < w1; ++w) {
      const float* row = s.big + w * s.ld;
      for (int64_t j = 0; j < s.few; ++j) {
        const float* col = s.small.data() + j * s.k;
        float part[kLanes] = {0, 0, 0, 0, 0, 0, 0, 0};
        int64_t p = 0;
        for (; p + kLanes <= s.k; p += kLanes)
          for (int64_t l = 0; l < kLanes; ++l) part[l] += row[p + l] * col[p + l];
        float sum = ((part[0] + part[1]) + (part[2] + part[3])) + ((part[4] + part[5]) + (part[6] + part[7]));
        for (; p < s.k; ++p) sum += row[p] * col[p];
        s.Out(w, j) = sum;
      }
    }
  });
}

}  // namespace

bool SkinnyGemm(bool ta, bool tb, int64_t m, int64_t n, int64_t k, const float* a, int64_t lda,
                const float* b, int64_t ldb, float* c, int64_t ldc) {
  const int64_t few = std::min(m, n), wide = std::max(m, n);
  // Small products are GEMM's (and keep their bits); 4 MB of large operand
  // and up is where packing costs more than streaming.
  if (few > kSkinnyMax || few < 1 || k < 1 || wide * k < (int64_t{1} << 20)) return false;
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
