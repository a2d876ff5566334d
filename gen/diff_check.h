// The differential checks run on generated modules (hlo-gen-diff):
//   roundtrip  print(parse(text)) is a fixed point of print(parse(.))
//   threads    the unoptimized module gives bit-identical results on 1 and 2
//              worker threads
//   opt        the -O pipeline's module gives the same values as the
//              unoptimized one, within tools/literal_compare's tolerance rule
// plus the preconditions: the module parses, verifies and runs.
#pragma once

#include <cstdint>
#include <string>

namespace hlo::gen {

struct DiffResult {
  // "" when every check passed, else the failing check: "parse", "verify",
  // "roundtrip", "run", "threads", "opt".
  std::string failed;
  std::string message;
};

// Runs every check on `text`; arguments are random (tools/run_inputs.h's
// RandomLiteral with seeds input_seed + parameter number).
DiffResult CheckModule(const std::string& text, uint64_t input_seed = 0);

}  // namespace hlo::gen
