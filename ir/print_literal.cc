// Literal values (spec §7): one-line nested braces, shortest round-trip
// floats, nan/inf with sign and payload, pred 0/1 in arrays, complex pairs,
// tuples, `{...}` for elided literals.
#include <algorithm>
#include <charconv>
#include <cmath>
#include <complex>
#include <cstring>

#include "absl/functional/function_ref.h"
#include "absl/strings/str_cat.h"
#include "ir/float_format.h"
#include "ir/layout_index.h"
#include "ir/printer_internal.h"

namespace hlo {
namespace print_internal {
namespace {

constexpr size_t kBuf = 64;

// Appends `v` formatted like printf("%.<precision>g").
template <typename T>
char* FormatG(char* buf, T v, int precision) {
  return std::to_chars(buf, buf + kBuf, v, std::chars_format::general, precision).ptr;
}

// Integral values below 10^precision print under %.<precision>g as their
// integer form: the common case of constants, done without to_chars.
template <typename T>
bool AppendSmallIntegral(std::string* out, T v, double limit) {
  if (!(std::fabs(v) < limit) || v != std::trunc(v)) return false;
  if (v == 0 && std::signbit(v)) {
    out->append("-0");
    return true;
  }
  absl::StrAppend(out, static_cast<int64_t>(v));
  return true;
}

void AppendNanText(std::string* out, bool negative, uint64_t payload) {
  out->append(negative ? "-nan" : "nan");
  if (payload != 0) {
    char buf[kBuf];
    char* end = std::to_chars(buf, buf + kBuf, payload, 16).ptr;
    out->append("(0x");
    out->append(buf, end);
    out->push_back(')');
  }
}

void AppendF32(std::string* out, float v) {
  if (std::isnan(v)) {
    uint32_t bits;
    std::memcpy(&bits, &v, 4);
    uint32_t mantissa = bits & 0x7fffffu;
    AppendNanText(out, bits >> 31, mantissa == (1u << 22) ? 0 : mantissa);
    return;
  }
  if (AppendSmallIntegral(out, v, 1e6)) return;
  char buf[kBuf];
  char* end = FormatG(buf, v, 6);
  float back = 0;
  auto r = std::from_chars(buf, end, back);
  if (r.ec != std::errc() || back != v) end = FormatG(buf, v, 9);
  out->append(buf, end);
}

void AppendF64(std::string* out, double v) {
  if (std::isnan(v)) {
    uint64_t bits;
    std::memcpy(&bits, &v, 8);
    uint64_t mantissa = bits & 0xfffffffffffffull;
    AppendNanText(out, bits >> 63, mantissa == (1ull << 51) ? 0 : mantissa);
    return;
  }
  if (AppendSmallIntegral(out, v, 1e15)) return;
  char buf[kBuf];
  char* end = FormatG(buf, v, 15);
  double back = 0;
  auto r = std::from_chars(buf, end, back);
  if (r.ec != std::errc() || back != v) end = FormatG(buf, v, 17);
  out->append(buf, end);
}

// Precision of the narrow float types: std::numeric_limits<T>::max_digits10
// of the type (2 + digits * log10(2), digits = mantissa bits + 1).
int NarrowMaxDigits10(PrimitiveType t) {
  switch (t) {
    case PrimitiveType::F16: return 5;
    case PrimitiveType::BF16: return 4;
    case PrimitiveType::F8E4M3:
    case PrimitiveType::F8E3M4:
    case PrimitiveType::F8E4M3FN:
    case PrimitiveType::F8E4M3B11FNUZ:
    case PrimitiveType::F8E4M3FNUZ: return 3;
    default: return 2;  // f8e5m2, f8e5m2fnuz, f4e2m1fn, f8e8m0fnu
  }
}

void AppendNarrowFloat(std::string* out, const Literal& lit, int64_t slot, PrimitiveType t) {
  const uint64_t raw = PrimitiveTypeByteSize(t) == 2 ? lit.GetRaw<uint16_t>(slot)
                                                      : lit.GetRaw<uint8_t>(slot);
  if (IsNanBits(t, raw)) {
    const uint64_t payload = NanPayload(t, raw);
    AppendNanText(out, SignBit(t, raw), payload == QuietNanPayload(t) ? 0 : payload);
    return;
  }
  char buf[kBuf];
  out->append(buf, FormatG(buf, DecodeFloat(t, raw), NarrowMaxDigits10(t)));
}

// Appends one array element at physical `slot`. `pred_as_word`: scalars
// print true/false, array elements 0/1.
void AppendElement(std::string* out, const Literal& lit, int64_t slot, PrimitiveType t,
                   bool pred_as_word) {
  switch (t) {
    case PrimitiveType::PRED: {
      bool b = lit.GetRaw<uint8_t>(slot) != 0;
      if (pred_as_word) {
        out->append(b ? "true" : "false");
      } else {
        out->push_back(b ? '1' : '0');
      }
      return;
    }
    case PrimitiveType::S8: absl::StrAppend(out, lit.GetRaw<int8_t>(slot)); return;
    case PrimitiveType::S16: absl::StrAppend(out, lit.GetRaw<int16_t>(slot)); return;
    case PrimitiveType::S32: absl::StrAppend(out, lit.GetRaw<int32_t>(slot)); return;
    case PrimitiveType::S64: absl::StrAppend(out, lit.GetRaw<int64_t>(slot)); return;
    case PrimitiveType::U8: absl::StrAppend(out, lit.GetRaw<uint8_t>(slot)); return;
    case PrimitiveType::U16: absl::StrAppend(out, lit.GetRaw<uint16_t>(slot)); return;
    case PrimitiveType::U32: absl::StrAppend(out, lit.GetRaw<uint32_t>(slot)); return;
    case PrimitiveType::U64: absl::StrAppend(out, lit.GetRaw<uint64_t>(slot)); return;
    case PrimitiveType::S1:
    case PrimitiveType::S2:
    case PrimitiveType::S4:
    case PrimitiveType::U1:
    case PrimitiveType::U2:
    case PrimitiveType::U4: absl::StrAppend(out, lit.GetInt(slot)); return;
    case PrimitiveType::F32: AppendF32(out, lit.GetRaw<float>(slot)); return;
    case PrimitiveType::F64: AppendF64(out, lit.GetRaw<double>(slot)); return;
    case PrimitiveType::C64: {
      auto c = lit.GetRaw<std::complex<float>>(slot);
      out->push_back('(');
      AppendF32(out, c.real());
      out->append(", ");
      AppendF32(out, c.imag());
      out->push_back(')');
      return;
    }
    case PrimitiveType::C128: {
      auto c = lit.GetRaw<std::complex<double>>(slot);
      out->push_back('(');
      AppendF64(out, c.real());
      out->append(", ");
      AppendF64(out, c.imag());
      out->push_back(')');
      return;
    }
    default:
      if (IsFloat(t)) {
        AppendNarrowFloat(out, lit, slot, t);
        return;
      }
      // token / opaque / invalid: nothing meaningful to print.
      return;
  }
}

bool IsDescendingLayout(const Shape& shape) {
  if (!shape.has_layout()) return true;
  const Layout& l = shape.layout();
  if (!l.tiles.empty()) return false;
  const int64_t rank = shape.rank();
  if (static_cast<int64_t>(l.minor_to_major.size()) != rank) return false;
  for (int64_t i = 0; i < rank; ++i)
    if (l.minor_to_major[i] != rank - 1 - i) return false;
  return true;
}

// Prints the nested-brace form of a rank >= 1 array. Row-major logical order;
// `slots` maps a row-major index to its physical slot (empty = identity).
class ArrayPrinter {
 public:
  ArrayPrinter(std::string* out, const Literal& lit)
      : out_(out), lit_(lit), type_(lit.shape().element_type()),
        dims_(lit.shape().dims()), rank_(lit.shape().rank()) {
    for (int64_t& d : dims_)
      if (d == Shape::kUnboundedSize || d < 0) d = 0;
    if (!IsDescendingLayout(lit.shape())) slots_ = PhysicalIndexTable(lit.shape());
  }

  void Print() {
    if (rank_ == 1) {
      out_->push_back('{');
      for (int64_t i = 0; i < dims_[0]; ++i) {
        if (i) out_->append(", ");
        Element();
      }
      out_->push_back('}');
      return;
    }
    Group(0, 0);
  }

 private:
  void Element() {
    int64_t slot = slots_.empty() ? next_ : slots_[next_];
    ++next_;
    AppendElement(out_, lit_, slot, type_, /*pred_as_word=*/false);
  }

  // A brace group for dimension `depth`; `index` is its position in its
  // parent. Inner-most groups: `{7}` or `{ 1, 2 }`; outer groups:
  // `{ child, child }`, with `/*i<depth-1>=<index>*/` after the brace for
  // rank >= 4 below the top level.
  void Group(int64_t depth, int64_t index) {
    const int64_t n = dims_[depth];
    if (depth == rank_ - 1) {
      out_->push_back('{');
      if (n > 1) out_->push_back(' ');
      for (int64_t i = 0; i < n; ++i) {
        if (i) out_->append(", ");
        Element();
      }
      if (n > 1) out_->push_back(' ');
      out_->push_back('}');
      return;
    }
    out_->push_back('{');
    if (rank_ > 3 && depth > 0) absl::StrAppend(out_, " /*i", depth - 1, "=", index, "*/");
    for (int64_t i = 0; i < n; ++i) {
      out_->push_back(' ');
      Group(depth + 1, i);
      if (i + 1 < n) out_->push_back(',');
    }
    out_->append(" }");
  }

  std::string* out_;
  const Literal& lit_;
  PrimitiveType type_;
  DimVector dims_;
  int64_t rank_;
  std::vector<int64_t> slots_;
  int64_t next_ = 0;
};

void AppendValue(std::string* out, const Literal& lit, bool print_large, bool with_shape) {
  const Shape& shape = lit.shape();
  if (shape.IsTuple()) {
    out->push_back('(');
    const auto& elems = lit.tuple_elements();
    for (size_t i = 0; i < elems.size(); ++i) {
      out->append(i ? ", " : " ");
      if (with_shape) {
        AppendShape(out, elems[i].shape(), /*print_layout=*/true);
        out->push_back(' ');
      }
      AppendValue(out, elems[i], print_large, with_shape);
    }
    out->append(" )");
    return;
  }
  if (!shape.IsArray()) return;
  if (lit.elided() || (!print_large && shape.ElementCount() > 10)) {
    out->append("{...}");
    return;
  }
  if (shape.rank() == 0) {
    AppendElement(out, lit, 0, shape.element_type(), /*pred_as_word=*/true);
    return;
  }
  ArrayPrinter(out, lit).Print();
}

// Upper-bound-ish printed bytes of one element incl. its ", " separator.
size_t BytesPerElement(PrimitiveType t) {
  switch (t) {
    case PrimitiveType::PRED: return 3;
    case PrimitiveType::S64:
    case PrimitiveType::U64: return 22;
    case PrimitiveType::S32:
    case PrimitiveType::U32: return 13;
    case PrimitiveType::S16:
    case PrimitiveType::U16: return 8;
    case PrimitiveType::F32: return 17;
    case PrimitiveType::F64: return 26;
    case PrimitiveType::C64: return 36;
    case PrimitiveType::C128: return 54;
    default: return IsFloat(t) ? 12 : 6;
  }
}

}  // namespace

size_t EstimateLiteralBytes(const Literal& literal) {
  const Shape& shape = literal.shape();
  if (shape.IsTuple()) {
    size_t n = 4;
    for (const Literal& e : literal.tuple_elements()) n += 40 + EstimateLiteralBytes(e);
    return n;
  }
  if (!shape.IsArray() || literal.elided()) return 8;
  // Braces of the nested groups: about 4 bytes per inner-most group.
  const int64_t inner = shape.rank() > 0 ? std::max<int64_t>(shape.dims().back(), 1) : 1;
  const size_t count = static_cast<size_t>(std::max<int64_t>(shape.ElementCount(), 0));
  return 8 + count * BytesPerElement(shape.element_type()) + count / inner * 4;
}

void AppendDouble(std::string* out, double v) { AppendF64(out, v); }

void AppendLiteralValue(std::string* out, const Literal& literal, bool print_large) {
  AppendValue(out, literal, print_large, /*with_shape=*/false);
}

void AppendLiteralWithShape(std::string* out, const Literal& literal) {
  if (!literal.shape().IsTuple()) {
    AppendShape(out, literal.shape(), /*print_layout=*/true);
    out->push_back(' ');
  }
  AppendValue(out, literal, /*print_large=*/true, /*with_shape=*/true);
}

// XLA's Literal::ToString form (what run_hlo_module prints): shape without
// layout, a space, then nested braces; rank-2+ arrays put each innermost row
// on its own line as `  { a, b }`, and ranks above 3 label each outer group
// with `/*iN=V*/`. Array pred elements print as 0/1, scalars as true/false.
// Hands the text printed so far to a sink once it holds `threshold` bytes,
// so that a large value's text is never held whole.
struct TextFlusher {
  absl::FunctionRef<void(absl::string_view)> sink;
  size_t threshold;
  void MaybeFlush(std::string* out) const {
    if (out->size() < threshold) return;
    sink(*out);
    out->clear();
  }
};

class XlaArrayPrinter {
 public:
  XlaArrayPrinter(std::string* out, const Literal& lit, const TextFlusher* flusher)
      : out_(out), lit_(lit), dims_(lit.shape().dims()), rank_(lit.shape().rank()),
        flusher_(flusher) {}

  void Print() {
    std::vector<int64_t> index;
    Recurse(&index);
  }

 private:
  void Brace(bool open, int64_t remaining_dims, const std::vector<int64_t>& index) {
    const char* brace = open ? "{" : "}";
    if (rank_ == 1) {
      out_->append(brace);
      return;
    }
    if (remaining_dims == 1) {
      const bool pad = dims_[rank_ - 1] > 1;
      if (open) {
        out_->append("  {");
        if (pad) out_->push_back(' ');
      } else {
        if (pad) out_->push_back(' ');
        out_->push_back('}');
      }
      return;
    }
    if (!open) {
      out_->append("\n}");
      return;
    }
    const int64_t depth = static_cast<int64_t>(index.size());
    if (rank_ > 3 && depth > 0 && depth < rank_) {
      absl::StrAppend(out_, "{ /*i", depth - 1, "=", index.back(), "*/\n");
    } else {
      out_->append("{\n");
    }
  }

  void Recurse(std::vector<int64_t>* index) {
    const int64_t depth = static_cast<int64_t>(index->size());
    if (depth == rank_) {
      AppendElement(out_, lit_, lit_.Slot(*index), lit_.shape().element_type(),
                    /*pred_as_word=*/rank_ == 0);
      return;
    }
    const int64_t remaining = rank_ - depth;
    Brace(true, remaining, *index);
    const int64_t n = dims_[depth];
    for (int64_t i = 0; i < n; ++i) {
      index->push_back(i);
      Recurse(index);
      index->pop_back();
      if (i < n - 1) out_->append(remaining > 1 ? ",\n" : ", ");
      if (flusher_ != nullptr) flusher_->MaybeFlush(out_);
    }
    Brace(false, remaining, *index);
  }

  std::string* out_;
  const Literal& lit_;
  DimVector dims_;
  int64_t rank_;
  const TextFlusher* flusher_;
};

void AppendXlaForm(std::string* out, const Literal& lit, const TextFlusher* flusher) {
  const Shape& shape = lit.shape();
  if (shape.IsTuple()) {
    out->append("(\n");
    const auto& elems = lit.tuple_elements();
    for (size_t i = 0; i < elems.size(); ++i) {
      if (i) out->append(",\n");
      AppendXlaForm(out, elems[i], flusher);
    }
    out->append("\n)");
    return;
  }
  if (shape.IsToken()) {
    out->append("token");
    return;
  }
  AppendShape(out, shape, /*print_layout=*/false);
  out->push_back(' ');
  if (shape.IsArray()) XlaArrayPrinter(out, lit, flusher).Print();
}

}  // namespace print_internal

std::string LiteralToXlaString(const Literal& literal) {
  std::string out;
  out.reserve(64 + print_internal::EstimateLiteralBytes(literal) * 2);
  print_internal::AppendXlaForm(&out, literal, nullptr);
  return out;
}

void PrintLiteralXla(const Literal& literal, absl::FunctionRef<void(absl::string_view)> sink) {
  constexpr size_t kChunk = size_t{1} << 20;
  const print_internal::TextFlusher flusher{sink, kChunk};
  std::string out;
  out.reserve(kChunk + (size_t{64} << 10));
  print_internal::AppendXlaForm(&out, literal, &flusher);
  if (!out.empty()) sink(out);
}

std::string LiteralValueToString(const Literal& literal, bool print_large) {
  std::string out;
  out.reserve(print_internal::EstimateLiteralBytes(literal));
  print_internal::AppendLiteralValue(&out, literal, print_large);
  return out;
}

std::string LiteralToString(const Literal& literal) {
  std::string out;
  out.reserve(64 + print_internal::EstimateLiteralBytes(literal));
  print_internal::AppendLiteralWithShape(&out, literal);
  return out;
}

}  // namespace hlo
