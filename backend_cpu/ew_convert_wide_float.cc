#include "backend_cpu/ew_convert.h"

#include <algorithm>
#include <type_traits>

namespace hlo::cpu::ew {
namespace {

// f32 <-> bf16/f16 through the ISA-cloned span loops (ew_types.h): the same
// T::Load / T::Store as the generic ConvertOne path, hence the same bits,
// at vector width (the f32 -> bf16 convert after a batch norm was a quarter
// of the fused kernel's time element by element).
template <class T>
void EncodeKernel(const void* const* in, void* out, int64_t begin, int64_t end, const KernelParams&) {
  EncodeSpanV<T>(static_cast<const float*>(in[0]) + begin, static_cast<typename T::Storage*>(out) + begin,
                 end - begin);
}
template <class T>
void DecodeKernel(const void* const* in, void* out, int64_t begin, int64_t end, const KernelParams&) {
  DecodeSpanV<T>(static_cast<const typename T::Storage*>(in[0]) + begin, static_cast<float*>(out) + begin,
                 end - begin);
}

// f32/f64 -> integer: XLA's saturating truncation (SaturatingFloatToInt,
// branch-free) in the ISA-cloned loop, so that it vectorises.
template <class F, class D>
void FloatToIntKernel(const void* const* in, void* out, int64_t begin, int64_t end, const KernelParams& p) {
  using FT = std::conditional_t<std::is_same_v<F, float>, F32T, F64T>;
  UnaryLoopV<BitsOf<FT>, BitsOf<D>, OpConvert<FT, D>>(in, out, begin, end, p);
}

// bf16/f16 -> integer: tiles decoded to f32 (exactly), then the f32 loop.
template <class T, class D>
void NarrowToIntKernel(const void* const* in, void* out, int64_t begin, int64_t end, const KernelParams& p) {
  alignas(64) float xs[kTile];
  const void* tile[1] = {xs};
  for (int64_t t0 = begin; t0 < end; t0 += kTile) {
    const int64_t n = std::min(kTile, end - t0);
    DecodeSpanV<T>(static_cast<const typename T::Storage*>(in[0]) + t0, xs, n);
    FloatToIntKernel<float, D>(tile, static_cast<typename D::Storage*>(out) + t0, 0, n, p);
  }
}

// S: float, double, or BF16T / F16T (through f32 tiles).
template <class S>
ElementwiseKernel FloatToInt(PrimitiveType to) {
  auto pick = [](auto d) -> ElementwiseKernel {
    using D = decltype(d);
    if constexpr (std::is_same_v<S, float> || std::is_same_v<S, double>) {
      return &FloatToIntKernel<S, D>;
    } else {
      return &NarrowToIntKernel<S, D>;
    }
  };
  switch (to) {
    case PrimitiveType::S8: return pick(S8T{});
    case PrimitiveType::S16: return pick(S16T{});
    case PrimitiveType::S32: return pick(S32T{});
    case PrimitiveType::S64: return pick(S64T{});
    case PrimitiveType::U8: return pick(U8T{});
    case PrimitiveType::U16: return pick(U16T{});
    case PrimitiveType::U32: return pick(U32T{});
    case PrimitiveType::U64: return pick(U64T{});
    default: return nullptr;  // sub-byte integers, pred, floats: ConvertFrom
  }
}

}  // namespace

ElementwiseKernel SelectConvertFromWideFloat(PrimitiveType from, PrimitiveType to) {
  if (from == PrimitiveType::F32 && to == PrimitiveType::BF16) return &EncodeKernel<BF16T>;
  if (from == PrimitiveType::F32 && to == PrimitiveType::F16) return &EncodeKernel<F16T>;
  if (from == PrimitiveType::BF16 && to == PrimitiveType::F32) return &DecodeKernel<BF16T>;
  if (from == PrimitiveType::F16 && to == PrimitiveType::F32) return &DecodeKernel<F16T>;
  if (from == PrimitiveType::F32)
    if (ElementwiseKernel k = FloatToInt<float>(to)) return k;
  if (from == PrimitiveType::F64)
    if (ElementwiseKernel k = FloatToInt<double>(to)) return k;
  if (from == PrimitiveType::BF16)
    if (ElementwiseKernel k = FloatToInt<BF16T>(to)) return k;
  if (from == PrimitiveType::F16)
    if (ElementwiseKernel k = FloatToInt<F16T>(to)) return k;
  switch (from) {
#define HLO_CASE(E, Tr) \
  case PrimitiveType::E: return ConvertFrom<Tr>(to);
    HLO_CASE(F16, F16T)
    HLO_CASE(BF16, BF16T)
    HLO_CASE(F32, F32T)
    HLO_CASE(F64, F64T)
#undef HLO_CASE
    default: return nullptr;
  }
}

}  // namespace hlo::cpu::ew
