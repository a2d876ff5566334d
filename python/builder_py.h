// The builder in Python: hlo.Builder, hlo.Op with NumPy-style operators,
// hlo.Computation, and the builder calls as functions in hlo.ops. Thin
// wrappers over client/ (docs/builder.md): the seeds' broadcasting, shape
// rules and error messages are the C++ builder's. docs/python.md.
#pragma once

#include <pybind11/pybind11.h>

namespace hlo::python {

// Adds Builder, Op, Computation and the submodule `ops` to `mod`.
void RegisterBuilder(pybind11::module_& mod);

}  // namespace hlo::python
