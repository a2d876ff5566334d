// simplify-conditional: a conditional whose branch is known is replaced by
// that branch's body (inlined directly):
//  * constant predicate (pred form): true -> true_computation, false ->
//    false_computation;
//  * constant branch index: that branch; out of range -> the last branch
//    (XLA's semantics: N-1 runs for an index outside [0, N));
//  * a single branch (branch_computations={b}): always b.
// Conditionals with control edges are kept.
#include "passes/pass_util.h"
#include "passes/passes.h"

namespace hlo {
namespace {

// The branch computations in operand order (operand i+1 feeds branch i).
std::vector<Computation*> Branches(const Instruction& cond) {
  if (auto* list = cond.GetAttr<std::vector<Computation*>>("branch_computations")) return *list;
  std::vector<Computation*> out;
  auto* t = cond.GetAttr<Computation*>("true_computation");
  auto* f = cond.GetAttr<Computation*>("false_computation");
  if (t && f && *t && *f) out = {*t, *f};
  return out;
}

// The branch that runs, or -1 if unknown.
int64_t KnownBranch(const Instruction& cond, int64_t num_branches) {
  const Instruction* selector = cond.operand(0);
  if (num_branches == 1) return 0;
  if (selector->opcode() != Opcode::kConstant || !selector->has_literal()) return -1;
  const Literal& lit = selector->literal();
  if (!lit.shape().IsScalar() || lit.elided()) return -1;
  if (lit.shape().element_type() == PrimitiveType::PRED) return lit.GetInt(0) != 0 ? 0 : 1;
  int64_t index = lit.GetInt(0);
  if (index < 0 || index >= num_branches) index = num_branches - 1;
  return index;
}

class ConditionalSimplifier : public Pass {
 public:
  absl::string_view name() const override { return "simplify-conditional"; }
  absl::StatusOr<bool> Run(Module& module) override {
    bool changed = false;
    for (Computation* comp : module.MakeComputationPostOrder()) {
      for (Instruction* inst : comp->MakePostOrder()) {
        if (inst->opcode() != Opcode::kConditional || inst->operand_count() < 2) continue;
        std::vector<Computation*> branches = Branches(*inst);
        if (branches.empty() || static_cast<int64_t>(branches.size()) != inst->operand_count() - 1) continue;
        int64_t b = KnownBranch(*inst, static_cast<int64_t>(branches.size()));
        if (b < 0) continue;
        if (branches[b]->execution_thread() != comp->execution_thread()) continue;
        absl::StatusOr<bool> done = passes::InlineCallSite(inst, *branches[b], {inst->operand(b + 1)});
        if (!done.ok()) return done.status();
        changed |= *done;
      }
    }
    if (changed) passes::RemoveUnreachableComputations(module);
    if (changed) passes::UnshareAsyncComputations(module);
    return changed;
  }
};

}  // namespace

std::unique_ptr<Pass> CreateConditionalSimplifierPass() {
  return std::make_unique<ConditionalSimplifier>();
}

}  // namespace hlo
