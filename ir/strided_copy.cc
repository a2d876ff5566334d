#include "ir/strided_copy.h"

#include <algorithm>
#include <cstring>

#include "ir/transpose_kernels.h"

namespace hlo {
namespace {

// Below this many bytes a copy runs on the calling thread.
constexpr int64_t kParallelBytes = 1 << 16;
// Bytes of work per parallel block (at least).
constexpr int64_t kBlockBytes = 1 << 15;
// Transposing copies whose destination is at least this large write it
// with non-temporal stores: it cannot stay in the caches anyway (the L3 of
// the machines we measure is 32 MB, shared by every core), and skipping
// the read for ownership of each destination line saves a third of the
// memory traffic.
constexpr int64_t kStreamingBytes = int64_t{16} << 20;

// Element types of each byte size, allowed to alias the byte buffers.
struct __attribute__((may_alias)) Bytes16 {
  uint64_t lo, hi;
};
template <int EB> struct ElemOf;
template <> struct ElemOf<1> { typedef uint8_t __attribute__((may_alias)) T; };
template <> struct ElemOf<2> { typedef uint16_t __attribute__((may_alias)) T; };
template <> struct ElemOf<4> { typedef uint32_t __attribute__((may_alias)) T; };
template <> struct ElemOf<8> { typedef uint64_t __attribute__((may_alias)) T; };
template <> struct ElemOf<16> { typedef Bytes16 T; };

// Copies n elements; strides in elements. Buffers are aligned to the
// element size (literal storage is malloc-aligned, offsets are multiples).
template <int EB>
inline void CopyInner(uint8_t* dst, const uint8_t* src, int64_t n, int64_t ds, int64_t ss) {
  using T = typename ElemOf<EB>::T;
  T* __restrict d = reinterpret_cast<T*>(dst);
  const T* __restrict s = reinterpret_cast<const T*>(src);
  if (ds == 1 && ss == 1) {
    std::memcpy(dst, src, static_cast<size_t>(n) * EB);
  } else if (ds == 1 && ss == 0) {
    if (EB == 1) {
      std::memset(dst, *src, static_cast<size_t>(n));
    } else {
      const T v = *s;
      for (int64_t i = 0; i < n; ++i) d[i] = v;
    }
  } else if (ds == 1 && ss == -1) {
    for (int64_t i = 0; i < n; ++i) d[i] = s[-i];
  } else if (ds == 1) {
    for (int64_t i = 0; i < n; ++i) d[i] = s[i * ss];
  } else {
    for (int64_t i = 0; i < n; ++i) d[i * ds] = s[i * ss];
  }
}

bool KnownElementBytes(int eb) { return eb == 1 || eb == 2 || eb == 4 || eb == 8 || eb == 16; }

}  // namespace

StridedCopy::StridedCopy(int eb, absl::Span<const int64_t> dims,
                         absl::Span<const int64_t> dst_strides,
                         absl::Span<const int64_t> src_strides)
    : eb_(eb) {
  for (size_t i = 0; i < dims.size(); ++i) {
    if (dims[i] == 0) {
      empty_ = true;
      return;
    }
    if (dims[i] == 1) continue;
    if (!dims_.empty() && ds_.back() == dst_strides[i] * dims[i] &&
        ss_.back() == src_strides[i] * dims[i]) {
      dims_.back() *= dims[i];
      ds_.back() = dst_strides[i];
      ss_.back() = src_strides[i];
      continue;
    }
    dims_.push_back(dims[i]);
    ds_.push_back(dst_strides[i]);
    ss_.push_back(src_strides[i]);
  }
  if (dims_.empty()) {  // one element
    dims_.push_back(1);
    ds_.push_back(1);
    ss_.push_back(1);
  }
  inner_ = dims_.back();
  inner_ds_ = ds_.back();
  inner_ss_ = ss_.back();
  dims_.pop_back();
  ds_.pop_back();
  ss_.pop_back();
  // A transposing copy: dst contiguous along the inner dim, src contiguous
  // along an outer one (the innermost such), both at least 8 long.
  if (KnownElementBytes(eb) && inner_ds_ == 1 && inner_ss_ > 1 && inner_ >= 8) {
    for (int i = static_cast<int>(dims_.size()) - 1; i >= 0; --i) {
      if (ss_[i] == 1 && ds_[i] > 0 && dims_[i] >= 8) {
        tile_dim_ = i;
        break;
      }
    }
  }
  rows_ = 1;
  for (int64_t d : dims_) rows_ *= d;
  if (tile_dim_ >= 0) {
    band_rows_ = TransposeBandRows(eb);
    bands_ = (inner_ + band_rows_ - 1) / band_rows_;
    units_ = rows_ / dims_[tile_dim_] * bands_;
    streaming_ = total_bytes() >= kStreamingBytes;
  } else {
    units_ = rows_;
  }
}

void StridedCopy::RunParallel(uint8_t* dst, const uint8_t* src, ParallelRunner run) const {
  if (empty_) return;
  if (total_bytes() < kParallelBytes) {
    RunUnits(dst, src, 0, units_);
    return;
  }
  const int64_t unit_bytes = std::max<int64_t>(1, total_bytes() / units_);
  const int64_t min_block = std::max<int64_t>(1, kBlockBytes / unit_bytes);
  run(units_, min_block, [&](int64_t begin, int64_t end) { RunUnits(dst, src, begin, end); });
}

void StridedCopy::RunUnits(uint8_t* dst, const uint8_t* src, int64_t begin, int64_t end) const {
  if (tile_dim_ >= 0) return RunTransposeUnits(dst, src, begin, end);
  switch (eb_) {
    case 1: return RunUnitsT<1>(dst, src, begin, end);
    case 2: return RunUnitsT<2>(dst, src, begin, end);
    case 4: return RunUnitsT<4>(dst, src, begin, end);
    case 8: return RunUnitsT<8>(dst, src, begin, end);
    case 16: return RunUnitsT<16>(dst, src, begin, end);
    default: return RunUnitsGeneric(dst, src, begin, end);
  }
}

void StridedCopy::RunUnitsGeneric(uint8_t* dst, const uint8_t* src, int64_t begin,
                                  int64_t end) const {
  // Only reached for unusual element sizes; rows one element at a time.
  const int nout = static_cast<int>(dims_.size());
  for (int64_t u = begin; u < end; ++u) {
    int64_t doff = 0, soff = 0, r = u;
    for (int i = nout - 1; i >= 0; --i) {
      const int64_t k = r % dims_[i];
      r /= dims_[i];
      doff += k * ds_[i];
      soff += k * ss_[i];
    }
    for (int64_t j = 0; j < inner_; ++j)
      std::memcpy(dst + (doff + j * inner_ds_) * eb_, src + (soff + j * inner_ss_) * eb_, eb_);
  }
}

template <int EB>
void StridedCopy::RunUnitsT(uint8_t* dst, const uint8_t* src, int64_t begin, int64_t end) const {
  const int nout = static_cast<int>(dims_.size());
  int64_t idx[kStridedCopyMaxRank];
  int64_t doff = 0, soff = 0, r = begin;
  for (int i = nout - 1; i >= 0; --i) {
    idx[i] = r % dims_[i];
    r /= dims_[i];
    doff += idx[i] * ds_[i];
    soff += idx[i] * ss_[i];
  }
  for (int64_t u = begin; u < end; ++u) {
    CopyInner<EB>(dst + doff * EB, src + soff * EB, inner_, inner_ds_, inner_ss_);
    NextRow(nout, idx, doff, soff);
  }
}

// Unit = (index over the outer dims but tile_dim_, band of band_rows_
// along the inner dim): one TransposeCopy of band_rows_ source rows (the
// inner dim) by dims_[tile_dim_] source columns.
void StridedCopy::RunTransposeUnits(uint8_t* dst, const uint8_t* src, int64_t begin,
                                    int64_t end) const {
  const int nout = static_cast<int>(dims_.size());
  const int64_t dst_ld = ds_[tile_dim_], cols = dims_[tile_dim_];
  for (int64_t u = begin; u < end; ++u) {
    int64_t r = u / bands_;
    const int64_t b0 = (u % bands_) * band_rows_;
    int64_t doff = b0, soff = b0 * inner_ss_;
    for (int i = nout - 1; i >= 0; --i) {
      if (i == tile_dim_) continue;
      const int64_t k = r % dims_[i];
      r /= dims_[i];
      doff += k * ds_[i];
      soff += k * ss_[i];
    }
    TransposeCopy(eb_, dst + doff * eb_, dst_ld, src + soff * eb_, inner_ss_,
                  std::min(band_rows_, inner_ - b0), cols, streaming_);
  }
}

}  // namespace hlo
