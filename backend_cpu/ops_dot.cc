// dot (dot_general) and convolution of the linalg family.
//
// Both reduce to batched matrix products on "compute type" buffers:
//   f32, f16, bf16, f8/f4 results -> float   (cblas_sgemm; narrow types are
//                                             rounded once at the end)
//   f64 -> double (dgemm), c64 -> complex<float> (cgemm), c128 -> zgemm
//   integer results <= 32 bits -> uint32_t, 64-bit -> uint64_t (a blocked
//   loop; unsigned arithmetic wraps, so the result equals accumulating in
//   the result type), pred -> uint32_t counts, stored as (count != 0), i.e.
//   OR of ANDs.
// Operands of another element type are converted to the result type first
// (as XLA's evaluator does). See docs/ops-linalg.md.
#include <cblas.h>

#include <algorithm>
#include <mutex>
#include <cmath>
#include <complex>
#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "backend_cpu/conv_batch_grouped.h"
#include "backend_cpu/conv_onednn_literal.h"
#include "backend_cpu/dot_skinny.h"
#include "backend_cpu/ew_narrow_blocks.h"
#include "backend_cpu/op_eval.h"
#include "backend_cpu/thread_pool.h"
#include "ir/buffer_allocator.h"

namespace hlo::cpu {
namespace {

using c64 = std::complex<float>;
using c128 = std::complex<double>;

template <typename T>
constexpr bool kIsBlasType = std::is_same_v<T, float> || std::is_same_v<T, double> ||
                             std::is_same_v<T, c64> || std::is_same_v<T, c128>;

// Scratch buffers whose every element is written before it is read
// (packed operands, GEMM results of a narrow type): BufferAllocator leaves
// them uninitialised (no zero-fill pass), and large ones come from the
// literal allocator's cache of huge-page buffers instead of fresh pages.
template <typename T>
using ScratchVector = std::vector<T, BufferAllocator<T>>;

// ------------------------------------------------------------ layouts

// `lit` untiled (a row-major copy in *tmp when it is tiled).
const Literal& Untiled(const Literal& lit, Literal* tmp) {
  if (lit.shape().layout().tiles.empty() &&
      static_cast<int64_t>(lit.shape().layout().minor_to_major.size()) == lit.shape().rank())
    return lit;
  *tmp = RelayoutOnPool(lit, RowMajorLayout(lit.shape().rank()));
  return *tmp;
}

// True if `strides` are the row-major strides of `sizes` (size-1 dims ignored).
bool IsRowMajorStrides(absl::Span<const int64_t> sizes, absl::Span<const int64_t> strides) {
  int64_t acc = 1;
  for (int64_t i = static_cast<int64_t>(sizes.size()) - 1; i >= 0; --i) {
    if (sizes[i] != 1 && strides[i] != acc) return false;
    acc *= sizes[i];
  }
  return true;
}

// ------------------------------------------------------------ conversions

// Saturating float -> integer of type rt (NaN -> 0), as a wrapped u64.
uint64_t SaturateToInt(double v, PrimitiveType rt) {
  if (std::isnan(v)) return 0;
  const int bits = PrimitiveTypeBitWidth(rt);
  if (IsSignedInt(rt)) {
    if (bits >= 64) {
      if (v <= -9.223372036854775808e18) return uint64_t{1} << 63;
      if (v >= 9.223372036854775808e18) return ~uint64_t{0} >> 1;
      return static_cast<uint64_t>(static_cast<int64_t>(v));
    }
    const double lo = -std::ldexp(1.0, bits - 1), hi = std::ldexp(1.0, bits - 1) - 1;
    if (v <= lo) return static_cast<uint64_t>(static_cast<int64_t>(lo));
    if (v >= hi) return static_cast<uint64_t>(static_cast<int64_t>(hi));
    return static_cast<uint64_t>(static_cast<int64_t>(v));
  }
  if (v <= 0) return 0;
  const double hi = std::ldexp(1.0, bits);
  if (v >= hi) return bits == 64 ? ~uint64_t{0} : (uint64_t{1} << bits) - 1;
  return static_cast<uint64_t>(v);
}

bool IsNative(PrimitiveType t, const float*) { return t == PrimitiveType::F32; }
bool IsNative(PrimitiveType t, const double*) { return t == PrimitiveType::F64; }
bool IsNative(PrimitiveType t, const c64*) { return t == PrimitiveType::C64; }
bool IsNative(PrimitiveType t, const c128*) { return t == PrimitiveType::C128; }
bool IsNative(PrimitiveType t, const uint32_t*) {
  return t == PrimitiveType::S32 || t == PrimitiveType::U32;
}
bool IsNative(PrimitiveType t, const uint64_t*) {
  return t == PrimitiveType::S64 || t == PrimitiveType::U64;
}

// One element of `lit` converted to compute type T for result type rt.
template <typename T>
T LoadSlow(const Literal& lit, int64_t slot, PrimitiveType rt) {
  const PrimitiveType st = lit.shape().element_type();
  if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
    const double v = lit.GetDouble(slot);
    if (std::is_same_v<T, float> && rt != PrimitiveType::F32 && st != rt) {
      // Narrow result type (f16, bf16, f8...): convert the operand to it first.
      thread_local Literal scratch;
      if (scratch.shape().element_type() != rt) scratch = Literal(Shape::Array(rt, {1}));
      scratch.SetDouble(0, v);
      return static_cast<T>(scratch.GetDouble(0));
    }
    return static_cast<T>(v);
  } else if constexpr (std::is_same_v<T, c64> || std::is_same_v<T, c128>) {
    const c128 v = lit.GetComplex(slot);
    return T(static_cast<typename T::value_type>(v.real()),
             static_cast<typename T::value_type>(v.imag()));
  } else {
    if (rt == PrimitiveType::PRED) {
      if (IsFloatOrComplex(st)) return lit.GetDouble(slot) != 0 ? 1 : 0;
      return lit.GetInt(slot) != 0 ? 1 : 0;
    }
    if (IsFloatOrComplex(st)) return static_cast<T>(SaturateToInt(lit.GetDouble(slot), rt));
    return static_cast<T>(static_cast<uint64_t>(lit.GetInt(slot)));
  }
}

// Calls row(off, r, n, stride) for every innermost row r of the row-major
// walk over `sizes` (n = sizes.back() elements at physical slots off,
// off + stride, ...; a scalar is one row of one element), in parallel over
// fixed blocks of rows: callers write row r's own output only, so the
// result does not depend on the pool width.
template <typename F>
void ForEachRow(int64_t base, absl::Span<const int64_t> sizes, absl::Span<const int64_t> strides, F&& row) {
  const int64_t rank = static_cast<int64_t>(sizes.size());
  int64_t total = 1;
  for (int64_t s : sizes) total *= s;
  if (total == 0) return;
  if (rank == 0) {
    row(base, int64_t{0}, int64_t{1}, int64_t{1});
    return;
  }
  const int64_t inner = sizes[rank - 1], istride = strides[rank - 1];
  ParallelFor(total / inner, std::max<int64_t>(1, 8192 / inner), [&](int64_t r0, int64_t r1) {
    std::vector<int64_t> idx(rank, 0);
    int64_t off = base, rem = r0;
    for (int64_t d = rank - 2; d >= 0; --d) {
      idx[d] = rem % sizes[d];
      rem /= sizes[d];
      off += idx[d] * strides[d];
    }
    for (int64_t r = r0; r < r1; ++r) {
      row(off, r, inner, istride);
      for (int64_t d = rank - 2; d >= 0; --d) {
        off += strides[d];
        if (++idx[d] < sizes[d]) break;
        off -= strides[d] * sizes[d];
        idx[d] = 0;
      }
    }
  });
}

// True when LoadSlow<float> would only decode elements of type st (the
// result type, or an f32 result) and ew_narrow_blocks.h can do it by rows.
bool DecodesByBlocks(PrimitiveType st, PrimitiveType rt) {
  return NarrowBlockConversionEnabled() && IsBlockConvertible(st) && (st == rt || rt == PrimitiveType::F32);
}

// Decodes n elements of `lit` (type st) at slots off, off + stride, ...
// into dst; a strided row is collected into a small buffer first.
template <typename S>
void DecodeRow(PrimitiveType st, const S* p, int64_t off, int64_t stride, int64_t n, float* dst) {
  if (stride == 1) {
    NarrowToF32(st, p + off, dst, n);
    return;
  }
  constexpr int64_t kChunk = 512;
  S buf[kChunk];
  for (int64_t j0 = 0; j0 < n; j0 += kChunk) {
    const int64_t m = std::min(kChunk, n - j0);
    for (int64_t j = 0; j < m; ++j) buf[j] = p[off + (j0 + j) * stride];
    NarrowToF32(st, buf, dst + j0, m);
  }
}

// out[i] for i in row-major order over `sizes` = element at physical slot
// base + sum(idx_d * strides[d]) of `lit`, converted to T.
template <typename T>
void Gather(const Literal& lit, int64_t base, absl::Span<const int64_t> sizes,
            absl::Span<const int64_t> strides, PrimitiveType rt, T* out) {
  auto run = [&](auto get) {
    ForEachRow(base, sizes, strides, [&](int64_t off, int64_t r, int64_t n, int64_t stride) {
      T* dst = out + r * n;
      for (int64_t j = 0; j < n; ++j) dst[j] = get(off + j * stride);
    });
  };
  const PrimitiveType st = lit.shape().element_type();
  if constexpr (std::is_same_v<T, float>) {
    if (DecodesByBlocks(st, rt)) {
      ForEachRow(base, sizes, strides, [&](int64_t off, int64_t r, int64_t n, int64_t stride) {
        if (lit.element_bytes() == 2) {
          DecodeRow(st, reinterpret_cast<const uint16_t*>(lit.data()), off, stride, n, out + r * n);
        } else {
          DecodeRow(st, lit.data(), off, stride, n, out + r * n);
        }
      });
      return;
    }
  }
  const bool narrow_float = std::is_same_v<T, float> && rt != PrimitiveType::F32;
  if (IsNative(st, static_cast<const T*>(nullptr)) && rt != PrimitiveType::PRED && !narrow_float) {
    const T* p = reinterpret_cast<const T*>(lit.data());
    run([p](int64_t s) { return p[s]; });
  } else {
    run([&lit, rt](int64_t s) { return LoadSlow<T>(lit, s, rt); });
  }
}

// Writes `src` (row-major over result's dims) into the row-major literal
// `res`, in parallel (each element converted independently, so the bits do
// not depend on the pool width).
template <typename T>
void Store(const T* src, Literal& res) {
  const int64_t n = res.shape().ElementCount();
  const PrimitiveType rt = res.shape().element_type();
  if (IsNative(rt, static_cast<const T*>(nullptr))) {
    T* dst = reinterpret_cast<T*>(res.data());
    ParallelFor(n, 1 << 16, [&](int64_t i0, int64_t i1) { std::copy(src + i0, src + i1, dst + i0); });
    return;
  }
  if constexpr (std::is_same_v<T, float>) {
    if (NarrowBlockConversionEnabled() && IsBlockConvertible(rt)) {
      uint8_t* dst = res.data();
      const int eb = res.element_bytes();
      ParallelFor(n, 4096, [&](int64_t i0, int64_t i1) { F32ToNarrow(rt, src + i0, dst + i0 * eb, i1 - i0); });
      return;
    }
  }
  ParallelFor(n, 4096, [&](int64_t i0, int64_t i1) {
    for (int64_t i = i0; i < i1; ++i) {
      if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
        res.SetDouble(i, static_cast<double>(src[i]));
      } else if constexpr (std::is_same_v<T, c64> || std::is_same_v<T, c128>) {
        res.SetComplex(i, c128(src[i].real(), src[i].imag()));
      } else if (rt == PrimitiveType::PRED) {
        res.SetInt(i, src[i] != 0 ? 1 : 0);
      } else {
        res.SetInt(i, static_cast<int64_t>(static_cast<uint64_t>(src[i])));
      }
    }
  });
}

// ------------------------------------------------------------ GEMM

// C (m x n, row-major, ldc) = op(A) (m x k) * op(B) (k x n).
// A(i,p) = ta ? A[p*lda+i] : A[i*lda+p]; likewise B.
template <typename T>
void NaiveGemm(bool ta, bool tb, int64_t m, int64_t n, int64_t k, const T* a, int64_t lda,
               const T* b, int64_t ldb, T* c, int64_t ldc) {
  // Rows of C are independent: fixed blocks of rows -> deterministic.
  const int64_t min_rows = std::max<int64_t>(1, 16384 / std::max<int64_t>(1, n * k));
  ParallelFor(m, min_rows, [&](int64_t i0, int64_t i1) {
    constexpr int64_t kBlockK = 256;
    for (int64_t i = i0; i < i1; ++i) {
      T* crow = c + i * ldc;
      std::fill(crow, crow + n, T(0));
      for (int64_t p0 = 0; p0 < k; p0 += kBlockK) {
        const int64_t p1 = std::min(k, p0 + kBlockK);
        for (int64_t p = p0; p < p1; ++p) {
          const T av = ta ? a[p * lda + i] : a[i * lda + p];
          if (!tb) {
            const T* brow = b + p * ldb;
            for (int64_t j = 0; j < n; ++j) crow[j] += av * brow[j];
          } else {
            for (int64_t j = 0; j < n; ++j) crow[j] += av * b[j * ldb + p];
          }
        }
      }
    }
  });
}

template <typename T>
void BlasGemm(bool ta, bool tb, int64_t m, int64_t n, int64_t k, const T* a, int64_t lda,
              const T* b, int64_t ldb, T* c, int64_t ldc) {
  const CBLAS_TRANSPOSE TA = ta ? CblasTrans : CblasNoTrans;
  const CBLAS_TRANSPOSE TB = tb ? CblasTrans : CblasNoTrans;
  const blasint M = static_cast<blasint>(m), N = static_cast<blasint>(n),
                K = static_cast<blasint>(k);
  const blasint LDA = static_cast<blasint>(std::max<int64_t>(1, lda));
  const blasint LDB = static_cast<blasint>(std::max<int64_t>(1, ldb));
  const blasint LDC = static_cast<blasint>(std::max<int64_t>(1, ldc));
  if constexpr (std::is_same_v<T, float>) {
    cblas_sgemm(CblasRowMajor, TA, TB, M, N, K, 1.0f, a, LDA, b, LDB, 0.0f, c, LDC);
  } else if constexpr (std::is_same_v<T, double>) {
    cblas_dgemm(CblasRowMajor, TA, TB, M, N, K, 1.0, a, LDA, b, LDB, 0.0, c, LDC);
  } else if constexpr (std::is_same_v<T, c64>) {
    const c64 one(1, 0), zero(0, 0);
    cblas_cgemm(CblasRowMajor, TA, TB, M, N, K, &one, a, LDA, b, LDB, &zero, c, LDC);
  } else {
    const c128 one(1, 0), zero(0, 0);
    cblas_zgemm(CblasRowMajor, TA, TB, M, N, K, &one, a, LDA, b, LDB, &zero, c, LDC);
  }
}

// OpenBLAS runs single-threaded (UseSingleThreadedBlas); parallelism comes
// from our pool, over tiles of C whose boundaries depend only on (m, n, k).
// Every element of C is computed by one BLAS call over the whole K, so
// results are bit-identical for any pool width.

// Per-product flops below which a batch of products is shared out by batch
// (Gemm itself shares out products from 3.2e7 flops: kShareFlops).
constexpr double kBatchShareFlops = 3.2e7;
// ... when the whole batch is worth waking the pool for (a few us of work).
constexpr double kBatchMinFlops = 4e5;

template <typename T>
void Gemm(bool ta, bool tb, int64_t m, int64_t n, int64_t k, const T* a, int64_t lda,
          const T* b, int64_t ldb, T* c, int64_t ldc) {
  if (m == 0 || n == 0) return;
  if (k == 0) {
    for (int64_t i = 0; i < m; ++i) std::fill(c + i * ldc, c + i * ldc + n, T(0));
    return;
  }
  constexpr bool kBlas = std::is_same_v<T, float> || std::is_same_v<T, double> ||
                         std::is_same_v<T, c64> || std::is_same_v<T, c128>;
  if constexpr (!kBlas) {
    NaiveGemm<T>(ta, tb, m, n, k, a, lda, b, ldb, c, ldc);
  } else {
    if constexpr (std::is_same_v<T, float>) {
      if (SkinnyGemm(ta, tb, m, n, k, a, lda, b, ldb, c, ldc)) return;
    }
    UseSingleThreadedBlas();
    // Tiles: 256 rows; columns split too when there are few rows (the
    // decode-step shape [few, K] x [K, wide]).
    constexpr int64_t kTileRows = 256;
    int64_t tile_cols = m <= 64 ? 512 : (m <= kTileRows ? 1024 : n);
    const int64_t row_tiles = (m + kTileRows - 1) / kTileRows;
    const double flops = 2.0 * static_cast<double>(m) * n * k;
    // A product big enough to share is cut into at least kMinTiles tiles
    // (columns in multiples of 64, at least 128), so that mid-size layers
    // ([128, 784] x [784, 512]) use every core. The cut depends on the shape
    // only, never on the pool width: the bits do not change with threads.
    constexpr int64_t kMinTiles = 4;
    constexpr double kShareFlops = 3.2e7;
    if (flops >= kShareFlops && row_tiles * ((n + tile_cols - 1) / tile_cols) < kMinTiles) {
      const int64_t want_cols = (kMinTiles + row_tiles - 1) / row_tiles;
      tile_cols = std::max<int64_t>(128, ((n + want_cols - 1) / want_cols + 63) / 64 * 64);
    }
    const int64_t col_tiles = (n + tile_cols - 1) / tile_cols;
    if (row_tiles * col_tiles == 1 || flops < 4e6) {
      BlasGemm<T>(ta, tb, m, n, k, a, lda, b, ldb, c, ldc);
      return;
    }
    ParallelFor(row_tiles * col_tiles, 1, [&](int64_t t0, int64_t t1) {
      for (int64_t t = t0; t < t1; ++t) {
        const int64_t i0 = (t / col_tiles) * kTileRows, j0 = (t % col_tiles) * tile_cols;
        const int64_t mm = std::min(kTileRows, m - i0), nn = std::min(tile_cols, n - j0);
        const T* at = ta ? a + i0 : a + i0 * lda;
        const T* bt = tb ? b + j0 * ldb : b + j0;
        BlasGemm<T>(ta, tb, mm, nn, k, at, lda, bt, ldb, c + i0 * ldc + j0, ldc);
      }
    });
  }
}

constexpr int64_t kBlasMax = std::numeric_limits<int>::max();

enum class Acc { kF32, kF64, kC64, kC128, kU32, kU64 };

absl::StatusOr<Acc> AccFor(const Instruction& instr, PrimitiveType rt) {
  switch (rt) {
    case PrimitiveType::F64: return Acc::kF64;
    case PrimitiveType::C64: return Acc::kC64;
    case PrimitiveType::C128: return Acc::kC128;
    case PrimitiveType::S64:
    case PrimitiveType::U64: return Acc::kU64;
    default: break;
  }
  if (IsFloat(rt)) return Acc::kF32;
  if (IsInteger(rt) || IsPred(rt)) return Acc::kU32;
  return OpUnimplemented(instr, absl::StrCat("element type ", PrimitiveTypeName(rt)));
}

template <typename F>
absl::Status DispatchAcc(Acc acc, F&& f) {
  switch (acc) {
    case Acc::kF32: return f(float{});
    case Acc::kF64: return f(double{});
    case Acc::kC64: return f(c64{});
    case Acc::kC128: return f(c128{});
    case Acc::kU32: return f(uint32_t{});
    case Acc::kU64: return f(uint64_t{});
  }
  return absl::InternalError("bad accumulator");
}

// ------------------------------------------------------------ dot

// Collapses a group of dims (in order) into one (size, stride) if their
// physical strides allow it. stride -1 = the group has size <= 1.
bool CollapseGroup(absl::Span<const int64_t> dims, absl::Span<const int64_t> sizes,
                   absl::Span<const int64_t> strides, int64_t* stride) {
  int64_t expect = -1;
  *stride = -1;
  for (int64_t i = static_cast<int64_t>(dims.size()) - 1; i >= 0; --i) {
    const int64_t d = dims[i];
    if (sizes[d] == 1) continue;
    if (expect == -1) {
      *stride = strides[d];
    } else if (strides[d] != expect) {
      return false;
    }
    expect = strides[d] * sizes[d];
  }
  return true;
}

// A (rows x cols) matrix view of an operand per batch: element (r, c) at
// base[offsets[b] + (trans ? c*ld + r : r*ld + c)].
template <typename T>
struct MatView {
  const T* base = nullptr;
  std::vector<int64_t> offsets;
  bool trans = false;
  int64_t ld = 1;
  ScratchVector<T> storage;
};

// Whether the rhs matrices of a batched product interleave (dot_skinny.h,
// InterleavedBatchGemv): batch offsets evenly spaced, all B of them inside
// one row stride.
template <typename T>
bool InterleavedRhs(const MatView<T>& v, int64_t B, int64_t K, int64_t N) {
  if (B < 2 || static_cast<int64_t>(v.offsets.size()) != B) return false;
  const int64_t step = v.offsets[1] - v.offsets[0];
  if (step <= 0 || B * step > v.ld || (v.trans ? K : N) > step) return false;
  for (int64_t b = 2; b < B; ++b)
    if (v.offsets[b] - v.offsets[b - 1] != step) return false;
  return true;
}

// A view of a matrix already packed as MakeView packs: [B][R][C] row-major.
template <typename T>
void UsePacked(const T* packed, int64_t B, int64_t R, int64_t C, MatView<T>* v) {
  v->base = packed;
  v->trans = false;
  v->ld = std::max<int64_t>(C, 1);
  v->offsets.resize(B);
  for (int64_t b = 0; b < B; ++b) v->offsets[b] = b * R * C;
}

// Builds a view of `lit` with batch dims `bd`, row dims `rd`, col dims `cd`.
// Uses the literal's memory directly when possible, else packs.
template <typename T>
void MakeView(const Literal& lit, absl::Span<const int64_t> bd, absl::Span<const int64_t> rd,
              absl::Span<const int64_t> cd, PrimitiveType rt, int64_t B, int64_t R, int64_t C,
              MatView<T>* v) {
  const Shape& s = lit.shape();
  const std::vector<int64_t> st = UntiledStrides(s);
  // Batch offsets.
  std::vector<int64_t> bsizes, bstrides;
  for (int64_t d : bd) {
    bsizes.push_back(s.dim(d));
    bstrides.push_back(st[d]);
  }
  if constexpr (kIsBlasType<T>) {
    int64_t rs, cs;
    if (IsNative(s.element_type(), static_cast<const T*>(nullptr)) && IsNative(rt, static_cast<const T*>(nullptr)) &&
        CollapseGroup(rd, s.dims(), st, &rs) && CollapseGroup(cd, s.dims(), st, &cs)) {
      bool ok = false;
      if (cs == -1 || cs == 1) {
        // Row-major: ld = row stride.
        const int64_t ld = rs == -1 ? std::max<int64_t>(C, 1) : rs;
        if (ld >= std::max<int64_t>(C, 1) && ld <= kBlasMax) {
          v->trans = false;
          v->ld = ld;
          ok = true;
        }
      }
      if (!ok && (rs == -1 || rs == 1)) {
        const int64_t ld = cs == -1 ? std::max<int64_t>(R, 1) : cs;
        if (ld >= std::max<int64_t>(R, 1) && ld <= kBlasMax) {
          v->trans = true;
          v->ld = ld;
          ok = true;
        }
      }
      if (ok) {
        v->base = reinterpret_cast<const T*>(lit.data());
        v->offsets.resize(B);
        int64_t* out = v->offsets.data();
        // Offsets of every batch index (row-major over batch dims).
        std::vector<int64_t> idx(bsizes.size(), 0);
        for (int64_t b = 0; b < B; ++b) {
          int64_t off = 0;
          for (size_t i = 0; i < idx.size(); ++i) off += idx[i] * bstrides[i];
          out[b] = off;
          for (int64_t i = static_cast<int64_t>(idx.size()) - 1; i >= 0; --i) {
            if (++idx[i] < bsizes[i]) break;
            idx[i] = 0;
          }
        }
        return;
      }
    }
  }
  // Pack into [B][R][C] row-major.
  std::vector<int64_t> sizes = bsizes, strides = bstrides;
  for (int64_t d : rd) {
    sizes.push_back(s.dim(d));
    strides.push_back(st[d]);
  }
  for (int64_t d : cd) {
    sizes.push_back(s.dim(d));
    strides.push_back(st[d]);
  }
  v->storage.resize(B * R * C);
  Gather<T>(lit, 0, sizes, strides, rt, v->storage.data());
  UsePacked(v->storage.data(), B, R, C, v);
}

absl::Status CheckDims(const Instruction& instr, absl::Span<const int64_t> dims, int64_t rank,
                       std::vector<bool>* used, absl::string_view what) {
  for (int64_t d : dims) {
    if (d < 0 || d >= rank) return OpError(instr, absl::StrCat(what, " dimension ", d, " out of range"));
    if ((*used)[d]) return OpError(instr, absl::StrCat(what, " dimension ", d, " repeated"));
    (*used)[d] = true;
  }
  return absl::OkStatus();
}

// The dimension numbers dot and ragged-dot share, and the matrix problem
// they make: B batch, K contracting, M lhs free and N rhs free elements
// (free dims: neither batch nor contracting, in order).
struct DotDims {
  explicit DotDims(const Instruction& instr)
      : lb(instr.AttrOr<std::vector<int64_t>>("lhs_batch_dims", {})),
        rb(instr.AttrOr<std::vector<int64_t>>("rhs_batch_dims", {})),
        lc(instr.AttrOr<std::vector<int64_t>>("lhs_contracting_dims", {})),
        rc(instr.AttrOr<std::vector<int64_t>>("rhs_contracting_dims", {})) {}
  std::vector<int64_t> lb, rb, lc, rc;  // batch and contracting dims, paired in order
  std::vector<bool> lused, rused;       // set by CheckDotDims
  std::vector<int64_t> lf, rf;          // set by SizeDot, with B, K, M, N
  int64_t B = 1, K = 1, M = 1, N = 1;
};

// Each batch and contracting dim in range and named once per side.
absl::Status CheckDotDims(const Instruction& instr, const Shape& ls, const Shape& rs, DotDims* d) {
  d->lused.assign(ls.rank(), false);
  d->rused.assign(rs.rank(), false);
  if (auto st = CheckDims(instr, d->lb, ls.rank(), &d->lused, "lhs batch"); !st.ok()) return st;
  if (auto st = CheckDims(instr, d->lc, ls.rank(), &d->lused, "lhs contracting"); !st.ok()) return st;
  if (auto st = CheckDims(instr, d->rb, rs.rank(), &d->rused, "rhs batch"); !st.ok()) return st;
  return CheckDims(instr, d->rc, rs.rank(), &d->rused, "rhs contracting");
}

// Sets the free dims and sizes (paired dims must have equal sizes) and
// appends the result dims, batch then lhs free then rhs free, to *out_dims.
absl::Status SizeDot(const Instruction& instr, const Shape& ls, const Shape& rs, DotDims* d,
                     std::vector<int64_t>* out_dims) {
  for (size_t i = 0; i < d->lb.size(); ++i) {
    if (ls.dim(d->lb[i]) != rs.dim(d->rb[i])) return OpError(instr, "batch dimension sizes differ");
    d->B *= ls.dim(d->lb[i]);
    out_dims->push_back(ls.dim(d->lb[i]));
  }
  for (size_t i = 0; i < d->lc.size(); ++i) {
    if (ls.dim(d->lc[i]) != rs.dim(d->rc[i])) return OpError(instr, "contracting dimension sizes differ");
    d->K *= ls.dim(d->lc[i]);
  }
  for (int64_t i = 0; i < ls.rank(); ++i)
    if (!d->lused[i]) {
      d->lf.push_back(i);
      d->M *= ls.dim(i);
      out_dims->push_back(ls.dim(i));
    }
  for (int64_t i = 0; i < rs.rank(); ++i)
    if (!d->rused[i]) {
      d->rf.push_back(i);
      d->N *= rs.dim(i);
      out_dims->push_back(rs.dim(i));
    }
  return absl::OkStatus();
}

// Checks the dot's dimension numbers against its operand shapes `ls`, `rs`
// and its result shape, and sizes the matrix problem (dd->B, K, M, N).
absl::Status SizeDotOf(const Instruction& instr, const Shape& ls, const Shape& rs, DotDims* dd) {
  if (dd->lb.size() != dd->rb.size()) return OpError(instr, "batch dimension counts differ");
  if (dd->lc.size() != dd->rc.size()) return OpError(instr, "contracting dimension counts differ");
  if (auto st = CheckDotDims(instr, ls, rs, dd); !st.ok()) return st;
  std::vector<int64_t> out_dims;
  if (auto st = SizeDot(instr, ls, rs, dd, &out_dims); !st.ok()) return st;
  if (!SameInts(out_dims, instr.shape().dims()))
    return OpError(instr, "result shape does not match the dot dimensions");
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<Literal> LinalgEvalDot(const Instruction& instr,
                                      absl::Span<const Literal* const> operands,
                                      absl::Span<const Literal* const> f32_packed) {
  if (operands.size() < 2) return OpError(instr, "expects 2 operands");
  if (instr.HasAttr("sparsity")) return OpUnimplemented(instr, "sparse dot");
  const Shape& ls = operands[0]->shape();
  const Shape& rs = operands[1]->shape();
  const Shape& out_shape = instr.shape();
  if (!ls.IsArray() || !rs.IsArray() || !out_shape.IsArray())
    return OpError(instr, "operands and result must be arrays");
  DotDims dd(instr);
  if (auto st = SizeDotOf(instr, ls, rs, &dd); !st.ok()) return st;
  const int64_t B = dd.B, K = dd.K, M = dd.M, N = dd.N;
  const PrimitiveType rt = out_shape.element_type();
  auto acc = AccFor(instr, rt);
  if (!acc.ok()) return acc.status();
  if (B * M * N == 0) return Literal(out_shape);
  Literal result;
  if (M > kBlasMax || N > kBlasMax || K > kBlasMax)
    return OpUnimplemented(instr, "matrix dimension above 2^31");
  Literal ltmp, rtmp;
  const Literal& lhs = Untiled(*operands[0], &ltmp);
  const Literal& rhs = Untiled(*operands[1], &rtmp);
  // An operand packed once for all runs (DecodedConstants) is read as it is:
  // the same f32 matrix the packing below would make, so the same bits.
  auto packed_of = [&](int i, int64_t elements) -> const float* {
    if (static_cast<int>(f32_packed.size()) <= i || f32_packed[i] == nullptr || *acc != Acc::kF32) return nullptr;
    const Literal* p = f32_packed[i];
    return p->shape().element_type() == PrimitiveType::F32 && p->physical_count() == elements
               ? reinterpret_cast<const float*>(p->data())
               : nullptr;
  };
  const float* lpacked = packed_of(0, B * M * K);
  const float* rpacked = packed_of(1, B * K * N);
  absl::Status st = DispatchAcc(*acc, [&](auto zero) -> absl::Status {
    using T = decltype(zero);
    MatView<T> av, bv;
    if constexpr (std::is_same_v<T, float>) {
      if (lpacked != nullptr) UsePacked(lpacked, B, M, K, &av);
      if (rpacked != nullptr) UsePacked(rpacked, B, K, N, &bv);
    }
    if (av.base == nullptr) MakeView<T>(lhs, dd.lb, dd.lf, dd.lc, rt, B, M, K, &av);
    if (bv.base == nullptr) MakeView<T>(rhs, dd.rb, dd.rc, dd.rf, rt, B, K, N, &bv);
    // Straight into the result when it is row-major and of the compute type.
    const Layout& ol = out_shape.layout();
    const bool direct = IsNative(rt, static_cast<const T*>(nullptr)) && ol.tiles.empty() &&
                        static_cast<int64_t>(ol.minor_to_major.size()) == out_shape.rank() &&
                        IsRowMajorStrides(out_shape.dims(), UntiledStrides(out_shape));
    // A column-major [M, N] result (a weight gradient laid out for the
    // next op) is C^T = op(B)^T op(A)^T, computed straight into it.
    const bool transposed = !direct && IsNative(rt, static_cast<const T*>(nullptr)) && ol.tiles.empty() &&
                            B == 1 && dd.lf.size() == 1 && dd.rf.size() == 1 && ol.minor_to_major.size() == 2 &&
                            ol.minor_to_major[0] == 0 && ol.minor_to_major[1] == 1;
    if (transposed) {
      result = Literal::Uninitialized(out_shape);  // the product writes every element
      Gemm<T>(!bv.trans, !av.trans, N, M, K, bv.base + bv.offsets[0], bv.ld, av.base + av.offsets[0], av.ld,
              reinterpret_cast<T*>(result.data()), M);
      return absl::OkStatus();
    }
    ScratchVector<T> c;
    T* cp;
    if (direct) {
      result = Literal::Uninitialized(out_shape);  // the product writes every element
      cp = reinterpret_cast<T*>(result.data());
    } else {
      c.resize(B * M * N);
      cp = c.data();
    }
    // Products too small for Gemm to share out (attention's per-head
    // [128, 64] x [64, 128]) are shared by batch instead; each is still one
    // call, so the bits do not depend on the pool width.
    const double batch_flops = 2.0 * static_cast<double>(M) * N * K;
    // (Not through a one-block ParallelFor otherwise: its body counts as a
    // parallel region, where Gemm's own sharing would run inline.)
    if constexpr (std::is_same_v<T, float>) {
      if (M == 1 && B > 1 && InterleavedRhs(bv, B, K, N)) {
        // One row per batch: the small operand packed [B][K] (a few KB).
        std::vector<float> a(static_cast<size_t>(B * K));
        for (int64_t b = 0; b < B; ++b)
          for (int64_t p = 0; p < K; ++p)
            a[b * K + p] = av.base[av.offsets[b] + (av.trans ? p * av.ld : p)];
        if (InterleavedBatchGemv(B, bv.trans, N, K, a.data(), bv.base + bv.offsets[0],
                                 bv.offsets[1] - bv.offsets[0], bv.ld, cp)) {
          if (!direct) {
            result = RowMajorUninitialized(out_shape);  // Store writes every element
            Store<T>(c.data(), result);
          }
          return absl::OkStatus();
        }
      }
    }
    auto products = [&](int64_t b0, int64_t b1) {
      for (int64_t b = b0; b < b1; ++b)
        Gemm<T>(av.trans, bv.trans, M, N, K, av.base + av.offsets[b], av.ld, bv.base + bv.offsets[b],
                bv.ld, cp + b * M * N, N);
    };
    if (B > 1 && batch_flops < kBatchShareFlops && batch_flops * B >= kBatchMinFlops) {
      ParallelFor(B, 1, products);
    } else {
      products(0, B);
    }
    if (!direct) {
      result = RowMajorUninitialized(out_shape);  // Store writes every element
      Store<T>(c.data(), result);
    }
    return absl::OkStatus();
  });
  if (!st.ok()) return st;
  return ToLayout(std::move(result), out_shape.layout());
}

absl::StatusOr<Literal> PackDotOperandAsF32(const Instruction& dot, int side, const Literal& operand) {
  if (dot.operand_count() != 2 || (side != 0 && side != 1)) return OpError(dot, "expects 2 operands");
  const Shape& ls = dot.operand(0)->shape();
  const Shape& rs = dot.operand(1)->shape();
  if (!ls.IsArray() || !rs.IsArray() || !dot.shape().IsArray() || operand.shape().dims() != dot.operand(side)->shape().dims())
    return OpError(dot, "operands and result must be arrays");
  const PrimitiveType rt = dot.shape().element_type();
  absl::StatusOr<Acc> acc = AccFor(dot, rt);
  if (!acc.ok()) return acc.status();
  if (*acc != Acc::kF32 || !IsFloat(operand.shape().element_type()) ||
      operand.shape().element_type() == PrimitiveType::F32)
    return OpError(dot, "only narrow float operands of f32-computed dots are packed");
  DotDims dd(dot);
  if (auto st = SizeDotOf(dot, ls, rs, &dd); !st.ok()) return st;
  Literal tmp;
  const Literal& value = Untiled(operand, &tmp);
  MatView<float> v;
  if (side == 0) {
    MakeView<float>(value, dd.lb, dd.lf, dd.lc, rt, dd.B, dd.M, dd.K, &v);
  } else {
    MakeView<float>(value, dd.rb, dd.rc, dd.rf, rt, dd.B, dd.K, dd.N, &v);
  }
  // A narrow operand is always packed (never viewed in place).
  if (v.base != v.storage.data()) return OpError(dot, "the operand was not packed");
  Literal packed = RowMajorUninitialized(
      Shape::Array(PrimitiveType::F32, {static_cast<int64_t>(v.storage.size())}));
  std::memcpy(packed.data(), v.storage.data(), v.storage.size() * sizeof(float));
  return packed;
}

// ------------------------------------------------------------ ragged-dot

namespace {

// The groups of a ragged-dot: group_sizes is [b..., x..., G], read as `rows`
// rows of G sizes (a [G] array is one row shared by every b and x). Group g
// of row p covers the ragged positions r with start <= r < end, where end is
// the running sum of the row's sizes up to g and start the one before it, as
// XLA's expansion computes them: in the element type of group_sizes (sums
// wrap), compared with the position in that type. A negative size thus makes
// the next groups start earlier (groups may overlap); nothing is clamped.
class RaggedGroups {
 public:
  RaggedGroups(const Literal& sizes, int64_t groups, int64_t positions)
      : type_(sizes.shape().element_type()), groups_(groups) {
    Literal scratch(Shape::Scalar(type_));
    auto wrap = [&scratch](int64_t v) {
      scratch.SetInt(0, v);
      return scratch.GetInt(0);
    };
    const int64_t rows = groups == 0 ? 0 : sizes.shape().ElementCount() / groups;
    end_.resize(rows * groups);
    for (int64_t p = 0; p < rows; ++p) {
      int64_t sum = 0;
      for (int64_t g = 0; g < groups; ++g) {
        sum = wrap(static_cast<int64_t>(static_cast<uint64_t>(sum) +
                                        static_cast<uint64_t>(sizes.GetInt(p * groups + g))));
        end_[p * groups + g] = sum;
      }
    }
    position_.resize(positions);
    for (int64_t r = 0; r < positions; ++r) position_[r] = wrap(r);
  }

  // Whether ragged position r of group-size row p is in group g.
  bool Contains(int64_t p, int64_t g, int64_t r) const {
    const int64_t start = g == 0 ? 0 : end_[p * groups_ + g - 1];
    const int64_t pos = position_[r];
    return !Less(pos, start) && Less(pos, end_[p * groups_ + g]);
  }

 private:
  // GetInt gives u64 values bit-cast (others sign- or zero-extended).
  bool Less(int64_t a, int64_t b) const {
    if (type_ == PrimitiveType::U64) return static_cast<uint64_t>(a) < static_cast<uint64_t>(b);
    return a < b;
  }

  PrimitiveType type_;
  int64_t groups_;
  std::vector<int64_t> end_;       // [rows][G] running sums
  std::vector<int64_t> position_;  // ragged position -> its value in the type
};

// Checks that group_sizes is [G] or [dims of `prefix`..., G] and returns G.
absl::StatusOr<int64_t> GroupCount(const Instruction& instr, const Shape& ls, const Shape& gs,
                                   const std::vector<int64_t>& prefix) {
  if (!IsInteger(gs.element_type())) return OpError(instr, "group_sizes must be integers");
  if (gs.rank() < 1) return OpError(instr, "group_sizes must have rank >= 1");
  if (gs.rank() != 1) {
    std::vector<int64_t> want;
    for (int64_t d : prefix) want.push_back(ls.dim(d));
    want.push_back(gs.dims().back());
    if (!SameInts(want, gs.dims()))
      return OpError(instr, absl::StrCat("group_sizes must be [G] or [", absl::StrJoin(want, ","),
                                         "] (lhs batch dims, then the lhs dims of the ragged dim's kind "
                                         "before it, then G), got ",
                                         absl::StrJoin(gs.dims(), ",")));
  }
  return gs.dims().back();
}

}  // namespace

// Modes (see docs/ops-linalg.md), by the kind of the lhs ragged dim:
//   free        -> rhs has a group dim; a row in group g uses rhs[g], a row
//                  in no group is 0 (in several groups: the sum);
//   contracting -> result [G, batch, lhs free, rhs free]; group g contracts
//                  only over its positions;
//   batch       -> an ordinary dot: group_sizes is checked but not read (as
//                  XLA's and JAX's expansions do).
absl::StatusOr<Literal> LinalgEvalRaggedDot(const Instruction& instr,
                                            absl::Span<const Literal* const> operands) {
  if (operands.size() != 3) return OpError(instr, "expects 3 operands");
  const Shape& ls = operands[0]->shape();
  const Shape& rs = operands[1]->shape();
  const Shape& gs = operands[2]->shape();
  const Shape& out_shape = instr.shape();
  if (!ls.IsArray() || !rs.IsArray() || !gs.IsArray() || !out_shape.IsArray())
    return OpError(instr, "operands and result must be arrays");
  DotDims dd(instr);
  const std::vector<int64_t>& lb = dd.lb;
  const std::vector<int64_t>& rb = dd.rb;
  const std::vector<int64_t>& lc = dd.lc;
  const std::vector<int64_t>& rc = dd.rc;
  const auto lr = instr.AttrOr<std::vector<int64_t>>("lhs_ragged_dims", {});
  const auto rg = instr.AttrOr<std::vector<int64_t>>("rhs_group_dims", {});
  if (lb.size() != rb.size() || lc.size() != rc.size() || lr.size() != 1 || rg.size() > 1)
    return OpError(instr, "bad ragged dot dimension numbers");
  if (auto st = CheckDotDims(instr, ls, rs, &dd); !st.ok()) return st;
  if (auto st = CheckDims(instr, rg, rs.rank(), &dd.rused, "rhs group"); !st.ok()) return st;
  const int64_t ragged = lr[0];
  if (ragged < 0 || ragged >= ls.rank()) return OpError(instr, "lhs ragged dim out of range");
  const bool ragged_contracting = std::find(lc.begin(), lc.end(), ragged) != lc.end();
  const auto batch_at = std::find(lb.begin(), lb.end(), ragged);
  if (batch_at != lb.end()) {
    if (!rg.empty()) return OpError(instr, "a ragged batch dim takes no rhs group dim");
    auto groups = GroupCount(instr, ls, gs, std::vector<int64_t>(lb.begin(), batch_at));
    if (!groups.ok()) return groups.status();
    return LinalgEvalDot(instr, operands.subspan(0, 2));
  }
  if (ragged_contracting != rg.empty())
    return OpError(instr, "rhs group dim must be present iff the ragged dim is not contracting");
  // The free dims are known before SizeDot: every lhs dim not batch/contracting.
  std::vector<int64_t> lhs_free;
  for (int64_t i = 0; i < ls.rank(); ++i)
    if (!dd.lused[i]) lhs_free.push_back(i);
  // The lhs dims the ragged dim is one of (rows or columns of the matrix
  // problem), and its place among them.
  const std::vector<int64_t>& grp_dims = ragged_contracting ? lc : lhs_free;
  const int64_t at = std::find(grp_dims.begin(), grp_dims.end(), ragged) - grp_dims.begin();
  std::vector<int64_t> prefix = lb;
  prefix.insert(prefix.end(), grp_dims.begin(), grp_dims.begin() + at);
  auto groups = GroupCount(instr, ls, gs, prefix);
  if (!groups.ok()) return groups.status();
  const int64_t G = *groups;
  if (!rg.empty() && rs.dim(rg[0]) != G) return OpError(instr, "rhs group dim size != group count");
  std::vector<int64_t> out_dims;
  if (ragged_contracting) out_dims.push_back(G);
  if (auto st = SizeDot(instr, ls, rs, &dd, &out_dims); !st.ok()) return st;
  if (!SameInts(out_dims, out_shape.dims()))
    return OpError(instr, "result shape does not match the dimensions");
  const std::vector<int64_t>& lf = dd.lf;
  const std::vector<int64_t>& rf = dd.rf;
  const int64_t B = dd.B, K = dd.K, M = dd.M, N = dd.N;
  const PrimitiveType rt = out_shape.element_type();
  auto acc = AccFor(instr, rt);
  if (!acc.ok()) return acc.status();
  if (out_shape.ElementCount() == 0) return Literal(out_shape);
  if (M > kBlasMax || N > kBlasMax || K > kBlasMax) return OpUnimplemented(instr, "matrix too large");
  const int64_t rsize = ls.dim(ragged);
  Literal gtmp;
  const RaggedGroups grp(RowMajor(*operands[2], &gtmp), G, rsize);
  // For every row (free) or column (contracting) j of the matrix problem:
  // its ragged position and, with a per-batch group_sizes, the x part of
  // its group-size row (b * X + x).
  std::vector<int64_t> rag_index, x_index;
  int64_t X = 1;
  {
    int64_t count = 1, inner = 1;
    for (size_t i = 0; i < grp_dims.size(); ++i) count *= ls.dim(grp_dims[i]);
    for (size_t i = at + 1; i < grp_dims.size(); ++i) inner *= ls.dim(grp_dims[i]);
    for (int64_t i = 0; i < at; ++i) X *= ls.dim(grp_dims[i]);
    rag_index.resize(count);
    x_index.resize(count);
    for (int64_t j = 0; j < count; ++j) {
      rag_index[j] = (j / inner) % rsize;
      x_index[j] = j / (inner * rsize);
    }
  }
  const bool shared_sizes = gs.rank() == 1;
  auto in_group = [&](int64_t b, int64_t j, int64_t g) {
    return grp.Contains(shared_sizes ? 0 : b * X + x_index[j], g, rag_index[j]);
  };
  Literal ltmp, rtmp;
  const Literal& lhs = Untiled(*operands[0], &ltmp);
  const Literal& rhs = Untiled(*operands[1], &rtmp);
  Literal result = RowMajorLiteral(out_shape);
  absl::Status st = DispatchAcc(*acc, [&](auto zero) -> absl::Status {
    using T = decltype(zero);
    MatView<T> av;
    MakeView<T>(lhs, lb, lf, lc, rt, B, M, K, &av);
    // Packed copy of A (row-major [B][M][K]) to mask.
    std::vector<T> a(B * M * K);
    for (int64_t b = 0; b < B; ++b)
      for (int64_t i = 0; i < M; ++i)
        for (int64_t k = 0; k < K; ++k)
          a[(b * M + i) * K + k] = av.trans ? av.base[av.offsets[b] + k * av.ld + i]
                                            : av.base[av.offsets[b] + i * av.ld + k];
    std::vector<T> c(out_shape.ElementCount(), T(0)), tmp(M * N), am;
    const std::vector<int64_t> rst = UntiledStrides(rhs.shape());
    std::vector<T> bm(B * K * N);
    for (int64_t g = 0; g < G; ++g) {
      // rhs for this group: [B][K][N].
      std::vector<int64_t> sizes, strides;
      for (int64_t d : rb) sizes.push_back(rs.dim(d)), strides.push_back(rst[d]);
      for (int64_t d : rc) sizes.push_back(rs.dim(d)), strides.push_back(rst[d]);
      for (int64_t d : rf) sizes.push_back(rs.dim(d)), strides.push_back(rst[d]);
      Gather<T>(rhs, rg.empty() ? 0 : g * rst[rg[0]], sizes, strides, rt, bm.data());
      // As XLA's expansion: the operands are masked (positions outside the
      // group are 0) and every group's product is added, so a 0 * inf from
      // another group's rhs gives NaN there too.
      for (int64_t b = 0; b < B; ++b) {
        const T* ap = a.data() + b * M * K;
        am.assign(ap, ap + M * K);
        T* bp = bm.data() + b * K * N;
        if (ragged_contracting) {
          for (int64_t k = 0; k < K; ++k) {
            if (in_group(b, k, g)) continue;
            for (int64_t i = 0; i < M; ++i) am[i * K + k] = T(0);
            std::fill(bp + k * N, bp + (k + 1) * N, T(0));
          }
        } else {
          for (int64_t i = 0; i < M; ++i)
            if (!in_group(b, i, g)) std::fill(am.begin() + i * K, am.begin() + (i + 1) * K, T(0));
        }
        Gemm<T>(false, false, M, N, K, am.data(), K, bp, N, tmp.data(), N);
        if (ragged_contracting) {
          std::copy(tmp.begin(), tmp.end(), c.begin() + (g * B + b) * M * N);
        } else {
          T* cb = c.data() + b * M * N;
          for (int64_t e = 0; e < M * N; ++e) cb[e] += tmp[e];
        }
      }
    }
    Store<T>(c.data(), result);
    return absl::OkStatus();
  });
  if (!st.ok()) return st;
  return ToLayout(std::move(result), out_shape.layout());
}

// ------------------------------------------------------------ convolution

namespace {

// Convolution as chunked im2col + GEMM, in one of two orientations chosen
// from the input's layout, reading the operand's own memory whatever its
// (untiled) layout when its type is the compute type:
//
//  positions-major (channels-minor input, e.g. NHWC): for a chunk of output
//    positions q, col[q][kf*Cg + c] (runs of Cg contiguous channels), and
//    out[q][o] = col x w with the kernel packed as w[kf*Cg + c][o];
//  features-major (any other input layout, e.g. NCHW): colT[c*KS + kf][q],
//    built from runs along the innermost spatial dimension, and
//    out[o][q] = w x colT with the kernel packed as w[o][c*KS + kf].
// The GEMM writes straight into the result when its layout has the matching
// shape (positions at one stride, features at unit stride for the first
// orientation; positions contiguous for the second), else into a packed
// buffer that is then copied to the result in parallel.
//
// Work is cut into tasks (output batch, chunk of positions) whose bounds
// depend only on the problem; each task builds its own im2col block in a
// thread-local buffer (sized to stay in L2) and runs single-threaded GEMMs
// into its own rows of the output. Every output element is thus produced by
// the same GEMM call for any pool width: bit-identical results.
// A 1x1 window without padding, stride or dilation over positions at one
// stride uses the input itself as the im2col matrix (a plain GEMM).
struct ConvGeom {
  int64_t ns = 0;
  std::vector<int64_t> is, os;            // input/output spatial sizes
  std::vector<std::vector<int64_t>> tab;  // per dim: [k][o] -> input index or -1
  std::vector<int64_t> kidx;              // [KS][ns] window multi-indices
  // Input element (b, c, i...) at in[b*bstr + c*cstr + sum_d i_d*istr[d]].
  int64_t bstr = 0, cstr = 0;
  std::vector<int64_t> istr;
  // Innermost spatial dim, per kernel index k: valid output range [lo, hi)
  // and, when `affine`, input index v0[k] + (o - lo[k]) * step inside it.
  std::vector<int64_t> lo, hi, v0;
  int64_t step = 1;
  bool affine = false;
  int64_t KS = 1, P = 1, Cg = 1;
  bool identity = false;  // the im2col matrix is the input itself
  int64_t pstr = 1;       // then: element stride between output positions
};

// Element stride between consecutive positions of row-major `sizes` laid
// out with `strides`, if they all sit at one stride (size-1 dims ignored);
// -1 otherwise. 1 when there is at most one position.
int64_t CollapsedStride(absl::Span<const int64_t> sizes, absl::Span<const int64_t> strides) {
  int64_t stride = -1, expect = -1;
  for (int64_t d = static_cast<int64_t>(sizes.size()) - 1; d >= 0; --d) {
    if (sizes[d] == 1) continue;
    if (stride == -1) {
      stride = strides[d];
    } else if (strides[d] != expect) {
      return -1;
    }
    expect = strides[d] * sizes[d];
  }
  return stride == -1 ? 1 : stride;
}

// Per-thread scratch for the im2col blocks (kept between calls).
template <typename T>
std::vector<T>& ConvScratch() {
  thread_local std::vector<T> buf;
  return buf;
}

// C (m x n, ldc) = A (m x k, lda) * B (k x n, ldb) on the calling thread.
template <typename T>
void TaskGemm(int64_t m, int64_t n, int64_t k, const T* a, int64_t lda, const T* b, int64_t ldb,
              T* c, int64_t ldc) {
  if (m == 0 || n == 0) return;
  if (k == 0) {
    for (int64_t i = 0; i < m; ++i) std::fill(c + i * ldc, c + i * ldc + n, T(0));
    return;
  }
  if constexpr (kIsBlasType<T>) {
    BlasGemm<T>(false, false, m, n, k, a, lda, b, ldb, c, ldc);
  } else {
    NaiveGemm<T>(false, false, m, n, k, a, lda, b, ldb, c, ldc);  // nested: runs inline
  }
}

// Positions-major im2col: rows for output positions [p0, p1) of input
// batch `bin`, channels [chan0, chan0 + Cg). Row length KS*Cg.
template <typename T>
void FillColPositions(const ConvGeom& g, const T* in, int64_t bin, int64_t chan0, int64_t p0,
                      int64_t p1, T* col) {
  const int64_t ns = g.ns, Cg = g.Cg, KK = g.KS * Cg;
  std::vector<int64_t> o(ns);
  int64_t rem = p0;
  for (int64_t d = ns - 1; d >= 0; --d) {
    o[d] = rem % g.os[d];
    rem /= g.os[d];
  }
  const T* base = in + bin * g.bstr + chan0 * g.cstr;
  for (int64_t p = p0; p < p1; ++p) {
    T* row = col + (p - p0) * KK;
    // Window taps whose channel runs are adjacent in the input (e.g. the
    // kw taps of one kernel row when Cg == C) are copied as one run.
    int64_t run_src = -1, run_dst = 0, run_len = 0;
    auto flush = [&]() {
      if (run_len == 0) return;
      if (run_src < 0) {
        std::fill(row + run_dst, row + run_dst + run_len, T(0));
      } else if (run_len == 1) {
        row[run_dst] = base[run_src];
      } else {
        std::copy(base + run_src, base + run_src + run_len, row + run_dst);  // cstr == 1 here
      }
      run_len = 0;
    };
    for (int64_t kf = 0; kf < g.KS; ++kf) {
      const int64_t* k = g.kidx.data() + kf * ns;
      int64_t off = 0;
      bool ok = true;
      for (int64_t d = 0; d < ns; ++d) {
        const int64_t idx = g.tab[d][k[d] * g.os[d] + o[d]];
        if (idx < 0) {
          ok = false;
          break;
        }
        off += idx * g.istr[d];
      }
      const int64_t src = ok ? off : -1;
      const bool extend = run_len > 0 && Cg > 1 &&
                          ((src < 0 && run_src < 0) || (src >= 0 && run_src >= 0 && src == run_src + run_len));
      if (extend) {
        run_len += Cg;
      } else {
        flush();
        run_src = src;
        run_dst = kf * Cg;
        run_len = Cg;
      }
    }
    flush();
    for (int64_t d = ns - 1; d >= 0; --d) {
      if (++o[d] < g.os[d]) break;
      o[d] = 0;
    }
  }
}

// Features-major im2col: colT[c*KS + kf][q] for output positions
// q in [p0, p1) (row length p1 - p0). Needs ns >= 1.
template <typename T>
void FillColFeatures(const ConvGeom& g, const T* in, int64_t bin, int64_t chan0, int64_t p0,
                     int64_t p1, T* col) {
  const int64_t ns = g.ns, last = ns - 1, no = ns - 1, W = g.os[last], n = p1 - p0;
  // Runs of the chunk along the innermost output dim.
  struct Line {
    int64_t q, len, o;
  };
  std::vector<Line> lines;
  std::vector<int64_t> outer;  // [line][ns - 1] outer output indices
  {
    std::vector<int64_t> o(ns);
    int64_t rem = p0;
    for (int64_t d = ns - 1; d >= 0; --d) {
      o[d] = rem % g.os[d];
      rem /= g.os[d];
    }
    for (int64_t p = p0; p < p1;) {
      const int64_t len = std::min(W - o[last], p1 - p);
      lines.push_back({p - p0, len, o[last]});
      for (int64_t d = 0; d < no; ++d) outer.push_back(o[d]);
      p += len;
      o[last] += len;
      if (o[last] == W) {
        o[last] = 0;
        for (int64_t d = last - 1; d >= 0; --d) {
          if (++o[d] < g.os[d]) break;
          o[d] = 0;
        }
      }
    }
  }
  const std::vector<int64_t>& tl = g.tab[last];
  const int64_t sl = g.istr[last];
  for (int64_t c = 0; c < g.Cg; ++c) {
    const T* src_c = in + bin * g.bstr + (chan0 + c) * g.cstr;
    for (int64_t kf = 0; kf < g.KS; ++kf) {
      T* row = col + (c * g.KS + kf) * n;
      const int64_t* k = g.kidx.data() + kf * ns;
      const int64_t kl = k[last];
      for (size_t li = 0; li < lines.size(); ++li) {
        const Line& L = lines[li];
        T* dst = row + L.q;
        int64_t off = 0;
        bool ok = true;
        for (int64_t d = 0; d < no; ++d) {
          const int64_t idx = g.tab[d][k[d] * g.os[d] + outer[li * no + d]];
          if (idx < 0) {
            ok = false;
            break;
          }
          off += idx * g.istr[d];
        }
        if (!ok) {
          std::fill(dst, dst + L.len, T(0));
          continue;
        }
        const T* s = src_c + off;
        if (g.affine) {
          const int64_t a = std::max(L.o, g.lo[kl]), b = std::min(L.o + L.len, g.hi[kl]);
          if (a >= b) {
            std::fill(dst, dst + L.len, T(0));
            continue;
          }
          std::fill(dst, dst + (a - L.o), T(0));
          const T* sp = s + (g.v0[kl] + (a - g.lo[kl]) * g.step) * sl;
          T* dp = dst + (a - L.o);
          const int64_t cnt = b - a, sst = g.step * sl;
          if (sst == 1) {
            std::copy(sp, sp + cnt, dp);
          } else {
            for (int64_t j = 0; j < cnt; ++j) dp[j] = sp[j * sst];
          }
          std::fill(dst + (b - L.o), dst + L.len, T(0));
        } else {
          const int64_t* t = tl.data() + kl * W + L.o;
          for (int64_t j = 0; j < L.len; ++j) dst[j] = t[j] < 0 ? T(0) : s[t[j] * sl];
        }
      }
    }
  }
}

// dst (row-major over `sizes`) = src element at sum idx_d * strides[d], in
// parallel over fixed blocks of rows.
template <typename T>
void StridedToRowMajor(const T* src, absl::Span<const int64_t> sizes,
                       absl::Span<const int64_t> strides, T* dst) {
  ForEachRow(0, sizes, strides, [&](int64_t off, int64_t r, int64_t n, int64_t stride) {
    T* out = dst + r * n;
    for (int64_t j = 0; j < n; ++j) out[j] = src[off + j * stride];
  });
}

// The row-major result of type out_shape.element_type() from a T buffer
// holding element i of out_shape's dims at sum i_d * strides[d] (converted
// and rounded once when the result type is narrower than T).
template <typename T>
Literal RowMajorFromStrided(const T* src, const Shape& out_shape, absl::Span<const int64_t> strides) {
  Literal result = RowMajorUninitialized(out_shape);
  if (IsNative(out_shape.element_type(), static_cast<const T*>(nullptr))) {
    StridedToRowMajor<T>(src, out_shape.dims(), strides, reinterpret_cast<T*>(result.data()));
  } else {
    ScratchVector<T> res(out_shape.ElementCount());
    StridedToRowMajor<T>(src, out_shape.dims(), strides, res.data());
    Store<T>(res.data(), result);
  }
  return result;
}

// Leading dimension for a BLAS matrix of `rows` x `cols` whose rows are
// `stride` apart (any value >= cols works when there is one row); -1 if
// BLAS cannot take it.
int64_t BlasLd(int64_t stride, int64_t rows, int64_t cols) {
  const int64_t ld = rows <= 1 ? std::max<int64_t>(cols, 1) : stride;
  if (ld < std::max<int64_t>(cols, 1) || ld > kBlasMax) return -1;
  return ld;
}

// Target im2col block size in elements (fits L2 with the GEMM's packing).
constexpr int64_t kConvColTarget = int64_t{1} << 17;

// A convolution whose window covers its whole input (every output spatial
// size 1, no padding, dilation or reversal, no groups) is one matrix
// product: out[b][o] = sum over (c, s...) of lhs[b][c][s...] *
// kernel[c][s...][o]. The weight gradient of a 1x1 convolution has this
// form (the window is the image, the batch the contraction); the im2col
// path made it one GEMV per output batch. Operands are read in place
// through BLAS's transpose flags when their contraction dims collapse,
// else packed; output columns are cut into fixed blocks (the same for
// every pool width). False when the problem does not have this form.
template <typename T>
bool WholeWindowProduct(const Literal& lhs, const Literal& ker, const ConvolutionDimensionNumbers& dn,
                        const Window& window, const Shape& out_shape, Literal* result) {
  if constexpr (!(std::is_same_v<T, float> || std::is_same_v<T, double>)) {
    return false;
  } else {
    const Shape& ls = lhs.shape();
    const Shape& kshape = ker.shape();
    const int64_t ns = static_cast<int64_t>(dn.input_spatial_dimensions.size());
    for (int64_t d = 0; d < ns; ++d) {
      const WindowDimension& wd = window.dimensions[d];
      if (out_shape.dim(dn.output_spatial_dimensions[d]) != 1 || wd.padding_low != 0 || wd.padding_high != 0 ||
          wd.window_dilation != 1 || wd.base_dilation != 1 || wd.window_reversal ||
          wd.size != ls.dim(dn.input_spatial_dimensions[d]))
        return false;
    }
    const PrimitiveType rt = out_shape.element_type();
    const int64_t N = ls.dim(dn.input_batch_dimension), O = kshape.dim(dn.kernel_output_feature_dimension);
    int64_t K = ls.dim(dn.input_feature_dimension);
    for (int64_t d = 0; d < ns; ++d) K *= ls.dim(dn.input_spatial_dimensions[d]);
    if (K == 0 || N > kBlasMax || O > kBlasMax || K > kBlasMax) return false;
    const std::vector<int64_t> lst = UntiledStrides(ls), kst = UntiledStrides(kshape);
    std::vector<int64_t> lk = {dn.input_feature_dimension}, kk = {dn.kernel_input_feature_dimension};
    lk.insert(lk.end(), dn.input_spatial_dimensions.begin(), dn.input_spatial_dimensions.end());
    kk.insert(kk.end(), dn.kernel_spatial_dimensions.begin(), dn.kernel_spatial_dimensions.end());
    // A = [N][K] (or its transpose), B = [K][O] (or its transpose).
    const T *a = nullptr, *b = nullptr;
    bool ta = false, tb = false;
    int64_t lda = 0, ldb = 0;
    ScratchVector<T> apack, bpack;
    auto native = [&](const Literal& lit) { return lit.shape().element_type() == rt && IsNative(rt, a); };
    int64_t kstr;
    if (native(lhs) && CollapseGroup(lk, ls.dims(), lst, &kstr)) {
      const int64_t bs = lst[dn.input_batch_dimension];
      a = reinterpret_cast<const T*>(lhs.data());
      if (kstr <= 1 && BlasLd(bs, N, K) >= 0) {
        lda = BlasLd(bs, N, K);
      } else if ((bs == 1 || N == 1) && kstr > 0 && BlasLd(kstr, K, N) >= 0) {
        ta = true;
        lda = BlasLd(kstr, K, N);
      } else {
        a = nullptr;
      }
    }
    if (a == nullptr) {
      std::vector<int64_t> sizes = {N}, strides = {lst[dn.input_batch_dimension]};
      for (int64_t d : lk) {
        sizes.push_back(ls.dim(d));
        strides.push_back(lst[d]);
      }
      apack.resize(N * K);
      Gather<T>(lhs, 0, sizes, strides, rt, apack.data());
      a = apack.data();
      lda = K;
    }
    if (native(ker) && CollapseGroup(kk, kshape.dims(), kst, &kstr)) {
      const int64_t os_ = kst[dn.kernel_output_feature_dimension];
      b = reinterpret_cast<const T*>(ker.data());
      if ((os_ == 1 || O == 1) && kstr > 0 && BlasLd(kstr, K, O) >= 0) {
        ldb = BlasLd(kstr, K, O);
      } else if (kstr <= 1 && BlasLd(os_, O, K) >= 0) {
        tb = true;
        ldb = BlasLd(os_, O, K);
      } else {
        b = nullptr;
      }
    }
    if (b == nullptr) {
      std::vector<int64_t> sizes, strides;
      for (int64_t d : kk) {
        sizes.push_back(kshape.dim(d));
        strides.push_back(kst[d]);
      }
      sizes.push_back(O);
      strides.push_back(kst[dn.kernel_output_feature_dimension]);
      bpack.resize(K * O);
      Gather<T>(ker, 0, sizes, strides, rt, bpack.data());
      b = bpack.data();
      ldb = O;
    }
    ScratchVector<T> c(N * O);
    UseSingleThreadedBlas();
    const double flops = 2.0 * static_cast<double>(N) * O * K;
    // A contraction much longer than the product's sides (K = batch x
    // image positions, thousands, against tens or hundreds of features) is
    // cut along K into fixed chunks of about 48 MFLOP, an even number of
    // them from 2 to 8, each product into its own partial, summed in chunk
    // order: column blocks would each pack the whole of the other operand
    // again ([128 x 6272] x [6272 x 128] in four: 4.6 ms at 1 thread
    // against 3.2 for one call), K chunks pack each part of both operands
    // once. Chunks and blocks depend on the problem only: the bits do not
    // depend on the pool width.
    int64_t kchunks = 1;
    if (K >= 8 * std::max(N, O) && K >= 4096 && N * O <= (int64_t{1} << 20)) {
      kchunks = std::clamp<int64_t>(static_cast<int64_t>(flops / 48e6), 2, 8);
      kchunks += kchunks % 2;
    }
    if (kchunks > 1) {
      const int64_t kc = (K + kchunks - 1) / kchunks;
      kchunks = (K + kc - 1) / kc;
      ScratchVector<T> partial((kchunks - 1) * N * O);
      ParallelFor(kchunks, 1, [&](int64_t q0, int64_t q1) {
        for (int64_t q = q0; q < q1; ++q) {
          const int64_t k0 = q * kc, kn = std::min(K, k0 + kc) - k0;
          const T* aq = ta ? a + k0 * lda : a + k0;
          const T* bq = tb ? b + k0 : b + k0 * ldb;
          BlasGemm<T>(ta, tb, N, O, kn, aq, lda, bq, ldb, q == 0 ? c.data() : partial.data() + (q - 1) * N * O, O);
        }
      });
      for (int64_t q = 1; q < kchunks; ++q) {
        const T* p = partial.data() + (q - 1) * N * O;
        for (int64_t i = 0; i < N * O; ++i) c[i] += p[i];
      }
    } else {
      // Blocks of 32 output columns at least (and about 4 MFLOP each).
      const int64_t min_cols =
          std::max<int64_t>(32, static_cast<int64_t>(4e6 / std::max(2.0 * static_cast<double>(N) * K, 1.0)));
      ParallelFor(O, min_cols, [&](int64_t o0, int64_t o1) {
        BlasGemm<T>(ta, tb, N, o1 - o0, K, a, lda, tb ? b + o0 * ldb : b + o0, ldb, c.data() + o0, O);
      });
    }
    // c [N][O] -> the result's row-major order (spatial sizes are 1).
    std::vector<int64_t> pstr(ns + 2, 0);
    pstr[dn.output_batch_dimension] = O;
    pstr[dn.output_feature_dimension] = 1;
    *result = ToLayout(RowMajorFromStrided<T>(c.data(), out_shape, pstr), out_shape.layout());
    return true;
  }
}

// Convolutions with G groups of one output feature each, through the
// direct kernel of conv_batch_grouped.h (groups as vector lanes):
//   batch groups (feature_groups false; a depthwise weight gradient):
//     group g of output batch b reads input batch g * Nb + b, all C input
//     features;
//   feature groups (true; a depthwise convolution, one input feature per
//     group, what oneDNN declines: lhs dilation, f64, ...): group g of
//     batch b reads input feature g.
// Operands packed groups-minor (converted to T), the taps table from the
// window. False when the taps table would be too large; the GEMM path then
// runs.
template <typename T>
bool GroupsAsLanes(const Literal& lhs, const Literal& ker, const ConvolutionDimensionNumbers& dn,
                   const Window& window, const Shape& out_shape, int64_t G, bool feature_groups, Literal* result) {
  const Shape& ls = lhs.shape();
  const Shape& kshape = ker.shape();
  const int64_t ns = static_cast<int64_t>(dn.input_spatial_dimensions.size());
  const std::vector<int64_t> lst = UntiledStrides(ls), kst = UntiledStrides(kshape);
  const int64_t N = ls.dim(dn.input_batch_dimension);
  const int64_t C = feature_groups ? 1 : ls.dim(dn.input_feature_dimension), Nb = feature_groups ? N : N / G;
  const int64_t bs = lst[dn.input_batch_dimension], cs = lst[dn.input_feature_dimension];
  // Distance between the inputs of two neighbouring groups.
  const int64_t lane_stride = feature_groups ? cs : Nb * bs;
  std::vector<int64_t> is(ns), os(ns), ks(ns);
  int64_t IS = 1, P = 1, KS = 1;
  for (int64_t d = 0; d < ns; ++d) {
    is[d] = ls.dim(dn.input_spatial_dimensions[d]);
    os[d] = out_shape.dim(dn.output_spatial_dimensions[d]);
    ks[d] = kshape.dim(dn.kernel_spatial_dimensions[d]);
    IS *= is[d];
    P *= os[d];
    KS *= ks[d];
  }
  if (KS * P > (int64_t{1} << 26)) return false;
  // taps[w][p]: window position w (row-major over ks), output position p.
  std::vector<int64_t> taps(KS * P);
  std::vector<int64_t> k(ns), o(ns);
  for (int64_t w = 0; w < KS; ++w) {
    for (int64_t d = ns - 1, r = w; d >= 0; --d) {
      k[d] = r % ks[d];
      r /= ks[d];
    }
    for (int64_t p = 0; p < P; ++p) {
      int64_t r = p, flat = 0, scale = 1;
      for (int64_t d = ns - 1; d >= 0; --d) {
        o[d] = r % os[d];
        r /= os[d];
        const WindowDimension& wd = window.dimensions[d];
        int64_t v = o[d] * wd.stride - wd.padding_low + k[d] * wd.window_dilation;
        if (wd.base_dilation > 1) v = v % wd.base_dilation == 0 ? v / wd.base_dilation : -1;
        if (v < 0 || v >= is[d] || flat < 0) {
          flat = -1;  // padding: the zero position IS below
        } else {
          flat += v * scale;
        }
        scale *= is[d];
      }
      taps[w * P + p] = flat < 0 ? IS : flat;
    }
  }
  const PrimitiveType rt = out_shape.element_type();
  constexpr int64_t V = kBatchGroupLanes<T>;
  const int64_t chunks = (G + V - 1) / V;
  const PrimitiveType native = std::is_same_v<T, float> ? PrimitiveType::F32 : PrimitiveType::F64;
  // Narrow-float operands of the result's type are decoded once, whole and
  // in parallel: the gathered rows are only V elements long, and decoding
  // them row by row took three times as long as the convolution.
  Literal decoded[2];
  auto decode = [&](const Literal& lit, Literal* copy, PrimitiveType* lit_rt) -> const Literal& {
    *lit_rt = rt;
    if constexpr (std::is_same_v<T, float>) {
      if (lit.shape().element_type() == rt && IsBlockConvertible(rt) && NarrowBlockConversionEnabled()) {
        Shape f32 = lit.shape();
        f32.set_element_type(PrimitiveType::F32);
        *copy = Literal::Uninitialized(f32);
        float* dst = reinterpret_cast<float*>(copy->data());
        const uint8_t* from = lit.data();
        const int eb = lit.element_bytes();
        ParallelFor(lit.physical_count(), 1 << 16, [&](int64_t i0, int64_t i1) {
          NarrowToF32(rt, from + i0 * eb, dst + i0, i1 - i0);
        });
        *lit_rt = PrimitiveType::F32;
        return *copy;
      }
    }
    return lit;
  };
  PrimitiveType lhs_rt, ker_rt;
  // Rows of every chunk of groups at once: row r of chunk q (groups
  // [qV, qV + V), the lanes past G zero) goes to dst + q * chunk_stride +
  // r * V, the rows row-major over `sizes` from `base` by `strides`,
  // groups `group_stride` apart. A literal that holds T already is copied
  // row by row, each source row once for all chunks (the rows are short:
  // a generic gather spent more time per row than the convolution per
  // element; chunk by chunk, a depthwise weight gradient read its two 3.2
  // MB operands once per chunk, using one 64-byte piece of every 128).
  auto gather_rows = [&](const Literal& lit, PrimitiveType lit_rt, int64_t base, const std::vector<int64_t>& sizes,
                         const std::vector<int64_t>& strides, int64_t group_stride, T* dst, int64_t chunk_stride,
                         int64_t rows) {
    if (lit.shape().element_type() == native && lit_rt == native) {
      const T* from = reinterpret_cast<const T*>(lit.data());
      const int64_t nd = static_cast<int64_t>(sizes.size());
      std::vector<int64_t> idx(nd, 0);
      int64_t off = base;
      for (int64_t r = 0; r < rows; ++r) {
        for (int64_t q = 0; q < chunks; ++q) {
          T* d = dst + q * chunk_stride + r * V;
          const T* src = from + off + q * V * group_stride;
          const int64_t n = std::min(V, G - q * V);
          if (group_stride == 1 && n == V) {
            std::memcpy(d, src, V * sizeof(T));
          } else {
            for (int64_t j = 0; j < n; ++j) d[j] = src[j * group_stride];
            std::fill(d + n, d + V, T(0));
          }
        }
        for (int64_t k = nd - 1; k >= 0; --k) {  // next position, row-major
          off += strides[k];
          if (++idx[k] < sizes[k]) break;
          off -= strides[k] * sizes[k];
          idx[k] = 0;
        }
      }
      return;
    }
    std::vector<int64_t> sz = sizes, st = strides;
    sz.push_back(V);
    st.push_back(group_stride);
    std::vector<T> tmp;
    for (int64_t q = 0; q < chunks; ++q) {
      const int64_t n = std::min(V, G - q * V);
      T* d = dst + q * chunk_stride;
      const int64_t from = base + q * V * group_stride;
      if (n == V) {
        Gather<T>(lit, from, sz, st, lit_rt, d);
        continue;
      }
      sz.back() = n;
      tmp.resize(rows * n);
      Gather<T>(lit, from, sz, st, lit_rt, tmp.data());
      for (int64_t r = 0; r < rows; ++r) {
        std::copy(tmp.data() + r * n, tmp.data() + (r + 1) * n, d + r * V);
        std::fill(d + r * V + n, d + (r + 1) * V, T(0));
      }
    }
  };
  const Literal& lhs_t = decode(lhs, &decoded[0], &lhs_rt);
  const Literal& ker_t = decode(ker, &decoded[1], &ker_rt);
  // in [chunk][Nb][C][is... + one position of zeros][V].
  ScratchVector<T> in(chunks * Nb * C * (IS + 1) * V);
  {
    std::vector<int64_t> strides;
    for (int64_t d = 0; d < ns; ++d) strides.push_back(lst[dn.input_spatial_dimensions[d]]);
    const int64_t chunk_stride = Nb * C * (IS + 1) * V;
    ParallelFor(Nb * C, 1, [&](int64_t s0, int64_t s1) {
      for (int64_t s = s0; s < s1; ++s) {
        const int64_t b = s / C, c = s % C;
        T* slice = in.data() + s * (IS + 1) * V;
        gather_rows(lhs_t, lhs_rt, b * bs + c * cs, is, strides, lane_stride, slice, chunk_stride, IS);
        for (int64_t q = 0; q < chunks; ++q)
          std::fill(slice + q * chunk_stride + IS * V, slice + q * chunk_stride + (IS + 1) * V, T(0));
      }
    });
  }
  // kernel [chunk][C][ks...][V], window reversal applied.
  ScratchVector<T> w(chunks * C * KS * V);
  {
    int64_t base = 0;
    std::vector<int64_t> strides;
    for (int64_t d = 0; d < ns; ++d) {
      const int64_t s = kst[dn.kernel_spatial_dimensions[d]];
      if (window.dimensions[d].window_reversal) {
        base += (ks[d] - 1) * s;
        strides.push_back(-s);
      } else {
        strides.push_back(s);
      }
    }
    const int64_t cs_k = kst[dn.kernel_input_feature_dimension];
    const int64_t os_ = kst[dn.kernel_output_feature_dimension];
    ParallelFor(C, 1, [&](int64_t c0, int64_t c1) {
      for (int64_t c = c0; c < c1; ++c)
        gather_rows(ker_t, ker_rt, base + c * cs_k, ks, strides, os_, w.data() + c * KS * V, C * KS * V, KS);
    });
  }
  // Element strides of the kernel's out [Nb][P][G] over the result's dims.
  std::vector<int64_t> pstr(ns + 2);
  pstr[dn.output_batch_dimension] = P * G;
  pstr[dn.output_feature_dimension] = 1;
  int64_t acc_s = G;
  for (int64_t d = ns - 1; d >= 0; --d) {
    pstr[dn.output_spatial_dimensions[d]] = acc_s;
    acc_s *= os[d];
  }
  // A result of type T whose layout is that order (NHWC for NHWC, HWIO's
  // 01bf for a weight gradient) is written in place.
  bool in_place = rt == native && out_shape.layout().tiles.empty() &&
                  static_cast<int64_t>(out_shape.layout().minor_to_major.size()) == out_shape.rank();
  if (in_place) {
    const std::vector<int64_t> rst = UntiledStrides(out_shape);
    for (int64_t d = 0; d < ns + 2; ++d) in_place &= out_shape.dim(d) == 1 || rst[d] == pstr[d];
  }
  if (in_place) {
    *result = Literal::Uninitialized(out_shape);
    BatchGroupedConvolution<T>(in.data(), w.data(), taps.data(), Nb, C, IS, KS, P, G,
                               reinterpret_cast<T*>(result->data()));
    return true;
  }
  ScratchVector<T> out(Nb * P * G);
  BatchGroupedConvolution<T>(in.data(), w.data(), taps.data(), Nb, C, IS, KS, P, G, out.data());
  *result = ToLayout(RowMajorFromStrided<T>(out.data(), out_shape, pstr), out_shape.layout());
  return true;
}

}  // namespace

absl::StatusOr<Literal> LinalgEvalConvolution(const Instruction& instr,
                                              absl::Span<const Literal* const> operands) {
  if (operands.size() < 2) return OpError(instr, "expects 2 operands");
  const auto* dn = instr.GetAttr<ConvolutionDimensionNumbers>("dim_labels");
  if (dn == nullptr) return OpError(instr, "missing dim_labels");
  const Shape& ls = operands[0]->shape();
  const Shape& ks_shape = operands[1]->shape();
  const Shape& out_shape = instr.shape();
  if (!ls.IsArray() || !ks_shape.IsArray() || !out_shape.IsArray())
    return OpError(instr, "operands and result must be arrays");
  const int64_t ns = static_cast<int64_t>(dn->input_spatial_dimensions.size());
  if (static_cast<int64_t>(dn->kernel_spatial_dimensions.size()) != ns ||
      static_cast<int64_t>(dn->output_spatial_dimensions.size()) != ns || ls.rank() != ns + 2 ||
      ks_shape.rank() != ns + 2 || out_shape.rank() != ns + 2)
    return OpError(instr, "dim_labels do not match the operand ranks");
  Window window;
  if (const auto* w = instr.GetAttr<Window>("window")) window = *w;
  if (static_cast<int64_t>(window.dimensions.size()) != ns) {
    if (!window.dimensions.empty()) return OpError(instr, "window rank does not match");
    for (int64_t d = 0; d < ns; ++d) {
      WindowDimension wd;
      wd.size = ks_shape.dim(dn->kernel_spatial_dimensions[d]);
      window.dimensions.push_back(wd);
    }
  }
  const int64_t FG = instr.AttrOr<int64_t>("feature_group_count", 1);
  const int64_t BG = instr.AttrOr<int64_t>("batch_group_count", 1);
  const int64_t N = ls.dim(dn->input_batch_dimension);
  const int64_t C = ls.dim(dn->input_feature_dimension);
  const int64_t Cg = ks_shape.dim(dn->kernel_input_feature_dimension);
  const int64_t O = ks_shape.dim(dn->kernel_output_feature_dimension);
  if (FG < 1 || BG < 1) return OpError(instr, "group counts must be positive");
  if (C != Cg * FG) return OpError(instr, "input features != kernel input features * feature_group_count");
  if (O % FG != 0 || O % BG != 0) return OpError(instr, "output features not divisible by the group count");
  if (N % BG != 0) return OpError(instr, "batch not divisible by batch_group_count");
  const int64_t Nb = N / BG;
  if (out_shape.dim(dn->output_batch_dimension) != Nb ||
      out_shape.dim(dn->output_feature_dimension) != O)
    return OpError(instr, "result batch/feature sizes do not match");
  for (int64_t d = 0; d < ns; ++d) {
    const WindowDimension& wd = window.dimensions[d];
    if (wd.stride < 1 || wd.base_dilation < 1 || wd.window_dilation < 1)
      return OpError(instr, "window stride and dilations must be positive");
    if (wd.size != ks_shape.dim(dn->kernel_spatial_dimensions[d]))
      return OpError(instr, "window size does not match the kernel");
  }
  const PrimitiveType rt = out_shape.element_type();
  auto acc = AccFor(instr, rt);
  if (!acc.ok()) return acc.status();
  if (out_shape.ElementCount() == 0) return Literal(out_shape);
  {
    int64_t ks_total = 1;
    for (int64_t d = 0; d < ns; ++d) ks_total *= ks_shape.dim(dn->kernel_spatial_dimensions[d]);
    if (Cg * ks_total > kBlasMax || O > kBlasMax)
      return OpUnimplemented(instr, "convolution too large");
  }
  Literal result;
  Literal ltmp, ktmp;
  const Literal& lhs = Untiled(*operands[0], &ltmp);
  const Literal& ker = Untiled(*operands[1], &ktmp);
  // A window covering the whole input is one BLAS product on operands of
  // the result's type (f32, f64): before oneDNN, whose JIT kernels ran the
  // weight gradient of a 1x1 convolution over [8,28,28,128] 2-3x slower
  // than the product. Narrow operands keep oneDNN's f32 path, so a bf16
  // convolution and its widened form (fusion_widen_bf16.h) take the same
  // calls.
  auto whole_window = [&] {
    if (FG != 1 || BG != 1) return false;
    if (*acc == Acc::kF32) return WholeWindowProduct<float>(lhs, ker, *dn, window, out_shape, &result);
    if (*acc == Acc::kF64) return WholeWindowProduct<double>(lhs, ker, *dn, window, out_shape, &result);
    return false;
  };
  const bool same_types = ls.element_type() == rt && ks_shape.element_type() == rt;
  if (same_types && whole_window()) return result;
  if (TryOneDnnConvolutionLiterals(instr, *dn, window, lhs, ker, FG, BG, &result)) return result;
  if (!same_types && whole_window()) return result;
  // One output feature per group: batch groups (depthwise weight
  // gradients) or depthwise convolutions oneDNN declined.
  const bool batch_lanes = BG > 1 && FG == 1 && O == BG;
  const bool feature_lanes = FG > 1 && BG == 1 && O == FG && Cg == 1;
  if ((batch_lanes || feature_lanes) && (*acc == Acc::kF32 || *acc == Acc::kF64)) {
    const int64_t G = batch_lanes ? BG : FG;
    const bool done =
        *acc == Acc::kF32 ? GroupsAsLanes<float>(lhs, ker, *dn, window, out_shape, G, feature_lanes, &result)
                          : GroupsAsLanes<double>(lhs, ker, *dn, window, out_shape, G, feature_lanes, &result);
    if (done) return result;
  }
  const std::vector<int64_t> lst = UntiledStrides(lhs.shape());
  const std::vector<int64_t> kst = UntiledStrides(ker.shape());

  const int64_t rank = ns + 2;
  absl::Status st = DispatchAcc(*acc, [&](auto zero) -> absl::Status {
    using T = decltype(zero);
    ConvGeom g;
    g.ns = ns;
    g.Cg = Cg;
    std::vector<int64_t> ks;
    for (int64_t d = 0; d < ns; ++d) {
      g.is.push_back(ls.dim(dn->input_spatial_dimensions[d]));
      ks.push_back(ks_shape.dim(dn->kernel_spatial_dimensions[d]));
      g.os.push_back(out_shape.dim(dn->output_spatial_dimensions[d]));
      g.KS *= ks.back();
      g.P *= g.os.back();
    }
    const int64_t KK = Cg * g.KS, P = g.P;
    // ---- input: its own memory, or a channels-last packed copy.
    const bool native_in = IsNative(lhs.shape().element_type(), static_cast<const T*>(nullptr)) &&
                           IsNative(rt, static_cast<const T*>(nullptr));
    const int64_t cstr_lhs = lst[dn->input_feature_dimension];
    bool positions_major;
    const T* in = nullptr;
    ScratchVector<T> in_pack;
    if (native_in && (cstr_lhs == 1 || Cg == 1 || ns > 0)) {
      in = reinterpret_cast<const T*>(lhs.data());
      g.bstr = lst[dn->input_batch_dimension];
      g.cstr = cstr_lhs;
      for (int64_t d = 0; d < ns; ++d) g.istr.push_back(lst[dn->input_spatial_dimensions[d]]);
      positions_major = ns == 0 || cstr_lhs == 1;
    } else {
      // [N][is...][C], batches converted in parallel.
      int64_t IS = 1;
      for (int64_t d = 0; d < ns; ++d) IS *= g.is[d];
      std::vector<int64_t> isz, istd;
      for (int64_t d = 0; d < ns; ++d) {
        isz.push_back(g.is[d]);
        istd.push_back(lst[dn->input_spatial_dimensions[d]]);
      }
      isz.push_back(C);
      istd.push_back(cstr_lhs);
      in_pack.resize(N * IS * C);
      const int64_t bs = lst[dn->input_batch_dimension];
      ParallelFor(N, 1, [&](int64_t b0, int64_t b1) {
        for (int64_t b = b0; b < b1; ++b) Gather<T>(lhs, b * bs, isz, istd, rt, in_pack.data() + b * IS * C);
      });
      in = in_pack.data();
      g.bstr = IS * C;
      g.cstr = 1;
      g.istr.assign(ns, C);
      for (int64_t d = ns - 2; d >= 0; --d) g.istr[d] = g.istr[d + 1] * g.is[d + 1];
      positions_major = true;
    }
    // ---- window tables.
    g.tab.resize(ns);
    for (int64_t d = 0; d < ns; ++d) {
      const WindowDimension& wd = window.dimensions[d];
      auto& t = g.tab[d];
      t.resize(ks[d] * g.os[d]);
      for (int64_t k = 0; k < ks[d]; ++k)
        for (int64_t o = 0; o < g.os[d]; ++o) {
          int64_t v = o * wd.stride - wd.padding_low + k * wd.window_dilation;
          if (wd.base_dilation > 1) {
            if (v % wd.base_dilation != 0) {
              v = -1;
            } else {
              v /= wd.base_dilation;
            }
          }
          if (v < 0 || v >= g.is[d]) v = -1;
          t[k * g.os[d] + o] = v;
        }
    }
    g.kidx.resize(g.KS * ns);
    for (int64_t kf = 0; kf < g.KS; ++kf) {
      int64_t rem = kf;
      for (int64_t d = ns - 1; d >= 0; --d) {
        g.kidx[kf * ns + d] = rem % ks[d];
        rem /= ks[d];
      }
    }
    if (ns > 0) {
      const int64_t last = ns - 1, W = g.os[last];
      const WindowDimension& wd = window.dimensions[last];
      g.affine = wd.base_dilation == 1;
      g.step = wd.stride;
      g.lo.assign(ks[last], 0);
      g.hi.assign(ks[last], 0);
      g.v0.assign(ks[last], 0);
      for (int64_t k = 0; k < ks[last]; ++k) {
        const int64_t* t = g.tab[last].data() + k * W;
        int64_t lo = 0;
        while (lo < W && t[lo] < 0) ++lo;
        int64_t hi = W;
        while (hi > lo && t[hi - 1] < 0) --hi;
        g.lo[k] = lo;
        g.hi[k] = hi;
        g.v0[k] = lo < hi ? t[lo] : 0;
      }
    }
    // Identity im2col: 1x1 window, every table the identity, positions at
    // one input stride.
    {
      bool id = g.KS == 1;
      for (int64_t d = 0; d < ns && id; ++d) {
        if (g.os[d] != g.is[d]) id = false;
        for (int64_t o = 0; o < g.os[d] && id; ++o)
          if (g.tab[d][o] != o) id = false;
      }
      const int64_t ps = id ? CollapsedStride(g.is, g.istr) : -1;
      if (ps >= 0) {
        g.identity = true;
        g.pstr = ps;
      }
    }
    // ---- kernel, packed for the orientation (window reversal applied).
    ScratchVector<T> w(O * KK);
    {
      int64_t kbase = 0;
      std::vector<int64_t> ssz, sstd;
      for (int64_t d = 0; d < ns; ++d) {
        const int64_t kd = dn->kernel_spatial_dimensions[d];
        ssz.push_back(ks[d]);
        if (window.dimensions[d].window_reversal) {
          kbase += (ks[d] - 1) * kst[kd];
          sstd.push_back(-kst[kd]);
        } else {
          sstd.push_back(kst[kd]);
        }
      }
      const int64_t ci = kst[dn->kernel_input_feature_dimension];
      const int64_t co = kst[dn->kernel_output_feature_dimension];
      std::vector<int64_t> sizes, strides;
      if (positions_major) {  // [ks...][Cg][O]
        sizes = ssz;
        strides = sstd;
        sizes.push_back(Cg);
        strides.push_back(ci);
        sizes.push_back(O);
        strides.push_back(co);
      } else {  // [O][Cg][ks...]
        sizes = {O, Cg};
        strides = {co, ci};
        sizes.insert(sizes.end(), ssz.begin(), ssz.end());
        strides.insert(strides.end(), sstd.begin(), sstd.end());
      }
      Gather<T>(ker, kbase, sizes, strides, rt, w.data());
    }
    // ---- chunks of output positions.
    int64_t chunk = std::max<int64_t>(16, kConvColTarget / std::max<int64_t>(KK, 1) / 16 * 16);
    if (g.identity) chunk = std::max<int64_t>(chunk, 256);
    if (chunk >= P) chunk = P;
    const int64_t nchunks = (P + chunk - 1) / chunk;
    // ---- output: straight into the result when its layout allows.
    const bool out_untiled = out_shape.layout().tiles.empty() &&
                             static_cast<int64_t>(out_shape.layout().minor_to_major.size()) == rank;
    int64_t ob = 0, oo = 0, op = 0;  // strides of batch, feature, position
    bool direct = false;
    if (out_untiled && IsNative(rt, static_cast<const T*>(nullptr))) {
      const std::vector<int64_t> rstr = UntiledStrides(out_shape);
      std::vector<int64_t> sstr;
      for (int64_t d = 0; d < ns; ++d) sstr.push_back(rstr[dn->output_spatial_dimensions[d]]);
      const int64_t ps = CollapsedStride(g.os, sstr);
      ob = rstr[dn->output_batch_dimension];
      if (ps >= 0) {
        if (positions_major) {
          const int64_t fs = O == 1 ? 1 : rstr[dn->output_feature_dimension];
          op = BlasLd(ps, P, O);
          oo = 1;
          direct = fs == 1 && op >= 0;
        } else {
          oo = BlasLd(rstr[dn->output_feature_dimension], O, chunk);
          op = 1;
          direct = (ps == 1 || P == 1) && oo >= 0;
        }
      }
    }
    ScratchVector<T> out_pack;
    T* out;
    if (direct) {
      result = Literal::Uninitialized(out_shape);
      out = reinterpret_cast<T*>(result.data());
    } else {
      out_pack.resize(Nb * P * O);
      out = out_pack.data();
      ob = P * O;
      if (positions_major) {
        op = O;
        oo = 1;
      } else {
        op = 1;
        oo = P;
      }
    }
    // ---- the tasks.
    const int64_t ofg = O / FG, obg = O / BG;
    // Output features cut at feature- and batch-group boundaries: one GEMM
    // each. Tasks are (batch, chunk, segment), so a grouped problem with one
    // batch and one chunk (e.g. a depthwise weight gradient: nine positions,
    // one output per group) still spreads over the pool.
    std::vector<int64_t> seg_start;
    for (int64_t o0 = 0; o0 < O;) {
      seg_start.push_back(o0);
      o0 = std::min((o0 / ofg + 1) * ofg, (o0 / obg + 1) * obg);
    }
    const int64_t nseg = static_cast<int64_t>(seg_start.size());
    seg_start.push_back(O);
    const int64_t ntasks = Nb * nchunks * nseg;
    const double task_flops =
        2.0 * static_cast<double>(chunk) * (static_cast<double>(O) / nseg) * std::max<int64_t>(KK, 1);
    const int64_t min_tasks = std::max<int64_t>(1, static_cast<int64_t>(1e6 / task_flops));
    UseSingleThreadedBlas();
    // Leading dims of the identity im2col matrix.
    int64_t id_ld = -1;
    if (g.identity) {
      id_ld = positions_major ? BlasLd(g.pstr, chunk, Cg)
                              : (g.pstr == 1 || P == 1 ? BlasLd(g.cstr, Cg, chunk) : -1);
      if (id_ld < 0) g.identity = false;
    }
    ParallelFor(ntasks, min_tasks, [&](int64_t t0, int64_t t1) {
      std::vector<T>& col = ConvScratch<T>();
      if (!g.identity && col.size() < static_cast<size_t>(chunk * KK)) col.resize(chunk * KK);
      for (int64_t t = t0; t < t1; ++t) {
        const int64_t seg = t % nseg, bc = t / nseg;
        const int64_t b = bc / nchunks, p0 = (bc % nchunks) * chunk, p1 = std::min(P, p0 + chunk);
        const int64_t np = p1 - p0;
        {
          const int64_t o0 = seg_start[seg], o1 = seg_start[seg + 1];
          const int64_t gf = o0 / ofg, gb = o0 / obg;
          const int64_t bin = gb * Nb + b, chan0 = gf * Cg;
          T* cout = out + b * ob;
          if (positions_major) {
            const T* a;
            int64_t lda;
            if (g.identity) {
              a = in + bin * g.bstr + chan0 * g.cstr + p0 * g.pstr;
              lda = id_ld;
            } else {
              if (KK > 0) FillColPositions<T>(g, in, bin, chan0, p0, p1, col.data());
              a = col.data();
              lda = std::max<int64_t>(KK, 1);
            }
            TaskGemm<T>(np, o1 - o0, KK, a, lda, w.data() + o0, O, cout + p0 * op + o0, op);
          } else {
            const T* bm;
            int64_t ldb;
            if (g.identity) {
              bm = in + bin * g.bstr + chan0 * g.cstr + p0 * g.pstr;
              ldb = id_ld;
            } else {
              if (KK > 0) FillColFeatures<T>(g, in, bin, chan0, p0, p1, col.data());
              bm = col.data();
              ldb = std::max<int64_t>(np, 1);
            }
            TaskGemm<T>(o1 - o0, np, KK, w.data() + o0 * KK, std::max<int64_t>(KK, 1), bm, ldb,
                        cout + o0 * oo + p0, oo);
          }
        }
      }
    });
    if (direct) return absl::OkStatus();
    // out_pack -> the result's row-major order.
    std::vector<int64_t> pstr(rank);
    pstr[dn->output_batch_dimension] = ob;
    pstr[dn->output_feature_dimension] = oo;
    int64_t acc_s = op;
    for (int64_t d = ns - 1; d >= 0; --d) {
      pstr[dn->output_spatial_dimensions[d]] = acc_s;
      acc_s *= g.os[d];
    }
    result = RowMajorFromStrided<T>(out, out_shape, pstr);
    return absl::OkStatus();
  });
  if (!st.ok()) return st;
  return ToLayout(std::move(result), out_shape.layout());
}

}  // namespace hlo::cpu
