// The two predicates of hlo-bisect (analysis/bisect.h).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "analysis/bisect.h"
#include "ir/literal.h"
#include "ir/module.h"

namespace hlo {

// Runs `script CANDIDATE.hlo` (the candidate written to a temporary file);
// its exit status judges it, as git bisect run's: 0 good, 1-127 bad except
// 125, which (like a signal or a failure to start) stops the bisection
// with an error. The script's stdout and stderr go to hlo-bisect's stderr.
BisectPredicate ScriptPredicate(std::string script);

// The built-in predicate: the candidate's results on deterministic random
// inputs (hlo-run --random-inputs=SEED's values) differ from the input
// module's, run unoptimized, by more than the bounds (hlo-run's
// --reference-platform rule). A candidate that fails to run is bad.
class OutputDiffers {
 public:
  static absl::StatusOr<std::unique_ptr<OutputDiffers>> Create(const Module& input, uint64_t seed,
                                                               double abs_bound, double rel_bound);
  BisectPredicate predicate();
  // The results of a module text on the same inputs, printed (or its
  // error), and how they compare with the reference.
  std::string Describe(const std::string& module_text) const;

 private:
  absl::StatusOr<Literal> Result(const Module& m) const;
  std::vector<Literal> args_;
  Literal reference_;
  double abs_bound_ = 0, rel_bound_ = 0;
};

}  // namespace hlo
