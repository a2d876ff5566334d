// hlo.Builder, hlo.Op and hlo.Computation: the C++ builder (client/) with
// NumPy-style operators. Operators call the builder's own functions
// (client::Add, ...), so `a + b` broadcasts by the seeds' rules, not
// NumPy's: equal ranks with size-1 dimensions, or a scalar; other rank
// pairs need hlo.ops.add(a, b, broadcast_dimensions=...). docs/python.md.
#include "python/builder_py.h"

#include <pybind11/stl.h>

#include <map>

#include <numeric>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "ir/printer.h"
#include "ir/shape_inference.h"
#include "parser/parser.h"
#include "python/builder_py_internal.h"
#include "python/numpy_convert.h"
#include "python/py_common.h"

namespace py = pybind11;

namespace hlo::python {

using client::XlaOp;

PyOp Wrap(const BuilderRef& b, XlaOp op) {
  if (!op.valid()) {
    absl::Status st = b->b->first_error();
    if (st.ok()) st = absl::InternalError("the builder call failed without recording an error");
    RaiseHloError(st);
  }
  return PyOp{b, op};
}

XlaOp ConstantOf(const BuilderRef& b, const py::handle& value, PrimitiveType type) {
  if (py::isinstance<PyOp>(value)) return value.cast<const PyOp&>().op;
  return Wrap(b, client::ConstantLiteral(b->b.get(), ValueToLiteral(value, type, "constant operand"))).op;
}

XlaOp ToOp(const py::handle& value, const PyOp& like) {
  return ConstantOf(like.builder, value, like.shape().element_type());
}

const PyOp& FirstOp(const char* call, std::initializer_list<py::handle> values) {
  for (const py::handle& v : values)
    if (py::isinstance<PyOp>(v)) return v.cast<const PyOp&>();
  throw py::type_error(absl::StrCat(call, ": at least one operand must be an hlo.Op"));
}

client::Padding PaddingArg(const std::string& padding) {
  if (padding == "SAME") return client::Padding::kSame;
  if (padding == "VALID") return client::Padding::kValid;
  throw py::value_error(absl::StrCat("padding must be \"SAME\" or \"VALID\", not \"", padding, "\""));
}

namespace {

BuilderRef SubBuilder(const BuilderRef& parent, const std::string& name) {
  auto sub = std::make_shared<PyBuilder>();
  sub->b = parent->b->CreateSubBuilder(name);
  sub->parent = parent;
  return sub;
}

// The root of a traced function or build(): an op, or a tuple of ops.
XlaOp RootOf(const BuilderRef& b, const py::handle& result) {
  if (py::isinstance<PyOp>(result)) return result.cast<const PyOp&>().op;
  if (py::isinstance<py::tuple>(result) || py::isinstance<py::list>(result)) {
    std::vector<XlaOp> elems;
    for (const py::handle& e : result) {
      if (!py::isinstance<PyOp>(e)) throw py::type_error("a root tuple must hold hlo.Op values");
      elems.push_back(e.cast<const PyOp&>().op);
    }
    return Wrap(b, client::Tuple(b->b.get(), elems)).op;
  }
  throw py::type_error(absl::StrCat("a root must be an hlo.Op or a tuple of them, not ",
                                    py::str(py::type::of(result)).cast<std::string>()));
}

// A scalar reducer by name, on `type`.
client::XlaComputation NamedReducer(const BuilderRef& b, const std::string& name, PrimitiveType type) {
  using Fn = XlaOp (*)(XlaOp, XlaOp, absl::Span<const int64_t>);
  Fn fn = nullptr;
  if (name == "add") fn = client::Add;
  if (name == "mul") fn = client::Mul;
  if (name == "max") fn = client::Max;
  if (name == "min") fn = client::Min;
  if (name == "and") fn = client::And;
  if (name == "or") fn = client::Or;
  if (fn == nullptr)
    throw py::value_error(absl::StrCat("unknown reducer \"", name, "\" (add, mul, max, min, and, or)"));
  BuilderRef sub = SubBuilder(b, name);
  XlaOp x = client::Parameter(sub->b.get(), 0, Shape::Scalar(type), "x");
  XlaOp y = client::Parameter(sub->b.get(), 1, Shape::Scalar(type), "y");
  Wrap(sub, fn(x, y, {}));
  return ValueOrRaise(sub->b->Build());
}

}  // namespace

client::XlaComputation ComputationArg(const BuilderRef& b, const py::handle& comp, const std::string& name,
                                      const std::vector<Shape>& param_shapes) {
  if (py::isinstance<PyComputation>(comp)) return comp.cast<const PyComputation&>().comp;
  if (py::isinstance<py::str>(comp)) {
    if (param_shapes.size() != 2 || !param_shapes[0].IsArray())
      throw py::value_error(absl::StrCat("a named reducer needs one operand; pass a function for ", name));
    return NamedReducer(b, comp.cast<std::string>(), param_shapes[0].element_type());
  }
  if (!PyCallable_Check(comp.ptr()))
    throw py::type_error(absl::StrCat(name, ": the computation must be an hlo.Computation, a function or a "
                                            "reducer name"));
  // Trace the function: its parameters are ops of a sub-builder.
  BuilderRef sub = SubBuilder(b, name);
  py::list args;
  for (size_t i = 0; i < param_shapes.size(); ++i)
    args.append(Wrap(sub, client::Parameter(sub->b.get(), static_cast<int64_t>(i), param_shapes[i],
                                            absl::StrCat("p", i))));
  py::object result = comp(*args);
  return ValueOrRaise(sub->b->Build(RootOf(sub, result)));
}

namespace {

using BinFn = XlaOp (*)(XlaOp, XlaOp, absl::Span<const int64_t>);

// self OP other (or other OP self when reflected).
PyOp Binary(BinFn fn, const PyOp& self, const py::object& other, bool reflected = false) {
  XlaOp o = ToOp(other, self);
  return Wrap(self.builder, reflected ? fn(o, self.op, {}) : fn(self.op, o, {}));
}

PyOp Unary(XlaOp (*fn)(XlaOp), const PyOp& x) { return Wrap(x.builder, fn(x.op)); }

// NumPy's matmul without its broadcasting: Dot for ranks 1 and 2, batch
// matrix products (DotGeneral over the leading dimensions) for equal ranks
// above 2.
PyOp MatMul(const PyOp& a, const PyOp& b) {
  const int64_t ra = a.shape().rank(), rb = b.shape().rank();
  if (ra <= 2 && rb <= 2) return Wrap(a.builder, client::Dot(a.op, b.op));
  if (ra != rb)
    return Wrap(a.builder, a.builder->b->ReportError(absl::InvalidArgumentError(absl::StrCat(
                               "MatMul: operands of ranks above 2 must have equal ranks (lhs ",
                               ShapeToMessageString(a.shape()), ", rhs ", ShapeToMessageString(b.shape()), ")"))));
  client::DotDimensionNumbers dn;
  for (int64_t i = 0; i < ra - 2; ++i) {
    dn.lhs_batch_dimensions.push_back(i);
    dn.rhs_batch_dimensions.push_back(i);
  }
  dn.lhs_contracting_dimensions = {ra - 1};
  dn.rhs_contracting_dimensions = {rb - 2};
  return Wrap(a.builder, client::DotGeneral(a.op, b.op, dn));
}

std::vector<int64_t> Dims(const Shape& s) { return std::vector<int64_t>(s.dims().begin(), s.dims().end()); }

// Integers from varargs: f(2, 3) and f((2, 3)) alike.
std::vector<int64_t> IntArgs(const py::args& args) {
  if (args.size() == 1 && !py::isinstance<py::int_>(args[0])) return args[0].cast<std::vector<int64_t>>();
  return args.cast<std::vector<int64_t>>();
}

PyOp ReshapeTo(const PyOp& x, std::vector<int64_t> dims) {
  // One -1 takes the rest of the elements, as in NumPy.
  int64_t known = 1, unknown = -1;
  for (size_t i = 0; i < dims.size(); ++i) {
    if (dims[i] == -1) {
      if (unknown >= 0) throw py::value_error("reshape: only one dimension can be -1");
      unknown = static_cast<int64_t>(i);
    } else {
      known *= dims[i];
    }
  }
  if (unknown >= 0) {
    const int64_t total = x.shape().IsArray() ? x.shape().ElementCount() : 0;
    if (known == 0 || total % known != 0)
      throw py::value_error(absl::StrCat("reshape: cannot infer -1 for ", ShapeToMessageString(x.shape())));
    dims[unknown] = total / known;
  }
  if (dims == Dims(x.shape())) return x;
  return Wrap(x.builder, client::Reshape(x.op, dims));
}

// A reduction by a named reducer over `axis` (None: every dimension;
// an int or a sequence, negative counted from the end).
PyOp ReduceAxes(const PyOp& x, const py::object& axis, const char* reducer, double init) {
  const int64_t rank = x.shape().rank();
  std::vector<int64_t> dims;
  if (axis.is_none()) {
    dims.resize(rank);
    std::iota(dims.begin(), dims.end(), 0);
  } else if (py::isinstance<py::int_>(axis)) {
    dims.push_back(axis.cast<int64_t>());
  } else {
    dims = axis.cast<std::vector<int64_t>>();
  }
  for (int64_t& d : dims) {
    if (d < -rank || d >= rank) throw py::index_error(absl::StrCat("axis ", d, " is out of range for rank ", rank));
    if (d < 0) d += rank;
  }
  std::sort(dims.begin(), dims.end());
  const PrimitiveType t = x.shape().element_type();
  XlaOp init_op;
  if (std::string(reducer) == "max") {
    init_op = Wrap(x.builder, client::MinValue(x.builder->b.get(), t)).op;
  } else if (std::string(reducer) == "min") {
    init_op = Wrap(x.builder, client::MaxValue(x.builder->b.get(), t)).op;
  } else {
    init_op = ConstantOf(x.builder, py::int_(static_cast<int64_t>(init)), t);
  }
  client::XlaComputation comp =
      ComputationArg(x.builder, py::str(reducer), reducer, {Shape::Scalar(t), Shape::Scalar(t)});
  return Wrap(x.builder, client::Reduce(x.op, init_op, comp, dims));
}

// a[i, :, j] with computed (op) indices: a dynamic-slice of size 1 in the
// indexed dimensions (starts clamped into range, as dynamic-slice does),
// reshaped to drop them. Only ints, ops and full slices ':' mix here.
PyOp DynamicGetItem(const PyOp& x, const py::tuple& key) {
  const std::vector<int64_t> in = Dims(x.shape());
  const int64_t rank = static_cast<int64_t>(in.size());
  if (static_cast<int64_t>(key.size()) > rank)
    throw py::index_error(absl::StrCat("too many indices: ", key.size(), " for an op of rank ", rank));
  std::vector<XlaOp> starts;
  std::vector<int64_t> sizes, out;
  for (int64_t d = 0; d < rank; ++d) {
    py::handle k = d < static_cast<int64_t>(key.size()) ? key[d] : py::handle();
    if (!k || (py::isinstance<py::slice>(k) && py::str(k).cast<std::string>() == "slice(None, None, None)")) {
      starts.push_back(ConstantOf(x.builder, py::int_(0), PrimitiveType::S32));
      sizes.push_back(in[d]);
      out.push_back(in[d]);
    } else if (py::isinstance<PyOp>(k)) {
      const PyOp& i = k.cast<const PyOp&>();
      XlaOp s32 = i.shape().element_type() == PrimitiveType::S32
                      ? i.op
                      : Wrap(x.builder, client::ConvertElementType(i.op, PrimitiveType::S32)).op;
      starts.push_back(s32);
      sizes.push_back(1);
    } else if (py::isinstance<py::int_>(k)) {
      int64_t i = k.cast<int64_t>();
      if (i < -in[d] || i >= in[d])
        throw py::index_error(absl::StrCat("index ", i, " is out of bounds for dimension ", d, " of size ", in[d]));
      starts.push_back(ConstantOf(x.builder, py::int_(i < 0 ? i + in[d] : i), PrimitiveType::S32));
      sizes.push_back(1);
    } else {
      throw py::index_error("with a computed (hlo.Op) index, the other indices must be ints or ':'");
    }
  }
  PyOp sliced = Wrap(x.builder, client::DynamicSlice(x.op, starts, sizes));
  return ReshapeTo(sliced, out);
}

// a[key]: ints, slices (any step), None (a new size-1 dimension) and one
// Ellipsis, lowered to reverse (negative steps), slice and reshape; with an
// hlo.Op among the indices, DynamicGetItem.
PyOp GetItem(const PyOp& x, const py::object& key_in) {
  if (!x.shape().IsArray()) throw py::type_error("only array ops can be indexed");
  py::tuple key = py::isinstance<py::tuple>(key_in) ? key_in.cast<py::tuple>() : py::make_tuple(key_in);
  for (const py::handle& k : key)
    if (py::isinstance<PyOp>(k)) return DynamicGetItem(x, key);
  const std::vector<int64_t> in = Dims(x.shape());
  const int64_t rank = static_cast<int64_t>(in.size());
  int64_t consuming = 0;
  bool ellipsis = false;
  for (const py::handle& k : key) {
    if (k.is_none()) continue;
    if (k.ptr() == Py_Ellipsis) {
      if (ellipsis) throw py::index_error("an index can only have a single ellipsis ('...')");
      ellipsis = true;
      continue;
    }
    ++consuming;
  }
  if (consuming > rank)
    throw py::index_error(absl::StrCat("too many indices: ", consuming, " for an op of rank ", rank));
  std::vector<int64_t> start(rank, 0), limit = in, stride(rank, 1), reversed;
  std::vector<int64_t> out;  // the result's dimensions after the reshape
  int64_t d = 0;
  for (const py::handle& k : key) {
    if (k.is_none()) {
      out.push_back(1);
    } else if (k.ptr() == Py_Ellipsis) {
      for (int64_t n = rank - consuming; n > 0; --n, ++d) out.push_back(in[d]);
    } else if (py::isinstance<py::slice>(k)) {
      py::ssize_t s, e, step, len;
      if (!k.cast<py::slice>().compute(static_cast<py::ssize_t>(in[d]), &s, &e, &step, &len))
        throw py::error_already_set();
      if (step < 0) {
        // On the reversed dimension, element i is element n-1-i.
        reversed.push_back(d);
        s = in[d] - 1 - s;
        step = -step;
      }
      start[d] = len > 0 ? s : 0;
      limit[d] = len > 0 ? s + (len - 1) * step + 1 : 0;
      stride[d] = step;
      out.push_back(len);
      ++d;
    } else if (py::isinstance<py::int_>(k) || py::hasattr(k, "__index__")) {
      int64_t i = py::reinterpret_borrow<py::object>(k).attr("__index__")().cast<int64_t>();
      if (i < -in[d] || i >= in[d])
        throw py::index_error(absl::StrCat("index ", i, " is out of bounds for dimension ", d, " of size ", in[d]));
      if (i < 0) i += in[d];
      start[d] = i;
      limit[d] = i + 1;
      ++d;
    } else {
      throw py::type_error(absl::StrCat("hlo.Op indices are ints, slices, None, ... and scalar hlo.Op; not ",
                                        py::str(py::type::of(k)).cast<std::string>()));
    }
  }
  for (; d < rank; ++d) out.push_back(in[d]);
  XlaOp r = x.op;
  if (!reversed.empty()) r = Wrap(x.builder, client::Rev(r, reversed)).op;
  if (start != std::vector<int64_t>(rank, 0) || limit != in || stride != std::vector<int64_t>(rank, 1))
    r = Wrap(x.builder, client::Slice(r, start, limit, stride)).op;
  return ReshapeTo(PyOp{x.builder, r}, out);
}

std::string OpRepr(const PyOp& x) {
  return absl::StrCat("<hlo.Op ", x.op.instruction()->name(), ": ", ShapeToString(x.shape(), false), ">");
}

PyOp Parameter(const BuilderRef& b, int64_t number, const py::object& shape_or_dtype, const py::object& dims,
               const std::string& name) {
  Shape shape;
  if (dims.is_none() && py::isinstance<py::str>(shape_or_dtype) &&
      shape_or_dtype.cast<std::string>().find_first_of("[(") != std::string::npos) {
    shape = ValueOrRaise(ParseShape(shape_or_dtype.cast<std::string>()));
  } else {
    const PrimitiveType t = ElementTypeOf(shape_or_dtype);
    shape = Shape::Array(t, dims.is_none() ? std::vector<int64_t>{} : dims.cast<std::vector<int64_t>>());
  }
  return Wrap(b, client::Parameter(b->b.get(), number, shape, name));
}

}  // namespace

void RegisterBuilder(py::module_& mod) {
  py::class_<PyComputation>(mod, "Computation", "A computation built by a sub-builder (reducer, body, branch).")
      .def_property_readonly("name", [](const PyComputation& c) { return c.comp.name(); })
      .def("__repr__", [](const PyComputation& c) { return absl::StrCat("<hlo.Computation ", c.comp.name(), ">"); });

  py::class_<PyOp> op(mod, "Op",
                      "A value being built: an instruction of an hlo.Builder. Arithmetic, comparison and bitwise "
                      "operators, @ and indexing build instructions (the seeds' broadcasting, not NumPy's).");
  op.def_property_readonly("shape", [](const PyOp& x) { return py::tuple(py::cast(Dims(x.shape()))); })
      .def_property_readonly("ndim", [](const PyOp& x) { return x.shape().rank(); })
      .def_property_readonly("dtype",
                             [](const PyOp& x) { return std::string(PrimitiveTypeName(x.shape().element_type())); },
                             "The HLO element type name (\"f32\", \"s32\", \"pred\", ...).")
      .def_property_readonly("hlo_shape", [](const PyOp& x) { return ShapeToString(x.shape(), false); })
      .def_property_readonly("name", [](const PyOp& x) { return x.op.instruction()->name(); })
      .def("__repr__", &OpRepr)
      .def("__bool__",
           [](const PyOp&) -> bool {
             throw py::type_error("an hlo.Op has no truth value (it is built, not computed); use hlo.ops.select");
           })
      .def("__lshift__", [](const PyOp& a, py::object b) { return Binary(client::ShiftLeft, a, b); })
      .def("__rshift__",
           [](const PyOp& a, py::object b) {
             // NumPy's >>: arithmetic for signed types, logical for unsigned.
             return Binary(IsUnsignedInt(a.shape().element_type()) ? client::ShiftRightLogical
                                                                   : client::ShiftRightArithmetic,
                           a, b);
           })
      .def("__neg__", [](const PyOp& a) { return Unary(client::Neg, a); })
      .def("__pos__", [](const PyOp& a) { return a; })
      .def("__abs__", [](const PyOp& a) { return Unary(client::Abs, a); })
      .def("__invert__", [](const PyOp& a) { return Unary(client::Not, a); })
      .def("__matmul__",
           [](const PyOp& a, py::object b) { return MatMul(a, PyOp{a.builder, ToOp(b, a)}); })
      .def("__rmatmul__",
           [](const PyOp& a, py::object b) { return MatMul(PyOp{a.builder, ToOp(b, a)}, a); })
      .def("__getitem__", &GetItem)
      .def("reshape", [](const PyOp& x, py::args dims) { return ReshapeTo(x, IntArgs(dims)); },
           "reshape(*dims) or reshape(dims); one -1 takes the rest.")
      .def("transpose",
           [](const PyOp& x, py::args perm) {
             std::vector<int64_t> p = IntArgs(perm);
             if (p.empty()) {
               for (int64_t i = x.shape().rank() - 1; i >= 0; --i) p.push_back(i);
             }
             return Wrap(x.builder, client::Transpose(x.op, p));
           },
           "transpose(*permutation); none reverses the dimensions.")
      .def_property_readonly("T",
                             [](const PyOp& x) {
                               std::vector<int64_t> p;
                               for (int64_t i = x.shape().rank() - 1; i >= 0; --i) p.push_back(i);
                               return Wrap(x.builder, client::Transpose(x.op, p));
                             })
      .def("astype",
           [](const PyOp& x, py::object dtype) {
             return Wrap(x.builder, client::ConvertElementType(x.op, ElementTypeOf(dtype)));
           })
      .def("sum", [](const PyOp& x, py::object axis) { return ReduceAxes(x, axis, "add", 0); },
           py::arg("axis") = py::none())
      .def("prod", [](const PyOp& x, py::object axis) { return ReduceAxes(x, axis, "mul", 1); },
           py::arg("axis") = py::none())
      .def("max", [](const PyOp& x, py::object axis) { return ReduceAxes(x, axis, "max", 0); },
           py::arg("axis") = py::none())
      .def("min", [](const PyOp& x, py::object axis) { return ReduceAxes(x, axis, "min", 0); },
           py::arg("axis") = py::none());
  // Arithmetic, bitwise and comparison operators with their reflected
  // forms (Python turns `2 < a` into a.__gt__(2) itself).
  const struct {
    const char* name;
    const char* reflected;  // nullptr: none
    BinFn fn;
  } operators[] = {
      {"__add__", "__radd__", client::Add}, {"__sub__", "__rsub__", client::Sub},
      {"__mul__", "__rmul__", client::Mul}, {"__truediv__", "__rtruediv__", client::Div},
      {"__mod__", "__rmod__", client::Rem}, {"__pow__", "__rpow__", client::Pow},
      {"__and__", "__rand__", client::And}, {"__or__", "__ror__", client::Or},
      {"__xor__", "__rxor__", client::Xor}, {"__eq__", nullptr, client::Eq},
      {"__ne__", nullptr, client::Ne},      {"__lt__", nullptr, client::Lt},
      {"__le__", nullptr, client::Le},      {"__gt__", nullptr, client::Gt},
      {"__ge__", nullptr, client::Ge},
  };
  for (const auto& o : operators) {
    op.def(o.name, [fn = o.fn](const PyOp& a, py::object b) { return Binary(fn, a, b); });
    if (o.reflected != nullptr)
      op.def(o.reflected, [fn = o.fn](const PyOp& a, py::object b) { return Binary(fn, a, b, true); });
  }
  // NumPy defers to our reflected operators (np_array + op) instead of
  // applying the op element by element.
  op.attr("__array_ufunc__") = py::none();

  py::class_<PyBuilder, std::shared_ptr<PyBuilder>>(
      mod, "Builder", "Builds one computation (XLA's XlaBuilder); build() returns an hlo.Module.")
      .def(py::init([](const std::string& name) {
             auto b = std::make_shared<PyBuilder>();
             b->b = std::make_unique<client::XlaBuilder>(name);
             return b;
           }),
           py::arg("name"))
      .def_property_readonly("name", [](const PyBuilder& b) { return b.b->name(); })
      .def_property_readonly("first_error",
                             [](const PyBuilder& b) -> py::object {
                               if (b.b->first_error().ok()) return py::none();
                               return py::str(std::string(b.b->first_error().message()));
                             })
      .def("parameter", &Parameter, py::arg("number"), py::arg("shape"), py::arg("dims") = py::none(),
           py::arg("name") = "",
           "parameter(number, \"f32[2,3]\", name=...) or parameter(number, dtype, dims, name=...).")
      .def("constant",
           [](const BuilderRef& b, py::object value, py::object dtype) {
             std::optional<PrimitiveType> t;
             if (!dtype.is_none()) t = ElementTypeOf(dtype);
             return Wrap(b, client::ConstantLiteral(b->b.get(), ValueToLiteral(value, t, "constant")));
           },
           py::arg("value"), py::arg("dtype") = py::none(),
           "A constant of a scalar or array (its NumPy dtype unless dtype is given).")
      .def("iota",
           [](const BuilderRef& b, py::object dtype, std::vector<int64_t> dims, int64_t dimension) {
             return Wrap(b, client::Iota(b->b.get(), Shape::Array(ElementTypeOf(dtype), dims), dimension));
           },
           py::arg("dtype"), py::arg("dims"), py::arg("dimension") = 0)
      .def("tuple",
           [](const BuilderRef& b, py::args elems) {
             std::vector<XlaOp> ops;
             for (const py::handle& e : elems) ops.push_back(e.cast<const PyOp&>().op);
             return Wrap(b, client::Tuple(b->b.get(), ops));
           })
      .def(
          "create_channel_handle", [](const BuilderRef& b) { return b->b->CreateChannelHandle().handle; },
          "A channel id not used before by this builder's module (1, 2, ...), for send/recv and collectives.")
      .def_property(
          "frontend_attributes",
          [](const PyBuilder& b) {
            std::map<std::string, std::string> out;
            for (const auto& [key, value] : b.b->frontend_attributes()) out[key] = value.text;
            return out;
          },
          [](PyBuilder& b, const std::map<std::string, std::string>& attrs) {
            FrontendAttributes fa;
            for (const auto& [key, value] : attrs) fa[key] = StringOrDict{value, false};
            b.b->SetFrontendAttributes(std::move(fa));
          },
          "Frontend attributes ({key: str}) every op built from now on gets (XLA's SetFrontendAttributes); "
          "assign {} to stop.")
      .def("sub_builder", &SubBuilder, py::arg("name"),
           "A builder for a computation this one calls; its build() returns an hlo.Computation.")
      .def(
          "build",
          [](const BuilderRef& b, py::object root) -> py::object {
            absl::StatusOr<client::XlaComputation> c =
                root.is_none() ? b->b->Build() : b->b->Build(RootOf(b, root));
            client::XlaComputation comp = ValueOrRaise(std::move(c));
            if (b->parent != nullptr) return py::cast(PyComputation{comp, b});
            return py::cast(PyModule{comp.shared_module()});
          },
          py::arg("root") = py::none(),
          "Finishes the computation (root: the last op, or the given op or tuple of ops). A top-level "
          "builder returns an hlo.Module, a sub-builder an hlo.Computation; raises the first error.");

  // Zero, One, MinValue (-inf for floats), MaxValue: scalar constants of a dtype.
  using BuilderClass = py::class_<PyBuilder, std::shared_ptr<PyBuilder>>;
  auto builder_class = py::reinterpret_borrow<BuilderClass>(mod.attr("Builder"));
  const std::pair<const char*, XlaOp (*)(client::XlaBuilder*, PrimitiveType)> scalars[] = {
      {"zero", client::Zero}, {"one", client::One}, {"min_value", client::MinValue}, {"max_value", client::MaxValue}};
  for (const auto& [name, fn] : scalars)
    builder_class.def(
        name, [fn = fn](const BuilderRef& b, py::object dtype) { return Wrap(b, fn(b->b.get(), ElementTypeOf(dtype))); },
        py::arg("dtype"));

  py::module_ ops = mod.def_submodule("ops", "The builder calls of the operation-semantics document.");
  RegisterOps(ops);
  // `import hlo.ops` and `from hlo.ops import add` work too.
  py::module_::import("sys").attr("modules")["hlo.ops"] = ops;
}

}  // namespace hlo::python
