// Per-instruction execution profile of hlo-run --profile (the model of XLA's
// HLO profile): time spent in each instruction of device 0, bytes read and
// written, operation counts, and each instruction's lower bound on this
// machine (max of bytes / memory bandwidth and flops / GEMM rate), so a
// user sees how far every op and the whole module are from the limit.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "ir/cost_model.h"
#include "ir/instruction.h"

namespace hlo::cpu {

struct InstructionProfile {
  const Instruction* instr = nullptr;
  int64_t count = 0;        // executions (more than runs inside loops)
  double seconds = 0;       // exclusive: time in called computations excluded,
                            // and time waiting for other devices (below)
  double wait_seconds = 0;  // blocked until peers arrived (collectives, recv-done)
  double bytes_read = 0;    // operand bytes, summed over executions
  double bytes_written = 0; // result bytes, summed over executions
  double flops = 0;         // ir/cost_model.h, summed over executions
  double transcendentals = 0;
  double bound_seconds = 0; // summed lower bound (0 for views and control flow),
                            // scaled by DeviceSharing::BoundScale()
  OpCost cost;              // of one execution (ir/cost_model.h)
};

// Rates the bounds are computed with.
struct MachineRates {
  double bytes_per_second = 0;  // memory bandwidth (copy: read + write bytes)
  double flops_per_second = 0;  // f32 GEMM rate
  std::string source;           // "measured", "cached (FILE)", "given"
  // Threads running at once the rates were measured with (all of them
  // together); 0 for given rates, which stand for the thread pool's width.
  int threads = 0;
};

// How the devices of a run share the machine: each device is a thread of
// its own, all running at once on `cores` cores, each also using the
// thread pool (`pool_threads` wide, the width the rates were measured at).
struct DeviceSharing {
  int64_t devices = 1;   // devices of this process
  int pool_threads = 1;
  int cores = 1;         // usable by this process
  // The factor of device 0's bounds at rates measured with `rate_threads`
  // threads at once (0: the pool width): while all devices run, the
  // devices * pool_threads threads share W = min(devices * pool_threads,
  // cores) cores, and device 0 gets 1 / devices of what W threads reach.
  // Rates measured at W give `devices`; rates of fewer threads are taken
  // to scale linearly up to W: devices * min(rate_threads, cores) / W
  // (at least 1; 1 for one device).
  double BoundScale(int rate_threads) const;
  // The W above: the threads whose rates bound a run of these devices.
  int SharedThreads() const;
};
// This process's sharing for `devices` devices: ThreadPoolWidth() and the
// cores the process may run on (its CPU affinity).
DeviceSharing SharingOf(int64_t devices);

// Collects the profile of device 0. Not thread-safe: only device 0's own
// thread records (instructions run inside other ops' pool threads, e.g.
// reducers, are part of their op's time).
class Profiler {
 public:
  explicit Profiler(MachineRates rates) : rates_(rates) {}
  // Set by the executor before a run's devices start.
  void SetSharing(const DeviceSharing& sharing) { sharing_ = sharing; }
  const DeviceSharing& sharing() const { return sharing_; }
  // `seconds` excludes `wait_seconds`, the time the instruction was blocked
  // waiting for other devices.
  void Record(const Instruction& instr, double seconds, int64_t bytes_read,
              int64_t bytes_written, double wait_seconds = 0);
  // One whole run of the module (wall time), for the share of each row and
  // the time outside any instruction.
  void AddRun(double seconds) {
    run_seconds_ += seconds;
    ++runs_;
  }

  int64_t runs() const { return runs_; }
  double run_seconds() const { return run_seconds_; }
  const MachineRates& rates() const { return rates_; }
  // The scale of every bound (DeviceSharing::BoundScale at these rates).
  double BoundScale() const { return sharing_.BoundScale(rates_.threads); }
  // Rows sorted by time, most expensive first.
  std::vector<InstructionProfile> SortedRows() const;

 private:
  MachineRates rates_;
  DeviceSharing sharing_;
  absl::flat_hash_map<const Instruction*, InstructionProfile> rows_;
  double run_seconds_ = 0;
  int64_t runs_ = 0;
};

// A lower bound of zero: values passed by reference in a compiled plan
// (parameters, constants, tuples, get-tuple-element, bitcasts) and control
// flow (incl. async-start/-update/-done), whose bodies are profiled
// instruction by instruction.
bool IsViewOrControl(Opcode op);

// The top `limit` rows (0 = all) as a table, times per run.
std::string FormatProfile(const Profiler& profiler, int64_t limit);
// The whole profile as JSON (schema in docs/hlo-run.md).
std::string ProfileJson(const Profiler& profiler);

}  // namespace hlo::cpu
