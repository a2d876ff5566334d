// NumPy .npy files (format versions 1.0, 2.0 and 3.0) <-> literals.
// dtypes: |b1 pred, i1/i2/i4/i8 s8..s64, u1/u2/u4/u8 u8..u64, f2 f16,
// f4 f32, f8 f64, c8 c64, c16 c128; little-endian or byte-order-free only.
// Fortran-ordered arrays are read in their logical order.
#pragma once

#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "ir/literal.h"

namespace hlo {

// True if `bytes` starts with the .npy magic string.
bool LooksLikeNpy(absl::string_view bytes);

// Parses a whole .npy file. `name` is used in messages. The literal has the
// default (row-major) layout.
absl::StatusOr<Literal> ParseNpy(absl::string_view bytes, const std::string& name);

// Encodes an array literal as a .npy file (version 1.0, C order). Types
// NumPy lacks are widened: bf16 and the f8/f4 types to float32, s2/s4 to
// int8, u2/u4 to uint8. Tuples and tokens are errors.
absl::StatusOr<std::string> EncodeNpy(const Literal& literal);

}  // namespace hlo
