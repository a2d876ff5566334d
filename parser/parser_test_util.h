// Shared by the parser tests: the message of a parse that must fail, with
// locations reported against the file name "t.hlo".
#pragma once

#include <string>

#include "absl/strings/string_view.h"
#include "gtest/gtest.h"
#include "parser/parser.h"

namespace hlo {

inline std::string ParseError(absl::string_view text) {
  ParseOptions o;
  o.filename = "t.hlo";
  auto m = ParseModule(text, o);
  EXPECT_FALSE(m.ok()) << "unexpectedly parsed:\n" << text;
  return m.ok() ? "" : std::string(m.status().message());
}

}  // namespace hlo
