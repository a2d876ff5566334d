// hlo-run --json: the machine-readable record of one run (schema in
// docs/hlo-run-json.md, the same envelope as hlo-opt --json): errors,
// parse/verify diagnostics, notes, per-iteration times, the profile, the
// comparison with the reference run and the printed result.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace hlo {

struct RunComparisonEntry {
  std::string reference;  // the --reference-platform name
  bool ok = false;
  int64_t elements = 0;
  int64_t mismatches = 0;
  double abs_error_bound = 0, rel_error_bound = 0;
  std::string message;  // the summary hlo-run prints when they differ
};

struct RunReport {
  std::string input;
  std::vector<std::string> errors;  // `hlo-run: error: ...` messages, without the prefix
  std::string diagnostics;          // parse / verify diagnostics as printed
  std::vector<std::string> notes;
  bool ran = false;                 // the timed runs happened
  int64_t iterations = 0, warmup = 0;
  std::vector<double> seconds;      // one per timed iteration
  std::optional<int64_t> peak_memory_bytes;
  std::optional<int64_t> peak_buffer_bytes;  // ir/buffer_allocator.h's peak over the runs
  std::string profile_json;         // cpu::ProfileJson; empty without profiling
  std::optional<RunComparisonEntry> comparison;
  std::optional<std::string> result;  // what stdout would have shown
};

std::string RunReportToJson(const RunReport& report, int exit_status);

}  // namespace hlo
