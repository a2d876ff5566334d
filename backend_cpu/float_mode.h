// The floating-point mode computations run in: denormals flushed to zero.
//
// XLA:CPU executes with flush-to-zero and denormals-are-zero set (the
// results of ops that would be subnormal are +-0, and subnormal operands
// count as +-0): jax.jit(lambda x: x * 1)(1e-39) is 0 there. We run the
// same way (docs/semantics.md, "Subnormal values"), which also keeps the
// x86 microcode assists for subnormal arithmetic out of the kernels (a
// batched dot reading softmax probabilities ran 5x slower than on normal
// values). The mode is per thread: Executable::Run sets it on the calling
// thread and its device threads, and the pool's workers take the mode of
// the thread whose ParallelFor they serve.
//
// On x86-64 the mode is the SSE control register MXCSR (bits FTZ and DAZ);
// elsewhere these are no-ops and arithmetic keeps subnormals.
#pragma once

#include <cstdint>

namespace hlo::cpu {

// The calling thread's floating-point control word (0 where unsupported).
uint32_t CurrentFloatMode();

// `mode` with flush-to-zero and denormals-are-zero set.
uint32_t FlushDenormalsMode(uint32_t mode);

// Sets the calling thread's control word for the guard's lifetime and
// restores the previous one (cheap when it is already `mode`).
class ScopedFloatMode {
 public:
  explicit ScopedFloatMode(uint32_t mode);
  ~ScopedFloatMode();
  ScopedFloatMode(const ScopedFloatMode&) = delete;
  ScopedFloatMode& operator=(const ScopedFloatMode&) = delete;

 private:
  uint32_t saved_;
  bool changed_;
};

// The execution mode (denormals flushed) for the guard's lifetime.
class ScopedFlushDenormals : public ScopedFloatMode {
 public:
  ScopedFlushDenormals() : ScopedFloatMode(FlushDenormalsMode(CurrentFloatMode())) {}
};

}  // namespace hlo::cpu
