// hlo-bisect: which pass of a pipeline (by default hlo-opt -O's) makes a
// module "bad", as judged by a predicate (a script, or the built-in "the
// optimized result differs from the unoptimized one"; bisect_predicates.h).
//
// Two levels, as one bisects by hand with --disable-passes: first the pass
// (the shortest prefix of the pipeline's passes, in order of first
// appearance, whose enabling makes the result bad: the others are
// disabled), then the application (with that prefix enabled, the module
// after each pass run that changed it is a candidate; the first bad one).
// Both searches are binary and assume that once bad, later candidates stay
// bad; the answer is checked on both sides (good before, bad after).
// docs/hlo-bisect.md.
#pragma once

#include <functional>
#include <ostream>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "ir/module.h"
#include "passes/pipeline.h"

namespace hlo {

// True if `candidate` (a verified module; `text` is its printed form) is
// bad. An error stops the bisection.
using BisectPredicate = std::function<absl::StatusOr<bool>(const Module& candidate, const std::string& text)>;

struct BisectResult {
  std::string pass;  // the first pass whose enabling makes the result bad
  std::vector<std::string> enabled_passes;  // the prefix that was enabled
  // The first bad application with that prefix: its pass, its 1-based
  // position among all pass runs, and which run of that pass it was.
  std::string application_pass;
  int application_index = 0;
  int application_occurrence = 0;
  int total_applications = 0;
  std::string before_text;  // the module before that application (good)
  std::string after_text;   // and after it (bad)
  int predicate_runs = 0;
};

// `log` (if set) gets one line per predicate run.
absl::StatusOr<BisectResult> Bisect(const Module& input, const Pipeline& pipeline,
                                    const BisectPredicate& is_bad, std::ostream* log);

// The lines of `before` not in `after` ("- ") and of `after` not in
// `before` ("+ "), in order, at most `max_lines` of them: what an
// application changed, printed by hlo-bisect.
std::string ChangedLines(const std::string& before, const std::string& after, int max_lines);

}  // namespace hlo
