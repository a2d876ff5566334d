// NumPy arrays <-> literals for the Python module. Arrays in: converted to
// the parameter's element type when NumPy can do so without changing kind
// (same_kind casting), copied once into the literal (row-major = the
// default layout). Literals out: one copy into a new array in row-major
// order; bf16 (no NumPy type without ml_dtypes) comes out as bfloat16 when
// ml_dtypes is importable, else as float32, as hlo-run writes .npy files.
#pragma once

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <optional>
#include <string>
#include <vector>

#include "ir/literal.h"

namespace hlo::python {

// The literal of `shape` (an array shape) holding `array`'s values.
// Throws TypeError / ValueError naming `what` (e.g. "argument 0").
// With keep_alive, an array already row-major of the parameter's type is
// not copied: the literal is a view of its memory (Literal::View) and the
// array is appended to *keep_alive, which the caller holds until the run
// that reads the literal is over.
Literal ArrayToLiteral(const pybind11::handle& array, const Shape& shape, const std::string& what,
                       std::vector<pybind11::object>* keep_alive = nullptr);

// The element type of a dtype-like: an HLO type name ("f32", "bf16"), a
// NumPy dtype or anything numpy.dtype() accepts (np.float32, "int64");
// ml_dtypes.bfloat16 is bf16. Throws TypeError when there is none.
PrimitiveType ElementTypeOf(const pybind11::handle& dtype_like);

// A literal holding `value` (a Python scalar, a NumPy array or anything
// numpy.asarray accepts) with its own shape, of `type` (same_kind casting,
// as ArrayToLiteral) or, without one, of the array's own dtype.
Literal ValueToLiteral(const pybind11::handle& value, std::optional<PrimitiveType> type, const std::string& what);

// The NumPy dtype of results of element type `type_name` ("f32", ...).
pybind11::object NumpyDtype(const std::string& type_name);

// A NumPy array of an array literal, or a tuple of them for a tuple literal.
// Takes the literal: an element type NumPy has, in the row-major layout,
// becomes an array over the literal's own buffer (no copy); other layouts
// are relaid once, narrow floats and sub-byte integers converted.
pybind11::object LiteralToPython(Literal literal);

}  // namespace hlo::python
