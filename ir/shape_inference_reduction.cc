// Shape rules: windows, reductions, select-and-scatter, map, sort, top-k, scan.
// Part of ir/shape_inference (see shape_inference_internal.h).
#include "ir/shape_inference_internal.h"

namespace hlo::shape_internal {
namespace {

// Windows
// ---------------------------------------------------------------------------

int64_t DilatedBound(int64_t bound, int64_t dilation) {
  if (bound <= 0) return 0;
  return SatAdd(SatMul(bound - 1, dilation), 1);
}

absl::StatusOr<Shape> WindowOutput(const Shape& in, const Window& w, PrimitiveType t) {
  if (static_cast<int64_t>(w.dimensions.size()) != in.rank())
    return Invalid("window has ", w.dimensions.size(), " dimensions but the operand ", S(in), " has rank ",
                   in.rank());
  HLO_RETURN_IF_ERROR(CheckWindow(w));
  std::vector<int64_t> dims;
  DynamicVector dyn = in.dynamic_dims();
  for (int64_t i = 0; i < in.rank(); ++i) {
    if (IsUnbounded(in, i)) {
      dims.push_back(Shape::kUnboundedSize);
      continue;
    }
    HLO_ASSIGN_OR_RETURN(int64_t v, WindowedSize(in.dim(i), w.dimensions[i], i));
    dims.push_back(v);
  }
  return MakeArray(t, dims, dyn);
}


// Checks a reduce-like operand list: N arrays of equal dims then N scalars.
absl::StatusOr<int64_t> SplitInputsInits(const Ctx& c) {
  if (c.n() < 2 || c.n() % 2 != 0)
    return Invalid(c.name(), " expects an even number of operands (N inputs then N init values), got ",
                   c.n());
  HLO_RETURN_IF_ERROR(ExpectAllArrays(c));
  const int64_t n = c.n() / 2;
  for (int64_t i = 1; i < n; ++i)
    if (!SameDims(c.op(i), c.op(0)))
      return Invalid(c.name(), " inputs must have the same dimensions: input 0 is ", S(c.op(0)), ", input ",
                     i, " is ", S(c.op(i)));
  for (int64_t i = n; i < 2 * n; ++i) HLO_RETURN_IF_ERROR(ExpectScalar(c, i, "init value"));
  return n;
}

}  // namespace

absl::Status CheckWindow(const Window& w) {
  for (size_t i = 0; i < w.dimensions.size(); ++i) {
    const WindowDimension& d = w.dimensions[i];
    if (d.size <= 0) return Invalid("window size in dimension ", i, " must be positive, got ", d.size);
    if (d.stride <= 0) return Invalid("window stride in dimension ", i, " must be positive, got ", d.stride);
    if (d.base_dilation < 1)
      return Invalid("window base (lhs) dilation in dimension ", i, " must be >= 1, got ", d.base_dilation);
    if (d.window_dilation < 1)
      return Invalid("window (rhs) dilation in dimension ", i, " must be >= 1, got ", d.window_dilation);
  }
  return absl::OkStatus();
}

// Output size of one windowed dimension.
absl::StatusOr<int64_t> WindowedSize(int64_t in, const WindowDimension& d, int64_t i) {
  int64_t padded = SatAdd(SatAdd(DilatedBound(in, d.base_dilation), d.padding_low), d.padding_high);
  if (padded < 0)
    return Invalid("window padding ", d.padding_low, "_", d.padding_high, " makes dimension ", i,
                   " negative");
  int64_t win = DilatedBound(d.size, d.window_dilation);
  if (win > padded) return 0;
  return (padded - win) / d.stride + 1;
}

std::vector<PrimitiveType> Types(const Ctx& c, int64_t from, int64_t to) {
  std::vector<PrimitiveType> out;
  for (int64_t i = from; i < to; ++i) out.push_back(c.op(i).element_type());
  return out;
}

absl::StatusOr<Shape> Reduce(const Ctx& c) {
  HLO_ASSIGN_OR_RETURN(int64_t n, SplitInputsInits(c));
  const Shape& in = c.op(0);
  HLO_ASSIGN_OR_RETURN(std::vector<int64_t> dims, IntList(c, "dimensions"));
  HLO_RETURN_IF_ERROR(CheckDims(c, dims, in.rank(), "dimensions"));
  HLO_ASSIGN_OR_RETURN(const Computation* comp, Comp(c, "to_apply"));
  HLO_RETURN_IF_ERROR(CheckReducer(c, comp, "to_apply", Types(c, n, 2 * n), Types(c, 0, n)));
  std::vector<int64_t> out;
  DynamicVector dyn;
  for (int64_t i = 0; i < in.rank(); ++i) {
    if (std::find(dims.begin(), dims.end(), i) != dims.end()) continue;
    out.push_back(in.dim(i));
    dyn.push_back(in.is_dynamic_dim(i));
  }
  // Result element types are the reducer's result types.
  const Shape& root = Root(comp);
  std::vector<Shape> results;
  for (int64_t i = 0; i < n; ++i) {
    const PrimitiveType t = root.IsTuple() ? root.tuple_shape(i).element_type() : root.element_type();
    results.push_back(MakeArray(t, out, dyn));
  }
  if (root.IsTuple()) return Shape::Tuple(results);
  return results[0];
}

absl::StatusOr<Shape> ReduceWindow(const Ctx& c) {
  HLO_ASSIGN_OR_RETURN(int64_t n, SplitInputsInits(c));
  HLO_ASSIGN_OR_RETURN(Window w, GetWindow(c));
  HLO_ASSIGN_OR_RETURN(const Computation* comp, Comp(c, "to_apply"));
  HLO_RETURN_IF_ERROR(CheckReducer(c, comp, "to_apply", Types(c, n, 2 * n), Types(c, 0, n)));
  std::vector<Shape> results;
  for (int64_t i = 0; i < n; ++i) {
    HLO_ASSIGN_OR_RETURN(Shape r, WindowOutput(c.op(i), w, c.op(n + i).element_type()));
    results.push_back(r);
  }
  // A tuple exactly when the reducer returns one (as in XLA).
  if (Root(comp).IsTuple()) return Shape::Tuple(results);
  return results[0];
}

absl::StatusOr<Shape> SelectAndScatter(const Ctx& c) {
  HLO_RETURN_IF_ERROR(ExpectCount(c, 3));
  HLO_RETURN_IF_ERROR(ExpectAllArrays(c));
  const Shape& operand = c.op(0);
  const Shape& source = c.op(1);
  HLO_RETURN_IF_ERROR(ExpectScalar(c, 2, "init value"));
  HLO_ASSIGN_OR_RETURN(Window w, GetWindow(c));
  HLO_ASSIGN_OR_RETURN(Shape windowed, WindowOutput(operand, w, source.element_type()));
  if (!SameDims(windowed, source))
    return Invalid("select-and-scatter source ", S(source), " must have the shape of the windowed operand ",
                   S(windowed));
  HLO_ASSIGN_OR_RETURN(const Computation* sel, Comp(c, "select"));
  const PrimitiveType t = operand.element_type();
  if (sel->num_parameters() != 2)
    return Invalid("select computation ", sel->name(), " must take 2 parameters, takes ",
                   sel->num_parameters());
  for (int64_t i = 0; i < 2; ++i) {
    const Instruction* p = Param(sel, i);
    if (p == nullptr || !p->shape().IsScalar() || !SameTypeIgnoringFp(p->shape().element_type(), t))
      return Invalid("select computation ", sel->name(), " parameter ", i, " must be a ", TN(t), " scalar");
  }
  if (!Root(sel).IsScalar() || !IsPred(Root(sel).element_type()))
    return Invalid("select computation ", sel->name(), " must return pred[], returns ", S(Root(sel)));
  HLO_ASSIGN_OR_RETURN(const Computation* sc, Comp(c, "scatter"));
  HLO_RETURN_IF_ERROR(CheckReducer(c, sc, "scatter", {c.op(2).element_type()}, {source.element_type()}));
  return operand;
}

absl::StatusOr<Shape> Map(const Ctx& c) {
  HLO_RETURN_IF_ERROR(ExpectCountAtLeast(c, 1));
  HLO_RETURN_IF_ERROR(ExpectAllArrays(c));
  for (int64_t i = 1; i < c.n(); ++i)
    if (!SameDims(c.op(i), c.op(0)))
      return Invalid("map operands must have the same dimensions: operand 0 is ", S(c.op(0)), ", operand ", i,
                     " is ", S(c.op(i)));
  HLO_ASSIGN_OR_RETURN(std::vector<int64_t> dims, IntListOr(c, "dimensions", {}));
  if (c.inst.HasAttr("dimensions")) {
    for (size_t i = 0; i < dims.size(); ++i)
      if (dims[i] != static_cast<int64_t>(i) || static_cast<int64_t>(dims.size()) != c.op(0).rank())
        return Invalid("map dimensions must be all operand dimensions in order, got ", L(dims));
  }
  HLO_ASSIGN_OR_RETURN(const Computation* comp, Comp(c, "to_apply"));
  if (comp->num_parameters() != c.n())
    return Invalid("map's to_apply computation ", comp->name(), " must take ", c.n(), " parameters, takes ",
                   comp->num_parameters());
  for (int64_t i = 0; i < c.n(); ++i) {
    const Instruction* p = Param(comp, i);
    if (p == nullptr || !p->shape().IsScalar() ||
        !SameTypeIgnoringFp(p->shape().element_type(), c.op(i).element_type()))
      return Invalid("map's to_apply parameter ", i, " must be a ", TN(c.op(i).element_type()), " scalar");
  }
  if (!Root(comp).IsScalar())
    return Invalid("map's to_apply computation must return a scalar, returns ", S(Root(comp)));
  return WithType(c.op(0), Root(comp).element_type());
}

absl::StatusOr<Shape> Sort(const Ctx& c) {
  HLO_RETURN_IF_ERROR(ExpectCountAtLeast(c, 1));
  HLO_RETURN_IF_ERROR(ExpectAllArrays(c));
  for (int64_t i = 1; i < c.n(); ++i)
    if (!SameDims(c.op(i), c.op(0)))
      return Invalid("sort operands must have the same dimensions: operand 0 is ", S(c.op(0)), ", operand ",
                     i, " is ", S(c.op(i)));
  HLO_ASSIGN_OR_RETURN(std::vector<int64_t> dims, IntList(c, "dimensions"));
  if (dims.size() != 1) return Invalid("sort expects exactly one dimension, got ", L(dims));
  HLO_RETURN_IF_ERROR(CheckDims(c, dims, c.op(0).rank(), "dimensions"));
  HLO_ASSIGN_OR_RETURN(const Computation* comp, Comp(c, "to_apply"));
  if (comp->num_parameters() != 2 * c.n())
    return Invalid("sort comparator ", comp->name(), " must take ", 2 * c.n(), " parameters, takes ",
                   comp->num_parameters());
  for (int64_t i = 0; i < 2 * c.n(); ++i) {
    const Instruction* p = Param(comp, i);
    const PrimitiveType want = c.op(i / 2).element_type();
    if (p == nullptr || !p->shape().IsScalar() || !SameTypeIgnoringFp(p->shape().element_type(), want))
      return Invalid("sort comparator ", comp->name(), " parameter ", i, " must be a ", TN(want), " scalar");
  }
  if (!Root(comp).IsScalar() || !IsPred(Root(comp).element_type()))
    return Invalid("sort comparator ", comp->name(), " must return pred[], returns ", S(Root(comp)));
  return TupleOrSingle(OperandShapes(c));
}

absl::StatusOr<Shape> TopK(const Ctx& c) {
  HLO_RETURN_IF_ERROR(ExpectCount(c, 1));
  HLO_RETURN_IF_ERROR(ExpectArray(c, 0));
  const Shape& in = c.op(0);
  if (in.rank() < 1) return Invalid("topk needs an operand of rank >= 1, got ", S(in));
  HLO_ASSIGN_OR_RETURN(int64_t k, Int(c, "k"));
  const int64_t last = in.rank() - 1;
  if (k < 0 || (!IsUnbounded(in, last) && k > in.dim(last)))
    return Invalid("topk k=", k, " must be in [0, ", in.dim(last), "] (the last dimension of ", S(in), ")");
  DimVector dims = in.dims();
  dims[last] = k;
  DynamicVector dyn = in.dynamic_dims();
  dyn[last] = false;
  return Shape::Tuple({MakeArray(in.element_type(), dims, dyn), MakeArray(PrimitiveType::S32, dims, dyn)});
}

absl::StatusOr<Shape> Scan(const Ctx& c) {
  HLO_RETURN_IF_ERROR(ExpectCountAtLeast(c, 1));
  HLO_ASSIGN_OR_RETURN(std::vector<int64_t> dims, IntList(c, "dimensions"));
  HLO_ASSIGN_OR_RETURN(int64_t carries, Int(c, "num_carries"));
  if (carries < 0 || carries > c.n())
    return Invalid("scan num_carries=", carries, " must be in [0, ", c.n(), "]");
  if (dims.size() != 1) return Invalid("scan expects exactly one dimension, got ", L(dims));
  for (int64_t i = 0; i < c.n() - carries; ++i) {
    HLO_RETURN_IF_ERROR(ExpectArray(c, i));
    HLO_RETURN_IF_ERROR(CheckDims(c, dims, c.op(i).rank(), "dimensions"));
  }
  HLO_RETURN_IF_ERROR(Comp(c, "to_apply").status());
  return c.inst.shape();  // newest opcode: the written shape is authoritative
}

}  // namespace hlo::shape_internal
