// Shared by builder_py.cc (the classes) and builder_ops_py.cc (hlo.ops).
#pragma once

#include <pybind11/pybind11.h>

#include <memory>
#include <string>
#include <vector>

#include "client/ops.h"

namespace hlo::python {

// One builder as Python holds it. A sub-builder keeps its parent alive (it
// adds its computation to the parent's module).
struct PyBuilder {
  std::unique_ptr<client::XlaBuilder> b;
  std::shared_ptr<PyBuilder> parent;
};
using BuilderRef = std::shared_ptr<PyBuilder>;

// hlo.Op: a valid op of a builder (failed calls raise instead).
struct PyOp {
  BuilderRef builder;
  client::XlaOp op;
  const Shape& shape() const { return op.instruction()->shape(); }
};

// hlo.Computation: a built sub-builder (or top-level builder) computation.
struct PyComputation {
  client::XlaComputation comp;
  BuilderRef builder;
};

// `op` as an hlo.Op of `b`; raises hlo.HloError with the builder's first
// error when the call failed (the builder then keeps that error: build()
// raises it again, as XLA's builder does).
PyOp Wrap(const BuilderRef& b, client::XlaOp op);

// An operand: an hlo.Op as it is, anything else (a Python scalar, a NumPy
// array) a constant in `like`'s builder of `like`'s element type.
client::XlaOp ToOp(const pybind11::handle& value, const PyOp& like);
// The same with an explicit element type.
client::XlaOp ConstantOf(const BuilderRef& b, const pybind11::handle& value, PrimitiveType type);

// The first hlo.Op among `values`; TypeError naming `call` if none.
const PyOp& FirstOp(const char* call, std::initializer_list<pybind11::handle> values);

// A computation argument: an hlo.Computation, a Python callable traced in
// a sub-builder of `b` with parameters of `param_shapes`, or the name of a
// scalar reducer ("add", "mul", "max", "min", "and", "or") over
// param_shapes' element type.
client::XlaComputation ComputationArg(const BuilderRef& b, const pybind11::handle& comp, const std::string& name,
                                      const std::vector<Shape>& param_shapes);

// "SAME" / "VALID".
client::Padding PaddingArg(const std::string& padding);

// The hlo.ops functions (builder_ops_py.cc; collectives, I/O and linear
// algebra in builder_ops_devices_py.cc).
void RegisterOps(pybind11::module_& ops);
void RegisterDeviceOps(pybind11::module_& ops);

}  // namespace hlo::python
