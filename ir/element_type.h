// Element (primitive) types of HLO shapes: one table gives each type its
// text name, logical bit width, storage size and category.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "absl/strings/string_view.h"

namespace hlo {

enum class TypeCategory { kPred, kSigned, kUnsigned, kFloat, kComplex, kToken, kOpaque, kInvalid };

// V(enumerator, text name, logical bits, storage bytes per element, category)
// Sub-byte integer/float types are stored one element per byte unless a
// layout's element_size_in_bits says otherwise.
#define HLO_ELEMENT_TYPE_LIST(V)                                  \
  V(PRED, "pred", 8, 1, kPred)                                    \
  V(S1, "s1", 1, 1, kSigned)                                      \
  V(S2, "s2", 2, 1, kSigned)                                      \
  V(S4, "s4", 4, 1, kSigned)                                      \
  V(S8, "s8", 8, 1, kSigned)                                      \
  V(S16, "s16", 16, 2, kSigned)                                   \
  V(S32, "s32", 32, 4, kSigned)                                   \
  V(S64, "s64", 64, 8, kSigned)                                   \
  V(U1, "u1", 1, 1, kUnsigned)                                    \
  V(U2, "u2", 2, 1, kUnsigned)                                    \
  V(U4, "u4", 4, 1, kUnsigned)                                    \
  V(U8, "u8", 8, 1, kUnsigned)                                    \
  V(U16, "u16", 16, 2, kUnsigned)                                 \
  V(U32, "u32", 32, 4, kUnsigned)                                 \
  V(U64, "u64", 64, 8, kUnsigned)                                 \
  V(F16, "f16", 16, 2, kFloat)                                    \
  V(BF16, "bf16", 16, 2, kFloat)                                  \
  V(F32, "f32", 32, 4, kFloat)                                    \
  V(F64, "f64", 64, 8, kFloat)                                    \
  V(F8E5M2, "f8e5m2", 8, 1, kFloat)                               \
  V(F8E4M3, "f8e4m3", 8, 1, kFloat)                               \
  V(F8E4M3FN, "f8e4m3fn", 8, 1, kFloat)                           \
  V(F8E4M3B11FNUZ, "f8e4m3b11fnuz", 8, 1, kFloat)                 \
  V(F8E3M4, "f8e3m4", 8, 1, kFloat)                               \
  V(F8E5M2FNUZ, "f8e5m2fnuz", 8, 1, kFloat)                       \
  V(F8E4M3FNUZ, "f8e4m3fnuz", 8, 1, kFloat)                       \
  V(F4E2M1FN, "f4e2m1fn", 4, 1, kFloat)                           \
  V(F8E8M0FNU, "f8e8m0fnu", 8, 1, kFloat)                         \
  V(C64, "c64", 64, 8, kComplex)                                  \
  V(C128, "c128", 128, 16, kComplex)                              \
  V(TOKEN, "token", 0, 0, kToken)                                 \
  V(OPAQUE_TYPE, "opaque", 0, 0, kOpaque)

enum class PrimitiveType : uint8_t {
#define HLO_DECLARE_TYPE(e, name, bits, bytes, cat) e,
  HLO_ELEMENT_TYPE_LIST(HLO_DECLARE_TYPE)
#undef HLO_DECLARE_TYPE
      kInvalid,  // not a real type: "unset"
};

inline constexpr int kNumPrimitiveTypes = static_cast<int>(PrimitiveType::kInvalid);

// Text name, e.g. "f32". kInvalid -> "invalid".
absl::string_view PrimitiveTypeName(PrimitiveType t);
// Reverse lookup of a text name ("opaque_type" is accepted for opaque).
std::optional<PrimitiveType> PrimitiveTypeFromName(absl::string_view name);
// Logical width in bits (pred: 8 storage, 1 logical is not modelled; 8).
int PrimitiveTypeBitWidth(PrimitiveType t);
// Bytes one element occupies in an unpacked buffer (0 for token/opaque).
int PrimitiveTypeByteSize(PrimitiveType t);
TypeCategory PrimitiveTypeCategory(PrimitiveType t);

inline bool IsPred(PrimitiveType t) { return t == PrimitiveType::PRED; }
inline bool IsSignedInt(PrimitiveType t) { return PrimitiveTypeCategory(t) == TypeCategory::kSigned; }
inline bool IsUnsignedInt(PrimitiveType t) { return PrimitiveTypeCategory(t) == TypeCategory::kUnsigned; }
inline bool IsInteger(PrimitiveType t) { return IsSignedInt(t) || IsUnsignedInt(t); }
inline bool IsFloat(PrimitiveType t) { return PrimitiveTypeCategory(t) == TypeCategory::kFloat; }
inline bool IsComplex(PrimitiveType t) { return PrimitiveTypeCategory(t) == TypeCategory::kComplex; }
inline bool IsFloatOrComplex(PrimitiveType t) { return IsFloat(t) || IsComplex(t); }
// Types an array shape may have (everything but token/opaque/invalid).
inline bool IsArrayType(PrimitiveType t) {
  auto c = PrimitiveTypeCategory(t);
  return c != TypeCategory::kToken && c != TypeCategory::kOpaque && c != TypeCategory::kInvalid;
}
// Component type of a complex type (c64 -> f32, c128 -> f64); t otherwise.
PrimitiveType ComplexComponentType(PrimitiveType t);

}  // namespace hlo
