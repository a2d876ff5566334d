// A minimal JSON writer for the tools' machine-readable outputs
// (hlo-opt --json, --cost-json): objects and arrays are built as text with
// correct separators, strings escaped, numbers printed exactly (integral
// values without a fraction). Not a general JSON library: write only.
#pragma once

#include <string>
#include <vector>

#include "absl/strings/string_view.h"

namespace hlo::json {

// "text" with JSON escapes (control characters as \u00XX).
std::string Quote(absl::string_view text);
// 12 for 12.0, 0.5 for 0.5, null for NaN/inf (JSON has neither).
std::string Number(double value);

// Writes one value incrementally: Begin/End objects and arrays, Key before
// each member of an object. Separators are inserted automatically.
class Writer {
 public:
  Writer& BeginObject() { return Open('{'); }
  Writer& EndObject() { return Close('}'); }
  Writer& BeginArray() { return Open('['); }
  Writer& EndArray() { return Close(']'); }
  Writer& Key(absl::string_view key);
  Writer& String(absl::string_view value);
  Writer& Num(double value);
  Writer& Bool(bool value);
  Writer& Null();
  // Inserts an already serialized JSON value.
  Writer& Raw(absl::string_view json);

  // The text so far (complete once every Begin has its End).
  const std::string& str() const { return out_; }

 private:
  void BeforeValue();
  Writer& Open(char bracket);
  Writer& Close(char bracket);
  std::string out_;
  // Per open container: whether it has a member yet.
  std::vector<bool> has_member_;
  bool after_key_ = false;
};

}  // namespace hlo::json
