// hlo-run: execute an HLO module on the CPU backend. See docs/cli.md.
//
// Exit status: 0 on success, 1 on any error in the module, its inputs or the
// run, 2 on bad usage (unknown flag, missing input file argument, ...).

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <exception>
#include <memory>
#include <new>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "backend_cpu/custom_call.h"
#include "backend_cpu/executor.h"
#include "backend_cpu/machine_rates.h"
#include "backend_cpu/memory_estimate.h"
#include "backend_cpu/profile.h"
#include "backend_cpu/thread_pool.h"
#include "backend_cpu/transport.h"
#include "ir/buffer_allocator.h"
#include "ir/printer.h"
#include "ir/verifier.h"
#include "parser/parser.h"
#include "tools/cli_flags.h"
#include "tools/distributed_run.h"
#include "passes/pipeline.h"
#include "tools/file_io.h"
#include "tools/heap_setup.h"
#include "tools/literal_compare.h"
#include "tools/memory_watchdog.h"
#include "tools/npy.h"
#include "tools/donated_args.h"
#include "tools/npy_dir.h"
#include "tools/run_inputs.h"
#include "proto/proto_io.h"
#include "analysis/run_report_json.h"

namespace hlo {
namespace {

constexpr char kProgram[] = "hlo-run";
constexpr int kExitError = 1;
constexpr int kExitUsage = 2;

struct Options {
  bool help = false;
  std::vector<std::string> inputs;
  std::vector<std::string> infeed;
  std::string random_inputs;  // "" = off, else the seed
  std::string random_infeed;  // "" = off, else the seed
  std::string input_module;
  std::string format;  // "" = by the file name (proto/proto_io.h)
  std::string output;
  std::string output_dir;
  std::string save_inputs;
  std::string outfeed_dir;
  std::string save_snapshot;
  std::string warmup = "0";
  std::string profile;       // "" = off, else the number of rows (0 = all)
  std::string profile_json;
  std::string machine_bandwidth;
  std::string machine_gflops;
  std::string threads;
  std::string replicas;
  std::string partitions;
  std::string collective_timeout;
  bool all_devices = false;
  std::string iterations = "1";
  std::string rng_seed = "0";
  std::string memory_limit;  // "" = available memory less a margin
  std::string platform = "cpu";
  std::string reference_platform;
  std::string reference_module;
  bool print_literals = false;
  bool peak_memory = false;
  bool list_custom_calls = false;
  bool json = false;
  bool no_opt = false;
  bool strict = false;
  std::string run_test_hlo_passes = "true";
  std::string abs_error_bound = "1e-3";
  std::string rel_error_bound = "1e-3";
};

// With --json, messages and results go into this report, printed at exit
// (docs/hlo-run-json.md).
RunReport* g_json = nullptr;

void Message(absl::string_view kind, absl::string_view message) {
  // Under mpirun errors name their process (docs/mpi.md).
  const bool error = kind == "error";
  if (error) distributed::RecordError(message);
  if (g_json != nullptr) {
    (error ? g_json->errors : g_json->notes).push_back(std::string(message));
    return;
  }
  std::string line = absl::StrCat(kProgram, ": ", kind, ": ",
                                  error ? distributed::ErrorPrefix() : "", message, "\n");
  fwrite(line.data(), 1, line.size(), stderr);
}

int Fail(absl::string_view message) {
  Message("error", message);
  return kExitError;
}

int UsageError(absl::string_view message) {
  Message("error", message);
  if (g_json != nullptr) return kExitUsage;
  std::string hint = absl::StrCat("run '", kProgram, " --help' for usage\n");
  fwrite(hint.data(), 1, hint.size(), stderr);
  return kExitUsage;
}

// Parses a non-negative integer flag value; `min` is the smallest allowed.
absl::StatusOr<int64_t> IntFlag(absl::string_view name, const std::string& value, int64_t min) {
  int64_t v;
  if (!absl::SimpleAtoi(value, &v) || v < min)
    return absl::InvalidArgumentError(
        absl::StrCat("--", name, " needs a whole number >= ", min, ", got '", value, "'"));
  return v;
}

std::string UsageDescription() {
  return "Runs the entry computation of an HLO module (a file, or '-' for stdin) on the\n"
         "CPU and prints the result in XLA's literal form. Inputs come from --input (one\n"
         "per entry parameter, in order) or --random-inputs. Flag names of XLA's\n"
         "run_hlo_module are accepted where they mean the same thing.\n"
         "Exit status: 0 on success, 1 on any error in the module, inputs or run,\n"
         "2 on bad usage.";
}

std::string UsageEpilogue() {
  return "INPUT SPECS:\n"
         "  path/to/x.npy                   a NumPy array (bf16/f8 parameters take float32,\n"
         "                                  s4/u4 take int8/uint8; rounded to nearest even)\n"
         "  path/to/x.txt                   a file holding an HLO literal\n"
         "  'f32[2,2] {{1,2},{3,4}}'        an inline literal\n"
         "\n"
         "EXAMPLES:\n"
         "  hlo-run model.hlo --random-inputs\n"
         "  hlo-run add.hlo --input='f32[2] {1, 2}' --input=y.npy --output=sum.npy\n"
         "  hlo-run model.hlo --random-inputs=7 --iterations=10 --threads=2\n"
         "\n"
         "See docs/cli.md for details.\n";
}

absl::Status WriteNpy(const std::string& path, const Literal& value) {
  absl::StatusOr<NpyEncoding> npy = EncodeNpyParts(value);
  if (!npy.ok())
    return absl::InvalidArgumentError(absl::StrCat("cannot write '", path, "': ",
                                                   npy.status().message()));
  const absl::string_view parts[] = {npy->header(), npy->data()};
  return WriteOutput(path, parts);
}

// The rates of --profile's bounds: both given, or measured (and cached)
// for this process's devices (GetMachineRatesForDevices). Errors are usage
// errors.
absl::StatusOr<cpu::MachineRates> ProfileRates(const Options& opts, int64_t local_devices) {
  if (!opts.profile.empty()) {
    absl::StatusOr<int64_t> rows = IntFlag("profile", opts.profile, 0);
    if (!rows.ok()) return rows.status();
  }
  if (opts.machine_bandwidth.empty() && opts.machine_gflops.empty())
    return cpu::GetMachineRatesForDevices(local_devices);
  if (opts.machine_bandwidth.empty() || opts.machine_gflops.empty())
    return absl::InvalidArgumentError("--machine-bandwidth and --machine-gflops go together");
  cpu::MachineRates rates;
  double bandwidth = 0, gflops = 0;
  if (!absl::SimpleAtod(opts.machine_bandwidth, &bandwidth) || !(bandwidth > 0))
    return absl::InvalidArgumentError(absl::StrCat(
        "--machine-bandwidth needs a number > 0 (GB/s), got '", opts.machine_bandwidth, "'"));
  if (!absl::SimpleAtod(opts.machine_gflops, &gflops) || !(gflops > 0))
    return absl::InvalidArgumentError(
        absl::StrCat("--machine-gflops needs a number > 0, got '", opts.machine_gflops, "'"));
  rates.bytes_per_second = bandwidth * 1e9;
  rates.flops_per_second = gflops * 1e9;
  rates.source = "given";
  return rates;
}

// Parses and verifies a module.
absl::StatusOr<std::unique_ptr<Module>> LoadModule(std::shared_ptr<const std::string> text,
                                                   const ParseOptions& options) {
  absl::StatusOr<std::unique_ptr<Module>> module = ParseModule(text, options);
  if (!module.ok()) return module.status();
  absl::Status verified = VerifyModule(**module);
  if (!verified.ok()) return verified;
  return module;
}

// --reference-module: the text of the module in `path` (text or proto, by
// its name).
absl::StatusOr<std::string> ReadModuleText(const std::string& path) {
  absl::StatusOr<proto::InputFormat> format = proto::ResolveInputFormat("", path);
  if (!format.ok()) return format.status();
  absl::StatusOr<std::string> read = ReadInput(path);
  if (!read.ok()) return read.status();
  absl::StatusOr<proto::DecodedInput> decoded = proto::DecodeInput(*read, *format, path);
  if (!decoded.ok()) return decoded.status();
  if (*format != proto::InputFormat::kText) return std::move(decoded->hlo_text);
  return read;
}

// The reference module's entry must take the module's parameters: the two
// runs share their arguments.
absl::Status CheckSameParameters(const Module& module, const Module& ref, const std::string& path) {
  const Computation* want = module.entry();
  const Computation* got = ref.entry();
  if (want == nullptr || got == nullptr) return absl::OkStatus();  // reported by the run
  const int64_t n = want->num_parameters();
  if (got->num_parameters() != n)
    return absl::InvalidArgumentError(absl::StrCat("the reference module '", path, "' takes ",
                                                   got->num_parameters(), " parameters, the module ", n));
  for (int64_t i = 0; i < n; ++i) {
    const Shape& a = want->parameter(i)->shape();
    const Shape& b = got->parameter(i)->shape();
    if (!a.Compatible(b))
      return absl::InvalidArgumentError(absl::StrCat(
          "parameter ", i, " of the reference module '", path, "' is ", ShapeToString(b, false),
          ", the module's is ", ShapeToString(a, false)));
  }
  return absl::OkStatus();
}

// Parse and verify errors already carry `file:line:col: error:`.
int ReportDiagnostics(const absl::Status& status) {
  std::string msg(status.message());
  if (msg.empty() || msg.back() != '\n') msg.push_back('\n');
  if (g_json != nullptr) {
    g_json->diagnostics += msg;
    return kExitError;
  }
  fwrite(msg.data(), 1, msg.size(), stderr);
  return kExitError;
}

// `values` as DIR/0.npy, ... with tuples flattened, and DIR/<sidecar>
// (tools/npy_dir.h) keying each file by the value's index as `value_key`.
absl::Status WriteValuesDir(const std::string& dir, const std::vector<Literal>& values,
                            const std::string& flag, const std::string& sidecar,
                            const std::string& value_key) {
  std::vector<const Literal*> pointers;
  for (const Literal& v : values) pointers.push_back(&v);
  return WriteNpyDir(dir, FlattenLeaves(pointers), flag, sidecar, value_key);
}

// --outfeed-dir: device 0's outfeed values in DIR; with --all-devices,
// those of every device of this process in DIR/device-K/.
absl::Status WriteOutfeeds(const Options& opts, const cpu::RunResult& result) {
  if (opts.outfeed_dir.empty()) return absl::OkStatus();
  if (!opts.all_devices)
    return WriteValuesDir(opts.outfeed_dir, result.outfeed(), "outfeed-dir", "outfeed.json", "outfeed");
  return distributed::WritePerDevice(opts.outfeed_dir, "outfeed-dir", result, result.outfeeds.size(),
                                     [&](const std::string& subdir, size_t i) {
                                       return WriteValuesDir(subdir, result.outfeeds[i], "outfeed-dir",
                                                             "outfeed.json", "outfeed");
                                     });
}

int Run(int argc, char** argv) {
  Options opts;
  cli::FlagParser flags(kProgram, "hlo-run [flags] FILE|-", UsageDescription());
  flags.AddBool("help", &opts.help, "print this help and exit");
  flags.AddAlias("h", "help");
  flags.AddRepeated("input", &opts.inputs, "SPEC",
                    "value of the next entry parameter (repeat once per parameter)");
  flags.AddOptionalValue("random-inputs", &opts.random_inputs, "SEED", "0",
                         "fill every parameter with deterministic random values\n"
                         "(floats in [-1,1), integers in [0,8)); SEED defaults to 0");
  flags.AddString("input-module", &opts.input_module, "FILE",
                  "the module file (instead of the positional argument)");
  flags.AddString("format", &opts.format, "FMT",
                  "module format: hlo, proto (HloModuleProto), pbtxt, snapshot\n"
                  "(HloSnapshot: runs with its stored arguments); default by the name");
  flags.AddString("input-format", &opts.format, "FMT", "the same (run_hlo_module's name)");
  flags.AddString("output", &opts.output, "PATH.npy", "write the (non-tuple) result as .npy");
  flags.AddString("output-dir", &opts.output_dir, "DIR",
                  "write every leaf of the result as DIR/0.npy, DIR/1.npy, ...\n"
                  "(flattened tuple order; bf16/f8 widened to float32)");
  flags.AddString("save-inputs", &opts.save_inputs, "DIR",
                  "write the arguments used (from --input or --random-inputs) as\n"
                  "DIR/0.npy, DIR/1.npy, ... (parameter order, tuples flattened)\n"
                  "and DIR/inputs.json with their real element types and shapes");
  flags.AddString("outfeed-dir", &opts.outfeed_dir, "DIR",
                  "write what device 0's outfeed instructions sent (every device's\n"
                  "with --all-devices, as DIR/device-K/...), in order, as\n"
                  "DIR/0.npy, DIR/1.npy, ... (tuples flattened) and DIR/outfeed.json\n"
                  "with each file's outfeed number, tuple index, element type and\n"
                  "shape (default: printed after the result on stdout)");
  flags.AddString("save-snapshot", &opts.save_snapshot, "FILE",
                  "write the module as read and the arguments used as a binary\n"
                  "HloSnapshot (run it again with hlo-run FILE --format=snapshot)");
  flags.AddBool("json", &opts.json,
                "print one JSON report (times, profile, comparison, result,\n"
                "errors) to stdout instead of text (docs/hlo-run-json.md)");
  flags.AddBool("print-literals", &opts.print_literals,
                "print the arguments and the result with run_hlo_module's headings");
  flags.AddString("threads", &opts.threads, "N", "worker threads (default: all cores)");
  flags.AddString("replicas", &opts.replicas, "N",
                  "number of replicas (default: the module's replica_count)");
  flags.AddString("partitions", &opts.partitions, "N",
                  "number of partitions (default: the module's num_partitions)");
  flags.AddString("collective-timeout", &opts.collective_timeout, "SECONDS",
                  "fail a collective or recv-done whose peers do not arrive within\n"
                  "SECONDS, naming them (default 600)");
  flags.AddBool("all-devices", &opts.all_devices,
                "with --output-dir: write every device's result as DIR/device-K/;\n"
                "with --outfeed-dir: every device's outfeed values likewise");
  flags.AddString("iterations", &opts.iterations, "N",
                  "run N times; prints min and median wall time per run on stderr");
  flags.AddString("warmup", &opts.warmup, "N",
                  "run N times before the timed --iterations (default 0)");
  flags.AddOptionalValue("profile", &opts.profile, "N", "20",
                         "after the runs, print the N most expensive instructions of device 0\n"
                         "on stderr (0 = all): time, share, bytes, GB/s, GFLOP/s and each\n"
                         "one's lower bound on this machine (docs/hlo-run.md)");
  flags.AddString("profile-json", &opts.profile_json, "FILE",
                  "write the whole profile as JSON (implies profiling)");
  flags.AddString("machine-bandwidth", &opts.machine_bandwidth, "GB/s",
                  "memory bandwidth for the profile's bounds (default: measured once, cached)");
  flags.AddString("machine-gflops", &opts.machine_gflops, "GFLOP/s",
                  "f32 GEMM rate for the profile's bounds (default: measured once, cached)");
  flags.AddString("rng-seed", &opts.rng_seed, "N", "seed of rng / rng-get-and-update-state");
  flags.AddRepeated("infeed", &opts.infeed, "SPEC",
                    "a literal (file or inline) for the next infeed (repeatable)");
  flags.AddOptionalValue("random-infeed", &opts.random_infeed, "SEED", "0",
                         "once the --infeed values are used up, every further infeed\n"
                         "reads deterministic random values of its shape (the same\n"
                         "sequence on every device); SEED defaults to 0");
  flags.AddBool("peak-memory", &opts.peak_memory,
                "report on stderr the peak bytes held by live values and by all\n"
                "array buffers (kernel temporaries included)");
  flags.AddString("memory-limit", &opts.memory_limit, "BYTES",
                  "refuse a module whose estimated need exceeds BYTES (suffix K/M/G/T\n"
                  "allowed; default: the available memory less a margin)");
  flags.AddBool("list-custom-calls", &opts.list_custom_calls,
                "list the custom-call targets this backend runs and exit");
  flags.AddBool("strict", &opts.strict,
                "reject legacy text forms current XLA rejects (see hlo-opt --strict)");
  flags.AddBool("no-opt", &opts.no_opt,
                "run the module as written (default: the -O pipeline of hlo-opt first)");
  flags.AddString("run-test-hlo-passes", &opts.run_test_hlo_passes, "BOOL",
                  "run_hlo_module's spelling; false = --no-opt");
  flags.AddString("platform", &opts.platform, "NAME", "cpu (also 'Host'); the only platform");
  flags.AddString("reference-platform", &opts.reference_platform, "NAME",
                  "'interpreter' (or 'default'): also run the module unoptimized\n"
                  "and compare; exit 1 on a mismatch");
  flags.AddString("reference-module", &opts.reference_module, "FILE",
                  "also run the module in FILE (as written, same arguments) and\n"
                  "compare, e.g. an XLA-optimized dump against its original; exit 1\n"
                  "on a mismatch");
  flags.AddString("abs-error-bound", &opts.abs_error_bound, "X",
                  "absolute tolerance of the comparison (default 1e-3)");
  flags.AddString("rel-error-bound", &opts.rel_error_bound, "X",
                  "relative tolerance (default 1e-3); an element mismatches\n"
                  "only when both bounds are exceeded");
  flags.SetEpilogue(UsageEpilogue());

  absl::Status parsed = flags.Parse(argc, argv);
  if (!parsed.ok()) return UsageError(parsed.message());
  if (opts.help) {
    std::string usage = flags.Usage();
    fwrite(usage.data(), 1, usage.size(), stdout);
    return 0;
  }
  if (opts.list_custom_calls) {
    for (const cpu::CustomCallTarget* t : cpu::AllCustomCallTargets())
      printf("%s\t%s\n", t->name, t->description);
    return 0;
  }
  static RunReport json_report;
  if (opts.json) g_json = &json_report;
  if (opts.platform != "cpu" && opts.platform != "Host" && opts.platform != "host")
    return UsageError(absl::StrCat("unsupported --platform='", opts.platform,
                                   "': only 'cpu' (or 'Host') exists"));
  const bool compare = !opts.reference_platform.empty() || !opts.reference_module.empty();
  if (!opts.reference_platform.empty() && opts.reference_platform != "interpreter" &&
      opts.reference_platform != "Interpreter" && opts.reference_platform != "default")
    return UsageError(absl::StrCat("unsupported --reference_platform='", opts.reference_platform,
                                   "': only 'interpreter' (the unoptimized module)"));
  if (!opts.reference_platform.empty() && !opts.reference_module.empty())
    return UsageError("--reference-platform and --reference-module exclude each other");
  // How messages name the reference run.
  const std::string reference_name =
      opts.reference_module.empty() ? "the reference (unoptimized)"
                                    : absl::StrCat("the reference module '", opts.reference_module, "'");
  double abs_bound = 0, rel_bound = 0, run_options_timeout = 0;
  if (!absl::SimpleAtod(opts.abs_error_bound, &abs_bound) || !(abs_bound >= 0))
    return UsageError(absl::StrCat("--abs_error_bound needs a number >= 0, got '",
                                   opts.abs_error_bound, "'"));
  if (!absl::SimpleAtod(opts.rel_error_bound, &rel_bound) || !(rel_bound >= 0))
    return UsageError(absl::StrCat("--rel_error_bound needs a number >= 0, got '",
                                   opts.rel_error_bound, "'"));
  if (opts.run_test_hlo_passes == "false" || opts.run_test_hlo_passes == "0") {
    opts.no_opt = true;
  } else if (opts.no_opt && flags.WasSet("run-test-hlo-passes")) {
    return UsageError("--no-opt and --run-test-hlo-passes=true contradict each other");
  } else if (opts.run_test_hlo_passes != "true" && opts.run_test_hlo_passes != "1") {
    return UsageError("--run_test_hlo_passes takes true or false");
  }

  std::vector<std::string> files = flags.positional();
  if (!opts.input_module.empty()) files.push_back(opts.input_module);
  if (files.size() != 1)
    return UsageError(files.empty() ? "no module given (a file, or '-' for stdin)"
                                    : "exactly one module file is expected");
  if (!opts.output.empty() && !opts.output_dir.empty())
    return UsageError("--output and --output-dir cannot be combined");
  if (!opts.random_inputs.empty() && !opts.inputs.empty())
    return UsageError("--input and --random-inputs cannot be combined");

  if (opts.all_devices && opts.output_dir.empty() && opts.outfeed_dir.empty())
    return UsageError("--all-devices needs --output-dir or --outfeed-dir");
  if (!opts.collective_timeout.empty() &&
      (!absl::SimpleAtod(opts.collective_timeout, &run_options_timeout) ||
       !(run_options_timeout > 0)))
    return UsageError(absl::StrCat("--collective-timeout needs a number of seconds > 0, got '",
                                   opts.collective_timeout, "'"));
  absl::StatusOr<int64_t> iterations = IntFlag("iterations", opts.iterations, 1);
  if (!iterations.ok()) return UsageError(iterations.status().message());
  absl::StatusOr<int64_t> warmup = IntFlag("warmup", opts.warmup, 0);
  if (!warmup.ok()) return UsageError(warmup.status().message());
  absl::StatusOr<int64_t> rng_seed = IntFlag("rng-seed", opts.rng_seed, 0);
  if (!rng_seed.ok()) return UsageError(rng_seed.status().message());
  uint64_t random_seed = 0;
  if (!opts.random_inputs.empty()) {
    absl::StatusOr<int64_t> seed = IntFlag("random-inputs", opts.random_inputs, 0);
    if (!seed.ok()) return UsageError(seed.status().message());
    random_seed = static_cast<uint64_t>(*seed);
  }
  absl::StatusOr<int64_t> memory_limit = cpu::ParseMemoryLimit(opts.memory_limit);
  if (!memory_limit.ok()) return UsageError(memory_limit.status().message());
  cpu::RunOptions run_options;
  run_options.rng_seed = static_cast<uint64_t>(*rng_seed);
  run_options.collective_timeout_seconds = run_options_timeout;
  if (!opts.threads.empty()) {
    absl::StatusOr<int64_t> threads = IntFlag("threads", opts.threads, 1);
    if (!threads.ok()) return UsageError(threads.status().message());
    cpu::SetThreadPoolWidth(static_cast<int>(std::min<int64_t>(*threads, 256)));
  }
  if (!opts.replicas.empty()) {
    absl::StatusOr<int64_t> r = IntFlag("replicas", opts.replicas, 1);
    if (!r.ok()) return UsageError(r.status().message());
    run_options.replica_count = *r;
  }
  if (!opts.partitions.empty()) {
    absl::StatusOr<int64_t> p = IntFlag("partitions", opts.partitions, 1);
    if (!p.ok()) return UsageError(p.status().message());
    run_options.partition_count = *p;
  }

  const std::string& input = files[0];
  json_report.input = input == "-" ? "<stdin>" : input;
  absl::StatusOr<proto::InputFormat> format = proto::ResolveInputFormat(opts.format, input);
  if (!format.ok()) return UsageError(format.status().message());
  absl::StatusOr<std::string> read = ReadInput(input);
  if (!read.ok()) return Fail(read.status().message());
  // A proto stands for its HLO text; a snapshot also brings arguments.
  absl::StatusOr<proto::DecodedInput> decoded = proto::DecodeInput(*read, *format, input);
  if (!decoded.ok()) return Fail(decoded.status().message());
  for (const std::string& w : decoded->warnings) fprintf(stderr, "hlo-run: warning: %s\n", w.c_str());
  if (*format != proto::InputFormat::kText) *read = std::move(decoded->hlo_text);
  // Shared with the parsed modules (they keep it for diagnostics).
  auto text = std::make_shared<const std::string>(*std::move(read));
  ParseOptions parse_options;
  parse_options.filename = input == "-" ? "<stdin>" : input;
  parse_options.reject_unspecified_api_version = opts.strict;
  absl::StatusOr<std::unique_ptr<Module>> module = LoadModule(text, parse_options);
  if (!module.ok()) return ReportDiagnostics(module.status());
  // The reference: --reference-module's module, or this one as written (the
  // test module is optimized).
  std::unique_ptr<Module> reference;
  if (!opts.reference_module.empty()) {
    absl::StatusOr<std::string> ref_text = ReadModuleText(opts.reference_module);
    if (!ref_text.ok()) return Fail(ref_text.status().message());
    ParseOptions ref_options = parse_options;
    ref_options.filename = opts.reference_module;
    absl::StatusOr<std::unique_ptr<Module>> ref =
        LoadModule(std::make_shared<const std::string>(*std::move(ref_text)), ref_options);
    if (!ref.ok()) return ReportDiagnostics(ref.status());
    if (absl::Status st = CheckSameParameters(**module, **ref, opts.reference_module); !st.ok())
      return Fail(st.message());
    reference = *std::move(ref);
  } else if (compare) {
    absl::StatusOr<std::unique_ptr<Module>> ref = LoadModule(text, parse_options);
    if (!ref.ok()) return ReportDiagnostics(ref.status());
    reference = *std::move(ref);
  }
  if (!opts.no_opt) {
    absl::StatusOr<bool> optimized = DefaultPipeline().Run(**module);
    if (!optimized.ok())
      return Fail(absl::StrCat("the optimization pipeline failed: ", optimized.status().message(),
                               " (run with --no-opt to skip it)"));
  }
  const Computation* entry = (*module)->entry();
  if (entry == nullptr) return Fail("the module has no entry computation");
  if (absl::Status st = distributed::Configure(**module, &run_options); !st.ok())
    return Fail(st.message());
  // Only the process holding device 0 reports and writes (docs/mpi.md).
  const bool reporter = distributed::HoldsDevice0();
  // Before any argument is made: refuse what cannot fit (memory_estimate.h).
  const cpu::MemoryEstimate estimate =
      cpu::EstimateMemory(**module, run_options.replica_count, run_options.partition_count);
  absl::Status fits = cpu::CheckMemoryLimit(estimate, *memory_limit, distributed::Share());
  if (!fits.ok()) return Fail(fits.message());
  // What the estimate misses must not bring the kernel's OOM killer
  // either: past the limit (this process's share of it) the run ends with
  // an error. Stopped before any output is written.
  const int64_t process_limit = *memory_limit / std::max(1, distributed::Share().on_this_host);
  MemoryWatchdog watchdog(
      "hlo-run", distributed::ErrorPrefix(), process_limit,
      absl::StrCat("the estimate before the run was ", cpu::FormatBytes(estimate.total_bytes),
                   " (--memory-limit sets the limit; run on more hosts, or with fewer devices)"));

  // Arguments.
  std::vector<Literal> args;
  const int64_t num_params = entry->num_parameters();
  if (!opts.inputs.empty()) {
    if (static_cast<int64_t>(opts.inputs.size()) != num_params)
      return Fail(absl::StrCat("the entry computation has ", num_params, " parameter",
                               num_params == 1 ? "" : "s", " but ", opts.inputs.size(),
                               " --input value", opts.inputs.size() == 1 ? " was" : "s were",
                               " given"));
    for (int64_t i = 0; i < num_params; ++i) {
      absl::StatusOr<Literal> lit = LoadInput(opts.inputs[i], *entry->parameter(i));
      if (!lit.ok()) return Fail(lit.status().message());
      args.push_back(*std::move(lit));
    }
  } else if (!opts.random_inputs.empty()) {
    for (int64_t i = 0; i < num_params; ++i)
      args.push_back(RandomLiteral(entry->parameter(i)->shape(), random_seed + i));
  } else if (decoded->is_snapshot) {
    if (absl::Status st = proto::CheckArguments(**module, decoded->arguments); !st.ok()) return Fail(st.message());
    args = std::move(decoded->arguments);
  } else if (num_params > 0) {
    return Fail(absl::StrCat("the entry computation has ", num_params, " parameter",
                             num_params == 1 ? "" : "s",
                             ": give one --input per parameter, or --random-inputs"));
  }
  for (const std::string& spec : opts.infeed) {
    const bool is_path = spec.find_first_of("{[(") == std::string::npos;
    absl::StatusOr<Literal> lit = absl::UnknownError("");
    if (is_path && IsNpyFile(spec)) {
      lit = ReadNpyFile(spec);
    } else {
      absl::StatusOr<std::string> bytes = is_path ? ReadInput(spec) : absl::StatusOr<std::string>(spec);
      if (!bytes.ok()) return Fail(bytes.status().message());
      lit = LooksLikeNpy(*bytes) ? ParseNpy(*bytes, spec) : ParseLiteral(*bytes);
    }
    if (!lit.ok()) return Fail(absl::StrCat("--infeed '", spec, "': ", lit.status().message()));
    run_options.infeed.push_back(*std::move(lit));
  }
  if (!opts.random_infeed.empty()) {
    absl::StatusOr<int64_t> seed = IntFlag("random-infeed", opts.random_infeed, 0);
    if (!seed.ok()) return UsageError(seed.status().message());
    // Positions get seeds far from those --random-inputs gives parameters.
    const uint64_t base = static_cast<uint64_t>(*seed) * 0x9E3779B97F4A7C15ull + 0x1F123BB5ull;
    run_options.infeed_fallback = [base](const Shape& shape, int64_t position) {
      return RandomLiteral(shape, base + static_cast<uint64_t>(position));
    };
  }

  std::unique_ptr<cpu::Profiler> profiler;
  if (!opts.profile.empty() || !opts.profile_json.empty()) {
    const cpu::DeviceGrid grid = cpu::DeviceGridOf(**module, run_options);
    const int processes = run_options.transport != nullptr ? run_options.transport->process_count() : 1;
    absl::StatusOr<cpu::MachineRates> rates =
        ProfileRates(opts, grid.replicas * grid.partitions / std::max(processes, 1));
    if (!rates.ok()) return UsageError(rates.status().message());
    profiler = std::make_unique<cpu::Profiler>(*rates);
    run_options.profiler = profiler.get();
  }

  // Written before the runs, so that a failing run can be reproduced with
  // exactly these values by another runner.
  if (!opts.save_inputs.empty() && reporter) {
    absl::Status st = WriteValuesDir(opts.save_inputs, args, "save-inputs", "inputs.json", "parameter");
    if (!st.ok()) return Fail(st.message());
  }
  if (!opts.save_snapshot.empty() && reporter) {
    // The module as read (`module` may be optimized by now).
    absl::StatusOr<std::unique_ptr<Module>> as_read = LoadModule(text, parse_options);
    if (!as_read.ok()) return ReportDiagnostics(as_read.status());
    absl::StatusOr<std::string> bytes = proto::EncodeSnapshot(**as_read, args);
    if (!bytes.ok()) return Fail(bytes.status().message());
    if (absl::Status st = WriteOutput(opts.save_snapshot, *bytes); !st.ok()) return Fail(st.message());
  }

  // Runs: the schedules and fusion plans are made once, before them.
  const cpu::Executable executable(**module);
  std::vector<double> seconds;
  absl::StatusOr<cpu::RunResult> result = absl::UnknownError("not run");
  DonatedArguments donation(**module, args);
  for (int64_t it = 0; it < *warmup; ++it) {
    cpu::RunOptions untimed = run_options;
    untimed.profiler = nullptr;
    untimed.donated_args = donation.Prepare();
    result = absl::UnknownError("not run");
    result = executable.Run(args, untimed);
    if (!result.ok()) return Fail(result.status().message());
  }
  const int64_t first_timed_run = distributed::RunsSoFar();
  // The buffers' peak counts from here: the arguments (held already) and
  // what the timed runs allocate, kernel temporaries included.
  ResetPeakBufferBytes();
  for (int64_t it = 0; it < *iterations; ++it) {
    // The previous run's result goes first: its buffers are then reused by
    // this run (ir/buffer_allocator.cc) instead of fresh, page-faulting ones.
    result = absl::UnknownError("not run");
    run_options.donated_args = donation.Prepare();
    auto start = std::chrono::steady_clock::now();
    result = executable.Run(args, run_options);
    seconds.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    if (!result.ok()) return Fail(result.status().message());
  }
  json_report.ran = true;
  json_report.iterations = *iterations;
  json_report.warmup = *warmup;
  json_report.seconds = seconds;
  const int64_t last_timed_run = distributed::RunsSoFar();
  if (!reporter) {
    // Every process runs the same runs (the reference too) in step.
    if (compare) {
      cpu::RunOptions reference_options = run_options;
      reference_options.profiler = nullptr;
      reference_options.donated_args.clear();  // the reference reads the caller's inputs
      absl::StatusOr<cpu::RunResult> expected = cpu::RunModule(*reference, args, reference_options);
      if (!expected.ok()) return Fail(expected.status().message());
    }
    watchdog.Stop();
    if (absl::Status st = WriteOutfeeds(opts, *result); !st.ok()) return Fail(st.message());
    if (opts.all_devices && !opts.output_dir.empty()) {
      absl::Status st = distributed::WriteDeviceOutputs(opts.output_dir, *result);
      if (!st.ok()) return Fail(st.message());
    }
    return 0;
  }
  for (const std::string& note : result->notes) Message("note", note);
  if (compare) {
    cpu::RunOptions reference_options = run_options;
    reference_options.profiler = nullptr;
    reference_options.donated_args.clear();  // the reference reads the caller's inputs
    absl::StatusOr<cpu::RunResult> expected = cpu::RunModule(*reference, args, reference_options);
    if (!expected.ok())
      return Fail(absl::StrCat(reference_name, " run failed: ", expected.status().message()));
    CompareReport report =
        CompareLiterals(expected->results[0], result->results[0], abs_bound, rel_bound);
    const std::string against =
        opts.reference_module.empty() ? opts.reference_platform : absl::StrCat("module:", opts.reference_module);
    json_report.comparison = RunComparisonEntry{against, report.ok, report.elements,
                                                report.mismatches, abs_bound, rel_bound, report.message};
    const std::string differ =
        opts.reference_module.empty()
            ? std::string("results of the optimized and the reference (unoptimized) run differ")
            : absl::StrCat("results of the module and ", reference_name, " differ");
    if (!report.ok && g_json != nullptr) {
      g_json->errors.push_back(differ);
      return kExitError;
    }
    if (!report.ok) {
      std::string msg = absl::StrCat("hlo-run: error: ", differ, ":\n", report.message);
      fwrite(msg.data(), 1, msg.size(), stderr);
      return kExitError;
    }
    Message("note", opts.reference_module.empty()
                        ? absl::StrCat("results of the optimized and the reference run are close enough (",
                                       report.elements, " elements compared)")
                        : absl::StrCat("results of the module and ", reference_name,
                                       " are close enough (", report.elements, " elements compared)"));
  }
  watchdog.Stop();  // outputs follow: never cut short by the watchdog
  if (*iterations > 1) {
    std::vector<double> sorted = seconds;
    std::sort(sorted.begin(), sorted.end());
    const double median = sorted.size() % 2 ? sorted[sorted.size() / 2]
                                            : (sorted[sorted.size() / 2 - 1] + sorted[sorted.size() / 2]) / 2;
    Message("note", absl::StrFormat("%d runs: min %.6f s, median %.6f s per run", *iterations,
                                    sorted.front(), median));
  }
  if (profiler != nullptr) {
    if (g_json != nullptr) json_report.profile_json = cpu::ProfileJson(*profiler);
    if (!opts.profile.empty() && g_json == nullptr) {
      int64_t rows = 20;
      absl::SimpleAtoi(opts.profile, &rows);
      std::string table = cpu::FormatProfile(*profiler, rows);
      absl::StrAppend(&table, distributed::TrafficTable(first_timed_run, last_timed_run));
      fwrite(table.data(), 1, table.size(), stderr);
    }
    if (!opts.profile_json.empty()) {
      absl::Status st = WriteOutput(opts.profile_json, cpu::ProfileJson(*profiler));
      if (!st.ok()) return Fail(st.message());
    }
  }
  if (opts.peak_memory) {
    const int64_t buffers = static_cast<int64_t>(PeakBufferBytes());
    json_report.peak_memory_bytes = result->peak_bytes;
    json_report.peak_buffer_bytes = buffers;
    Message("note", absl::StrCat("peak memory of live values: ", result->peak_bytes, " bytes"));
    Message("note", absl::StrCat("peak memory of all array buffers (arguments, values, results and "
                                 "kernel temporaries): ",
                                 buffers, " bytes"));
  }

  // Before the result's files, so that a failure here writes neither.
  if (absl::Status st = WriteOutfeeds(opts, *result); !st.ok()) return Fail(st.message());
  const Literal& value = result->results[0];
  if (!opts.output.empty()) {
    if (value.IsTuple())
      return Fail("the result is a tuple: use --output-dir to write its leaves");
    absl::Status st = WriteNpy(opts.output, value);
    if (!st.ok()) return Fail(st.message());
  } else if (opts.all_devices && !opts.output_dir.empty()) {
    absl::Status st = distributed::WriteDeviceOutputs(opts.output_dir, *result);
    if (!st.ok()) return Fail(st.message());
  } else if (!opts.output_dir.empty()) {
    absl::Status st = WriteNpyDir(opts.output_dir, FlattenLeaves({&value}), "output-dir");
    if (!st.ok()) return Fail(st.message());
  }
  // The text goes out in pieces as it is printed (a large result's text is
  // about 3 bytes per byte of f32 values: never held whole), or into the
  // --json report.
  absl::Status written = absl::OkStatus();
  if (g_json != nullptr) json_report.result.emplace();
  auto emit = [&](absl::string_view text) {
    if (g_json != nullptr) json_report.result->append(text.data(), text.size());
    else if (written.ok()) written = WriteOutput("-", text);
  };
  auto emit_literal = [&](const Literal& lit) { PrintLiteralXla(lit, emit); };
  if (opts.print_literals) {
    for (size_t i = 0; i < args.size(); ++i) {
      emit(absl::StrCat("\n** Argument ", i, " **\n"));
      emit_literal(args[i]);
      emit("\n");
    }
    emit("\n** Result with test runner Host **\n");
    emit_literal(value);
    emit("\n");
    for (size_t i = 0; i < result->outfeed().size(); ++i) {
      emit(absl::StrCat("\n** Outfeed ", i, " **\n"));
      emit_literal(result->outfeed()[i]);
      emit("\n");
    }
  } else if (opts.output.empty() && opts.output_dir.empty()) {
    emit_literal(value);
    emit("\n");
    if (opts.outfeed_dir.empty())
      for (size_t i = 0; i < result->outfeed().size(); ++i) {
        emit(absl::StrCat("outfeed ", i, ": "));
        emit_literal(result->outfeed()[i]);
        emit("\n");
      }
  }
  if (!written.ok()) return Fail(written.message());
  return 0;
}

// The --json report, by the process that reports (docs/mpi.md).
void PrintJsonReport(int code) {
  if (g_json == nullptr || !distributed::HoldsDevice0()) return;
  std::string doc = RunReportToJson(*g_json, code);
  fwrite(doc.data(), 1, doc.size(), stdout);
}

}  // namespace
}  // namespace hlo

int main(int argc, char** argv) {
  hlo::ConfigureHeap();
  if (absl::Status st = hlo::distributed::Start(&argc, &argv); !st.ok()) {
    hlo::Message("error", st.message());
    return hlo::kExitError;
  }
  int code = hlo::kExitError;
  try {
    code = hlo::Run(argc, argv);
  } catch (const std::bad_alloc&) {
    hlo::Message("error", "out of memory");
  } catch (const std::exception& e) {
    hlo::Message("error", absl::StrCat("internal error: ", e.what()));
  }
  hlo::PrintJsonReport(code);
  return hlo::distributed::Finish(code);
}
