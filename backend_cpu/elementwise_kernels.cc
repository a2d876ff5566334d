#include "backend_cpu/elementwise_kernels.h"

#include <cstring>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "backend_cpu/ew_internal.h"
#include "backend_cpu/ew_types.h"
#include "backend_cpu/thread_pool.h"

namespace hlo::cpu {
namespace {

// copy / select only move bytes: one kernel per element size.
template <int kBytes>
struct Bytes {
  unsigned char b[kBytes];
};

template <int kBytes>
void CopyKernel(const void* const* in, void* out, int64_t begin, int64_t end, const KernelParams&) {
  std::memcpy(static_cast<char*>(out) + begin * kBytes,
              static_cast<const char*>(in[0]) + begin * kBytes,
              static_cast<size_t>(end - begin) * kBytes);
}

// Cloned per ISA like the arithmetic loops (ew_types.h): the byte mask
// widens to the element's lanes in vector registers; the baseline clone
// compiled select of f32 one element at a time (15% of an attention
// softmax). Selecting only moves bits, so every clone gives the same result.
template <typename T>
HLO_EW_CLONES void SelectLoop(const void* const* in, void* out, int64_t begin, int64_t end, const KernelParams&) {
  const uint8_t* __restrict p = static_cast<const uint8_t*>(in[0]);
  const T* __restrict a = static_cast<const T*>(in[1]);
  const T* __restrict b = static_cast<const T*>(in[2]);
  T* __restrict y = static_cast<T*>(out);
  for (int64_t i = begin; i < end; ++i) y[i] = p[i] ? a[i] : b[i];
}

void SelectLoop16(const void* const* in, void* out, int64_t begin, int64_t end,
                  const KernelParams&) {
  const uint8_t* __restrict p = static_cast<const uint8_t*>(in[0]);
  const uint64_t* __restrict a = static_cast<const uint64_t*>(in[1]);
  const uint64_t* __restrict b = static_cast<const uint64_t*>(in[2]);
  uint64_t* __restrict y = static_cast<uint64_t*>(out);
  for (int64_t i = begin; i < end; ++i) {
    const uint64_t* s = p[i] ? a : b;
    y[2 * i] = s[2 * i];
    y[2 * i + 1] = s[2 * i + 1];
  }
}

ElementwiseKernel ByteKernel(Opcode op, int bytes) {
  bool select = op == Opcode::kSelect;
  switch (bytes) {
    case 1: return select ? &SelectLoop<uint8_t> : &CopyKernel<1>;
    case 2: return select ? &SelectLoop<uint16_t> : &CopyKernel<2>;
    case 4: return select ? &SelectLoop<uint32_t> : &CopyKernel<4>;
    case 8: return select ? &SelectLoop<uint64_t> : &CopyKernel<8>;
    case 16: return select ? &SelectLoop16 : &CopyKernel<16>;
    default: return nullptr;
  }
}

std::string TypesString(absl::Span<const PrimitiveType> types) {
  std::string s;
  for (size_t i = 0; i < types.size(); ++i) {
    if (i) s += ", ";
    absl::StrAppend(&s, PrimitiveTypeName(types[i]));
  }
  return s;
}

absl::Status TypeError(Opcode op, absl::Span<const PrimitiveType> operands, PrimitiveType result,
                       absl::string_view why) {
  return absl::InvalidArgumentError(absl::StrCat("no CPU kernel for ", OpcodeName(op), "(",
                                                 TypesString(operands), ") -> ",
                                                 PrimitiveTypeName(result), ": ", why));
}

absl::Status CheckCompareType(PrimitiveType t, const ElementwiseAttrs& attrs) {
  ComparisonType ct = attrs.comparison_type;
  if (ct == ComparisonType::kDefault) return absl::OkStatus();
  bool ok = false;
  if (IsFloat(t)) ok = ct == ComparisonType::kFloat || ct == ComparisonType::kTotalOrder;
  else if (IsComplex(t)) ok = ct == ComparisonType::kFloat;
  else if (IsSignedInt(t)) ok = ct == ComparisonType::kSigned;
  else ok = ct == ComparisonType::kUnsigned;  // unsigned, pred
  if (ok) return absl::OkStatus();
  return absl::InvalidArgumentError(
      absl::StrCat("comparison type does not match operand type ", PrimitiveTypeName(t)));
}

}  // namespace

absl::StatusOr<ComparisonDirection> ParseComparisonDirection(absl::string_view s) {
  if (s == "EQ") return ComparisonDirection::kEq;
  if (s == "NE") return ComparisonDirection::kNe;
  if (s == "GE") return ComparisonDirection::kGe;
  if (s == "GT") return ComparisonDirection::kGt;
  if (s == "LE") return ComparisonDirection::kLe;
  if (s == "LT") return ComparisonDirection::kLt;
  return absl::InvalidArgumentError(absl::StrCat("unknown comparison direction '", s, "'"));
}

absl::StatusOr<ComparisonType> ParseComparisonType(absl::string_view s) {
  if (s.empty()) return ComparisonType::kDefault;
  if (s == "FLOAT") return ComparisonType::kFloat;
  if (s == "TOTALORDER") return ComparisonType::kTotalOrder;
  if (s == "SIGNED") return ComparisonType::kSigned;
  if (s == "UNSIGNED") return ComparisonType::kUnsigned;
  return absl::InvalidArgumentError(absl::StrCat("unknown comparison type '", s, "'"));
}

ElementwiseKernel SelectScalarOperandKernel(Opcode op, PrimitiveType type, int scalar) {
  return ew::SelectFloatScalarOperandKernel(op, type, scalar);
}

absl::StatusOr<ElementwiseKernel> SelectElementwiseKernel(
    Opcode op, absl::Span<const PrimitiveType> operand_types, PrimitiveType result_type,
    const ElementwiseAttrs& attrs) {
  if (!IsElementwise(op) || op == Opcode::kMap) {
    return absl::InvalidArgumentError(
        absl::StrCat(OpcodeName(op), " is not an elementwise op with a kernel"));
  }
  if (static_cast<int>(operand_types.size()) != OpcodeArity(op)) {
    return TypeError(op, operand_types, result_type,
                     absl::StrCat("expects ", OpcodeArity(op), " operands"));
  }
  for (PrimitiveType t : operand_types) {
    if (!IsArrayType(t)) return TypeError(op, operand_types, result_type, "not an array type");
  }
  if (!IsArrayType(result_type)) {
    return TypeError(op, operand_types, result_type, "not an array type");
  }
  const PrimitiveType t = operand_types[0];
  auto same_types = [&](PrimitiveType r) {
    if (result_type != r) return false;
    for (PrimitiveType o : operand_types) {
      if (o != t) return false;
    }
    return true;
  };
  ElementwiseKernel k = nullptr;
  switch (op) {
    case Opcode::kConvert:
      k = ew::SelectConvertKernel(t, result_type);
      break;
    case Opcode::kStochasticConvert:
      k = ew::SelectStochasticConvertKernel(t, operand_types[1], result_type);
      break;
    case Opcode::kCopy:
      if (!same_types(t)) return TypeError(op, operand_types, result_type, "type mismatch");
      k = ByteKernel(op, PrimitiveTypeByteSize(t));
      break;
    case Opcode::kSelect:
      if (operand_types[0] != PrimitiveType::PRED || operand_types[1] != result_type ||
          operand_types[2] != result_type) {
        return TypeError(op, operand_types, result_type, "expects (pred, T, T) -> T");
      }
      k = ByteKernel(op, PrimitiveTypeByteSize(result_type));
      break;
    case Opcode::kComplex:
      if (operand_types[1] != t ||
          !((t == PrimitiveType::F32 && result_type == PrimitiveType::C64) ||
            (t == PrimitiveType::F64 && result_type == PrimitiveType::C128))) {
        return TypeError(op, operand_types, result_type, "expects (f32, f32) -> c64 or (f64, f64) -> c128");
      }
      k = ew::SelectMakeComplexKernel(t);
      break;
    default: {
      PrimitiveType expected = t;
      if (op == Opcode::kCompare || op == Opcode::kIsFinite) {
        expected = PrimitiveType::PRED;
      } else if (IsComplex(t) && (op == Opcode::kAbs || op == Opcode::kReal || op == Opcode::kImag)) {
        expected = ComplexComponentType(t);
      }
      if (!same_types(expected)) {
        return TypeError(op, operand_types, result_type,
                         absl::StrCat("expects operands of one type and result ",
                                      PrimitiveTypeName(expected)));
      }
      if (op == Opcode::kCompare) {
        absl::Status s = CheckCompareType(t, attrs);
        if (!s.ok()) return s;
      }
      if (op == Opcode::kReducePrecision &&
          (attrs.exponent_bits < 1 || attrs.mantissa_bits < 0)) {
        return absl::InvalidArgumentError(
            "reduce-precision needs exponent_bits >= 1 and mantissa_bits >= 0");
      }
      if (IsPred(t)) {
        k = ew::SelectPredKernel(op, attrs);
      } else if (IsInteger(t)) {
        k = ew::SelectIntKernel(op, t, attrs);
      } else if (IsFloat(t)) {
        k = ew::SelectFloatKernel(op, t, attrs);
      } else if (IsComplex(t)) {
        k = ew::SelectComplexKernel(op, t, attrs);
      }
      break;
    }
  }
  if (k == nullptr) {
    return TypeError(op, operand_types, result_type, "operation not defined for these types");
  }
  return k;
}

void RunElementwise(ElementwiseKernel kernel, absl::Span<const void* const> inputs, void* output,
                    int64_t n, const KernelParams& params, int64_t min_block) {
  const void* const* in = inputs.data();
  ParallelFor(n, min_block, [&](int64_t begin, int64_t end) { kernel(in, output, begin, end, params); });
}

namespace ew {

ElementwiseKernel SelectConvertKernel(PrimitiveType from, PrimitiveType to) {
  if (!IsArrayType(from) || !IsArrayType(to)) return nullptr;
  if (IsPred(from) || IsInteger(from)) return SelectConvertFromIntOrPred(from, to);
  if (IsComplex(from)) return SelectConvertFromComplex(from, to);
  switch (from) {
    case PrimitiveType::F16:
    case PrimitiveType::BF16:
    case PrimitiveType::F32:
    case PrimitiveType::F64: return SelectConvertFromWideFloat(from, to);
    default: return SelectConvertFromSmallFloat(from, to);
  }
}

}  // namespace ew
}  // namespace hlo::cpu
