#include "backend_cpu/ew_types.h"

namespace hlo::cpu::ew {

float g_small_float_tables[10][256];

namespace {

struct TableInit {
  TableInit() {
    const PrimitiveType kTypes[] = {
        PrimitiveType::F8E5M2,     PrimitiveType::F8E4M3,     PrimitiveType::F8E4M3FN,
        PrimitiveType::F8E4M3B11FNUZ, PrimitiveType::F8E3M4, PrimitiveType::F8E5M2FNUZ,
        PrimitiveType::F8E4M3FNUZ, PrimitiveType::F4E2M1FN,   PrimitiveType::F8E8M0FNU};
    for (PrimitiveType t : kTypes) {
      float* table = g_small_float_tables[SmallFloatIndex(t)];
      for (int b = 0; b < 256; ++b) table[b] = DecodeFloatToFloat(t, static_cast<uint64_t>(b));
    }
  }
};
const TableInit g_table_init;

}  // namespace
}  // namespace hlo::cpu::ew
