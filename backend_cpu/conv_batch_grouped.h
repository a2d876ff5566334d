// Internal to backend_cpu: a direct kernel for convolutions whose groups
// have one output feature each, the groups as vector lanes: batch-grouped
// ones (batch_group_count = output features, no feature groups: the
// weight gradient of a depthwise convolution, as JAX and TensorFlow write
// it) and depthwise ones oneDNN declines (lhs dilation: the input
// gradient of a strided depthwise convolution; f64). The GEMM path gave
// such a problem one output column per group over a strided gather: a
// [8,56,56,128] depthwise weight gradient (58 MFLOP) took 60-160 ms.
#pragma once

#include <cstdint>

namespace hlo::cpu {

// Groups per vector: 64 bytes (an AVX-512 register).
template <typename T>
inline constexpr int64_t kBatchGroupLanes = 64 / sizeof(T);

// Operands packed by the caller (T = float or double) in chunks of
// V = kBatchGroupLanes<T> groups, Gc = ceil(G / V) chunks, the lanes past G
// zero:
//   in     [Gc][Nb][C][IS + 1][V]   IS = input spatial positions
//                                   (row-major), then one position of zeros
//   kernel [Gc][C][KS][V]           KS = window positions (row-major)
//   taps   [KS][P]                  input position read by window position
//                                   w for output position p, or IS (the
//                                   zeros: padding, or a hole of base
//                                   dilation)
//   out    [Nb][P][G]
// out[b][p][g] = sum over c, then w (in that order) of
// in[g / V][b][c][taps[w][p]][g % V] * kernel[g / V][c][w][g % V],
// accumulated in T. Each output element is summed by one thread in this
// fixed order: the bits do not depend on the pool width.
template <typename T>
void BatchGroupedConvolution(const T* in, const T* kernel, const int64_t* taps, int64_t Nb, int64_t C,
                             int64_t IS, int64_t KS, int64_t P, int64_t G, T* out);

}  // namespace hlo::cpu
