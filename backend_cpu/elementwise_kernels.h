// Elementwise kernels of the CPU backend.
//
// A kernel processes one contiguous span [begin, end) of elements: inputs[k]
// points at element 0 of operand k, output at element 0 of the result, all
// unpacked (one element per PrimitiveTypeByteSize() bytes, sub-byte types
// one per byte, pred as 0/1 bytes, f16/bf16/f8/f4 as their bit patterns,
// c64/c128 as (re, im) pairs). Operands have the result's element count
// (the plan broadcasts scalars beforehand).
//
// The kernel is chosen ONCE when planning (SelectElementwiseKernel): there is
// no per-element dispatch on opcode or type. Edge-case semantics are written
// down in docs/semantics-elementwise.md.
#pragma once

#include <cstdint>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "ir/element_type.h"
#include "ir/opcode.h"

namespace hlo::cpu {

enum class ComparisonDirection : uint8_t { kEq, kNe, kGe, kGt, kLe, kLt };
// kDefault: FLOAT for floats and complex, SIGNED for signed ints, UNSIGNED
// for unsigned ints and pred (XLA's Comparison::DefaultComparisonType).
enum class ComparisonType : uint8_t { kDefault, kFloat, kTotalOrder, kSigned, kUnsigned };

absl::StatusOr<ComparisonDirection> ParseComparisonDirection(absl::string_view s);  // "EQ".."LT"
absl::StatusOr<ComparisonType> ParseComparisonType(absl::string_view s);  // "FLOAT".. ; "" = default

// Run-time parameters of a kernel (values that do not change the choice of
// the kernel).
struct KernelParams {
  int32_t exponent_bits = 0;  // reduce-precision
  int32_t mantissa_bits = 0;  // reduce-precision
};

// Attributes of the instruction that select or parametrise the kernel.
struct ElementwiseAttrs {
  ComparisonDirection direction = ComparisonDirection::kEq;  // compare
  ComparisonType comparison_type = ComparisonType::kDefault;  // compare
  int32_t exponent_bits = 0;                                  // reduce-precision
  int32_t mantissa_bits = 0;                                  // reduce-precision

  KernelParams params() const { return KernelParams{exponent_bits, mantissa_bits}; }
};

using ElementwiseKernel = void (*)(const void* const* inputs, void* output, int64_t begin,
                                   int64_t end, const KernelParams& params);

// The kernel for an elementwise opcode (IsElementwise(op), except `map`)
// with the given operand element types and result element type. Errors
// (InvalidArgument / Unimplemented) for type combinations XLA rejects or
// that have no kernel. Operand order is the HLO operand order (select:
// pred, on_true, on_false; clamp: min, operand, max; stochastic-convert:
// operand, random bits).
absl::StatusOr<ElementwiseKernel> SelectElementwiseKernel(
    Opcode op, absl::Span<const PrimitiveType> operand_types, PrimitiveType result_type,
    const ElementwiseAttrs& attrs);

// The kernel of binary `op` on operands and result of `type` whose operand
// `scalar` (0 or 1) is a single element, inputs[scalar][0], read for every
// position; the other operand and the result are spans as above. It
// computes bit for bit what SelectElementwiseKernel's kernel computes over
// a spread copy of that element. Null where there is no such form (only
// f32 and f64 add, subtract, multiply, divide, maximum and minimum have
// one).
ElementwiseKernel SelectScalarOperandKernel(Opcode op, PrimitiveType type, int scalar);

// Default block size (elements) for splitting an elementwise op over the
// pool.
inline constexpr int64_t kElementwiseBlock = 16384;

// Runs `kernel` over n elements, split over the thread pool in fixed blocks.
void RunElementwise(ElementwiseKernel kernel, absl::Span<const void* const> inputs, void* output,
                    int64_t n, const KernelParams& params, int64_t min_block = kElementwiseBlock);

}  // namespace hlo::cpu
