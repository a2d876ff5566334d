// cse: merges identical instructions of a computation (same opcode, shape,
// operands, attributes ignoring metadata, called computations, constant
// literal bytes; operands of commutative binary ops in either order).
// Never merges instructions with side effects (or calling computations
// with side effects), parameters, instructions with control edges, or
// collectives carrying a channel_id.
#include <algorithm>
#include <cstdint>

#include "absl/container/flat_hash_map.h"
#include "absl/hash/hash.h"
#include "passes/pass_util.h"
#include "passes/passes.h"

namespace hlo {
namespace {

bool Mergeable(const Instruction& inst) {
  if (inst.opcode() == Opcode::kParameter || inst.HasSideEffect()) return false;
  if (!inst.control_predecessors().empty() || !inst.control_successors().empty()) return false;
  if (inst.HasAttr("channel_id")) return false;
  if (inst.shape().IsToken()) return false;
  if (inst.opcode() == Opcode::kConstant && (!inst.has_literal() || inst.literal().elided())) return false;
  return !passes::HasSideEffectDeep(inst);
}

std::vector<const Instruction*> KeyOperands(const Instruction& inst) {
  std::vector<const Instruction*> ops(inst.operands().begin(), inst.operands().end());
  if (IsCommutative(inst.opcode()) && ops.size() == 2 && ops[1]->unique_id() < ops[0]->unique_id())
    std::swap(ops[0], ops[1]);
  return ops;
}

bool Identical(const Instruction& a, const Instruction& b) {
  if (a.opcode() != b.opcode() || a.shape() != b.shape()) return false;
  if (KeyOperands(a) != KeyOperands(b)) return false;
  if (a.has_literal() != b.has_literal()) return false;
  if (a.has_literal() && !passes::LiteralsIdentical(a.literal(), b.literal())) return false;
  return passes::AttrsEqualIgnoringMetadata(a, b);
}

size_t Hash(const Instruction& inst) {
  size_t h = absl::HashOf(static_cast<int>(inst.opcode()), inst.operand_count());
  for (const Instruction* op : KeyOperands(inst)) h = absl::HashOf(h, op);
  for (int64_t d : inst.shape().dims()) h = absl::HashOf(h, d);
  if (inst.has_literal() && !inst.literal().IsTuple() && inst.literal().size_bytes() > 0) {
    const Literal& l = inst.literal();
    size_t n = std::min<size_t>(l.size_bytes(), 64);
    h = absl::HashOf(h, absl::string_view(reinterpret_cast<const char*>(l.data()), n));
  }
  return h;
}

class Cse : public Pass {
 public:
  absl::string_view name() const override { return "cse"; }
  absl::StatusOr<bool> Run(Module& module) override {
    bool changed = false;
    for (Computation* comp : module.MakeComputationPostOrder()) {
      absl::flat_hash_map<size_t, std::vector<Instruction*>> seen;
      for (Instruction* inst : comp->MakePostOrder()) {
        if (!Mergeable(*inst)) continue;
        std::vector<Instruction*>& bucket = seen[Hash(*inst)];
        Instruction* match = nullptr;
        for (Instruction* cand : bucket)
          if (Identical(*cand, *inst)) {
            match = cand;
            break;
          }
        if (match == nullptr) {
          bucket.push_back(inst);
          continue;
        }
        absl::Status st = inst->ReplaceAllUsesWith(match);
        if (!st.ok()) return st;
        (void)comp->RemoveInstruction(inst);
        changed = true;
      }
    }
    return changed;
  }
};

}  // namespace

std::unique_ptr<Pass> CreateCsePass() { return std::make_unique<Cse>(); }

}  // namespace hlo
