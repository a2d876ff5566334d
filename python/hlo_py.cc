// The `hlo` Python module (pybind11): parse / print / verify with located
// errors, the pass registry and pipelines, and execution on the CPU backend
// with NumPy arrays in and out. docs/python.md.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <fstream>
#include <memory>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "backend_cpu/executor.h"
#include "backend_cpu/thread_pool.h"
#include "ir/printer.h"
#include "ir/verifier.h"
#include "parser/parser.h"
#include "passes/pipeline.h"
#include "passes/registry.h"
#include "python/numpy_convert.h"

namespace py = pybind11;

namespace hlo::python {
namespace {

// hlo.HloError, a ValueError subclass (created in the module init).
PyObject* g_hlo_error = nullptr;

// Raises hlo.HloError for `status`. Its attributes: `file`, `line`,
// `col` (of the first `file:line:col: error: message` diagnostic, None/0
// when the status has none), `message` (that diagnostic's message, else the
// whole status message) and `diagnostics` (the full text).
[[noreturn]] void RaiseHloError(const absl::Status& status) {
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

template <typename T>
T ValueOrRaise(absl::StatusOr<T> v) {
  if (!v.ok()) RaiseHloError(v.status());
  return *std::move(v);
}

void OkOrRaise(const absl::Status& st) {
  if (!st.ok()) RaiseHloError(st);
}

// A parsed or built module, shared with whatever holds it.
struct PyModule {
  std::shared_ptr<Module> module;
};

PyModule Parse(const std::string& text, const std::string& filename, bool verify) {
  ParseOptions opts;
  opts.filename = filename;
  std::unique_ptr<Module> m = ValueOrRaise(ParseModule(text, opts));
  if (verify) OkOrRaise(VerifyModule(*m));
  return PyModule{std::shared_ptr<Module>(std::move(m))};
}

PyModule ParseFile(const std::string& path, bool verify) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw py::value_error(absl::StrCat("cannot open ", path));
  std::stringstream ss;
  ss << in.rdbuf();
  return Parse(ss.str(), path, verify);
}

// Runs `passes` on the module in place: a list of registered pass names, or
// "O" / "-O" for hlo-opt's default pipeline. Returns whether anything
// changed.
bool RunPasses(PyModule& m, const py::object& passes, bool verify_each) {
  Pipeline pipeline("python");
  if (py::isinstance<py::str>(passes)) {
    const std::string name = passes.cast<std::string>();
    if (name != "O" && name != "-O")
      throw py::value_error(absl::StrCat("unknown pipeline '", name, "' (a list of pass names, or \"O\")"));
    pipeline = DefaultPipeline();
  } else {
    for (const py::handle& p : passes) pipeline.AddPass(p.cast<std::string>());
  }
  OkOrRaise(pipeline.Validate());
  PipelineOptions opts;
  opts.verify_each = verify_each;
  bool changed = false;
  {
    py::gil_scoped_release release;
    absl::StatusOr<bool> r = pipeline.Run(*m.module, opts);
    if (!r.ok()) {
      py::gil_scoped_acquire acquire;
      RaiseHloError(r.status());
    }
    changed = *r;
  }
  return changed;
}

// Runs the entry computation on NumPy-convertible arguments. One result
// (a tuple result is a Python tuple of arrays); with replicas > 1, a list
// with one result per device.
py::object Run(const PyModule& m, const py::args& args, std::optional<int> threads, int64_t replicas,
               uint64_t seed) {
  const Computation* entry = m.module->entry();
  if (entry == nullptr) throw py::value_error("the module has no entry computation");
  if (static_cast<int64_t>(args.size()) != entry->num_parameters())
    throw py::type_error(absl::StrCat("the entry computation takes ", entry->num_parameters(), " argument(s), got ",
                                      args.size()));
  std::vector<Literal> lits;
  for (size_t i = 0; i < args.size(); ++i) {
    const Shape& ps = entry->parameter(static_cast<int64_t>(i))->shape();
    if (!ps.IsArray() || ps.IsTuple())
      throw py::type_error(absl::StrCat("parameter ", i, " has shape ", ShapeToString(ps),
                                        "; only array parameters can be fed from Python"));
    lits.push_back(ArrayToLiteral(args[i], ps, absl::StrCat("argument ", i)));
  }
  if (threads.has_value()) {
    if (*threads < 1) throw py::value_error("threads must be >= 1");
    cpu::SetThreadPoolWidth(*threads);
  }
  cpu::RunOptions opts;
  opts.replica_count = replicas;
  opts.rng_seed = seed;
  absl::StatusOr<cpu::RunResult> r;
  {
    py::gil_scoped_release release;
    r = cpu::RunModule(*m.module, lits, opts);
  }
  if (!r.ok()) RaiseHloError(r.status());
  if (r->results.size() == 1) return LiteralToPython(r->results[0]);
  py::list out;
  for (const Literal& l : r->results) out.append(LiteralToPython(l));
  return std::move(out);
}

}  // namespace
}  // namespace hlo::python

PYBIND11_MODULE(hlo, mod) {
  using namespace hlo::python;
  mod.doc() = "HLO toolchain: parse, print, verify, run passes and execute HLO modules on the CPU.";
  g_hlo_error = PyErr_NewExceptionWithDoc(
      "hlo.HloError",
      "An error of the toolchain (parse, verify, pass, run). Attributes: file, line, col (of the first "
      "diagnostic; None/0 when unknown), message, diagnostics (the full text).",
      PyExc_ValueError, nullptr);
  mod.attr("HloError") = py::reinterpret_borrow<py::object>(g_hlo_error);

  py::class_<PyModule>(mod, "Module")
      .def_property_readonly("name", [](const PyModule& m) { return m.module->name(); })
      .def_property_readonly("entry_name",
                             [](const PyModule& m) { return m.module->entry() ? m.module->entry()->name() : ""; })
      .def_property_readonly("computation_names",
                             [](const PyModule& m) {
                               std::vector<std::string> names;
                               for (const hlo::Computation* c : m.module->computations()) names.push_back(c->name());
                               return names;
                             })
      .def("instruction_count",
           [](const PyModule& m) {
             int64_t n = 0;
             for (const hlo::Computation* c : m.module->computations()) n += c->instruction_count();
             return n;
           },
           "Instructions in all computations.")
      .def("num_parameters", [](const PyModule& m) { return m.module->entry()->num_parameters(); })
      .def("to_text", [](const PyModule& m) { return hlo::PrintModule(*m.module); },
           "The canonical text (as hlo-opt prints it).")
      .def("__str__", [](const PyModule& m) { return hlo::PrintModule(*m.module); })
      .def("__repr__", [](const PyModule& m) { return absl::StrCat("<hlo.Module ", m.module->name(), ">"); });

  mod.def("parse", &Parse, py::arg("text"), py::arg("filename") = "<string>", py::arg("verify") = true,
          "Parses HLO text (and verifies it unless verify=False); raises HloError.");
  mod.def("parse_file", &ParseFile, py::arg("path"), py::arg("verify") = true,
          "Reads and parses an HLO text file; raises HloError.");
  mod.def("print_module", [](const PyModule& m) { return hlo::PrintModule(*m.module); }, py::arg("module"),
          "The canonical text of a module.");
  mod.def("verify", [](const PyModule& m) { OkOrRaise(hlo::VerifyModule(*m.module)); }, py::arg("module"),
          "Raises HloError if the module does not verify.");
  mod.def("list_passes",
          []() {
            std::vector<std::pair<std::string, std::string>> out;
            for (const hlo::PassInfo* p : hlo::AllPasses())
              out.emplace_back(std::string(p->name), std::string(p->description));
            return out;
          },
          "(name, description) of every registered pass.");
  mod.def("run_passes", &RunPasses, py::arg("module"), py::arg("passes"), py::arg("verify_each") = false,
          "Runs registered passes by name (a list) or \"O\" (hlo-opt -O) on the module in place; returns "
          "whether it changed.");
  mod.def("run", &Run, py::arg("module"), py::arg("threads") = py::none(), py::arg("replicas") = 1,
          py::arg("seed") = 0,
          "run(module, *arrays, threads=None, replicas=1, seed=0): executes the entry computation on the CPU. "
          "Returns a NumPy array (a tuple of them for a tuple result; a list per device when replicas > 1).");
}
