#include "backend_cpu/ew_convert.h"

namespace hlo::cpu::ew {

ElementwiseKernel SelectConvertFromIntOrPred(PrimitiveType from, PrimitiveType to) {
  switch (from) {
#define HLO_CASE(E, Tr) \
  case PrimitiveType::E: return ConvertFrom<Tr>(to);
    HLO_CASE(PRED, PredT)
    HLO_EW_INT_TYPES(HLO_CASE)
#undef HLO_CASE
    default: return nullptr;
  }
}

}  // namespace hlo::cpu::ew
