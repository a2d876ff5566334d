// Helpers shared by the op families (see op_eval.h).
#include <cblas.h>

#include <algorithm>
#include <cstring>
#include <mutex>

#include "absl/strings/str_cat.h"
#include "backend_cpu/op_eval.h"
#include "backend_cpu/openblas_core.h"
#include "backend_cpu/thread_pool.h"

namespace hlo::cpu {

bool IsRowMajor(const Shape& shape) {
  const Layout& l = shape.layout();
  if (!l.tiles.empty()) return false;
  const int64_t rank = shape.rank();
  if (static_cast<int64_t>(l.minor_to_major.size()) != rank) return rank == 0;
  for (int64_t i = 0; i < rank; ++i)
    if (l.minor_to_major[i] != rank - 1 - i) return false;
  return true;
}

Layout RowMajorLayout(int64_t rank) {
  Layout l;
  for (int64_t i = rank - 1; i >= 0; --i) l.minor_to_major.push_back(i);
  return l;
}

Literal RelayoutOnPool(const Literal& lit, const Layout& layout) {
  return lit.Relayout(layout, [](int64_t n, int64_t min_block,
                                 absl::FunctionRef<void(int64_t, int64_t)> fn) {
    ParallelFor(n, min_block, fn);
  });
}

Literal ToLayout(Literal lit, const Layout& layout) {
  if (!lit.shape().IsArray() || lit.shape().layout() == layout) return lit;
  return RelayoutOnPool(lit, layout);
}

Literal ConformLayouts(Literal lit, const Shape& shape) {
  if (shape.IsArray()) return ToLayout(std::move(lit), shape.layout());
  if (shape.IsTuple() && lit.IsTuple() &&
      lit.tuple_elements().size() == shape.tuple_shapes().size()) {
    std::vector<Literal> elems = std::move(lit.mutable_tuple_elements());
    for (size_t i = 0; i < elems.size(); ++i)
      elems[i] = ConformLayouts(std::move(elems[i]), shape.tuple_shapes()[i]);
    return Literal::MakeTuple(std::move(elems));
  }
  return lit;
}

const Literal& RowMajor(const Literal& lit, Literal* storage) {
  if (!lit.shape().IsArray() || IsRowMajor(lit.shape())) return lit;
  *storage = RelayoutOnPool(lit, RowMajorLayout(lit.shape().rank()));
  return *storage;
}

Literal RowMajorLiteral(const Shape& shape) {
  Shape s = shape;
  if (s.IsArray()) s.set_layout(RowMajorLayout(s.rank()));
  return Literal(s);
}

Literal RowMajorUninitialized(const Shape& shape) {
  Shape s = shape;
  if (s.IsArray()) s.set_layout(RowMajorLayout(s.rank()));
  return Literal::Uninitialized(s);
}

void CopyBytesOnPool(uint8_t* dst, const uint8_t* src, size_t bytes) {
  constexpr size_t kBlock = 1 << 20;
  ParallelFor(static_cast<int64_t>((bytes + kBlock - 1) / kBlock), 1,
              [&](int64_t begin, int64_t end) {
                for (int64_t b = begin; b < end; ++b) {
                  const size_t at = static_cast<size_t>(b) * kBlock;
                  std::memcpy(dst + at, src + at, std::min(kBlock, bytes - at));
                }
              });
}

std::vector<int64_t> RowMajorStrides(absl::Span<const int64_t> dims) {
  std::vector<int64_t> strides(dims.size(), 1);
  for (int64_t i = static_cast<int64_t>(dims.size()) - 2; i >= 0; --i)
    strides[i] = strides[i + 1] * dims[i + 1];
  return strides;
}

void UseSingleThreadedBlas() {
  static std::once_flag once;
  std::call_once(once, [] {
    SelectOpenBlasKernels();
    openblas_set_num_threads(1);
  });
}

absl::Status OpError(const Instruction& instr, absl::string_view message) {
  return absl::InvalidArgumentError(
      absl::StrCat(OpcodeName(instr.opcode()), " %", instr.name(), ": ", message));
}

absl::Status OpUnimplemented(const Instruction& instr, absl::string_view what) {
  return absl::UnimplementedError(absl::StrCat(OpcodeName(instr.opcode()), " %", instr.name(),
                                               ": not implemented on the CPU backend: ", what));
}

std::optional<BinaryOfParameters> MatchBinaryOfParameters(const Computation* c, PrimitiveType type) {
  if (c == nullptr || c->num_parameters() != 2) return std::nullopt;
  const Instruction* root = c->root();
  if (root == nullptr || root->operand_count() != 2 || !root->shape().IsScalar()) return std::nullopt;
  const PrimitiveType t = root->shape().element_type();
  if (type != PrimitiveType::kInvalid && t != type) return std::nullopt;
  const Instruction* a = root->operand(0);
  const Instruction* b = root->operand(1);
  if (a->opcode() != Opcode::kParameter || b->opcode() != Opcode::kParameter ||
      a->parameter_number() == b->parameter_number())
    return std::nullopt;
  for (const Instruction* p : {a, b})
    if (!p->shape().IsScalar() || p->shape().element_type() != t) return std::nullopt;
  return BinaryOfParameters{root->opcode(), a->parameter_number() == 1, t};
}

}  // namespace hlo::cpu
