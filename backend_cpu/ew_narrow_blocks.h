// Internal to backend_cpu: block conversions between the narrow float types
// (f16, bf16, the f8 types, f4e2m1fn) and f32, for the kernels that compute
// those types in f32 blocks (dot, ragged-dot, convolution).
//
// They replace a per-element round trip through double (Literal::GetDouble /
// SetDouble: a switch, a frexp/ldexp decode or encode per element) and give
// exactly its bits, NaNs included:
//   * decode = static_cast<float>(DecodeFloat(t, bits)): values are exact;
//     a NaN keeps its sign and payload (moved to the top of the f32
//     mantissa) and is quiet, because the hardware double -> float
//     conversion of the former path sets the quiet bit;
//   * encode = EncodeFloat(t, static_cast<double>(f)): round to nearest
//     even once; the widening to double quiets a NaN first, so an f16/bf16
//     NaN is the quiet NaN with the top payload bits of the f32 NaN.
// bf16 is a 16-bit shift each way (plus the rounding increment), f16 uses
// the F16C instructions when the CPU has them (chosen once, at first use;
// a portable loop otherwise, same bits), the 8-bit types a decode table and
// EncodeFloat per element.
#pragma once

#include <cstdint>

#include "ir/element_type.h"

namespace hlo::cpu {

// True for the types NarrowToF32 / F32ToNarrow take: f16, bf16, f8*, f4e2m1fn.
bool IsBlockConvertible(PrimitiveType t);

// dst[i] = decoded src element i (storage of type t: 2 bytes for f16/bf16,
// one byte for the others), for i < n.
void NarrowToF32(PrimitiveType t, const void* src, float* dst, int64_t n);

// dst element i = src[i] encoded in type t, for i < n.
void F32ToNarrow(PrimitiveType t, const float* src, void* dst, int64_t n);

// Off: the linear-algebra kernels go back to the per-element path through
// double (tests compare both bit for bit). On by default; not thread-safe
// against running kernels.
void SetNarrowBlockConversion(bool enabled);
bool NarrowBlockConversionEnabled();

namespace narrow_internal {
// Whether the F16C loops are in use, and the portable loops they replace
// (tests check that both give the same bits).
bool UsesF16c();
void F16ToF32Portable(const uint16_t* src, float* dst, int64_t n);
void F32ToF16Portable(const float* src, uint16_t* dst, int64_t n);
}  // namespace narrow_internal

}  // namespace hlo::cpu
