// Internal to backend_cpu: per-family kernel selectors called by
// SelectElementwiseKernel once it has checked arity and type agreement.
// Each returns nullptr when the family has no kernel for (op, type).
#pragma once

#include "absl/status/statusor.h"
#include "backend_cpu/elementwise_kernels.h"
#include "ir/element_type.h"
#include "ir/opcode.h"

namespace hlo::cpu::ew {

// Float element type t (f16 ... f8e8m0fnu, f32, f64): every op whose
// operands (and, except compare/is-finite, result) have type t.
ElementwiseKernel SelectFloatKernel(Opcode op, PrimitiveType t, const ElementwiseAttrs& attrs);
// The binary op with operand `scalar` (0 or 1) one element for every
// position (SelectScalarOperandKernel), f32/f64 add, subtract, multiply,
// divide, maximum, minimum.
ElementwiseKernel SelectFloatScalarOperandKernel(Opcode op, PrimitiveType t, int scalar);
// complex(re, im) with re/im of float type t (f32 -> c64, f64 -> c128).
ElementwiseKernel SelectMakeComplexKernel(PrimitiveType t);

// Integer element type t (s1 ... u64) and pred.
ElementwiseKernel SelectIntKernel(Opcode op, PrimitiveType t, const ElementwiseAttrs& attrs);
ElementwiseKernel SelectPredKernel(Opcode op, const ElementwiseAttrs& attrs);

// Complex element type t (c64, c128). abs/real/imag produce the component type.
ElementwiseKernel SelectComplexKernel(Opcode op, PrimitiveType t, const ElementwiseAttrs& attrs);

// convert from -> to, any pair of array types.
ElementwiseKernel SelectConvertKernel(PrimitiveType from, PrimitiveType to);
ElementwiseKernel SelectConvertFromIntOrPred(PrimitiveType from, PrimitiveType to);
ElementwiseKernel SelectConvertFromWideFloat(PrimitiveType from, PrimitiveType to);   // f16 bf16 f32 f64
ElementwiseKernel SelectConvertFromSmallFloat(PrimitiveType from, PrimitiveType to);  // f8 / f4
ElementwiseKernel SelectConvertFromComplex(PrimitiveType from, PrimitiveType to);

// stochastic-convert(operand: float, random: unsigned of the same width) -> int.
ElementwiseKernel SelectStochasticConvertKernel(PrimitiveType from, PrimitiveType random,
                                                PrimitiveType to);

}  // namespace hlo::cpu::ew
