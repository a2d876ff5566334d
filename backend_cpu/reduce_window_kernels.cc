// Row kernels of reduce-window (see reduce_window_kernels.h).
//
// Plan: the result's physically innermost dimensions that the window maps
// one to one (size 1, stride 1, no padding: the features of NHWC) merge
// into one contiguous row; when there are none, the innermost dimension
// itself is the row and its window positions are evenly strided (W of
// NCHW). Every other dimension indexes rows. For one row, the "taps" are
// the valid window positions of the row-indexing dimensions combined with
// every window position of the row dimension, listed row-major over the
// logical window dimensions: exactly the order in which the per-output
// kernel visits them. Each tap then folds into the accumulators of all
// outputs of the row whose window position it is valid for. Outputs near
// the row's ends, where a window position of the row dimension falls into
// the padding, skip that tap (as the per-output kernel skips it); they are
// folded one by one.
#include "backend_cpu/reduce_window_kernels.h"

#include <algorithm>
#include <numeric>
#include <vector>

#include "absl/types/span.h"
#include "backend_cpu/ew_types.h"
#include "backend_cpu/op_eval.h"
#include "backend_cpu/thread_pool.h"

namespace hlo::cpu {
namespace red {

// Outputs per unit of parallel work.
inline constexpr int64_t kRowBlock = 256;

// n consecutive outputs of a row, in blocks whose accumulators stay in L1:
// every tap is one pass over the block, a loop the compiler vectorises.
// kStep: the input stride between outputs when known at compile time (1:
// contiguous, 2: the stride-2 windows of pooling), 0: `step`.
template <class T, BinOp kOp, int64_t kStep>
__attribute__((always_inline)) inline void FoldOutputRun(const typename T::Storage* __restrict x,
                                                         const int64_t* taps, int64_t ntaps, int64_t first,
                                                         int64_t n, int64_t step, typename T::Compute init,
                                                         typename T::Storage* __restrict y) {
  using S = typename T::Storage;
  using C = typename T::Compute;
  using Op = Scalar<T, kOp>;
  constexpr int64_t kBlock = 64;
  const int64_t st = kStep ? kStep : step;
  C acc[kBlock];
  for (int64_t j0 = 0; j0 < n; j0 += kBlock) {
    const int64_t m = std::min(kBlock, n - j0);
    for (int64_t j = 0; j < m; ++j) acc[j] = init;
    for (int64_t t = 0; t < ntaps; ++t) {
      const S* __restrict p = x + (taps[t] + first + j0 * st);
      for (int64_t j = 0; j < m; ++j) acc[j] = Op::Apply(acc[j], T::Load(p[j * st]));
    }
    for (int64_t j = 0; j < m; ++j) y[j0 + j] = T::Store(acc[j]);
  }
}

// Folds `ntaps` taps into n consecutive outputs of each of `rows` rows:
// y[r*y_row + j] = op(...op(op(init, x[taps[0] + first + r*x_row + j*step]),
// x[taps[1] + ...])...). Accumulators stay in the compute type (f32 for
// f16/bf16, rounded back to the type after every add by Scalar::Apply, as
// everywhere else). One ISA clone per level, like the elementwise loops:
// -ffp-contract=off (see CMakeLists.txt) keeps them bit-identical.
template <class T, BinOp kOp>
HLO_EW_CLONES void FoldWindowRows(const typename T::Storage* __restrict x, const int64_t* taps,
                                  int64_t ntaps, int64_t first, int64_t n, int64_t step, int64_t rows,
                                  int64_t x_row, int64_t y_row, typename T::Compute init,
                                  typename T::Storage* __restrict y) {
  for (int64_t r = 0; r < rows; ++r, first += x_row, y += y_row) {
    if (step == 1) {
      FoldOutputRun<T, kOp, 1>(x, taps, ntaps, first, n, step, init, y);
    } else if (step == 2) {
      FoldOutputRun<T, kOp, 2>(x, taps, ntaps, first, n, step, init, y);
    } else {
      FoldOutputRun<T, kOp, 0>(x, taps, ntaps, first, n, step, init, y);
    }
  }
}

}  // namespace red

namespace {

using red::BinOp;
using red::kRowBlock;

// Element operations per parallel block.
constexpr int64_t kBlockWork = 1 << 15;

// One logical dimension: sizes, the input's (physical) stride in elements,
// its window, and the outputs [lo, hi) whose every window position lies
// inside the input.
struct Dim {
  int64_t in_size = 0, out_size = 0, in_stride = 0;
  WindowDimension w;
  int64_t lo = 0, hi = 0;
};

void SetInterior(Dim* d) {
  const WindowDimension& w = d->w;
  d->lo = 0;
  d->hi = d->out_size;
  if (w.size == 0) return;
  const int64_t first = -w.padding_low, last = (w.size - 1) * w.window_dilation - w.padding_low;
  if (first < 0) d->lo = std::min(d->out_size, (-first + w.stride - 1) / w.stride);
  const int64_t room = d->in_size - 1 - last;  // largest o * stride with the last position inside
  d->hi = std::clamp(room < 0 ? int64_t{0} : room / w.stride + 1, d->lo, d->out_size);
}

// The window maps output coordinate i to input coordinate i alone.
bool IsIdentity(const Dim& d) {
  return d.w.size == 1 && d.w.stride == 1 && d.w.padding_low == 0 && d.w.base_dilation == 1 &&
         d.in_size == d.out_size;
}

// Combines taps with the window positions of one more dimension: every
// tap becomes list.size() taps, the new dimension varying fastest (so
// dimensions added in logical order give row-major window order). `disps`
// takes the new dimension's displacements when given (the row dimension),
// else keeps the old ones.
void CrossTaps(const std::vector<int64_t>& list, const std::vector<int64_t>* list_disps,
               std::vector<int64_t>* offs, std::vector<int64_t>* disps) {
  const int64_t n = static_cast<int64_t>(offs->size()), m = static_cast<int64_t>(list.size());
  offs->resize(n * m);
  disps->resize(n * m);
  for (int64_t i = n - 1; i >= 0; --i) {  // backwards, so in place
    const int64_t o = (*offs)[i], disp = (*disps)[i];
    for (int64_t k = m - 1; k >= 0; --k) {
      (*offs)[i * m + k] = o + list[k];
      (*disps)[i * m + k] = list_disps ? (*list_disps)[k] : disp;
    }
  }
}

struct RowPlan {
  std::vector<Dim> dims;  // logical order
  std::vector<int> outer;  // dimensions that index rows, physically major to minor
  int64_t rows = 1;        // product of their output sizes
  int64_t row_len = 1;     // outputs per row
  int row_dim = -1;        // the windowed dimension along the row; -1: a merged run
  std::vector<int> tap_dims;  // dimensions that make the taps, logical order
  // [d][o]: input offsets of the valid window positions of output
  // coordinate o of a row-indexing dimension d, in window order.
  std::vector<std::vector<std::vector<int64_t>>> valid;
  std::vector<int64_t> row_disp;  // windowed row: k * window_dilation - padding_low per position k
  std::vector<int64_t> row_offs;  // the same as input offsets (row_disp * the row dimension's stride)
  // The taps of a row inside the input along every row-indexing dimension,
  // relative to the row's base offset: the same for all such rows.
  std::vector<int64_t> inner_offs, inner_disps;
  int64_t step = 1;          // input elements between neighbouring outputs of a row
  int64_t jlo = 0, jhi = 0;  // outputs of a row for which every tap is in bounds
  int64_t taps_bound = 1;    // window elements (work estimate)
};

std::optional<RowPlan> MakeRowPlan(const Window* window, absl::Span<const int64_t> in_dims,
                                   absl::Span<const int64_t> out_dims,
                                   absl::Span<const int64_t> major_to_minor) {
  const int rank = static_cast<int>(in_dims.size());
  if (static_cast<int>(out_dims.size()) != rank) return std::nullopt;
  if (window != nullptr && static_cast<int>(window->dimensions.size()) != rank) return std::nullopt;
  RowPlan p;
  p.dims.resize(rank);
  int64_t stride = 1;
  for (int i = rank - 1; i >= 0; --i) {
    const int d = static_cast<int>(major_to_minor[i]);
    Dim& dim = p.dims[d];
    dim.in_size = in_dims[d];
    dim.out_size = out_dims[d];
    dim.in_stride = stride;
    stride *= in_dims[d];
    if (window != nullptr) dim.w = window->dimensions[d];
    const WindowDimension& w = dim.w;
    // Base dilation is rare in pooling: the per-output kernel handles it.
    if (w.size < 0 || w.stride < 1 || w.window_dilation < 1 || w.base_dilation != 1) return std::nullopt;
    p.taps_bound *= std::max<int64_t>(1, w.size);
    SetInterior(&dim);
  }
  // The row: innermost identity dimensions, merged (size-1 dimensions of
  // any window in between change no stride and index rows instead); else
  // the innermost dimension.
  std::vector<bool> in_row(rank, false);
  int i = rank - 1;
  for (; i >= 0; --i) {
    const Dim& dim = p.dims[major_to_minor[i]];
    if (IsIdentity(dim)) {
      in_row[major_to_minor[i]] = true;
      p.row_len *= dim.out_size;
    } else if (dim.in_size != 1 || dim.out_size != 1) {
      break;
    }
  }
  p.jhi = p.row_len;
  if (p.row_len == 1 && i >= 0) {  // no merged run: a windowed row
    const Dim& dim = p.dims[major_to_minor[i]];
    p.row_dim = static_cast<int>(major_to_minor[i]);
    p.row_len = dim.out_size;
    p.step = dim.w.stride * dim.in_stride;
    for (int64_t k = 0; k < dim.w.size; ++k) {
      p.row_disp.push_back(k * dim.w.window_dilation - dim.w.padding_low);
      p.row_offs.push_back(p.row_disp.back() * dim.in_stride);
    }
    p.jlo = dim.lo;
    p.jhi = dim.hi;
  }
  p.valid.resize(rank);
  p.inner_offs.assign(1, 0);
  p.inner_disps.assign(1, 0);
  for (int d = 0; d < rank; ++d) {
    if (in_row[d]) continue;
    p.tap_dims.push_back(d);
    if (d == p.row_dim) {
      CrossTaps(p.row_offs, &p.row_disp, &p.inner_offs, &p.inner_disps);
      continue;
    }
    const Dim& dim = p.dims[d];
    std::vector<int64_t> positions;  // relative to the base (o * stride - padding_low)
    for (int64_t k = 0; k < dim.w.size; ++k) positions.push_back(k * dim.w.window_dilation * dim.in_stride);
    CrossTaps(positions, nullptr, &p.inner_offs, &p.inner_disps);
    p.valid[d].resize(dim.out_size);
    for (int64_t o = 0; o < dim.out_size; ++o) {
      for (int64_t k = 0; k < dim.w.size; ++k) {
        const int64_t pos = o * dim.w.stride + k * dim.w.window_dilation - dim.w.padding_low;
        if (pos >= 0 && pos < dim.in_size) p.valid[d][o].push_back(pos * dim.in_stride);
      }
    }
  }
  for (int j = 0; j < rank; ++j) {
    const int d = static_cast<int>(major_to_minor[j]);
    if (in_row[d] || d == p.row_dim) continue;
    p.outer.push_back(d);
    p.rows *= p.dims[d].out_size;
  }
  return p;
}

// The taps of one row: input offsets (for output 0 of the row, from
// `base`) and, for a windowed row, the displacement along the row
// dimension of each; row-major over the logical window dimensions. Rows
// inside the input along every row-indexing dimension share the plan's
// inner taps; the others (padding) get their own list. Scratch reused
// across the rows of a block.
struct RowTaps {
  std::vector<int64_t> coord;  // output coordinate of the row, per row-indexing dimension
  std::vector<int64_t> own_offs, own_disps;
  const int64_t* offs = nullptr;
  const int64_t* disps = nullptr;
  int64_t count = 0, base = 0;
  bool inside = false;  // inside the input along every row-indexing dimension

  // Coordinates of row `row`.
  void Seek(const RowPlan& p, int64_t row) {
    coord.assign(p.dims.size(), 0);
    for (int j = static_cast<int>(p.outer.size()) - 1; j >= 0; --j) {
      const int d = p.outer[j];
      coord[d] = row % p.dims[d].out_size;
      row /= p.dims[d].out_size;
    }
  }
  // From one row `n` rows on (row-major over the row-indexing dimensions;
  // n - 1 must not carry out of the innermost one).
  void Advance(const RowPlan& p, int64_t n = 1) {
    if (!p.outer.empty()) coord[p.outer.back()] += n - 1;
    for (int j = static_cast<int>(p.outer.size()) - 1; j >= 0; --j) {
      const int d = p.outer[j];
      if (++coord[d] < p.dims[d].out_size) return;
      coord[d] = 0;
    }
  }
  // How many rows from the current one (at most `limit`) have the same taps
  // relative to their base: rows inside the input along the innermost
  // row-indexing dimension too, without carrying out of it.
  int64_t Run(const RowPlan& p, int64_t limit) const {
    if (!inside || p.outer.empty()) return 1;
    const int d = p.outer.back();
    return std::max<int64_t>(1, std::min(limit, p.dims[d].hi - coord[d]));
  }
  // The taps of the current row. None when a dimension has no valid
  // position (every output of the row is then the init value).
  void Make(const RowPlan& p) {
    inside = true;
    base = 0;
    for (int d : p.outer) {
      const Dim& dim = p.dims[d];
      inside = inside && coord[d] >= dim.lo && coord[d] < dim.hi;
      base += (coord[d] * dim.w.stride - dim.w.padding_low) * dim.in_stride;
    }
    if (inside) {
      offs = p.inner_offs.data();
      disps = p.inner_disps.data();
      count = static_cast<int64_t>(p.inner_offs.size());
      return;
    }
    base = 0;
    own_offs.assign(1, 0);
    own_disps.assign(1, 0);
    for (int d : p.tap_dims) {
      if (d == p.row_dim) {
        CrossTaps(p.row_offs, &p.row_disp, &own_offs, &own_disps);
      } else {
        CrossTaps(p.valid[d][coord[d]], nullptr, &own_offs, &own_disps);
      }
    }
    offs = own_offs.data();
    disps = own_disps.data();
    count = static_cast<int64_t>(own_offs.size());
  }
};

template <class T, BinOp kOp>
constexpr bool RowsCover() {
  return (kOp == BinOp::kAdd || kOp == BinOp::kMax || kOp == BinOp::kMin) &&
         (T::kCat == ew::Cat::kInt || T::kCat == ew::Cat::kFloat);
}

bool RowsCoverType(PrimitiveType t) {
  switch (t) {
    case PrimitiveType::S8: case PrimitiveType::S16: case PrimitiveType::S32: case PrimitiveType::S64:
    case PrimitiveType::U8: case PrimitiveType::U16: case PrimitiveType::U32: case PrimitiveType::U64:
    case PrimitiveType::F16: case PrimitiveType::BF16: case PrimitiveType::F32: case PrimitiveType::F64:
      return true;
    default:
      return false;
  }
}

template <class T, BinOp kOp>
struct RowKernel {
  static void Run(const RowPlan& p, const Literal& in, const Literal& init, Literal* out) {
    if constexpr (RowsCover<T, kOp>()) {
      using S = typename T::Storage;
      using C = typename T::Compute;
      using Op = red::Scalar<T, kOp>;
      const S* x = reinterpret_cast<const S*>(in.data());
      S* y = reinterpret_cast<S*>(out->data());
      const C c0 = T::Load(init.GetRaw<S>(0));
      const int64_t chunks = (p.row_len + kRowBlock - 1) / kRowBlock;
      const int64_t work = std::min(p.row_len, kRowBlock) * p.taps_bound;
      const WindowDimension* rw = p.row_dim >= 0 ? &p.dims[p.row_dim].w : nullptr;
      const int64_t row_in = p.row_dim >= 0 ? p.dims[p.row_dim].in_size : 0;
      // Input elements between a row and the next along the innermost
      // row-indexing dimension.
      const int64_t x_row =
          p.outer.empty() ? 0 : p.dims[p.outer.back()].w.stride * p.dims[p.outer.back()].in_stride;
      ParallelFor(p.rows * chunks, std::max<int64_t>(1, kBlockWork / std::max<int64_t>(1, work)),
                  [&](int64_t b, int64_t e) {
                    RowTaps taps;
                    taps.Seek(p, b / chunks);
                    for (int64_t u = b; u < e;) {
                      const int64_t row = u / chunks;
                      const int64_t j0 = (u % chunks) * kRowBlock, j1 = std::min(p.row_len, j0 + kRowBlock);
                      taps.Make(p);
                      // Whole rows sharing their taps go to the kernel at once.
                      const int64_t rows = chunks == 1 ? taps.Run(p, e - u) : 1;
                      const int64_t i0 = std::clamp(p.jlo, j0, j1), i1 = std::clamp(p.jhi, i0, j1);
                      if (i0 < i1)
                        red::FoldWindowRows<T, kOp>(x, taps.offs, taps.count, taps.base + i0 * p.step, i1 - i0,
                                                    p.step, rows, x_row, p.row_len, c0,
                                                    y + row * p.row_len + i0);
                      // The ends of a windowed row: skip the taps that fall into the padding.
                      for (int64_t r = 0; r < rows && (j0 < i0 || i1 < j1); ++r) {
                        S* yr = y + (row + r) * p.row_len;
                        const int64_t base = taps.base + r * x_row;
                        for (int64_t j = j0; j < j1; ++j) {
                          if (j == i0) j = i1;
                          if (j >= j1) break;
                          C a = c0;
                          for (int64_t t = 0; t < taps.count; ++t) {
                            const int64_t pos = j * rw->stride + taps.disps[t];
                            if (pos >= 0 && pos < row_in)
                              a = Op::Apply(a, T::Load(x[base + taps.offs[t] + j * p.step]));
                          }
                          yr[j] = T::Store(a);
                        }
                      }
                      u += rows;
                      if (u < e && u / chunks != row) taps.Advance(p, u / chunks - row);
                    }
                  });
    }
  }
};

// A layout whose storage is the dense array in minor_to_major order.
bool IsPlain(const Shape& s) {
  return s.layout().tiles.empty() && static_cast<int64_t>(s.layout().minor_to_major.size()) == s.rank();
}

}  // namespace

std::optional<Literal> ReduceWindowRows(BinOp op, const Window* window, const Literal& in, const Literal& init,
                                        const Shape& out_shape) {
  if (op != BinOp::kAdd && op != BinOp::kMax && op != BinOp::kMin) return std::nullopt;
  const Shape& in_shape = in.shape();
  const PrimitiveType t = in_shape.element_type();
  if (!in_shape.IsArray() || !out_shape.IsArray() || !init.shape().IsScalar() || !RowsCoverType(t) ||
      init.shape().element_type() != t || out_shape.element_type() != t || out_shape.ElementCount() == 0)
    return std::nullopt;
  // Input and result in the same plain layout (NCHW stored as {0,3,2,1},
  // say) are read and written in place, in physical order: relaying both
  // would cost more than the reduction. Otherwise on row-major copies.
  const int64_t rank = in_shape.rank();
  const bool physical = IsPlain(in_shape) && IsPlain(out_shape) &&
                        in_shape.layout().minor_to_major == out_shape.layout().minor_to_major;
  std::vector<int64_t> major_to_minor(rank);
  std::iota(major_to_minor.begin(), major_to_minor.end(), 0);
  if (physical)
    for (int64_t i = 0; i < rank; ++i) major_to_minor[i] = in_shape.layout().minor_to_major[rank - 1 - i];
  const std::optional<RowPlan> plan = MakeRowPlan(window, in_shape.dims(), out_shape.dims(), major_to_minor);
  if (!plan) return std::nullopt;
  Literal copy;
  const Literal& src = physical ? in : RowMajor(in, &copy);
  Literal out = physical ? Literal::Uninitialized(out_shape) : RowMajorUninitialized(out_shape);
  if (!red::DispatchTypeOp<RowKernel>(t, op, *plan, src, init, &out)) return std::nullopt;
  return physical ? std::move(out) : ToLayout(std::move(out), out_shape.layout());
}

}  // namespace hlo::cpu
