// Random valid HLO modules for differential testing (hlo-gen, the
// gen_diff test). A seed names one module: the same seed and options give
// the same text on every machine. Every module is typed and shape-correct
// by construction and passes the verifier (gen_test checks thousands).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace hlo::gen {

struct GenOptions {
  uint64_t seed = 0;
  // Op groups to draw from (names of OpGroupNames()); empty = all.
  std::vector<std::string> ops;
  // Upper bound on the entry computation's instructions (roughly: a group
  // may add a few helpers, e.g. an index constant, beyond it).
  int max_instructions = 30;
};

// The names --ops accepts, in their fixed order.
std::vector<std::string> OpGroupNames();

// The module's text. Errors only for bad options (unknown group, bound < 1).
absl::StatusOr<std::string> GenerateModule(const GenOptions& options);

}  // namespace hlo::gen
