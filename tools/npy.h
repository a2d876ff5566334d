// NumPy .npy files (format versions 1.0, 2.0 and 3.0) <-> literals.
// dtypes: |b1 pred, i1/i2/i4/i8 s8..s64, u1/u2/u4/u8 u8..u64, f2 f16,
// f4 f32, f8 f64, c8 c64, c16 c128; little-endian or byte-order-free only.
// Fortran-ordered arrays are read in their logical order.
#pragma once

#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "ir/literal.h"

namespace hlo {

// True if `bytes` starts with the .npy magic string.
bool LooksLikeNpy(absl::string_view bytes);

// True if `path` is a regular file that starts with the .npy magic string.
bool IsNpyFile(const std::string& path);

// Parses a whole .npy file. `name` is used in messages. The literal has the
// default (row-major) layout.
absl::StatusOr<Literal> ParseNpy(absl::string_view bytes, const std::string& name);

// Reads a .npy file (a regular file) straight into a literal's buffer:
// the header first, then the data, so a large input is held once, not as
// the file's bytes and a copy. Same checks and messages as ParseNpy.
absl::StatusOr<Literal> ReadNpyFile(const std::string& path);

// A .npy file as its two parts: the header (magic, version, dict, padding)
// and the element bytes in C order. `data()` points into the encoded
// literal itself when it is already row-major in a NumPy type (no copy of a
// large result), else into a converted copy held here; the literal must
// outlive the encoding.
class NpyEncoding {
 public:
  const std::string& header() const { return header_; }
  absl::string_view data() const;

 private:
  friend absl::StatusOr<NpyEncoding> EncodeNpyParts(const Literal& literal);
  std::string header_;
  const Literal* source_ = nullptr;
  std::optional<Literal> converted_;
};

// Encodes an array literal as a .npy file (version 1.0, C order). Types
// NumPy lacks are widened: bf16 and the f8/f4 types to float32, s2/s4 to
// int8, u2/u4 to uint8. Tuples and tokens are errors.
absl::StatusOr<NpyEncoding> EncodeNpyParts(const Literal& literal);

// The same as one string (header + data): for small values and tests.
absl::StatusOr<std::string> EncodeNpy(const Literal& literal);

}  // namespace hlo
