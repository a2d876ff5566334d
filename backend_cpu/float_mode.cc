#include "backend_cpu/float_mode.h"

#if defined(__x86_64__) || defined(__i386__)
#include <xmmintrin.h>
#define HLO_HAVE_MXCSR 1
#endif

namespace hlo::cpu {

#ifdef HLO_HAVE_MXCSR
namespace {
constexpr uint32_t kFlushToZero = 0x8000;       // MXCSR.FTZ: subnormal results become +-0
constexpr uint32_t kDenormalsAreZero = 0x0040;  // MXCSR.DAZ: subnormal operands read as +-0
}  // namespace

uint32_t CurrentFloatMode() { return _mm_getcsr(); }
uint32_t FlushDenormalsMode(uint32_t mode) { return mode | kFlushToZero | kDenormalsAreZero; }

ScopedFloatMode::ScopedFloatMode(uint32_t mode) : saved_(_mm_getcsr()), changed_(saved_ != mode) {
  if (changed_) _mm_setcsr(mode);
}
ScopedFloatMode::~ScopedFloatMode() {
  if (changed_) _mm_setcsr(saved_);
}
#else
uint32_t CurrentFloatMode() { return 0; }
uint32_t FlushDenormalsMode(uint32_t mode) { return mode; }
ScopedFloatMode::ScopedFloatMode(uint32_t) : saved_(0), changed_(false) {}
ScopedFloatMode::~ScopedFloatMode() = default;
#endif

}  // namespace hlo::cpu
