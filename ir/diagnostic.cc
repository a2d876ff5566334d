#include "ir/diagnostic.h"

#include "absl/strings/str_cat.h"

namespace hlo {

std::string FormatDiagnostic(absl::string_view file, absl::string_view source, SourceLoc loc,
                             absl::string_view message) {
  if (loc.line <= 0) return absl::StrCat(file, ": error: ", message);
  std::string out = absl::StrCat(file, ":", loc.line, ":", loc.col, ": error: ", message);
  // Find the line.
  size_t start = 0;
  for (int l = 1; l < loc.line && start != absl::string_view::npos; ++l) {
    start = source.find('\n', start);
    if (start != absl::string_view::npos) ++start;
  }
  if (start == absl::string_view::npos || start > source.size()) return out;
  size_t end = source.find('\n', start);
  absl::string_view line = source.substr(start, end == absl::string_view::npos ? absl::string_view::npos : end - start);
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  absl::StrAppend(&out, "\n", line, "\n");
  // Caret under the column; tabs kept so the caret lines up.
  for (int i = 1; i < loc.col && static_cast<size_t>(i - 1) < line.size(); ++i)
    out.push_back(line[i - 1] == '\t' ? '\t' : ' ');
  out.push_back('^');
  return out;
}

}  // namespace hlo
