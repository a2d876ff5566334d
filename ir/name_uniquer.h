// Fresh instruction and computation names (passes, and the backend's
// rewrites such as dynamic_padding.cc).
#pragma once

#include <cstdint>
#include <string>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/string_view.h"
#include "ir/computation.h"
#include "ir/module.h"

namespace hlo {

// Hands out instruction (or computation) names not used yet in a scope:
// `base` itself if free, else `base.1`, `base.2`, ... A base XLA would
// not accept as an instruction name is first sanitized (`pred` -> `pred_`).
class NameUniquer {
 public:
  NameUniquer() = default;
  // The names already taken are collected on first use: most passes build
  // a uniquer per computation and then rewrite nothing.
  explicit NameUniquer(const Computation& comp) : comp_(&comp) {}  // the instruction names of comp
  explicit NameUniquer(const Module& module) : module_(&module) {}  // the computation names of module
  std::string Get(absl::string_view base);
  void Reserve(absl::string_view name) {
    Fill();
    used_.insert(std::string(name));
  }

 private:
  void Fill();
  const Computation* comp_ = nullptr;
  const Module* module_ = nullptr;
  absl::flat_hash_set<std::string> used_;
  absl::flat_hash_map<std::string, int64_t> next_;
};

}  // namespace hlo
