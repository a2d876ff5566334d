#include "ir/element_type.h"

#include <array>

namespace hlo {
namespace {

struct TypeInfo {
  absl::string_view name;
  int bits;
  int bytes;
  TypeCategory category;
};

constexpr std::array<TypeInfo, kNumPrimitiveTypes + 1> kTypeTable = {{
#define HLO_TYPE_ROW(e, name, bits, bytes, cat) {name, bits, bytes, TypeCategory::cat},
    HLO_ELEMENT_TYPE_LIST(HLO_TYPE_ROW)
#undef HLO_TYPE_ROW
    {"invalid", 0, 0, TypeCategory::kInvalid},
}};

const TypeInfo& Info(PrimitiveType t) { return kTypeTable[static_cast<int>(t)]; }

}  // namespace

absl::string_view PrimitiveTypeName(PrimitiveType t) { return Info(t).name; }
int PrimitiveTypeBitWidth(PrimitiveType t) { return Info(t).bits; }
int PrimitiveTypeByteSize(PrimitiveType t) { return Info(t).bytes; }
TypeCategory PrimitiveTypeCategory(PrimitiveType t) { return Info(t).category; }

std::optional<PrimitiveType> PrimitiveTypeFromName(absl::string_view name) {
  if (name == "opaque_type") return PrimitiveType::OPAQUE_TYPE;
  for (int i = 0; i < kNumPrimitiveTypes; ++i) {
    if (kTypeTable[i].name == name) return static_cast<PrimitiveType>(i);
  }
  return std::nullopt;
}

PrimitiveType ComplexComponentType(PrimitiveType t) {
  if (t == PrimitiveType::C64) return PrimitiveType::F32;
  if (t == PrimitiveType::C128) return PrimitiveType::F64;
  return t;
}

}  // namespace hlo
