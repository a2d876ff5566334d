#include "backend_cpu/ew_gelu.h"

#include <cmath>

#include "backend_cpu/ew_math.h"
#include "backend_cpu/ew_types.h"

namespace hlo::cpu::ew {

HLO_EW_CLONES void GeluTanhF32(const float* __restrict x, float* __restrict y, int64_t n) {
  const float k2 = 1.59576912160573071f;  // 2 sqrt(2/pi)
  for (int64_t i = 0; i < n; ++i) {
    const float v = x[i];
    const float z = k2 * (v + 0.044715f * v * v * v);
    const float g = v * math::Logistic(z);
    // Subnormal results become a signed zero (see the header).
    y[i] = std::fabs(g) < 1.17549435e-38f ? 0.0f * g : g;
  }
}

}  // namespace hlo::cpu::ew
