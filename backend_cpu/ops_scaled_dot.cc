// scaled-dot (linear-algebra family): a dot of block-scaled operands (MX
// formats and the like). Operands are lhs, lhs_scale, rhs, rhs_scale. Each
// operand is dequantized as XLA's scaled-dot rewriter does it, and the two
// results go through the ordinary dot (ops_dot.cc):
//   * a scalar (rank-0) scale leaves its operand as it is (XLA reads such a
//     scale as "this side is not scaled"; its value is not used);
//   * otherwise operand and scale are converted to a common type (both
//     narrower than 16 bits: bf16; the same type: that type; same width:
//     f32; else the wider one), the scale has the operand's rank and each
//     of its dims divides the operand's, so dim i is cut into blocks of
//     operand_dim / scale_dim elements that share one scale value;
//   * dequantized = operand * scale, an elementwise multiply in the common
//     type (so rounded to it).
// docs/ops-linalg.md, "scaled-dot".
#include <cstring>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "backend_cpu/elementwise_kernels.h"
#include "backend_cpu/op_eval.h"

namespace hlo::cpu {
namespace {

PrimitiveType CommonType(PrimitiveType a, PrimitiveType b) {
  const int wa = PrimitiveTypeBitWidth(a), wb = PrimitiveTypeBitWidth(b);
  if (wa < 16 && wb < 16) return PrimitiveType::BF16;
  if (a == b) return a;
  if (wa == wb) return PrimitiveType::F32;
  return wa > wb ? a : b;
}

// `lit` (row-major) converted to element type `to` with the convert kernel.
absl::StatusOr<Literal> ConvertTo(const Literal& lit, PrimitiveType to) {
  if (lit.shape().element_type() == to) return lit;
  Shape s = lit.shape();
  s.set_element_type(to);
  Literal out = Literal::Uninitialized(s);
  auto kernel = SelectElementwiseKernel(Opcode::kConvert, {lit.shape().element_type()}, to, {});
  if (!kernel.ok()) return kernel.status();
  const void* in = lit.data();
  RunElementwise(*kernel, absl::MakeConstSpan(&in, 1), out.data(), s.ElementCount(), {});
  return out;
}

// The row-major `scale` repeated over its blocks to the dims of `to`
// (row-major, the scale's element type): element j takes
// scale[j_0 / block_0, j_1 / block_1, ...].
Literal BroadcastBlocks(const Literal& scale, Shape to) {
  to.set_element_type(scale.shape().element_type());
  Literal out = RowMajorUninitialized(to);
  const int64_t rank = to.rank(), eb = scale.element_bytes();
  const int64_t n = to.ElementCount();
  if (n == 0) return out;
  const std::vector<int64_t> sstride = RowMajorStrides(scale.shape().dims());
  std::vector<int64_t> block(rank), idx(rank, 0);
  for (int64_t d = 0; d < rank; ++d) block[d] = to.dim(d) / scale.shape().dim(d);
  for (int64_t j = 0; j < n; ++j) {
    int64_t src = 0;
    for (int64_t d = 0; d < rank; ++d) src += idx[d] / block[d] * sstride[d];
    std::memcpy(out.data() + j * eb, scale.data() + src * eb, eb);
    for (int64_t d = rank - 1; d >= 0; --d) {
      if (++idx[d] < to.dim(d)) break;
      idx[d] = 0;
    }
  }
  return out;
}

// The dequantized operand `side` ("lhs"/"rhs"), row-major; the scale is
// not a scalar.
absl::StatusOr<Literal> Dequantize(const Instruction& instr, const Literal& operand_in,
                                   const Literal& scale_in, absl::string_view side) {
  const Shape& os = operand_in.shape();
  const Shape& ss = scale_in.shape();
  if (ss.rank() != os.rank())
    return OpError(instr, absl::StrCat(side, " scale must be a scalar or have the rank of ", side));
  for (int64_t d = 0; d < os.rank(); ++d)
    if (ss.dim(d) == 0 ? os.dim(d) != 0 : os.dim(d) % ss.dim(d) != 0)
      return OpError(instr, absl::StrCat(side, " scale dimension ", d, " (", ss.dim(d),
                                         ") must divide the operand's (", os.dim(d), ")"));
  const PrimitiveType t = CommonType(os.element_type(), ss.element_type());
  Literal otmp, stmp;
  auto operand = ConvertTo(RowMajor(operand_in, &otmp), t);
  if (!operand.ok()) return OpError(instr, operand.status().message());
  auto scale = ConvertTo(BroadcastBlocks(RowMajor(scale_in, &stmp), os), t);
  if (!scale.ok()) return OpError(instr, scale.status().message());
  auto multiply = SelectElementwiseKernel(Opcode::kMultiply, {t, t}, t, {});
  if (!multiply.ok()) return OpError(instr, multiply.status().message());
  Literal out = Literal::Uninitialized(operand->shape());
  const void* ins[2] = {operand->data(), scale->data()};
  RunElementwise(*multiply, ins, out.data(), out.shape().ElementCount(), {});
  return out;
}

}  // namespace

absl::StatusOr<Literal> LinalgEvalScaledDot(const Instruction& instr,
                                            absl::Span<const Literal* const> operands) {
  if (operands.size() != 4) return OpError(instr, "expects 4 operands (lhs, lhs_scale, rhs, rhs_scale)");
  for (const Literal* op : operands)
    if (!op->shape().IsArray() || op->shape().IsTuple()) return OpError(instr, "operands must be arrays");
  Literal dequantized[2];
  const Literal* dot_operands[2];
  for (int side = 0; side < 2; ++side) {
    const Literal& operand = *operands[2 * side];
    const Literal& scale = *operands[2 * side + 1];
    if (scale.shape().rank() == 0) {
      dot_operands[side] = &operand;
      continue;
    }
    auto d = Dequantize(instr, operand, scale, side == 0 ? "lhs" : "rhs");
    if (!d.ok()) return d.status();
    dequantized[side] = *std::move(d);
    dot_operands[side] = &dequantized[side];
  }
  return LinalgEvalDot(instr, dot_operands);
}

}  // namespace hlo::cpu
