#include "python/py_common.h"

#include <regex>
#include <string>

namespace py = pybind11;

namespace hlo::python {
namespace {
PyObject* g_hlo_error = nullptr;
}  // namespace

void RegisterHloError(py::module_& mod) {
  g_hlo_error = PyErr_NewExceptionWithDoc(
      "hlo.HloError",
      "An error of the toolchain (parse, verify, pass, run, builder). Attributes: file, line, col (of the first "
      "diagnostic; None/0 when unknown), message, diagnostics (the full text).",
      PyExc_ValueError, nullptr);
  mod.attr("HloError") = py::reinterpret_borrow<py::object>(g_hlo_error);
}

void RaiseHloError(const absl::Status& status) {
  const std::string text(status.message());
  py::object file = py::none();
  int line = 0, col = 0;
  std::string message = text;
  static const std::regex kDiag(R"(^(.*?):(\d+):(\d+): error: (.*)$)");
  std::smatch m;
  const std::string first = text.substr(0, text.find('\n'));
  if (std::regex_match(first, m, kDiag)) {
    file = py::str(m[1].str());
    line = std::stoi(m[2].str());
    col = std::stoi(m[3].str());
    message = m[4].str();
  }
  py::object err = py::reinterpret_borrow<py::object>(g_hlo_error)(text);
  err.attr("file") = file;
  err.attr("line") = line;
  err.attr("col") = col;
  err.attr("message") = message;
  err.attr("diagnostics") = text;
  PyErr_SetObject(g_hlo_error, err.ptr());
  throw py::error_already_set();
}

py::object JsonToPython(const std::string& text) { return py::module_::import("json").attr("loads")(text); }

}  // namespace hlo::python
