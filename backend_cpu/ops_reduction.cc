// The reduction family: reduce, reduce-window, select-and-scatter (in
// ops_reduce.cc), map (here), sort and topk (ops_sort.cc), scan
// (ops_scan.cc). The helpers for running called computations on scalars
// (scalar_calls.h) are defined here too. Semantics choices are written
// down in docs/ops-reduction.md.
#include <cstring>

#include "absl/strings/str_cat.h"
#include "backend_cpu/elementwise_kernels.h"
#include "backend_cpu/op_eval.h"
#include "backend_cpu/scalar_calls.h"

namespace hlo::cpu {

// ---- family members defined in the other ops_*.cc files of the family ----
absl::StatusOr<Literal> EvalReduceOp(const Instruction&, absl::Span<const Literal* const>, OpContext&);
absl::StatusOr<Literal> EvalReduceWindowOp(const Instruction&, absl::Span<const Literal* const>,
                                           OpContext&);
absl::StatusOr<Literal> EvalSelectAndScatterOp(const Instruction&, absl::Span<const Literal* const>,
                                               OpContext&);
absl::StatusOr<Literal> EvalSortOp(const Instruction&, absl::Span<const Literal* const>, OpContext&);
absl::StatusOr<Literal> EvalTopKOp(const Instruction&, absl::Span<const Literal* const>, OpContext&);
absl::StatusOr<Literal> EvalScanOp(const Instruction&, absl::Span<const Literal* const>, OpContext&);

// ---- scalar_calls.h ----

absl::Status CopyScalarInto(const Literal& src, int64_t slot, Literal* dst) {
  const PrimitiveType st = src.shape().element_type();
  const PrimitiveType dt = dst->shape().element_type();
  if (st == dt) {
    const int b = src.element_bytes();
    std::memcpy(dst->data(), src.data() + slot * b, b);
    return absl::OkStatus();
  }
  if (IsFloat(st) && IsFloat(dt)) {
    dst->SetDouble(0, src.GetDouble(slot));
    return absl::OkStatus();
  }
  if (IsComplex(st) && IsComplex(dt)) {
    dst->SetComplex(0, src.GetComplex(slot));
    return absl::OkStatus();
  }
  return absl::InvalidArgumentError(absl::StrCat("cannot pass a ", PrimitiveTypeName(st),
                                                 " value to a ", PrimitiveTypeName(dt),
                                                 " parameter"));
}

absl::Status CopyScalarOut(const Literal& src, Literal* dst, int64_t slot) {
  if (!src.shape().IsArray() || src.shape().rank() != 0)
    return absl::InvalidArgumentError("called computation did not return a scalar");
  const PrimitiveType st = src.shape().element_type();
  const PrimitiveType dt = dst->shape().element_type();
  if (st == dt) {
    const int b = src.element_bytes();
    std::memcpy(dst->data() + slot * b, src.data(), b);
    return absl::OkStatus();
  }
  if (IsFloat(st) && IsFloat(dt)) {
    dst->SetDouble(slot, src.GetDouble(0));
    return absl::OkStatus();
  }
  if (IsComplex(st) && IsComplex(dt)) {
    dst->SetComplex(slot, src.GetComplex(0));
    return absl::OkStatus();
  }
  return absl::InvalidArgumentError(absl::StrCat("cannot store a ", PrimitiveTypeName(st),
                                                 " result into a ", PrimitiveTypeName(dt), " array"));
}

Literal ScalarLiteralOfParam(const Computation& comp, int64_t i) {
  return Literal(Shape::Scalar(comp.parameter(i)->shape().element_type()));
}

namespace {

// ---------------------------------------------------------------- map

// map whose to_apply is one elementwise op applied to parameters (in any
// order): the elementwise kernel over the whole arrays.
bool TryMapFast(const Instruction& instr, const Computation& comp,
                const std::vector<const Literal*>& ins, Literal* out) {
  const Instruction* root = comp.root();
  if (root == nullptr || !root->shape().IsScalar()) return false;
  if (!IsElementwise(root->opcode()) || root->opcode() == Opcode::kMap) return false;
  std::vector<const void*> ptrs;
  std::vector<PrimitiveType> types;
  for (const Instruction* op : root->operands()) {
    if (op->opcode() != Opcode::kParameter) return false;
    const int64_t p = op->parameter_number();
    if (p < 0 || p >= static_cast<int64_t>(ins.size())) return false;
    if (ins[p]->shape().element_type() != op->shape().element_type()) return false;
    ptrs.push_back(ins[p]->data());
    types.push_back(op->shape().element_type());
  }
  if (ptrs.empty()) return false;
  ElementwiseAttrs attrs;
  if (root->opcode() == Opcode::kCompare) {
    const std::string* dir = root->GetAttr<std::string>("direction");
    if (dir == nullptr) return false;
    auto d = ParseComparisonDirection(*dir);
    if (!d.ok()) return false;
    attrs.direction = *d;
    auto t = ParseComparisonType(root->AttrOr<std::string>("type", ""));
    if (!t.ok()) return false;
    attrs.comparison_type = *t;
  } else if (root->opcode() == Opcode::kReducePrecision) {
    attrs.exponent_bits = static_cast<int32_t>(root->AttrOr<int64_t>("exponent_bits", 0));
    attrs.mantissa_bits = static_cast<int32_t>(root->AttrOr<int64_t>("mantissa_bits", 0));
  } else if (root->operand_count() > 3) {
    return false;
  }
  if (root->shape().element_type() != instr.shape().element_type()) return false;
  auto kernel = SelectElementwiseKernel(root->opcode(), types, root->shape().element_type(), attrs);
  if (!kernel.ok()) return false;
  RunElementwise(*kernel, ptrs, out->data(), out->shape().ElementCount(), attrs.params());
  return true;
}

absl::StatusOr<Literal> EvalMapOp(const Instruction& instr, absl::Span<const Literal* const> operands,
                                  OpContext& ctx) {
  const Computation* comp = instr.AttrOr<Computation*>("to_apply", nullptr);
  if (comp == nullptr) return OpError(instr, "missing to_apply");
  if (!instr.shape().IsArray()) return OpError(instr, "map result must be an array");
  const int64_t n = static_cast<int64_t>(operands.size());
  if (comp->num_parameters() != n)
    return OpError(instr, "to_apply parameter count does not match the operand count");
  std::vector<Literal> tmp(n);
  std::vector<const Literal*> ins(n);
  for (int64_t i = 0; i < n; ++i) {
    ins[i] = &RowMajor(*operands[i], &tmp[i]);
    if (ins[i]->shape().ElementCount() != instr.shape().ElementCount())
      return OpError(instr, "operand and result element counts differ");
  }
  Literal out = RowMajorLiteral(instr.shape());
  const int64_t count = instr.shape().ElementCount();
  if (count == 0) return ToLayout(std::move(out), instr.shape().layout());
  if (TryMapFast(instr, *comp, ins, &out)) return ToLayout(std::move(out), instr.shape().layout());

  const int64_t min_block = 256;
  const absl::Status status = CallBlocks(count, min_block, [&](int64_t begin, int64_t end, absl::Status& st) {
    ScalarArgs args(*comp, n);
    for (int64_t e = begin; e < end; ++e) {
      for (int64_t i = 0; i < n; ++i) {
        st = CopyScalarInto(*ins[i], e, &args.values[i]);
        if (!st.ok()) return;
      }
      auto r = ctx.call(*comp, args.ptrs);
      if (!r.ok()) {
        st = r.status();
        return;
      }
      st = CopyScalarOut(*r, &out, e);
      if (!st.ok()) return;
    }
  });
  if (!status.ok()) return OpError(instr, status.message());
  return ToLayout(std::move(out), instr.shape().layout());
}

}  // namespace

absl::StatusOr<Literal> EvalReduction(const Instruction& instr,
                                      absl::Span<const Literal* const> operands, OpContext& ctx) {
  switch (instr.opcode()) {
    case Opcode::kReduce: return EvalReduceOp(instr, operands, ctx);
    case Opcode::kReduceWindow: return EvalReduceWindowOp(instr, operands, ctx);
    case Opcode::kSelectAndScatter: return EvalSelectAndScatterOp(instr, operands, ctx);
    case Opcode::kMap: return EvalMapOp(instr, operands, ctx);
    case Opcode::kSort: return EvalSortOp(instr, operands, ctx);
    case Opcode::kTopK: return EvalTopKOp(instr, operands, ctx);
    case Opcode::kScan: return EvalScanOp(instr, operands, ctx);
    default: return OpUnimplemented(instr, "opcode in the reduction family");
  }
}

}  // namespace hlo::cpu
