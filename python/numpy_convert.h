// NumPy arrays <-> literals for the Python module. Arrays in: converted to
// the parameter's element type when NumPy can do so without changing kind
// (same_kind casting), copied once into the literal (row-major = the
// default layout). Literals out: one copy into a new array in row-major
// order; bf16 (no NumPy type without ml_dtypes) comes out as bfloat16 when
// ml_dtypes is importable, else as float32, as hlo-run writes .npy files.
#pragma once

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include "ir/literal.h"

namespace hlo::python {

// The literal of `shape` (an array shape) holding `array`'s values.
// Throws TypeError / ValueError naming `what` (e.g. "argument 0").
Literal ArrayToLiteral(const pybind11::handle& array, const Shape& shape, const std::string& what);

// A NumPy array of an array literal, or a tuple of them for a tuple literal.
pybind11::object LiteralToPython(const Literal& literal);

}  // namespace hlo::python
