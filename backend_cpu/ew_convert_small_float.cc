#include "backend_cpu/ew_convert.h"

namespace hlo::cpu::ew {

ElementwiseKernel SelectConvertFromSmallFloat(PrimitiveType from, PrimitiveType to) {
  switch (from) {
#define HLO_CASE(E, Tr) \
  case PrimitiveType::E: return ConvertFrom<Tr>(to);
    HLO_CASE(F8E5M2, F8E5M2T)
    HLO_CASE(F8E4M3, F8E4M3T)
    HLO_CASE(F8E4M3FN, F8E4M3FNT)
    HLO_CASE(F8E4M3B11FNUZ, F8E4M3B11FNUZT)
    HLO_CASE(F8E3M4, F8E3M4T)
    HLO_CASE(F8E5M2FNUZ, F8E5M2FNUZT)
    HLO_CASE(F8E4M3FNUZ, F8E4M3FNUZT)
    HLO_CASE(F4E2M1FN, F4E2M1FNT)
    HLO_CASE(F8E8M0FNU, F8E8M0FNUT)
#undef HLO_CASE
    default: return nullptr;
  }
}

}  // namespace hlo::cpu::ew
