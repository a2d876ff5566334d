// f32 matrices of narrow-float constants (bf16, f16, f8...) that dots read
// every run. A dot computes in f32, so each run decoded and packed its
// narrow constant operand again; for skinny products (decode steps,
// batch-1 inference) that cost more than the product itself. The matrices
// are made once per Executable by the dot's own packing (same decode, same
// NaN quieting, same matrix order: PackDotOperandAsF32), so results keep
// their bits.
#pragma once

#include <cstdint>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "ir/literal.h"
#include "ir/module.h"

namespace hlo::cpu {

class DecodedConstants {
 public:
  // Packs the narrow constant operands of the module's dots whose other
  // side is skinny (the decode would be a large part of the product), up
  // to a bound on the bytes the matrices take.
  explicit DecodedConstants(const Module& module);

  // The packed f32 matrix of operand `side` (0 or 1) of `dot`, or null.
  const Literal* Find(const Instruction* dot, int side) const;

  // Bytes held by the matrices (tests).
  int64_t bytes() const { return bytes_; }

 private:
  absl::flat_hash_map<std::pair<const Instruction*, int>, Literal> packed_;
  int64_t bytes_ = 0;
};

}  // namespace hlo::cpu
