// transpose-folding: a dot whose operand is a transpose reads the
// transpose's operand directly, with its batch and contracting dimension
// numbers mapped through the permutation (XLA's TransposeFolding for
// dots). The CPU dot kernel then reads the operand through BLAS's transpose
// flags (or packs it once) instead of a separate transpose writing a whole
// copy first: dot-canonicalize's [K, M] -> [M, K] transposes of weights are
// the common case. Folded only when the result keeps its dimension order,
// i.e. the transposed operand's free dimensions stay in ascending order.
// Runs after the simplification loop (dot-canonicalize would undo it).
#include <vector>

#include "passes/passes.h"

namespace hlo {
namespace {

std::vector<int64_t> IntList(const Instruction& x, absl::string_view name) {
  const auto* v = x.GetAttr<std::vector<int64_t>>(name);
  return v ? *v : std::vector<int64_t>{};
}

// Folds operand `i` (0 = lhs, 1 = rhs) of `dot` if it is a foldable
// transpose; returns whether it did.
bool FoldOperand(Instruction* dot, int i) {
  Instruction* t = dot->operand(i);
  if (t->opcode() != Opcode::kTranspose) return false;
  const auto* perm = t->GetAttr<std::vector<int64_t>>("dimensions");
  const int64_t rank = t->shape().rank();
  if (perm == nullptr || static_cast<int64_t>(perm->size()) != rank) return false;
  const std::string side = i == 0 ? "lhs" : "rhs";
  std::vector<int64_t> batch = IntList(*dot, side + "_batch_dims");
  std::vector<int64_t> contracting = IntList(*dot, side + "_contracting_dims");
  std::vector<bool> used(rank, false);
  for (int64_t d : batch) used[d] = true;
  for (int64_t d : contracting) used[d] = true;
  // The result lists free dims in ascending operand order: after folding
  // they must come out in the same order.
  int64_t last = -1;
  for (int64_t d = 0; d < rank; ++d) {
    if (used[d]) continue;
    if ((*perm)[d] < last) return false;
    last = (*perm)[d];
  }
  for (int64_t& d : batch) d = (*perm)[d];
  for (int64_t& d : contracting) d = (*perm)[d];
  dot->SetAttr(side + "_batch_dims", batch);
  dot->SetAttr(side + "_contracting_dims", contracting);
  dot->ReplaceOperand(i, t->operand(0));
  return true;
}

class TransposeFolding : public Pass {
 public:
  absl::string_view name() const override { return "transpose-folding"; }
  absl::StatusOr<bool> Run(Module& module) override {
    bool changed = false;
    for (Computation* comp : module.MakeComputationPostOrder()) {
      for (Instruction* inst : comp->MakePostOrder()) {
        if (inst->opcode() != Opcode::kDot || inst->HasAttr("sparsity")) continue;
        for (int i = 0; i < 2; ++i) changed |= FoldOperand(inst, i);
      }
    }
    return changed;
  }
};

}  // namespace

std::unique_ptr<Pass> CreateTransposeFoldingPass() { return std::make_unique<TransposeFolding>(); }

}  // namespace hlo
