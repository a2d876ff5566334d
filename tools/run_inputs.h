// Argument literals for hlo-run: from --input specs (a .npy file, a file
// holding an HLO literal, or an inline literal) or generated randomly.
#pragma once

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "ir/instruction.h"
#include "ir/literal.h"

namespace hlo {

// Loads the value of entry parameter `param` from `spec`, converting what
// NumPy cannot express: a float32/float64 array feeds bf16/f16/f8/f4
// parameters (round to nearest even), an int8/uint8 array feeds s2/s4/u2/u4
// parameters (range-checked). Any other dtype or dims mismatch is an error
// naming the parameter.
absl::StatusOr<Literal> LoadInput(const std::string& spec, const Instruction& param);

// Deterministic values for `shape` from `seed`: floats uniform in [-1, 1),
// complex parts likewise, integers in [0, 8), pred 0/1.
Literal RandomLiteral(const Shape& shape, uint64_t seed);

}  // namespace hlo
