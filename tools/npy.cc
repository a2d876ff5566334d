#include "tools/npy.h"

#include <cstring>
#include <limits>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"

namespace hlo {
namespace {

constexpr char kMagic[] = "\x93NUMPY";
constexpr size_t kMagicSize = 6;

struct DtypeEntry {
  const char* code;  // without the byte-order character
  PrimitiveType type;
};
const DtypeEntry kDtypes[] = {
    {"b1", PrimitiveType::PRED}, {"i1", PrimitiveType::S8},   {"i2", PrimitiveType::S16},
    {"i4", PrimitiveType::S32},  {"i8", PrimitiveType::S64},  {"u1", PrimitiveType::U8},
    {"u2", PrimitiveType::U16},  {"u4", PrimitiveType::U32},  {"u8", PrimitiveType::U64},
    {"f2", PrimitiveType::F16},  {"f4", PrimitiveType::F32},  {"f8", PrimitiveType::F64},
    {"c8", PrimitiveType::C64},  {"c16", PrimitiveType::C128},
};

absl::Status Bad(const std::string& name, absl::string_view why) {
  return absl::InvalidArgumentError(absl::StrCat("'", name, "': not a valid .npy file: ", why));
}

// The value text of `key` in the header dict: 'descr': '<f4' -> <f4,
// 'shape': (2, 3) -> "2, 3", 'fortran_order': False -> False.
bool HeaderValue(absl::string_view header, absl::string_view key, std::string* out) {
  for (const char* quote : {"'", "\""}) {
    std::string k = absl::StrCat(quote, key, quote);
    size_t pos = header.find(k);
    if (pos == absl::string_view::npos) continue;
    pos = header.find(':', pos + k.size());
    if (pos == absl::string_view::npos) return false;
    absl::string_view rest = absl::StripLeadingAsciiWhitespace(header.substr(pos + 1));
    if (rest.empty()) return false;
    if (rest[0] == '(') {
      size_t close = rest.find(')');
      if (close == absl::string_view::npos) return false;
      *out = std::string(rest.substr(1, close - 1));
      return true;
    }
    if (rest[0] == '\'' || rest[0] == '"') {
      size_t close = rest.find(rest[0], 1);
      if (close == absl::string_view::npos) return false;
      *out = std::string(rest.substr(1, close - 1));
      return true;
    }
    size_t end = rest.find_first_of(",}");
    *out = std::string(absl::StripAsciiWhitespace(rest.substr(0, end)));
    return true;
  }
  return false;
}

}  // namespace

bool LooksLikeNpy(absl::string_view bytes) {
  return bytes.size() >= kMagicSize && bytes.substr(0, kMagicSize) == absl::string_view(kMagic, kMagicSize);
}

absl::StatusOr<Literal> ParseNpy(absl::string_view bytes, const std::string& name) {
  if (!LooksLikeNpy(bytes)) return Bad(name, "missing the \\x93NUMPY magic string");
  if (bytes.size() < 10) return Bad(name, "truncated header");
  const int major = static_cast<unsigned char>(bytes[6]);
  size_t header_len = 0, header_start = 0;
  if (major == 1) {
    header_len = static_cast<unsigned char>(bytes[8]) | (static_cast<unsigned char>(bytes[9]) << 8);
    header_start = 10;
  } else if (major == 2 || major == 3) {
    if (bytes.size() < 12) return Bad(name, "truncated header");
    for (int i = 3; i >= 0; --i) header_len = (header_len << 8) | static_cast<unsigned char>(bytes[8 + i]);
    header_start = 12;
  } else {
    return Bad(name, absl::StrCat("unsupported format version ", major));
  }
  if (header_start + header_len > bytes.size()) return Bad(name, "truncated header");
  absl::string_view header = bytes.substr(header_start, header_len);
  std::string descr, fortran, shape_text;
  if (!HeaderValue(header, "descr", &descr) || !HeaderValue(header, "fortran_order", &fortran) ||
      !HeaderValue(header, "shape", &shape_text))
    return Bad(name, "header lacks descr, fortran_order or shape");
  if (descr.empty()) return Bad(name, "empty descr");
  char order = descr[0];
  std::string code = descr.substr(1);
  if (order != '<' && order != '|' && order != '=')
    return absl::InvalidArgumentError(absl::StrCat(
        "'", name, "': dtype '", descr, "' is not supported (only little-endian data)"));
  PrimitiveType type = PrimitiveType::kInvalid;
  for (const DtypeEntry& e : kDtypes)
    if (code == e.code) type = e.type;
  if (type == PrimitiveType::kInvalid)
    return absl::InvalidArgumentError(
        absl::StrCat("'", name, "': dtype '", descr, "' has no HLO element type"));
  std::vector<int64_t> dims;
  for (absl::string_view d : absl::StrSplit(shape_text, ',', absl::SkipWhitespace())) {
    int64_t v;
    if (!absl::SimpleAtoi(absl::StripAsciiWhitespace(d), &v) || v < 0)
      return Bad(name, absl::StrCat("bad shape (", shape_text, ")"));
    dims.push_back(v);
  }
  const bool fortran_order = fortran == "True";
  if (!fortran_order && fortran != "False") return Bad(name, "bad fortran_order");

  Shape shape = Shape::Array(type, dims);
  if (fortran_order) {
    Layout l;
    for (int64_t i = 0; i < static_cast<int64_t>(dims.size()); ++i) l.minor_to_major.push_back(i);
    shape.set_layout(l);
  }
  // The size is checked before the literal is made: a lying header may
  // claim any shape (e.g. 10^22 elements), and the data must match it.
  const size_t data_start = header_start + header_len;
  const uint64_t found = bytes.size() - data_start;
  uint64_t expected = static_cast<uint64_t>(PrimitiveTypeByteSize(type));
  bool too_large = false;
  for (int64_t d : dims) {
    const uint64_t ud = static_cast<uint64_t>(d);
    if (ud != 0 && expected > std::numeric_limits<uint64_t>::max() / ud) too_large = true;
    else expected *= ud;
  }
  if (too_large)
    return Bad(name, absl::StrCat("shape (", shape_text, ") is too large, found ", found, " data bytes"));
  if (found != expected)
    return Bad(name, absl::StrCat("expected ", expected, " data bytes for ", descr, " (", shape_text,
                                  "), found ", found));
  Literal lit(shape);
  if (lit.size_bytes() > 0) std::memcpy(lit.data(), bytes.data() + data_start, lit.size_bytes());
  if (type == PrimitiveType::PRED) {
    for (size_t i = 0; i < lit.size_bytes(); ++i) lit.data()[i] = lit.data()[i] != 0;
  }
  if (fortran_order) {
    Layout row_major;
    for (int64_t i = static_cast<int64_t>(dims.size()) - 1; i >= 0; --i)
      row_major.minor_to_major.push_back(i);
    return lit.Relayout(row_major);
  }
  return lit;
}

absl::StatusOr<std::string> EncodeNpy(const Literal& literal) {
  const Shape& shape = literal.shape();
  if (!shape.IsArray())
    return absl::InvalidArgumentError("only array values can be written as .npy");
  PrimitiveType type = shape.element_type();
  PrimitiveType stored = type;
  if (IsFloat(type) && PrimitiveTypeByteSize(type) < 2) stored = PrimitiveType::F32;  // f8/f4
  if (type == PrimitiveType::BF16) stored = PrimitiveType::F32;
  if (IsSignedInt(type) && PrimitiveTypeBitWidth(type) < 8) stored = PrimitiveType::S8;
  if (IsUnsignedInt(type) && PrimitiveTypeBitWidth(type) < 8) stored = PrimitiveType::U8;
  const char* code = nullptr;
  for (const DtypeEntry& e : kDtypes)
    if (e.type == stored) code = e.code;
  if (code == nullptr)
    return absl::InvalidArgumentError(
        absl::StrCat("no .npy dtype for ", PrimitiveTypeName(type)));
  Shape out_shape = Shape::Array(stored, shape.dims());
  Literal row_major(out_shape);
  const std::vector<int64_t> slots = PhysicalIndexTable(shape);
  if (stored == type) {
    const int b = literal.element_bytes();
    for (size_t i = 0; i < slots.size(); ++i)
      std::memcpy(row_major.data() + i * b, literal.data() + slots[i] * b, b);
  } else if (IsFloat(stored)) {
    for (size_t i = 0; i < slots.size(); ++i) row_major.SetDouble(i, literal.GetDouble(slots[i]));
  } else {
    for (size_t i = 0; i < slots.size(); ++i) row_major.SetInt(i, literal.GetInt(slots[i]));
  }
  // "(2, 3)", "(4,)" for rank 1, "()" for scalars.
  std::string shape_text = absl::StrJoin(shape.dims(), ", ");
  if (shape.rank() == 1) shape_text.push_back(',');
  const char order = stored == PrimitiveType::PRED || PrimitiveTypeByteSize(stored) == 1 ? '|' : '<';
  std::string header = absl::StrCat("{'descr': '", std::string(1, order), code,
                                    "', 'fortran_order': False, 'shape': (", shape_text, "), }");
  // Pad with spaces so that magic + version + length + header + '\n' is a
  // multiple of 64 bytes.
  const size_t unpadded = kMagicSize + 2 + 2 + header.size() + 1;
  header.append((64 - unpadded % 64) % 64, ' ');
  header.push_back('\n');
  std::string out(kMagic, kMagicSize);
  out.push_back('\x01');
  out.push_back('\x00');
  out.push_back(static_cast<char>(header.size() & 0xff));
  out.push_back(static_cast<char>(header.size() >> 8));
  out += header;
  out.append(reinterpret_cast<const char*>(row_major.data()), row_major.size_bytes());
  return out;
}

}  // namespace hlo
