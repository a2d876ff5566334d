// Operation counts of one instruction, in the conventions of XLA's
// HloCostAnalysis: elementwise arithmetic is one flop per output element,
// transcendental functions (exp, log, tanh, sqrt, power, ...) are counted
// apart, a dot is 2*M*N*K, a convolution 2 multiply-adds per output element
// and kernel tap, a reduction one flop per input element. Shared by the
// backend's profile (its lower bounds) and, later, hlo-opt --cost.
#pragma once

#include <cstdint>

#include "ir/instruction.h"

namespace hlo {

struct OpCost {
  double flops = 0;
  double transcendentals = 0;
};

OpCost EstimateCost(const Instruction& instr);

// Bytes of a shape's arrays (tuples: their elements; tokens: 0).
int64_t ShapeBytes(const Shape& shape);

}  // namespace hlo
