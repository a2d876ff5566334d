// The verifier: structural invariants and per-opcode checks (operand
// counts, ranks, element types, attribute ranges, called computation
// signatures, result shape == inferred shape).
#pragma once

#include "absl/status/status.h"
#include "ir/module.h"

namespace hlo {

// Returns OK or an InvalidArgument status whose message holds one
// diagnostic per problem found (FormatDiagnostic form, pointing at the
// instruction's source line when known), each naming the instruction.
absl::Status VerifyModule(const Module& module);

}  // namespace hlo
