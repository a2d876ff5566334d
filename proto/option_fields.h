// The per-op option fields of HloInstructionProto beyond the common ones of
// typed_fields.h: sharding (and domain shardings), precision config,
// collective-permute pairs, output/operand aliasing, custom-call options
// (API version, schedule, operand layouts), rng distribution and algorithm,
// triangular-solve and Cholesky options, send/recv host transfer, infeed /
// outfeed configs, parameter replication, statistics, result accuracy,
// conv_kind, sparse dots (dot_sparsity), original values (origin=) and the
// in-place collective-permute's slice sizes.
// Values are converted to and from the IR's attribute values; the reader
// prints them with the text printer (AttrValueToString).
#pragma once

#include <functional>
#include <string>

#include "absl/status/status.h"
#include "ir/instruction.h"
#include "proto/hlo.pb.h"

namespace hlo::proto {

// Fills the field of attribute `name` when it is one of this file's; false
// when the attribute is not (the caller tries the common fields).
bool OptionAttrToProto(const Instruction& inst, const std::string& name, const AttrValue& value,
                       xla::HloInstructionProto* p);

// Calls add(name, value text) for every option field set in `p` that
// opcode `op` takes.
using AddAttr = std::function<void(absl::string_view name, absl::string_view value)>;
absl::Status OptionFieldsToText(const xla::HloInstructionProto& p, Opcode op, const AddAttr& add);

}  // namespace hlo::proto
