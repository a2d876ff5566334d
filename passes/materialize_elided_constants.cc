// materialize-elided-constants: a constant written `{...}` (its values
// elided, as real dumps print large constants) holds the deterministic
// values the parser filled in; this pass marks them as written, so the
// printer prints them and later passes may fold them. Another runner (XLA
// itself, tools/xla_peer.py) fed the printed module then computes with the
// same values hlo-run uses. Not in the -O pipeline: it changes the text, not
// the values.
#include "passes/passes.h"

namespace hlo {
namespace {

void Materialize(Literal& literal, bool* changed) {
  if (literal.IsTuple()) {
    for (Literal& e : literal.mutable_tuple_elements()) Materialize(e, changed);
  }
  if (literal.elided()) {
    literal.set_elided(false);
    *changed = true;
  }
}

class MaterializeElidedConstants : public Pass {
 public:
  absl::string_view name() const override { return "materialize-elided-constants"; }
  absl::StatusOr<bool> Run(Module& module) override {
    bool changed = false;
    for (Computation* comp : module.MakeComputationPostOrder())
      for (Instruction* inst : comp->MakePostOrder())
        if (inst->opcode() == Opcode::kConstant && inst->has_literal())
          Materialize(inst->mutable_literal(), &changed);
    return changed;
  }
};

}  // namespace

std::unique_ptr<Pass> CreateMaterializeElidedConstantsPass() {
  return std::make_unique<MaterializeElidedConstants>();
}

}  // namespace hlo
