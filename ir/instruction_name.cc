#include "ir/instruction_name.h"

#include "absl/strings/match.h"
#include "ir/element_type.h"

namespace hlo {
namespace {

bool IsLetter(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
bool IsNameChar(char c) {
  return IsLetter(c) || (c >= '0' && c <= '9') || c == '_' || c == '.' || c == '-';
}
bool HasReservedPrefix(absl::string_view name) {
  return absl::StartsWith(name, "__") && !absl::StartsWith(name, "__xla_");
}

}  // namespace

bool IsReservedTypeName(absl::string_view name) {
  for (int i = 0; i < kNumPrimitiveTypes; ++i)
    if (PrimitiveTypeName(static_cast<PrimitiveType>(i)) == name) return true;
  // XLA's 6-bit floats (jaxlib 0.10 reserves them): no element type here,
  // so `f6e2m3fn[2]` is still rejected as a shape, but the names are taken.
  return name == "f6e2m3fn" || name == "f6e3m2fn";
}

std::string SanitizedInstructionName(absl::string_view name) {
  std::string out(name);
  if (out.empty()) return out;
  if (!IsLetter(out[0]) && out[0] != '_') out[0] = '_';
  for (size_t i = 1; i < out.size(); ++i)
    if (!IsNameChar(out[i])) out[i] = '_';
  if (IsReservedTypeName(out)) out += '_';
  if (HasReservedPrefix(out)) out[0] = 'a';
  return out;
}

bool IsLegalInstructionName(absl::string_view name) {
  if (name.empty() || !(IsLetter(name[0]) || name[0] == '_')) return false;
  for (char c : name)
    if (!IsNameChar(c)) return false;
  return !IsReservedTypeName(name) && !HasReservedPrefix(name);
}

}  // namespace hlo
