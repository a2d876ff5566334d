#include "backend_cpu/ew_convert.h"

namespace hlo::cpu::ew {

ElementwiseKernel SelectConvertFromWideFloat(PrimitiveType from, PrimitiveType to) {
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
