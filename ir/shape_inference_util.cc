// Checks shared by every op family of the shape rules.
#include "ir/shape_inference_internal.h"

namespace hlo::shape_internal {

int64_t SatMul(int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_mul_overflow(a, b, &r) || r > kHuge || r < -kHuge) return (a < 0) != (b < 0) ? -kHuge : kHuge;
  return r;
}

int64_t SatAdd(int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_add_overflow(a, b, &r) || r > kHuge || r < -kHuge) return (a < 0 && b < 0) ? -kHuge : kHuge;
  return r;
}

Shape MakeArray(PrimitiveType t, absl::Span<const int64_t> dims, absl::Span<const bool> dynamic) {
  Shape s = Shape::ArrayNoLayout(t, dims);
  for (size_t i = 0; i < dynamic.size() && i < dims.size(); ++i) s.set_dynamic_dim(i, dynamic[i]);
  s.FillDefaultLayoutIfMissing();
  return s;
}

Shape WithType(const Shape& s, PrimitiveType t) { return MakeArray(t, s.dims(), s.dynamic_dims()); }

void NormalizeLayouts(Shape* s) {
  if (s->IsTuple() || s->IsBuffer()) {
    for (Shape& e : s->mutable_tuple_shapes()) NormalizeLayouts(&e);
    return;
  }
  if (s->IsArray() && s->has_layout() && !s->layout().HasNonDefaultTail() &&
      s->layout().minor_to_major == Shape::DefaultMinorToMajor(s->rank()))
    return;  // already the default (the usual case)
  s->clear_layout();
  if (s->IsArray()) s->FillDefaultLayoutIfMissing();
}

bool SameTypeIgnoringFp(PrimitiveType a, PrimitiveType b) { return a == b || (IsFloat(a) && IsFloat(b)); }

PrimitiveType HigherPrecision(PrimitiveType a, PrimitiveType b) {
  if (a == b || !IsFloat(a) || !IsFloat(b)) return a;
  int wa = PrimitiveTypeBitWidth(a), wb = PrimitiveTypeBitWidth(b);
  if (wa != wb) return wa > wb ? a : b;
  return a;
}

bool SameDims(const Shape& a, const Shape& b) {
  if (a.rank() != b.rank()) return false;
  for (int64_t i = 0; i < a.rank(); ++i) {
    if (IsUnbounded(a, i) || IsUnbounded(b, i)) continue;
    if (a.dim(i) != b.dim(i)) return false;
  }
  return true;
}

absl::Status ExpectCount(const Ctx& c, int64_t n) {
  if (c.n() != n) return Invalid(c.name(), " expects ", n, " operand", n == 1 ? "" : "s", ", got ", c.n());
  return absl::OkStatus();
}

absl::Status ExpectCountAtLeast(const Ctx& c, int64_t n) {
  if (c.n() < n)
    return Invalid(c.name(), " expects at least ", n, " operand", n == 1 ? "" : "s", ", got ", c.n());
  return absl::OkStatus();
}

absl::Status ExpectArray(const Ctx& c, int64_t i) {
  if (!c.op(i).IsArray() || c.op(i).IsTuple())
    return Invalid("operand ", i, " of ", c.name(), " must be an array, got ", S(c.op(i)));
  return absl::OkStatus();
}

absl::Status ExpectAllArrays(const Ctx& c) {
  for (int64_t i = 0; i < c.n(); ++i) HLO_RETURN_IF_ERROR(ExpectArray(c, i));
  return absl::OkStatus();
}

absl::Status ExpectScalar(const Ctx& c, int64_t i, absl::string_view what) {
  if (!c.op(i).IsScalar())
    return Invalid(what, " (operand ", i, ") of ", c.name(), " must be a scalar, got ", S(c.op(i)));
  return absl::OkStatus();
}

absl::StatusOr<std::vector<int64_t>> IntList(const Ctx& c, absl::string_view name) {
  if (!c.inst.HasAttr(name)) return Invalid(c.name(), " is missing required attribute ", name);
  const auto* v = c.inst.GetAttr<std::vector<int64_t>>(name);
  if (v == nullptr) return Invalid("attribute ", name, " of ", c.name(), " must be an integer list");
  return *v;
}

absl::StatusOr<std::vector<int64_t>> IntListOr(const Ctx& c, absl::string_view name,
                                               std::vector<int64_t> def) {
  if (!c.inst.HasAttr(name)) return def;
  return IntList(c, name);
}

absl::StatusOr<int64_t> Int(const Ctx& c, absl::string_view name) {
  if (!c.inst.HasAttr(name)) return Invalid(c.name(), " is missing required attribute ", name);
  const auto* v = c.inst.GetAttr<int64_t>(name);
  if (v == nullptr) return Invalid("attribute ", name, " of ", c.name(), " must be an integer");
  return *v;
}

absl::StatusOr<int64_t> IntOr(const Ctx& c, absl::string_view name, int64_t def) {
  if (!c.inst.HasAttr(name)) return def;
  return Int(c, name);
}

absl::StatusOr<std::string> Enum(const Ctx& c, absl::string_view name) {
  if (!c.inst.HasAttr(name)) return Invalid(c.name(), " is missing required attribute ", name);
  const auto* v = c.inst.GetAttr<std::string>(name);
  if (v == nullptr) return Invalid("attribute ", name, " of ", c.name(), " must be an identifier");
  return *v;
}

absl::StatusOr<Window> GetWindow(const Ctx& c) {
  if (!c.inst.HasAttr("window")) return Window();
  const auto* w = c.inst.GetAttr<Window>("window");
  if (w == nullptr) return Invalid("attribute window of ", c.name(), " must be a window");
  return *w;
}

absl::StatusOr<const Computation*> Comp(const Ctx& c, absl::string_view name) {
  if (!c.inst.HasAttr(name)) return Invalid(c.name(), " is missing required attribute ", name);
  const auto* v = c.inst.GetAttr<Computation*>(name);
  if (v == nullptr || *v == nullptr)
    return Invalid("attribute ", name, " of ", c.name(), " must name a computation");
  if ((*v)->root() == nullptr)
    return Invalid("computation ", (*v)->name(), " (", name, ") has no root instruction");
  return static_cast<const Computation*>(*v);
}

const Shape& Root(const Computation* comp) { return comp->root()->shape(); }

const Instruction* Param(const Computation* comp, int64_t i) {
  if (i < 0 || i >= comp->num_parameters()) return nullptr;
  return comp->parameter(i);
}

absl::Status CheckDims(const Ctx& c, const std::vector<int64_t>& dims, int64_t rank, absl::string_view attr,
                       bool unique) {
  std::set<int64_t> seen;
  for (int64_t d : dims) {
    if (d < 0 || d >= rank)
      return Invalid(attr, " of ", c.name(), " contains ", d, ", out of range for rank ", rank);
    if (unique && !seen.insert(d).second) return Invalid(attr, " of ", c.name(), " contains ", d, " twice");
  }
  return absl::OkStatus();
}

absl::Status CheckSorted(const Ctx& c, const std::vector<int64_t>& dims, absl::string_view attr) {
  for (size_t i = 1; i < dims.size(); ++i)
    if (dims[i] <= dims[i - 1])
      return Invalid(attr, " of ", c.name(), " must be sorted and unique, got ", L(dims));
  return absl::OkStatus();
}

Shape TupleOrSingle(std::vector<Shape> shapes) {
  if (shapes.size() == 1) return shapes[0];
  return Shape::Tuple(std::move(shapes));
}


absl::Status CheckReducer(const Ctx& c, const Computation* comp, absl::string_view attr,
                          const std::vector<PrimitiveType>& init_types,
                          const std::vector<PrimitiveType>& input_types) {
  const int64_t n = static_cast<int64_t>(init_types.size());
  const std::string who = absl::StrCat(attr, " computation ", comp->name(), " of ", c.name());
  if (comp->num_parameters() != 2 * n)
    return Invalid(who, " must take ", 2 * n, " parameters, takes ", comp->num_parameters());
  const Shape& root = Root(comp);
  std::vector<Shape> results;
  if (n == 1 && !root.IsTuple()) {
    results.push_back(root);
  } else if (root.IsTuple() && root.tuple_size() == n) {
    results = root.tuple_shapes();
  } else {
    return Invalid(who, " must return ", n == 1 ? "a scalar" : absl::StrCat("a tuple of ", n, " scalars"),
                   ", returns ", S(root));
  }
  for (int64_t i = 0; i < n; ++i) {
    if (!results[i].IsScalar())
      return Invalid(who, " must return scalars, result ", i, " is ", S(results[i]));
    if (!SameTypeIgnoringFp(results[i].element_type(), init_types[i]))
      return Invalid(who, " result ", i, " has type ", TN(results[i].element_type()),
                     " but the init value has type ", TN(init_types[i]));
  }
  for (int64_t i = 0; i < 2 * n; ++i) {
    const Instruction* p = Param(comp, i);
    if (p == nullptr) return Invalid(who, " is missing parameter ", i);
    if (!p->shape().IsScalar())
      return Invalid(who, " parameter ", i, " must be a scalar, got ", S(p->shape()));
    const PrimitiveType pt = p->shape().element_type();
    if (i < n) {
      // The accumulator parameter takes the result back: exact type.
      if (pt != results[i].element_type())
        return Invalid(who, " parameter ", i, " has type ", TN(pt), " but result ", i, " has type ",
                       TN(results[i].element_type()));
    } else {
      if (!SameTypeIgnoringFp(pt, input_types[i - n]))
        return Invalid(who, " parameter ", i, " has type ", TN(pt), " but input ", i - n, " has type ",
                       TN(input_types[i - n]));
      if (!SameTypeIgnoringFp(pt, results[i - n].element_type()))
        return Invalid(who, " parameter ", i, " has type ", TN(pt), " but result ", i - n, " has type ",
                       TN(results[i - n].element_type()));
    }
  }
  return absl::OkStatus();
}

absl::Status CheckParamsMatch(const Ctx& c, const Computation* comp, absl::string_view attr,
                              const std::vector<Shape>& args, bool ignore_fp) {
  const std::string who = absl::StrCat(attr, " computation ", comp->name(), " of ", c.name());
  if (comp->num_parameters() != static_cast<int64_t>(args.size()))
    return Invalid(who, " takes ", comp->num_parameters(), " parameters but is given ", args.size(),
                   " argument", args.size() == 1 ? "" : "s");
  for (size_t i = 0; i < args.size(); ++i) {
    const Instruction* p = Param(comp, i);
    if (p == nullptr) return Invalid(who, " is missing parameter ", i);
    if (!ShapesCompatible(p->shape(), args[i], ignore_fp))
      return Invalid(who, " parameter ", i, " has shape ", S(p->shape()), " but the argument has shape ",
                     S(args[i]));
  }
  return absl::OkStatus();
}

std::vector<Shape> OperandShapes(const Ctx& c, int64_t from, int64_t to) {
  if (to < 0) to = c.n();
  std::vector<Shape> out;
  for (int64_t i = from; i < to && i < c.n(); ++i) out.push_back(c.op(i));
  return out;
}

}  // namespace hlo::shape_internal
