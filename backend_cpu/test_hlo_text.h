// HLO text builders shared by the backend's tests.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace hlo::cpu {

// The element texts `elems` (row-major) nested in braces by `dims`
// ({{1, 2}, {3, 4}} for dims {2, 2}): literal text accepts a flat {..}
// only for rank 1.
inline std::string NestedBraces(const std::vector<int64_t>& dims, const std::vector<std::string>& elems,
                                size_t d = 0, size_t* pos = nullptr) {
  size_t start = 0;
  if (pos == nullptr) pos = &start;
  if (d == dims.size()) return elems[(*pos)++];
  std::vector<std::string> items;
  for (int64_t i = 0; i < dims[d]; ++i) items.push_back(NestedBraces(dims, elems, d + 1, pos));
  return absl::StrCat("{", absl::StrJoin(items, ", "), "}");
}

// A module with parameters (shape texts) and one root instruction
// `ROOT %r = <out_shape> <op>(%p0, %p1...)<, attrs>`.
inline std::string EntryModuleText(const std::vector<std::string>& params, const std::string& out_shape,
                                   const std::string& op, const std::string& attrs) {
  std::string sig, body, names;
  for (size_t i = 0; i < params.size(); ++i) {
    absl::StrAppend(&sig, i ? ", " : "", "p", i, ": ", params[i]);
    absl::StrAppend(&body, "  %p", i, " = ", params[i], " parameter(", i, ")\n");
    absl::StrAppend(&names, i ? ", " : "", "%p", i);
  }
  return absl::StrCat("HloModule m\n\nENTRY %main (", sig, ") -> ", out_shape, " {\n", body,
                      "  ROOT %r = ", out_shape, " ", op, "(", names, ")", attrs.empty() ? "" : ", ",
                      attrs, "\n}\n");
}

}  // namespace hlo::cpu
