// See conv_onednn_literal.h.
#include "backend_cpu/conv_onednn_literal.h"

#include <algorithm>
#include <cstring>
#include <vector>

#include "backend_cpu/conv_onednn.h"
#include "backend_cpu/ew_narrow_blocks.h"
#include "backend_cpu/thread_pool.h"
#include "ir/buffer_allocator.h"
#include "ir/layout_index.h"

namespace hlo::cpu {
namespace {

// f32 buffers every element of which is written before it is read (no
// zero fill; large ones from the literal allocator's huge-page cache).
using F32Buffer = std::vector<float, BufferAllocator<float>>;

bool IsNarrow(PrimitiveType t) { return t == PrimitiveType::BF16 || t == PrimitiveType::F16; }

// An operand of type `t` is used as is by a result of type `rt`: same type,
// or a narrow operand widened exactly to an f32 result. (f32 operands of a
// narrow result are first rounded to it, as XLA's evaluator does: not here.)
bool OperandTypeFits(PrimitiveType t, PrimitiveType rt) {
  return t == rt || (rt == PrimitiveType::F32 && IsNarrow(t));
}

// Elements per conversion block: large enough to amortise a task, small
// enough to split a layer's activations over the pool.
constexpr int64_t kConvertBlock = 1 << 14;

// Bytes of f32 copies of input or result images per oneDNN call (see
// TryOneDnnConvolutionLiterals): a few MB, about what a core's L2 and its
// share of L3 keep.
constexpr int64_t kChunkBytes = int64_t{4} << 20;

// `n` elements of type t at `src` decoded to f32 into dst, in parallel
// (each element independently: the bits do not depend on the pool width).
void ToF32(PrimitiveType t, const uint8_t* src, int64_t n, float* dst) {
  const int64_t eb = t == PrimitiveType::F32 ? 4 : 2;
  ParallelFor(n, kConvertBlock, [&](int64_t i0, int64_t i1) {
    if (t == PrimitiveType::F32) {
      std::memcpy(dst + i0, src + i0 * eb, (i1 - i0) * sizeof(float));
    } else {
      NarrowToF32(t, src + i0 * eb, dst + i0, i1 - i0);
    }
  });
}

// `n` elements of type t at src + off, src + off + stride, ... (element
// units) decoded to f32 into dst.
void LoadRun(PrimitiveType t, const uint8_t* src, int64_t off, int64_t stride, int64_t n, float* dst) {
  const int64_t eb = t == PrimitiveType::F32 ? 4 : 2;
  if (stride == 1) {
    if (t == PrimitiveType::F32) {
      std::memcpy(dst, src + off * eb, n * sizeof(float));
    } else {
      NarrowToF32(t, src + off * eb, dst, n);
    }
    return;
  }
  constexpr int64_t kChunk = 256;
  alignas(4) uint8_t buf[kChunk * 4];  // read as uint16_t by NarrowToF32
  for (int64_t j0 = 0; j0 < n; j0 += kChunk) {
    const int64_t m = std::min(kChunk, n - j0);
    for (int64_t j = 0; j < m; ++j) std::memcpy(buf + j * eb, src + (off + (j0 + j) * stride) * eb, eb);
    if (t == PrimitiveType::F32) {
      std::memcpy(dst + j0, buf, m * sizeof(float));
    } else {
      NarrowToF32(t, buf, dst + j0, m);
    }
  }
}

// The operand as f32 with the same element strides: its own memory when it
// is f32, else a converted copy in *buf.
const float* AsF32(const Literal& lit, F32Buffer* buf) {
  const PrimitiveType t = lit.shape().element_type();
  if (t == PrimitiveType::F32) return reinterpret_cast<const float*>(lit.data());
  const int64_t n = lit.physical_count();
  buf->resize(n);
  ToF32(t, lit.data(), n, buf->data());
  return buf->data();
}

// Below this many flops (about 12 us on one core) a convolution runs on
// the calling thread only: OpenMP's fork and join would cost more than the
// second thread saves. oneDNN's OpenMP (libgomp) workers spin after each
// parallel region and so take a core from our own pool's workers running
// the next ops; with libgomp's default spin a MobileNet block of
// sub-millisecond convolutions between element-wise fusions ran 25x slower
// on 2 threads than on 1, and this threshold was 2e8. onednn_loader.h now
// cuts the spin to 300 iterations, and every convolution above 2e6 flops
// uses the pool width (docs/performance.md).
constexpr double kMinOpenMpFlops = 2e6;

double ConvFlops(const OneDnnConvProblem& p) {
  double f = 2.0 * static_cast<double>(p.batch) * p.out_features * (p.in_features / p.groups);
  for (size_t d = 0; d < p.out_spatial.size(); ++d) f *= static_cast<double>(p.out_spatial[d]) * p.kernel_spatial[d];
  return f;
}

}  // namespace

bool TryOneDnnConvolutionLiterals(const Instruction& instr, const ConvolutionDimensionNumbers& dn,
                                  const Window& window, const Literal& lhs, const Literal& ker,
                                  int64_t feature_groups, int64_t batch_groups, Literal* result) {
  const Shape& out_shape = instr.shape();
  const Shape& ls = lhs.shape();
  const Shape& ks = ker.shape();
  const int64_t ns = static_cast<int64_t>(dn.input_spatial_dimensions.size());
  const PrimitiveType rt = out_shape.element_type();
  if (rt != PrimitiveType::F32 && !IsNarrow(rt)) return false;
  if (!OperandTypeFits(ls.element_type(), rt) || !OperandTypeFits(ks.element_type(), rt)) return false;
  // Narrow types are converted by blocks; with those off (tests of the
  // per-element conversions) the im2col path runs.
  const bool narrow = IsNarrow(rt) || IsNarrow(ls.element_type()) || IsNarrow(ks.element_type());
  if (narrow && !NarrowBlockConversionEnabled()) return false;
  if (ns < 1 || ns > 3 || (feature_groups > 1 && batch_groups > 1)) return false;
  if (!out_shape.layout().tiles.empty() ||
      static_cast<int64_t>(out_shape.layout().minor_to_major.size()) != out_shape.rank())
    return false;
  for (const WindowDimension& wd : window.dimensions)
    if (wd.base_dilation != 1 || wd.window_reversal || wd.padding_low < 0 || wd.padding_high < 0) return false;
  const std::vector<int64_t> ist = UntiledStrides(ls);
  const std::vector<int64_t> kst = UntiledStrides(ks);
  const std::vector<int64_t> ost = UntiledStrides(out_shape);
  const int64_t N = ls.dim(dn.input_batch_dimension), C = ls.dim(dn.input_feature_dimension);
  const int64_t BG = batch_groups, Nb = N / BG;
  OneDnnConvProblem p;
  p.batch = Nb;
  p.in_features = C * BG;
  p.out_features = ks.dim(dn.kernel_output_feature_dimension);
  p.groups = BG > 1 ? BG : feature_groups;
  p.kernel_in_stride = kst[dn.kernel_input_feature_dimension];
  p.kernel_out_stride = kst[dn.kernel_output_feature_dimension];
  p.out_batch_stride = ost[dn.output_batch_dimension];
  p.out_feature_stride = ost[dn.output_feature_dimension];
  int64_t IS = 1;
  for (int64_t d = 0; d < ns; ++d) {
    const WindowDimension& wd = window.dimensions[d];
    p.in_spatial.push_back(ls.dim(dn.input_spatial_dimensions[d]));
    IS *= p.in_spatial.back();
    p.kernel_spatial.push_back(ks.dim(dn.kernel_spatial_dimensions[d]));
    p.kernel_spatial_strides.push_back(kst[dn.kernel_spatial_dimensions[d]]);
    p.out_spatial.push_back(out_shape.dim(dn.output_spatial_dimensions[d]));
    p.out_spatial_strides.push_back(ost[dn.output_spatial_dimensions[d]]);
    p.stride.push_back(wd.stride);
    p.dilation.push_back(wd.window_dilation);
    p.padding_low.push_back(wd.padding_low);
    p.padding_high.push_back(wd.padding_high);
  }
  // Input strides: the operand's own, or with batch groups those of a
  // channels-last copy [Nb][spatial...][BG][C] (feature gb*C + c of batch b
  // is input batch gb*Nb + b, feature c).
  const int64_t F = BG * C;
  if (BG == 1) {
    p.in_batch_stride = ist[dn.input_batch_dimension];
    p.in_feature_stride = ist[dn.input_feature_dimension];
    for (int64_t d = 0; d < ns; ++d) p.in_spatial_strides.push_back(ist[dn.input_spatial_dimensions[d]]);
  } else {
    p.in_batch_stride = IS * F;
    p.in_feature_stride = 1;
    p.in_spatial_strides.assign(ns, F);
    for (int64_t d = ns - 2; d >= 0; --d) p.in_spatial_strides[d] = p.in_spatial_strides[d + 1] * p.in_spatial[d + 1];
  }
  const PrimitiveType lt = ls.element_type();
  Literal out = Literal::Uninitialized(out_shape);
  // Images per call. Narrow operands and results go through f32 copies;
  // when the batch is the outermost dimension of input and result, a few
  // images at a time keep those copies small (resnet34's bf16 block held
  // 23 MB input and 23 MB output copies per layer for 4 images) and warm
  // in cache between the conversion and the convolution.
  int64_t images = Nb;
  const int64_t in_image = ist[dn.input_batch_dimension], out_image = ost[dn.output_batch_dimension];
  if (BG == 1 && Nb > 1 && (IsNarrow(lt) || rt != PrimitiveType::F32) &&
      in_image * Nb == lhs.physical_count() && out_image * Nb == out.physical_count()) {
    // The f32 result counts even when it is the result itself, so that a
    // bf16 result and its f32 form (fusion_widen_bf16.h) are computed by
    // the same calls.
    const int64_t image_bytes = 4 * std::max(IsNarrow(lt) ? in_image : 0, out_image);
    images = std::clamp<int64_t>(kChunkBytes / std::max<int64_t>(image_bytes, 1), 1, Nb);
  }
  auto threads_for = [](const OneDnnConvProblem& q) {
    return InParallelRegion() || ConvFlops(q) < kMinOpenMpFlops ? 1 : ThreadPoolWidth();
  };
  // Every distinct call (all images, or full chunks and a last one) must be
  // accepted before anything is computed.
  for (int64_t nb : {images, Nb % images}) {
    if (nb == 0) continue;
    OneDnnConvProblem q = p;
    q.batch = nb;
    if (!OneDnnConvAccepts(q, threads_for(q))) return false;
  }
  F32Buffer in_buf, ker_buf, out_buf;
  const float* kernel = AsF32(ker, &ker_buf);
  if (BG > 1) {
    // Input packed once (every image: no chunks with batch groups).
    in_buf.resize(Nb * IS * F);
    const int64_t bstr = ist[dn.input_batch_dimension], cstr = ist[dn.input_feature_dimension];
    // Rows (b, spatial position) of the packed input, in parallel.
    ParallelFor(Nb * IS, 64, [&](int64_t r0, int64_t r1) {
      for (int64_t r = r0; r < r1; ++r) {
        int64_t rem = r % IS, soff = 0;
        const int64_t b = r / IS;
        for (int64_t d = ns - 1; d >= 0; --d) {
          soff += (rem % p.in_spatial[d]) * ist[dn.input_spatial_dimensions[d]];
          rem /= p.in_spatial[d];
        }
        for (int64_t gb = 0; gb < BG; ++gb)
          LoadRun(lt, lhs.data(), (gb * Nb + b) * bstr + soff, cstr, C, in_buf.data() + r * F + gb * C);
      }
    });
  }
  for (int64_t b0 = 0; b0 < Nb; b0 += images) {
    OneDnnConvProblem q = p;
    q.batch = std::min(images, Nb - b0);
    // Input: the operand in place (f32), its images converted with their
    // own strides, or the packed copy.
    const float* in = nullptr;
    if (BG > 1) {
      in = in_buf.data();
    } else if (lt == PrimitiveType::F32) {
      in = reinterpret_cast<const float*>(lhs.data()) + b0 * in_image;
    } else if (images == Nb) {
      in = AsF32(lhs, &in_buf);
    } else {
      in_buf.resize(q.batch * in_image);
      ToF32(lt, lhs.data() + b0 * in_image * 2, q.batch * in_image, in_buf.data());
      in = in_buf.data();
    }
    // Result: written in place when f32, else into an f32 buffer with the
    // result's strides that is rounded to the narrow type afterwards.
    const int64_t out_count = images == Nb ? out.physical_count() : q.batch * out_image;
    float* dst = nullptr;
    if (rt == PrimitiveType::F32) {
      dst = reinterpret_cast<float*>(out.data()) + b0 * out_image;
    } else {
      out_buf.resize(out_count);
      dst = out_buf.data();
    }
    if (!TryOneDnnConvolution(q, in, kernel, dst, threads_for(q))) return false;
    if (rt != PrimitiveType::F32) {
      uint8_t* bytes = out.data() + b0 * out_image * 2;
      ParallelFor(out_count, kConvertBlock, [&](int64_t i0, int64_t i1) {
        F32ToNarrow(rt, out_buf.data() + i0, bytes + i0 * 2, i1 - i0);
      });
    }
  }
  *result = std::move(out);
  return true;
}

}  // namespace hlo::cpu
