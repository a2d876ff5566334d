// hlo-opt --extract: a standalone module around one instruction, for
// debugging it alone (XLA's hlo_extractor / `hlo-extractor`). Kept: the
// instruction, its operands up to `height` levels up and its users up to
// `depth` levels down, with every computation they call (deep-copied).
// Every other value a kept instruction reads becomes a parameter of the
// new entry (a constant is copied instead, a token comes from after-all);
// the root is the kept instruction no kept instruction uses, or a tuple of
// all such. The result is verified before it is returned.
#pragma once

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "ir/module.h"

namespace hlo {

struct ExtractOptions {
  std::string instruction;  // its name
  int height = -1;          // operand levels kept; -1 = all
  int depth = 0;            // user levels kept
};

// NotFound for an unknown name; Internal (with the verifier's message) if
// the extracted module does not verify.
absl::StatusOr<std::unique_ptr<Module>> ExtractModule(const Module& module, const ExtractOptions& options);

}  // namespace hlo
