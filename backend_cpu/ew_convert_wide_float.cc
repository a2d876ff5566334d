#include "backend_cpu/ew_convert.h"

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

}  // namespace

ElementwiseKernel SelectConvertFromWideFloat(PrimitiveType from, PrimitiveType to) {
  if (from == PrimitiveType::F32 && to == PrimitiveType::BF16) return &EncodeKernel<BF16T>;
  if (from == PrimitiveType::F32 && to == PrimitiveType::F16) return &EncodeKernel<F16T>;
  if (from == PrimitiveType::BF16 && to == PrimitiveType::F32) return &DecodeKernel<BF16T>;
  if (from == PrimitiveType::F16 && to == PrimitiveType::F32) return &DecodeKernel<F16T>;
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
