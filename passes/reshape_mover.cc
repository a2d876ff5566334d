// reshape-mover (XLA's ReshapeMover): an elementwise instruction whose
// operands are all the same rearrangement -- reshapes from one source
// shape, or transposes with one permutation from one source shape -- or
// scalar-like values (rank-0 operands, broadcasts of scalars, splat
// constants) is rewritten to do the elementwise work on the sources and
// rearrange the result once:
//   add(reshape(a), reshape(b)) -> reshape(add(a, b))
//   multiply(transpose(a), broadcast(s)) -> transpose(multiply(a, broadcast'(s)))
// Moving rearrangements down lets them meet and cancel.
#include <cstring>

#include "passes/pass_util.h"
#include "passes/passes.h"

namespace hlo {
namespace {

bool IsRearrange(const Instruction& i) {
  return (i.opcode() == Opcode::kReshape || i.opcode() == Opcode::kTranspose) && i.shape().IsArray() &&
         i.operand(0)->shape().IsArray();
}

bool SameRearrange(const Instruction& a, const Instruction& b) {
  if (a.opcode() != b.opcode()) return false;
  if (a.operand(0)->shape().dims() != b.operand(0)->shape().dims()) return false;
  if (a.shape().dims() != b.shape().dims()) return false;
  if (a.opcode() == Opcode::kTranspose)
    return a.AttrOr<std::vector<int64_t>>("dimensions", {}) == b.AttrOr<std::vector<int64_t>>("dimensions", {});
  return true;
}

bool IsScalarBroadcast(const Instruction& i) {
  return i.opcode() == Opcode::kBroadcast && i.operand(0)->shape().IsScalar();
}

bool IsSplatConstant(const Instruction& i) {
  if (i.opcode() != Opcode::kConstant || !i.has_literal() || !i.shape().IsArray()) return false;
  const Literal& l = i.literal();
  if (l.elided() || l.IsTuple()) return false;
  const int eb = l.element_bytes();
  if (eb <= 0 || l.size_bytes() == 0) return false;
  for (size_t off = eb; off + eb <= l.size_bytes(); off += eb)
    if (std::memcmp(l.data(), l.data() + off, eb) != 0) return false;
  return true;
}

class ReshapeMover : public Pass {
 public:
  absl::string_view name() const override { return "reshape-mover"; }
  absl::StatusOr<bool> Run(Module& module) override {
    bool changed = false;
    for (Computation* comp : module.MakeComputationPostOrder()) {
      passes::NameUniquer names(*comp);
      for (Instruction* inst : comp->MakePostOrder()) {
        absl::StatusOr<bool> c = TryMove(comp, names, inst);
        if (!c.ok()) return c.status();
        changed |= *c;
      }
    }
    return changed;
  }

 private:
  absl::StatusOr<bool> TryMove(Computation* comp, passes::NameUniquer& names, Instruction* inst) {
    if (!IsElementwise(inst->opcode()) || inst->opcode() == Opcode::kMap || inst->operand_count() == 0 ||
        !inst->shape().IsArray() || inst->shape().rank() == 0 || inst->HasSideEffect())
      return false;
    if (!inst->control_predecessors().empty() || !inst->control_successors().empty()) return false;
    const Instruction* first = nullptr;
    for (const Instruction* op : inst->operands())
      if (IsRearrange(*op)) {
        first = op;
        break;
      }
    if (first == nullptr) return false;
    const DimVector& src_dims = first->operand(0)->shape().dims();
    if (first->shape().dims() != inst->shape().dims()) return false;
    for (const Instruction* op : inst->operands()) {
      if (op->shape().IsArray() && op->shape().rank() == 0) continue;
      if (IsRearrange(*op) && SameRearrange(*op, *first)) continue;
      if (IsScalarBroadcast(*op) || IsSplatConstant(*op)) continue;
      return false;
    }
    std::vector<Instruction*> new_ops;
    for (Instruction* op : inst->operands()) {
      if (op->shape().IsArray() && op->shape().rank() == 0) {
        new_ops.push_back(op);
      } else if (IsRearrange(*op) && SameRearrange(*op, *first)) {
        new_ops.push_back(op->operand(0));
      } else if (IsScalarBroadcast(*op)) {
        new_ops.push_back(passes::AddInst(comp, names, Opcode::kBroadcast,
                                          Shape::Array(op->shape().element_type(), src_dims),
                                          {op->operand(0)}, op->name(),
                                          {{"dimensions", AttrValue(std::vector<int64_t>{})}}));
      } else {  // splat constant
        Literal lit(Shape::Array(op->shape().element_type(), src_dims));
        const int eb = lit.element_bytes();
        for (size_t off = 0; off + eb <= lit.size_bytes(); off += eb)
          std::memcpy(lit.data() + off, op->literal().data(), eb);
        new_ops.push_back(passes::AddConstant(comp, names, std::move(lit), op->name()));
      }
    }
    Instruction* moved = passes::CopyInstruction(*inst, comp, names, new_ops);
    moved->set_shape(Shape::Array(inst->shape().element_type(), src_dims));
    Instruction* rearranged =
        passes::AddInst(comp, names, first->opcode(), inst->shape(), {moved}, first->name(), first->attrs());
    absl::Status st = inst->ReplaceAllUsesWith(rearranged);
    if (!st.ok()) return st;
    passes::RemoveIfDead(inst);
    return true;
  }
};

}  // namespace

std::unique_ptr<Pass> CreateReshapeMoverPass() { return std::make_unique<ReshapeMover>(); }

}  // namespace hlo
