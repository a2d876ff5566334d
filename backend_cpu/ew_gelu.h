// The gelu of custom-call AwsNeuronGeluApprxTanh on f32 spans (custom_call.cc).
#pragma once

#include <cstdint>

namespace hlo::cpu::ew {

// y[i] = gelu(x[i]) with the tanh approximation, written as
// x * logistic(2 sqrt(2/pi) (x + 0.044715 x^3)): the same function as
// 0.5 x (1 + tanh(...)) (0.5 (1 + tanh(z)) = logistic(2z)), without its
// cancellation in 1 + tanh for negative x, so the result keeps a few ulp
// of relative accuracy down to the smallest normal result. Results below
// that (x < -10) are returned as a signed zero: the tanh form underflows to
// exactly 0 much earlier (x < -5.5 in double, about -5 in f32, as PyTorch
// computes it), and subnormal values would slow down every consumer of the
// result (a dot reading them ran 6x slower in the gpt2 decode step).
// Vectorised, ISA-cloned with the same bits on every CPU.
void GeluTanhF32(const float* x, float* y, int64_t n);

}  // namespace hlo::cpu::ew
