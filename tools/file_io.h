// File input/output shared by the tools: whole-file reads (path or '-'
// for stdin) and all-or-nothing writes (temporary file + rename), so a
// failed run never leaves a half-written output behind.
#pragma once

#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"

namespace hlo {

// Reads a whole file; "-" reads stdin. Errors name the file.
absl::StatusOr<std::string> ReadInput(const std::string& path);

// Writes `data` to stdout ("-"), a special file (in place, e.g. /dev/null),
// or a regular file atomically (through the link if `path` is a symlink).
absl::Status WriteOutput(const std::string& path, absl::string_view data);

// The same for a file made of `pieces` written one after another (e.g. a
// header and a large buffer that is not copied into one string first).
absl::Status WriteOutput(const std::string& path, absl::Span<const absl::string_view> pieces);

}  // namespace hlo
