// Small graph-editing helpers shared by the algsimp, constant_folding and
// dot-canonicalize passes: unique names, instruction builders with explicit
// result shapes (default layouts), scalar-like constant queries and
// replacement with cleanup of the instructions the replacement made dead.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "ir/computation.h"
#include "ir/instruction.h"
#include "ir/literal.h"
#include "ir/module.h"

namespace hlo::passes_internal {

// Adds new instructions to one computation with names unique in it.
class Builder {
 public:
  explicit Builder(Computation* comp);
  Computation* computation() const { return comp_; }

  // A fresh name `base.N` not used in the computation.
  std::string UniqueName(absl::string_view base);
  // Adds an instruction (operands appended in order). The shape is taken
  // as given; a default layout is filled in if missing.
  Instruction* Add(Opcode op, Shape shape, absl::Span<Instruction* const> operands);

  Instruction* Constant(Literal lit);
  // A scalar constant of `type` holding `v` (ints via SetInt, floats via SetDouble).
  Instruction* ScalarConstant(PrimitiveType type, double v);
  Instruction* ScalarIntConstant(PrimitiveType type, int64_t v);
  Instruction* Broadcast(Instruction* x, const Shape& shape, std::vector<int64_t> dims);
  // A scalar broadcast to `shape` (the scalar itself if `shape` is a scalar).
  Instruction* BroadcastScalar(Instruction* scalar, const Shape& shape);
  Instruction* Reshape(Instruction* x, absl::Span<const int64_t> dims);
  // Transpose by `perm` (result dim i = operand dim perm[i]); x if identity.
  Instruction* Transpose(Instruction* x, const std::vector<int64_t>& perm);
  Instruction* Unary(Opcode op, Instruction* x);
  Instruction* Binary(Opcode op, Instruction* a, Instruction* b);

 private:
  Computation* comp_;
  absl::flat_hash_set<std::string> names_;
  bool names_filled_ = false;
  int64_t counter_ = 0;
};

// Array shape with the same dims/type and a default layout.
Shape DefaultLayoutShape(const Shape& s);
Shape ArrayShape(PrimitiveType t, absl::Span<const int64_t> dims);

// If `x` is a constant (or a broadcast of a constant, looking through
// nested broadcasts/reshapes of constants) whose elements are all equal,
// returns that constant's literal and a slot holding the common value.
struct ScalarLike {
  const Literal* lit = nullptr;
  int64_t slot = 0;
};
std::optional<ScalarLike> GetScalarLike(const Instruction* x);

// Value predicates on scalar-like constants (false when not scalar-like).
bool IsIntValue(const Instruction* x, int64_t v);          // integer/pred types only
bool IsFloatValue(const Instruction* x, double v);         // float types; 0 matches +0 only
bool IsNegativeZero(const Instruction* x);                 // float -0.0
bool IsAllOnesBits(const Instruction* x);                  // ints: all bits set; pred: true

// True if the instruction can be rewritten/removed by a pass: no control
// edges, no side effect.
bool IsRewritable(const Instruction* x);

// Instructions of `comp` that are dead now (no users, not the root).
absl::flat_hash_set<const Instruction*> DeadSet(const Computation& comp);
// Removes, repeatedly, dead instructions (no users, not root, no side
// effect or control edge, not a parameter) that are not in
// `initially_dead`: the ones a pass's rewrites made dead. Dead code that
// was already in the input is left alone. Returns the number removed.
int64_t RemoveNewlyDead(Computation* comp, const absl::flat_hash_set<const Instruction*>& initially_dead);

// Computations called by fusion instructions (passes leave them alone).
absl::flat_hash_set<const Computation*> FusionComputations(const Module& module);

// The sweep of the one-rewrite-per-instruction passes: for every computation
// not called by a fusion, in callee-first order, visits the instructions
// live at the start in post order (operands first, so chains collapse in
// one sweep), replaces every use of x by rewrite(x, builder) unless that is
// nullptr, then removes what the rewrites made dead. Scheduled modules are
// left alone (their list order is the schedule; new instructions would
// land after their users). Returns whether anything was replaced.
using RewriteFn = std::function<absl::StatusOr<Instruction*>(Instruction*, Builder&)>;
absl::StatusOr<bool> ReplaceInPostOrder(Module& module, const RewriteFn& rewrite);

}  // namespace hlo::passes_internal
