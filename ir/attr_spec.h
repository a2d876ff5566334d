// Per-family attribute specifications: which attributes an opcode accepts,
// of which kind, whether required, and the default the printer omits.
// The parser, printer and verifier are all driven by this table.
#pragma once

#include <vector>

#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "ir/opcode.h"

namespace hlo {

enum class AttrKind {
  kBool, kInt, kFloat, kString, kEnum, kIntList, kIntListList, kBoolList, kEnumList, kWindow,
  kConvDimLabels, kPaddingConfig, kSliceRanges, kShape, kShapeList, kComputation,
  kComputationList, kStringOrDict, kLiteral, kReplicaGroups, kSharding, kMetadata,
  kFrontendAttributes, kStatistics, kOutputOperandAliasing, kDomain, kResultAccuracy, kRaw,
};

struct AttrSpec {
  absl::string_view name;
  AttrKind kind;
  bool required = false;
  // Printed text of the default value; an attribute whose printed value
  // equals it is not printed. Empty: always printed when present.
  absl::string_view default_text = {};
  // kEnum / kEnumList: '|'-separated allowed values (empty = any identifier).
  absl::string_view enum_values = {};
};

// Opcode-specific attributes of a family, in canonical print order
// (called computations last).
absl::Span<const AttrSpec> FamilyAttrSpecs(AttrFamily family);
// Attributes every instruction accepts, in canonical print order after the
// opcode-specific ones: sharding, frontend_attributes, statistics,
// result_accuracy-less universal set ... (control-predecessors is handled
// by the parser/printer itself, between frontend_attributes and statistics).
absl::Span<const AttrSpec> UniversalAttrSpecs();
// Looks `name` up among the family's and the universal specs; nullptr if not allowed.
const AttrSpec* FindAttrSpec(Opcode op, absl::string_view name);

}  // namespace hlo
