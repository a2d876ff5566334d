// Helpers shared by the passes: fresh names, building instructions,
// copying/inlining computations, side-effect queries, dead-code cleanup.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "ir/computation.h"
#include "ir/instruction.h"
#include "ir/module.h"
#include "ir/name_uniquer.h"

namespace hlo {
namespace passes {

// The shared uniquer (ir/name_uniquer.h), under the name passes use.
using NameUniquer = ::hlo::NameUniquer;

// Adds a new instruction with the given operands and attributes to `comp`,
// named uniquely via `names` from `base`.
Instruction* AddInst(Computation* comp, NameUniquer& names, Opcode op, Shape shape,
                     const std::vector<Instruction*>& operands, absl::string_view base,
                     std::vector<std::pair<std::string, AttrValue>> attrs = {});
Instruction* AddConstant(Computation* comp, NameUniquer& names, Literal literal,
                         absl::string_view base = "constant");
// A scalar constant of an array element type holding `value`.
Instruction* AddScalarConstant(Computation* comp, NameUniquer& names, PrimitiveType type,
                               double value);
Instruction* AddGte(Computation* comp, NameUniquer& names, Instruction* tuple, int64_t index);
Instruction* AddTuple(Computation* comp, NameUniquer& names, const std::vector<Instruction*>& elems);

// A copy of `inst` (opcode, shape, attributes, literal, parameter number,
// source location) with new operands, added to `comp` under a fresh name.
Instruction* CopyInstruction(const Instruction& inst, Computation* comp, NameUniquer& names,
                             const std::vector<Instruction*>& operands);

// Clones the body of `callee` into `comp` with its parameters replaced by
// `args`; returns the clone of callee's root. Control edges inside callee
// are copied. Nothing is replaced at the call site.
absl::StatusOr<Instruction*> InlineInto(const Computation& callee, Computation* comp,
                                        const std::vector<Instruction*>& args);

// True if `comp` (or anything it calls, transitively) contains an
// instruction with a side effect.
bool ComputationHasSideEffect(const Computation& comp);
// True if the instruction has a side effect itself or calls a computation
// that has one.
bool HasSideEffectDeep(const Instruction& inst);

// Removes `inst` and then every operand that became dead, as long as they
// have no users, no side effects, no control edges, are not parameters
// and not the root. Returns the number of instructions removed.
int64_t RemoveIfDead(Instruction* inst);

// Removes every non-entry computation not reachable from the entry through
// called computations. Returns true if any was removed.
bool RemoveUnreachableComputations(Module& module);

// Every instruction of the module that calls `comp`, per computation.
absl::flat_hash_map<const Computation*, std::vector<Instruction*>> CallersOf(const Module& module);

// Structural equality of two literals: same shape (with layout) and the
// same bytes (so -0 != 0 and NaN payloads count).
bool LiteralsIdentical(const Literal& a, const Literal& b);

// Attributes equal, ignoring metadata (the order of the lists may differ).
bool AttrsEqualIgnoringMetadata(const Instruction& a, const Instruction& b);

}  // namespace passes
}  // namespace hlo

namespace hlo {
namespace passes {
// Replaces `site` (a call-like instruction) by the clone of `callee` on
// `args` (defined in call_inliner.cc). False if the site has control edges.
absl::StatusOr<bool> InlineCallSite(Instruction* site, const Computation& callee,
                                    const std::vector<Instruction*>& args);
}  // namespace passes
}  // namespace hlo

namespace hlo {
namespace passes {
// A copy of `comp` named `new_name` (not added to a module) whose parameter
// i becomes parameter new_numbers[i], or is dropped if new_numbers[i] < 0
// (a dropped parameter must be unused). Parameter shapes are kept.
absl::StatusOr<std::unique_ptr<Computation>> CloneWithParameters(
    const Computation& comp, const std::string& new_name, const std::vector<int64_t>& new_numbers);
}  // namespace passes
}  // namespace hlo

namespace hlo {
namespace passes {
// After cloning/inlining, two async-starts may call the same wrapped
// computation (the verifier allows one chain per computation): gives every
// extra chain its own copy of the wrapped computation. True if any.
bool UnshareAsyncComputations(Module& module);
}  // namespace passes
}  // namespace hlo
