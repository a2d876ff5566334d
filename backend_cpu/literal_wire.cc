#include "backend_cpu/literal_wire.h"

#include <algorithm>
#include <cstring>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "ir/printer.h"
#include "parser/parser.h"

namespace hlo::cpu {
namespace {

absl::Status Corrupt(absl::string_view what) {
  return absl::DataLossError(absl::StrCat("corrupt message from another process: ", what));
}

// Literal kinds on the wire.
constexpr int64_t kNone = 0, kArray = 1, kTuple = 2;

}  // namespace

void WireWriter::Append(const void* data, size_t n) {
  const size_t at = buffer_.size();
  if (at + n > buffer_.capacity()) buffer_.reserve(std::max(at + n, 2 * buffer_.capacity()));
  buffer_.resize(at + n);
  if (n > 0) std::memcpy(buffer_.data() + at, data, n);
}

void WireWriter::Int(int64_t v) { Append(&v, sizeof(v)); }

void WireWriter::Bytes(absl::string_view bytes) {
  Int(static_cast<int64_t>(bytes.size()));
  Append(bytes.data(), bytes.size());
}

char* WireWriter::Slot(size_t n) {
  Int(static_cast<int64_t>(n));
  const size_t at = buffer_.size();
  buffer_.resize(at + n);
  return buffer_.data() + at;
}

void WireWriter::Put(const Literal& lit) {
  if (!lit.shape().IsValid()) {
    Int(kNone);
    return;
  }
  if (lit.IsTuple()) {
    Int(kTuple);
    Int(static_cast<int64_t>(lit.tuple_elements().size()));
    for (const Literal& e : lit.tuple_elements()) Put(e);
    return;
  }
  Int(kArray);
  Bytes(ShapeToString(lit.shape(), /*print_layout=*/true));
  Bytes(absl::string_view(reinterpret_cast<const char*>(lit.data()), lit.size_bytes()));
}

absl::StatusOr<int64_t> WireReader::Int() {
  int64_t v;
  if (rest_.size() < sizeof(v)) return Corrupt("truncated");
  std::memcpy(&v, rest_.data(), sizeof(v));
  rest_.remove_prefix(sizeof(v));
  return v;
}

absl::StatusOr<std::string> WireReader::Bytes() {
  absl::StatusOr<absl::string_view> view = View();
  if (!view.ok()) return view.status();
  return std::string(*view);
}

absl::StatusOr<absl::string_view> WireReader::View() {
  absl::StatusOr<int64_t> n = Int();
  if (!n.ok()) return n.status();
  if (*n < 0 || static_cast<uint64_t>(*n) > rest_.size()) return Corrupt("bad length");
  absl::string_view out = rest_.substr(0, static_cast<size_t>(*n));
  rest_.remove_prefix(static_cast<size_t>(*n));
  return out;
}

absl::StatusOr<Literal> WireReader::Get() {
  absl::StatusOr<int64_t> kind = Int();
  if (!kind.ok()) return kind.status();
  if (*kind == kNone) return Literal();
  if (*kind == kTuple) {
    absl::StatusOr<int64_t> n = Int();
    if (!n.ok()) return n.status();
    if (*n < 0 || static_cast<uint64_t>(*n) > rest_.size()) return Corrupt("bad tuple size");
    std::vector<Literal> elements;
    for (int64_t i = 0; i < *n; ++i) {
      absl::StatusOr<Literal> e = Get();
      if (!e.ok()) return e.status();
      elements.push_back(*std::move(e));
    }
    return Literal::MakeTuple(std::move(elements));
  }
  if (*kind != kArray) return Corrupt("unknown literal kind");
  absl::StatusOr<std::string> shape_text = Bytes();
  if (!shape_text.ok()) return shape_text.status();
  absl::StatusOr<Shape> shape = ParseShape(*shape_text);
  if (!shape.ok()) return Corrupt(absl::StrCat("bad shape '", *shape_text, "'"));
  absl::StatusOr<int64_t> n = Int();
  if (!n.ok()) return n.status();
  Literal lit = Literal::Uninitialized(*shape);
  if (*n < 0 || static_cast<uint64_t>(*n) > rest_.size() ||
      static_cast<size_t>(*n) != lit.size_bytes())
    return Corrupt(absl::StrCat("size of ", *shape_text, " differs"));
  if (*n > 0) std::memcpy(lit.data(), rest_.data(), static_cast<size_t>(*n));
  rest_.remove_prefix(static_cast<size_t>(*n));
  return lit;
}

}  // namespace hlo::cpu
