// The elementwise family: every IsElementwise opcode except map, on the
// kernels of elementwise_kernels.h. Operands are brought to the result's
// physical arrangement (same layout; scalar operands of clamp/select
// broadcast), then one kernel runs over the physical slots in parallel
// blocks. Running over tile padding slots is harmless: they are never read
// as values.
#include <algorithm>
#include <cstring>

#include "absl/container/inlined_vector.h"
#include "absl/strings/str_cat.h"
#include "backend_cpu/donation.h"
#include "backend_cpu/elementwise_kernels.h"
#include "backend_cpu/op_eval.h"
#include "backend_cpu/thread_pool.h"

namespace hlo::cpu {
namespace {

template <typename T>
void FillSpan(const uint8_t* src, uint8_t* dst, int64_t begin, int64_t end) {
  T v;
  std::memcpy(&v, src, sizeof v);
  T* p = reinterpret_cast<T*>(dst);
  std::fill(p + begin, p + end, v);
}

// A literal of `shape` (the result's shape but the operand's element type)
// holding the scalar `scalar` in every slot. Written completely by the
// parallel fill, so the storage starts uninitialised.
Literal BroadcastScalar(const Literal& scalar, const Shape& shape) {
  Shape s = shape;
  s.set_element_type(scalar.shape().element_type());
  Literal out = Literal::Uninitialized(s);
  const int b = out.element_bytes();
  const int64_t n = out.physical_count();
  uint8_t* dst = out.data();
  const uint8_t* src = scalar.data();
  ParallelFor(n, kElementwiseBlock, [&](int64_t begin, int64_t end) {
    switch (b) {
      case 1: std::memset(dst + begin, *src, static_cast<size_t>(end - begin)); break;
      case 2: FillSpan<uint16_t>(src, dst, begin, end); break;
      case 4: FillSpan<uint32_t>(src, dst, begin, end); break;
      case 8: FillSpan<uint64_t>(src, dst, begin, end); break;
      default:
        for (int64_t i = begin; i < end; ++i) std::memcpy(dst + i * b, src, b);
    }
  });
  return out;
}

}  // namespace

absl::StatusOr<ElementwiseAttrs> ElementwiseAttrsOf(const Instruction& instr) {
  ElementwiseAttrs attrs;
  if (instr.opcode() == Opcode::kCompare) {
    const std::string* dir = instr.GetAttr<std::string>("direction");
    if (dir == nullptr) return OpError(instr, "missing direction=");
    absl::StatusOr<ComparisonDirection> d = ParseComparisonDirection(*dir);
    if (!d.ok()) return OpError(instr, d.status().message());
    attrs.direction = *d;
    const std::string* type = instr.GetAttr<std::string>("type");
    absl::StatusOr<ComparisonType> t = ParseComparisonType(type ? *type : "");
    if (!t.ok()) return OpError(instr, t.status().message());
    attrs.comparison_type = *t;
  }
  if (instr.opcode() == Opcode::kReducePrecision) {
    attrs.exponent_bits = static_cast<int32_t>(instr.AttrOr<int64_t>("exponent_bits", 0));
    attrs.mantissa_bits = static_cast<int32_t>(instr.AttrOr<int64_t>("mantissa_bits", 0));
  }
  return attrs;
}

absl::StatusOr<Literal> EvalElementwise(const Instruction& instr,
                                        absl::Span<const Literal* const> operands, OpContext&) {
  const Shape& result_shape = instr.shape();
  if (!result_shape.IsArray()) return OpError(instr, "elementwise op with a non-array result");
  absl::StatusOr<ElementwiseAttrs> attrs = ElementwiseAttrsOf(instr);
  if (!attrs.ok()) return attrs.status();

  // Inline storage: this runs once per op, and most ops have up to three
  // operands (a heap allocation each would show in small models' runs).
  absl::InlinedVector<PrimitiveType, 4> types;
  for (const Literal* op : operands) types.push_back(op->shape().element_type());
  absl::StatusOr<ElementwiseKernel> kernel =
      SelectElementwiseKernel(instr.opcode(), types, result_shape.element_type(), *attrs);
  if (!kernel.ok()) return OpError(instr, kernel.status().message());

  // Operands in the result's arrangement.
  std::vector<Literal> converted;  // sized only when an operand needs it
  absl::InlinedVector<const void*, 4> inputs(operands.size());
  for (size_t i = 0; i < operands.size(); ++i) {
    const Literal& op = *operands[i];
    if (!op.shape().IsArray()) return OpError(instr, "elementwise operand is not an array");
    const Layout& want = result_shape.layout();
    if (op.shape().dims() == result_shape.dims()) {
      if (op.shape().layout() == want) {
        inputs[i] = op.data();
        continue;
      }
      converted.resize(operands.size());
      converted[i] = RelayoutOnPool(op, want);
    } else if (op.shape().rank() == 0) {
      converted.resize(operands.size());
      converted[i] = BroadcastScalar(op, result_shape);
    } else {
      return OpError(instr, absl::StrCat("operand ", i, " has dims that differ from the result's"));
    }
    inputs[i] = converted[i].data();
  }

  // Every physical slot (tile padding included) is written by the parallel
  // kernel: no zero-fill pass, and first touch happens in the writers. An
  // operand that dies here and is stored exactly as the result is written
  // over instead (in place, as XLA's buffer assignment shares an
  // elementwise op's buffer with such an operand): every slot is read
  // before the same slot is written, by the same thread, so the values do
  // not change.
  Literal out, taken;
  bool in_place = false;
  for (size_t i = operands.size(); i-- > 0 && !in_place;) {
    if (DonatedOperand(i) == nullptr || inputs[i] != operands[i]->data() ||
        operands[i]->element_bytes() != PrimitiveTypeByteSize(result_shape.element_type()))
      continue;
    // `taken` keeps the storage alive (inputs[i] points into it) even if
    // it could not be reused.
    taken = TakeDonated(i);
    in_place = taken.ReuseStorageAs(result_shape);
    if (in_place) out = std::move(taken);
  }
  if (!in_place) out = Literal::Uninitialized(result_shape);
  RunElementwise(*kernel, inputs, out.data(), out.physical_count(), attrs->params());
  return out;
}

}  // namespace hlo::cpu
