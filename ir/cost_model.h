// Operation counts of one instruction, in the conventions of XLA's
// HloCostAnalysis (docs/hlo-opt-cost.md lists every rule): elementwise
// arithmetic is one flop per output element, XLA's transcendental functions
// (exp, log, tanh, sqrt, power, ...) are counted apart, a dot is 2*M*N*K, a
// convolution 2 flops per output element and kernel tap, ops that apply a
// computation (reduce, reduce-window, map, select-and-scatter, scatter)
// cost that computation times the number of applications. Bytes accessed
// are the operands' and the result's sizes, except where XLA knows better
// (slices read what they return, views and tuples move nothing).
//
// Shared by the backend's profile (its lower bounds) and hlo-opt --cost
// (analysis/cost_analysis.h, which adds called computations and loop trip
// counts on top of these per-instruction counts).
#pragma once

#include <cstdint>

#include "ir/instruction.h"

namespace hlo {

struct OpCost {
  double flops = 0;
  double transcendentals = 0;
  double bytes_accessed = 0;

  OpCost& operator+=(const OpCost& o) {
    flops += o.flops;
    transcendentals += o.transcendentals;
    bytes_accessed += o.bytes_accessed;
    return *this;
  }
  OpCost Scaled(double k) const { return OpCost{flops * k, transcendentals * k, bytes_accessed * k}; }
};

// One execution of `instr`. Control flow and fusion (while, call,
// conditional, fusion, async-start) count only their own traffic here: what
// their computations cost is added by analysis/cost_analysis.h, which knows
// how often they run.
OpCost EstimateCost(const Instruction& instr);

// Whether EstimateCost leaves the called computations of `op` out (they are
// the caller's business: control flow, fusion, async).
bool CostIncludesCallees(Opcode op);

// Bytes of a shape's arrays (tuples: their elements; tokens: 0).
int64_t ShapeBytes(const Shape& shape);

// XLA's size of a shape for bytes accessed: arrays their bytes, a tuple only
// its table of 8-byte element pointers, tokens 0.
int64_t CostShapeBytes(const Shape& shape);

}  // namespace hlo
