#include "analysis/json.h"

#include <cmath>
#include <cstdio>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace hlo::json {

std::string Quote(absl::string_view text) {
  std::string out = "\"";
  for (char ch : text) {
    const unsigned char c = static_cast<unsigned char>(ch);
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      case '\r': out += "\\r"; break;
      default:
        if (c < 0x20) {
          absl::StrAppendFormat(&out, "\\u%04x", c);
        } else {
          out.push_back(ch);
        }
    }
  }
  out.push_back('"');
  return out;
}

std::string Number(double value) {
  if (!std::isfinite(value)) return "null";
  if (value == std::floor(value) && std::fabs(value) < 9.0e15) {
    return absl::StrFormat("%.0f", value);
  }
  return absl::StrFormat("%.17g", value);
}

void Writer::BeforeValue() {
  if (after_key_) {
    after_key_ = false;
    return;
  }
  if (!has_member_.empty()) {
    if (has_member_.back()) out_ += ",";
    has_member_.back() = true;
  }
}

Writer& Writer::Open(char bracket) {
  BeforeValue();
  out_.push_back(bracket);
  has_member_.push_back(false);
  return *this;
}

Writer& Writer::Close(char bracket) {
  out_.push_back(bracket);
  if (!has_member_.empty()) has_member_.pop_back();
  return *this;
}

Writer& Writer::Key(absl::string_view key) {
  BeforeValue();
  out_ += Quote(key);
  out_ += ":";
  after_key_ = true;
  return *this;
}

Writer& Writer::String(absl::string_view value) {
  BeforeValue();
  out_ += Quote(value);
  return *this;
}

Writer& Writer::Num(double value) {
  BeforeValue();
  out_ += Number(value);
  return *this;
}

Writer& Writer::Bool(bool value) {
  BeforeValue();
  out_ += value ? "true" : "false";
  return *this;
}

Writer& Writer::Null() {
  BeforeValue();
  out_ += "null";
  return *this;
}

Writer& Writer::Raw(absl::string_view json) {
  BeforeValue();
  out_ += std::string(json);
  return *this;
}

}  // namespace hlo::json
