// Shared by the verifier tests: parse a module and verify it. Parse errors
// come back prefixed "PARSE: " so a test can tell them from verify errors.
#pragma once

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "ir/verifier.h"
#include "parser/parser.h"

namespace hlo {

inline absl::Status ParseAndVerify(absl::string_view text) {
  ParseOptions opts;
  opts.filename = "test.hlo";
  auto m = ParseModule(text, opts);
  if (!m.ok()) return absl::Status(m.status().code(), absl::StrCat("PARSE: ", m.status().message()));
  return VerifyModule(**m);
}

}  // namespace hlo
