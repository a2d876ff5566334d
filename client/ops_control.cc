// Tuples, calls, control flow and random numbers.
#include "absl/strings/str_cat.h"
#include "client/ops_internal.h"

namespace hlo::client {

XlaOp Tuple(XlaBuilder* b, absl::Span<const XlaOp> elements) {
  return b->AddInstruction("Tuple", Opcode::kTuple, elements);
}

XlaOp GetTupleElement(XlaOp tuple_data, int64_t index) {
  XlaBuilder* b = tuple_data.builder();
  if (b == nullptr) return XlaOp();
  return b->AddInstruction("GetTupleElement", Opcode::kGetTupleElement, {tuple_data}, {{"index", index}});
}

XlaOp OptimizationBarrier(XlaOp operand) {
  XlaBuilder* b = operand.builder();
  if (b == nullptr) return XlaOp();
  return b->AddInstruction("OptimizationBarrier", Opcode::kOptimizationBarrier, {operand});
}

XlaOp Call(XlaBuilder* b, const XlaComputation& computation, absl::Span<const XlaOp> operands) {
  if (!b->CheckOperands("Call", operands)) return XlaOp();
  Computation* comp = internal::Use(b, "Call", computation);
  if (comp == nullptr) return XlaOp();
  return b->AddInstruction("Call", Opcode::kCall, operands, {{"to_apply", comp}});
}

XlaOp While(const XlaComputation& condition, const XlaComputation& body, XlaOp init) {
  XlaBuilder* b = init.builder();
  if (b == nullptr || !b->CheckOperands("While", {init})) return XlaOp();
  Computation* cond = internal::Use(b, "While", condition);
  Computation* bod = cond == nullptr ? nullptr : internal::Use(b, "While", body);
  if (bod == nullptr) return XlaOp();
  return b->AddInstruction("While", Opcode::kWhile, {init}, {{"condition", cond}, {"body", bod}});
}

XlaOp Conditional(XlaOp predicate, XlaOp true_operand, const XlaComputation& true_computation,
                  XlaOp false_operand, const XlaComputation& false_computation) {
  XlaBuilder* b = BuilderOf({predicate, true_operand, false_operand});
  if (b == nullptr || !b->CheckOperands("Conditional", {predicate, true_operand, false_operand})) return XlaOp();
  Computation* t = internal::Use(b, "Conditional", true_computation);
  Computation* f = t == nullptr ? nullptr : internal::Use(b, "Conditional", false_computation);
  if (f == nullptr) return XlaOp();
  return b->AddInstruction("Conditional", Opcode::kConditional, {predicate, true_operand, false_operand},
                           {{"true_computation", t}, {"false_computation", f}});
}

XlaOp Conditional(XlaOp branch_index, absl::Span<const XlaComputation* const> branch_computations,
                  absl::Span<const XlaOp> branch_operands) {
  std::vector<XlaOp> ops = {branch_index};
  ops.insert(ops.end(), branch_operands.begin(), branch_operands.end());
  XlaBuilder* b = BuilderOf(ops);
  if (b == nullptr || !b->CheckOperands("Conditional", ops)) return XlaOp();
  if (branch_computations.size() != branch_operands.size())
    return Fail(b, "Conditional",
                absl::StrCat(branch_computations.size(), " branch computations but ", branch_operands.size(),
                             " branch operands"));
  std::vector<Computation*> comps;
  for (const XlaComputation* c : branch_computations) {
    Computation* used = c == nullptr ? nullptr : internal::Use(b, "Conditional", *c);
    if (used == nullptr) return c == nullptr ? Fail(b, "Conditional", "null branch computation") : XlaOp();
    comps.push_back(used);
  }
  return b->AddInstruction("Conditional", Opcode::kConditional, ops, {{"branch_computations", std::move(comps)}});
}

namespace {
XlaOp Rng(absl::string_view op_name, const char* distribution, XlaOp a, XlaOp b_op, const Shape& shape) {
  XlaBuilder* b = BuilderOf({a, b_op});
  if (b == nullptr) return XlaOp();
  return b->AddInstruction(op_name, Opcode::kRng, {a, b_op}, {{"distribution", std::string(distribution)}},
                           shape);
}
}  // namespace

XlaOp RngUniform(XlaOp a, XlaOp b, const Shape& shape) { return Rng("RngUniform", "rng_uniform", a, b, shape); }
XlaOp RngNormal(XlaOp mu, XlaOp sigma, const Shape& shape) {
  return Rng("RngNormal", "rng_normal", mu, sigma, shape);
}

}  // namespace hlo::client
