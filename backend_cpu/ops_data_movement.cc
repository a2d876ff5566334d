// The data-movement family: broadcast, reshape, dynamic-reshape, transpose,
// slice, dynamic-slice, dynamic-update-slice, concatenate, pad, reverse,
// iota, gather, scatter, get-dimension-size, set-dimension-size.
//
// Every op but iota and scatter only moves element bytes, so it works on the
// element byte size alone (1/2/4/8/16 bytes) and never on values: pred, f8,
// s4, c128 ... all go through the same code. Operands are taken row-major
// (RowMajor), the result is computed row-major and relaid at the end.
//
// The workhorse is StridedCopy (ir/strided_copy.h): a copy over an index
// space where every index has a destination offset and a source offset
// (each a linear function of the index, strides in elements, possibly 0 or
// negative). Broadcast, transpose, slice, reverse, concatenate, pad,
// dynamic-(update-)slice and the slices of gather are all one StridedCopy;
// transposing ones run the cache-blocked kernel (ir/transpose_kernels.h).
// Large copies run in fixed blocks on the thread pool (no two blocks write
// the same byte, so the result never depends on the thread count).
// Semantics choices: docs/ops-data-movement.md.
#include <algorithm>
#include <cstring>
#include <initializer_list>
#include <limits>
#include <vector>

#include "absl/strings/str_cat.h"
#include "backend_cpu/elementwise_kernels.h"
#include "backend_cpu/donation.h"
#include "backend_cpu/op_eval.h"
#include "backend_cpu/thread_pool.h"
#include "ir/strided_copy.h"

namespace hlo::cpu {
namespace {

constexpr int kMaxRank = kStridedCopyMaxRank;
// Gather: below this many bytes the slices are copied on the calling
// thread; otherwise at least this many bytes per parallel block.
constexpr int64_t kParallelBytes = 1 << 16;
constexpr int64_t kBlockBytes = 1 << 15;

// The copies of this file on the process-wide pool.
void RunOnPool(const StridedCopy& plan, uint8_t* dst, const uint8_t* src) {
  plan.RunParallel(dst, src, [](int64_t n, int64_t min_block,
                                absl::FunctionRef<void(int64_t, int64_t)> fn) {
    ParallelFor(n, min_block, fn);
  });
}

// True if every offset base + sum(i*strides) over `dims` lies in [0, count).
bool InRange(absl::Span<const int64_t> dims, absl::Span<const int64_t> strides, int64_t base,
             int64_t count) {
  int64_t lo = base, hi = base;
  for (size_t i = 0; i < dims.size(); ++i) {
    if (dims[i] == 0) return true;
    const int64_t span = strides[i] * (dims[i] - 1);
    if (span < 0) lo += span; else hi += span;
  }
  return lo >= 0 && hi < count;
}

// Checked copy: dst/src are whole row-major buffers of dst_count/src_count
// elements; offsets and strides in elements.
absl::Status Copy(const Instruction& instr, int eb, absl::Span<const int64_t> dims,
                  uint8_t* dst, int64_t dst_count, int64_t dst_base,
                  absl::Span<const int64_t> dst_strides, const uint8_t* src, int64_t src_count,
                  int64_t src_base, absl::Span<const int64_t> src_strides) {
  if (static_cast<int64_t>(dims.size()) > kMaxRank)
    return OpUnimplemented(instr, absl::StrCat("rank above ", kMaxRank));
  if (!InRange(dims, dst_strides, dst_base, dst_count) ||
      !InRange(dims, src_strides, src_base, src_count))
    return OpError(instr, "operand and result shapes do not agree with the attributes");
  // Walk the destination in memory order (its strides decreasing): the
  // inner dim is then the destination's contiguous one, whatever the
  // result's layout, which is what the plan's merging and transpose
  // blocking look for.
  std::vector<int> order(dims.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = static_cast<int>(i);
  std::stable_sort(order.begin(), order.end(),
                   [&](int a, int b) { return dst_strides[a] > dst_strides[b]; });
  std::vector<int64_t> pd(dims.size()), pds(dims.size()), pss(dims.size());
  for (size_t i = 0; i < order.size(); ++i) {
    pd[i] = dims[order[i]];
    pds[i] = dst_strides[order[i]];
    pss[i] = src_strides[order[i]];
  }
  StridedCopy plan(eb, pd, pds, pss);
  RunOnPool(plan, dst + dst_base * eb, src + src_base * eb);
  return absl::OkStatus();
}

int64_t Count(const Literal& lit) { return lit.shape().ElementCount(); }

// Fills `n` elements at dst with the `eb`-byte value at `value`.
void Fill(uint8_t* dst, int64_t n, const uint8_t* value, int eb) {
  if (n <= 0) return;
  const int64_t total = n * eb;
  std::memcpy(dst, value, eb);
  int64_t done = eb;
  while (done < total) {
    const int64_t c = std::min(done, total - done);
    std::memcpy(dst + done, dst, static_cast<size_t>(c));
    done += c;
  }
}

absl::Status CheckArrayResult(const Instruction& instr) {
  if (!instr.shape().IsArray()) return OpError(instr, "expected an array result shape");
  if (instr.shape().rank() > kMaxRank)
    return OpUnimplemented(instr, absl::StrCat("rank above ", kMaxRank));
  return absl::OkStatus();
}

absl::Status CheckOperandCount(const Instruction& instr, absl::Span<const Literal* const> ops,
                               size_t n) {
  if (ops.size() != n)
    return OpError(instr, absl::StrCat("expected ", n, " operands, got ", ops.size()));
  return absl::OkStatus();
}

absl::Status CheckSameType(const Instruction& instr, const Literal& op) {
  if (!op.shape().IsArray()) return OpError(instr, "expected an array operand");
  if (op.shape().element_type() != instr.shape().element_type())
    return OpError(instr, absl::StrCat("operand element type ",
                                       PrimitiveTypeName(op.shape().element_type()),
                                       " differs from the result's ",
                                       PrimitiveTypeName(instr.shape().element_type())));
  if (op.shape().rank() > kMaxRank)
    return OpUnimplemented(instr, absl::StrCat("rank above ", kMaxRank));
  return absl::OkStatus();
}

// Reads an integer scalar (index operand). Unsigned values above INT64_MAX
// saturate.
absl::StatusOr<int64_t> ScalarIndex(const Instruction& instr, const Literal& lit, int64_t slot) {
  const PrimitiveType t = lit.shape().element_type();
  if (!lit.shape().IsArray() || !IsInteger(t))
    return OpError(instr, "start indices must be integers");
  if (slot >= Count(lit)) return OpError(instr, "too few start indices");
  int64_t v = lit.GetInt(slot);
  if (IsUnsignedInt(t) && v < 0) v = std::numeric_limits<int64_t>::max();
  return v;
}

// All elements of an integer array as int64 (row-major order).
absl::StatusOr<std::vector<int64_t>> IndexValues(const Instruction& instr, const Literal& rm) {
  const PrimitiveType t = rm.shape().element_type();
  if (!IsInteger(t)) return OpError(instr, "indices must be integers");
  const int64_t n = Count(rm);
  std::vector<int64_t> v(static_cast<size_t>(n));
  // The usual index types read straight from storage (a gather of many
  // slices reads as many indices as it copies slices).
  auto read = [&](auto zero) {
    using T = decltype(zero);
    const T* p = reinterpret_cast<const T*>(rm.data());
    for (int64_t i = 0; i < n; ++i) v[i] = static_cast<int64_t>(p[i]);
    return v;
  };
  switch (t) {
    case PrimitiveType::S32: return read(int32_t{});
    case PrimitiveType::S64: return read(int64_t{});
    case PrimitiveType::U32: return read(uint32_t{});
    case PrimitiveType::S16: return read(int16_t{});
    case PrimitiveType::U16: return read(uint16_t{});
    case PrimitiveType::S8: return read(int8_t{});
    case PrimitiveType::U8: return read(uint8_t{});
    default: break;
  }
  const bool is_unsigned = IsUnsignedInt(t);
  for (int64_t i = 0; i < n; ++i) {
    int64_t x = rm.GetInt(i);
    if (is_unsigned && x < 0) x = std::numeric_limits<int64_t>::max();
    v[i] = x;
  }
  return v;
}

int64_t Clamp(int64_t v, int64_t lo, int64_t hi) { return std::max(lo, std::min(v, hi)); }

// Start indices of dynamic-slice / dynamic-update-slice: `rank` scalar
// operands from `first`, or one rank-1 vector (legacy form).
absl::StatusOr<std::vector<int64_t>> StartIndices(const Instruction& instr,
                                                  absl::Span<const Literal* const> ops,
                                                  size_t first, int64_t rank) {
  std::vector<int64_t> starts(rank, 0);
  const size_t n = ops.size() - first;
  if (static_cast<int64_t>(n) == rank) {
    for (int64_t i = 0; i < rank; ++i) {
      if (ops[first + i]->shape().rank() != 0)
        return OpError(instr, "start indices must be scalars");
      absl::StatusOr<int64_t> v = ScalarIndex(instr, *ops[first + i], 0);
      if (!v.ok()) return v.status();
      starts[i] = *v;
    }
    return starts;
  }
  if (n == 1 && ops[first]->shape().rank() == 1 && ops[first]->shape().dim(0) == rank) {
    Literal tmp;
    const Literal& v = RowMajor(*ops[first], &tmp);
    for (int64_t i = 0; i < rank; ++i) {
      absl::StatusOr<int64_t> x = ScalarIndex(instr, v, i);
      if (!x.ok()) return x.status();
      starts[i] = *x;
    }
    return starts;
  }
  return OpError(instr, absl::StrCat("expected ", rank, " scalar start indices, got ", n,
                                     " operands"));
}

// The starting value of an op that updates its operand (dynamic-update-slice,
// scatter): `in` (operand `i`, row-major) as a row-major literal of `shape`.
// Taken over without a copy when the executor donates the operand and its
// storage already is that literal; copied otherwise.
Literal TakeOrCopyOperand(size_t i, const Literal& in, const Shape& shape) {
  Literal* donated = DonatedOperand(i);
  if (donated != nullptr && &in == donated && in.shape().element_type() == shape.element_type())
    return TakeDonated(i);
  Literal out = RowMajorUninitialized(shape);
  if (out.size_bytes() > 0) std::memcpy(out.data(), in.data(), out.size_bytes());
  return out;
}

Literal Finish(Literal result, const Shape& shape) {
  return ToLayout(std::move(result), shape.layout());
}

// The checks of the ops that read one operand of the result's element type.
absl::Status CheckOneOperandOfResultType(const Instruction& instr,
                                         absl::Span<const Literal* const> ops) {
  if (absl::Status s = CheckOperandCount(instr, ops, 1); !s.ok()) return s;
  if (absl::Status s = CheckArrayResult(instr); !s.ok()) return s;
  return CheckSameType(instr, *ops[0]);
}

// True for an untiled layout without padding: element strides follow from
// minor_to_major alone and the buffer holds exactly the elements.
bool DenseUntiled(const Shape& shape) {
  return shape.IsArray() && shape.layout().tiles.empty() &&
         static_cast<int64_t>(shape.layout().minor_to_major.size()) == shape.rank() &&
         PhysicalElementCount(shape) == shape.ElementCount();
}

// The result of `instr` read entirely from one source of `src_count`
// elements: result index i (row-major) takes the source element at
// src_base + sum(i * src_strides). Every element is written once, so the
// result is not zero-filled first; an untiled result is written in its
// own layout (no relayout pass after).
absl::StatusOr<Literal> CopyToResult(const Instruction& instr, const uint8_t* src,
                                     int64_t src_count, int64_t src_base,
                                     absl::Span<const int64_t> src_strides) {
  const Shape& out_shape = instr.shape();
  const bool direct = DenseUntiled(out_shape);
  Literal out = direct ? Literal::Uninitialized(out_shape) : RowMajorUninitialized(out_shape);
  const std::vector<int64_t> dst_strides =
      direct ? UntiledStrides(out.shape()) : RowMajorStrides(out_shape.dims());
  if (absl::Status s = Copy(instr, out.element_bytes(), out_shape.dims(), out.data(), Count(out),
                            0, dst_strides, src, src_count, src_base, src_strides);
      !s.ok())
    return s;
  return direct ? std::move(out) : Finish(std::move(out), out_shape);
}

// An operand read where it lies: in its own layout when that is dense and
// untiled (no relayout pass over all of it, which for a slice or a
// broadcast can be far more than the op reads), else a row-major copy in
// *storage. strides[d]: elements between neighbours along dimension d.
struct StridedOperand {
  const Literal* lit;
  std::vector<int64_t> strides;
};
StridedOperand ReadInPlace(const Literal& op, Literal* storage) {
  if (DenseUntiled(op.shape())) return {&op, UntiledStrides(op.shape())};
  const Literal& rm = RowMajor(op, storage);
  return {&rm, RowMajorStrides(rm.shape().dims())};
}

// ---------------------------------------------------------------------------
// The ops

absl::StatusOr<Literal> EvalBroadcast(const Instruction& instr,
                                      absl::Span<const Literal* const> ops) {
  if (absl::Status s = CheckOneOperandOfResultType(instr, ops); !s.ok()) return s;
  Literal tmp;
  const StridedOperand src = ReadInPlace(*ops[0], &tmp);
  const Literal& in = *src.lit;
  const Shape& out_shape = instr.shape();
  const int64_t in_rank = in.shape().rank(), out_rank = out_shape.rank();
  std::vector<int64_t> map;
  if (const auto* d = instr.GetAttr<std::vector<int64_t>>("dimensions")) {
    map = *d;
  } else {
    for (int64_t i = 0; i < in_rank; ++i) map.push_back(out_rank - in_rank + i);
  }
  if (static_cast<int64_t>(map.size()) != in_rank)
    return OpError(instr, "dimensions= must have one entry per operand dimension");
  const std::vector<int64_t>& in_strides = src.strides;
  std::vector<int64_t> src_strides(out_rank, 0);
  for (int64_t i = 0; i < in_rank; ++i) {
    const int64_t d = map[i];
    if (d < 0 || d >= out_rank) return OpError(instr, "broadcast dimension out of range");
    if (in.shape().dim(i) == out_shape.dim(d)) {
      src_strides[d] = in_strides[i];
    } else if (in.shape().dim(i) != 1) {
      return OpError(instr, absl::StrCat("operand dimension ", i, " (size ", in.shape().dim(i),
                                         ") does not match result dimension ", d, " (size ",
                                         out_shape.dim(d), ")"));
    }
  }
  return CopyToResult(instr, in.data(), Count(in), 0, src_strides);
}

absl::StatusOr<Literal> EvalReshape(const Instruction& instr,
                                    absl::Span<const Literal* const> ops) {
  if (instr.opcode() == Opcode::kReshape) {
    if (absl::Status s = CheckOperandCount(instr, ops, 1); !s.ok()) return s;
  } else if (ops.empty()) {
    return OpError(instr, "missing operand");
  }
  if (absl::Status s = CheckArrayResult(instr); !s.ok()) return s;
  if (absl::Status s = CheckSameType(instr, *ops[0]); !s.ok()) return s;
  const Shape& out_shape = instr.shape();
  // Row-major to row-major keeps every element where it is: a dying
  // operand's buffer becomes the result (XLA: a reshape that is a bitcast).
  if (instr.opcode() == Opcode::kReshape && DonatedOperand(0) != nullptr &&
      IsRowMajor(ops[0]->shape()) && IsRowMajor(out_shape) &&
      DonatedOperand(0)->ReuseStorageAs(out_shape))
    return TakeDonated(0);
  Literal tmp;
  const Literal& in = RowMajor(*ops[0], &tmp);
  if (Count(in) == out_shape.ElementCount()) {
    Literal out = RowMajorUninitialized(out_shape);
    if (Count(out) > 0)
      CopyBytesOnPool(out.data(), in.data(), static_cast<size_t>(Count(out)) * out.element_bytes());
    return Finish(std::move(out), out_shape);
  }
  Literal out = RowMajorLiteral(out_shape);
  const int eb = out.element_bytes();
  if (instr.opcode() != Opcode::kDynamicReshape)
    return OpError(instr, absl::StrCat("element counts differ: operand has ", Count(in),
                                       ", result has ", Count(out)));
  // dynamic-reshape to bounded dims: the runtime sizes select the region
  // [0, size) of each dim; it receives the operand's leading elements in
  // row-major order, the rest stays zero.
  const int64_t rank = out_shape.rank();
  if (static_cast<int64_t>(ops.size()) != 1 + rank)
    return OpError(instr, "dynamic-reshape needs one size operand per result dimension");
  std::vector<int64_t> sizes(rank);
  int64_t n = 1;
  for (int64_t i = 0; i < rank; ++i) {
    absl::StatusOr<int64_t> v = ScalarIndex(instr, *ops[1 + i], 0);
    if (!v.ok()) return v.status();
    sizes[i] = Clamp(*v, 0, out_shape.dim(i));
    n *= sizes[i];
  }
  if (n > Count(in))
    return OpError(instr, "dynamic sizes describe more elements than the operand holds");
  if (absl::Status s = Copy(instr, eb, sizes, out.data(), Count(out), 0,
                            RowMajorStrides(out_shape.dims()), in.data(), Count(in), 0,
                            RowMajorStrides(sizes));
      !s.ok())
    return s;
  return Finish(std::move(out), out_shape);
}

absl::StatusOr<Literal> EvalTranspose(const Instruction& instr,
                                      absl::Span<const Literal* const> ops) {
  if (absl::Status s = CheckOneOperandOfResultType(instr, ops); !s.ok()) return s;
  // An untiled operand is read in its own layout: with CopyToResult
  // writing the result in its own, a transpose is one strided copy however
  // the two are laid out (a copy of the bytes when the layouts make it a
  // physical no-op).
  Literal tmp;
  const StridedOperand src = ReadInPlace(*ops[0], &tmp);
  const Literal& in = *src.lit;
  const Shape& out_shape = instr.shape();
  const int64_t rank = in.shape().rank();
  const std::vector<int64_t> perm = instr.AttrOr<std::vector<int64_t>>("dimensions", {});
  if (static_cast<int64_t>(perm.size()) != rank || out_shape.rank() != rank)
    return OpError(instr, "dimensions= must be a permutation of the operand dimensions");
  std::vector<bool> seen(rank, false);
  const std::vector<int64_t>& in_strides = src.strides;
  std::vector<int64_t> src_strides(rank);
  for (int64_t i = 0; i < rank; ++i) {
    const int64_t p = perm[i];
    if (p < 0 || p >= rank || seen[p])
      return OpError(instr, "dimensions= is not a permutation");
    seen[p] = true;
    if (in.shape().dim(p) != out_shape.dim(i))
      return OpError(instr, "result dimensions do not match the permuted operand");
    src_strides[i] = in_strides[p];
  }
  // A transpose that only relabels dimensions (the result's layout puts
  // every element where the operand has it, e.g. [512,784]{1,0} ->
  // [784,512]{0,1}) takes a dying operand's buffer, as a bitcast does.
  if (src.lit == ops[0] && DonatedOperand(0) != nullptr && DenseUntiled(out_shape) &&
      UntiledStrides(out_shape) == src_strides && DonatedOperand(0)->ReuseStorageAs(out_shape))
    return TakeDonated(0);
  return CopyToResult(instr, in.data(), Count(in), 0, src_strides);
}

absl::StatusOr<Literal> EvalSlice(const Instruction& instr, absl::Span<const Literal* const> ops) {
  if (absl::Status s = CheckOneOperandOfResultType(instr, ops); !s.ok()) return s;
  Literal tmp;
  const StridedOperand src = ReadInPlace(*ops[0], &tmp);
  const Literal& in = *src.lit;
  const Shape& out_shape = instr.shape();
  const int64_t rank = in.shape().rank();
  const SliceRanges* ranges = instr.GetAttr<SliceRanges>("slice");
  if (ranges == nullptr || static_cast<int64_t>(ranges->size()) != rank ||
      out_shape.rank() != rank)
    return OpError(instr, "slice= must have one range per operand dimension");
  const std::vector<int64_t>& in_strides = src.strides;
  std::vector<int64_t> src_strides(rank);
  int64_t base = 0;
  for (int64_t i = 0; i < rank; ++i) {
    const SliceRange& r = (*ranges)[i];
    if (r.stride <= 0 || r.start < 0 || r.limit < r.start || r.limit > in.shape().dim(i))
      return OpError(instr, absl::StrCat("invalid slice range in dimension ", i));
    const int64_t n = (r.limit - r.start + r.stride - 1) / r.stride;
    if (n != out_shape.dim(i))
      return OpError(instr, absl::StrCat("result dimension ", i, " should be ", n));
    base += r.start * in_strides[i];
    src_strides[i] = r.stride * in_strides[i];
  }
  return CopyToResult(instr, in.data(), Count(in), base, src_strides);
}

absl::StatusOr<Literal> EvalDynamicSlice(const Instruction& instr,
                                         absl::Span<const Literal* const> ops) {
  if (ops.empty()) return OpError(instr, "missing operand");
  if (absl::Status s = CheckArrayResult(instr); !s.ok()) return s;
  if (absl::Status s = CheckSameType(instr, *ops[0]); !s.ok()) return s;
  Literal tmp;
  const StridedOperand src = ReadInPlace(*ops[0], &tmp);
  const Literal& in = *src.lit;
  const Shape& out_shape = instr.shape();
  const int64_t rank = in.shape().rank();
  if (out_shape.rank() != rank) return OpError(instr, "result rank differs from the operand's");
  absl::StatusOr<std::vector<int64_t>> starts = StartIndices(instr, ops, 1, rank);
  if (!starts.ok()) return starts.status();
  const std::vector<int64_t>& in_strides = src.strides;
  int64_t base = 0;
  for (int64_t i = 0; i < rank; ++i) {
    const int64_t size = out_shape.dim(i), dim = in.shape().dim(i);
    if (size < 0 || size > dim)
      return OpError(instr, absl::StrCat("slice size ", size, " exceeds operand dimension ", i));
    base += Clamp((*starts)[i], 0, dim - size) * in_strides[i];
  }
  return CopyToResult(instr, in.data(), Count(in), base, in_strides);
}

absl::StatusOr<Literal> EvalDynamicUpdateSlice(const Instruction& instr,
                                               absl::Span<const Literal* const> ops) {
  if (ops.size() < 2) return OpError(instr, "expected operand, update and start indices");
  if (absl::Status s = CheckArrayResult(instr); !s.ok()) return s;
  if (absl::Status s = CheckSameType(instr, *ops[0]); !s.ok()) return s;
  if (absl::Status s = CheckSameType(instr, *ops[1]); !s.ok()) return s;
  Literal tmp0, tmp1;
  const Literal& in = RowMajor(*ops[0], &tmp0);
  const Literal& upd = RowMajor(*ops[1], &tmp1);
  const Shape& out_shape = instr.shape();
  const int64_t rank = in.shape().rank();
  if (out_shape.rank() != rank || upd.shape().rank() != rank)
    return OpError(instr, "operand, update and result ranks differ");
  absl::StatusOr<std::vector<int64_t>> starts = StartIndices(instr, ops, 2, rank);
  if (!starts.ok()) return starts.status();
  if (Count(in) != out_shape.ElementCount())
    return OpError(instr, "result shape differs from the operand's");
  Literal out = TakeOrCopyOperand(0, in, out_shape);
  const int eb = out.element_bytes();
  const std::vector<int64_t> out_strides = RowMajorStrides(out_shape.dims());
  int64_t base = 0;
  for (int64_t i = 0; i < rank; ++i) {
    const int64_t size = upd.shape().dim(i), dim = out_shape.dim(i);
    if (size > dim)
      return OpError(instr, absl::StrCat("update dimension ", i, " exceeds the operand's"));
    base += Clamp((*starts)[i], 0, dim - size) * out_strides[i];
  }
  if (absl::Status s = Copy(instr, eb, upd.shape().dims(), out.data(), Count(out), base,
                            out_strides, upd.data(), Count(upd), 0,
                            RowMajorStrides(upd.shape().dims()));
      !s.ok())
    return s;
  return Finish(std::move(out), out_shape);
}

absl::StatusOr<Literal> EvalConcatenate(const Instruction& instr,
                                        absl::Span<const Literal* const> ops) {
  if (ops.empty()) return OpError(instr, "concatenate needs at least one operand");
  if (absl::Status s = CheckArrayResult(instr); !s.ok()) return s;
  const Shape& out_shape = instr.shape();
  const int64_t rank = out_shape.rank();
  const std::vector<int64_t> dims_attr = instr.AttrOr<std::vector<int64_t>>("dimensions", {});
  if (dims_attr.size() != 1) return OpError(instr, "dimensions= must have exactly one entry");
  const int64_t cd = dims_attr[0];
  if (cd < 0 || cd >= rank) return OpError(instr, "concatenate dimension out of range");
  Literal out = RowMajorLiteral(out_shape);
  const int eb = out.element_bytes();
  const std::vector<int64_t> out_strides = RowMajorStrides(out_shape.dims());
  int64_t offset = 0;
  for (const Literal* op : ops) {
    if (absl::Status s = CheckSameType(instr, *op); !s.ok()) return s;
    if (op->shape().rank() != rank) return OpError(instr, "operand ranks differ");
    for (int64_t i = 0; i < rank; ++i)
      if (i != cd && op->shape().dim(i) != out_shape.dim(i))
        return OpError(instr, absl::StrCat("operand dimension ", i, " differs from the result's"));
    Literal tmp;
    const Literal& in = RowMajor(*op, &tmp);
    if (absl::Status s = Copy(instr, eb, in.shape().dims(), out.data(), Count(out),
                              offset * out_strides[cd], out_strides, in.data(), Count(in), 0,
                              RowMajorStrides(in.shape().dims()));
        !s.ok())
      return s;
    offset += in.shape().dim(cd);
  }
  if (offset != out_shape.dim(cd))
    return OpError(instr, "operand sizes along the concatenate dimension do not add up");
  return Finish(std::move(out), out_shape);
}

absl::StatusOr<Literal> EvalPad(const Instruction& instr, absl::Span<const Literal* const> ops) {
  if (absl::Status s = CheckOperandCount(instr, ops, 2); !s.ok()) return s;
  if (absl::Status s = CheckArrayResult(instr); !s.ok()) return s;
  if (absl::Status s = CheckSameType(instr, *ops[0]); !s.ok()) return s;
  if (absl::Status s = CheckSameType(instr, *ops[1]); !s.ok()) return s;
  if (ops[1]->shape().rank() != 0) return OpError(instr, "padding value must be a scalar");
  Literal tmp;
  const Literal& in = RowMajor(*ops[0], &tmp);
  const Shape& out_shape = instr.shape();
  const int64_t rank = in.shape().rank();
  const PaddingConfig* cfg = instr.GetAttr<PaddingConfig>("padding");
  if (cfg == nullptr || static_cast<int64_t>(cfg->size()) != rank || out_shape.rank() != rank)
    return OpError(instr, "padding= must have one entry per operand dimension");
  Literal out = RowMajorLiteral(out_shape);
  const int eb = out.element_bytes();
  Fill(out.data(), Count(out), ops[1]->data(), eb);
  const std::vector<int64_t> in_strides = RowMajorStrides(in.shape().dims());
  const std::vector<int64_t> out_strides = RowMajorStrides(out_shape.dims());
  std::vector<int64_t> dims(rank), dst_strides(rank);
  int64_t src_base = 0, dst_base = 0;
  bool empty = false;
  for (int64_t i = 0; i < rank; ++i) {
    const PaddingDimension& p = (*cfg)[i];
    const int64_t n = in.shape().dim(i), on = out_shape.dim(i);
    if (p.interior < 0) return OpError(instr, "negative interior padding");
    const int64_t expect = p.low + p.high + n + std::max<int64_t>(n - 1, 0) * p.interior;
    if (expect != on)
      return OpError(instr, absl::StrCat("result dimension ", i, " should be ", expect));
    const int64_t step = p.interior + 1;
    // Operand indices k with 0 <= low + k*step < on.
    int64_t kmin = p.low >= 0 ? 0 : (-p.low + step - 1) / step;
    int64_t kmax = on - 1 - p.low < 0 ? -1 : (on - 1 - p.low) / step;
    kmax = std::min(kmax, n - 1);
    if (kmin > kmax) {
      empty = true;
      break;
    }
    dims[i] = kmax - kmin + 1;
    src_base += kmin * in_strides[i];
    dst_base += (p.low + kmin * step) * out_strides[i];
    dst_strides[i] = step * out_strides[i];
  }
  if (!empty && Count(out) > 0) {
    if (absl::Status s = Copy(instr, eb, dims, out.data(), Count(out), dst_base, dst_strides,
                              in.data(), Count(in), src_base, in_strides);
        !s.ok())
      return s;
  }
  return Finish(std::move(out), out_shape);
}

absl::StatusOr<Literal> EvalReverse(const Instruction& instr,
                                    absl::Span<const Literal* const> ops) {
  if (absl::Status s = CheckOneOperandOfResultType(instr, ops); !s.ok()) return s;
  Literal tmp;
  const Literal& in = RowMajor(*ops[0], &tmp);
  const Shape& out_shape = instr.shape();
  const int64_t rank = in.shape().rank();
  if (out_shape.dims() != in.shape().dims())
    return OpError(instr, "result shape differs from the operand's");
  std::vector<int64_t> strides = RowMajorStrides(in.shape().dims());
  std::vector<bool> rev(rank, false);
  for (int64_t d : instr.AttrOr<std::vector<int64_t>>("dimensions", {})) {
    if (d < 0 || d >= rank) return OpError(instr, "reverse dimension out of range");
    rev[d] = true;  // a repeated dimension reverses once
  }
  int64_t base = 0;
  for (int64_t i = 0; i < rank; ++i) {
    if (!rev[i] || in.shape().dim(i) == 0) continue;
    base += (in.shape().dim(i) - 1) * strides[i];
    strides[i] = -strides[i];
  }
  return CopyToResult(instr, in.data(), Count(in), base, strides);
}

absl::StatusOr<Literal> EvalIota(const Instruction& instr, absl::Span<const Literal* const> ops) {
  if (absl::Status s = CheckOperandCount(instr, ops, 0); !s.ok()) return s;
  if (absl::Status s = CheckArrayResult(instr); !s.ok()) return s;
  const Shape& out_shape = instr.shape();
  const int64_t rank = out_shape.rank();
  const int64_t d = instr.AttrOr<int64_t>("iota_dimension", -1);
  if (d < 0 || d >= rank) return OpError(instr, "iota_dimension out of range");
  const PrimitiveType t = out_shape.element_type();
  const int64_t n = out_shape.dim(d);
  std::vector<int64_t> indices(std::max<int64_t>(n, 0));
  for (int64_t i = 0; i < n; ++i) indices[i] = i;
  absl::StatusOr<Literal> line = IotaValues(t, indices);
  if (!line.ok()) return OpUnimplemented(instr, absl::StrCat("element type ", PrimitiveTypeName(t)));
  std::vector<int64_t> src_strides(rank, 0);
  src_strides[d] = 1;
  return CopyToResult(instr, line->data(), n, 0, src_strides);
}

absl::StatusOr<Literal> EvalGetDimensionSize(const Instruction& instr,
                                             absl::Span<const Literal* const> ops) {
  if (absl::Status s = CheckOperandCount(instr, ops, 1); !s.ok()) return s;
  if (absl::Status s = CheckArrayResult(instr); !s.ok()) return s;
  const std::vector<int64_t> dims = instr.AttrOr<std::vector<int64_t>>("dimensions", {});
  const Shape& in = ops[0]->shape();
  if (!in.IsArray()) return OpError(instr, "operand must be an array");
  if (dims.size() != 1 || dims[0] < 0 || dims[0] >= in.rank())
    return OpError(instr, "dimensions= must name one operand dimension");
  if (!IsInteger(instr.shape().element_type()) || instr.shape().rank() != 0)
    return OpError(instr, "result must be an integer scalar");
  int64_t size = in.dim(dims[0]);
  if (size == Shape::kUnboundedSize) size = 0;
  Literal out(instr.shape());
  out.SetInt(0, size);
  return out;
}

absl::StatusOr<Literal> EvalSetDimensionSize(const Instruction& instr,
                                             absl::Span<const Literal* const> ops) {
  if (absl::Status s = CheckOperandCount(instr, ops, 2); !s.ok()) return s;
  if (absl::Status s = CheckArrayResult(instr); !s.ok()) return s;
  if (absl::Status s = CheckSameType(instr, *ops[0]); !s.ok()) return s;
  const std::vector<int64_t> dims = instr.AttrOr<std::vector<int64_t>>("dimensions", {});
  if (dims.size() != 1 || dims[0] < 0 || dims[0] >= ops[0]->shape().rank())
    return OpError(instr, "dimensions= must name one operand dimension");
  if (ops[1]->shape().rank() != 0 || !IsInteger(ops[1]->shape().element_type()))
    return OpError(instr, "size must be an integer scalar");
  Literal tmp;
  const Literal& in = RowMajor(*ops[0], &tmp);
  Literal out = RowMajorLiteral(instr.shape());
  if (Count(out) != Count(in)) return OpError(instr, "result shape differs from the operand's");
  if (Count(out) > 0)
    std::memcpy(out.data(), in.data(), static_cast<size_t>(Count(out)) * out.element_bytes());
  return Finish(std::move(out), instr.shape());
}

// ---------------------------------------------------------------------------
// gather

// Sorted dims of [0, rank) not in any of `excluded`.
std::vector<int64_t> Complement(int64_t rank, std::initializer_list<const std::vector<int64_t>*> excluded) {
  std::vector<bool> out(rank, false);
  for (const std::vector<int64_t>* v : excluded)
    for (int64_t d : *v)
      if (d >= 0 && d < rank) out[d] = true;
  std::vector<int64_t> r;
  for (int64_t i = 0; i < rank; ++i)
    if (!out[i]) r.push_back(i);
  return r;
}

bool AllInRange(const std::vector<int64_t>& v, int64_t rank) {
  for (int64_t d : v)
    if (d < 0 || d >= rank) return false;
  return true;
}

// Row-major odometer over `dims`, giving for each position the multi-index.
class Odometer {
 public:
  explicit Odometer(std::vector<int64_t> dims) : dims_(std::move(dims)), idx_(dims_.size(), 0) {
    count_ = 1;
    for (int64_t d : dims_) count_ *= d;
  }
  int64_t count() const { return count_; }
  const std::vector<int64_t>& index() const { return idx_; }
  void Set(int64_t linear) {
    for (int64_t i = static_cast<int64_t>(dims_.size()) - 1; i >= 0; --i) {
      idx_[i] = linear % dims_[i];
      linear /= dims_[i];
    }
  }
  void Next() {
    for (int64_t i = static_cast<int64_t>(dims_.size()) - 1; i >= 0; --i) {
      if (++idx_[i] < dims_[i]) return;
      idx_[i] = 0;
    }
  }

 private:
  std::vector<int64_t> dims_;
  std::vector<int64_t> idx_;
  int64_t count_ = 1;
};

using IntList = std::vector<int64_t>;

// Gather and scatter share their index side. Both read index vectors along
// index_vector_dim of an indices array, each entry setting one operand dim,
// and pair the dims of a third array with the indices and the operand: its
// window dims pair in order with the operand dims that are neither
// collapsed (inserted) nor batching dims, and all its other dims, the batch
// dims, pair in order with the dims of the indices but index_vector_dim.
// The ops name these differently; errors use each op's own names.
struct IndexedOpNames {
  absl::string_view array;        // the array with the batch and window dims
  absl::string_view window_dims;  // its window dims attribute
  absl::string_view indices;
  absl::string_view index_map;    // index vector entry -> operand dim attribute
};
const IndexedOpNames kGatherNames{"result", "offset_dims", "start_indices", "start_index_map"};
const IndexedOpNames kScatterNames{"updates", "update_window_dims", "scatter_indices",
                                   "scatter_dims_to_operand_dims"};

// The number of entries of an index vector (1 when index_vector_dim is the
// rank of the indices: scalar indices), checked against `index_map`.
absl::StatusOr<int64_t> IndexVectorSize(const Instruction& instr, const IndexedOpNames& names,
                                        const Shape& indices, int64_t ivd,
                                        const IntList& index_map, int64_t operand_rank) {
  const int64_t irank = indices.rank();
  if (ivd < 0 || ivd > irank) return OpError(instr, "index_vector_dim out of range");
  const int64_t nvec = ivd == irank ? 1 : indices.dim(ivd);
  if (static_cast<int64_t>(index_map.size()) != nvec || !AllInRange(index_map, operand_rank))
    return OpError(instr, absl::StrCat(names.index_map,
                                       " must map each index vector entry to an operand dim"));
  return nvec;
}

// The batch dims of `array` (all but `window_dims`), the dims of `indices`
// they pair with, and their sizes (equal on both sides).
struct BatchDims {
  IntList array_dims;
  IntList index_dims;  // the dims of the indices but index_vector_dim
  IntList sizes;
};

absl::StatusOr<BatchDims> PairBatchDims(const Instruction& instr, const IndexedOpNames& names,
                                        const Shape& array, const IntList& window_dims,
                                        const Shape& indices, int64_t ivd) {
  BatchDims b;
  b.array_dims = Complement(array.rank(), {&window_dims});
  for (int64_t i = 0; i < indices.rank(); ++i)
    if (i != ivd) b.index_dims.push_back(i);
  if (b.array_dims.size() != b.index_dims.size())
    return OpError(instr, absl::StrCat(names.array, " rank does not match ", names.window_dims,
                                       " and ", names.indices));
  for (size_t k = 0; k < b.array_dims.size(); ++k) {
    if (array.dim(b.array_dims[k]) != indices.dim(b.index_dims[k]))
      return OpError(instr, absl::StrCat(names.array, " dimension ", b.array_dims[k],
                                         " does not match ", names.indices));
    b.sizes.push_back(array.dim(b.array_dims[k]));
  }
  return b;
}

// Position in `list` of each of `values` (all present).
IntList PositionsIn(const IntList& list, const IntList& values) {
  IntList pos(values.size());
  for (size_t k = 0; k < values.size(); ++k)
    pos[k] = std::find(list.begin(), list.end(), values[k]) - list.begin();
  return pos;
}

absl::StatusOr<Literal> EvalGather(const Instruction& instr, absl::Span<const Literal* const> ops) {
  if (absl::Status s = CheckOperandCount(instr, ops, 2); !s.ok()) return s;
  if (absl::Status s = CheckArrayResult(instr); !s.ok()) return s;
  if (absl::Status s = CheckSameType(instr, *ops[0]); !s.ok()) return s;
  if (!ops[1]->shape().IsArray() || ops[1]->shape().rank() > kMaxRank)
    return OpError(instr, "start_indices must be an array");
  Literal tmp0, tmp1;
  const Literal& in = RowMajor(*ops[0], &tmp0);
  const Literal& ind = RowMajor(*ops[1], &tmp1);
  const Shape& out_shape = instr.shape();
  const IntList offset_dims = instr.AttrOr<IntList>("offset_dims", {});
  const IntList collapsed = instr.AttrOr<IntList>("collapsed_slice_dims", {});
  const IntList start_index_map = instr.AttrOr<IntList>("start_index_map", {});
  const IntList obd = instr.AttrOr<IntList>("operand_batching_dims", {});
  const IntList sibd = instr.AttrOr<IntList>("start_indices_batching_dims", {});
  const IntList slice_sizes = instr.AttrOr<IntList>("slice_sizes", {});
  const int64_t ivd = instr.AttrOr<int64_t>("index_vector_dim", -1);
  const int64_t rank = in.shape().rank(), irank = ind.shape().rank(), orank = out_shape.rank();

  if (static_cast<int64_t>(slice_sizes.size()) != rank)
    return OpError(instr, "slice_sizes must have one entry per operand dimension");
  for (int64_t d = 0; d < rank; ++d)
    if (slice_sizes[d] < 0 || slice_sizes[d] > in.shape().dim(d))
      return OpError(instr, absl::StrCat("slice size of dimension ", d, " out of range"));
  absl::StatusOr<int64_t> nvec_or =
      IndexVectorSize(instr, kGatherNames, ind.shape(), ivd, start_index_map, rank);
  if (!nvec_or.ok()) return nvec_or.status();
  const int64_t nvec = *nvec_or;
  if (!AllInRange(collapsed, rank) || !AllInRange(obd, rank) || !AllInRange(offset_dims, orank))
    return OpError(instr, "dimension numbers out of range");
  // A collapsed or batching dimension of slice size 0 makes every slice
  // empty while the result may still have elements: nothing to read them from.
  const bool result_has_elements = out_shape.ElementCount() > 0;
  auto empty_slice_error = [&](int64_t d) {
    return OpError(instr, absl::StrCat("slice size 0 in collapsed or batching dimension ", d,
                                       " leaves nothing to gather into a non-empty result"));
  };
  for (int64_t d : collapsed) {
    if (slice_sizes[d] > 1) return OpError(instr, "collapsed slice dims must have size 1");
    if (slice_sizes[d] == 0 && result_has_elements) return empty_slice_error(d);
  }
  if (obd.size() != sibd.size())
    return OpError(instr, "operand_batching_dims and start_indices_batching_dims differ in size");
  for (size_t k = 0; k < obd.size(); ++k) {
    if (sibd[k] < 0 || sibd[k] >= irank || sibd[k] == ivd)
      return OpError(instr, "start_indices_batching_dims out of range");
    if (slice_sizes[obd[k]] > 1) return OpError(instr, "batching dims must have slice size 1");
    if (slice_sizes[obd[k]] == 0 && result_has_elements) return empty_slice_error(obd[k]);
    if (ind.shape().dim(sibd[k]) > in.shape().dim(obd[k]))
      return OpError(instr, "batching dimension sizes of operand and indices differ");
  }
  absl::StatusOr<BatchDims> batch =
      PairBatchDims(instr, kGatherNames, out_shape, offset_dims, ind.shape(), ivd);
  if (!batch.ok()) return batch.status();
  const IntList& out_batch = batch->array_dims;
  const IntList& idx_batch = batch->index_dims;
  // Offset dims <-> operand dims but collapsed and batching ones, in order.
  const IntList offset_operand = Complement(rank, {&collapsed, &obd});
  if (offset_operand.size() != offset_dims.size())
    return OpError(instr, "offset_dims does not match the operand rank");
  const IntList in_strides = RowMajorStrides(in.shape().dims());
  const IntList out_strides = RowMajorStrides(out_shape.dims());
  const IntList ind_strides = RowMajorStrides(ind.shape().dims());
  IntList win_dims, win_dst, win_src;
  for (size_t k = 0; k < offset_dims.size(); ++k) {
    const int64_t sz = out_shape.dim(offset_dims[k]);
    if (sz > slice_sizes[offset_operand[k]])
      return OpError(instr, absl::StrCat("result dimension ", offset_dims[k],
                                         " exceeds its slice size"));
    win_dims.push_back(sz);
    win_dst.push_back(out_strides[offset_dims[k]]);
    win_src.push_back(in_strides[offset_operand[k]]);
  }
  const IntList sibd_pos = PositionsIn(idx_batch, sibd);

  absl::StatusOr<std::vector<int64_t>> idx_or = IndexValues(instr, ind);
  if (!idx_or.ok()) return idx_or.status();
  const std::vector<int64_t>& idx = *idx_or;

  // Every element is written below: one window per batch index covers the
  // result.
  Literal out = RowMajorUninitialized(out_shape);
  const int eb = out.element_bytes();
  const StridedCopy plan(eb, win_dims, win_dst, win_src);
  const Odometer batch_space(batch->sizes);
  const int64_t nbatch = batch_space.count();
  if (plan.empty() || nbatch == 0 || Count(out) == 0) return Finish(std::move(out), out_shape);
  const int64_t vstride = ivd < irank ? ind_strides[ivd] : 0;
  uint8_t* dst = out.data();
  const uint8_t* src = in.data();
  auto run = [&](int64_t begin, int64_t end) {
    Odometer it = batch_space;
    it.Set(begin);
    std::vector<int64_t> start(rank);
    for (int64_t b = begin; b < end; ++b, it.Next()) {
      const std::vector<int64_t>& g = it.index();
      int64_t ibase = 0, dbase = 0;
      for (size_t j = 0; j < g.size(); ++j) {
        ibase += g[j] * ind_strides[idx_batch[j]];
        dbase += g[j] * out_strides[out_batch[j]];
      }
      std::fill(start.begin(), start.end(), 0);
      for (int64_t k = 0; k < nvec; ++k) start[start_index_map[k]] = idx[ibase + k * vstride];
      for (size_t k = 0; k < obd.size(); ++k) start[obd[k]] = g[sibd_pos[k]];
      int64_t sbase = 0;
      for (int64_t d = 0; d < rank; ++d)
        sbase += Clamp(start[d], 0, in.shape().dim(d) - slice_sizes[d]) * in_strides[d];
      plan.Run(dst + dbase * eb, src + sbase * eb);
    }
  };
  if (plan.total_bytes() * nbatch < kParallelBytes) {
    run(0, nbatch);
  } else {
    ParallelFor(nbatch, std::max<int64_t>(1, kBlockBytes / (plan.total_bytes() + 1)), run);
  }
  return Finish(std::move(out), out_shape);
}

// ---------------------------------------------------------------------------
// scatter

// How the update computation combines (current, update).
struct Combiner {
  enum Kind { kKeep, kAssign, kKernel, kCall } kind = kCall;
  ElementwiseKernel kernel = nullptr;
  bool swapped = false;  // root is op(update, current)
};

Combiner ClassifyCombiner(const Computation& comp, PrimitiveType t, int64_t n_operands) {
  Combiner c;
  if (n_operands != 1 || comp.num_parameters() != 2) return c;
  for (int64_t i = 0; i < 2; ++i) {
    const Shape& ps = comp.parameter(i)->shape();
    if (!ps.IsArray() || ps.rank() != 0 || ps.element_type() != t) return c;
  }
  const Instruction* root = comp.root();
  if (root == nullptr || !root->shape().IsArray() || root->shape().rank() != 0 ||
      root->shape().element_type() != t)
    return c;
  if (root->opcode() == Opcode::kParameter) {
    c.kind = root->parameter_number() == 0 ? Combiner::kKeep : Combiner::kAssign;
    return c;
  }
  const std::optional<BinaryOfParameters> m = MatchBinaryOfParameters(&comp, t);
  if (!m || !m->OpIsOneOf({Opcode::kAdd, Opcode::kMultiply, Opcode::kMaximum, Opcode::kMinimum,
                           Opcode::kAnd, Opcode::kOr}))
    return c;
  const PrimitiveType types[2] = {t, t};
  absl::StatusOr<ElementwiseKernel> k = SelectElementwiseKernel(m->op, types, t, ElementwiseAttrs());
  if (!k.ok()) return c;
  c.kind = Combiner::kKernel;
  c.kernel = *k;
  c.swapped = m->swapped;
  return c;
}

absl::StatusOr<Literal> EvalScatter(const Instruction& instr, absl::Span<const Literal* const> ops,
                                    OpContext& ctx) {
  if (ops.size() < 3 || ops.size() % 2 == 0)
    return OpError(instr, "scatter needs N operands, indices and N updates");
  const int64_t n = static_cast<int64_t>(ops.size() - 1) / 2;
  const Shape& result_shape = instr.shape();
  if (n == 1 ? !result_shape.IsArray()
             : (!result_shape.IsTuple() || result_shape.tuple_size() != n))
    return OpError(instr, "result shape must be the operand shape (a tuple for N > 1)");
  const Computation* const* comp_ptr = instr.GetAttr<Computation*>("to_apply");
  if (comp_ptr == nullptr || *comp_ptr == nullptr) return OpError(instr, "missing to_apply=");
  const Computation& comp = **comp_ptr;

  std::vector<Literal> tmps(2 * n + 1);
  std::vector<const Literal*> operand(n), update(n);
  for (int64_t j = 0; j < n; ++j) {
    const Shape& rs = n == 1 ? result_shape : result_shape.tuple_shape(j);
    if (!ops[j]->shape().IsArray() || !ops[n + 1 + j]->shape().IsArray() || !rs.IsArray())
      return OpError(instr, "operands and updates must be arrays");
    if (ops[j]->shape().element_type() != rs.element_type() ||
        ops[n + 1 + j]->shape().element_type() != rs.element_type() ||
        ops[j]->shape().dims() != rs.dims())
      return OpError(instr, "operand, update and result types/shapes differ");
    if (ops[j]->shape().dims() != ops[0]->shape().dims() ||
        ops[n + 1 + j]->shape().dims() != ops[n + 1]->shape().dims())
      return OpError(instr, "all operands (and all updates) must have the same dimensions");
    if (rs.rank() > kMaxRank || ops[n + 1 + j]->shape().rank() > kMaxRank)
      return OpUnimplemented(instr, absl::StrCat("rank above ", kMaxRank));
    operand[j] = &RowMajor(*ops[j], &tmps[j]);
    update[j] = &RowMajor(*ops[n + 1 + j], &tmps[n + 1 + j]);
  }
  if (!ops[n]->shape().IsArray() || ops[n]->shape().rank() > kMaxRank)
    return OpError(instr, "scatter_indices must be an array");
  const Literal& ind = RowMajor(*ops[n], &tmps[n]);
  const Shape oshape = operand[0]->shape();  // a copy: operand[0] may be taken over below
  const Shape& ushape = update[0]->shape();

  const IntList uwd = instr.AttrOr<IntList>("update_window_dims", {});
  const IntList iwd = instr.AttrOr<IntList>("inserted_window_dims", {});
  const IntList sdod = instr.AttrOr<IntList>("scatter_dims_to_operand_dims", {});
  const IntList ibd = instr.AttrOr<IntList>("input_batching_dims", {});
  const IntList sibd = instr.AttrOr<IntList>("scatter_indices_batching_dims", {});
  const int64_t ivd = instr.AttrOr<int64_t>("index_vector_dim", -1);
  const int64_t rank = oshape.rank(), irank = ind.shape().rank(), urank = ushape.rank();

  absl::StatusOr<int64_t> nvec_or =
      IndexVectorSize(instr, kScatterNames, ind.shape(), ivd, sdod, rank);
  if (!nvec_or.ok()) return nvec_or.status();
  const int64_t nvec = *nvec_or;
  if (!AllInRange(uwd, urank) || !AllInRange(iwd, rank) || !AllInRange(ibd, rank))
    return OpError(instr, "dimension numbers out of range");
  if (ibd.size() != sibd.size())
    return OpError(instr, "input_batching_dims and scatter_indices_batching_dims differ in size");
  for (size_t k = 0; k < ibd.size(); ++k) {
    if (sibd[k] < 0 || sibd[k] >= irank || sibd[k] == ivd)
      return OpError(instr, "scatter_indices_batching_dims out of range");
  }
  absl::StatusOr<BatchDims> batch =
      PairBatchDims(instr, kScatterNames, ushape, uwd, ind.shape(), ivd);
  if (!batch.ok()) return batch.status();
  const IntList& upd_scatter = batch->array_dims;
  const IntList& idx_batch = batch->index_dims;
  const IntList window_operand = Complement(rank, {&iwd, &ibd});
  if (window_operand.size() != uwd.size())
    return OpError(instr, "update_window_dims does not match the operand rank");
  const IntList o_strides = RowMajorStrides(oshape.dims());
  const IntList u_strides = RowMajorStrides(ushape.dims());
  const IntList i_strides = RowMajorStrides(ind.shape().dims());
  IntList win_size(rank, 1);  // window extent per operand dim
  IntList win_dims, win_dst, win_src;
  for (size_t k = 0; k < uwd.size(); ++k) {
    const int64_t sz = ushape.dim(uwd[k]);
    if (sz > oshape.dim(window_operand[k]))
      return OpError(instr, absl::StrCat("update window dimension ", uwd[k],
                                         " exceeds the operand's"));
    win_size[window_operand[k]] = sz;
    win_dims.push_back(sz);
    win_dst.push_back(o_strides[window_operand[k]]);
    win_src.push_back(u_strides[uwd[k]]);
  }
  const IntList sibd_pos = PositionsIn(idx_batch, sibd);

  absl::StatusOr<std::vector<int64_t>> idx_or = IndexValues(instr, ind);
  if (!idx_or.ok()) return idx_or.status();
  const std::vector<int64_t>& idx = *idx_or;

  // Results start as copies of the operands.
  std::vector<Literal> out(n);
  std::vector<int> eb(n);
  for (int64_t j = 0; j < n; ++j) {
    out[j] = TakeOrCopyOperand(j, *operand[j], n == 1 ? result_shape : result_shape.tuple_shape(j));
    eb[j] = out[j].element_bytes();
  }

  const Combiner comb = ClassifyCombiner(comp, oshape.element_type(), n);
  const StridedCopy plan(eb[0], win_dims, win_dst, win_src);
  Odometer it(batch->sizes);
  const int64_t vstride = ivd < irank ? i_strides[ivd] : 0;

  // Generic path state: scalar argument literals reused for every call.
  std::vector<Literal> args;
  std::vector<const Literal*> arg_ptrs;
  if (comb.kind == Combiner::kCall) {
    if (comp.num_parameters() != 2 * n)
      return OpError(instr, absl::StrCat("to_apply must take ", 2 * n, " parameters"));
    for (int64_t k = 0; k < 2 * n; ++k)
      args.emplace_back(Shape::Scalar(out[k % n].shape().element_type()));
    for (const Literal& a : args) arg_ptrs.push_back(&a);
  }
  std::vector<uint8_t> scratch;
  std::vector<int64_t> start(rank);
  absl::Status status;
  const int64_t positions = plan.empty() ? 0 : it.count();
  for (int64_t s = 0; s < positions; ++s, it.Next()) {
    const std::vector<int64_t>& g = it.index();
    int64_t ibase = 0, ubase = 0;
    for (size_t j = 0; j < g.size(); ++j) {
      ibase += g[j] * i_strides[idx_batch[j]];
      ubase += g[j] * u_strides[upd_scatter[j]];
    }
    std::fill(start.begin(), start.end(), 0);
    for (int64_t k = 0; k < nvec; ++k) start[sdod[k]] = idx[ibase + k * vstride];
    for (size_t k = 0; k < ibd.size(); ++k) start[ibd[k]] = g[sibd_pos[k]];
    // A window not fully inside the operand is skipped as a whole.
    bool inside = true;
    int64_t obase = 0;
    for (int64_t d = 0; d < rank && inside; ++d) {
      if (start[d] < 0 || start[d] > oshape.dim(d) - win_size[d]) inside = false;
      obase += start[d] * o_strides[d];
    }
    if (!inside) continue;
    switch (comb.kind) {
      case Combiner::kKeep:
        break;
      case Combiner::kAssign:
        plan.Run(out[0].data() + obase * eb[0], update[0]->data() + ubase * eb[0]);
        break;
      case Combiner::kKernel: {
        const int e = eb[0];
        uint8_t* odata = out[0].data();
        const uint8_t* udata = update[0]->data();
        plan.ForEachRun([&](int64_t doff, int64_t soff, int64_t len, int64_t ds, int64_t ss) {
          uint8_t* d = odata + (obase + doff) * e;
          const uint8_t* u = udata + (ubase + soff) * e;
          if (ds == 1 && ss == 1) {
            scratch.resize(static_cast<size_t>(len) * e);
            const void* in2[2] = {comb.swapped ? static_cast<const void*>(u) : d,
                                  comb.swapped ? static_cast<const void*>(d) : u};
            comb.kernel(in2, scratch.data(), 0, len, KernelParams());
            std::memcpy(d, scratch.data(), static_cast<size_t>(len) * e);
          } else {
            uint8_t res[16];
            for (int64_t i = 0; i < len; ++i) {
              uint8_t* de = d + i * ds * e;
              const uint8_t* ue = u + i * ss * e;
              const void* in2[2] = {comb.swapped ? static_cast<const void*>(ue) : de,
                                    comb.swapped ? static_cast<const void*>(de) : ue};
              comb.kernel(in2, res, 0, 1, KernelParams());
              std::memcpy(de, res, e);
            }
          }
        });
        break;
      }
      case Combiner::kCall: {
        plan.ForEachRun([&](int64_t doff, int64_t soff, int64_t len, int64_t ds, int64_t ss) {
          for (int64_t i = 0; i < len && status.ok(); ++i) {
            const int64_t oe = obase + doff + i * ds, ue = ubase + soff + i * ss;
            for (int64_t j = 0; j < n; ++j) {
              std::memcpy(args[j].data(), out[j].data() + oe * eb[j], eb[j]);
              std::memcpy(args[n + j].data(), update[j]->data() + ue * eb[j], eb[j]);
            }
            absl::StatusOr<Literal> r = ctx.call(comp, arg_ptrs);
            if (!r.ok()) {
              status = r.status();
              return;
            }
            for (int64_t j = 0; j < n; ++j) {
              const bool tuple_ok =
                  r->IsTuple() && static_cast<int64_t>(r->tuple_elements().size()) == n;
              const Literal& v = tuple_ok ? r->tuple_elements()[j] : *r;
              if (!v.shape().IsArray() ||
                  v.shape().element_type() != out[j].shape().element_type() || Count(v) != 1) {
                status = OpError(instr, "to_apply returned a value of the wrong shape");
                return;
              }
              std::memcpy(out[j].data() + oe * eb[j], v.data(), eb[j]);
            }
          }
        });
        if (!status.ok()) return status;
        break;
      }
    }
  }
  if (n == 1) return Finish(std::move(out[0]), result_shape);
  Literal t(result_shape);
  for (int64_t j = 0; j < n; ++j)
    t.mutable_tuple_elements()[j] = Finish(std::move(out[j]), result_shape.tuple_shape(j));
  return t;
}

}  // namespace

absl::StatusOr<Literal> EvalDataMovement(const Instruction& instr,
                                         absl::Span<const Literal* const> operands,
                                         OpContext& ctx) {
  switch (instr.opcode()) {
    case Opcode::kBroadcast: return EvalBroadcast(instr, operands);
    case Opcode::kReshape:
    case Opcode::kDynamicReshape: return EvalReshape(instr, operands);
    case Opcode::kTranspose: return EvalTranspose(instr, operands);
    case Opcode::kSlice: return EvalSlice(instr, operands);
    case Opcode::kDynamicSlice: return EvalDynamicSlice(instr, operands);
    case Opcode::kDynamicUpdateSlice: return EvalDynamicUpdateSlice(instr, operands);
    case Opcode::kConcatenate: return EvalConcatenate(instr, operands);
    case Opcode::kPad: return EvalPad(instr, operands);
    case Opcode::kReverse: return EvalReverse(instr, operands);
    case Opcode::kIota: return EvalIota(instr, operands);
    case Opcode::kGather: return EvalGather(instr, operands);
    case Opcode::kScatter: return EvalScatter(instr, operands, ctx);
    case Opcode::kGetDimensionSize: return EvalGetDimensionSize(instr, operands);
    case Opcode::kSetDimensionSize: return EvalSetDimensionSize(instr, operands);
    default: return OpUnimplemented(instr, "op (not a data-movement opcode)");
  }
}

absl::StatusOr<Literal> IotaValues(PrimitiveType t, absl::Span<const int64_t> indices) {
  const int64_t n = static_cast<int64_t>(indices.size());
  Literal line(Shape::Array(t, {n}));
  for (int64_t i = 0; i < n; ++i) {
    const int64_t v = indices[i];
    if (IsPred(t)) {
      line.SetInt(i, v != 0 ? 1 : 0);
    } else if (IsInteger(t)) {
      line.SetInt(i, v);
    } else if (IsComplex(t)) {
      line.SetComplex(i, {static_cast<double>(v), 0.0});
    } else if (IsFloat(t)) {
      line.SetDouble(i, static_cast<double>(v));
    } else {
      return absl::UnimplementedError(absl::StrCat("no index values of type ", PrimitiveTypeName(t)));
    }
  }
  return line;
}

}  // namespace hlo::cpu
