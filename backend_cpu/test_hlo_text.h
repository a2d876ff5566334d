// HLO text builders shared by the backend's tests.
#pragma once

#include <cctype>
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

// Literal texts of rank-1 arrays written without a layout get the default
// one spelled out ("s32[3] {1, 2}" -> "s32[3]{0} {1, 2}"), everywhere in
// `text` (tuples too): literal text would read the value braces as a layout.
inline std::string WithRank1Layouts(const std::string& text) {
  std::string out;
  size_t i = 0;
  while (i < text.size()) {
    size_t word_end = i;
    while (word_end < text.size() && std::isalnum(static_cast<unsigned char>(text[word_end]))) ++word_end;
    if (word_end > i && word_end < text.size() && text[word_end] == '[') {
      size_t j = word_end + 1;
      while (j < text.size() && std::isdigit(static_cast<unsigned char>(text[j]))) ++j;
      if (j > word_end + 1 && text.compare(j, 3, "] {") == 0) {
        out.append(text, i, j + 1 - i);  // the type and "[n]"
        out.append("{0}");
        i = j + 1;
        continue;
      }
    }
    if (word_end > i) {
      out.append(text, i, word_end - i);
      i = word_end;
    } else {
      out.push_back(text[i++]);
    }
  }
  return out;
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
