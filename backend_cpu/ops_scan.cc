// scan (reduction family): to_apply runs once per position along the scan
// dimension, in order (reversed for is_reverse=true), on the inputs' slices
// at that position and the current carries; it returns the step's outputs
// (stacked along the scan dimension into the result arrays) and the next
// carries. is_associative is only a hint that the combiner may be
// reassociated; the result here is always the sequential order's.
// docs/ops-reduction.md, "scan".
#include <cstring>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "backend_cpu/op_eval.h"
#include "ir/printer.h"

namespace hlo::cpu {
namespace {

bool SameArray(const Shape& a, const Shape& b) {
  return a.IsArray() && !a.IsTuple() && b.IsArray() && !b.IsTuple() &&
         a.element_type() == b.element_type() && a.dims() == b.dims();
}

// `s` with dimension d removed (the shape of one step's slice).
Shape WithoutDim(const Shape& s, int64_t d) {
  DimVector dims = s.dims();
  dims.erase(dims.begin() + d);
  return Shape::Array(s.element_type(), dims);
}

// Calls f(offset_in_array, offset_in_slice, bytes) for the contiguous runs
// that make up position `pos` along dimension d of the row-major array `s`
// (element size `bytes`), the slice being row-major too.
template <typename F>
void ForEachRun(const Shape& s, int bytes, int64_t d, int64_t pos, F f) {
  int64_t outer = 1, inner = 1;
  for (int64_t i = 0; i < d; ++i) outer *= s.dim(i);
  for (int64_t i = d + 1; i < s.rank(); ++i) inner *= s.dim(i);
  const int64_t run = inner * bytes;
  if (run == 0) return;  // empty slices (their buffers may be null)
  for (int64_t o = 0; o < outer; ++o) f((o * s.dim(d) + pos) * run, o * run, run);
}

// What a scan instruction and its to_apply agree on, checked once.
struct ScanPlan {
  const Computation* comp = nullptr;
  int64_t dim = 0, length = 0, inputs = 0, carries = 0, outputs = 0;
  std::vector<Shape> results;  // per result: output arrays then final carries
  bool root_is_tuple = false;
};

absl::StatusOr<ScanPlan> PlanScan(const Instruction& instr, absl::Span<const Literal* const> operands) {
  ScanPlan p;
  p.comp = instr.AttrOr<Computation*>("to_apply", nullptr);
  if (p.comp == nullptr) return OpError(instr, "missing to_apply");
  const auto dims = instr.AttrOr<std::vector<int64_t>>("dimensions", {});
  if (dims.size() != 1) return OpError(instr, "expects exactly one scan dimension");
  p.dim = dims[0];
  const int64_t n = static_cast<int64_t>(operands.size());
  p.carries = instr.AttrOr<int64_t>("num_carries", -1);
  if (p.carries < 0 || p.carries > n) return OpError(instr, absl::StrCat("num_carries must be in [0, ", n, "]"));
  p.inputs = n - p.carries;
  if (p.comp->num_parameters() != n)
    return OpError(instr, absl::StrCat("to_apply takes ", p.comp->num_parameters(), " parameters, the scan has ",
                                       n, " operands (inputs, then carries)"));
  if (instr.shape().IsTuple()) {
    p.results = instr.shape().tuple_shapes();
  } else {
    p.results = {instr.shape()};
  }
  p.outputs = static_cast<int64_t>(p.results.size()) - p.carries;
  if (p.outputs < 0) return OpError(instr, "the result has fewer elements than num_carries");
  const Instruction* root = p.comp->root();
  if (root == nullptr) return OpError(instr, "to_apply has no root");
  p.root_is_tuple = root->shape().IsTuple();
  const std::vector<Shape> step = p.root_is_tuple ? root->shape().tuple_shapes() : std::vector<Shape>{root->shape()};
  if (static_cast<int64_t>(step.size()) != p.outputs + p.carries)
    return OpError(instr, absl::StrCat("to_apply returns ", step.size(), " values, expected ", p.outputs,
                                       " outputs and ", p.carries, " carries"));
  // The scan length: the inputs' scan dimension, else the outputs'.
  p.length = -1;
  for (int64_t i = 0; i < p.inputs; ++i) {
    const Shape& s = operands[i]->shape();
    if (!s.IsArray() || s.IsTuple() || p.dim < 0 || p.dim >= s.rank())
      return OpError(instr, absl::StrCat("input ", i, " has no dimension ", p.dim));
    if (p.length >= 0 && s.dim(p.dim) != p.length)
      return OpError(instr, "the inputs differ in the size of the scan dimension");
    p.length = s.dim(p.dim);
    if (!SameArray(p.comp->parameter(i)->shape(), WithoutDim(s, p.dim)))
      return OpError(instr, absl::StrCat("to_apply parameter ", i, " must be a slice of input ", i, " (",
                                         ShapeToString(WithoutDim(s, p.dim), false), ")"));
  }
  for (int64_t k = 0; k < p.outputs; ++k) {
    const Shape& r = p.results[k];
    if (!step[k].IsArray() || step[k].IsTuple() || !r.IsArray() || r.IsTuple() || p.dim < 0 ||
        p.dim >= r.rank() || r.rank() != step[k].rank() + 1)
      return OpError(instr, absl::StrCat("output ", k, " must stack to_apply's output ", k,
                                         " along dimension ", p.dim));
    if (p.length < 0) p.length = r.dim(p.dim);
    if (r.dim(p.dim) != p.length || !SameArray(WithoutDim(r, p.dim), step[k]))
      return OpError(instr, absl::StrCat("output ", k, " ", ShapeToString(r, false), " does not stack ",
                                         p.length, " of to_apply's ", ShapeToString(step[k], false)));
  }
  if (p.length < 0) return OpError(instr, "a scan with neither inputs nor outputs has no length");
  for (int64_t j = 0; j < p.carries; ++j) {
    const Shape& init = operands[p.inputs + j]->shape();
    if (!p.comp->parameter(p.inputs + j)->shape().Compatible(init) || !step[p.outputs + j].Compatible(init) ||
        !p.results[p.outputs + j].Compatible(init))
      return OpError(instr, absl::StrCat("carry ", j, " must keep the shape of its initial value ",
                                         ShapeToString(init, false)));
  }
  return p;
}

}  // namespace

absl::StatusOr<Literal> EvalScanOp(const Instruction& instr, absl::Span<const Literal* const> operands,
                                   OpContext& ctx) {
  absl::StatusOr<ScanPlan> plan = PlanScan(instr, operands);
  if (!plan.ok()) return plan.status();
  const ScanPlan& p = *plan;
  const Computation& comp = *p.comp;
  std::vector<Literal> in_tmp(p.inputs);
  std::vector<const Literal*> in(p.inputs);
  for (int64_t i = 0; i < p.inputs; ++i) in[i] = &RowMajor(*operands[i], &in_tmp[i]);
  // Arguments are given in the parameters' layouts: the called computation
  // reads them as its own parameters.
  std::vector<Literal> carry(p.carries);
  for (int64_t j = 0; j < p.carries; ++j)
    carry[j] = ConformLayouts(*operands[p.inputs + j], comp.parameter(p.inputs + j)->shape());
  std::vector<Literal> out;
  for (int64_t k = 0; k < p.outputs; ++k) out.push_back(RowMajorLiteral(p.results[k]));

  std::vector<Literal> slice(p.inputs);
  std::vector<const Literal*> args(p.inputs + p.carries);
  const bool reverse = instr.AttrOr<bool>("is_reverse", false);
  for (int64_t t = 0; t < p.length; ++t) {
    const int64_t pos = reverse ? p.length - 1 - t : t;
    for (int64_t i = 0; i < p.inputs; ++i) {
      Literal s = RowMajorUninitialized(comp.parameter(i)->shape());
      const uint8_t* src = in[i]->data();
      uint8_t* dst = s.data();
      ForEachRun(in[i]->shape(), in[i]->element_bytes(), p.dim, pos,
                 [&](int64_t a, int64_t b, int64_t n) { std::memcpy(dst + b, src + a, n); });
      slice[i] = ToLayout(std::move(s), comp.parameter(i)->shape().layout());
      args[i] = &slice[i];
    }
    for (int64_t j = 0; j < p.carries; ++j) args[p.inputs + j] = &carry[j];
    absl::StatusOr<Literal> r = ctx.call(comp, args);
    if (!r.ok()) return r.status();
    std::vector<Literal> step;
    if (p.root_is_tuple) {
      step = std::move(r->mutable_tuple_elements());
    } else {
      step.push_back(*std::move(r));
    }
    for (int64_t k = 0; k < p.outputs; ++k) {
      Literal tmp;
      const Literal& v = RowMajor(step[k], &tmp);
      uint8_t* dst = out[k].data();
      ForEachRun(out[k].shape(), out[k].element_bytes(), p.dim, pos,
                 [&](int64_t a, int64_t b, int64_t n) { std::memcpy(dst + a, v.data() + b, n); });
    }
    for (int64_t j = 0; j < p.carries; ++j)
      carry[j] = ConformLayouts(std::move(step[p.outputs + j]), comp.parameter(p.inputs + j)->shape());
  }
  std::vector<Literal> results = std::move(out);
  for (Literal& c : carry) results.push_back(std::move(c));
  if (!instr.shape().IsTuple()) return ConformLayouts(std::move(results[0]), instr.shape());
  return ConformLayouts(Literal::MakeTuple(std::move(results)), instr.shape());
}

}  // namespace hlo::cpu
