// bitcast-convert: reinterprets the bits of each element as another type.
// Equal widths map element to element; a wider operand element becomes
// `ratio` narrower result elements along a new minor-most dimension, and
// the other way round. The pieces are taken from the wide value's bits in
// little-endian order (piece j = bits [j*w, (j+1)*w)), which is what XLA's
// CPU and interpreter produce, so for byte-sized pieces it is the memory
// order. Complex types convert only to complex types of the same width.
#include <cstring>

#include "absl/strings/str_cat.h"
#include "backend_cpu/op_eval.h"

namespace hlo::cpu {
namespace {

// Raw bit pattern of one element, zero-extended (ints masked to their width).
uint64_t ElementBits(const Literal& lit, int64_t slot, int bits) {
  const PrimitiveType t = lit.shape().element_type();
  uint64_t v;
  if (IsFloat(t)) {
    v = lit.GetFloatBits(slot);
  } else {
    v = static_cast<uint64_t>(lit.GetInt(slot));
  }
  return bits >= 64 ? v : v & ((uint64_t{1} << bits) - 1);
}

void SetElementBits(Literal* lit, int64_t slot, uint64_t v) {
  const PrimitiveType t = lit->shape().element_type();
  if (IsFloat(t)) {
    lit->SetFloatBits(slot, v);
  } else {
    lit->SetInt(slot, static_cast<int64_t>(v));  // wraps to the type's width
  }
}

}  // namespace

absl::StatusOr<Literal> EvalBitcastConvert(const Instruction& instr,
                                           absl::Span<const Literal* const> operands, OpContext&) {
  const Literal& in = *operands[0];
  const Shape& out_shape = instr.shape();
  if (!in.shape().IsArray() || !out_shape.IsArray())
    return OpError(instr, "bitcast-convert needs arrays");
  const PrimitiveType from = in.shape().element_type(), to = out_shape.element_type();
  const int bin = PrimitiveTypeBitWidth(from), bout = PrimitiveTypeBitWidth(to);
  if (bin <= 0 || bout <= 0) return OpError(instr, "element types without a bit width");

  if (bin == bout) {
    // Same width: the same bytes, element for element.
    Literal src_storage;
    const Literal& src = in.shape().layout() == out_shape.layout()
                             ? in
                             : (src_storage = RelayoutOnPool(in, out_shape.layout()), src_storage);
    Literal out(out_shape);
    if (IsComplex(from) || (PrimitiveTypeByteSize(from) * 8 == bin)) {
      if (out.size_bytes() != src.size_bytes()) return OpError(instr, "buffer size mismatch");
      if (out.size_bytes() > 0) std::memcpy(out.data(), src.data(), out.size_bytes());
      if (to == PrimitiveType::PRED)  // only 0/1 are valid pred bytes
        for (size_t i = 0; i < out.size_bytes(); ++i) out.data()[i] = out.data()[i] != 0;
      return out;
    }
    for (int64_t i = 0, n = out.physical_count(); i < n; ++i)
      SetElementBits(&out, i, ElementBits(src, i, bin));
    return out;
  }
  if (IsComplex(from) || IsComplex(to))
    return OpUnimplemented(instr, "width-changing bitcast-convert of complex types");
  if (bin > 64 || bout > 64) return OpUnimplemented(instr, "elements wider than 64 bits");

  Literal src_storage;
  const Literal& src = RowMajor(in, &src_storage);
  Literal out = RowMajorLiteral(out_shape);
  if (bin > bout) {
    const int64_t ratio = bin / bout;
    const int64_t n = src.physical_count();
    if (out.physical_count() != n * ratio) return OpError(instr, "element count mismatch");
    const uint64_t mask = bout >= 64 ? ~uint64_t{0} : (uint64_t{1} << bout) - 1;
    for (int64_t i = 0; i < n; ++i) {
      const uint64_t v = ElementBits(src, i, bin);
      for (int64_t j = 0; j < ratio; ++j) SetElementBits(&out, i * ratio + j, (v >> (j * bout)) & mask);
    }
  } else {
    const int64_t ratio = bout / bin;
    const int64_t n = out.physical_count();
    if (src.physical_count() != n * ratio) return OpError(instr, "element count mismatch");
    for (int64_t i = 0; i < n; ++i) {
      uint64_t v = 0;
      for (int64_t j = 0; j < ratio; ++j) v |= ElementBits(src, i * ratio + j, bin) << (j * bin);
      SetElementBits(&out, i, v);
    }
  }
  return ToLayout(std::move(out), out_shape.layout());
}

}  // namespace hlo::cpu
