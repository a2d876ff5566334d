// The pass interface. A pass rewrites a module in place and says whether it
// changed anything; errors are statuses (a failing pass never aborts).
// Passes are listed by name in registry.cc (one line each: name, one-line
// description, factory) and combined into pipelines in pipeline.h.
#pragma once

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "ir/module.h"

namespace hlo {

class Pass {
 public:
  virtual ~Pass() = default;
  // The registry name (XLA's where the pass does the same job, e.g. "dce").
  virtual absl::string_view name() const = 0;
  // Rewrites `module`; true if anything changed. The module must verify
  // before and after (hlo-opt --verify-each checks it).
  virtual absl::StatusOr<bool> Run(Module& module) = 0;
};

}  // namespace hlo
