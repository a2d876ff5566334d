// Runs a verified module on the CPU: compiles each computation into a plan
// (a schedule of instructions in dependency order, with the last use of
// every value so dead buffers are released and reused), then executes the
// entry computation on argument literals, once per replica/partition (each
// on its own thread when there are several, so collectives can meet).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include <functional>

#include "absl/types/span.h"
#include "ir/literal.h"
#include "ir/module.h"

namespace hlo::cpu {

class Profiler;
class Transport;

struct RunOptions {
  int64_t replica_count = 0;    // 0 = the module header's replica_count (default 1)
  int64_t partition_count = 0;  // 0 = the module header's num_partitions (default 1)
  uint64_t rng_seed = 0;        // seed of rng / rng-get-and-update-state
  // Literals fed to `infeed`, in order (shared by all replicas).
  std::vector<Literal> infeed;
  // When set, an `infeed` that finds the list exhausted reads
  // infeed_fallback(data shape, position in the sequence) instead of failing.
  // Called once per position (under a lock); every device reads the same
  // value at the same position.
  std::function<Literal(const Shape&, int64_t)> infeed_fallback;
  // When set, device 0 records every instruction it runs (backend_cpu/profile.h).
  Profiler* profiler = nullptr;
  // Buffer donation (XLA's, for input_output_alias): empty, or one entry per
  // entry parameter; a non-null entry is that parameter's argument (used
  // instead of args[k]), handed over to a single-device run, which may
  // update it in place (e.g. a KV cache) and leaves it empty. Ignored by
  // multi-device runs, whose devices share the arguments.
  std::vector<Literal*> donated_args;
  // Seconds a device waits for its peers in a collective or a recv-done
  // before the run fails naming who did not arrive (0: kCollectiveTimeoutSeconds).
  double collective_timeout_seconds = 0;
  // Fusions whose computation splits into rows run as one kernel by blocks
  // of rows (fusion_exec.h); false: every fusion runs op by op (same
  // values; for comparisons and debugging).
  bool fused_execution = true;
  // Trips of `while` loops that one device may run in total, over every
  // loop and nesting level (0: no bound). The trip past the budget fails
  // the run with ResourceExhausted naming the loop, so a caller (the
  // backend fuzzer, a service) stops a loop that never ends with a status
  // instead of hanging. A count, not a clock: the same module stops at the
  // same trip on every machine.
  int64_t max_while_trips = 0;
  // When set (hlo-run under mpirun), this process runs only its block of
  // the devices (transport.h) and meets the others through it.
  Transport* transport = nullptr;
};

struct RunResult {
  // One result per device of this process (replica-major: device = replica
  // * partitions + partition), starting at device `first_device` (0 unless
  // the devices are split over processes); with first_device 0,
  // results[0] is what a single-device run returns.
  std::vector<Literal> results;
  int64_t first_device = 0;
  // Literals sent by `outfeed`, in order, per device of this process
  // (outfeeds[i] is device first_device + i's).
  std::vector<std::vector<Literal>> outfeeds;
  // Device 0's outfeed (empty when another process holds device 0).
  const std::vector<Literal>& outfeed() const {
    static const std::vector<Literal> kNone;
    return first_device == 0 && !outfeeds.empty() ? outfeeds[0] : kNone;
  }
  // Highest number of bytes held by live values at once (device 0).
  int64_t peak_bytes = 0;
  // Notes for the user (e.g. elided constants filled), deduplicated.
  std::vector<std::string> notes;
};

// The replicas and partitions of a run: the options', else the module
// header's (at least 1 each).
struct DeviceGrid {
  int64_t replicas = 1;
  int64_t partitions = 1;
};
DeviceGrid DeviceGridOf(const Module& module, const RunOptions& options);
// OK when `processes` divide the grid's devices in equal contiguous blocks
// (transport.h), else an error saying so.
absl::Status CheckDeviceSplit(const DeviceGrid& grid, int processes);

class Program;      // the schedules of the module's computations (executor.cc)
class FusionPlans;  // fusion_exec.h
class DecodedConstants;  // decoded_constants.h

// A module prepared once for running: the schedule of every computation
// (dependency order, last uses) and the block plans of its fusions, reused
// by every run (hlo-run --iterations, a service answering many requests)
// instead of being rebuilt per run. Immutable after construction, so
// several threads may Run it at once. `module` must outlive it unchanged.
// A module with set-dimension-size runs as a copy whose reductions and dots
// ignore the padding past the runtime sizes (dynamic_padding.h).
class Executable {
 public:
  explicit Executable(const Module& module);
  ~Executable();
  Executable(const Executable&) = delete;
  Executable& operator=(const Executable&) = delete;

  // Runs the entry computation as RunModule below does.
  absl::StatusOr<RunResult> Run(absl::Span<const Literal> args,
                                const RunOptions& options = RunOptions()) const;
  // The module that runs: the caller's, or its padded copy.
  const Module& module() const { return module_; }

 private:
  std::unique_ptr<Module> padded_;  // set when the module has set-dimension-size
  const Module& module_;
  std::unique_ptr<Program> program_;
  std::unique_ptr<FusionPlans> fusion_plans_;
  std::unique_ptr<DecodedConstants> decoded_constants_;
};

// Runs the entry computation of `module` with `args` (one literal per entry
// parameter, any layout: relaid to the parameter's layout). Every device
// gets the same arguments.
// Prepares an Executable for this one run; callers that run a module
// several times keep an Executable instead.
absl::StatusOr<RunResult> RunModule(const Module& module, absl::Span<const Literal> args,
                                    const RunOptions& options = RunOptions());

// Convenience for tests: parses `hlo_text`, verifies it, parses each
// argument literal text (e.g. "f32[2] {1, 2}") and runs it on every device.
absl::StatusOr<RunResult> RunHloTextOnAllDevices(absl::string_view hlo_text,
                                                 absl::Span<const std::string> arg_literals,
                                                 const RunOptions& options = RunOptions());
// The same, returning results[0] (device 0).
absl::StatusOr<Literal> RunHloText(absl::string_view hlo_text,
                                   absl::Span<const std::string> arg_literals,
                                   const RunOptions& options = RunOptions());

}  // namespace hlo::cpu
