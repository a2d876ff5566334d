#include "backend_cpu/ffi_attributes.h"

#include <cctype>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"

namespace hlo::cpu {
namespace {

// Splits `s` at the `sep` characters that are outside brackets and quoted
// strings (values may be arrays, nested dictionaries or dense<...>).
std::vector<absl::string_view> SplitTopLevel(absl::string_view s, char sep) {
  std::vector<absl::string_view> parts;
  int depth = 0;
  bool quoted = false;
  size_t start = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    if (quoted) {
      if (c == '\\') ++i;
      else if (c == '"') quoted = false;
      continue;
    }
    if (c == '"') quoted = true;
    else if (c == '[' || c == '{' || c == '(' || c == '<') ++depth;
    else if (c == ']' || c == '}' || c == ')' || c == '>') --depth;
    else if (c == sep && depth == 0) {
      parts.push_back(s.substr(start, i - start));
      start = i + 1;
    }
  }
  parts.push_back(s.substr(start));
  return parts;
}

}  // namespace

absl::StatusOr<FfiAttributes> ParseFfiAttributes(absl::string_view dict) {
  absl::string_view body = absl::StripAsciiWhitespace(dict);
  if (body.size() < 2 || body.front() != '{' || body.back() != '}')
    return absl::InvalidArgumentError(absl::StrCat("not an attribute dictionary: ", dict));
  body = absl::StripAsciiWhitespace(body.substr(1, body.size() - 2));
  FfiAttributes out;
  if (body.empty()) return out;
  for (absl::string_view entry : SplitTopLevel(body, ',')) {
    std::vector<absl::string_view> kv = SplitTopLevel(entry, '=');
    absl::string_view name = absl::StripAsciiWhitespace(kv[0]);
    // `name` alone is a unit attribute; `a = b = c` cannot occur.
    if (kv.size() > 2 || name.empty())
      return absl::InvalidArgumentError(absl::StrCat("bad attribute entry '", entry, "' in ", dict));
    FfiAttribute attr;
    if (kv.size() == 2) {
      std::vector<absl::string_view> vt = SplitTopLevel(kv[1], ':');
      attr.value = std::string(absl::StripAsciiWhitespace(vt[0]));
      if (vt.size() == 2) attr.type = std::string(absl::StripAsciiWhitespace(vt[1]));
      if (vt.size() > 2 || attr.value.empty())
        return absl::InvalidArgumentError(absl::StrCat("bad attribute value '", kv[1], "' in ", dict));
    }
    out[std::string(name)] = std::move(attr);
  }
  return out;
}

absl::StatusOr<FfiAttributes> InstructionFfiAttributes(const Instruction& instr) {
  const StringOrDict* bc = instr.GetAttr<StringOrDict>("backend_config");
  if (bc == nullptr || (!bc->is_dict && absl::StripAsciiWhitespace(bc->text).empty()))
    return FfiAttributes();
  return ParseFfiAttributes(bc->text);
}

absl::StatusOr<int64_t> FfiIntAttribute(const FfiAttribute& attr, absl::string_view name) {
  int64_t v = 0;
  if (!absl::SimpleAtoi(attr.value, &v))
    return absl::InvalidArgumentError(
        absl::StrCat("attribute ", name, " = ", attr.value, " is not an integer"));
  return v;
}

}  // namespace hlo::cpu
