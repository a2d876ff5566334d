// Clang-style diagnostics: `file:line:col: error: message`, then the source
// line and a caret under the column.
#pragma once

#include <string>

#include "absl/strings/string_view.h"
#include "ir/instruction.h"

namespace hlo {

// Formats one diagnostic. `loc` is 1-based; line 0 means unknown, and then
// only `file: error: message` is produced.
std::string FormatDiagnostic(absl::string_view file, absl::string_view source, SourceLoc loc,
                             absl::string_view message);

}  // namespace hlo
