// Shape rules for every opcode of HLO_OPCODE_LIST, following the semantics
// of XLA's operation-semantics document and XLA's shape inference. Every
// index taken from an attribute or an operand list is range-checked before
// use: malformed input yields an error, never a crash.
#include "ir/shape_inference.h"

#include <algorithm>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "ir/computation.h"
#include "ir/module.h"

namespace hlo {
namespace {

// ---------------------------------------------------------------------------
// Small helpers
// ---------------------------------------------------------------------------

template <typename... A>
absl::Status Invalid(const A&... a) {
  return absl::InvalidArgumentError(absl::StrCat(a...));
}

#define HLO_RETURN_IF_ERROR(expr) \
  do {                            \
    absl::Status _st = (expr);    \
    if (!_st.ok()) return _st;    \
  } while (0)

#define HLO_CONCAT_INNER(a, b) a##b
#define HLO_CONCAT(a, b) HLO_CONCAT_INNER(a, b)
#define HLO_ASSIGN_OR_RETURN(lhs, expr) HLO_ASSIGN_OR_RETURN_IMPL(HLO_CONCAT(_so_, __LINE__), lhs, expr)
#define HLO_ASSIGN_OR_RETURN_IMPL(tmp, lhs, expr) \
  auto tmp = (expr);                              \
  if (!tmp.ok()) return tmp.status();             \
  lhs = std::move(tmp).value()

std::string S(const Shape& s) { return ShapeToMessageString(s); }
std::string L(const std::vector<int64_t>& v) { return absl::StrCat("{", absl::StrJoin(v, ","), "}"); }
absl::string_view TN(PrimitiveType t) { return PrimitiveTypeName(t); }

bool IsUnbounded(const Shape& s, int64_t i) { return s.dim(i) == Shape::kUnboundedSize; }

// Overflow-safe arithmetic for sizes: saturates far outside any real size.
constexpr int64_t kHuge = int64_t{1} << 62;
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

// An array shape with a default layout.
Shape MakeArray(PrimitiveType t, absl::Span<const int64_t> dims, absl::Span<const bool> dynamic = {}) {
  Shape s = Shape::ArrayNoLayout(t, dims);
  for (size_t i = 0; i < dynamic.size() && i < dims.size(); ++i) s.set_dynamic_dim(i, dynamic[i]);
  s.FillDefaultLayoutIfMissing();
  return s;
}

// Same dims/dynamic flags, new element type, default layout.
Shape WithType(const Shape& s, PrimitiveType t) { return MakeArray(t, s.dims(), s.dynamic_dims()); }

// Recursively replaces every layout by the default one, in place.
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

// Dimensions equal (an unbounded dimension matches anything); dynamic flags ignored.
bool SameDims(const Shape& a, const Shape& b) {
  if (a.rank() != b.rank()) return false;
  for (int64_t i = 0; i < a.rank(); ++i) {
    if (IsUnbounded(a, i) || IsUnbounded(b, i)) continue;
    if (a.dim(i) != b.dim(i)) return false;
  }
  return true;
}

struct Ctx {
  const Instruction& inst;
  int64_t n() const { return inst.operand_count(); }
  const Shape& op(int64_t i) const { return inst.operand(i)->shape(); }
  absl::string_view name() const { return OpcodeName(inst.opcode()); }
};

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

// Parameter i of a computation, or nullptr when missing.
const Instruction* Param(const Computation* comp, int64_t i) {
  if (i < 0 || i >= comp->num_parameters()) return nullptr;
  return comp->parameter(i);
}

// Checks that dims are in [0, rank) and, if requested, unique.
absl::Status CheckDims(const Ctx& c, const std::vector<int64_t>& dims, int64_t rank, absl::string_view attr,
                       bool unique = true) {
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

// Number of operands that are the inputs of a variadic op with a tuple result.
Shape TupleOrSingle(std::vector<Shape> shapes) {
  if (shapes.size() == 1) return shapes[0];
  return Shape::Tuple(std::move(shapes));
}

// ---------------------------------------------------------------------------
// Computation signature checks
// ---------------------------------------------------------------------------

// XLA's reducer rule: 2N scalar parameters (N accumulators then N inputs),
// result N scalars (a tuple when N > 1); accumulator types match the init
// values, input parameter types match the inputs' element types (floating
// point precision ignored).
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

// Parameters of `comp` must match `args` (count and shapes).
absl::Status CheckParamsMatch(const Ctx& c, const Computation* comp, absl::string_view attr,
                              const std::vector<Shape>& args, bool ignore_fp = false) {
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

std::vector<Shape> OperandShapes(const Ctx& c, int64_t from = 0, int64_t to = -1) {
  if (to < 0) to = c.n();
  std::vector<Shape> out;
  for (int64_t i = from; i < to && i < c.n(); ++i) out.push_back(c.op(i));
  return out;
}

// ---------------------------------------------------------------------------
// Elementwise
// ---------------------------------------------------------------------------

absl::StatusOr<Shape> Unary(const Ctx& c) {
  HLO_RETURN_IF_ERROR(ExpectCount(c, 1));
  const Opcode op = c.inst.opcode();
  if (op == Opcode::kCopy) return c.op(0);  // copy may copy tuples too
  HLO_RETURN_IF_ERROR(ExpectArray(c, 0));
  const Shape& s = c.op(0);
  const PrimitiveType t = s.element_type();
  auto bad = [&](absl::string_view want) {
    return Invalid(c.name(), " expects ", want, " operand, got ", S(s));
  };
  switch (op) {
    case Opcode::kAbs:
      if (IsComplex(t)) return WithType(s, ComplexComponentType(t));
      if (IsSignedInt(t) || IsFloat(t)) return s;
      return bad("a signed integer, floating-point or complex");
    case Opcode::kReal:
    case Opcode::kImag:
      if (IsComplex(t)) return WithType(s, ComplexComponentType(t));
      if (IsFloat(t)) return s;
      return bad("a floating-point or complex");
    case Opcode::kIsFinite:
      if (!IsFloat(t)) return bad("a floating-point");
      return WithType(s, PrimitiveType::PRED);
    case Opcode::kCeil:
    case Opcode::kFloor:
    case Opcode::kRoundNearestAfz:
    case Opcode::kRoundNearestEven:
      if (!IsFloat(t)) return bad("a floating-point");
      return s;
    case Opcode::kClz:
    case Opcode::kPopulationCount:
      if (!IsInteger(t)) return bad("an integer");
      return s;
    case Opcode::kNot:
      if (!IsInteger(t) && !IsPred(t)) return bad("a pred or integer");
      return s;
    case Opcode::kNegate:
      if (IsPred(t)) return bad("an integer, floating-point or complex");
      return s;
    case Opcode::kSign:
      if (!IsSignedInt(t) && !IsFloatOrComplex(t)) return bad("a signed or complex");
      return s;
    default:
      // Transcendental ops: exp, log, sin, tanh, sqrt, ...
      if (!IsFloatOrComplex(t)) return bad("a floating-point or complex");
      return s;
  }
}

// Elementwise dims of two same-rank shapes (unbounded dims yield to bounded).
absl::StatusOr<Shape> MergeDims(const Ctx& c, const Shape& a, const Shape& b, int64_t ia, int64_t ib,
                                PrimitiveType t) {
  if (a.rank() != b.rank())
    return Invalid(c.name(), " operands ", ia, " and ", ib, " must have the same shape, got ", S(a), " and ",
                   S(b));
  std::vector<int64_t> dims(a.rank());
  DynamicVector dyn(a.rank());
  for (int64_t i = 0; i < a.rank(); ++i) {
    if (IsUnbounded(a, i)) {
      dims[i] = b.dim(i);
      dyn[i] = b.is_dynamic_dim(i);
    } else if (IsUnbounded(b, i)) {
      dims[i] = a.dim(i);
      dyn[i] = a.is_dynamic_dim(i);
    } else if (a.dim(i) != b.dim(i)) {
      return Invalid(c.name(), " operands ", ia, " and ", ib, " must have the same shape, got ", S(a),
                     " and ", S(b), " (dimension ", i, ": ", a.dim(i), " vs ", b.dim(i), ")");
    } else {
      dims[i] = a.dim(i);
      dyn[i] = a.is_dynamic_dim(i) || b.is_dynamic_dim(i);
    }
  }
  return MakeArray(t, dims, dyn);
}

absl::StatusOr<Shape> Binary(const Ctx& c) {
  HLO_RETURN_IF_ERROR(ExpectCount(c, 2));
  HLO_RETURN_IF_ERROR(ExpectAllArrays(c));
  const Shape& a = c.op(0);
  const Shape& b = c.op(1);
  const PrimitiveType ta = a.element_type(), tb = b.element_type();
  const Opcode op = c.inst.opcode();
  if (!SameTypeIgnoringFp(ta, tb))
    return Invalid(c.name(), " operands must have the same element type, got ", TN(ta), " and ", TN(tb));
  PrimitiveType result = HigherPrecision(ta, tb);
  switch (op) {
    case Opcode::kCompare:
      result = PrimitiveType::PRED;
      break;
    case Opcode::kComplex:
      if (ta == PrimitiveType::F32 && tb == PrimitiveType::F32) {
        result = PrimitiveType::C64;
      } else if (ta == PrimitiveType::F64 && tb == PrimitiveType::F64) {
        result = PrimitiveType::C128;
      } else {
        return Invalid("complex expects two f32 or two f64 operands, got ", TN(ta), " and ", TN(tb));
      }
      break;
    case Opcode::kAnd:
    case Opcode::kOr:
    case Opcode::kXor:
      if (!IsInteger(ta) && !IsPred(ta))
        return Invalid(c.name(), " expects pred or integer operands, got ", TN(ta));
      break;
    case Opcode::kSubtract:
    case Opcode::kAtan2:
    case Opcode::kPower:
    case Opcode::kDivide:
    case Opcode::kRemainder:
    case Opcode::kShiftLeft:
    case Opcode::kShiftRightArithmetic:
    case Opcode::kShiftRightLogical:
    case Opcode::kMulhi:
      if (IsPred(ta)) return Invalid(c.name(), " expects arithmetic operands, got pred");
      break;
    default:
      break;
  }
  return MergeDims(c, a, b, 0, 1, result);
}

absl::StatusOr<Shape> Select(const Ctx& c) {
  HLO_RETURN_IF_ERROR(ExpectCount(c, 3));
  const Shape& pred = c.op(0);
  const Shape& t = c.op(1);
  const Shape& f = c.op(2);
  HLO_RETURN_IF_ERROR(ExpectArray(c, 0));
  if (!IsPred(pred.element_type()))
    return Invalid("select's predicate (operand 0) must have element type pred, got ", S(pred));
  if (!ShapesCompatible(t, f, /*ignore_fp_precision=*/true))
    return Invalid("select's operands 1 and 2 must have the same shape, got ", S(t), " and ", S(f));
  if (t.IsTuple()) {
    if (!pred.IsScalar()) return Invalid("select of tuples needs a scalar predicate, got ", S(pred));
    return t;
  }
  HLO_RETURN_IF_ERROR(ExpectArray(c, 1));
  HLO_ASSIGN_OR_RETURN(Shape r,
                       MergeDims(c, t, f, 1, 2, HigherPrecision(t.element_type(), f.element_type())));
  if (!pred.IsScalar() && !SameDims(pred, r))
    return Invalid("select's predicate must be a scalar or have the dimensions of the operands, got ",
                   S(pred), " for operands ", S(t));
  return r;
}

absl::StatusOr<Shape> Clamp(const Ctx& c) {
  HLO_RETURN_IF_ERROR(ExpectCount(c, 3));
  HLO_RETURN_IF_ERROR(ExpectAllArrays(c));
  const Shape& lo = c.op(0);
  const Shape& x = c.op(1);
  const Shape& hi = c.op(2);
  for (int64_t i : {0, 2}) {
    if (!SameTypeIgnoringFp(c.op(i).element_type(), x.element_type()))
      return Invalid("clamp operands must have the same element type, got ", S(lo), ", ", S(x), ", ", S(hi));
    if (!c.op(i).IsScalar() && !SameDims(c.op(i), x))
      return Invalid("clamp's ", i == 0 ? "min" : "max", " (operand ", i,
                     ") must be a scalar or have the shape of the operand, got ", S(c.op(i)), " for operand ",
                     S(x));
  }
  return x;
}

// ---------------------------------------------------------------------------
// Type conversion
// ---------------------------------------------------------------------------

absl::StatusOr<Shape> Convert(const Ctx& c) {
  HLO_RETURN_IF_ERROR(ExpectCount(c, 1));
  HLO_RETURN_IF_ERROR(ExpectArray(c, 0));
  const Shape& w = c.inst.shape();
  if (!w.IsArray() || w.IsTuple()) return Invalid("convert must produce an array, written shape is ", S(w));
  return WithType(c.op(0), w.element_type());
}

absl::StatusOr<Shape> BitcastConvert(const Ctx& c) {
  HLO_RETURN_IF_ERROR(ExpectCount(c, 1));
  HLO_RETURN_IF_ERROR(ExpectArray(c, 0));
  const Shape& in = c.op(0);
  const Shape& w = c.inst.shape();
  if (!w.IsArray() || w.IsTuple())
    return Invalid("bitcast-convert must produce an array, written shape is ", S(w));
  const PrimitiveType to = w.element_type();
  if (IsComplex(in.element_type()) != IsComplex(to))
    return Invalid("bitcast-convert between complex and real types: ", S(in), " to ", TN(to));
  const int64_t bin = PrimitiveTypeBitWidth(in.element_type());
  const int64_t bout = PrimitiveTypeBitWidth(to);
  if (bin == bout) return WithType(in, to);
  if (bin <= 0 || bout <= 0)
    return Invalid("bitcast-convert between ", TN(in.element_type()), " and ", TN(to));
  if (bin > bout) {
    if (bin % bout != 0)
      return Invalid("bitcast-convert from ", TN(in.element_type()), " to ", TN(to), ": bit widths ", bin,
                     " and ", bout, " are not multiples");
    DimVector dims = in.dims();
    DynamicVector dyn = in.dynamic_dims();
    dims.push_back(bin / bout);
    dyn.push_back(false);
    return MakeArray(to, dims, dyn);
  }
  if (bout % bin != 0)
    return Invalid("bitcast-convert from ", TN(in.element_type()), " to ", TN(to), ": bit widths ", bin,
                   " and ", bout, " are not multiples");
  if (in.rank() == 0 || in.dims().back() != bout / bin)
    return Invalid("bitcast-convert from ", TN(in.element_type()), " to the wider ", TN(to),
                   " needs a minor-most operand dimension of size ", bout / bin, ", got ", S(in));
  std::vector<int64_t> dims(in.dims().begin(), in.dims().end() - 1);
  DynamicVector dyn(in.dynamic_dims().begin(), in.dynamic_dims().end() - 1);
  return MakeArray(to, dims, dyn);
}

absl::StatusOr<Shape> StochasticConvert(const Ctx& c) {
  HLO_RETURN_IF_ERROR(ExpectCount(c, 2));
  HLO_RETURN_IF_ERROR(ExpectAllArrays(c));
  const Shape& x = c.op(0);
  const Shape& bits = c.op(1);
  const Shape& w = c.inst.shape();
  if (!IsFloat(x.element_type()))
    return Invalid("stochastic-convert expects a floating-point operand, got ", S(x));
  if (!IsUnsignedInt(bits.element_type()) ||
      PrimitiveTypeBitWidth(bits.element_type()) != PrimitiveTypeBitWidth(x.element_type()))
    return Invalid(
        "stochastic-convert's random bits (operand 1) must be unsigned integers of the operand's width, got ",
        S(bits), " for ", S(x));
  if (!SameDims(x, bits))
    return Invalid("stochastic-convert operands must have the same dimensions, got ", S(x), " and ", S(bits));
  if (!w.IsArray() || w.IsTuple()) return Invalid("stochastic-convert must produce an array, written ", S(w));
  return WithType(x, w.element_type());
}

// ---------------------------------------------------------------------------
// Data movement
// ---------------------------------------------------------------------------

absl::StatusOr<Shape> Broadcast(const Ctx& c) {
  HLO_RETURN_IF_ERROR(ExpectCount(c, 1));
  HLO_RETURN_IF_ERROR(ExpectArray(c, 0));
  const Shape& in = c.op(0);
  const Shape& w = c.inst.shape();
  if (!w.IsArray() || w.IsTuple()) return Invalid("broadcast must produce an array, written shape is ", S(w));
  HLO_ASSIGN_OR_RETURN(std::vector<int64_t> dims, IntListOr(c, "dimensions", {}));
  if (static_cast<int64_t>(dims.size()) != in.rank())
    return Invalid("broadcast dimensions ", L(dims), " must have one entry per operand dimension (operand ",
                   S(in), " has rank ", in.rank(), ")");
  HLO_RETURN_IF_ERROR(CheckDims(c, dims, w.rank(), "dimensions"));
  for (int64_t i = 0; i < in.rank(); ++i) {
    int64_t o = dims[i];
    if (!IsUnbounded(in, i) && !IsUnbounded(w, o) && in.dim(i) != w.dim(o))
      return Invalid("broadcast maps operand dimension ", i, " (size ", in.dim(i), ") to result dimension ",
                     o, " (size ", w.dim(o), "); sizes must be equal");
  }
  return WithType(w, in.element_type());
}

// Element count, or -1 if unknown (unbounded dims).
int64_t CheckedCount(const Shape& s) {
  int64_t n = 1;
  for (int64_t i = 0; i < s.rank(); ++i) {
    if (IsUnbounded(s, i)) return -1;
    n = SatMul(n, s.dim(i));
  }
  return n;
}

absl::StatusOr<Shape> Reshape(const Ctx& c) {
  HLO_RETURN_IF_ERROR(ExpectCount(c, 1));
  HLO_RETURN_IF_ERROR(ExpectArray(c, 0));
  const Shape& in = c.op(0);
  const Shape& w = c.inst.shape();
  if (!w.IsArray() || w.IsTuple()) return Invalid("reshape must produce an array, written shape is ", S(w));
  HLO_ASSIGN_OR_RETURN(int64_t inferred, IntOr(c, "inferred_dimension", -1));
  if (inferred != -1 && (inferred < 0 || inferred >= w.rank()))
    return Invalid("reshape's inferred_dimension ", inferred, " is out of range for rank ", w.rank());
  int64_t a = CheckedCount(in), b = CheckedCount(w);
  if (a >= 0 && b >= 0 && a != b)
    return Invalid("reshape changes the element count: operand ", S(in), " has ", a, " elements, result ",
                   S(w), " has ", b);
  return WithType(w, in.element_type());
}

absl::StatusOr<Shape> DynamicReshape(const Ctx& c) {
  HLO_RETURN_IF_ERROR(ExpectCountAtLeast(c, 1));
  HLO_RETURN_IF_ERROR(ExpectArray(c, 0));
  const Shape& w = c.inst.shape();
  if (!w.IsArray() || w.IsTuple())
    return Invalid("dynamic-reshape must produce an array, written shape is ", S(w));
  if (c.n() != 1 + w.rank())
    return Invalid("dynamic-reshape expects 1 + ", w.rank(),
                   " operands (one size per result dimension), got ", c.n());
  for (int64_t i = 1; i < c.n(); ++i) {
    if (c.op(i).element_type() != PrimitiveType::S32)
      return Invalid("dynamic-reshape size operand ", i, " must be s32, got ", S(c.op(i)));
  }
  int64_t a = CheckedCount(c.op(0)), b = CheckedCount(w);
  if (a >= 0 && b >= 0 && a != b)
    return Invalid("dynamic-reshape changes the element count: operand ", S(c.op(0)), " has ", a,
                   " elements, result ", S(w), " has ", b);
  return WithType(w, c.op(0).element_type());
}

absl::StatusOr<Shape> Transpose(const Ctx& c) {
  HLO_RETURN_IF_ERROR(ExpectCount(c, 1));
  HLO_RETURN_IF_ERROR(ExpectArray(c, 0));
  const Shape& in = c.op(0);
  HLO_ASSIGN_OR_RETURN(std::vector<int64_t> perm, IntList(c, "dimensions"));
  if (static_cast<int64_t>(perm.size()) != in.rank())
    return Invalid("transpose dimensions ", L(perm), " must be a permutation of the operand's ", in.rank(),
                   " dimensions");
  HLO_RETURN_IF_ERROR(CheckDims(c, perm, in.rank(), "dimensions"));
  std::vector<int64_t> dims;
  DynamicVector dyn;
  for (int64_t p : perm) {
    dims.push_back(in.dim(p));
    dyn.push_back(in.is_dynamic_dim(p));
  }
  return MakeArray(in.element_type(), dims, dyn);
}

absl::StatusOr<Shape> Reverse(const Ctx& c) {
  HLO_RETURN_IF_ERROR(ExpectCount(c, 1));
  HLO_RETURN_IF_ERROR(ExpectArray(c, 0));
  HLO_ASSIGN_OR_RETURN(std::vector<int64_t> dims, IntList(c, "dimensions"));
  HLO_RETURN_IF_ERROR(CheckDims(c, dims, c.op(0).rank(), "dimensions"));
  return c.op(0);
}

absl::StatusOr<Shape> Slice(const Ctx& c) {
  HLO_RETURN_IF_ERROR(ExpectCount(c, 1));
  HLO_RETURN_IF_ERROR(ExpectArray(c, 0));
  const Shape& in = c.op(0);
  if (!c.inst.HasAttr("slice")) return Invalid("slice is missing required attribute slice");
  const SliceRanges* r = c.inst.GetAttr<SliceRanges>("slice");
  if (r == nullptr) return Invalid("attribute slice of slice has the wrong kind");
  if (static_cast<int64_t>(r->size()) != in.rank())
    return Invalid("slice has ", r->size(), " ranges but the operand ", S(in), " has rank ", in.rank());
  std::vector<int64_t> dims;
  DynamicVector dyn;
  for (int64_t i = 0; i < in.rank(); ++i) {
    const SliceRange& sr = (*r)[i];
    if (sr.stride <= 0) return Invalid("slice stride in dimension ", i, " must be positive, got ", sr.stride);
    if (sr.start < 0) return Invalid("slice start in dimension ", i, " is negative: ", sr.start);
    if (sr.limit < sr.start)
      return Invalid("slice limit ", sr.limit, " is less than start ", sr.start, " in dimension ", i);
    if (!IsUnbounded(in, i) && sr.limit > in.dim(i))
      return Invalid("slice limit ", sr.limit, " exceeds the size ", in.dim(i), " of dimension ", i,
                     " of operand ", S(in));
    dims.push_back((sr.limit - sr.start + sr.stride - 1) / sr.stride);
    dyn.push_back(false);
  }
  return MakeArray(in.element_type(), dims, dyn);
}

// Start-index operands of dynamic-slice / dynamic-update-slice beginning at `first`.
absl::Status CheckStartIndices(const Ctx& c, int64_t first, int64_t rank) {
  const int64_t n = c.n() - first;
  if (n == 1 && c.op(first).IsArray() && c.op(first).rank() == 1 && rank != 0 &&
      !(rank == 1 && c.op(first).rank() == 0)) {
    // Legacy form: one 1-D index vector.
    const Shape& idx = c.op(first);
    if (!IsInteger(idx.element_type()))
      return Invalid(c.name(), " start indices must be integers, got ", S(idx));
    if (idx.dim(0) != rank)
      return Invalid(c.name(), " start index vector ", S(idx), " must have ", rank, " elements");
    return absl::OkStatus();
  }
  if (n != rank)
    return Invalid(c.name(), " expects ", rank, " scalar start indices (one per operand dimension), got ", n);
  PrimitiveType t = PrimitiveType::kInvalid;
  for (int64_t i = first; i < c.n(); ++i) {
    HLO_RETURN_IF_ERROR(ExpectScalar(c, i, "start index"));
    if (!IsInteger(c.op(i).element_type()))
      return Invalid(c.name(), " start index (operand ", i, ") must be an integer, got ", S(c.op(i)));
    if (t == PrimitiveType::kInvalid) t = c.op(i).element_type();
    if (c.op(i).element_type() != t)
      return Invalid(c.name(), " start indices must all have the same type, got ", TN(t), " and ",
                     TN(c.op(i).element_type()));
  }
  return absl::OkStatus();
}

absl::StatusOr<Shape> DynamicSlice(const Ctx& c) {
  HLO_RETURN_IF_ERROR(ExpectCountAtLeast(c, 1));
  HLO_RETURN_IF_ERROR(ExpectAllArrays(c));
  const Shape& in = c.op(0);
  HLO_RETURN_IF_ERROR(CheckStartIndices(c, 1, in.rank()));
  HLO_ASSIGN_OR_RETURN(std::vector<int64_t> sizes, IntList(c, "dynamic_slice_sizes"));
  if (static_cast<int64_t>(sizes.size()) != in.rank())
    return Invalid("dynamic_slice_sizes ", L(sizes), " must have one entry per operand dimension (rank ",
                   in.rank(), ")");
  for (int64_t i = 0; i < in.rank(); ++i) {
    if (sizes[i] < 0) return Invalid("dynamic_slice_sizes[", i, "] is negative: ", sizes[i]);
    if (!IsUnbounded(in, i) && sizes[i] > in.dim(i))
      return Invalid("dynamic_slice_sizes[", i, "] = ", sizes[i], " exceeds the operand dimension size ",
                     in.dim(i));
  }
  return MakeArray(in.element_type(), sizes);
}

absl::StatusOr<Shape> DynamicUpdateSlice(const Ctx& c) {
  HLO_RETURN_IF_ERROR(ExpectCountAtLeast(c, 2));
  HLO_RETURN_IF_ERROR(ExpectAllArrays(c));
  const Shape& in = c.op(0);
  const Shape& upd = c.op(1);
  if (!SameTypeIgnoringFp(in.element_type(), upd.element_type()))
    return Invalid("dynamic-update-slice update ", S(upd), " must have the element type of the operand ",
                   S(in));
  if (upd.rank() != in.rank())
    return Invalid("dynamic-update-slice update ", S(upd), " must have the rank of the operand ", S(in));
  for (int64_t i = 0; i < in.rank(); ++i) {
    if (upd.dim(i) < 0 && !IsUnbounded(upd, i)) return Invalid("negative update dimension");
    if (!IsUnbounded(in, i) && !IsUnbounded(upd, i) && upd.dim(i) > in.dim(i))
      return Invalid("dynamic-update-slice update dimension ", i, " (size ", upd.dim(i),
                     ") exceeds the operand's size ", in.dim(i));
  }
  HLO_RETURN_IF_ERROR(CheckStartIndices(c, 2, in.rank()));
  return in;
}

absl::StatusOr<Shape> Concatenate(const Ctx& c) {
  HLO_RETURN_IF_ERROR(ExpectCountAtLeast(c, 1));
  HLO_RETURN_IF_ERROR(ExpectAllArrays(c));
  HLO_ASSIGN_OR_RETURN(std::vector<int64_t> dims, IntList(c, "dimensions"));
  if (dims.size() != 1) return Invalid("concatenate expects exactly one dimension, got ", L(dims));
  const Shape& first = c.op(0);
  const int64_t d = dims[0];
  HLO_RETURN_IF_ERROR(CheckDims(c, dims, first.rank(), "dimensions"));
  DimVector out = first.dims();
  DynamicVector dyn = first.dynamic_dims();
  PrimitiveType t = first.element_type();
  for (int64_t i = 1; i < c.n(); ++i) {
    const Shape& s = c.op(i);
    if (!SameTypeIgnoringFp(s.element_type(), first.element_type()))
      return Invalid("concatenate operands must have the same element type: operand 0 is ", S(first),
                     ", operand ", i, " is ", S(s));
    if (s.rank() != first.rank())
      return Invalid("concatenate operands must have the same rank: operand 0 is ", S(first), ", operand ", i,
                     " is ", S(s));
    for (int64_t j = 0; j < s.rank(); ++j) {
      if (j == d) continue;
      if (!IsUnbounded(s, j) && !IsUnbounded(first, j) && s.dim(j) != first.dim(j))
        return Invalid("concatenate operands must agree on every dimension but ", d, ": operand 0 is ",
                       S(first), ", operand ", i, " is ", S(s), " (dimension ", j, ")");
    }
    t = HigherPrecision(t, s.element_type());
    if (IsUnbounded(s, d) || IsUnbounded(first, d) || out[d] == Shape::kUnboundedSize) {
      out[d] = Shape::kUnboundedSize;
      dyn[d] = true;
    } else {
      out[d] = SatAdd(out[d], s.dim(d));
      dyn[d] = dyn[d] || s.is_dynamic_dim(d);
    }
  }
  return MakeArray(t, out, dyn);
}

absl::StatusOr<Shape> Pad(const Ctx& c) {
  HLO_RETURN_IF_ERROR(ExpectCount(c, 2));
  HLO_RETURN_IF_ERROR(ExpectAllArrays(c));
  const Shape& in = c.op(0);
  HLO_RETURN_IF_ERROR(ExpectScalar(c, 1, "padding value"));
  if (!SameTypeIgnoringFp(in.element_type(), c.op(1).element_type()))
    return Invalid("pad value ", S(c.op(1)), " must have the operand's element type ", TN(in.element_type()));
  if (!c.inst.HasAttr("padding")) return Invalid("pad is missing required attribute padding");
  const PaddingConfig* p = c.inst.GetAttr<PaddingConfig>("padding");
  if (p == nullptr) return Invalid("attribute padding of pad has the wrong kind");
  if (static_cast<int64_t>(p->size()) != in.rank())
    return Invalid("pad has ", p->size(), " padding entries but the operand ", S(in), " has rank ",
                   in.rank());
  std::vector<int64_t> dims;
  DynamicVector dyn = in.dynamic_dims();
  for (int64_t i = 0; i < in.rank(); ++i) {
    const PaddingDimension& pd = (*p)[i];
    if (pd.interior < 0)
      return Invalid("pad interior padding in dimension ", i, " is negative: ", pd.interior);
    if (IsUnbounded(in, i)) {
      dims.push_back(Shape::kUnboundedSize);
      continue;
    }
    int64_t d = in.dim(i);
    int64_t v = SatAdd(SatAdd(pd.low, pd.high), SatAdd(d, SatMul(std::max<int64_t>(d - 1, 0), pd.interior)));
    if (v < 0)
      return Invalid("pad makes dimension ", i, " negative: size ", d, " with padding ", pd.low, "_", pd.high,
                     "_", pd.interior);
    if (v >= kHuge) return Invalid("pad makes dimension ", i, " too large");
    dims.push_back(v);
  }
  return MakeArray(in.element_type(), dims, dyn);
}

absl::StatusOr<Shape> Iota(const Ctx& c) {
  HLO_RETURN_IF_ERROR(ExpectCount(c, 0));
  const Shape& w = c.inst.shape();
  if (!w.IsArray() || w.IsTuple()) return Invalid("iota must produce an array, written shape is ", S(w));
  if (w.rank() == 0) return Invalid("iota does not support scalars");
  if (!IsInteger(w.element_type()) && !IsFloatOrComplex(w.element_type()))
    return Invalid("iota needs an integer, floating-point or complex result, got ", S(w));
  HLO_ASSIGN_OR_RETURN(int64_t d, Int(c, "iota_dimension"));
  if (d < 0 || d >= w.rank()) return Invalid("iota_dimension ", d, " is out of range for rank ", w.rank());
  return w;
}

// ---------------------------------------------------------------------------
// Windows
// ---------------------------------------------------------------------------

int64_t DilatedBound(int64_t bound, int64_t dilation) {
  if (bound <= 0) return 0;
  return SatAdd(SatMul(bound - 1, dilation), 1);
}

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

// ---------------------------------------------------------------------------
// Reductions, sorting, map
// ---------------------------------------------------------------------------

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

// ---------------------------------------------------------------------------
// Dot, convolution, FFT, linear algebra
// ---------------------------------------------------------------------------

struct DotDims {
  std::vector<int64_t> lb, lc, rb, rc;
};

absl::StatusOr<DotDims> GetDotDims(const Ctx& c) {
  DotDims d;
  HLO_ASSIGN_OR_RETURN(d.lb, IntListOr(c, "lhs_batch_dims", {}));
  HLO_ASSIGN_OR_RETURN(d.lc, IntListOr(c, "lhs_contracting_dims", {}));
  HLO_ASSIGN_OR_RETURN(d.rb, IntListOr(c, "rhs_batch_dims", {}));
  HLO_ASSIGN_OR_RETURN(d.rc, IntListOr(c, "rhs_contracting_dims", {}));
  return d;
}

// The result element type of dot/convolution: XLA takes the written type as
// the preferred element type; it may not narrow an integer computation.
PrimitiveType PreferredType(const Ctx& c, const Shape& l, const Shape& r) {
  PrimitiveType from = HigherPrecision(l.element_type(), r.element_type());
  const Shape& w = c.inst.shape();
  if (w.IsArray() && !w.IsTuple()) {
    PrimitiveType p = w.element_type();
    if (p == from || IsFloatOrComplex(from) || PrimitiveTypeBitWidth(p) >= PrimitiveTypeBitWidth(from))
      return p;
  }
  return from;
}

absl::StatusOr<Shape> DotShape(const Ctx& c, const Shape& l, const Shape& r, const DotDims& d) {
  if (!l.IsArray() || l.IsTuple() || !r.IsArray() || r.IsTuple())
    return Invalid(c.name(), " operands must be arrays, got ", S(l), " and ", S(r));
  if (d.lb.size() != d.rb.size())
    return Invalid(c.name(), " must have as many lhs_batch_dims as rhs_batch_dims, got ", L(d.lb), " and ",
                   L(d.rb));
  if (d.lc.size() != d.rc.size())
    return Invalid(c.name(), " must have as many lhs_contracting_dims as rhs_contracting_dims, got ", L(d.lc),
                   " and ", L(d.rc));
  std::vector<int64_t> lall = d.lb, rall = d.rb;
  lall.insert(lall.end(), d.lc.begin(), d.lc.end());
  rall.insert(rall.end(), d.rc.begin(), d.rc.end());
  HLO_RETURN_IF_ERROR(CheckDims(c, lall, l.rank(), "lhs batch and contracting dimensions"));
  HLO_RETURN_IF_ERROR(CheckDims(c, rall, r.rank(), "rhs batch and contracting dimensions"));
  for (size_t i = 0; i < d.lc.size(); ++i) {
    int64_t a = l.dim(d.lc[i]), b = r.dim(d.rc[i]);
    if (a != b && a != Shape::kUnboundedSize && b != Shape::kUnboundedSize)
      return Invalid(c.name(), " contracting dimension sizes differ: lhs dimension ", d.lc[i], " has size ",
                     a, ", rhs dimension ", d.rc[i], " has size ", b);
  }
  for (size_t i = 0; i < d.lb.size(); ++i) {
    int64_t a = l.dim(d.lb[i]), b = r.dim(d.rb[i]);
    if (a != b && a != Shape::kUnboundedSize && b != Shape::kUnboundedSize)
      return Invalid(c.name(), " batch dimension sizes differ: lhs dimension ", d.lb[i], " has size ", a,
                     ", rhs dimension ", d.rb[i], " has size ", b);
  }
  std::vector<int64_t> dims;
  DynamicVector dyn;
  for (int64_t i : d.lb) {
    dims.push_back(l.dim(i));
    dyn.push_back(l.is_dynamic_dim(i));
  }
  for (int64_t i = 0; i < l.rank(); ++i)
    if (std::find(lall.begin(), lall.end(), i) == lall.end()) {
      dims.push_back(l.dim(i));
      dyn.push_back(l.is_dynamic_dim(i));
    }
  for (int64_t i = 0; i < r.rank(); ++i)
    if (std::find(rall.begin(), rall.end(), i) == rall.end()) {
      dims.push_back(r.dim(i));
      dyn.push_back(r.is_dynamic_dim(i));
    }
  return MakeArray(PreferredType(c, l, r), dims, dyn);
}

absl::StatusOr<Shape> Dot(const Ctx& c) {
  if (c.n() < 2 || c.n() > 4)
    return Invalid("dot expects 2 operands (plus up to 2 sparsity metadata), got ", c.n());
  HLO_ASSIGN_OR_RETURN(DotDims d, GetDotDims(c));
  return DotShape(c, c.op(0), c.op(1), d);
}

absl::StatusOr<Shape> ScaledDot(const Ctx& c) {
  HLO_RETURN_IF_ERROR(ExpectCount(c, 4));
  HLO_RETURN_IF_ERROR(ExpectAllArrays(c));
  HLO_ASSIGN_OR_RETURN(DotDims d, GetDotDims(c));
  for (int64_t i : {1, 3})
    if (c.op(i).rank() != c.op(i - 1).rank() && !c.op(i).IsScalar())
      return Invalid("scaled-dot scale (operand ", i, ") ", S(c.op(i)), " must have the rank of its operand ",
                     S(c.op(i - 1)));
  return DotShape(c, c.op(0), c.op(2), d);
}

absl::StatusOr<Shape> RaggedDot(const Ctx& c) {
  HLO_RETURN_IF_ERROR(ExpectCount(c, 3));
  HLO_RETURN_IF_ERROR(ExpectAllArrays(c));
  HLO_ASSIGN_OR_RETURN(DotDims d, GetDotDims(c));
  HLO_ASSIGN_OR_RETURN(std::vector<int64_t> lr, IntList(c, "lhs_ragged_dims"));
  HLO_ASSIGN_OR_RETURN(std::vector<int64_t> rg, IntListOr(c, "rhs_group_dims", {}));
  const Shape& l = c.op(0);
  const Shape& r = c.op(1);
  const Shape& gs = c.op(2);
  if (lr.size() != 1) return Invalid("ragged-dot expects exactly one lhs_ragged_dims entry, got ", L(lr));
  if (rg.size() > 1) return Invalid("ragged-dot expects at most one rhs_group_dims entry, got ", L(rg));
  HLO_RETURN_IF_ERROR(CheckDims(c, lr, l.rank(), "lhs_ragged_dims"));
  HLO_RETURN_IF_ERROR(CheckDims(c, rg, r.rank(), "rhs_group_dims"));
  if (!IsInteger(gs.element_type())) return Invalid("ragged-dot group_sizes must be integers, got ", S(gs));
  const int64_t ragged = lr[0];
  const bool in_contracting = std::find(d.lc.begin(), d.lc.end(), ragged) != d.lc.end();
  const bool in_batch = std::find(d.lb.begin(), d.lb.end(), ragged) != d.lb.end();
  // Without the group dimension, rhs behaves like an ordinary dot operand.
  Shape r2 = r;
  DotDims d2 = d;
  if (!rg.empty()) {
    if (in_contracting || in_batch)
      return Invalid("ragged-dot with a ragged ", in_batch ? "batch" : "contracting",
                     " dimension must not have rhs_group_dims");
    const int64_t g = rg[0];
    if (std::find(d.rb.begin(), d.rb.end(), g) != d.rb.end() ||
        std::find(d.rc.begin(), d.rc.end(), g) != d.rc.end())
      return Invalid("ragged-dot rhs_group_dims must not be a batch or contracting dimension");
    std::vector<int64_t> dims;
    DynamicVector dyn;
    for (int64_t i = 0; i < r.rank(); ++i)
      if (i != g) {
        dims.push_back(r.dim(i));
        dyn.push_back(r.is_dynamic_dim(i));
      }
    r2 = MakeArray(r.element_type(), dims, dyn);
    auto fix = [g](std::vector<int64_t>& v) {
      for (int64_t& x : v)
        if (x > g) --x;
    };
    fix(d2.rb);
    fix(d2.rc);
  } else if (!in_contracting && !in_batch) {
    return Invalid("ragged-dot with a ragged non-contracting dimension needs rhs_group_dims");
  }
  HLO_ASSIGN_OR_RETURN(Shape out, DotShape(c, l, r2, d2));
  if (in_contracting) {
    // The result gains a leading group dimension.
    if (gs.rank() < 1) return Invalid("ragged-dot group_sizes must have rank >= 1, got ", S(gs));
    std::vector<int64_t> dims{gs.dims().back()};
    dims.insert(dims.end(), out.dims().begin(), out.dims().end());
    return MakeArray(out.element_type(), dims);
  }
  return out;
}

absl::StatusOr<Shape> Convolution(const Ctx& c) {
  HLO_RETURN_IF_ERROR(ExpectCount(c, 2));
  HLO_RETURN_IF_ERROR(ExpectAllArrays(c));
  const Shape& l = c.op(0);
  const Shape& r = c.op(1);
  if (!c.inst.HasAttr("dim_labels")) return Invalid("convolution is missing required attribute dim_labels");
  const auto* dn = c.inst.GetAttr<ConvolutionDimensionNumbers>("dim_labels");
  if (dn == nullptr) return Invalid("attribute dim_labels of convolution has the wrong kind");
  HLO_ASSIGN_OR_RETURN(Window w, GetWindow(c));
  HLO_ASSIGN_OR_RETURN(int64_t fgc, IntOr(c, "feature_group_count", 1));
  HLO_ASSIGN_OR_RETURN(int64_t bgc, IntOr(c, "batch_group_count", 1));
  if (fgc < 1) return Invalid("feature_group_count must be >= 1, got ", fgc);
  if (bgc < 1) return Invalid("batch_group_count must be >= 1, got ", bgc);
  if (fgc > 1 && bgc > 1)
    return Invalid("feature_group_count (", fgc, ") and batch_group_count (", bgc, ") cannot both be > 1");
  const int64_t ns = static_cast<int64_t>(dn->input_spatial_dimensions.size());
  if (static_cast<int64_t>(dn->kernel_spatial_dimensions.size()) != ns ||
      static_cast<int64_t>(dn->output_spatial_dimensions.size()) != ns)
    return Invalid("dim_labels must have the same number of spatial dimensions in input, kernel and output");
  if (static_cast<int64_t>(w.dimensions.size()) != ns)
    return Invalid("convolution window has ", w.dimensions.size(), " dimensions but dim_labels has ", ns,
                   " spatial dimensions");
  HLO_RETURN_IF_ERROR(CheckWindow(w));
  if (l.rank() != ns + 2)
    return Invalid("convolution lhs ", S(l), " must have rank ", ns + 2, " (2 + spatial)");
  if (r.rank() != ns + 2)
    return Invalid("convolution rhs ", S(r), " must have rank ", ns + 2, " (2 + spatial)");
  const int64_t out_rank = ns + 2;
  std::vector<int64_t> in_dims{dn->input_batch_dimension, dn->input_feature_dimension};
  in_dims.insert(in_dims.end(), dn->input_spatial_dimensions.begin(), dn->input_spatial_dimensions.end());
  std::vector<int64_t> k_dims{dn->kernel_input_feature_dimension, dn->kernel_output_feature_dimension};
  k_dims.insert(k_dims.end(), dn->kernel_spatial_dimensions.begin(), dn->kernel_spatial_dimensions.end());
  std::vector<int64_t> o_dims{dn->output_batch_dimension, dn->output_feature_dimension};
  o_dims.insert(o_dims.end(), dn->output_spatial_dimensions.begin(), dn->output_spatial_dimensions.end());
  HLO_RETURN_IF_ERROR(CheckDims(c, in_dims, l.rank(), "dim_labels input dimensions"));
  HLO_RETURN_IF_ERROR(CheckDims(c, k_dims, r.rank(), "dim_labels kernel dimensions"));
  HLO_RETURN_IF_ERROR(CheckDims(c, o_dims, out_rank, "dim_labels output dimensions"));
  const int64_t batch = l.dim(dn->input_batch_dimension);
  const int64_t in_feat = l.dim(dn->input_feature_dimension);
  const int64_t k_in = r.dim(dn->kernel_input_feature_dimension);
  const int64_t k_out = r.dim(dn->kernel_output_feature_dimension);
  if (batch != Shape::kUnboundedSize && batch % bgc != 0)
    return Invalid("convolution input batch size ", batch, " is not a multiple of batch_group_count ", bgc);
  if (in_feat != Shape::kUnboundedSize && (in_feat % fgc != 0 || in_feat / fgc != k_in))
    return Invalid("convolution input feature size ", in_feat, " divided by feature_group_count ", fgc,
                   " must equal the kernel input feature size ", k_in, " (lhs ", S(l), ", rhs ", S(r), ")");
  if (k_out % fgc != 0)
    return Invalid("convolution kernel output feature size ", k_out,
                   " is not a multiple of feature_group_count ", fgc);
  if (k_out % bgc != 0)
    return Invalid("convolution kernel output feature size ", k_out,
                   " is not a multiple of batch_group_count ", bgc);
  for (int64_t i = 0; i < ns; ++i) {
    int64_t ks = r.dim(dn->kernel_spatial_dimensions[i]);
    if (ks != w.dimensions[i].size && ks != Shape::kUnboundedSize)
      return Invalid("convolution window size ", w.dimensions[i].size, " in spatial dimension ", i,
                     " differs from the kernel's size ", ks, " (rhs ", S(r), ")");
  }
  std::vector<int64_t> dims(out_rank, 0);
  DynamicVector dyn(out_rank, false);
  dims[dn->output_batch_dimension] = batch == Shape::kUnboundedSize ? batch : batch / bgc;
  dyn[dn->output_batch_dimension] = l.is_dynamic_dim(dn->input_batch_dimension);
  dims[dn->output_feature_dimension] = k_out;
  for (int64_t i = 0; i < ns; ++i) {
    int64_t in = l.dim(dn->input_spatial_dimensions[i]);
    int64_t o = dn->output_spatial_dimensions[i];
    if (in == Shape::kUnboundedSize) {
      dims[o] = in;
      dyn[o] = true;
      continue;
    }
    HLO_ASSIGN_OR_RETURN(dims[o], WindowedSize(in, w.dimensions[i], i));
    dyn[o] = l.is_dynamic_dim(dn->input_spatial_dimensions[i]);
  }
  return MakeArray(PreferredType(c, l, r), dims, dyn);
}

absl::StatusOr<Shape> Fft(const Ctx& c) {
  HLO_RETURN_IF_ERROR(ExpectCount(c, 1));
  HLO_RETURN_IF_ERROR(ExpectArray(c, 0));
  const Shape& in = c.op(0);
  HLO_ASSIGN_OR_RETURN(std::string type, Enum(c, "fft_type"));
  HLO_ASSIGN_OR_RETURN(std::vector<int64_t> len, IntList(c, "fft_length"));
  const int64_t fr = static_cast<int64_t>(len.size());
  if (fr < 1 || fr > 3) return Invalid("fft_length must have 1 to 3 entries, got ", L(len));
  if (in.rank() < fr) return Invalid("fft operand ", S(in), " has fewer dimensions than fft_length ", L(len));
  const PrimitiveType t = in.element_type();
  auto check_dims = [&](int64_t upto) -> absl::Status {
    for (int64_t i = 0; i < upto; ++i) {
      int64_t d = in.rank() - fr + i;
      if (!IsUnbounded(in, d) && in.dim(d) != len[i])
        return Invalid("fft ", type, " operand dimension ", d, " has size ", in.dim(d), " but fft_length[", i,
                       "] is ", len[i]);
    }
    return absl::OkStatus();
  };
  if (type == "FFT" || type == "IFFT") {
    if (!IsComplex(t)) return Invalid("fft ", type, " needs a complex operand, got ", S(in));
    return in;
  }
  DimVector dims = in.dims();
  if (type == "RFFT") {
    if (t != PrimitiveType::F32 && t != PrimitiveType::F64)
      return Invalid("fft RFFT needs an f32 or f64 operand, got ", S(in));
    HLO_RETURN_IF_ERROR(check_dims(fr));
    if (len.back() != 0) dims.back() = len.back() / 2 + 1;
    return MakeArray(t == PrimitiveType::F32 ? PrimitiveType::C64 : PrimitiveType::C128, dims,
                     in.dynamic_dims());
  }
  if (type == "IRFFT") {
    if (!IsComplex(t)) return Invalid("fft IRFFT needs a complex operand, got ", S(in));
    HLO_RETURN_IF_ERROR(check_dims(fr - 1));
    int64_t last = in.rank() - 1;
    int64_t want = len.back() / 2 + 1;
    if (!IsUnbounded(in, last) && (in.dim(last) != 0 || len.back() != 0) && in.dim(last) != want)
      return Invalid("fft IRFFT operand's last dimension must be fft_length.back()/2+1 = ", want, ", got ",
                     in.dim(last));
    dims.back() = len.back();
    return MakeArray(ComplexComponentType(t), dims, in.dynamic_dims());
  }
  return Invalid("unknown fft_type ", type);
}

absl::StatusOr<Shape> Cholesky(const Ctx& c) {
  HLO_RETURN_IF_ERROR(ExpectCount(c, 1));
  HLO_RETURN_IF_ERROR(ExpectArray(c, 0));
  const Shape& a = c.op(0);
  if (!IsFloatOrComplex(a.element_type()))
    return Invalid("cholesky needs a floating-point or complex operand, got ", S(a));
  if (a.rank() < 2) return Invalid("cholesky needs an operand of rank >= 2, got ", S(a));
  if (a.dim(a.rank() - 1) != a.dim(a.rank() - 2))
    return Invalid("cholesky needs square matrices in the two minor dimensions, got ", S(a));
  return a;
}

absl::StatusOr<Shape> TriangularSolve(const Ctx& c) {
  HLO_RETURN_IF_ERROR(ExpectCount(c, 2));
  HLO_RETURN_IF_ERROR(ExpectAllArrays(c));
  const Shape& a = c.op(0);
  const Shape& b = c.op(1);
  if (!IsFloatOrComplex(a.element_type()) || a.element_type() != b.element_type())
    return Invalid("triangular-solve needs floating-point or complex operands of one type, got ", S(a),
                   " and ", S(b));
  if (a.rank() < 2 || a.rank() != b.rank())
    return Invalid("triangular-solve operands must have the same rank >= 2, got ", S(a), " and ", S(b));
  const int64_t n = a.rank();
  if (a.dim(n - 1) != a.dim(n - 2)) return Invalid("triangular-solve a must be square matrices, got ", S(a));
  for (int64_t i = 0; i < n - 2; ++i)
    if (a.dim(i) != b.dim(i))
      return Invalid("triangular-solve batch dimensions differ: ", S(a), " and ", S(b));
  const bool left = c.inst.AttrOr<bool>("left_side", false);
  int64_t bd = left ? b.dim(n - 2) : b.dim(n - 1);
  if (bd != a.dim(n - 1))
    return Invalid("triangular-solve with left_side=", left ? "true" : "false", " needs b dimension ",
                   left ? n - 2 : n - 1, " (", bd, ") to equal a's size ", a.dim(n - 1));
  if (const auto* t = c.inst.GetAttr<std::string>("transpose_a"))
    if (*t != "NO_TRANSPOSE" && *t != "TRANSPOSE" && *t != "ADJOINT")
      return Invalid("triangular-solve transpose_a must be NO_TRANSPOSE, TRANSPOSE or ADJOINT, got ", *t);
  return b;
}

absl::StatusOr<Shape> BatchNorm(const Ctx& c) {
  const Opcode op = c.inst.opcode();
  HLO_RETURN_IF_ERROR(ExpectCount(c, op == Opcode::kBatchNormTraining ? 3 : 5));
  HLO_RETURN_IF_ERROR(ExpectAllArrays(c));
  const Shape& x = c.op(0);
  HLO_ASSIGN_OR_RETURN(int64_t f, Int(c, "feature_index"));
  if (!c.inst.GetAttr<double>("epsilon")) return Invalid(c.name(), " is missing required attribute epsilon");
  if (f < 0 || f >= x.rank()) return Invalid(c.name(), " feature_index ", f, " is out of range for ", S(x));
  if (!IsFloat(x.element_type())) return Invalid(c.name(), " needs a floating-point operand, got ", S(x));
  const int64_t fs = x.dim(f);
  // Which operands are per-feature vectors, which have the operand's shape.
  for (int64_t i = 1; i < c.n(); ++i) {
    const Shape& s = c.op(i);
    const bool full = op == Opcode::kBatchNormGrad && i == 4;
    if (!SameTypeIgnoringFp(s.element_type(), x.element_type()))
      return Invalid(c.name(), " operand ", i, " ", S(s), " must have the element type of operand 0 ", S(x));
    if (full) {
      if (!SameDims(s, x))
        return Invalid(c.name(), " grad_output (operand 4) ", S(s), " must have the shape of the operand ",
                       S(x));
    } else if (s.rank() != 1 || (s.dim(0) != fs && !IsUnbounded(x, f))) {
      return Invalid(c.name(), " operand ", i, " must be a vector of the feature size ", fs, ", got ", S(s));
    }
  }
  if (op == Opcode::kBatchNormInference) return x;
  Shape v = MakeArray(x.element_type(), {fs});
  return Shape::Tuple({x, v, v});
}

// ---------------------------------------------------------------------------
// Gather / scatter
// ---------------------------------------------------------------------------

absl::StatusOr<Shape> Gather(const Ctx& c) {
  HLO_RETURN_IF_ERROR(ExpectCount(c, 2));
  HLO_RETURN_IF_ERROR(ExpectAllArrays(c));
  const Shape& in = c.op(0);
  const Shape& idx = c.op(1);
  if (!IsInteger(idx.element_type())) return Invalid("gather start indices must be integers, got ", S(idx));
  HLO_ASSIGN_OR_RETURN(std::vector<int64_t> offset_dims, IntList(c, "offset_dims"));
  HLO_ASSIGN_OR_RETURN(std::vector<int64_t> collapsed, IntList(c, "collapsed_slice_dims"));
  HLO_ASSIGN_OR_RETURN(std::vector<int64_t> sim, IntList(c, "start_index_map"));
  HLO_ASSIGN_OR_RETURN(std::vector<int64_t> obd, IntListOr(c, "operand_batching_dims", {}));
  HLO_ASSIGN_OR_RETURN(std::vector<int64_t> sibd, IntListOr(c, "start_indices_batching_dims", {}));
  HLO_ASSIGN_OR_RETURN(int64_t ivd, Int(c, "index_vector_dim"));
  HLO_ASSIGN_OR_RETURN(std::vector<int64_t> sizes, IntList(c, "slice_sizes"));
  if (ivd < 0 || ivd > idx.rank())
    return Invalid("gather index_vector_dim ", ivd, " is out of range [0, ", idx.rank(),
                   "] for start indices ", S(idx));
  DimVector eidx = idx.dims();
  if (ivd == idx.rank()) eidx.push_back(1);
  const int64_t erank = static_cast<int64_t>(eidx.size());
  const int64_t nbatch = erank - 1;
  const int64_t out_rank = static_cast<int64_t>(offset_dims.size()) + nbatch;
  HLO_RETURN_IF_ERROR(CheckSorted(c, offset_dims, "offset_dims"));
  HLO_RETURN_IF_ERROR(CheckDims(c, offset_dims, out_rank, "offset_dims"));
  HLO_RETURN_IF_ERROR(CheckSorted(c, collapsed, "collapsed_slice_dims"));
  HLO_RETURN_IF_ERROR(CheckDims(c, collapsed, in.rank(), "collapsed_slice_dims"));
  HLO_RETURN_IF_ERROR(CheckSorted(c, obd, "operand_batching_dims"));
  HLO_RETURN_IF_ERROR(CheckDims(c, obd, in.rank(), "operand_batching_dims"));
  HLO_RETURN_IF_ERROR(CheckDims(c, sibd, erank, "start_indices_batching_dims"));
  for (int64_t d : sibd)
    if (d == ivd)
      return Invalid("gather start_indices_batching_dims must not contain index_vector_dim ", ivd);
  if (obd.size() != sibd.size())
    return Invalid("gather operand_batching_dims ", L(obd), " and start_indices_batching_dims ", L(sibd),
                   " must have the same size");
  for (int64_t d : collapsed)
    if (std::find(obd.begin(), obd.end(), d) != obd.end())
      return Invalid("gather dimension ", d, " is both collapsed and a batching dimension");
  HLO_RETURN_IF_ERROR(CheckDims(c, sim, in.rank(), "start_index_map"));
  if (static_cast<int64_t>(sim.size()) != eidx[ivd])
    return Invalid("gather start_index_map ", L(sim), " must have one entry per index vector element (",
                   eidx[ivd], ")");
  for (int64_t d : sim)
    if (std::find(obd.begin(), obd.end(), d) != obd.end())
      return Invalid("gather start_index_map must not contain the batching dimension ", d);
  if (static_cast<int64_t>(sizes.size()) != in.rank())
    return Invalid("gather slice_sizes ", L(sizes), " must have one entry per operand dimension (", in.rank(),
                   ")");
  if (static_cast<int64_t>(offset_dims.size() + collapsed.size() + obd.size()) != in.rank())
    return Invalid("gather offset_dims (", offset_dims.size(), ") + collapsed_slice_dims (", collapsed.size(),
                   ") + operand_batching_dims (", obd.size(), ") must equal the operand rank ", in.rank());
  for (int64_t i = 0; i < in.rank(); ++i) {
    if (sizes[i] < 0 || (!IsUnbounded(in, i) && sizes[i] > in.dim(i)))
      return Invalid("gather slice_sizes[", i, "] = ", sizes[i], " is out of range [0, ", in.dim(i), "]");
  }
  for (int64_t d : collapsed)
    if (sizes[d] > 1)
      return Invalid("gather collapsed dimension ", d, " must have slice size <= 1, got ", sizes[d]);
  for (int64_t d : obd)
    if (sizes[d] > 1)
      return Invalid("gather batching dimension ", d, " must have slice size <= 1, got ", sizes[d]);
  // Remaining (offset) slice sizes in order.
  std::vector<int64_t> window;
  for (int64_t i = 0; i < in.rank(); ++i)
    if (std::find(collapsed.begin(), collapsed.end(), i) == collapsed.end() &&
        std::find(obd.begin(), obd.end(), i) == obd.end())
      window.push_back(sizes[i]);
  std::vector<int64_t> batch;
  std::vector<bool> batch_dyn;
  for (int64_t i = 0; i < erank; ++i)
    if (i != ivd) {
      batch.push_back(eidx[i]);
      batch_dyn.push_back(i < idx.rank() && idx.is_dynamic_dim(i));
    }
  std::vector<int64_t> dims;
  DynamicVector dyn;
  size_t wi = 0, bi = 0;
  for (int64_t i = 0; i < out_rank; ++i) {
    if (std::find(offset_dims.begin(), offset_dims.end(), i) != offset_dims.end()) {
      if (wi >= window.size()) return Invalid("gather offset_dims do not match the slice sizes");
      dims.push_back(window[wi++]);
      dyn.push_back(false);
    } else {
      if (bi >= batch.size()) return Invalid("gather has more output batch dimensions than index dimensions");
      dims.push_back(batch[bi]);
      dyn.push_back(batch_dyn[bi++]);
    }
  }
  return MakeArray(in.element_type(), dims, dyn);
}

absl::StatusOr<Shape> Scatter(const Ctx& c) {
  if (c.n() < 3 || c.n() % 2 != 1)
    return Invalid("scatter expects N operands, 1 index array and N updates (an odd count >= 3), got ",
                   c.n());
  HLO_RETURN_IF_ERROR(ExpectAllArrays(c));
  const int64_t n = c.n() / 2;
  const Shape& in = c.op(0);
  const Shape& idx = c.op(n);
  if (!IsInteger(idx.element_type())) return Invalid("scatter indices must be integers, got ", S(idx));
  for (int64_t i = 1; i < n; ++i)
    if (!SameDims(c.op(i), in))
      return Invalid("scatter operands must have the same dimensions: ", S(in), " and ", S(c.op(i)));
  HLO_ASSIGN_OR_RETURN(std::vector<int64_t> uwd, IntList(c, "update_window_dims"));
  HLO_ASSIGN_OR_RETURN(std::vector<int64_t> iwd, IntList(c, "inserted_window_dims"));
  HLO_ASSIGN_OR_RETURN(std::vector<int64_t> sdod, IntList(c, "scatter_dims_to_operand_dims"));
  HLO_ASSIGN_OR_RETURN(std::vector<int64_t> ibd, IntListOr(c, "input_batching_dims", {}));
  HLO_ASSIGN_OR_RETURN(std::vector<int64_t> sibd, IntListOr(c, "scatter_indices_batching_dims", {}));
  HLO_ASSIGN_OR_RETURN(int64_t ivd, Int(c, "index_vector_dim"));
  if (ivd < 0 || ivd > idx.rank())
    return Invalid("scatter index_vector_dim ", ivd, " is out of range [0, ", idx.rank(), "] for indices ",
                   S(idx));
  DimVector eidx = idx.dims();
  if (ivd == idx.rank()) eidx.push_back(1);
  const int64_t erank = static_cast<int64_t>(eidx.size());
  HLO_RETURN_IF_ERROR(CheckSorted(c, uwd, "update_window_dims"));
  HLO_RETURN_IF_ERROR(CheckSorted(c, iwd, "inserted_window_dims"));
  HLO_RETURN_IF_ERROR(CheckDims(c, iwd, in.rank(), "inserted_window_dims"));
  HLO_RETURN_IF_ERROR(CheckSorted(c, ibd, "input_batching_dims"));
  HLO_RETURN_IF_ERROR(CheckDims(c, ibd, in.rank(), "input_batching_dims"));
  HLO_RETURN_IF_ERROR(CheckDims(c, sibd, erank, "scatter_indices_batching_dims"));
  for (int64_t d : sibd)
    if (d == ivd) return Invalid("scatter_indices_batching_dims must not contain index_vector_dim ", ivd);
  if (ibd.size() != sibd.size())
    return Invalid("scatter input_batching_dims ", L(ibd), " and scatter_indices_batching_dims ", L(sibd),
                   " must have the same size");
  for (int64_t d : iwd)
    if (std::find(ibd.begin(), ibd.end(), d) != ibd.end())
      return Invalid("scatter dimension ", d, " is both inserted and a batching dimension");
  HLO_RETURN_IF_ERROR(CheckDims(c, sdod, in.rank(), "scatter_dims_to_operand_dims"));
  if (static_cast<int64_t>(sdod.size()) != eidx[ivd])
    return Invalid("scatter_dims_to_operand_dims ", L(sdod),
                   " must have one entry per index vector element (", eidx[ivd], ")");
  if (static_cast<int64_t>(uwd.size() + iwd.size() + ibd.size()) != in.rank())
    return Invalid("scatter update_window_dims (", uwd.size(), ") + inserted_window_dims (", iwd.size(),
                   ") + input_batching_dims (", ibd.size(), ") must equal the operand rank ", in.rank());
  const int64_t urank = static_cast<int64_t>(uwd.size()) + erank - 1;
  // Operand dims that correspond to update window dims, in order.
  std::vector<int64_t> window_operand_dims;
  for (int64_t i = 0; i < in.rank(); ++i)
    if (std::find(iwd.begin(), iwd.end(), i) == iwd.end() &&
        std::find(ibd.begin(), ibd.end(), i) == ibd.end())
      window_operand_dims.push_back(i);
  std::vector<int64_t> scatter_dims;
  for (int64_t i = 0; i < erank; ++i)
    if (i != ivd) scatter_dims.push_back(eidx[i]);
  for (int64_t u = 0; u < n; ++u) {
    const Shape& upd = c.op(n + 1 + u);
    if (!SameTypeIgnoringFp(upd.element_type(), c.op(u).element_type()))
      return Invalid("scatter update ", u, " ", S(upd), " must have the element type of operand ", u, " ",
                     S(c.op(u)));
    if (upd.rank() != urank)
      return Invalid("scatter update ", u, " ", S(upd), " must have rank ", urank,
                     " (update_window_dims + scatter dimensions)");
    HLO_RETURN_IF_ERROR(CheckDims(c, uwd, urank, "update_window_dims"));
    size_t wi = 0, si = 0;
    for (int64_t i = 0; i < urank; ++i) {
      if (std::find(uwd.begin(), uwd.end(), i) != uwd.end()) {
        if (wi >= window_operand_dims.size())
          return Invalid("scatter update_window_dims do not match the operand");
        int64_t od = window_operand_dims[wi++];
        if (!IsUnbounded(upd, i) && !IsUnbounded(in, od) && upd.dim(i) > in.dim(od))
          return Invalid("scatter update ", u, " window dimension ", i, " (size ", upd.dim(i),
                         ") exceeds operand dimension ", od, " (size ", in.dim(od), ")");
      } else {
        if (si >= scatter_dims.size()) return Invalid("scatter update has too many scatter dimensions");
        int64_t want = scatter_dims[si++];
        if (!IsUnbounded(upd, i) && want != Shape::kUnboundedSize && upd.dim(i) != want)
          return Invalid("scatter update ", u, " dimension ", i, " has size ", upd.dim(i),
                         " but the matching indices dimension has size ", want);
      }
    }
  }
  HLO_ASSIGN_OR_RETURN(const Computation* comp, Comp(c, "to_apply"));
  HLO_RETURN_IF_ERROR(CheckReducer(c, comp, "to_apply", Types(c, 0, n), Types(c, n + 1, 2 * n + 1)));
  return TupleOrSingle(OperandShapes(c, 0, n));
}

// ---------------------------------------------------------------------------
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

// ---------------------------------------------------------------------------
// Async, copy-start
// ---------------------------------------------------------------------------

bool IsAsyncStartLike(Opcode op) { return op == Opcode::kAsyncStart || op == Opcode::kAsyncUpdate; }

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

// ---------------------------------------------------------------------------
// Collectives
// ---------------------------------------------------------------------------

// Replica-group modes, as XLA derives them from channel_id and
// use_global_device_ids.
enum class GroupMode { kCrossReplica, kCrossPartition, kCrossReplicaAndPartition, kFlattenedId };

absl::StatusOr<GroupMode> GetGroupMode(const Ctx& c, bool has_use_global) {
  const bool has_channel = c.inst.HasAttr("channel_id");
  std::optional<bool> use_global;
  if (has_use_global) use_global = c.inst.AttrOr<bool>("use_global_device_ids", false);
  if (!has_channel) {
    if (use_global && *use_global)
      return Invalid(c.name(), " with use_global_device_ids=true needs a channel_id");
    return GroupMode::kCrossReplica;
  }
  if (!use_global) return GroupMode::kCrossPartition;
  return *use_global ? GroupMode::kFlattenedId : GroupMode::kCrossReplicaAndPartition;
}

// Why an iota device list cannot be expanded, or "" if it can.
std::string IotaProblem(const IotaDeviceList& l) {
  if (l.dims.size() != 2) return "the iota form must be [G,S]";
  if (l.dims[0] < 0 || l.dims[1] < 0) return "negative group count or size";
  return l.Problem();
}

std::vector<std::vector<int64_t>> Groups(const Ctx& c) {
  const auto* g = c.inst.GetAttr<CollectiveDeviceList>("replica_groups");
  if (g == nullptr) return {};
  if (g->is_iota && !IotaProblem(g->iota).empty()) return {};
  return g->ExpandedGroups();
}

// replica_count / num_partitions of the enclosing module (1 when unknown).
std::pair<int64_t, int64_t> ModuleCounts(const Ctx& c) {
  const Computation* comp = c.inst.parent();
  const Module* m = comp != nullptr ? comp->parent() : nullptr;
  if (m == nullptr) return {1, 1};
  return {std::max<int64_t>(1, m->header().replica_count), std::max<int64_t>(1, m->header().num_partitions)};
}

// XLA's replica-group rules: no empty group, no repeated id, ids 0..n-1 with
// n matching the participant count of the mode (unless that count is 1),
// uniform sizes (except all-reduce), and explicit groups in flattened-id mode.
absl::Status CheckReplicaGroups(const Ctx& c, GroupMode mode, bool uniform) {
  const auto* g = c.inst.GetAttr<CollectiveDeviceList>("replica_groups");
  if (g != nullptr && g->is_iota) {
    std::string problem = IotaProblem(g->iota);
    if (!problem.empty()) return Invalid(c.name(), " has invalid replica_groups: ", problem);
  }
  if (g != nullptr && g->is_mesh) {
    std::string problem = g->mesh.Problem();
    if (!problem.empty()) return Invalid(c.name(), " has invalid replica_groups: ", problem);
  }
  const auto groups = Groups(c);
  if (groups.empty()) {
    if (mode == GroupMode::kFlattenedId)
      return Invalid(c.name(), " needs explicit replica_groups when use_global_device_ids=true");
    return absl::OkStatus();
  }
  std::set<int64_t> seen;
  for (const auto& grp : groups) {
    if (grp.empty()) return Invalid(c.name(), " has an empty replica group");
    for (int64_t id : grp)
      if (!seen.insert(id).second)
        return Invalid("replica ", id, " is repeated in the replica_groups of ", c.name());
  }
  const int64_t n = static_cast<int64_t>(seen.size());
  for (int64_t i = 0; i < n; ++i)
    if (!seen.count(i)) return Invalid("replica ", i, " is not named in the replica_groups of ", c.name());
  auto [replicas, partitions] = ModuleCounts(c);
  int64_t want = 1;
  absl::string_view what = "replicas";
  switch (mode) {
    case GroupMode::kCrossReplica:
    case GroupMode::kCrossReplicaAndPartition:
      want = replicas;
      break;
    case GroupMode::kCrossPartition:
      want = partitions;
      what = "partitions";
      break;
    case GroupMode::kFlattenedId:
      want = replicas * partitions;
      what = "flattened ids (replicas x partitions)";
      break;
  }
  if (want != 1 && n != want)
    return Invalid(c.name(), " replica_groups name ", n, " ids but the module has ", want, " ", what);
  if (uniform)
    for (const auto& grp : groups)
      if (grp.size() != groups[0].size())
        return Invalid(c.name(), " replica groups must all have the same size");
  return absl::OkStatus();
}

// Number of participants in each group (XLA's GetSubgroupSize).
int64_t SubgroupSize(const Ctx& c, GroupMode mode) {
  const auto groups = Groups(c);
  auto [replicas, partitions] = ModuleCounts(c);
  const int64_t first = groups.empty() ? 0 : static_cast<int64_t>(groups[0].size());
  switch (mode) {
    case GroupMode::kCrossReplica:
      return groups.empty() ? replicas : first;
    case GroupMode::kCrossReplicaAndPartition:
      return (groups.empty() ? replicas : first) * partitions;
    case GroupMode::kFlattenedId:
      return std::max<int64_t>(first, 1);
    case GroupMode::kCrossPartition:
      return groups.empty() ? partitions : first;
  }
  return 1;
}

// The written counterpart of result `i` of a collective with `n` results.
const Shape* WrittenResult(const Shape& w, int64_t n, int64_t i) {
  if (n == 1 && !w.IsTuple()) return &w;
  if (w.IsTuple() && w.tuple_size() == n) return &w.tuple_shape(i);
  return nullptr;
}

int64_t CeilDiv(int64_t a, int64_t b) { return b <= 0 ? 0 : (a + b - 1) / b; }

// all-gather (gather=true) and reduce-scatter: the shard count comes from
// the written result (operand 0, gather dimension), as in XLA, and must
// equal the group size when that is known (!= 1).
absl::StatusOr<std::vector<Shape>> ScaledCollective(const Ctx& c, const Shape& written, bool gather) {
  HLO_RETURN_IF_ERROR(ExpectCountAtLeast(c, 1));
  HLO_RETURN_IF_ERROR(ExpectAllArrays(c));
  HLO_ASSIGN_OR_RETURN(std::vector<int64_t> dims, IntList(c, "dimensions"));
  if (dims.size() != 1) return Invalid(c.name(), " expects exactly one dimension, got ", L(dims));
  HLO_ASSIGN_OR_RETURN(GroupMode mode, GetGroupMode(c, /*has_use_global=*/true));
  HLO_RETURN_IF_ERROR(CheckReplicaGroups(c, mode, /*uniform=*/true));
  const int64_t d = dims[0];
  for (int64_t i = 0; i < c.n(); ++i) HLO_RETURN_IF_ERROR(CheckDims(c, dims, c.op(i).rank(), "dimensions"));
  const int64_t subgroup = SubgroupSize(c, mode);
  int64_t shards = subgroup;
  const Shape* w0 = WrittenResult(written, c.n(), 0);
  if (w0 != nullptr && w0->IsArray() && w0->rank() > d && !IsUnbounded(*w0, d) && !IsUnbounded(c.op(0), d)) {
    const int64_t in = c.op(0).dim(d), out = w0->dim(d);
    int64_t from_shapes = gather ? CeilDiv(out, in) : CeilDiv(in, out);
    if ((gather ? in : out) > 0) shards = from_shapes;
  }
  if (shards <= 0) shards = 1;
  if (subgroup != 1 && shards != subgroup)
    return Invalid(c.name(), " shard count ", shards, " (from the operand and result sizes in dimension ", d,
                   ") differs from the replica group size ", subgroup);
  std::vector<Shape> out;
  for (int64_t i = 0; i < c.n(); ++i) {
    const Shape& in = c.op(i);
    DimVector od = in.dims();
    if (!IsUnbounded(in, d)) {
      if (gather) {
        od[d] = SatMul(in.dim(d), shards);
      } else {
        if (in.dim(d) % shards != 0)
          return Invalid(c.name(), " dimension ", d, " of operand ", i, " ", S(in),
                         " is not divisible by the shard count ", shards);
        od[d] = in.dim(d) / shards;
      }
    }
    out.push_back(MakeArray(in.element_type(), od, in.dynamic_dims()));
  }
  return out;
}

absl::StatusOr<Shape> AllGather(const Ctx& c) {
  const Shape& w = c.inst.shape();
  if (c.inst.opcode() == Opcode::kAllGatherStart) {
    // (operand(s), result(s))
    Shape result_written;
    if (w.IsTuple() && w.tuple_size() == 2) result_written = w.tuple_shape(1);
    HLO_ASSIGN_OR_RETURN(std::vector<Shape> res, ScaledCollective(c, result_written, true));
    if (c.n() == 1) return Shape::Tuple({c.op(0), res[0]});
    return Shape::Tuple({Shape::Tuple(OperandShapes(c)), Shape::Tuple(res)});
  }
  HLO_ASSIGN_OR_RETURN(std::vector<Shape> res, ScaledCollective(c, w, true));
  return TupleOrSingle(res);
}

absl::StatusOr<Shape> ReduceScatter(const Ctx& c) {
  HLO_ASSIGN_OR_RETURN(std::vector<Shape> res, ScaledCollective(c, c.inst.shape(), false));
  HLO_RETURN_IF_ERROR(Comp(c, "to_apply").status());
  return TupleOrSingle(res);
}

absl::StatusOr<Shape> AllReduce(const Ctx& c) {
  HLO_RETURN_IF_ERROR(ExpectCountAtLeast(c, 1));
  for (int64_t i = 0; i < c.n(); ++i) HLO_RETURN_IF_ERROR(ExpectArray(c, i));
  HLO_ASSIGN_OR_RETURN(GroupMode mode, GetGroupMode(c, /*has_use_global=*/true));
  HLO_RETURN_IF_ERROR(CheckReplicaGroups(c, mode, /*uniform=*/false));
  if (const int64_t* ch = c.inst.GetAttr<int64_t>("channel_id"))
    if (*ch <= 0) return Invalid(c.name(), " channel_id must be greater than 0, got ", *ch);
  HLO_RETURN_IF_ERROR(Comp(c, "to_apply").status());
  return TupleOrSingle(OperandShapes(c));
}

absl::StatusOr<Shape> AllToAll(const Ctx& c) {
  HLO_RETURN_IF_ERROR(ExpectCountAtLeast(c, 1));
  HLO_RETURN_IF_ERROR(ExpectAllArrays(c));
  HLO_ASSIGN_OR_RETURN(std::vector<int64_t> dims, IntListOr(c, "dimensions", {}));
  if (dims.size() > 1) return Invalid("all-to-all expects at most one dimension, got ", L(dims));
  HLO_ASSIGN_OR_RETURN(GroupMode mode, GetGroupMode(c, /*has_use_global=*/false));
  HLO_RETURN_IF_ERROR(CheckReplicaGroups(c, mode, /*uniform=*/true));
  const int64_t split_count = SubgroupSize(c, mode);
  if (dims.empty()) {
    // Tuple form: one operand per participant, all of one shape.
    if (c.n() != split_count)
      return Invalid("all-to-all without a split dimension expects one operand per participant (",
                     split_count, "), got ", c.n());
    for (int64_t i = 1; i < c.n(); ++i)
      if (!ShapesCompatible(c.op(i), c.op(0)))
        return Invalid("all-to-all operands must all have the same shape: operand 0 is ", S(c.op(0)),
                       ", operand ", i, " is ", S(c.op(i)));
    return Shape::Tuple(OperandShapes(c));
  }
  if (c.n() != 1) return Invalid("all-to-all with a split dimension expects 1 operand, got ", c.n());
  HLO_RETURN_IF_ERROR(CheckDims(c, dims, c.op(0).rank(), "dimensions"));
  const int64_t sz = c.op(0).dim(dims[0]);
  if (split_count > 0 && sz != Shape::kUnboundedSize && sz % split_count != 0)
    return Invalid("all-to-all split dimension ", dims[0], " of size ", sz,
                   " is not divisible by the split count ", split_count);
  return c.op(0);
}

bool CollectivePermuteInPlace(const Ctx& c) {
  return c.n() == 4 && (c.inst.HasAttr("slice_sizes") || c.op(2).IsTuple() || c.op(3).IsTuple());
}

absl::StatusOr<Shape> CollectivePermute(const Ctx& c) {
  HLO_RETURN_IF_ERROR(ExpectCountAtLeast(c, 1));
  if (!c.inst.GetAttr<std::vector<std::vector<int64_t>>>("source_target_pairs"))
    return Invalid(c.name(), " is missing required attribute source_target_pairs");
  const auto& pairs = *c.inst.GetAttr<std::vector<std::vector<int64_t>>>("source_target_pairs");
  for (const auto& p : pairs)
    if (p.size() != 2) return Invalid(c.name(), " source_target_pairs entries must be {source,target} pairs");
  const bool inplace = CollectivePermuteInPlace(c);
  {
    // Ids in range of the participants; each source/target used once (the
    // in-place form may repeat them once per buffer offset).
    auto [replicas, partitions] = ModuleCounts(c);
    const int64_t limit = c.inst.HasAttr("channel_id") ? partitions : replicas;
    size_t allowed = 1;
    if (c.n() == 4 && c.op(2).IsTuple()) {
      if (c.op(0).IsArray())
        allowed = std::max<size_t>(1, c.op(2).tuple_shapes().size());
      else if (c.op(2).tuple_size() > 0)
        allowed = std::max<size_t>(1, c.op(2).tuple_shape(0).tuple_shapes().size());
    }
    std::map<int64_t, size_t> sources, targets;
    for (const auto& p : pairs) {
      for (int k = 0; k < 2; ++k) {
        const int64_t id = p[k];
        const char* role = k == 0 ? "source" : "target";
        if (id < 0 || (limit != 1 && id >= limit))
          return Invalid(c.name(), " ", role, " ", id, " in source_target_pairs is out of range [0, ", limit,
                         ")");
        size_t& n = (k == 0 ? sources : targets)[id];
        if (++n > allowed)
          return Invalid(c.name(), " ", role, " ", id, " appears more than ",
                         allowed == 1 ? "once" : "allowed", " in source_target_pairs");
      }
    }
  }
  Shape result;
  if (inplace) {
    // XLA's in-place rules: buffers both arrays (offsets: a tuple of rank
    // scalars, or a tuple of such tuples) or both tuples of equal size.
    auto check_offset = [&](const Shape& buffer, const Shape& offset) -> absl::Status {
      if (!offset.IsTuple()) return Invalid(c.name(), " buffer offset ", S(offset), " is not a tuple");
      bool all_array = true, all_tuple = true;
      for (const Shape& e : offset.tuple_shapes()) {
        all_array = all_array && !e.IsTuple();
        all_tuple = all_tuple && e.IsTuple();
      }
      if (!all_array && !all_tuple)
        return Invalid(c.name(), " buffer offset must be a tuple of arrays or a tuple of tuples, got ",
                       S(offset));
      if (all_tuple && offset.tuple_size() > 0) {
        for (const Shape& e : offset.tuple_shapes())
          if (e.tuple_size() != buffer.rank())
            return Invalid(c.name(), " buffer offset ", S(e), " needs one index per dimension of ",
                           S(buffer));
      } else if (offset.tuple_size() != buffer.rank()) {
        return Invalid(c.name(), " buffer offset ", S(offset), " needs one index per dimension of ",
                       S(buffer));
      }
      return absl::OkStatus();
    };
    const Shape& in = c.op(0);
    const Shape& out = c.op(1);
    if (!in.IsTuple() && !out.IsTuple()) {
      HLO_RETURN_IF_ERROR(check_offset(in, c.op(2)));
      HLO_RETURN_IF_ERROR(check_offset(out, c.op(3)));
    } else if (in.IsTuple() && out.IsTuple()) {
      if (in.tuple_size() != out.tuple_size())
        return Invalid(c.name(), " in-place input ", S(in), " and output ", S(out),
                       " have different buffer counts");
      for (int k = 2; k < 4; ++k) {
        const Shape& off = c.op(k);
        if (!off.IsTuple() || off.tuple_size() != in.tuple_size())
          return Invalid(c.name(), " operand ", k, " ", S(off), " needs one offset per buffer");
        for (int64_t b = 0; b < in.tuple_size(); ++b)
          HLO_RETURN_IF_ERROR(check_offset((k == 2 ? in : out).tuple_shape(b), off.tuple_shape(b)));
      }
    } else {
      return Invalid(c.name(), " in-place input ", S(in), " and output ", S(out), " do not match");
    }
    result = c.op(1);
  } else {
    result = TupleOrSingle(OperandShapes(c));
  }
  if (c.inst.opcode() == Opcode::kCollectivePermute) return result;
  // -start: (input, output, context...)
  const Shape& w = c.inst.shape();
  if (!w.IsTuple() || w.tuple_size() < 2)
    return Invalid("collective-permute-start must produce a tuple (input, output, contexts...), got ", S(w));
  std::vector<Shape> elems{inplace ? c.op(0) : result, result};
  for (int64_t i = 2; i < w.tuple_size(); ++i) {
    const Shape& ctx = w.tuple_shape(i);
    if (!ctx.IsScalar() ||
        (ctx.element_type() != PrimitiveType::U32 && ctx.element_type() != PrimitiveType::S32))
      return Invalid("collective-permute-start context element ", i, " must be u32[], got ", S(ctx));
    elems.push_back(ctx);
  }
  return Shape::Tuple(elems);
}

absl::StatusOr<Shape> RaggedAllToAll(const Ctx& c) {
  HLO_RETURN_IF_ERROR(ExpectCount(c, 6));
  HLO_RETURN_IF_ERROR(ExpectAllArrays(c));
  HLO_ASSIGN_OR_RETURN(GroupMode mode, GetGroupMode(c, /*has_use_global=*/false));
  HLO_RETURN_IF_ERROR(CheckReplicaGroups(c, mode, /*uniform=*/true));
  const Shape& in = c.op(0);
  const Shape& out = c.op(1);
  if (!SameTypeIgnoringFp(in.element_type(), out.element_type()) || in.rank() != out.rank())
    return Invalid("ragged-all-to-all input ", S(in), " and output ", S(out),
                   " must have the same element type and rank");
  for (int64_t i = 2; i < 6; ++i)
    if (!IsInteger(c.op(i).element_type()))
      return Invalid("ragged-all-to-all offsets/sizes (operand ", i, ") must be integers, got ", S(c.op(i)));
  return out;
}

absl::StatusOr<Shape> DoneOf(const Ctx& c, int64_t index) {
  HLO_RETURN_IF_ERROR(ExpectCount(c, 1));
  const Shape& s = c.op(0);
  if (!s.IsTuple() || s.tuple_size() <= index)
    return Invalid(c.name(), " operand must be a tuple with at least ", index + 1, " elements, got ", S(s));
  return s.tuple_shape(index);
}

// ---------------------------------------------------------------------------
// Send/recv, infeed/outfeed, tokens
// ---------------------------------------------------------------------------

absl::Status ExpectToken(const Ctx& c, int64_t i) {
  if (!c.op(i).IsToken()) return Invalid(c.name(), " operand ", i, " must be a token, got ", S(c.op(i)));
  return absl::OkStatus();
}

Shape U32() { return Shape::Scalar(PrimitiveType::U32); }

absl::StatusOr<Shape> Send(const Ctx& c) {
  HLO_RETURN_IF_ERROR(ExpectCount(c, 2));
  HLO_RETURN_IF_ERROR(ExpectToken(c, 1));
  return Shape::Tuple({c.op(0), U32(), Shape::Token()});
}

absl::StatusOr<Shape> Recv(const Ctx& c) {
  HLO_RETURN_IF_ERROR(ExpectCount(c, 1));
  HLO_RETURN_IF_ERROR(ExpectToken(c, 0));
  const Shape& w = c.inst.shape();
  if (!w.IsTuple() || w.tuple_size() != 3)
    return Invalid("recv must produce a tuple (data, u32[], token[]), got ", S(w));
  return Shape::Tuple({w.tuple_shape(0), U32(), Shape::Token()});
}

absl::StatusOr<Shape> RecvDone(const Ctx& c) {
  HLO_RETURN_IF_ERROR(ExpectCount(c, 1));
  const Shape& s = c.op(0);
  if (!s.IsTuple() || s.tuple_size() < 1)
    return Invalid("recv-done needs a recv operand of shape (data, u32[], token[]), got ", S(s));
  return Shape::Tuple({s.tuple_shape(0), Shape::Token()});
}

absl::StatusOr<Shape> SendDone(const Ctx& c) {
  HLO_RETURN_IF_ERROR(ExpectCount(c, 1));
  return Shape::Token();
}

absl::StatusOr<Shape> Infeed(const Ctx& c) {
  HLO_RETURN_IF_ERROR(ExpectCount(c, 1));
  HLO_RETURN_IF_ERROR(ExpectToken(c, 0));
  const Shape& w = c.inst.shape();
  if (!w.IsTuple() || w.tuple_size() != 2 || !w.tuple_shape(1).IsToken())
    return Invalid("infeed must have a non-empty tuple shape (data, token[]), got ", S(w));
  return w;
}

absl::StatusOr<Shape> Outfeed(const Ctx& c) {
  HLO_RETURN_IF_ERROR(ExpectCount(c, 2));
  HLO_RETURN_IF_ERROR(ExpectToken(c, 1));
  if (const Shape* os = c.inst.GetAttr<Shape>("outfeed_shape"))
    if (!ShapesCompatible(*os, c.op(0)))
      return Invalid("outfeed_shape ", S(*os), " does not match the outfed operand ", S(c.op(0)));
  return Shape::Token();
}

// XLA accepts non-token operands here too (they only order the token after
// their producers), so operands are not type-checked.
absl::StatusOr<Shape> AfterAll(const Ctx&) { return Shape::Token(); }

// ---------------------------------------------------------------------------
// Misc
// ---------------------------------------------------------------------------

absl::StatusOr<Shape> GetDimensionSize(const Ctx& c) {
  HLO_RETURN_IF_ERROR(ExpectCount(c, 1));
  HLO_RETURN_IF_ERROR(ExpectArray(c, 0));
  HLO_ASSIGN_OR_RETURN(std::vector<int64_t> dims, IntList(c, "dimensions"));
  if (dims.size() != 1) return Invalid(c.name(), " expects exactly one dimension, got ", L(dims));
  HLO_RETURN_IF_ERROR(CheckDims(c, dims, c.op(0).rank(), "dimensions"));
  if (c.op(0).dim(dims[0]) > std::numeric_limits<int32_t>::max())
    return Invalid("get-dimension-size: dimension ", dims[0], " of ", S(c.op(0)), " exceeds the s32 range");
  return Shape::Scalar(PrimitiveType::S32);
}

absl::StatusOr<Shape> SetDimensionSize(const Ctx& c) {
  HLO_RETURN_IF_ERROR(ExpectCount(c, 2));
  HLO_RETURN_IF_ERROR(ExpectAllArrays(c));
  HLO_ASSIGN_OR_RETURN(std::vector<int64_t> dims, IntList(c, "dimensions"));
  if (dims.size() != 1) return Invalid(c.name(), " expects exactly one dimension, got ", L(dims));
  HLO_RETURN_IF_ERROR(CheckDims(c, dims, c.op(0).rank(), "dimensions"));
  if (c.op(0).dim(dims[0]) > std::numeric_limits<int32_t>::max())
    return Invalid("set-dimension-size: dimension ", dims[0], " of ", S(c.op(0)), " exceeds the s32 range");
  if (!c.op(1).IsScalar() || c.op(1).element_type() != PrimitiveType::S32)
    return Invalid("set-dimension-size size (operand 1) must be an s32 scalar, got ", S(c.op(1)));
  Shape r = c.op(0);
  r.set_dynamic_dim(dims[0], true);
  return r;
}

absl::StatusOr<Shape> ReducePrecision(const Ctx& c) {
  HLO_RETURN_IF_ERROR(ExpectCount(c, 1));
  HLO_RETURN_IF_ERROR(ExpectArray(c, 0));
  if (!IsFloat(c.op(0).element_type()))
    return Invalid("reduce-precision needs a floating-point operand, got ", S(c.op(0)));
  HLO_ASSIGN_OR_RETURN(int64_t e, Int(c, "exponent_bits"));
  HLO_ASSIGN_OR_RETURN(int64_t m, Int(c, "mantissa_bits"));
  if (e < 1) return Invalid("reduce-precision exponent_bits must be >= 1, got ", e);
  if (m < 0) return Invalid("reduce-precision mantissa_bits must be >= 0, got ", m);
  return c.op(0);
}

absl::StatusOr<Shape> Rng(const Ctx& c) {
  HLO_RETURN_IF_ERROR(ExpectCount(c, 2));
  HLO_RETURN_IF_ERROR(ExpectAllArrays(c));
  HLO_RETURN_IF_ERROR(ExpectScalar(c, 0, "a"));
  HLO_RETURN_IF_ERROR(ExpectScalar(c, 1, "b"));
  const PrimitiveType t = c.op(0).element_type();
  if (t != c.op(1).element_type())
    return Invalid("rng parameters must have the same element type, got ", S(c.op(0)), " and ", S(c.op(1)));
  HLO_ASSIGN_OR_RETURN(std::string dist, Enum(c, "distribution"));
  if (dist == "rng_normal" && !IsFloat(t))
    return Invalid("rng_normal needs floating-point parameters, got ", TN(t));
  if (dist == "rng_uniform" && !IsFloat(t) && !IsInteger(t) && !IsPred(t))
    return Invalid("rng_uniform needs numeric parameters, got ", TN(t));
  const Shape& w = c.inst.shape();
  if (!w.IsArray() || w.IsTuple()) return Invalid("rng must produce an array, written shape is ", S(w));
  return WithType(w, t);
}

absl::StatusOr<Shape> RngBitGenerator(const Ctx& c) {
  HLO_RETURN_IF_ERROR(ExpectCount(c, 1));
  HLO_RETURN_IF_ERROR(ExpectArray(c, 0));
  const Shape& w = c.inst.shape();
  if (!w.IsTuple()) return w;  // XLA accepts a bare bits result
  if (w.tuple_size() != 2 || !w.tuple_shape(1).IsArray() || w.tuple_shape(1).IsTuple())
    return Invalid("rng-bit-generator must produce a tuple (state, bits), got ", S(w));
  const PrimitiveType bt = w.tuple_shape(1).element_type();
  if (!IsUnsignedInt(bt) && !IsSignedInt(bt))
    return Invalid("rng-bit-generator output bits must be integers, got ", S(w.tuple_shape(1)));
  return Shape::Tuple({c.op(0), w.tuple_shape(1)});
}

absl::StatusOr<Shape> CopyStart(const Ctx& c) {
  HLO_RETURN_IF_ERROR(ExpectCount(c, 1));
  return Shape::Tuple({c.op(0), c.op(0), U32()});
}

absl::StatusOr<Shape> Identity(const Ctx& c) {
  HLO_RETURN_IF_ERROR(ExpectCount(c, 1));
  return c.op(0);
}

absl::StatusOr<Shape> Written(const Ctx& c) { return c.inst.shape(); }

absl::StatusOr<Shape> TupleOrOperands(const Ctx& c) {
  HLO_RETURN_IF_ERROR(ExpectCountAtLeast(c, 1));
  return TupleOrSingle(OperandShapes(c));
}

absl::StatusOr<Shape> Dispatch(const Ctx& c) {
  const Opcode op = c.inst.opcode();
  switch (op) {
    // Elementwise unary.
    case Opcode::kAbs:
    case Opcode::kAcos:
    case Opcode::kAcosh:
    case Opcode::kAsin:
    case Opcode::kAsinh:
    case Opcode::kAtanh:
    case Opcode::kCbrt:
    case Opcode::kCeil:
    case Opcode::kClz:
    case Opcode::kCopy:
    case Opcode::kCos:
    case Opcode::kCosh:
    case Opcode::kErf:
    case Opcode::kExp:
    case Opcode::kExpm1:
    case Opcode::kFloor:
    case Opcode::kImag:
    case Opcode::kIsFinite:
    case Opcode::kLog:
    case Opcode::kLog1p:
    case Opcode::kLogistic:
    case Opcode::kNegate:
    case Opcode::kNot:
    case Opcode::kPopulationCount:
    case Opcode::kReal:
    case Opcode::kRoundNearestAfz:
    case Opcode::kRoundNearestEven:
    case Opcode::kRsqrt:
    case Opcode::kSign:
    case Opcode::kSin:
    case Opcode::kSinh:
    case Opcode::kSqrt:
    case Opcode::kTan:
    case Opcode::kTanh:
      return Unary(c);
    // Elementwise binary.
    case Opcode::kAdd:
    case Opcode::kAnd:
    case Opcode::kAtan2:
    case Opcode::kCompare:
    case Opcode::kComplex:
    case Opcode::kDivide:
    case Opcode::kMaximum:
    case Opcode::kMinimum:
    case Opcode::kMulhi:
    case Opcode::kMultiply:
    case Opcode::kOr:
    case Opcode::kPower:
    case Opcode::kRemainder:
    case Opcode::kShiftLeft:
    case Opcode::kShiftRightArithmetic:
    case Opcode::kShiftRightLogical:
    case Opcode::kSubtract:
    case Opcode::kXor:
      return Binary(c);
    case Opcode::kSelect:
      return Select(c);
    case Opcode::kClamp:
      return Clamp(c);
    case Opcode::kConvert:
      return Convert(c);
    case Opcode::kBitcastConvert:
      return BitcastConvert(c);
    case Opcode::kStochasticConvert:
      return StochasticConvert(c);
    case Opcode::kBitcast:
      HLO_RETURN_IF_ERROR(ExpectCount(c, 1));
      return Written(c);
    // Shape-required leaves.
    case Opcode::kParameter:
    case Opcode::kConstant:
      HLO_RETURN_IF_ERROR(ExpectCount(c, 0));
      return Written(c);
    case Opcode::kCustomCall:
      return Written(c);
    case Opcode::kIota:
      return Iota(c);
    case Opcode::kBroadcast:
      return Broadcast(c);
    case Opcode::kReshape:
      return Reshape(c);
    case Opcode::kDynamicReshape:
      return DynamicReshape(c);
    case Opcode::kTranspose:
      return Transpose(c);
    case Opcode::kReverse:
      return Reverse(c);
    case Opcode::kSlice:
      return Slice(c);
    case Opcode::kDynamicSlice:
      return DynamicSlice(c);
    case Opcode::kDynamicUpdateSlice:
      return DynamicUpdateSlice(c);
    case Opcode::kConcatenate:
      return Concatenate(c);
    case Opcode::kPad:
      return Pad(c);
    case Opcode::kGather:
      return Gather(c);
    case Opcode::kScatter:
      return Scatter(c);
    case Opcode::kReduce:
      return Reduce(c);
    case Opcode::kReduceWindow:
      return ReduceWindow(c);
    case Opcode::kSelectAndScatter:
      return SelectAndScatter(c);
    case Opcode::kMap:
      return Map(c);
    case Opcode::kSort:
      return Sort(c);
    case Opcode::kTopK:
      return TopK(c);
    case Opcode::kScan:
      return Scan(c);
    case Opcode::kDot:
      return Dot(c);
    case Opcode::kScaledDot:
      return ScaledDot(c);
    case Opcode::kRaggedDot:
      return RaggedDot(c);
    case Opcode::kConvolution:
      return Convolution(c);
    case Opcode::kFft:
      return Fft(c);
    case Opcode::kCholesky:
      return Cholesky(c);
    case Opcode::kTriangularSolve:
      return TriangularSolve(c);
    case Opcode::kBatchNormTraining:
    case Opcode::kBatchNormInference:
    case Opcode::kBatchNormGrad:
      return BatchNorm(c);
    case Opcode::kGetTupleElement:
      return GetTupleElement(c);
    case Opcode::kTuple:
      return Shape::Tuple(OperandShapes(c));
    case Opcode::kCall:
      return Call(c);
    case Opcode::kWhile:
      return While(c);
    case Opcode::kConditional:
      return Conditional(c);
    case Opcode::kFusion:
      return Fusion(c);
    case Opcode::kAsyncStart:
      return AsyncStart(c);
    case Opcode::kAsyncUpdate:
    case Opcode::kAsyncDone:
      return AsyncUpdateDone(c);
    case Opcode::kCopyStart:
      return CopyStart(c);
    case Opcode::kCopyDone: {
      HLO_ASSIGN_OR_RETURN(Shape dest, DoneOf(c, 0));
      if (c.op(0).tuple_size() >= 2 && !ShapesCompatible(dest, c.op(0).tuple_shape(1)))
        return Invalid("copy-done source and destination buffers must have the same shape, got ", S(dest),
                       " and ", S(c.op(0).tuple_shape(1)));
      return dest;
    }
    case Opcode::kAllReduce:
    case Opcode::kAllReduceStart:
      return AllReduce(c);
    case Opcode::kAllReduceDone:
      return Identity(c);
    case Opcode::kAllGather:
    case Opcode::kAllGatherStart:
      return AllGather(c);
    case Opcode::kAllGatherDone:
      return DoneOf(c, 1);
    case Opcode::kReduceScatter:
      return ReduceScatter(c);
    case Opcode::kAllToAll:
      return AllToAll(c);
    case Opcode::kCollectivePermute:
    case Opcode::kCollectivePermuteStart:
      return CollectivePermute(c);
    case Opcode::kCollectivePermuteDone:
      return DoneOf(c, 1);
    case Opcode::kCollectiveBroadcast:
      return TupleOrOperands(c);
    case Opcode::kRaggedAllToAll:
      return RaggedAllToAll(c);
    case Opcode::kCollectiveReduce:
    case Opcode::kShuffle:
      // Newest opcodes: semantics not pinned down; the written shape stands.
      return Written(c);
    case Opcode::kReplicaId:
    case Opcode::kPartitionId:
      HLO_RETURN_IF_ERROR(ExpectCount(c, 0));
      return U32();
    case Opcode::kSend:
      return Send(c);
    case Opcode::kSendDone:
      return SendDone(c);
    case Opcode::kRecv:
      return Recv(c);
    case Opcode::kRecvDone:
      return RecvDone(c);
    case Opcode::kInfeed:
      return Infeed(c);
    case Opcode::kOutfeed:
      return Outfeed(c);
    case Opcode::kAfterAll:
      return AfterAll(c);
    case Opcode::kAddDependency:
      HLO_RETURN_IF_ERROR(ExpectCount(c, 2));
      HLO_RETURN_IF_ERROR(ExpectToken(c, 1));
      return c.op(0);
    case Opcode::kDomain:
    case Opcode::kOptimizationBarrier:
      return Identity(c);
    case Opcode::kGetDimensionSize:
      return GetDimensionSize(c);
    case Opcode::kSetDimensionSize:
      return SetDimensionSize(c);
    case Opcode::kReducePrecision:
      return ReducePrecision(c);
    case Opcode::kRng:
      return Rng(c);
    case Opcode::kRngBitGenerator:
      return RngBitGenerator(c);
    case Opcode::kRngGetAndUpdateState:
      HLO_RETURN_IF_ERROR(ExpectCount(c, 0));
      return MakeArray(PrimitiveType::U64, {2});
  }
  return Invalid("no shape rule for opcode ", c.name());
}

void AppendDims(std::string* out, const Shape& s) {
  out->push_back('[');
  for (int64_t i = 0; i < s.rank(); ++i) {
    if (i > 0) out->push_back(',');
    if (s.dim(i) == Shape::kUnboundedSize) {
      out->push_back('?');
    } else {
      if (s.is_dynamic_dim(i)) absl::StrAppend(out, "<=");
      absl::StrAppend(out, s.dim(i));
    }
  }
  out->push_back(']');
}

void AppendShape(std::string* out, const Shape& s) {
  if (s.IsBuffer()) {
    out->append("b(");
    if (!s.tuple_shapes().empty()) AppendShape(out, s.tuple_shape(0));
    out->push_back(')');
    return;
  }
  if (s.IsTuple()) {
    out->push_back('(');
    for (int64_t i = 0; i < s.tuple_size(); ++i) {
      if (i > 0) out->append(", ");
      AppendShape(out, s.tuple_shape(i));
    }
    out->push_back(')');
    return;
  }
  if (s.IsToken()) {
    out->append("token[]");
    return;
  }
  if (s.IsOpaque()) {
    out->append("opaque[]");
    return;
  }
  if (!s.IsValid()) {
    out->append("<invalid shape>");
    return;
  }
  absl::StrAppend(out, PrimitiveTypeName(s.element_type()));
  AppendDims(out, s);
}

}  // namespace

std::string ShapeToMessageString(const Shape& shape) {
  std::string out;
  AppendShape(&out, shape);
  return out;
}

bool ShapesCompatible(const Shape& a, const Shape& b, bool ignore_fp_precision) {
  if (a.IsTuple() != b.IsTuple() || a.IsBuffer() != b.IsBuffer()) return false;
  if (a.IsTuple() || a.IsBuffer()) {
    if (a.tuple_size() != b.tuple_size()) return false;
    for (int64_t i = 0; i < a.tuple_size(); ++i)
      if (!ShapesCompatible(a.tuple_shape(i), b.tuple_shape(i), ignore_fp_precision)) return false;
    return true;
  }
  if (a.element_type() != b.element_type()) {
    if (!(ignore_fp_precision && IsFloat(a.element_type()) && IsFloat(b.element_type()))) return false;
  }
  if (!a.IsArray()) return true;
  return SameDims(a, b);
}

absl::StatusOr<Shape> InferShape(const Instruction& inst) {
  Ctx c{inst};
  for (int64_t i = 0; i < inst.operand_count(); ++i)
    if (inst.operand(i) == nullptr) return Invalid("operand ", i, " of ", c.name(), " is missing");
  absl::StatusOr<Shape> r = Dispatch(c);
  if (r.ok()) NormalizeLayouts(&*r);
  return r;
}

}  // namespace hlo
