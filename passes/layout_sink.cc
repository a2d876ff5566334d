// layout-sink: a dot whose only user relays it into another layout (a copy,
// or an identity custom call such as AwsNeuronTransferWithStaticRing) is
// given that layout itself, so the relayout (a transpose copy per run)
// goes: the dot kernel writes either order at the same cost. A narrow case
// of XLA's layout assignment, which picks producer layouts from their
// users. Values are unchanged (a layout is not part of an array's value).
// Computations called by fusions are left alone (their row plans assume
// the layouts they have).
#include "absl/container/flat_hash_set.h"
#include "backend_cpu/custom_call.h"
#include "ir/layout_index.h"
#include "passes/passes.h"

namespace hlo {
namespace {

// The layout `dot` takes from its only user, or null when it keeps its own.
const Layout* SinkableLayout(const Instruction& dot) {
  if (dot.opcode() != Opcode::kDot || dot.users().size() != 1 || !dot.control_successors().empty())
    return nullptr;
  if (dot.parent() != nullptr && dot.parent()->root() == &dot) return nullptr;
  const Instruction& user = *dot.users()[0];
  if (user.operand_count() != 1) return nullptr;
  if (user.opcode() != Opcode::kCopy && !cpu::IsIdentityCustomCall(user)) return nullptr;
  const Shape& from = dot.shape();
  const Shape& to = user.shape();
  if (!HasPlainLayout(from) || !HasPlainLayout(to) || from.element_type() != to.element_type() ||
      from.dims() != to.dims() || from.layout() == to.layout())
    return nullptr;
  return &to.layout();
}

class LayoutSink : public Pass {
 public:
  absl::string_view name() const override { return "layout-sink"; }
  absl::StatusOr<bool> Run(Module& module) override {
    absl::flat_hash_set<const Computation*> fused;
    for (const Computation* c : module.computations())
      for (const Instruction* i : c->instructions())
        if (i->opcode() == Opcode::kFusion)
          if (const Computation* body = i->AttrOr<Computation*>("calls", nullptr)) fused.insert(body);
    bool changed = false;
    for (Computation* c : module.computations()) {
      if (fused.contains(c)) continue;
      for (Instruction* i : c->instructions()) {
        const Layout* layout = SinkableLayout(*i);
        if (layout == nullptr) continue;
        i->mutable_shape().set_layout(*layout);
        changed = true;
      }
    }
    return changed;
  }
};

}  // namespace

std::unique_ptr<Pass> CreateLayoutSinkPass() { return std::make_unique<LayoutSink>(); }

}  // namespace hlo
