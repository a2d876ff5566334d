#include "python/numpy_convert.h"

#include <cstring>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "ir/shape_inference.h"

namespace py = pybind11;

namespace hlo::python {
namespace {

// The NumPy dtype name of an element type with an exact NumPy counterpart;
// empty if none (bf16, f8 types, sub-byte ints, complex storage is exact).
const char* NumpyName(PrimitiveType t) {
  switch (t) {
    case PrimitiveType::PRED: return "bool";
    case PrimitiveType::S8: return "int8";
    case PrimitiveType::S16: return "int16";
    case PrimitiveType::S32: return "int32";
    case PrimitiveType::S64: return "int64";
    case PrimitiveType::U8: return "uint8";
    case PrimitiveType::U16: return "uint16";
    case PrimitiveType::U32: return "uint32";
    case PrimitiveType::U64: return "uint64";
    case PrimitiveType::F16: return "float16";
    case PrimitiveType::F32: return "float32";
    case PrimitiveType::F64: return "float64";
    case PrimitiveType::C64: return "complex64";
    case PrimitiveType::C128: return "complex128";
    default: return "";
  }
}

py::object Numpy() { return py::module_::import("numpy"); }

// ml_dtypes.bfloat16 when importable, else None.
py::object Bfloat16Dtype() {
  try {
    return py::module_::import("ml_dtypes").attr("bfloat16");
  } catch (py::error_already_set&) {
    PyErr_Clear();
    return py::none();
  }
}

std::vector<py::ssize_t> Dims(const Shape& s) {
  return std::vector<py::ssize_t>(s.dims().begin(), s.dims().end());
}

}  // namespace

Literal ArrayToLiteral(const py::handle& value, const Shape& shape, const std::string& what,
                       std::vector<py::object>* keep_alive) {
  py::object np = Numpy();
  py::array in = py::array::ensure(value);
  if (!in) throw py::type_error(absl::StrCat(what, " is not convertible to a NumPy array"));
  const PrimitiveType t = shape.element_type();
  std::string dtype = NumpyName(t);
  const bool via_float32 = dtype.empty() && IsFloat(t);  // bf16, f8: converted per element
  if (dtype.empty() && !via_float32)
    throw py::type_error(absl::StrCat(what, ": element type ", PrimitiveTypeName(t), " has no NumPy counterpart"));
  if (via_float32) dtype = "float32";
  py::object target = np.attr("dtype")(dtype);
  if (!np.attr("can_cast")(in.attr("dtype"), target, "same_kind").cast<bool>() &&
      !(t == PrimitiveType::PRED && in.attr("dtype").attr("kind").cast<std::string>() == "b"))
    throw py::type_error(absl::StrCat(what, ": cannot convert ", py::str(in.attr("dtype")).cast<std::string>(),
                                      " to ", PrimitiveTypeName(t)));
  // Row-major, of the target type: a no-op (no copy) when it already is.
  // (np.ascontiguousarray would make a 0-d array 1-d.)
  py::array arr = np.attr("array")(in, target, py::arg("copy") = false, py::arg("order") = "C");
  std::vector<int64_t> got(arr.shape(), arr.shape() + arr.ndim());
  if (absl::Span<const int64_t>(got) != absl::Span<const int64_t>(shape.dims()))
    throw py::value_error(absl::StrCat(what, ": shape (", absl::StrJoin(got, ", "), ") does not match the parameter ",
                                       ShapeToMessageString(shape)));
  const size_t bytes = static_cast<size_t>(PhysicalElementCount(Shape::Array(t, shape.dims()))) *
                       PrimitiveTypeByteSize(t);
  if (keep_alive != nullptr && !via_float32 && static_cast<size_t>(arr.nbytes()) == bytes) {
    keep_alive->push_back(arr);
    return Literal::View(Shape::Array(t, shape.dims()), arr.data());
  }
  Literal lit(Shape::Array(t, shape.dims()));
  if (via_float32) {
    const float* src = static_cast<const float*>(arr.data());
    for (int64_t i = 0; i < lit.physical_count(); ++i) lit.SetDouble(i, src[i]);
  } else if (static_cast<size_t>(arr.nbytes()) == lit.size_bytes()) {
    std::memcpy(lit.data(), arr.data(), lit.size_bytes());
  } else {
    throw py::value_error(absl::StrCat(what, ": unexpected storage size"));
  }
  // The parameter may have another layout; the executor relays arguments.
  return lit;
}

PrimitiveType ElementTypeOf(const py::handle& dtype_like) {
  if (py::isinstance<py::str>(dtype_like)) {
    if (std::optional<PrimitiveType> t = PrimitiveTypeFromName(dtype_like.cast<std::string>())) return *t;
  }
  py::object np = Numpy();
  py::object dt;
  try {
    dt = np.attr("dtype")(dtype_like);
  } catch (py::error_already_set&) {
    throw py::type_error(absl::StrCat("not an element type: ", py::repr(dtype_like).cast<std::string>()));
  }
  const std::string name = dt.attr("name").cast<std::string>();
  if (name == "bfloat16") return PrimitiveType::BF16;
  for (PrimitiveType t : {PrimitiveType::PRED, PrimitiveType::S8, PrimitiveType::S16, PrimitiveType::S32,
                          PrimitiveType::S64, PrimitiveType::U8, PrimitiveType::U16, PrimitiveType::U32,
                          PrimitiveType::U64, PrimitiveType::F16, PrimitiveType::F32, PrimitiveType::F64,
                          PrimitiveType::C64, PrimitiveType::C128})
    if (name == NumpyName(t)) return t;
  throw py::type_error(absl::StrCat("NumPy dtype ", name, " has no HLO element type"));
}

Literal ValueToLiteral(const py::handle& value, std::optional<PrimitiveType> type, const std::string& what) {
  // A Python int joins any integer type that holds its value (x + 1 with
  // x: u8), as NumPy's scalars do.
  if (type.has_value() && py::isinstance<py::int_>(value) && !py::isinstance<py::bool_>(value) &&
      (IsSignedInt(*type) || IsUnsignedInt(*type)) && NumpyName(*type)[0] != '\0') {
    py::object np = Numpy();
    py::object info = np.attr("iinfo")(np.attr("dtype")(NumpyName(*type)));
    if (value < info.attr("min") || value > info.attr("max"))
      throw py::type_error(absl::StrCat(what, ": ", py::repr(value).cast<std::string>(), " does not fit in ",
                                        PrimitiveTypeName(*type)));
    return ArrayToLiteral(np.attr("array")(value, NumpyName(*type)), Shape::Scalar(*type), what);
  }
  py::array arr = py::array::ensure(value);
  if (!arr) throw py::type_error(absl::StrCat(what, " is not convertible to a NumPy array"));
  const PrimitiveType t = type.has_value() ? *type : ElementTypeOf(arr.attr("dtype"));
  std::vector<int64_t> dims(arr.shape(), arr.shape() + arr.ndim());
  return ArrayToLiteral(arr, Shape::Array(t, dims), what);
}

py::object NumpyDtype(const std::string& type_name) {
  std::optional<PrimitiveType> t = PrimitiveTypeFromName(type_name);
  if (!t.has_value() || !IsArrayType(*t)) throw py::value_error(absl::StrCat("not an element type: ", type_name));
  py::object np = Numpy();
  if (const char* name = NumpyName(*t); name[0] != '\0') return np.attr("dtype")(name);
  if (*t == PrimitiveType::BF16) {
    py::object bf16 = Bfloat16Dtype();
    if (!bf16.is_none()) return np.attr("dtype")(bf16);
  }
  if (IsFloat(*t)) return np.attr("dtype")("float32");
  return np.attr("dtype")(IsUnsignedInt(*t) ? "uint8" : "int8");
}

namespace {

// An array over `literal`'s buffer: the literal moves into a capsule that
// the array keeps as its base, freed with the last array using it.
py::array ArrayOver(Literal literal, const py::dtype& dtype) {
  const std::vector<py::ssize_t> dims = Dims(literal.shape());
  if (literal.size_bytes() == 0) return py::array(dtype, dims);  // nothing to share
  auto* owner = new Literal(std::move(literal));
  py::capsule base(owner, [](void* p) { delete static_cast<Literal*>(p); });
  return py::array(dtype, dims, std::vector<py::ssize_t>{}, owner->data(), base);
}

}  // namespace

py::object LiteralToPython(Literal literal) {
  if (literal.IsTuple()) {
    std::vector<Literal>& elements = literal.mutable_tuple_elements();
    py::tuple out(elements.size());
    for (size_t i = 0; i < elements.size(); ++i) out[i] = LiteralToPython(std::move(elements[i]));
    return std::move(out);
  }
  const Shape s = literal.shape();
  if (!s.IsArray()) return py::none();  // tokens
  Layout def;
  def.minor_to_major = Shape::DefaultMinorToMajor(s.rank());
  Literal row_major = !s.has_layout() || s.layout() != def ? literal.Relayout(def) : std::move(literal);
  const Literal* src = &row_major;
  const PrimitiveType t = s.element_type();
  std::string dtype = NumpyName(t);
  if (!dtype.empty()) return ArrayOver(std::move(row_major), py::dtype(dtype));
  if (t == PrimitiveType::BF16) {
    // ml_dtypes.bfloat16 has bf16's bits: the buffer as it is.
    py::object bf16 = Bfloat16Dtype();
    if (!bf16.is_none()) return ArrayOver(std::move(row_major), py::dtype::from_args(bf16));
  }
  if (IsFloat(t)) {
    py::array_t<float> out(Dims(s));
    float* dst = out.mutable_data();
    for (int64_t i = 0; i < src->physical_count(); ++i) dst[i] = static_cast<float>(src->GetDouble(i));
    return std::move(out);
  }
  // Sub-byte integers: widened to int8/uint8.
  py::array out(py::dtype(IsUnsignedInt(t) ? "uint8" : "int8"), Dims(s));
  auto* dst = static_cast<int8_t*>(out.mutable_data());
  for (int64_t i = 0; i < src->physical_count(); ++i) dst[i] = static_cast<int8_t>(src->GetInt(i));
  return std::move(out);
}

}  // namespace hlo::python
