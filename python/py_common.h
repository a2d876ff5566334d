// Shared by the files of the `hlo` Python module: the module object
// Python holds, and hlo.HloError raised from an absl::Status.
#pragma once

#include <pybind11/pybind11.h>

#include <memory>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "ir/module.h"

namespace hlo::python {

// A parsed or built module, shared with whatever holds it.
struct PyModule {
  std::shared_ptr<Module> module;
};

// Creates hlo.HloError (a ValueError subclass) in `mod`; once, at import.
void RegisterHloError(pybind11::module_& mod);

// Raises hlo.HloError for `status`. Its attributes: `file`, `line`, `col`
// (of the first `file:line:col: error: message` diagnostic, None/0 when
// the status has none), `message` (that diagnostic's message, else the
// whole status message) and `diagnostics` (the full text).
[[noreturn]] void RaiseHloError(const absl::Status& status);

template <typename T>
T ValueOrRaise(absl::StatusOr<T> v) {
  if (!v.ok()) RaiseHloError(v.status());
  return *std::move(v);
}

inline void OkOrRaise(const absl::Status& st) {
  if (!st.ok()) RaiseHloError(st);
}

// json.loads(text): the tools' JSON documents as Python data.
pybind11::object JsonToPython(const std::string& text);

}  // namespace hlo::python
