// dce: removes dead instructions without side effects (also calls, whiles,
// conditionals whose called computations have none) and every non-entry
// computation no longer reachable from the entry.
#include "passes/pass_util.h"
#include "passes/passes.h"

namespace hlo {
namespace {

class Dce : public Pass {
 public:
  absl::string_view name() const override { return "dce"; }
  absl::StatusOr<bool> Run(Module& module) override {
    bool changed = false;
    for (Computation* comp : module.MakeComputationPostOrder()) {
      // Reverse post order: users before operands, so one sweep removes chains.
      std::vector<Instruction*> order = comp->MakePostOrder();
      for (auto it = order.rbegin(); it != order.rend(); ++it) {
        Instruction* inst = *it;
        if (inst->user_count() != 0 || inst == comp->root() || inst->opcode() == Opcode::kParameter ||
            !inst->control_successors().empty() || !inst->control_predecessors().empty() ||
            HasSideEffectDeep(*inst))
          continue;
        if (comp->RemoveInstruction(inst).ok()) changed = true;
      }
    }
    if (passes::RemoveUnreachableComputations(module)) changed = true;
    return changed;
  }

 private:
  static bool HasSideEffectDeep(const Instruction& inst) { return passes::HasSideEffectDeep(inst); }
};

}  // namespace

std::unique_ptr<Pass> CreateDcePass() { return std::make_unique<Dce>(); }

}  // namespace hlo
