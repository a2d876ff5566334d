// bf16 fusions computed in f32 between their loads and stores.
//
// A bf16 elementwise op runs as decode -> f32 kernel -> encode (ViaF32,
// ew_types.h), so a fused chain of bf16 ops converts every intermediate
// value twice. WidenBf16Chains rewrites a fused computation so that those
// values are f32 arrays holding bf16 values: each op runs its f32 kernel
// on operands rounded to bf16 as the op-by-op run's decode gives them, the
// rounding being reduce-precision to bf16's 8 exponent and 7 mantissa bits,
// which rounds exactly as the encode does (nearest even, overflow to inf,
// subnormals kept; ew_float.cc's fast path). The rounding of a result is
// deferred to where it is needed: through the ops that commute with it
// (maximum, minimum, clamp, select, negate, abs, data movement) and into
// the convert to bf16 at the chain's end, which rounds by itself; so a
// convolution under a ReLU6 pays no rounding pass at all. Exact ops
// (floor, sign, ...) take rounded operands and give exact results.
// Converts to f32 read the rounded value. So every bf16 result has the
// bits of the op-by-op run (a NaN's bits below bf16's 16 may differ
// inside the chain; they never reach a bf16 value).
//
// A dot keeps its type (a widened user reads its result converted); its
// copy is mapped back to the original in `origins`, by which a dot finds
// its decoded constant operands (decoded_constants.h).
//
// Left as they are: f16 and the f8 types
// (reduce-precision flushes their subnormals, the conversion does not),
// reductions and every other op (a
// widened operand is converted back to bf16 for them), converts into bf16
// from types wider than f32 or integers (rounding twice would differ), and
// total-order compares.
#pragma once

#include <memory>

#include "absl/container/flat_hash_map.h"
#include "ir/computation.h"

namespace hlo::cpu {

// The rewritten copy of `fused` (same parameters and root shape), or null
// when it has fewer than two bf16 elementwise ops to widen (the converts at
// the ends would cost what they save).
// When `origins` is given, every instruction of the copy made from one of
// `fused` is mapped to that original.
std::unique_ptr<Computation> WidenBf16Chains(
    const Computation& fused,
    absl::flat_hash_map<const Instruction*, const Instruction*>* origins = nullptr);

}  // namespace hlo::cpu
