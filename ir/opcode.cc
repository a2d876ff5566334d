#include "ir/opcode.h"

#include <array>

#include "absl/container/flat_hash_map.h"

namespace hlo {
namespace {

struct OpcodeInfo {
  absl::string_view name;
  int arity;
  uint32_t flags;
  AttrFamily family;
};

constexpr std::array<OpcodeInfo, kNumOpcodes> kOpcodeTable = {{
#define HLO_OPCODE_ROW(e, name, arity, flags, family) {name, arity, flags, AttrFamily::family},
    HLO_OPCODE_LIST(HLO_OPCODE_ROW)
#undef HLO_OPCODE_ROW
}};

constexpr std::array<Opcode, kNumOpcodes> kAllOpcodes = {{
#define HLO_OPCODE_ENUM(e, name, arity, flags, family) Opcode::e,
    HLO_OPCODE_LIST(HLO_OPCODE_ENUM)
#undef HLO_OPCODE_ENUM
}};

const OpcodeInfo& Info(Opcode op) { return kOpcodeTable[static_cast<int>(op)]; }

}  // namespace

absl::string_view OpcodeName(Opcode op) { return Info(op).name; }
int OpcodeArity(Opcode op) { return Info(op).arity; }
uint32_t OpcodeFlags(Opcode op) { return Info(op).flags; }
AttrFamily OpcodeAttrFamily(Opcode op) { return Info(op).family; }
absl::Span<const Opcode> AllOpcodes() { return kAllOpcodes; }

std::optional<Opcode> OpcodeFromName(absl::string_view name) {
  static const auto* by_name = [] {
    auto* m = new absl::flat_hash_map<absl::string_view, Opcode>();
    for (Opcode op : kAllOpcodes) (*m)[OpcodeName(op)] = op;
    return m;
  }();
  auto it = by_name->find(name);
  if (it == by_name->end()) return std::nullopt;
  return it->second;
}

}  // namespace hlo
