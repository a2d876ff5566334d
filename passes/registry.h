// The pass registry: one table of {name, one-line description, factory}
// (registry.cc). hlo-opt --passes / --list-passes and pipelines read it.
#pragma once

#include <memory>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "passes/pass.h"

namespace hlo {

struct PassInfo {
  absl::string_view name;
  absl::string_view description;  // one line
  std::unique_ptr<Pass> (*factory)();
};

// nullptr if no pass of that name is registered.
const PassInfo* FindPass(absl::string_view name);
// Every registered pass, sorted by name.
std::vector<const PassInfo*> AllPasses();
// A new instance of a registered pass; NotFound ("unknown pass 'x'") otherwise.
absl::StatusOr<std::unique_ptr<Pass>> CreatePass(absl::string_view name);

}  // namespace hlo
