// Instruction attributes <-> XLA's typed HloInstructionProto fields: the
// common attributes (dimensions, slices, windows, dot/conv/gather/scatter
// dimension numbers, compare direction, fusion kind, custom-call target,
// backend config, metadata, frontend attributes, replica groups, ...) and
// the called computations. docs/protos.md lists what is not mapped.
#pragma once

#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "ir/instruction.h"
#include "proto/hlo.pb.h"

namespace hlo::proto {

// Whether `s` is valid UTF-8: XLA's `string` fields may hold nothing else
// (protobuf refuses to parse them back), so text that is not stays out of
// them (our field 1000 carries it).
bool IsUtf8(absl::string_view s);

// A mesh's axes and devices: explicit device_ids, or the iota transform of
// `device_ids=([4,16]T(1,0))` (XLA's field; XLA without it would read the
// mesh as a plain iota).
void MeshToProtoFields(const MeshAxesDeviceList& m, xla::MeshProto* p);
// The reverse (names quoted, as XLA prints them); errors start with `what`.
absl::StatusOr<MeshAxesDeviceList> MeshFromProtoFields(const xla::MeshProto& p, absl::string_view what);

// Called computations in XLA's order (while: body, then condition).
std::vector<const Computation*> CalledInXlaOrder(const Instruction& inst);

// Fills the typed fields of `out` from the instruction's attributes.
void AttrsToTypedFields(const Instruction& inst, xla::HloInstructionProto* out);

// What the reader knows about the rest of the module.
struct TypedContext {
  const absl::flat_hash_map<int64_t, std::string>* computation_names;  // by id
  // Element type (XLA enum) of the first operand, for conditional's form.
  int first_operand_type = 0;
  // The first operand's shape (null without operands): how the in-place
  // collective-permute's flat slice sizes split into lists.
  const xla::ShapeProto* first_operand_shape = nullptr;
};

// `{k="v",k2={...}}` (also the module's frontend attributes).
std::string FrontendAttributesText(const xla::FrontendAttributes& p);

// The attributes as text (`, name=value` each) from the typed fields, for
// opcode `op`.
absl::StatusOr<std::string> TypedFieldsToText(const xla::HloInstructionProto& proto, Opcode op,
                                              const TypedContext& ctx);

}  // namespace hlo::proto
