// Random-number ops: rng (uniform / normal), rng-bit-generator (Philox
// 4x32-10 and ThreeFry 2x32-20, counter based, bit-identical to what XLA's
// CPU compiler computes for the op) and rng-get-and-update-state. All are
// deterministic for a given seed / state (docs/semantics.md).
#pragma once

#include <cstdint>

#include "backend_cpu/op_eval.h"

namespace hlo::cpu {

absl::StatusOr<Literal> EvalRng(const Instruction&, absl::Span<const Literal* const>, OpContext&);
absl::StatusOr<Literal> EvalRngBitGenerator(const Instruction&, absl::Span<const Literal* const>,
                                            OpContext&);
absl::StatusOr<Literal> EvalRngGetAndUpdateState(const Instruction&,
                                                 absl::Span<const Literal* const>, OpContext&);

// The block functions of Random123 (Salmon et al., SC 2011), which XLA's
// generators use unchanged; word 0 is the least significant everywhere.
// Philox 4x32 with 10 rounds: one 128-bit block for `counter` under `key`.
void Philox4x32(const uint32_t counter[4], const uint32_t key[2], uint32_t out[4]);
// ThreeFry 2x32 with 20 rounds: one 64-bit block for `counter` under `key`.
void ThreeFry2x32(const uint32_t counter[2], const uint32_t key[2], uint32_t out[2]);

}  // namespace hlo::cpu
