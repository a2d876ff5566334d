#include "tools/run_inputs.h"

#include <sys/stat.h>

#include <cmath>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "ir/printer.h"
#include "parser/parser.h"
#include "tools/file_io.h"
#include "tools/npy.h"

namespace hlo {
namespace {

std::string ParamName(const Instruction& param) {
  return absl::StrCat("parameter ", param.parameter_number(), " (%", param.name(), ": ",
                      ShapeToString(param.shape(), false), ")");
}

bool IsNarrowFloat(PrimitiveType t) {
  return IsFloat(t) && t != PrimitiveType::F32 && t != PrimitiveType::F64;
}

bool IsSubByteInt(PrimitiveType t) { return IsInteger(t) && PrimitiveTypeBitWidth(t) < 8; }

// `value` (an array) converted to the element type of `want`, where allowed.
absl::StatusOr<Literal> ConvertForParameter(Literal value, const Instruction& param,
                                            const std::string& spec) {
  const Shape& want = param.shape();
  const Shape& got = value.shape();
  if (got.Compatible(want)) return value;
  if (!want.IsArray() || !got.IsArray() || got.dims() != want.dims()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "input '", spec, "' has shape ", ShapeToString(got, false), " but ", ParamName(param),
        " needs ", ShapeToString(want, false)));
  }
  const PrimitiveType from = got.element_type(), to = want.element_type();
  const bool float_widened = IsNarrowFloat(to) && (from == PrimitiveType::F32 || from == PrimitiveType::F64);
  const bool int_widened = IsSubByteInt(to) && (from == PrimitiveType::S8 || from == PrimitiveType::U8);
  if (!float_widened && !int_widened) {
    return absl::InvalidArgumentError(absl::StrCat(
        "input '", spec, "' has element type ", PrimitiveTypeName(from), " but ",
        ParamName(param), " needs ", PrimitiveTypeName(to)));
  }
  Shape shape = got;
  shape.set_element_type(to);
  Literal out(shape);
  const int64_t n = value.physical_count();
  if (float_widened) {
    for (int64_t i = 0; i < n; ++i) out.SetDouble(i, value.GetDouble(i));
    return out;
  }
  const int bits = PrimitiveTypeBitWidth(to);
  const int64_t lo = IsSignedInt(to) ? -(int64_t{1} << (bits - 1)) : 0;
  const int64_t hi = IsSignedInt(to) ? (int64_t{1} << (bits - 1)) - 1 : (int64_t{1} << bits) - 1;
  for (int64_t i = 0; i < n; ++i) {
    const int64_t v = value.GetInt(i);
    if (v < lo || v > hi)
      return absl::InvalidArgumentError(absl::StrCat("input '", spec, "': value ", v,
                                                     " does not fit ", PrimitiveTypeName(to),
                                                     " of ", ParamName(param)));
    out.SetInt(i, v);
  }
  return out;
}

bool IsRegularFile(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

uint64_t SplitMix(uint64_t* state) {
  uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

}  // namespace

absl::StatusOr<Literal> LoadInput(const std::string& spec, const Instruction& param) {
  absl::StatusOr<Literal> value = absl::UnknownError("");
  struct stat st;
  if (stat(spec.c_str(), &st) == 0 && S_ISDIR(st.st_mode))
    return absl::InvalidArgumentError(absl::StrCat("input '", spec, "' is a directory, not a file"));
  if (IsNpyFile(spec)) {
    value = ReadNpyFile(spec);  // into the literal's buffer: no copy of the file
  } else if (IsRegularFile(spec)) {
    absl::StatusOr<std::string> bytes = ReadInput(spec);
    if (!bytes.ok()) return bytes.status();
    if (bytes->empty())
      return absl::InvalidArgumentError(absl::StrCat("input file '", spec, "' is empty"));
    value = ParseLiteral(*bytes);
    if (!value.ok())
      return absl::InvalidArgumentError(absl::StrCat(
          "input file '", spec, "' is neither .npy nor an HLO literal: ", value.status().message()));
  } else {
    value = ParseLiteral(spec);
    if (!value.ok()) {
      const bool looks_like_path = spec.find_first_of("{[(") == std::string::npos;
      if (looks_like_path)
        return absl::NotFoundError(absl::StrCat("input '", spec,
                                                "': no such file, and not a literal either"));
      return absl::InvalidArgumentError(absl::StrCat("input '", spec, "' for ", ParamName(param),
                                                     ": ", value.status().message()));
    }
  }
  if (!value.ok()) return value.status();
  return ConvertForParameter(*std::move(value), param, spec);
}

Literal RandomLiteral(const Shape& shape, uint64_t seed) {
  uint64_t state = seed * 0x2545F4914F6CDD1Dull + 0x1234567;
  if (shape.IsTuple()) {
    std::vector<Literal> elems;
    for (size_t i = 0; i < shape.tuple_shapes().size(); ++i)
      elems.push_back(RandomLiteral(shape.tuple_shapes()[i], SplitMix(&state)));
    return Literal::MakeTuple(std::move(elems));
  }
  if (!shape.IsArray()) return Literal(shape);
  // Every slot is written below: no zero fill first (it would fault in a
  // large weight's pages twice over).
  Literal out = Literal::Uninitialized(shape);
  const PrimitiveType t = shape.element_type();
  const int64_t n = out.physical_count();
  const size_t written = static_cast<size_t>(n) * out.element_bytes();
  if (out.size_bytes() > written) std::memset(out.data() + written, 0, out.size_bytes() - written);
  auto uniform = [&] { return static_cast<double>(SplitMix(&state) >> 11) * 0x1.0p-52 - 1.0; };
  // The common types get typed stores (model weights are large).
  if (t == PrimitiveType::F32) {
    float* p = reinterpret_cast<float*>(out.data());
    for (int64_t i = 0; i < n; ++i) p[i] = static_cast<float>(uniform());
    return out;
  }
  if (t == PrimitiveType::F64) {
    double* p = reinterpret_cast<double*>(out.data());
    for (int64_t i = 0; i < n; ++i) p[i] = uniform();
    return out;
  }
  if (t == PrimitiveType::BF16 || t == PrimitiveType::F16) {
    // Rounded from the double directly (as SetDouble does, one rounding),
    // by integer arithmetic: SetDouble's general encoder per element took
    // seconds for a bf16 model's weights. Every nonzero draw is at least
    // 2^-52 in magnitude, a normal bf16; f16 draws below its smallest
    // normal (2^-14) take SetDouble.
    const int mant = t == PrimitiveType::BF16 ? 7 : 10;
    const uint64_t rebias = static_cast<uint64_t>(1023 - (t == PrimitiveType::BF16 ? 127 : 15)) << mant;
    const double smallest_fast = t == PrimitiveType::BF16 ? 0.0 : 0x1.0p-14;
    const int shift = 52 - mant;
    const uint64_t half = uint64_t{1} << (shift - 1), low = (uint64_t{1} << shift) - 1;
    uint16_t* p = reinterpret_cast<uint16_t*>(out.data());
    for (int64_t i = 0; i < n; ++i) {
      const double x = uniform();
      if (std::fabs(x) < smallest_fast) {
        out.SetDouble(i, x);
        continue;
      }
      uint64_t bits;
      std::memcpy(&bits, &x, sizeof(bits));
      const uint64_t sign = (bits >> 63) << 15, mag = bits & ~(uint64_t{1} << 63);
      if (mag == 0) {
        p[i] = static_cast<uint16_t>(sign);
        continue;
      }
      uint64_t r = mag >> shift;
      const uint64_t rem = mag & low;
      if (rem > half || (rem == half && (r & 1))) ++r;  // to nearest, ties to even
      p[i] = static_cast<uint16_t>(sign | (r - rebias));
    }
    return out;
  }
  for (int64_t i = 0; i < n; ++i) {
    if (IsComplex(t)) {
      const double re = uniform();
      out.SetComplex(i, {re, uniform()});
    } else if (IsFloat(t)) {
      out.SetDouble(i, uniform());
    } else if (t == PrimitiveType::PRED) {
      out.SetInt(i, SplitMix(&state) & 1);
    } else {
      out.SetInt(i, static_cast<int64_t>(SplitMix(&state) % 8));
    }
  }
  return out;
}

}  // namespace hlo
