// Shape rules: tuples, calls, fusion, while, conditional, async and copy-start ops.
// Part of ir/shape_inference (see shape_inference_internal.h).
#include "ir/shape_inference_internal.h"

namespace hlo::shape_internal {
namespace {


bool IsAsyncStartLike(Opcode op) { return op == Opcode::kAsyncStart || op == Opcode::kAsyncUpdate; }

}  // namespace

// Tuples and control flow
// ---------------------------------------------------------------------------

absl::StatusOr<Shape> GetTupleElement(const Ctx& c) {
  HLO_RETURN_IF_ERROR(ExpectCount(c, 1));
  const Shape& t = c.op(0);
  if (!t.IsTuple()) return Invalid("get-tuple-element needs a tuple operand, got ", S(t));
  HLO_ASSIGN_OR_RETURN(int64_t i, Int(c, "index"));
  if (i < 0 || i >= t.tuple_size())
    return Invalid("get-tuple-element index ", i, " is out of range for ", S(t), " (", t.tuple_size(),
                   " elements)");
  return t.tuple_shape(i);
}

absl::StatusOr<Shape> Call(const Ctx& c) {
  HLO_ASSIGN_OR_RETURN(const Computation* comp, Comp(c, "to_apply"));
  HLO_RETURN_IF_ERROR(CheckParamsMatch(c, comp, "to_apply", OperandShapes(c)));
  return Root(comp);
}

absl::StatusOr<Shape> Fusion(const Ctx& c) {
  HLO_ASSIGN_OR_RETURN(const Computation* comp, Comp(c, "calls"));
  // XLA lets a fusion pass more operands than the fused computation uses.
  if (comp->num_parameters() > c.n())
    return Invalid("fused computation ", comp->name(), " has ", comp->num_parameters(),
                   " parameters, more than the ", c.n(), " operands of the fusion");
  for (int64_t i = 0; i < comp->num_parameters(); ++i) {
    const Instruction* p = Param(comp, i);
    if (p == nullptr) return Invalid("fused computation ", comp->name(), " is missing parameter ", i);
    if (!ShapesCompatible(p->shape(), c.op(i)))
      return Invalid("fused computation ", comp->name(), " parameter ", i, " has shape ", S(p->shape()),
                     " but operand ", i, " has shape ", S(c.op(i)));
  }
  return Root(comp);
}

absl::StatusOr<Shape> While(const Ctx& c) {
  HLO_RETURN_IF_ERROR(ExpectCount(c, 1));
  const Shape& init = c.op(0);
  HLO_ASSIGN_OR_RETURN(const Computation* cond, Comp(c, "condition"));
  HLO_ASSIGN_OR_RETURN(const Computation* body, Comp(c, "body"));
  HLO_RETURN_IF_ERROR(CheckParamsMatch(c, cond, "condition", {init}));
  HLO_RETURN_IF_ERROR(CheckParamsMatch(c, body, "body", {init}));
  if (!Root(cond).IsScalar() || !IsPred(Root(cond).element_type()))
    return Invalid("while condition ", cond->name(), " must return pred[], returns ", S(Root(cond)));
  if (!ShapesCompatible(Root(body), init))
    return Invalid("while body ", body->name(), " returns ", S(Root(body)),
                   " but the loop state (operand 0) has shape ", S(init));
  return init;
}

absl::StatusOr<Shape> Conditional(const Ctx& c) {
  HLO_RETURN_IF_ERROR(ExpectCountAtLeast(c, 1));
  const Shape& p = c.op(0);
  if (!p.IsScalar() || (p.element_type() != PrimitiveType::PRED && p.element_type() != PrimitiveType::S32))
    return Invalid("The first operand must be a scalar of PRED or S32, got ", S(p));
  std::vector<const Computation*> branches;
  if (p.element_type() == PrimitiveType::PRED) {
    if (c.inst.HasAttr("branch_computations") && !c.inst.HasAttr("true_computation"))
      return Invalid("conditional with a pred selector needs true_computation and false_computation");
    HLO_ASSIGN_OR_RETURN(const Computation* t, Comp(c, "true_computation"));
    HLO_ASSIGN_OR_RETURN(const Computation* f, Comp(c, "false_computation"));
    branches = {t, f};
  } else {
    const auto* v = c.inst.GetAttr<std::vector<Computation*>>("branch_computations");
    if (v == nullptr) return Invalid("conditional with an s32 selector needs branch_computations");
    if (v->empty()) return Invalid("conditional needs at least one branch computation");
    for (const Computation* b : *v) {
      if (b == nullptr || b->root() == nullptr) return Invalid("conditional branch computation has no root");
      branches.push_back(b);
    }
  }
  if (c.n() != 1 + static_cast<int64_t>(branches.size()))
    return Invalid("conditional with ", branches.size(), " branches expects ", branches.size() + 1,
                   " operands, got ", c.n());
  for (size_t i = 0; i < branches.size(); ++i) {
    HLO_RETURN_IF_ERROR(CheckParamsMatch(c, branches[i], absl::StrCat("branch ", i), {c.op(i + 1)}));
    if (!ShapesCompatible(Root(branches[i]), Root(branches[0])))
      return Invalid("conditional branch ", i, " (", branches[i]->name(), ") returns ", S(Root(branches[i])),
                     " but branch 0 (", branches[0]->name(), ") returns ", S(Root(branches[0])));
  }
  return Root(branches[0]);
}

absl::StatusOr<Shape> AsyncStart(const Ctx& c) {
  HLO_ASSIGN_OR_RETURN(const Computation* comp, Comp(c, "calls"));
  HLO_RETURN_IF_ERROR(CheckParamsMatch(c, comp, "calls", OperandShapes(c)));
  const Shape& w = c.inst.shape();
  if (!w.IsTuple() || w.tuple_size() < 2)
    return Invalid(
        "AsyncStart expects the op shape to be in the form of ((async-operands), async-outputs, "
        "state), got ",
        S(w));
  std::vector<Shape> elems{Shape::Tuple(OperandShapes(c)), Root(comp)};
  for (int64_t i = 2; i < w.tuple_size(); ++i) elems.push_back(w.tuple_shape(i));
  return Shape::Tuple(elems);
}

absl::StatusOr<Shape> AsyncUpdateDone(const Ctx& c) {
  HLO_RETURN_IF_ERROR(ExpectCount(c, 1));
  const Instruction* prev = c.inst.operand(0);
  if (!IsAsyncStartLike(prev->opcode()))
    return Invalid("AsyncUpdate and AsyncDone expect a single async op as their operand, got ",
                   OpcodeName(prev->opcode()));
  const Shape& s = prev->shape();
  if (!s.IsTuple() || s.tuple_size() < 2)
    return Invalid(c.name(), " operand must have an async shape ((operands), outputs, state), got ", S(s));
  if (c.inst.opcode() == Opcode::kAsyncUpdate) return s;
  return s.tuple_shape(1);
}

}  // namespace hlo::shape_internal
