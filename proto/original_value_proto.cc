#include "proto/original_value_proto.h"

#include <map>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace hlo::proto {
namespace {

// Tuple nesting in the text is bounded like shapes are (a corrupt proto or
// text must not exhaust the stack).
constexpr int kMaxDepth = 64;

// A recursive-descent reader over the attribute text.
class Reader {
 public:
  explicit Reader(absl::string_view s) : s_(s) {}

  bool Value(std::vector<int64_t>* index, int depth, xla::OriginalValueProto* out) {
    if (depth > kMaxDepth) return false;
    Skip();
    if (Eat('(')) {
      Skip();
      if (Eat(')')) return true;
      for (int64_t i = 0;; ++i) {
        index->push_back(i);
        if (!Value(index, depth + 1, out)) return false;
        index->pop_back();
        Skip();
        if (Eat(')')) return true;
        if (!Eat(',')) return false;
      }
    }
    if (!Eat('{')) return false;
    Skip();
    if (Eat('}')) return true;  // a leaf without an origin
    std::string name;
    if (!String(&name)) return false;
    auto* e = out->add_elements();
    for (int64_t i : *index) e->add_shape_index(i);
    e->mutable_original_array()->set_instruction_name(name);
    Skip();
    if (Peek('{')) {
      std::vector<int64_t> si;
      if (!IntList(&si)) return false;
      for (int64_t i : si) e->mutable_original_array()->add_shape_index(i);
      Skip();
    }
    return Eat('}');
  }

  bool AtEnd() {
    Skip();
    return pos_ == s_.size();
  }
  bool Eat(char c) {
    if (!Peek(c)) return false;
    ++pos_;
    return true;
  }
  bool Word(absl::string_view w) {
    Skip();
    if (s_.substr(pos_, w.size()) != w) return false;
    pos_ += w.size();
    return true;
  }

 private:
  bool Peek(char c) const { return pos_ < s_.size() && s_[pos_] == c; }
  void Skip() {
    while (pos_ < s_.size() && absl::ascii_isspace(static_cast<unsigned char>(s_[pos_]))) ++pos_;
  }
  bool String(std::string* out) {
    if (!Eat('"')) return false;
    const size_t start = pos_;
    while (pos_ < s_.size() && s_[pos_] != '"') pos_ += s_[pos_] == '\\' ? 2 : 1;
    if (pos_ >= s_.size()) return false;
    const absl::string_view body = s_.substr(start, pos_ - start);
    ++pos_;
    return absl::CUnescape(body, out);
  }
  bool IntList(std::vector<int64_t>* out) {
    if (!Eat('{')) return false;
    Skip();
    if (Eat('}')) return true;
    while (true) {
      Skip();
      size_t end = pos_;
      while (end < s_.size() && absl::ascii_isdigit(static_cast<unsigned char>(s_[end]))) ++end;
      int64_t v = 0;
      if (end == pos_ || !absl::SimpleAtoi(s_.substr(pos_, end - pos_), &v)) return false;
      out->push_back(v);
      pos_ = end;
      Skip();
      if (Eat('}')) return true;
      if (!Eat(',')) return false;
    }
  }

  absl::string_view s_;
  size_t pos_ = 0;
};

using Elements = std::map<std::vector<int64_t>, const xla::OriginalArrayProto*>;

void Print(const xla::ShapeProto& shape, std::vector<int64_t>* index, Elements* elements, std::string* out) {
  if (shape.element_type() == xla::TUPLE) {
    out->push_back('(');
    for (int i = 0; i < shape.tuple_shapes_size(); ++i) {
      if (i > 0) out->append(", ");
      index->push_back(i);
      Print(shape.tuple_shapes(i), index, elements, out);
      index->pop_back();
    }
    out->push_back(')');
    return;
  }
  auto it = elements->find(*index);
  if (it == elements->end()) {
    out->append("{}");
    return;
  }
  absl::StrAppend(out, "{\"", absl::CEscape(it->second->instruction_name()), "\"");
  if (it->second->shape_index_size() > 0) absl::StrAppend(out, " {", absl::StrJoin(it->second->shape_index(), ","), "}");
  out->push_back('}');
  elements->erase(it);
}

}  // namespace

bool OriginalValueToProto(absl::string_view text, xla::OriginalValueProto* out) {
  out->Clear();
  Reader r(text);
  if (!r.Eat('{')) return false;
  if (r.Word("[synthetic_call]")) {
    out->set_is_synthetic_call(true);
  } else {
    std::vector<int64_t> index;
    if (!r.Value(&index, 0, out)) return false;
  }
  return r.Eat('}') && r.AtEnd();
}

absl::StatusOr<std::string> OriginalValueText(const xla::OriginalValueProto& p, const xla::ShapeProto& shape) {
  if (p.is_synthetic_call()) return std::string("{[synthetic_call]}");
  Elements elements;
  for (const auto& e : p.elements()) {
    std::vector<int64_t> index(e.shape_index().begin(), e.shape_index().end());
    if (!elements.emplace(index, &e.original_array()).second)
      return absl::InvalidArgumentError(
          absl::StrCat("original_value: shape index {", absl::StrJoin(index, ","), "} is given twice"));
  }
  std::string out = "{";
  std::vector<int64_t> index;
  Print(shape, &index, &elements, &out);
  out.push_back('}');
  if (!elements.empty())
    return absl::InvalidArgumentError(absl::StrCat("original_value: shape index {",
                                                   absl::StrJoin(elements.begin()->first, ","),
                                                   "} is not a leaf of the instruction's shape"));
  return out;
}

}  // namespace hlo::proto
