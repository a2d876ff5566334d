// Buffer donation for hlo-run's repeated runs. A module that lets its
// outputs alias its parameters (input_output_alias, buffer_donor) is run,
// as XLA runs it, with those arguments handed over so that it can update
// them in place (a decode step's KV cache). The caller keeps its inputs for
// the next run: before each run, the donated parameters are copied (outside
// the timed region) and the copies handed over.
#pragma once

#include <cstdint>
#include <vector>

#include "absl/types/span.h"
#include "ir/literal.h"
#include "ir/module.h"

namespace hlo {

class DonatedArguments {
 public:
  DonatedArguments(const Module& module, absl::Span<const Literal> args);
  // Fresh copies of the donated arguments, as RunOptions::donated_args
  // (empty when the module donates nothing).
  std::vector<Literal*> Prepare();
  const std::vector<int64_t>& parameters() const { return parameters_; }

 private:
  absl::Span<const Literal> args_;
  std::vector<int64_t> parameters_;  // donated parameter numbers
  std::vector<Literal> copies_;
};

}  // namespace hlo
