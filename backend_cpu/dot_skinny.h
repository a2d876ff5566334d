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

// Batched products of one row each (M = 1: decode attention's q.K^T and
// p.V) whose large operands interleave, as a KV cache laid out [seq, batch,
// heads, dim] does: batch b's matrix starts at big + b*bstride and its rows
// lie ld apart, with batches * bstride <= ld, so row j of every batch
// together is one stretch of memory. Reading batch after batch jumps ld
// floats per row (4.5x slower than contiguous batches on a 50 MB cache);
// this walks the rows front to back, all batches at once.
// c[b*n + j] = sum over p of a[b*k + p] * B_b(p, j), where B_b(p, j) =
// big[b*bstride + (tb ? j*ld + p : p*ld + j)]. Same bits as SkinnyGemm on
// each batch. False (c untouched) unless batches >= 2 and n >=
// kSkinnyMinWide (the shapes SkinnyGemm takes).
bool InterleavedBatchGemv(int64_t batches, bool tb, int64_t n, int64_t k, const float* a, const float* big,
                          int64_t bstride, int64_t ld, float* c);

}  // namespace hlo::cpu
