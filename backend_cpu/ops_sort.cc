// sort and topk.
//
// sort: every slice along the sort dimension is sorted with std::stable_sort
// (also when is_stable=false: a stable order is a valid unstable one), on a
// permutation that is then applied to every operand. A comparator whose root
// is compare(p[2k], p[2k+1]) (LT/GT, default or TOTALORDER type) is run as
// a typed key comparison on operand k; anything else calls the comparator
// through ctx.call. Both paths run the same algorithm on the same sequence,
// so they give the same result even for comparators that are not strict
// weak orders (e.g. FLOAT LT with NaNs).
//
// topk: XLA's CPU runtime order: values compared in a total order
// (-NaN < -inf < ... < -0 < +0 < ... < +inf < +NaN), largest first (smallest
// first for largest=false), ties by lower index.
#include <algorithm>
#include <cstring>
#include <numeric>
#include <type_traits>
#include <vector>

#include "backend_cpu/ew_types.h"
#include "backend_cpu/op_eval.h"
#include "backend_cpu/scalar_calls.h"
#include "backend_cpu/thread_pool.h"

namespace hlo::cpu {
namespace {

// Slices along one dimension of a row-major array: slice s, position j ->
// offset Base(s) + j * stride.
struct SliceGeom {
  int64_t len = 0, stride = 1, count = 0;
  SliceGeom(absl::Span<const int64_t> dims, int64_t d) {
    len = dims[d];
    stride = 1;
    for (size_t i = d + 1; i < dims.size(); ++i) stride *= dims[i];
    int64_t outer = 1;
    for (int64_t i = 0; i < d; ++i) outer *= dims[i];
    count = outer * stride;
  }
  int64_t Base(int64_t s) const { return (s / stride) * len * stride + s % stride; }
};

// Total-order key of a float's bits (sign-magnitude -> two's complement
// order) as an unsigned integer.
inline uint64_t TotalOrderDouble(double v) {
  uint64_t b;
  std::memcpy(&b, &v, sizeof b);
  return (b >> 63) ? ~b : (b | (uint64_t{1} << 63));
}

// ---------------------------------------------------------------- sort fast path

enum class KeyKind { kNative, kTotalOrder };

// Sort key of a typed element.
template <class T, KeyKind kKind>
struct SortKey {
  using S = typename T::Storage;
  static auto Get(S v) {
    if constexpr (kKind == KeyKind::kTotalOrder) {
      if constexpr (std::is_same_v<S, float>) {
        uint32_t b;
        std::memcpy(&b, &v, sizeof b);
        const int64_t mag = static_cast<int64_t>(b & 0x7fffffffu);
        return (b >> 31) ? -1 - mag : mag;
      } else if constexpr (std::is_same_v<S, double>) {
        uint64_t b;
        std::memcpy(&b, &v, sizeof b);
        const int64_t mag = static_cast<int64_t>(b & ~(uint64_t{1} << 63));
        return (b >> 63) ? -1 - mag : mag;
      } else {  // 16-bit float bits
        const int64_t mag = static_cast<int64_t>(v & 0x7fffu);
        return (v >> 15) ? -1 - mag : mag;
      }
    } else {
      return T::Load(v);
    }
  }
};

struct SortFastArgs {
  int64_t key_operand;
  bool less;  // LT (else GT) on (lhs, rhs)
};

template <class T, KeyKind kKind>
void SortPermutations(const Literal& key, const SliceGeom& g, bool less, std::vector<int64_t>* perm) {
  using S = typename T::Storage;
  using K = decltype(SortKey<T, kKind>::Get(S{}));
  const S* x = reinterpret_cast<const S*>(key.data());
  const int64_t min_block = std::max<int64_t>(1, 16384 / std::max<int64_t>(1, g.len));
  ParallelFor(g.count, min_block, [&](int64_t b, int64_t e) {
    std::vector<std::pair<K, int64_t>> v(g.len);
    for (int64_t s = b; s < e; ++s) {
      const int64_t base = g.Base(s);
      for (int64_t j = 0; j < g.len; ++j) v[j] = {SortKey<T, kKind>::Get(x[base + j * g.stride]), j};
      if (less) {
        std::stable_sort(v.begin(), v.end(), [](const auto& a, const auto& c) { return a.first < c.first; });
      } else {
        std::stable_sort(v.begin(), v.end(), [](const auto& a, const auto& c) { return a.first > c.first; });
      }
      int64_t* p = perm->data() + s * g.len;
      for (int64_t j = 0; j < g.len; ++j) p[j] = v[j].second;
    }
  });
}

// Returns false when the comparator has no fast form for these operands.
bool TrySortFast(const Computation& comp, absl::Span<const Literal* const> ins, const SliceGeom& g,
                 std::vector<int64_t>* perm) {
  const Instruction* root = comp.root();
  if (root == nullptr || root->opcode() != Opcode::kCompare || root->operand_count() != 2) return false;
  const Instruction* a = root->operand(0);
  const Instruction* b = root->operand(1);
  if (a->opcode() != Opcode::kParameter || b->opcode() != Opcode::kParameter) return false;
  const int64_t pa = a->parameter_number(), pb = b->parameter_number();
  if (pa / 2 != pb / 2 || pa == pb) return false;
  const int64_t k = pa / 2;
  if (k >= static_cast<int64_t>(ins.size())) return false;
  const PrimitiveType t = ins[k]->shape().element_type();
  if (a->shape().element_type() != t || b->shape().element_type() != t) return false;
  const std::string dir = root->AttrOr<std::string>("direction", "");
  bool less;
  if (dir == "LT") less = true;
  else if (dir == "GT") less = false;
  else return false;
  if (pa % 2 == 1) less = !less;  // compare(rhs, lhs)
  const std::string type = root->AttrOr<std::string>("type", "");
  bool total = false;
  if (type == "TOTALORDER") {
    if (!IsFloat(t)) return false;
    total = true;
  } else if (!type.empty()) {
    const char* want = IsFloat(t) ? "FLOAT" : IsSignedInt(t) ? "SIGNED" : "UNSIGNED";
    if (type != want) return false;
  }
  switch (t) {
#define HLO_NATIVE(E, Tr)                                                      \
  case PrimitiveType::E:                                                       \
    SortPermutations<Tr, KeyKind::kNative>(*ins[k], g, less, perm);            \
    return true;
    HLO_NATIVE(PRED, ew::PredT)
    HLO_NATIVE(S8, ew::S8T)
    HLO_NATIVE(S16, ew::S16T)
    HLO_NATIVE(S32, ew::S32T)
    HLO_NATIVE(S64, ew::S64T)
    HLO_NATIVE(U8, ew::U8T)
    HLO_NATIVE(U16, ew::U16T)
    HLO_NATIVE(U32, ew::U32T)
    HLO_NATIVE(U64, ew::U64T)
#undef HLO_NATIVE
#define HLO_FLOAT(E, Tr)                                                        \
  case PrimitiveType::E:                                                        \
    if (total) SortPermutations<Tr, KeyKind::kTotalOrder>(*ins[k], g, less, perm); \
    else SortPermutations<Tr, KeyKind::kNative>(*ins[k], g, less, perm);          \
    return true;
    HLO_FLOAT(F16, ew::F16T)
    HLO_FLOAT(BF16, ew::BF16T)
    HLO_FLOAT(F32, ew::F32T)
    HLO_FLOAT(F64, ew::F64T)
#undef HLO_FLOAT
    default: return false;
  }
}

absl::StatusOr<Literal> EvalSortImpl(const Instruction& instr, absl::Span<const Literal* const> operands,
                                     OpContext& ctx) {
  const Computation* comp = instr.AttrOr<Computation*>("to_apply", nullptr);
  if (comp == nullptr) return OpError(instr, "missing to_apply");
  const int64_t n = static_cast<int64_t>(operands.size());
  if (n == 0) return OpError(instr, "needs at least one operand");
  if (comp->num_parameters() != 2 * n) return OpError(instr, "comparator must take 2N parameters");
  const Shape& shape = instr.shape();
  if ((n > 1 && !shape.IsTuple()) || (shape.IsTuple() && shape.tuple_size() != n))
    return OpError(instr, "result shape does not match the number of operands");
  const std::vector<int64_t> dims_attr = instr.AttrOr<std::vector<int64_t>>("dimensions", {});
  const Shape& s0 = operands[0]->shape();
  if (dims_attr.size() != 1 || dims_attr[0] < 0 || dims_attr[0] >= s0.rank())
    return OpError(instr, "needs exactly one valid sort dimension");
  std::vector<Literal> tmp(n);
  std::vector<const Literal*> ins(n);
  for (int64_t i = 0; i < n; ++i) {
    if (!operands[i]->shape().IsArray() || operands[i]->shape().dims() != s0.dims())
      return OpError(instr, "operands must be arrays of the same dimensions");
    const Shape& rs = shape.IsTuple() ? shape.tuple_shape(i) : shape;
    if (rs.element_type() != operands[i]->shape().element_type() || rs.dims() != s0.dims())
      return OpError(instr, "result shapes must match the operands");
    ins[i] = &RowMajor(*operands[i], &tmp[i]);
  }
  const SliceGeom g(s0.dims(), dims_attr[0]);
  std::vector<int64_t> perm(static_cast<size_t>(g.count * g.len));
  if (g.count > 0 && g.len > 0 && !TrySortFast(*comp, ins, g, &perm)) {
    const int64_t min_block = std::max<int64_t>(1, 256 / std::max<int64_t>(1, g.len));
    const absl::Status status = CallBlocks(g.count, min_block, [&](int64_t b, int64_t e, absl::Status& st) {
      ScalarArgs args(*comp, 2 * n);
      for (int64_t s = b; s < e && st.ok(); ++s) {
        const int64_t base = g.Base(s);
        int64_t* p = perm.data() + s * g.len;
        std::iota(p, p + g.len, int64_t{0});
        std::stable_sort(p, p + g.len, [&](int64_t x, int64_t y) {
          if (!st.ok()) return false;
          for (int64_t i = 0; i < n && st.ok(); ++i) {
            st = CopyScalarInto(*ins[i], base + x * g.stride, &args.values[2 * i]);
            if (st.ok()) st = CopyScalarInto(*ins[i], base + y * g.stride, &args.values[2 * i + 1]);
          }
          if (!st.ok()) return false;
          auto r = ctx.call(*comp, args.ptrs);
          if (!r.ok()) {
            st = r.status();
            return false;
          }
          if (!r->shape().IsScalar() || r->shape().element_type() != PrimitiveType::PRED) {
            st = absl::InvalidArgumentError("comparator did not return pred[]");
            return false;
          }
          return r->GetRaw<uint8_t>(0) != 0;
        });
      }
    });
    if (!status.ok()) return OpError(instr, status.message());
  }
  // Apply the permutation to every operand.
  std::vector<Literal> outs;
  for (int64_t i = 0; i < n; ++i) {
    outs.push_back(RowMajorLiteral(shape.IsTuple() ? shape.tuple_shape(i) : shape));
    const int eb = ins[i]->element_bytes();
    const uint8_t* src = ins[i]->data();
    uint8_t* dst = outs[i].data();
    ParallelFor(g.count, std::max<int64_t>(1, 16384 / std::max<int64_t>(1, g.len)),
                [&](int64_t b, int64_t e) {
                  for (int64_t s = b; s < e; ++s) {
                    const int64_t base = g.Base(s);
                    const int64_t* p = perm.data() + s * g.len;
                    for (int64_t j = 0; j < g.len; ++j)
                      std::memcpy(dst + (base + j * g.stride) * eb, src + (base + p[j] * g.stride) * eb, eb);
                  }
                });
  }
  if (!shape.IsTuple()) return ToLayout(std::move(outs[0]), shape.layout());
  Literal result(shape);
  for (int64_t i = 0; i < n; ++i)
    result.mutable_tuple_elements()[i] = ToLayout(std::move(outs[i]), shape.tuple_shape(i).layout());
  return result;
}

// ---------------------------------------------------------------- topk

// The k first elements of every row (last dimension) in the order of their
// values' total order (largest or smallest first), ties by lower index:
// topk's semantics, and XLA:CPU's TopK custom call with largest = true.
absl::StatusOr<Literal> EvalTopKImpl(const Instruction& instr, absl::Span<const Literal* const> operands,
                                     int64_t k, bool largest) {
  if (operands.size() != 1) return OpError(instr, "expects one operand");
  const Shape& shape = instr.shape();
  if (!shape.IsTuple() || shape.tuple_size() != 2) return OpError(instr, "result must be (values, indices)");
  Literal tmp;
  const Literal& in = RowMajor(*operands[0], &tmp);
  const Shape& is = in.shape();
  if (!is.IsArray() || is.rank() < 1) return OpError(instr, "operand must have rank >= 1");
  const PrimitiveType t = is.element_type();
  if (IsComplex(t)) return OpUnimplemented(instr, "topk of complex values");
  const int64_t len = is.dims().back();
  if (k < 0 || k > len) return OpError(instr, "k must be in [0, last dimension]");
  const Shape& vs = shape.tuple_shape(0);
  const Shape& xs = shape.tuple_shape(1);
  std::vector<int64_t> want(is.dims().begin(), is.dims().end());
  want.back() = k;
  if (!SameInts(vs.dims(), want) || !SameInts(xs.dims(), want) || vs.element_type() != t || xs.element_type() != PrimitiveType::S32)
    return OpError(instr, "result shapes do not match the operand and k");
  if (len > int64_t{0x7fffffff}) return OpUnimplemented(instr, "topk over more than 2^31 elements");
  Literal vals = RowMajorLiteral(vs);
  Literal idxs = RowMajorLiteral(xs);
  const int64_t rows = len == 0 ? 0 : is.ElementCount() / len;
  const int eb = in.element_bytes();
  const bool is_float = IsFloat(t), is_signed = IsSignedInt(t);
  ParallelFor(rows, std::max<int64_t>(1, 16384 / std::max<int64_t>(1, len)), [&](int64_t b, int64_t e) {
    std::vector<uint64_t> key(len);
    std::vector<int32_t> idx(len);
    for (int64_t r = b; r < e; ++r) {
      const int64_t base = r * len;
      for (int64_t j = 0; j < len; ++j) {
        if (is_float) {
          key[j] = TotalOrderDouble(in.GetDouble(base + j));
        } else {
          const uint64_t v = static_cast<uint64_t>(in.GetInt(base + j));
          key[j] = is_signed ? v ^ (uint64_t{1} << 63) : v;
        }
      }
      std::iota(idx.begin(), idx.end(), 0);
      auto cmp = [&](int32_t a, int32_t c) {
        if (key[a] != key[c]) return largest ? key[a] > key[c] : key[a] < key[c];
        return a < c;
      };
      std::partial_sort(idx.begin(), idx.begin() + k, idx.end(), cmp);
      for (int64_t j = 0; j < k; ++j) {
        std::memcpy(vals.data() + (r * k + j) * eb, in.data() + (base + idx[j]) * eb, eb);
        idxs.SetRaw<int32_t>(r * k + j, idx[j]);
      }
    }
  });
  Literal result(shape);
  result.mutable_tuple_elements()[0] = ToLayout(std::move(vals), vs.layout());
  result.mutable_tuple_elements()[1] = ToLayout(std::move(idxs), xs.layout());
  return result;
}

}  // namespace

absl::StatusOr<Literal> EvalSortOp(const Instruction& instr, absl::Span<const Literal* const> operands,
                                   OpContext& ctx) {
  return EvalSortImpl(instr, operands, ctx);
}
absl::StatusOr<Literal> EvalTopKOp(const Instruction& instr, absl::Span<const Literal* const> operands,
                                   OpContext&) {
  return EvalTopKImpl(instr, operands, instr.AttrOr<int64_t>("k", -1), instr.AttrOr<bool>("largest", true));
}

// XLA:CPU's optimized HLO replaces a sort-based top-k by
// custom_call_target="TopK": one operand, result (values, s32 indices) whose
// last dimension is k, largest first. XLA's runtime orders the values by the
// total order of their bits (-NaN < -inf < -0 < +0 < +inf < +NaN) and ties
// by index, the same as topk; the comparator it names is not called.
absl::StatusOr<Literal> EvalTopKCustomCall(const Instruction& instr,
                                           absl::Span<const Literal* const> operands, OpContext&) {
  const Shape& shape = instr.shape();
  if (!shape.IsTuple() || shape.tuple_size() != 2 || !shape.tuple_shape(0).IsArray() ||
      shape.tuple_shape(0).rank() < 1)
    return OpError(instr, "result must be (values, indices) arrays of rank >= 1");
  return EvalTopKImpl(instr, operands, shape.tuple_shape(0).dims().back(), /*largest=*/true);
}

}  // namespace hlo::cpu
