// Skinny f32 matrix products: one side of C has at most kSkinnyMax columns
// or rows (decode steps: a few tokens times a large weight). GEMM packing
// and tiling dominate there; these kernels stream the large operand once at
// memory bandwidth instead. Every element of C is summed over K in order by
// one thread, so results do not depend on the thread count.
#pragma once

#include <cstdint>

namespace hlo::cpu {

inline constexpr int64_t kSkinnyMax = 16;
// ... and the other side at least this wide (narrower products go to GEMM).
inline constexpr int64_t kSkinnyMinWide = 64;
// Below 4 MB of large operand, only products this skinny stream.
inline constexpr int64_t kSkinnySmallMax = 8;

// C (m x n, row-major, ldc) = op(A) (m x k) * op(B) (k x n), with
// A(i,p) = ta ? a[p*lda+i] : a[i*lda+p] and likewise B, when the product is
// skinny and large enough to pay off; returns false (C untouched) otherwise.
bool SkinnyGemm(bool ta, bool tb, int64_t m, int64_t n, int64_t k, const float* a, int64_t lda,
                const float* b, int64_t ldb, float* c, int64_t ldc);

}  // namespace hlo::cpu
