// Attributes of typed-FFI custom calls (api_version=API_VERSION_TYPED_FFI).
// XLA prints them as backend_config holding an MLIR attribute dictionary,
//   backend_config={mode = 86 : ui8, uplo = 76 : ui8}
// (JAX passes LAPACK's CHARACTER options as their ASCII codes in ui8).
// The parser keeps that dictionary verbatim (StringOrDict); this reads it.
#pragma once

#include <map>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "ir/instruction.h"

namespace hlo::cpu {

// One `name = value : type` entry; `type` is empty when not written
// (`flag = true`). `value` is kept as text (numbers, strings with their
// quotes, nested [...] / {...} / dense<...> verbatim).
struct FfiAttribute {
  std::string value;
  std::string type;
};
using FfiAttributes = std::map<std::string, FfiAttribute>;

// Parses `{a = 1 : i32, b = "x"}` (the braces are required; `{}` is empty).
absl::StatusOr<FfiAttributes> ParseFfiAttributes(absl::string_view dict);

// The attributes of `instr`'s backend_config: empty when it has none or an
// empty string; an error when it is a non-empty string that is not a
// dictionary.
absl::StatusOr<FfiAttributes> InstructionFfiAttributes(const Instruction& instr);

// An integer attribute (the value must be an integer literal).
absl::StatusOr<int64_t> FfiIntAttribute(const FfiAttribute& attr, absl::string_view name);

}  // namespace hlo::cpu
