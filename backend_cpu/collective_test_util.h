// Helpers of the collective tests (collective_test.cc,
// ragged_all_to_all_test.cc): run a module on every device of a
// multi-replica / multi-partition run and compare each device's result.
#pragma once

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "backend_cpu/executor.h"
#include "gtest/gtest.h"
#include "ir/printer.h"
#include "parser/parser.h"

namespace hlo::cpu {

inline RunOptions Devices(int64_t replicas, int64_t partitions = 1) {
  RunOptions o;
  o.replica_count = replicas;
  o.partition_count = partitions;
  return o;
}

inline absl::StatusOr<RunResult> RunAll(const std::string& hlo,
                                        const std::vector<std::string>& args,
                                        const RunOptions& options) {
  return RunHloTextOnAllDevices(hlo, args, options);
}

inline void ExpectLiteral(const Literal& got, const std::string& expected,
                          const std::string& where) {
  absl::StatusOr<Literal> want = ParseLiteral(expected);
  ASSERT_TRUE(want.ok()) << want.status() << " parsing " << expected;
  EXPECT_TRUE(got.LogicallyEqual(*want)) << where << "\ngot:  " << LiteralToString(got)
                                         << "\nwant: " << LiteralToString(*want);
}

// Runs `hlo` and checks the result of every device (replica-major order).
inline void ExpectDevices(const std::string& hlo, const std::vector<std::string>& args,
                          const RunOptions& options, const std::vector<std::string>& expected) {
  absl::StatusOr<RunResult> run = RunAll(hlo, args, options);
  ASSERT_TRUE(run.ok()) << run.status();
  ASSERT_EQ(run->results.size(), expected.size());
  for (size_t d = 0; d < expected.size(); ++d)
    ExpectLiteral(run->results[d], expected[d], absl::StrCat("device ", d));
}

}  // namespace hlo::cpu
