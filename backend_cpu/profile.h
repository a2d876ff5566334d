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
  double seconds = 0;       // exclusive: time in called computations excluded
  double bytes_read = 0;    // operand bytes, summed over executions
  double bytes_written = 0; // result bytes, summed over executions
  double flops = 0;         // ir/cost_model.h, summed over executions
  double transcendentals = 0;
  double bound_seconds = 0; // summed lower bound (0 for views and control flow)
  OpCost cost;              // of one execution (ir/cost_model.h)
};

// Rates the bounds are computed with.
struct MachineRates {
  double bytes_per_second = 0;  // memory bandwidth (copy: read + write bytes)
  double flops_per_second = 0;  // f32 GEMM rate
  std::string source;           // "measured", "cached (FILE)", "given"
};

// Collects the profile of device 0. Not thread-safe: only device 0's own
// thread records (instructions run inside other ops' pool threads, e.g.
// reducers, are part of their op's time).
class Profiler {
 public:
  explicit Profiler(MachineRates rates) : rates_(rates) {}
  void Record(const Instruction& instr, double seconds, int64_t bytes_read,
              int64_t bytes_written);
  // One whole run of the module (wall time), for the share of each row and
  // the time outside any instruction.
  void AddRun(double seconds) {
    run_seconds_ += seconds;
    ++runs_;
  }

  int64_t runs() const { return runs_; }
  double run_seconds() const { return run_seconds_; }
  const MachineRates& rates() const { return rates_; }
  // Rows sorted by time, most expensive first.
  std::vector<InstructionProfile> SortedRows() const;

 private:
  MachineRates rates_;
  absl::flat_hash_map<const Instruction*, InstructionProfile> rows_;
  double run_seconds_ = 0;
  int64_t runs_ = 0;
};

// A lower bound of zero: values passed by reference in a compiled plan
// (parameters, constants, tuples, get-tuple-element, bitcasts) and control
// flow, whose bodies are profiled instruction by instruction.
bool IsViewOrControl(Opcode op);

// The top `limit` rows (0 = all) as a table, times per run.
std::string FormatProfile(const Profiler& profiler, int64_t limit);
// The whole profile as JSON (schema in docs/hlo-run.md).
std::string ProfileJson(const Profiler& profiler);

}  // namespace hlo::cpu
