// reduce, reduce-window and select-and-scatter.
//
// Every op has a generic path that runs the called computation through
// ctx.call on scalars (any types, variadic forms) and a typed fast path for
// the common computations: a reducer/scatter whose root is add, multiply,
// maximum, minimum, and, or, xor of its two parameters, and a select whose
// root is a compare of its two parameters. The fast paths apply exactly the
// same scalar operation in the element type (narrow floats are rounded back
// to the type after every step), so their results equal the generic path
// for the same association order. Orders are fixed (docs/ops-reduction.md)
// and never depend on the number of threads. reduce-window's pooling cases
// (add / maximum / minimum) go first to the row kernels of
// reduce_window_kernels.cc, which fold in the same order as the per-output
// kernel here.
#include <algorithm>
#include <cstring>
#include <optional>
#include <type_traits>
#include <vector>

#include "absl/container/inlined_vector.h"
#include "backend_cpu/ew_types.h"
#include "backend_cpu/op_eval.h"
#include "backend_cpu/reduce_block.h"
#include "backend_cpu/reduce_scalar_ops.h"
#include "backend_cpu/reduce_tree.h"
#include "backend_cpu/reduce_window_kernels.h"
#include "backend_cpu/scalar_calls.h"
#include "backend_cpu/thread_pool.h"

namespace hlo::cpu {
namespace {

using Offsets = absl::InlinedVector<int64_t, 8>;
using red::BinOp;
using red::DispatchTypeOp;
using red::MatchBinary;
using red::Scalar;

bool IsScalarOf(const Shape& s, PrimitiveType t) { return s.IsScalar() && s.element_type() == t; }

// Calls f(offset) for every combination of indices of groups (sizes,
// strides), row-major (last group fastest).
template <class F>
inline void ForEachOffset(const Offsets& sizes, const Offsets& strides, F&& f) {
  const int64_t r = static_cast<int64_t>(sizes.size());
  if (r == 0) {
    f(int64_t{0});
    return;
  }
  for (int64_t s : sizes)
    if (s == 0) return;
  Offsets idx(r, 0);
  int64_t off = 0;
  const int64_t ls = sizes[r - 1], lst = strides[r - 1];
  while (true) {
    for (int64_t i = 0; i < ls; ++i) f(off + i * lst);
    int64_t d = r - 2;
    while (d >= 0) {
      ++idx[d];
      off += strides[d];
      if (idx[d] < sizes[d]) break;
      off -= idx[d] * strides[d];
      idx[d] = 0;
      --d;
    }
    if (d < 0) return;
  }
}

// Offset of the row-major linear index `lin` over groups (sizes, strides).
inline int64_t OffsetOf(int64_t lin, const Offsets& sizes, const Offsets& strides) {
  int64_t off = 0;
  for (int64_t g = static_cast<int64_t>(sizes.size()) - 1; g >= 0; --g) {
    off += (lin % sizes[g]) * strides[g];
    lin /= sizes[g];
  }
  return off;
}

// Assembles the result of an op with N array results (a tuple when the
// instruction's shape is one).
Literal AssembleResults(const Shape& shape, std::vector<Literal> outs) {
  if (!shape.IsTuple()) return ToLayout(std::move(outs[0]), shape.layout());
  Literal result(shape);
  for (size_t i = 0; i < outs.size(); ++i)
    result.mutable_tuple_elements()[i] = ToLayout(std::move(outs[i]), shape.tuple_shape(i).layout());
  return result;
}

// Sets elements [0, count) of `out` to the scalar `init` (converted like a
// reducer argument).
absl::Status FillWithScalar(const Literal& init, int64_t count, Literal* out) {
  Literal s(Shape::Scalar(out->shape().element_type()));
  if (absl::Status st = CopyScalarInto(init, 0, &s); !st.ok()) return st;
  const int b = s.element_bytes();
  for (int64_t i = 0; i < count; ++i) std::memcpy(out->data() + i * b, s.data(), b);
  return absl::OkStatus();
}

// ============================================================ reduce and reduce-window

// The to_apply of a reduce or reduce-window, whose operands are N inputs
// then N init values: sets *n = N and checks that it takes 2N parameters.
absl::StatusOr<const Computation*> VariadicReducer(const Instruction& instr,
                                                    absl::Span<const Literal* const> operands,
                                                    int64_t* n) {
  const Computation* comp = instr.AttrOr<Computation*>("to_apply", nullptr);
  if (comp == nullptr) return OpError(instr, "missing to_apply");
  if (operands.size() % 2 != 0 || operands.empty())
    return OpError(instr, "expects N inputs followed by N init values");
  *n = static_cast<int64_t>(operands.size()) / 2;
  if (comp->num_parameters() != 2 * *n) return OpError(instr, "to_apply must take 2N parameters");
  return comp;
}

// The N inputs, N init values and N results of a reduce or reduce-window.
struct ReduceArrays {
  ReduceArrays() = default;
  ReduceArrays(const ReduceArrays&) = delete;  // `ins` may point into `tmp`
  ReduceArrays& operator=(const ReduceArrays&) = delete;

  std::vector<Literal> tmp;                // row-major copies of inputs, where needed
  std::vector<const Literal*> ins, inits;  // row-major inputs, scalar init values
  std::vector<Literal> outs;               // zeroed row-major results
};

// Reads the operands of a reduce or reduce-window, N inputs of one set of
// dimensions then N scalar init values, and makes the results of `shape`
// (its elements when it is a tuple). reduce-window also wants all its
// results of one set of dimensions (`same_result_dims`; reduce checks its
// results against the reduced dimensions instead).
absl::Status ReadReduceArrays(const Instruction& instr, absl::Span<const Literal* const> operands,
                              int64_t n, const Shape& shape, bool same_result_dims,
                              ReduceArrays* arrays) {
  const Shape& in_shape = operands[0]->shape();
  arrays->tmp.resize(n);
  arrays->ins.resize(n);
  arrays->inits.resize(n);
  std::vector<Literal>& outs = arrays->outs;
  for (int64_t i = 0; i < n; ++i) {
    if (!operands[i]->shape().IsArray() || operands[i]->shape().dims() != in_shape.dims())
      return OpError(instr, "inputs must be arrays of the same dimensions");
    if (!operands[n + i]->shape().IsScalar()) return OpError(instr, "init values must be scalars");
    arrays->ins[i] = &RowMajor(*operands[i], &arrays->tmp[i]);
    arrays->inits[i] = operands[n + i];
    outs.push_back(RowMajorLiteral(shape.IsTuple() ? shape.tuple_shape(i) : shape));
    if (same_result_dims && outs[i].shape().dims() != outs[0].shape().dims())
      return OpError(instr, "results must have the same dimensions");
  }
  return absl::OkStatus();
}

// The typed fast paths take one input whose init value and result have its
// element type, and a reducer of a BinOp on that type; kNone otherwise.
BinOp FastReducerOp(const Computation* comp, const ReduceArrays& arrays) {
  if (arrays.ins.size() != 1) return BinOp::kNone;
  const PrimitiveType t = arrays.ins[0]->shape().element_type();
  if (arrays.inits[0]->shape().element_type() != t || arrays.outs[0].shape().element_type() != t)
    return BinOp::kNone;
  bool swapped = false;
  return MatchBinary(comp, t, &swapped);
}

// The generic path of reduce and reduce-window: element o of each result
// starts from the init values and folds in, calling the reducer through
// ctx.call, the input elements at the offsets that for_each_input(o, visit)
// passes to visit, in that order.
template <class ForEachInput>
absl::Status FoldWithReducer(const Computation& comp, ReduceArrays* arrays, int64_t count,
                             int64_t min_block, OpContext& ctx, ForEachInput&& for_each_input) {
  const std::vector<const Literal*>& ins = arrays->ins;
  const std::vector<const Literal*>& inits = arrays->inits;
  std::vector<Literal>& outs = arrays->outs;
  const int64_t n = static_cast<int64_t>(ins.size());
  return CallBlocks(count, min_block, [&](int64_t b, int64_t e, absl::Status& st) {
    ScalarArgs args(comp, 2 * n);
    for (int64_t o = b; o < e && st.ok(); ++o) {
      for (int64_t i = 0; i < n && st.ok(); ++i) st = CopyScalarInto(*inits[i], 0, &args.values[i]);
      for_each_input(o, [&](int64_t off) {
        if (!st.ok()) return;
        for (int64_t i = 0; i < n && st.ok(); ++i) st = CopyScalarInto(*ins[i], off, &args.values[n + i]);
        if (!st.ok()) return;
        auto r = ctx.call(comp, args.ptrs);
        if (!r.ok()) {
          st = r.status();
          return;
        }
        if (r->IsTuple()) {
          if (static_cast<int64_t>(r->tuple_elements().size()) != n) {
            st = absl::InvalidArgumentError("reducer returned the wrong number of values");
            return;
          }
          for (int64_t i = 0; i < n; ++i) args.values[i] = std::move(r->mutable_tuple_elements()[i]);
        } else {
          args.values[0] = std::move(*r);
        }
      });
      for (int64_t i = 0; i < n && st.ok(); ++i) st = CopyScalarOut(args.values[i], &outs[i], o);
    }
  });
}

// ============================================================ reduce

// Operand dimensions (row-major) with size-1 dimensions dropped and adjacent
// kept / reduced dimensions merged into groups.
struct ReducePlan {
  int64_t out_count = 0;  // M
  int64_t red_count = 0;  // R
  Offsets kept_sizes, kept_strides;  // kept groups, outer to inner
  Offsets red_sizes, red_strides;    // reduced groups, outer to inner
  bool inner_kept = false;           // the innermost group is kept
};

ReducePlan MakeReducePlan(absl::Span<const int64_t> dims, const std::vector<bool>& reduced) {
  Offsets sizes;
  std::vector<bool> kinds;
  for (size_t d = 0; d < dims.size(); ++d) {
    if (dims[d] == 1) continue;
    if (!kinds.empty() && kinds.back() == reduced[d]) {
      sizes.back() *= dims[d];
    } else {
      sizes.push_back(dims[d]);
      kinds.push_back(reduced[d]);
    }
  }
  ReducePlan p;
  p.out_count = 1;
  p.red_count = 1;
  int64_t stride = 1;
  Offsets strides(sizes.size());
  for (int64_t g = static_cast<int64_t>(sizes.size()) - 1; g >= 0; --g) {
    strides[g] = stride;
    stride *= sizes[g];
  }
  for (size_t g = 0; g < sizes.size(); ++g) {
    if (kinds[g]) {
      p.red_sizes.push_back(sizes[g]);
      p.red_strides.push_back(strides[g]);
      p.red_count *= sizes[g];
    } else {
      p.kept_sizes.push_back(sizes[g]);
      p.kept_strides.push_back(strides[g]);
      p.out_count *= sizes[g];
    }
  }
  p.inner_kept = !kinds.empty() && !kinds.back();
  return p;
}

constexpr int64_t kLanes = 16;         // independent accumulators of a run
constexpr int64_t kShortRun = 64;      // shorter runs are folded sequentially
constexpr int64_t kChunk = 1 << 15;    // runs longer than this: blocked partials
constexpr int64_t kWorkBlock = 1 << 15;  // element operations per parallel block

template <class T, BinOp kOp>
struct RunReducer {
  using S = typename T::Storage;
  using C = typename T::Compute;
  using Op = Scalar<T, kOp>;

  // Float reductions take 64 lanes: 16 f32 lanes are one AVX-512 vector,
  // a single dependency chain (the row max was 19% of a softmax, the row
  // sums a quarter of a layer norm's arithmetic); 64 are four chains.
  // Maximum / minimum do not depend on the order, except which NaN is
  // returned when several differ, which XLA leaves open
  // (docs/ops-reduction.md).

  // Float lanes are combined as a tree, in vector registers: the
  // sequential combine of 64 lanes cost more than the vector loop itself on
  // rows of 128 (attention softmax rows). For maximum / minimum any order
  // gives the same value; for add / multiply the tree is the order
  // (docs/ops-reduction.md), fixed by the row length alone.
  static constexpr bool kTreeCombine =
      T::kCat == ew::Cat::kFloat &&
      (kOp == BinOp::kAdd || kOp == BinOp::kMul || kOp == BinOp::kMax || kOp == BinOp::kMin);
  static constexpr int64_t kL = kTreeCombine ? 4 * kLanes : kLanes;

  // Reduction of n >= 1 contiguous elements without init: kL interleaved
  // accumulators combined in lane order, then the tail (floats: the tail
  // folded into the lanes, then a tree). Cloned per ISA (AVX2 / AVX-512 vectors hold the lanes): the lanes
  // are independent, so every clone gives the same bits.
  HLO_EW_CLONES static C Lanes(const S* x, int64_t n) {
    if constexpr (kTreeCombine) {
      if (n >= kL) return TreeLanes<kL>(x, n);
      if (n >= kLanes) return TreeLanes<kLanes>(x, n);
    }
    if (n < kL) {
      C a = T::Load(x[0]);
      for (int64_t i = 1; i < n; ++i) a = Op::Apply(a, T::Load(x[i]));
      return a;
    }
    C acc[kL];
    for (int64_t j = 0; j < kL; ++j) acc[j] = T::Load(x[j]);
    int64_t i = kL;
    for (; i + kL <= n; i += kL)
      for (int64_t j = 0; j < kL; ++j) acc[j] = Op::Apply(acc[j], T::Load(x[i + j]));
    C a = acc[0];
    for (int64_t j = 1; j < kL; ++j) a = Op::Apply(a, acc[j]);
    for (; i < n; ++i) a = Op::Apply(a, T::Load(x[i]));
    return a;
  }

  // L lanes (n >= L) halved pairwise down to one; order-free ops only.
  template <int64_t L>
  HLO_EW_CLONES static C TreeLanes(const S* x, int64_t n) {
    C acc[L];
    for (int64_t j = 0; j < L; ++j) acc[j] = T::Load(x[j]);
    FoldIntoLanes<L>(acc, x + L, n - L);
    HalveLanes<L>(acc);
    return acc[0];
  }
  // Whole blocks of L into the lanes, then the tail into the first lanes
  // (any order gives the same value). Folding a row in pieces that are
  // multiples of L (all but the last) meets every element with the same
  // lane in the same order (RowLanesFor).
  template <int64_t L>
  static inline __attribute__((always_inline)) void FoldIntoLanes(C* acc, const S* x, int64_t n) {
    int64_t i = 0;
    for (; i + L <= n; i += L)
      for (int64_t j = 0; j < L; ++j) acc[j] = Op::Apply(acc[j], T::Load(x[i + j]));
    for (int64_t j = 0; i + j < n; ++j) acc[j] = Op::Apply(acc[j], T::Load(x[i + j]));
  }
  template <int64_t L>
  static inline __attribute__((always_inline)) void HalveLanes(C* acc) {
    if constexpr (L > 1) {
      for (int64_t j = 0; j < L / 2; ++j) acc[j] = Op::Apply(acc[j], acc[j + L / 2]);
      HalveLanes<L / 2>(acc);
    }
  }

  // Folds n contiguous elements into `a`. Short runs (< kShortRun) are
  // folded sequentially, exactly like the generic path; longer runs are
  // reduced with Lanes and combined into `a`; runs longer than kChunk are
  // cut into fixed blocks (a function of n only) reduced in parallel and
  // combined in block order.
  static C Fold(C a, const S* x, int64_t n) {
    if (n < kShortRun) {
      for (int64_t i = 0; i < n; ++i) a = Op::Apply(a, T::Load(x[i]));
      return a;
    }
    if (n <= kChunk) return Op::Apply(a, Lanes(x, n));
    const int64_t nb = ParallelForNumBlocks(n, kChunk);
    const int64_t bs = ParallelForBlockSize(n, kChunk);
    std::vector<C> partial(nb);
    ParallelFor(n, kChunk, [&](int64_t b, int64_t e) { partial[b / bs] = Lanes(x + b, e - b); });
    for (int64_t i = 0; i < nb; ++i) a = Op::Apply(a, partial[i]);
    return a;
  }
};

template <class T, BinOp kOp>
struct ReduceKernel {
  using S = typename T::Storage;
  using C = typename T::Compute;
  using Op = Scalar<T, kOp>;
  using RR = RunReducer<T, kOp>;
  static constexpr int64_t kKC = 2048;

  static void Run(const ReducePlan& p, const Literal& in, const Literal& init, Literal* out) {
    Run(p, in.data(), init.data(), out->data());
  }
  // The same on raw row-major storage (`init` points at one element).
  static void Run(const ReducePlan& p, const void* in, const void* init, void* out) {
    const S* x = reinterpret_cast<const S*>(in);
    S* y = reinterpret_cast<S*>(out);
    S init_value;
    std::memcpy(&init_value, init, sizeof init_value);
    const C c0 = T::Load(init_value);
    if (p.inner_kept) {
      const int64_t inner = p.kept_sizes.back();
      Offsets ks(p.kept_sizes.begin(), p.kept_sizes.end() - 1);
      Offsets kst(p.kept_strides.begin(), p.kept_strides.end() - 1);
      const int64_t mo = p.out_count / inner;
      const int64_t nkb = (inner + kKC - 1) / kKC;
      const int64_t work = std::max<int64_t>(1, p.red_count * std::min(inner, kKC));
      ParallelFor(mo * nkb, std::max<int64_t>(1, kWorkBlock / work), [&](int64_t b, int64_t e) {
        C acc[kKC];
        for (int64_t u = b; u < e; ++u) {
          const int64_t o = u / nkb, k0 = (u % nkb) * kKC;
          const int64_t n = std::min(inner, k0 + kKC) - k0;
          const S* base = x + OffsetOf(o, ks, kst) + k0;
          for (int64_t k = 0; k < n; ++k) acc[k] = c0;
          ForEachOffset(p.red_sizes, p.red_strides, [&](int64_t roff) {
            const S* q = base + roff;
            for (int64_t k = 0; k < n; ++k) acc[k] = Op::Apply(acc[k], T::Load(q[k]));
          });
          S* dst = y + o * inner + k0;
          for (int64_t k = 0; k < n; ++k) dst[k] = T::Store(acc[k]);
        }
      });
      return;
    }
    // Innermost group reduced (or no group at all: one element).
    const int64_t inner = p.red_sizes.empty() ? 1 : p.red_sizes.back();
    Offsets rs, rst;
    if (!p.red_sizes.empty()) {
      rs.assign(p.red_sizes.begin(), p.red_sizes.end() - 1);
      rst.assign(p.red_strides.begin(), p.red_strides.end() - 1);
    }
    auto one = [&](int64_t o) {
      const S* base = x + OffsetOf(o, p.kept_sizes, p.kept_strides);
      C a = c0;
      ForEachOffset(rs, rst, [&](int64_t roff) { a = RR::Fold(a, base + roff, inner); });
      y[o] = T::Store(a);
    };
    if (inner > kChunk) {
      for (int64_t o = 0; o < p.out_count; ++o) one(o);  // parallel inside Fold
    } else {
      ParallelFor(p.out_count, std::max<int64_t>(1, kWorkBlock / p.red_count), [&](int64_t b, int64_t e) {
        for (int64_t o = b; o < e; ++o) one(o);
      });
    }
  }
};

absl::StatusOr<Literal> EvalReduceImpl(const Instruction& instr, absl::Span<const Literal* const> operands,
                                       OpContext& ctx) {
  int64_t n = 0;
  absl::StatusOr<const Computation*> reducer = VariadicReducer(instr, operands, &n);
  if (!reducer.ok()) return reducer.status();
  const Computation* comp = *reducer;
  const Shape& shape = instr.shape();
  if ((n > 1) != shape.IsTuple() || (shape.IsTuple() && shape.tuple_size() != n))
    return OpError(instr, "result shape does not match the number of inputs");
  const std::vector<int64_t> dimensions = instr.AttrOr<std::vector<int64_t>>("dimensions", {});
  const Shape& in_shape = operands[0]->shape();
  const int64_t rank = in_shape.rank();
  std::vector<bool> reduced(rank, false);
  for (int64_t d : dimensions) {
    if (d < 0 || d >= rank || reduced[d]) return OpError(instr, "bad reduce dimensions");
    reduced[d] = true;
  }
  ReduceArrays arrays;
  if (absl::Status st = ReadReduceArrays(instr, operands, n, shape, /*same_result_dims=*/false, &arrays);
      !st.ok())
    return st;
  std::vector<Literal>& outs = arrays.outs;
  const ReducePlan plan = MakeReducePlan(in_shape.dims(), reduced);
  if (outs[0].shape().ElementCount() != plan.out_count)
    return OpError(instr, "result dimensions do not match the kept input dimensions");
  if (plan.out_count == 0) return AssembleResults(shape, std::move(outs));
  if (plan.red_count == 0) {  // nothing to reduce: every result is the init value
    for (int64_t i = 0; i < n; ++i) {
      absl::Status st = FillWithScalar(*arrays.inits[i], plan.out_count, &outs[i]);
      if (!st.ok()) return OpError(instr, st.message());
    }
    return AssembleResults(shape, std::move(outs));
  }

  // Typed fast path: one input, reducer op(p0, p1), every type equal.
  const BinOp op = FastReducerOp(comp, arrays);
  if (op != BinOp::kNone && UsesReductionTree(in_shape.element_type(), op, in_shape.dims(), reduced)) {
    ReduceByTree(in_shape.element_type(), op, in_shape.dims(), reduced, arrays.ins[0]->data(),
                 arrays.inits[0]->data(), outs[0].data());
    return AssembleResults(shape, std::move(outs));
  }
  if (op != BinOp::kNone && DispatchTypeOp<ReduceKernel>(in_shape.element_type(), op, plan, *arrays.ins[0],
                                                         *arrays.inits[0], &outs[0]))
    return AssembleResults(shape, std::move(outs));

  // Generic path: per output element, fold the reduced elements in
  // row-major order, starting from the init values.
  const int64_t min_block = std::max<int64_t>(1, 1024 / std::max<int64_t>(1, plan.red_count));
  auto for_each_input = [&](int64_t o, auto&& visit) {
    const int64_t base = OffsetOf(o, plan.kept_sizes, plan.kept_strides);
    ForEachOffset(plan.red_sizes, plan.red_strides, [&](int64_t roff) { visit(base + roff); });
  };
  const absl::Status st = FoldWithReducer(*comp, &arrays, plan.out_count, min_block, ctx, for_each_input);
  if (!st.ok()) return OpError(instr, st.message());
  return AssembleResults(shape, std::move(outs));
}

// ============================================================ windows

// For every dimension d and output coordinate o, the input offsets (input
// coordinate * row-major stride) of the valid window positions, in window
// order. Padding positions and base-dilation holes are not listed.
struct WindowGeom {
  std::vector<int64_t> out_dims;
  std::vector<std::vector<std::vector<int64_t>>> offs;  // [d][o]
};

absl::StatusOr<WindowGeom> MakeWindowGeom(const Instruction& instr, absl::Span<const int64_t> in_dims,
                                          absl::Span<const int64_t> out_dims) {
  const int64_t rank = static_cast<int64_t>(in_dims.size());
  std::vector<WindowDimension> wd(rank);
  if (const Window* w = instr.GetAttr<Window>("window")) {
    if (static_cast<int64_t>(w->dimensions.size()) != rank)
      return OpError(instr, "window rank does not match the operand rank");
    wd = w->dimensions;
  }
  if (static_cast<int64_t>(out_dims.size()) != rank)
    return OpError(instr, "window output rank does not match the operand rank");
  WindowGeom g;
  g.out_dims.assign(out_dims.begin(), out_dims.end());
  g.offs.resize(rank);
  const std::vector<int64_t> strides = RowMajorStrides(in_dims);
  for (int64_t d = 0; d < rank; ++d) {
    const WindowDimension& w = wd[d];
    if (w.size < 0 || w.stride < 1 || w.base_dilation < 1 || w.window_dilation < 1)
      return OpError(instr, "bad window dimension");
    g.offs[d].resize(out_dims[d]);
    for (int64_t o = 0; o < out_dims[d]; ++o) {
      auto& list = g.offs[d][o];
      for (int64_t k = 0; k < w.size; ++k) {
        const int64_t pos = o * w.stride + k * w.window_dilation - w.padding_low;
        if (pos < 0 || pos % w.base_dilation != 0) continue;
        const int64_t i = pos / w.base_dilation;
        if (i >= in_dims[d]) continue;
        list.push_back(i * strides[d]);
      }
    }
  }
  return g;
}

// Calls f(offset) for the valid window positions of output element `o`
// (row-major over the window).
template <class F>
inline void ForEachWindowOffset(const WindowGeom& g, int64_t lin, F&& f) {
  const int64_t r = static_cast<int64_t>(g.out_dims.size());
  if (r == 0) {
    f(int64_t{0});
    return;
  }
  absl::InlinedVector<const std::vector<int64_t>*, 8> lists(r);
  for (int64_t d = r - 1; d >= 0; --d) {
    lists[d] = &g.offs[d][lin % g.out_dims[d]];
    lin /= g.out_dims[d];
    if (lists[d]->empty()) return;
  }
  Offsets pos(r, 0), partial(r + 1, 0);
  for (int64_t d = 0; d < r - 1; ++d) partial[d + 1] = partial[d] + (*lists[d])[0];
  while (true) {
    const int64_t b = partial[r - 1];
    for (int64_t v : *lists[r - 1]) f(b + v);
    int64_t d = r - 2;
    while (d >= 0) {
      if (++pos[d] < static_cast<int64_t>(lists[d]->size())) break;
      pos[d] = 0;
      --d;
    }
    if (d < 0) return;
    for (int64_t e = d; e < r - 1; ++e) partial[e + 1] = partial[e] + (*lists[e])[pos[e]];
  }
}

template <class T, BinOp kOp>
struct ReduceWindowKernel {
  using S = typename T::Storage;
  using C = typename T::Compute;
  using Op = Scalar<T, kOp>;
  static void Run(const WindowGeom& g, int64_t window_elems, const Literal& in, const Literal& init,
                  Literal* out) {
    const S* x = reinterpret_cast<const S*>(in.data());
    S* y = reinterpret_cast<S*>(out->data());
    const C c0 = T::Load(init.GetRaw<S>(0));
    const int64_t count = out->shape().ElementCount();
    ParallelFor(count, std::max<int64_t>(1, kWorkBlock / std::max<int64_t>(1, window_elems)),
                [&](int64_t b, int64_t e) {
                  for (int64_t o = b; o < e; ++o) {
                    C a = c0;
                    ForEachWindowOffset(g, o, [&](int64_t off) { a = Op::Apply(a, T::Load(x[off])); });
                    y[o] = T::Store(a);
                  }
                });
  }
};

int64_t WindowElements(const Instruction& instr) {
  int64_t n = 1;
  if (const Window* w = instr.GetAttr<Window>("window"))
    for (const auto& d : w->dimensions) n *= std::max<int64_t>(d.size, 1);
  return n;
}

absl::StatusOr<Literal> EvalReduceWindowImpl(const Instruction& instr,
                                             absl::Span<const Literal* const> operands, OpContext& ctx) {
  int64_t n = 0;
  absl::StatusOr<const Computation*> reducer = VariadicReducer(instr, operands, &n);
  if (!reducer.ok()) return reducer.status();
  const Computation* comp = *reducer;
  const Shape& shape = instr.shape();
  if ((n > 1 && !shape.IsTuple()) || (shape.IsTuple() && shape.tuple_size() != n))
    return OpError(instr, "result shape does not match the number of inputs");
  const Shape& in_shape = operands[0]->shape();
  // Pooling fast path (reduce_window_kernels.h): one input, add / maximum /
  // minimum, every type equal; it reads the operand in its own layout.
  if (n == 1 && in_shape.IsArray()) {
    bool swapped = false;
    const BinOp op = MatchBinary(comp, in_shape.element_type(), &swapped);
    if (std::optional<Literal> r =
            ReduceWindowRows(op, instr.GetAttr<Window>("window"), *operands[0], *operands[1], shape))
      return std::move(*r);
  }
  ReduceArrays arrays;
  if (absl::Status st = ReadReduceArrays(instr, operands, n, shape, /*same_result_dims=*/true, &arrays);
      !st.ok())
    return st;
  std::vector<Literal>& outs = arrays.outs;
  auto geom = MakeWindowGeom(instr, in_shape.dims(), outs[0].shape().dims());
  if (!geom.ok()) return geom.status();
  const int64_t count = outs[0].shape().ElementCount();
  if (count == 0) return AssembleResults(shape, std::move(outs));
  const int64_t welems = WindowElements(instr);

  const BinOp op = FastReducerOp(comp, arrays);
  if (op != BinOp::kNone && DispatchTypeOp<ReduceWindowKernel>(in_shape.element_type(), op, *geom, welems,
                                                               *arrays.ins[0], *arrays.inits[0], &outs[0]))
    return AssembleResults(shape, std::move(outs));

  const int64_t min_block = std::max<int64_t>(1, 1024 / welems);
  auto for_each_input = [&](int64_t o, auto&& visit) { ForEachWindowOffset(*geom, o, visit); };
  const absl::Status st = FoldWithReducer(*comp, &arrays, count, min_block, ctx, for_each_input);
  if (!st.ok()) return OpError(instr, st.message());
  return AssembleResults(shape, std::move(outs));
}

// ============================================================ select-and-scatter

enum class CmpDir { kEq, kNe, kGe, kGt, kLe, kLt };

// select = compare(p0, p1) (or swapped) with the default comparison type of t.
bool MatchSelect(const Computation* c, PrimitiveType t, CmpDir* dir, bool* swapped) {
  if (c == nullptr || c->num_parameters() != 2) return false;
  const Instruction* root = c->root();
  if (root == nullptr || root->opcode() != Opcode::kCompare || root->operand_count() != 2) return false;
  const Instruction* a = root->operand(0);
  const Instruction* b = root->operand(1);
  if (a->opcode() != Opcode::kParameter || b->opcode() != Opcode::kParameter) return false;
  if (!IsScalarOf(a->shape(), t) || !IsScalarOf(b->shape(), t)) return false;
  if (a->parameter_number() == b->parameter_number()) return false;
  *swapped = a->parameter_number() == 1;
  const std::string type = root->AttrOr<std::string>("type", "");
  if (!type.empty()) {
    const char* want = IsFloat(t) ? "FLOAT" : IsSignedInt(t) ? "SIGNED" : "UNSIGNED";
    if (type != want) return false;
  }
  const std::string d = root->AttrOr<std::string>("direction", "");
  if (d == "EQ") *dir = CmpDir::kEq;
  else if (d == "NE") *dir = CmpDir::kNe;
  else if (d == "GE") *dir = CmpDir::kGe;
  else if (d == "GT") *dir = CmpDir::kGt;
  else if (d == "LE") *dir = CmpDir::kLe;
  else if (d == "LT") *dir = CmpDir::kLt;
  else return false;
  return true;
}

template <class C>
inline bool Compare(CmpDir d, C a, C b) {
  switch (d) {
    case CmpDir::kEq: return a == b;
    case CmpDir::kNe: return a != b;
    case CmpDir::kGe: return a >= b;
    case CmpDir::kGt: return a > b;
    case CmpDir::kLe: return a <= b;
    case CmpDir::kLt: return a < b;
  }
  return false;
}

struct SasArgs {
  const WindowGeom* geom;
  CmpDir dir;
  bool sel_swapped;
  const Literal* operand;
  const Literal* source;
  const Literal* init;
  Literal* out;
};

template <class T, BinOp kOp>
struct SelectAndScatterKernel {
  using S = typename T::Storage;
  using C = typename T::Compute;
  using Op = Scalar<T, kOp>;
  static void Run(const SasArgs& a, int64_t window_elems) {
    const S* x = reinterpret_cast<const S*>(a.operand->data());
    const S* src = reinterpret_cast<const S*>(a.source->data());
    S* y = reinterpret_cast<S*>(a.out->data());
    const int64_t count = a.source->shape().ElementCount();
    const int64_t total = a.out->shape().ElementCount();
    const S init = a.init->GetRaw<S>(0);
    for (int64_t i = 0; i < total; ++i) y[i] = init;
    std::vector<int64_t> selected(count, -1);
    ParallelFor(count, std::max<int64_t>(1, kWorkBlock / std::max<int64_t>(1, window_elems)),
                [&](int64_t b, int64_t e) {
                  for (int64_t s = b; s < e; ++s) {
                    int64_t sel = -1;
                    C cur{};
                    ForEachWindowOffset(*a.geom, s, [&](int64_t off) {
                      const C v = T::Load(x[off]);
                      if (sel < 0) {
                        sel = off;
                        cur = v;
                        return;
                      }
                      const bool keep = a.sel_swapped ? Compare(a.dir, v, cur) : Compare(a.dir, cur, v);
                      if (!keep) {
                        sel = off;
                        cur = v;
                      }
                    });
                    selected[s] = sel;
                  }
                });
    for (int64_t s = 0; s < count; ++s) {
      const int64_t t = selected[s];
      if (t >= 0) y[t] = T::Store(Op::Apply(T::Load(y[t]), T::Load(src[s])));
    }
  }
};

template <class T, BinOp kOp>
struct SasDispatch {
  static void Run(const SasArgs& a, int64_t window_elems) {
    if constexpr (T::kCat == ew::Cat::kComplex) {
      (void)a;
      (void)window_elems;
    } else {
      SelectAndScatterKernel<T, kOp>::Run(a, window_elems);
    }
  }
};

absl::StatusOr<Literal> EvalSelectAndScatterImpl(const Instruction& instr,
                                                 absl::Span<const Literal* const> operands,
                                                 OpContext& ctx) {
  const Computation* select = instr.AttrOr<Computation*>("select", nullptr);
  const Computation* scatter = instr.AttrOr<Computation*>("scatter", nullptr);
  if (select == nullptr || scatter == nullptr) return OpError(instr, "missing select or scatter");
  if (operands.size() != 3) return OpError(instr, "expects operand, source and init value");
  if (select->num_parameters() != 2 || scatter->num_parameters() != 2)
    return OpError(instr, "select and scatter must take 2 parameters");
  const Shape& shape = instr.shape();
  if (!shape.IsArray()) return OpError(instr, "result must be an array");
  Literal t0, t1;
  const Literal& operand = RowMajor(*operands[0], &t0);
  const Literal& source = RowMajor(*operands[1], &t1);
  const Literal& init = *operands[2];
  if (!init.shape().IsScalar()) return OpError(instr, "init value must be a scalar");
  if (operand.shape().dims() != shape.dims()) return OpError(instr, "result must have the operand's shape");
  auto geom = MakeWindowGeom(instr, operand.shape().dims(), source.shape().dims());
  if (!geom.ok()) return geom.status();
  Literal out = RowMajorLiteral(shape);
  const int64_t welems = WindowElements(instr);
  const int64_t count = source.shape().ElementCount();
  const int64_t total = shape.ElementCount();

  {
    const PrimitiveType t = operand.shape().element_type();
    CmpDir dir = CmpDir::kGe;
    bool sel_swapped = false, sc_swapped = false;
    const BinOp op = MatchBinary(scatter, t, &sc_swapped);
    if (op != BinOp::kNone && !IsComplex(t) && MatchSelect(select, t, &dir, &sel_swapped) &&
        source.shape().element_type() == t && init.shape().element_type() == t &&
        shape.element_type() == t) {
      SasArgs a{&*geom, dir, sel_swapped, &operand, &source, &init, &out};
      if (DispatchTypeOp<SasDispatch>(t, op, a, welems)) return ToLayout(std::move(out), shape.layout());
    }
  }

  // Generic path. Output starts as init everywhere.
  if (absl::Status st = FillWithScalar(init, total, &out); !st.ok()) return OpError(instr, st.message());
  // 1. Selection, in parallel: for each window, the first valid element is
  //    the candidate; a later element replaces it when select(current,
  //    element) is false.
  std::vector<int64_t> selected(count, -1);
  const int64_t min_block = std::max<int64_t>(1, 1024 / welems);
  const absl::Status selection = CallBlocks(count, min_block, [&](int64_t b, int64_t e, absl::Status& st) {
    Literal cur = ScalarLiteralOfParam(*select, 0);
    Literal cand = ScalarLiteralOfParam(*select, 1);
    const Literal* ptrs[2] = {&cur, &cand};
    for (int64_t s = b; s < e && st.ok(); ++s) {
      int64_t sel = -1;
      ForEachWindowOffset(*geom, s, [&](int64_t off) {
        if (!st.ok()) return;
        if (sel < 0) {
          sel = off;
          st = CopyScalarInto(operand, off, &cur);
          return;
        }
        st = CopyScalarInto(operand, off, &cand);
        if (!st.ok()) return;
        auto r = ctx.call(*select, absl::MakeConstSpan(ptrs, 2));
        if (!r.ok()) {
          st = r.status();
          return;
        }
        if (!r->shape().IsScalar() || r->shape().element_type() != PrimitiveType::PRED) {
          st = absl::InvalidArgumentError("select did not return pred[]");
          return;
        }
        if (r->GetRaw<uint8_t>(0) == 0) {
          sel = off;
          st = CopyScalarInto(operand, off, &cur);
        }
      });
      selected[s] = sel;
    }
  });
  if (!selection.ok()) return OpError(instr, selection.message());
  // 2. Scatter, sequentially in source order: out[sel] = scatter(out[sel], source).
  Literal acc = ScalarLiteralOfParam(*scatter, 0);
  Literal val = ScalarLiteralOfParam(*scatter, 1);
  const Literal* ptrs[2] = {&acc, &val};
  for (int64_t s = 0; s < count; ++s) {
    const int64_t t = selected[s];
    if (t < 0) continue;
    absl::Status st = CopyScalarInto(out, t, &acc);
    if (st.ok()) st = CopyScalarInto(source, s, &val);
    if (!st.ok()) return OpError(instr, st.message());
    auto r = ctx.call(*scatter, absl::MakeConstSpan(ptrs, 2));
    if (!r.ok()) return OpError(instr, r.status().message());
    st = CopyScalarOut(*r, &out, t);
    if (!st.ok()) return OpError(instr, st.message());
  }
  return ToLayout(std::move(out), shape.layout());
}

// Dispatch probe: K<T, op>::Run() exists exactly for the fast (type, op) pairs.
template <class T, BinOp kOp>
struct FastPathProbe {
  static void Run() {}
};

// Dispatch target of RowReducerFor: the typed row loop of RunReducer::Fold,
// as ReduceKernel runs a single reduced group per kept row.
template <class T, BinOp kOp>
struct RowReducerOf {
  using S = typename T::Storage;
  static void Run(RowReduceFn* fn) { *fn = &Rows; }
  static void Rows(const void* in, const void* init, void* out, int64_t rows, int64_t row_elems) {
    const S* x = static_cast<const S*>(in);
    S* y = static_cast<S*>(out);
    S init_value;
    std::memcpy(&init_value, init, sizeof init_value);
    const typename T::Compute c0 = T::Load(init_value);
    for (int64_t r = 0; r < rows; ++r) y[r] = T::Store(RunReducer<T, kOp>::Fold(c0, x + r * row_elems, row_elems));
  }
};

// Dispatch target of RowLanesFor: RunReducer::Fold's lane loop for rows of
// kRowLanes..kChunk elements (TreeLanes<kL>) cut into pieces.
template <class T, BinOp kOp>
struct RowLanesOf {
  using S = typename T::Storage;
  using C = typename T::Compute;
  using R = RunReducer<T, kOp>;
  using Op = Scalar<T, kOp>;
  static constexpr int64_t kL = R::kL;
  static_assert(!R::kTreeCombine || kL == kRowLanes, "the pieces must cut the row where Fold's lanes do");
  static_assert(!R::kTreeCombine || kL * sizeof(C) <= kRowLanesBytes, "lane state too big");
  static void Run(RowLanes* fns) {
    if constexpr (R::kTreeCombine) *fns = RowLanes{&Start, &Add, &Finish};
  }
  static void Start(void* lanes, const void* in, int64_t n) {
    C* acc = static_cast<C*>(lanes);
    const S* x = static_cast<const S*>(in);
    for (int64_t j = 0; j < kL; ++j) acc[j] = T::Load(x[j]);
    Add(lanes, x + kL, n - kL);
  }
  HLO_EW_CLONES static void Add(void* lanes, const void* in, int64_t n) {
    C acc[kL];
    std::memcpy(acc, lanes, sizeof acc);
    R::template FoldIntoLanes<kL>(acc, static_cast<const S*>(in), n);
    std::memcpy(lanes, acc, sizeof acc);
  }
  static void Finish(const void* lanes, const void* init, void* out) {
    C acc[kL];
    std::memcpy(acc, lanes, sizeof acc);
    R::template HalveLanes<kL>(acc);
    S init_value;
    std::memcpy(&init_value, init, sizeof init_value);
    const S y = T::Store(Op::Apply(T::Load(init_value), acc[0]));
    std::memcpy(out, &y, sizeof y);
  }
};

// Dispatch target of ColumnFolderFor: ReduceKernel's loop for a kept
// innermost group (every column folded row after row), across calls.
template <class T, BinOp kOp>
struct ColumnFoldOf {
  using S = typename T::Storage;
  using C = typename T::Compute;
  using Op = Scalar<T, kOp>;
  static_assert(sizeof(C) <= kColumnAccBytes, "accumulator too big");
  static void Run(ColumnFolder* f) { *f = ColumnFolder{&Start, &Fold, &Finish}; }
  static void Start(void* acc, const void* init, int64_t n) {
    S init_value;
    std::memcpy(&init_value, init, sizeof init_value);
    const C c0 = T::Load(init_value);
    C* a = static_cast<C*>(acc);
    for (int64_t k = 0; k < n; ++k) a[k] = c0;
  }
  HLO_EW_CLONES static void Fold(void* acc, const void* in, int64_t rows, int64_t n) {
    C* __restrict a = static_cast<C*>(acc);
    const S* x = static_cast<const S*>(in);
    for (int64_t r = 0; r < rows; ++r, x += n)
      for (int64_t k = 0; k < n; ++k) a[k] = Op::Apply(a[k], T::Load(x[k]));
  }
  static void Finish(const void* acc, void* out, int64_t n) {
    const C* a = static_cast<const C*>(acc);
    S* y = static_cast<S*>(out);
    for (int64_t k = 0; k < n; ++k) y[k] = T::Store(a[k]);
  }
};

}  // namespace

RowLanes RowLanesFor(PrimitiveType type, const Computation* reducer) {
  if (RowReducerFor(type, reducer) == nullptr) return {};
  bool swapped = false;
  const BinOp op = MatchBinary(reducer, type, &swapped);
  RowLanes fns;
  DispatchTypeOp<RowLanesOf>(type, op, &fns);
  return fns;
}

int64_t RowLanesMaxRow() { return kChunk; }

RowReduceFn RowReducerFor(PrimitiveType type, const Computation* reducer) {
  bool swapped = false;
  const BinOp op = MatchBinary(reducer, type, &swapped);
  if (op == BinOp::kNone || UsesReductionTree(type, op, {2}, {true})) return nullptr;
  RowReduceFn fn = nullptr;
  return DispatchTypeOp<RowReducerOf>(type, op, &fn) ? fn : nullptr;
}

ColumnFolder ColumnFolderFor(PrimitiveType type, const Computation* reducer) {
  bool swapped = false;
  const BinOp op = MatchBinary(reducer, type, &swapped);
  if (op == BinOp::kNone || UsesReductionTree(type, op, {2, 1}, {true, false})) return {};
  ColumnFolder f;
  return DispatchTypeOp<ColumnFoldOf>(type, op, &f) ? f : ColumnFolder{};
}

bool ReduceBlockSupported(PrimitiveType type, const Computation* reducer) {
  bool swapped = false;
  const BinOp op = MatchBinary(reducer, type, &swapped);
  return op != BinOp::kNone && DispatchTypeOp<FastPathProbe>(type, op);
}

bool ReduceBlock(PrimitiveType type, const Computation* reducer, absl::Span<const int64_t> dims,
                 absl::Span<const int64_t> reduced_dims, const void* in, const void* init, void* out) {
  bool swapped = false;
  const BinOp op = MatchBinary(reducer, type, &swapped);
  if (op == BinOp::kNone) return false;
  std::vector<bool> reduced(dims.size(), false);
  for (int64_t d : reduced_dims) reduced[d] = true;
  const ReducePlan plan = MakeReducePlan(dims, reduced);
  if (plan.out_count == 0) return true;
  if (plan.red_count == 0) return false;  // the caller fills init values
  if (UsesReductionTree(type, op, dims, reduced)) {
    ReduceByTree(type, op, dims, reduced, in, init, out);
    return true;
  }
  return DispatchTypeOp<ReduceKernel>(type, op, plan, in, init, out);
}

absl::StatusOr<Literal> EvalReduceOp(const Instruction& instr, absl::Span<const Literal* const> operands,
                                     OpContext& ctx) {
  return EvalReduceImpl(instr, operands, ctx);
}
absl::StatusOr<Literal> EvalReduceWindowOp(const Instruction& instr, absl::Span<const Literal* const> operands,
                                           OpContext& ctx) {
  return EvalReduceWindowImpl(instr, operands, ctx);
}
absl::StatusOr<Literal> EvalSelectAndScatterOp(const Instruction& instr,
                                               absl::Span<const Literal* const> operands, OpContext& ctx) {
  return EvalSelectAndScatterImpl(instr, operands, ctx);
}

}  // namespace hlo::cpu
