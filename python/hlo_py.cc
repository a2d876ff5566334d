// The `hlo` Python module (pybind11): parse / print / verify with located
// errors, the pass registry and pipelines, and execution on the CPU backend
// with NumPy arrays in and out. docs/python.md.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "analysis/cost_analysis.h"
#include "backend_cpu/executor.h"
#include "backend_cpu/machine_rates.h"
#include "backend_cpu/profile.h"
#include "backend_cpu/thread_pool.h"
#include "ir/printer.h"
#include "ir/verifier.h"
#include "parser/parser.h"
#include "passes/pipeline.h"
#include "passes/registry.h"
#include "python/builder_py.h"
#include "python/numpy_convert.h"
#include "python/py_common.h"

namespace py = pybind11;

namespace hlo::python {
namespace {

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

// The rates of the profile's bounds: (bytes/s, flops/s) given, else the
// measured and cached ones (backend_cpu/machine_rates.h), as hlo-run: for
// several devices those of all the threads they run at once.
cpu::MachineRates ProfileRates(const py::object& machine_rates, int64_t devices) {
  if (machine_rates.is_none()) {
    py::gil_scoped_release release;
    return cpu::GetMachineRatesForDevices(devices);
  }
  auto pair = machine_rates.cast<std::pair<double, double>>();
  if (!(pair.first > 0) || !(pair.second > 0))
    throw py::value_error("machine_rates must be (bytes_per_second, flops_per_second), both > 0");
  cpu::MachineRates rates;
  rates.bytes_per_second = pair.first;
  rates.flops_per_second = pair.second;
  rates.source = "given";
  return rates;
}

// One value per device: the value alone for a single device, else a list.
// Takes the values (results become arrays over their literals' buffers).
template <typename T, typename F>
py::object PerDevice(std::vector<T>& per_device, F to_python) {
  if (per_device.size() == 1) return to_python(std::move(per_device[0]));
  py::list out;
  for (T& v : per_device) out.append(to_python(std::move(v)));
  return std::move(out);
}

// What one device's outfeed instructions sent, in order.
py::list OutfeedToPython(std::vector<Literal> values) {
  py::list out;
  for (Literal& l : values) out.append(LiteralToPython(std::move(l)));
  return out;
}

// Runs the entry computation on NumPy-convertible arguments. One result
// (a tuple result is a Python tuple of arrays); with several devices
// (replicas x partitions), a list with one result per device.
// With outfeed, also what each device's outfeed instructions sent.
py::object Run(const PyModule& m, const py::args& args, std::optional<int> threads, int64_t replicas,
               uint64_t seed, bool profile, const py::object& machine_rates, const py::object& infeed,
               bool outfeed, int64_t partitions) {
  const Computation* entry = m.module->entry();
  if (entry == nullptr) throw py::value_error("the module has no entry computation");
  if (static_cast<int64_t>(args.size()) != entry->num_parameters())
    throw py::type_error(absl::StrCat("the entry computation takes ", entry->num_parameters(), " argument(s), got ",
                                      args.size()));
  // Arguments that are row-major arrays of the parameter's type are read in
  // place (views); `arrays` keeps them alive until the run is over.
  std::vector<Literal> lits;
  std::vector<py::object> arrays;
  for (size_t i = 0; i < args.size(); ++i) {
    const Shape& ps = entry->parameter(static_cast<int64_t>(i))->shape();
    if (!ps.IsArray() || ps.IsTuple())
      throw py::type_error(absl::StrCat("parameter ", i, " has shape ", ShapeToString(ps),
                                        "; only array parameters can be fed from Python"));
    lits.push_back(ArrayToLiteral(args[i], ps, absl::StrCat("argument ", i), &arrays));
  }
  if (threads.has_value()) {
    if (*threads < 1) throw py::value_error("threads must be >= 1");
    cpu::SetThreadPoolWidth(*threads);
  }
  if (replicas < 1 || partitions < 1) throw py::value_error("replicas and partitions must be >= 1");
  cpu::RunOptions opts;
  opts.replica_count = replicas;
  opts.partition_count = partitions;
  opts.rng_seed = seed;
  if (!infeed.is_none()) {
    // Read by `infeed` in order, each of its array's own type (every
    // device reads the same sequence, as hlo-run --infeed).
    int64_t i = 0;
    for (const py::handle& v : infeed)
      opts.infeed.push_back(ValueToLiteral(v, std::nullopt, absl::StrCat("infeed value ", i++)));
  }
  std::unique_ptr<cpu::Profiler> profiler;
  if (profile) {
    profiler = std::make_unique<cpu::Profiler>(ProfileRates(machine_rates, replicas * partitions));
    opts.profiler = profiler.get();
  } else if (!machine_rates.is_none()) {
    throw py::value_error("machine_rates is only used with profile=True");
  }
  absl::StatusOr<cpu::RunResult> r;
  {
    py::gil_scoped_release release;
    r = cpu::RunModule(*m.module, lits, opts);
  }
  if (!r.ok()) RaiseHloError(r.status());
  py::object result = PerDevice(r->results, [](Literal l) { return LiteralToPython(std::move(l)); });
  if (profiler == nullptr && !outfeed) return result;
  // The extras follow the result in the order of the keywords: the profile
  // as hlo-run --profile-json writes it (docs/hlo-run.md), then the outfeed.
  py::list out;
  out.append(result);
  if (profiler != nullptr) out.append(JsonToPython(cpu::ProfileJson(*profiler)));
  if (outfeed) out.append(PerDevice(r->outfeeds, OutfeedToPython));
  return py::tuple(out);
}

}  // namespace
}  // namespace hlo::python

PYBIND11_MODULE(hlo, mod) {
  using namespace hlo::python;
  mod.doc() = "HLO toolchain: parse, print, verify, run passes and execute HLO modules on the CPU.";
  RegisterHloError(mod);

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
      .def_property_readonly(
          "parameters",
          [](const PyModule& m) {
            // What a script needs to make arguments: name, shape text,
            // element type and dimensions (a tuple parameter: "tuple", ()).
            py::list out;
            for (const hlo::Instruction* p : m.module->entry()->parameters()) {
              const hlo::Shape& s = p->shape();
              py::dict d;
              d["name"] = p->name();
              d["shape"] = hlo::ShapeToString(s, false);
              d["dtype"] = s.IsTuple() ? std::string("tuple") : std::string(hlo::PrimitiveTypeName(s.element_type()));
              d["dims"] = s.IsArray() ? py::tuple(py::cast(std::vector<int64_t>(s.dims().begin(), s.dims().end())))
                                      : py::tuple();
              out.append(d);
            }
            return out;
          },
          "The entry computation's parameters: [{name, shape, dtype, dims}, ...].")
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
          py::arg("seed") = 0, py::arg("profile") = false, py::arg("machine_rates") = py::none(),
          py::arg("infeed") = py::none(), py::arg("outfeed") = false, py::arg("partitions") = 1,
          "run(module, *arrays, threads=None, replicas=1, seed=0, profile=False, machine_rates=None, "
          "infeed=None, outfeed=False, partitions=1): executes "
          "the entry computation on the CPU. Returns a NumPy array (a tuple of them for a tuple result; a list "
          "per device, replica-major, when replicas * partitions > 1); with profile=True, (result, profile) where profile is the dict of "
          "hlo-run --profile-json. machine_rates=(bytes/s, flops/s) gives the profile's rates instead of "
          "measuring them. infeed: arrays read by the module's infeed instructions, in order. With "
          "outfeed=True, (result, outfeed) ((result, profile, outfeed) with both): the values the module's "
          "outfeed instructions sent, in order (a list per device when there are several).");
  mod.def("numpy_dtype", [](const std::string& type) { return hlo::python::NumpyDtype(type); }, py::arg("type"),
          "The NumPy dtype hlo.run uses for an HLO element type name (bf16: ml_dtypes.bfloat16 or float32).");
  mod.def("cost", [](const PyModule& m) { return JsonToPython(hlo::CostToJson(hlo::AnalyzeCost(*m.module))); },
          py::arg("module"),
          "The cost analysis of hlo-opt --cost-json as a dict: module, total, computations (each with its "
          "instructions' flops, transcendentals, bytes_accessed, trip counts of while loops).");
  hlo::python::RegisterBuilder(mod);
}
