// libFuzzer entry point for the CPU backend: small parsed modules are run.
//
//   text --ParseModule--> --VerifyModule--> small enough? --RunModule-->
//        1 thread and 2 threads (bit-identical results)
//        --DefaultPipeline (-O)--> still verifies --RunModule--> fused (2 threads)
//        and op by op (1 thread): bit-identical results
//
// Rejecting input is fine: parse and verify errors, modules over the size
// bounds below, and runs that fail with a status (an unimplemented op, a
// refused allocation, a loop over its trip budget). Crashes, sanitizer
// reports and hangs are bugs. Three properties trap (so libFuzzer keeps the
// input as a crash):
//   * a module that runs on 1 thread gives bit-identical results on 2 (the
//     thread pool splits work; it must never change a value), and
//   * a module that verifies still verifies after the -O pipeline, and
//   * the -O module's fusions, run as fused kernels, give the bits of
//     their op-by-op run.
// The -O module's values are not compared with the input module's:
// reassociating floats moves them (gen/diff_check.h compares them with a
// tolerance on generated modules).
//
// Build: cmake -DHLO_BUILD_FUZZ=ON -DCMAKE_CXX_COMPILER=clang++-14; seeds
// and the bounded run: scripts/test.sh (stage_fuzz); the soak command:
// docs/reliability.md.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "backend_cpu/executor.h"
#include "backend_cpu/thread_pool.h"
#include "ir/layout_index.h"
#include "ir/printer.h"
#include "ir/verifier.h"
#include "parser/parser.h"
#include "passes/pipeline.h"
#include "tools/run_inputs.h"

namespace {

// Sizes that keep one input well under a second under ASan+UBSan: every
// array of every computation (tuple leaves included) at most
// kMaxArrayElements, all of them together at most kMaxTotalElements, at
// most kMaxDevices replicas x partitions (each runs on its own thread).
constexpr int64_t kMaxArrayElements = int64_t{1} << 14;
constexpr int64_t kMaxTotalElements = int64_t{1} << 17;
constexpr int64_t kMaxDevices = 4;
// Windowed ops do (output elements x window elements) work: bounded too.
constexpr int64_t kMaxWindowWork = int64_t{1} << 24;
// A fuzzed loop may never end; the budget ends it with a status.
constexpr int64_t kMaxWhileTrips = 4096;

// Product of `dims` (bounds for dynamic dims), or -1 past `limit` or for an
// unbounded dim; never overflows.
int64_t BoundedProduct(absl::Span<const int64_t> dims, int64_t limit) {
  int64_t n = 1;
  for (int64_t d : dims) {
    if (d < 0) return -1;
    if (d != 0 && n > limit / d) return -1;
    n *= d;
  }
  return n;
}

// Adds the elements of `shape` (physical, with tile padding) to *total;
// false when an array or the total is over its bound.
bool CountShape(const hlo::Shape& shape, int64_t* total) {
  if (shape.IsTuple()) {
    for (const hlo::Shape& e : shape.tuple_shapes())
      if (!CountShape(e, total)) return false;
    return true;
  }
  if (!shape.IsArray()) return true;
  const int64_t logical = BoundedProduct(shape.dims(), kMaxArrayElements);
  if (logical < 0) return false;
  // Tiles pad each tiled dimension up to a multiple of the tile: bound the
  // tile sizes before asking for the physical count.
  for (const hlo::Tile& tile : shape.layout().tiles)
    if (BoundedProduct(tile.dims, kMaxArrayElements) < 0) return false;
  const int64_t physical = hlo::PhysicalElementCount(shape);
  if (physical < 0 || physical > kMaxArrayElements) return false;
  *total += physical;
  return *total <= kMaxTotalElements;
}

bool SmallEnough(const hlo::Module& module) {
  const hlo::cpu::DeviceGrid grid = hlo::cpu::DeviceGridOf(module, hlo::cpu::RunOptions());
  if (grid.replicas < 1 || grid.partitions < 1 || grid.replicas > kMaxDevices / grid.partitions)
    return false;
  int64_t total = 0;
  for (const hlo::Computation* c : module.computations()) {
    for (const hlo::Instruction* instr : c->instructions()) {
      if (!CountShape(instr->shape(), &total)) return false;
      if (const auto* w = instr->GetAttr<hlo::Window>("window")) {
        int64_t work = std::max<int64_t>(1, instr->shape().IsArray()
                                                ? instr->shape().ElementCount()
                                                : kMaxArrayElements);
        for (const hlo::WindowDimension& d : w->dimensions) {
          if (d.size < 0 || (d.size != 0 && work > kMaxWindowWork / d.size)) return false;
          work *= std::max<int64_t>(d.size, 1);
        }
      }
    }
  }
  return true;
}

[[noreturn]] void Fail(const char* what, const std::string& detail, const hlo::Module& module) {
  fprintf(stderr, "run_fuzzer: %s\n%s\n--- module ---\n%s\n--- end ---\n", what, detail.c_str(),
          hlo::PrintModule(module).c_str());
  fflush(stderr);
  __builtin_trap();
}

absl::StatusOr<hlo::cpu::RunResult> RunAt(const hlo::Module& module,
                                          const std::vector<hlo::Literal>& args, int threads,
                                          bool fused_execution = true) {
  hlo::cpu::SetThreadPoolWidth(threads);
  hlo::cpu::RunOptions options;
  options.fused_execution = fused_execution;
  options.max_while_trips = kMaxWhileTrips;
  // A recv or collective whose peer never comes must not wait the default
  // minutes (libFuzzer would call it a hang).
  options.collective_timeout_seconds = 2;
  return hlo::cpu::RunModule(module, args, options);
}

void Leaves(const hlo::Literal& l, std::vector<const hlo::Literal*>* out) {
  if (!l.IsTuple()) {
    out->push_back(&l);
    return;
  }
  for (const hlo::Literal& e : l.tuple_elements()) Leaves(e, out);
}

// Empty when every device's result is bit-identical, else which leaf is not.
std::string BitDifference(const hlo::cpu::RunResult& a, const hlo::cpu::RunResult& b) {
  if (a.results.size() != b.results.size()) return "a different number of device results";
  for (size_t d = 0; d < a.results.size(); ++d) {
    std::vector<const hlo::Literal*> x, y;
    Leaves(a.results[d], &x);
    Leaves(b.results[d], &y);
    if (x.size() != y.size()) return absl::StrCat("device ", d, ": a different number of leaves");
    for (size_t i = 0; i < x.size(); ++i) {
      // (memcmp of an empty array's null data would be undefined.)
      if (x[i]->size_bytes() != y[i]->size_bytes() ||
          (x[i]->size_bytes() > 0 &&
           std::memcmp(x[i]->data(), y[i]->data(), x[i]->size_bytes()) != 0))
        return absl::StrCat("device ", d, ": result leaf ", i, " differs");
    }
  }
  return "";
}

// The module of the input when it parses, verifies and is small enough to
// run; null otherwise.
std::unique_ptr<hlo::Module> RunnableModule(const uint8_t* data, size_t size) {
  hlo::ParseOptions parse_options;
  parse_options.filename = "<fuzz>";
  absl::StatusOr<std::unique_ptr<hlo::Module>> module = hlo::ParseModule(
      absl::string_view(reinterpret_cast<const char*>(data), size), parse_options);
  if (!module.ok() || (*module)->entry() == nullptr || !hlo::VerifyModule(**module).ok() ||
      !SmallEnough(**module))
    return nullptr;
  return *std::move(module);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::unique_ptr<hlo::Module> module = RunnableModule(data, size);
  if (module == nullptr) return 0;
  const hlo::Computation* entry = module->entry();

  // hlo-run --random-inputs=0's arguments.
  std::vector<hlo::Literal> args;
  for (int64_t i = 0; i < entry->num_parameters(); ++i)
    args.push_back(hlo::RandomLiteral(entry->parameter(i)->shape(), static_cast<uint64_t>(i)));

  absl::StatusOr<hlo::cpu::RunResult> one = RunAt(*module, args, 1);
  if (one.ok()) {
    absl::StatusOr<hlo::cpu::RunResult> two = RunAt(*module, args, 2);
    if (!two.ok())
      Fail("runs on 1 thread but not on 2", std::string(two.status().message()), *module);
    const std::string diff = BitDifference(*one, *two);
    if (!diff.empty()) Fail("1 and 2 threads give different bits", diff, *module);
  }

  // The -O pipeline must keep a valid module valid; its run may fail with a
  // status but not crash.
  absl::StatusOr<bool> changed = hlo::DefaultPipeline().Run(*module);
  if (!changed.ok()) return 0;
  if (absl::Status v = hlo::VerifyModule(*module); !v.ok())
    Fail("the -O pipeline left a module that does not verify", std::string(v.message()), *module);
  if (!SmallEnough(*module)) return 0;
  absl::StatusOr<hlo::cpu::RunResult> fused = RunAt(*module, args, 2);
  if (!fused.ok()) return 0;
  // Its fusions run as one kernel each (fusion_exec.h, bf16 chains widened
  // to f32: fusion_widen_bf16.h) with the bits of their op-by-op run.
  absl::StatusOr<hlo::cpu::RunResult> op_by_op = RunAt(*module, args, 1, /*fused_execution=*/false);
  if (!op_by_op.ok())
    Fail("the -O module runs fused but not op by op", std::string(op_by_op.status().message()), *module);
  const std::string diff = BitDifference(*fused, *op_by_op);
  if (!diff.empty()) Fail("the -O module's fused and op-by-op runs give different bits", diff, *module);
  return 0;
}
