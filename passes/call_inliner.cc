// call-inliner: replaces every `call` by the body of its to_apply
// computation (composite calls, calls with control edges and calls into
// another execution thread are kept). Computations left without callers
// are removed.
#include "passes/pass_util.h"
#include "passes/passes.h"

namespace hlo {
namespace passes {

// Inlines one call-like site: `site` is replaced by the clone of `callee`
// applied to `args`. Returns false (and changes nothing) if the site has
// control edges.
absl::StatusOr<bool> InlineCallSite(Instruction* site, const Computation& callee,
                                    const std::vector<Instruction*>& args) {
  if (!site->control_predecessors().empty() || !site->control_successors().empty()) return false;
  Computation* comp = site->parent();
  absl::StatusOr<Instruction*> root = InlineInto(callee, comp, args);
  if (!root.ok()) return root.status();
  absl::Status st = site->ReplaceAllUsesWith(*root);
  if (!st.ok()) return st;
  st = comp->RemoveInstruction(site);
  if (!st.ok()) return st;
  return true;
}

}  // namespace passes

namespace {

class CallInliner : public Pass {
 public:
  absl::string_view name() const override { return "call-inliner"; }
  absl::StatusOr<bool> Run(Module& module) override {
    bool changed = false;
    // Callees first: an inlined body has its own calls inlined already.
    for (Computation* comp : module.MakeComputationPostOrder()) {
      for (Instruction* inst : comp->MakePostOrder()) {
        if (inst->opcode() != Opcode::kCall || inst->AttrOr<bool>("is_composite", false)) continue;
        Computation* const* callee = inst->GetAttr<Computation*>("to_apply");
        if (callee == nullptr || *callee == nullptr) continue;
        if ((*callee)->execution_thread() != comp->execution_thread()) continue;
        absl::StatusOr<bool> done = passes::InlineCallSite(inst, **callee, inst->operands());
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

std::unique_ptr<Pass> CreateCallInlinerPass() { return std::make_unique<CallInliner>(); }

}  // namespace hlo
