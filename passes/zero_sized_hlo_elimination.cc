// zero_sized_hlo_elimination: an array-shaped instruction with zero
// elements (a dimension of size 0) that has no side effects and is not a
// parameter or constant is replaced by a constant of the same shape (as
// XLA's ZeroSizedHloElimination; the constant has no elements, so no data
// changes).
#include "passes/pass_util.h"
#include "passes/passes.h"

namespace hlo {
namespace {

class ZeroSizedHloElimination : public Pass {
 public:
  absl::string_view name() const override { return "zero_sized_hlo_elimination"; }
  absl::StatusOr<bool> Run(Module& module) override {
    bool changed = false;
    for (Computation* comp : module.MakeComputationPostOrder()) {
      passes::NameUniquer names(*comp);
      for (Instruction* inst : comp->MakePostOrder()) {
        const Shape& shape = inst->shape();
        if (!shape.IsArray() || !shape.IsStatic() || shape.ElementCount() != 0) continue;
        if (inst->opcode() == Opcode::kConstant || inst->opcode() == Opcode::kParameter) continue;
        if (!inst->control_predecessors().empty() || !inst->control_successors().empty()) continue;
        if (passes::HasSideEffectDeep(*inst)) continue;
        Instruction* constant = passes::AddConstant(comp, names, Literal(shape));
        absl::Status st = inst->ReplaceAllUsesWith(constant);
        if (!st.ok()) return st;
        passes::RemoveIfDead(inst);
        changed = true;
      }
    }
    return changed;
  }
};

}  // namespace

std::unique_ptr<Pass> CreateZeroSizedHloEliminationPass() {
  return std::make_unique<ZeroSizedHloElimination>();
}

}  // namespace hlo
