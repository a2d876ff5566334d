#include "backend_cpu/reduce_tree.h"

#include <algorithm>
#include <cstring>
#include <type_traits>

#include "backend_cpu/ew_types.h"
#include "backend_cpu/thread_pool.h"

namespace hlo::cpu {
namespace {

using red::BinOp;

constexpr int64_t kWindow = 32;  // XLA:CPU's reduce_window_size

template <class T, class Src>
inline float LoadAs(const Src& v) {
  if constexpr (std::is_same_v<Src, float>) {
    return v;
  } else {
    return T::Load(v);
  }
}

// One level of the tree: for every output position, the fold of its
// window's in-bounds elements of x (the narrow type's storage on the first
// level, floats holding its values after) in row-major window order from
// `init`. The outputs along the innermost dimension are folded together
// (each window's order unchanged): their chains are independent, so they
// overlap instead of waiting on one another's rounding.
template <class T, BinOp kOp, class Src>
std::vector<float> Level(const Src* x, const std::vector<int64_t>& dims, const std::vector<int64_t>& window,
                         float init, std::vector<int64_t>* out_dims) {
  using Op = red::Scalar<T, kOp>;
  const int64_t rank = static_cast<int64_t>(dims.size());
  const int64_t last = rank - 1;
  std::vector<int64_t> lo(rank), strides(rank, 1);
  out_dims->assign(rank, 1);
  int64_t window_elems = 1;
  for (int64_t d = 0; d < rank; ++d) {
    const int64_t out = (dims[d] + window[d] - 1) / window[d];
    (*out_dims)[d] = out;
    lo[d] = (out * window[d] - dims[d]) / 2;  // "same" padding, the odd element high
    window_elems *= window[d];
  }
  for (int64_t d = rank - 2; d >= 0; --d) strides[d] = strides[d + 1] * dims[d + 1];
  const std::vector<int64_t>& od = *out_dims;
  const int64_t row = od[last], w = window[last], n = dims[last], pad = lo[last];
  int64_t rows = 1;
  for (int64_t d = 0; d < last; ++d) rows *= od[d];
  // Per position k in a window along the innermost dimension: the windows
  // [j0[k], j1[k]) for which it is in bounds.
  std::vector<int64_t> j0(w), j1(w);
  for (int64_t k = 0; k < w; ++k) {
    j0[k] = pad - k > 0 ? (pad - k + w - 1) / w : 0;
    j1[k] = std::min(row, (n - 1 + pad - k) / w + 1);
  }
  std::vector<float> y(rows * row);
  ParallelFor(rows, std::max<int64_t>(1, 32768 / std::max<int64_t>(1, window_elems * row)), [&](int64_t b, int64_t e) {
    std::vector<int64_t> first(rank), end(rank), idx(rank);
    for (int64_t r = b; r < e; ++r) {
      // The windows' in-bounds box [first, end) along the outer dimensions.
      int64_t rest = r;
      bool empty = false;
      for (int64_t d = last - 1; d >= 0; --d) {
        const int64_t c = rest % od[d];
        rest /= od[d];
        const int64_t start = c * window[d] - lo[d];
        first[d] = std::max<int64_t>(0, start);
        end[d] = std::min(dims[d], start + window[d]);
        empty |= first[d] >= end[d];
      }
      float* acc = y.data() + r * row;
      for (int64_t j = 0; j < row; ++j) acc[j] = init;
      if (empty) continue;
      idx = first;
      while (true) {
        int64_t base = 0;
        for (int64_t d = 0; d < last; ++d) base += idx[d] * strides[d];
        // Window j holds positions j*w - pad + k, k in [0, w), of this run.
        for (int64_t k = 0; k < w; ++k) {
          const Src* q = x + base + k - pad;
          for (int64_t j = j0[k]; j < j1[k]; ++j) acc[j] = Op::Apply(acc[j], LoadAs<T>(q[j * w]));
        }
        int64_t d = last - 1;
        for (; d >= 0; --d) {
          if (++idx[d] < end[d]) break;
          idx[d] = first[d];
        }
        if (d < 0) break;
      }
    }
  });
  return y;
}

// The windows of the next level: min(size, 32) along reduced dimensions
// while one is longer than 32 (*last = false), else the whole of every
// reduced dimension (*last = true: the final reduce).
std::vector<int64_t> Windows(const std::vector<int64_t>& dims, const std::vector<bool>& reduced, bool* last) {
  bool long_dim = false;
  for (size_t d = 0; d < dims.size(); ++d) long_dim |= reduced[d] && dims[d] > kWindow;
  std::vector<int64_t> window(dims.size(), 1);
  for (size_t d = 0; d < dims.size(); ++d)
    if (reduced[d]) window[d] = long_dim ? std::min(dims[d], kWindow) : dims[d];
  *last = !long_dim;
  return window;
}

template <class T, BinOp kOp>
void Tree(absl::Span<const int64_t> in_dims, const std::vector<bool>& reduced, const void* in, const void* init,
          void* out) {
  using S = typename T::Storage;
  std::vector<int64_t> dims(in_dims.begin(), in_dims.end());
  if (dims.empty()) dims.push_back(1);
  std::vector<bool> red = reduced;
  red.resize(dims.size(), false);
  S init_bits;
  std::memcpy(&init_bits, init, sizeof init_bits);
  const float init_value = T::Load(init_bits);
  bool last = false;
  std::vector<int64_t> next;
  std::vector<float> x = Level<T, kOp>(static_cast<const S*>(in), dims, Windows(dims, red, &last), init_value, &next);
  while (!last) {
    dims = next;
    x = Level<T, kOp>(x.data(), dims, Windows(dims, red, &last), init_value, &next);
  }
  S* dst = static_cast<S*>(out);
  for (size_t i = 0; i < x.size(); ++i) dst[i] = T::Store(x[i]);
}

}  // namespace

bool UsesReductionTree(PrimitiveType type, BinOp op, absl::Span<const int64_t> dims,
                       const std::vector<bool>& reduced) {
  if (type != PrimitiveType::BF16 && type != PrimitiveType::F16) return false;
  if (op != BinOp::kAdd && op != BinOp::kMul) return false;
  for (size_t d = 0; d < dims.size(); ++d)
    if (reduced[d] && dims[d] > 1) return true;
  return false;
}

void ReduceByTree(PrimitiveType type, BinOp op, absl::Span<const int64_t> dims, const std::vector<bool>& reduced,
                  const void* in, const void* init, void* out) {
  const bool add = op == BinOp::kAdd;
  if (type == PrimitiveType::BF16) {
    add ? Tree<ew::BF16T, BinOp::kAdd>(dims, reduced, in, init, out)
        : Tree<ew::BF16T, BinOp::kMul>(dims, reduced, in, init, out);
  } else {
    add ? Tree<ew::F16T, BinOp::kAdd>(dims, reduced, in, init, out)
        : Tree<ew::F16T, BinOp::kMul>(dims, reduced, in, init, out);
  }
}

}  // namespace hlo::cpu
