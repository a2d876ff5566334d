// f32 convolutions through oneDNN (Debian's libdnnl), the library PyTorch's
// CPU convolutions use: its JIT kernels reach the AVX-512 FMA peak that an
// im2col + OpenBLAS sgemm cannot on this machine.
//
// The problem is described by element strides, so any untiled layout of the
// operands and the result (NHWC, NCHW, HWIO, OIHW, ...) is passed as is;
// oneDNN reorders into its blocked formats itself when that is faster.
// Anything oneDNN does not express the same way (lhs dilation, window
// reversal, batch groups, negative padding, other element types) is left to
// the im2col path of ops_dot.cc: TryOneDnnConvolution then returns false.
#pragma once

#include <cstdint>
#include <vector>

namespace hlo::cpu {

struct OneDnnConvProblem {
  // Sizes. Spatial dimensions in dim_labels order (1 to 3 of them).
  int64_t batch = 0, in_features = 0, out_features = 0, groups = 1;
  std::vector<int64_t> in_spatial, kernel_spatial, out_spatial;
  // Element strides of each logical dimension in the operands' memory.
  int64_t in_batch_stride = 0, in_feature_stride = 0;
  std::vector<int64_t> in_spatial_strides;
  int64_t kernel_in_stride = 0, kernel_out_stride = 0;
  std::vector<int64_t> kernel_spatial_strides;
  int64_t out_batch_stride = 0, out_feature_stride = 0;
  std::vector<int64_t> out_spatial_strides;
  // Window, per spatial dimension (XLA's meaning: dilation 1 = dense).
  std::vector<int64_t> stride, dilation, padding_low, padding_high;
};

// Runs the convolution on `threads` OpenMP threads (the caller's pool width)
// and returns true, or returns false when oneDNN cannot run this problem
// (`out` may then be partly written; the caller computes all of it another
// way).
// Thread-safe. Disabled (always false) when HLO_CONV_ONEDNN=0 is set.
bool TryOneDnnConvolution(const OneDnnConvProblem& p, const float* in, const float* kernel,
                          float* out, int threads);

// True when TryOneDnnConvolution(p, ..., threads) would run `p` (the plan
// is built and cached now): callers check before converting operands.
bool OneDnnConvAccepts(const OneDnnConvProblem& p, int threads);

// The oneDNN implementation chosen for `p` (e.g. "brgconv:avx512_core"), or
// "" when TryOneDnnConvolution would return false. For tests and benchmarks.
const char* OneDnnConvImplementation(const OneDnnConvProblem& p);

}  // namespace hlo::cpu
