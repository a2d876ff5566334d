// tuple-simplifier: get-tuple-element(tuple(a0..an), i) -> ai, and
// tuple(gte(x,0), ..., gte(x,n-1)) -> x when x has exactly n elements of
// the same shapes.
#include "passes/pass_util.h"
#include "passes/passes.h"

namespace hlo {
namespace {

// x if `tuple` is tuple(gte(x,0), ..., gte(x,n-1)) with x of the same shape.
Instruction* TupleOfAllGtes(const Instruction& tuple) {
  if (tuple.operand_count() == 0) return nullptr;
  Instruction* source = nullptr;
  for (int64_t i = 0; i < tuple.operand_count(); ++i) {
    const Instruction* op = tuple.operand(i);
    if (op->opcode() != Opcode::kGetTupleElement || op->AttrOr<int64_t>("index", -1) != i) return nullptr;
    if (source == nullptr) source = op->operand(0);
    if (op->operand(0) != source) return nullptr;
  }
  if (!source->shape().IsTuple() || source->shape().tuple_size() != tuple.operand_count()) return nullptr;
  if (!source->shape().Compatible(tuple.shape())) return nullptr;
  return source;
}

class TupleSimplifier : public Pass {
 public:
  absl::string_view name() const override { return "tuple-simplifier"; }
  absl::StatusOr<bool> Run(Module& module) override {
    bool changed = false;
    for (Computation* comp : module.MakeComputationPostOrder()) {
      for (Instruction* inst : comp->MakePostOrder()) {
        Instruction* replacement = nullptr;
        if (inst->opcode() == Opcode::kGetTupleElement && inst->operand(0)->opcode() == Opcode::kTuple) {
          int64_t index = inst->AttrOr<int64_t>("index", -1);
          Instruction* tuple = inst->operand(0);
          if (index >= 0 && index < tuple->operand_count()) replacement = tuple->operand(index);
        } else if (inst->opcode() == Opcode::kTuple) {
          replacement = TupleOfAllGtes(*inst);
        }
        if (replacement == nullptr || !replacement->shape().Compatible(inst->shape())) continue;
        if (inst->user_count() == 0 && inst != comp->root()) continue;
        absl::Status st = inst->ReplaceAllUsesWith(replacement);
        if (!st.ok()) return st;
        passes::RemoveIfDead(inst);
        changed = true;
      }
    }
    return changed;
  }
};

}  // namespace

std::unique_ptr<Pass> CreateTupleSimplifierPass() { return std::make_unique<TupleSimplifier>(); }

}  // namespace hlo
