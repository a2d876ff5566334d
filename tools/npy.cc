#include "tools/npy.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <limits>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "ir/layout_index.h"

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

namespace {

// What a .npy header says, checked against the size of the whole file.
struct NpyHeader {
  Shape shape;            // with a column-major layout for fortran_order
  size_t data_start = 0;  // offset of the first data byte
  bool fortran_order = false;
};

// Where the header dict starts and how long it is, from the first 12 (or
// fewer) bytes of the file.
absl::Status HeaderExtent(absl::string_view prefix, const std::string& name, size_t* start,
                          size_t* length) {
  if (!LooksLikeNpy(prefix)) return Bad(name, "missing the \\x93NUMPY magic string");
  if (prefix.size() < 10) return Bad(name, "truncated header");
  const int major = static_cast<unsigned char>(prefix[6]);
  if (major == 1) {
    *length = static_cast<unsigned char>(prefix[8]) | (static_cast<unsigned char>(prefix[9]) << 8);
    *start = 10;
  } else if (major == 2 || major == 3) {
    if (prefix.size() < 12) return Bad(name, "truncated header");
    *length = 0;
    for (int i = 3; i >= 0; --i) *length = (*length << 8) | static_cast<unsigned char>(prefix[8 + i]);
    *start = 12;
  } else {
    return Bad(name, absl::StrCat("unsupported format version ", major));
  }
  return absl::OkStatus();
}

// Parses the header at the start of `bytes` (which holds at least the
// magic, version, length and dict) of a file of `file_size` bytes.
absl::StatusOr<NpyHeader> ParseHeader(absl::string_view bytes, uint64_t file_size,
                                      const std::string& name) {
  size_t header_start = 0, header_len = 0;
  if (absl::Status st = HeaderExtent(bytes, name, &header_start, &header_len); !st.ok()) return st;
  if (header_start + header_len > bytes.size() || header_start + header_len > file_size)
    return Bad(name, "truncated header");
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
  NpyHeader out;
  out.fortran_order = fortran == "True";
  if (!out.fortran_order && fortran != "False") return Bad(name, "bad fortran_order");

  out.shape = Shape::Array(type, dims);
  if (out.fortran_order) {
    Layout l;
    for (int64_t i = 0; i < static_cast<int64_t>(dims.size()); ++i) l.minor_to_major.push_back(i);
    out.shape.set_layout(l);
  }
  // The size is checked before any literal is made: a lying header may
  // claim any shape (e.g. 10^22 elements), and the data must match it.
  out.data_start = header_start + header_len;
  const uint64_t found = file_size - out.data_start;
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
  return out;
}

// The literal whose buffer holds the file's data bytes, made row-major
// (pred bytes normalised to 0/1).
Literal FinishLiteral(Literal lit, const NpyHeader& header) {
  if (header.shape.element_type() == PrimitiveType::PRED) {
    for (size_t i = 0; i < lit.size_bytes(); ++i) lit.data()[i] = lit.data()[i] != 0;
  }
  if (!header.fortran_order) return lit;
  Layout row_major;
  for (int64_t i = header.shape.rank() - 1; i >= 0; --i) row_major.minor_to_major.push_back(i);
  return lit.Relayout(row_major);
}

// Reads exactly `n` bytes at `offset`; false on a short read or an error.
bool ReadAt(int fd, uint8_t* out, size_t n, uint64_t offset) {
  while (n > 0) {
    ssize_t got = pread(fd, out, n, static_cast<off_t>(offset));
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) return false;
    out += got;
    n -= static_cast<size_t>(got);
    offset += static_cast<uint64_t>(got);
  }
  return true;
}

}  // namespace

absl::StatusOr<Literal> ParseNpy(absl::string_view bytes, const std::string& name) {
  absl::StatusOr<NpyHeader> header = ParseHeader(bytes, bytes.size(), name);
  if (!header.ok()) return header.status();
  Literal lit = Literal::Uninitialized(header->shape);
  if (lit.size_bytes() > 0) std::memcpy(lit.data(), bytes.data() + header->data_start, lit.size_bytes());
  return FinishLiteral(std::move(lit), *header);
}

bool IsNpyFile(const std::string& path) {
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  struct stat st;
  char magic[kMagicSize];
  const bool yes = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) &&
                   ReadAt(fd, reinterpret_cast<uint8_t*>(magic), kMagicSize, 0) &&
                   LooksLikeNpy(absl::string_view(magic, kMagicSize));
  close(fd);
  return yes;
}

absl::StatusOr<Literal> ReadNpyFile(const std::string& path) {
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return absl::NotFoundError(absl::StrCat("cannot open '", path, "': ", strerror(errno)));
  struct FdCloser {
    int fd;
    ~FdCloser() { close(fd); }
  } closer{fd};
  struct stat st;
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))
    return absl::InvalidArgumentError(absl::StrCat("cannot read '", path, "': not a regular file"));
  const uint64_t file_size = static_cast<uint64_t>(st.st_size);
  std::string prefix(std::min<uint64_t>(file_size, 12), '\0');
  if (!ReadAt(fd, reinterpret_cast<uint8_t*>(prefix.data()), prefix.size(), 0))
    return absl::InvalidArgumentError(absl::StrCat("cannot read '", path, "': ", strerror(errno)));
  size_t header_start = 0, header_len = 0;
  if (absl::Status s = HeaderExtent(prefix, path, &header_start, &header_len); !s.ok()) return s;
  if (header_start + header_len > file_size) return Bad(path, "truncated header");
  const size_t have = prefix.size();  // the bytes already read (a v1 dict may start in them)
  prefix.resize(header_start + header_len);
  if (prefix.size() > have &&
      !ReadAt(fd, reinterpret_cast<uint8_t*>(prefix.data()) + have, prefix.size() - have, have))
    return absl::InvalidArgumentError(absl::StrCat("cannot read '", path, "': ", strerror(errno)));
  absl::StatusOr<NpyHeader> header = ParseHeader(prefix, file_size, path);
  if (!header.ok()) return header.status();
  Literal lit = Literal::Uninitialized(header->shape);
  if (!ReadAt(fd, lit.data(), lit.size_bytes(), header->data_start))
    return absl::InvalidArgumentError(absl::StrCat("cannot read '", path, "': ", strerror(errno)));
  return FinishLiteral(std::move(lit), *header);
}

namespace {

bool IsRowMajor(const Shape& shape) {
  if (!HasPlainLayout(shape)) return false;
  const DimVector& m2m = shape.layout().minor_to_major;
  for (size_t i = 0; i < m2m.size(); ++i)
    if (m2m[i] != static_cast<int64_t>(m2m.size() - 1 - i)) return false;
  return true;
}

}  // namespace

absl::string_view NpyEncoding::data() const {
  const Literal& l = converted_ ? *converted_ : *source_;
  return absl::string_view(reinterpret_cast<const char*>(l.data()), l.size_bytes());
}

absl::StatusOr<NpyEncoding> EncodeNpyParts(const Literal& literal) {
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
  NpyEncoding out;
  out.source_ = &literal;
  // C order first (a blocked copy, no per-element index table), then the
  // widening of types NumPy lacks, element by element in that order.
  if (!IsRowMajor(shape)) {
    Layout row_major;
    for (int64_t i = shape.rank() - 1; i >= 0; --i) row_major.minor_to_major.push_back(i);
    out.converted_ = literal.Relayout(row_major);
  }
  if (stored != type) {
    const Literal& from = out.converted_ ? *out.converted_ : literal;
    Literal wide = Literal::Uninitialized(Shape::Array(stored, shape.dims()));
    const int64_t n = shape.ElementCount();
    if (IsFloat(stored)) {
      for (int64_t i = 0; i < n; ++i) wide.SetDouble(i, from.GetDouble(i));
    } else {
      for (int64_t i = 0; i < n; ++i) wide.SetInt(i, from.GetInt(i));
    }
    out.converted_ = std::move(wide);
  }
  // "(2, 3)", "(4,)" for rank 1, "()" for scalars.
  std::string shape_text = absl::StrJoin(shape.dims(), ", ");
  if (shape.rank() == 1) shape_text.push_back(',');
  const char order = stored == PrimitiveType::PRED || PrimitiveTypeByteSize(stored) == 1 ? '|' : '<';
  std::string dict = absl::StrCat("{'descr': '", std::string(1, order), code,
                                  "', 'fortran_order': False, 'shape': (", shape_text, "), }");
  // Pad with spaces so that magic + version + length + header + '\n' is a
  // multiple of 64 bytes.
  const size_t unpadded = kMagicSize + 2 + 2 + dict.size() + 1;
  dict.append((64 - unpadded % 64) % 64, ' ');
  dict.push_back('\n');
  out.header_.assign(kMagic, kMagicSize);
  out.header_.push_back('\x01');
  out.header_.push_back('\x00');
  out.header_.push_back(static_cast<char>(dict.size() & 0xff));
  out.header_.push_back(static_cast<char>(dict.size() >> 8));
  out.header_ += dict;
  return out;
}

absl::StatusOr<std::string> EncodeNpy(const Literal& literal) {
  absl::StatusOr<NpyEncoding> parts = EncodeNpyParts(literal);
  if (!parts.ok()) return parts.status();
  return absl::StrCat(parts->header(), parts->data());
}

}  // namespace hlo
