// StridedCopy: a copy over an index space in which every index has a
// destination offset and a source offset, each a linear function of the
// index (strides in elements, possibly 0 or negative), of raw elements of
// any byte size. Broadcast, transpose, slice, reverse, concatenate, pad,
// dynamic-(update-)slice, the slices of gather/scatter and layout changes
// (Literal::Relayout) are all one StridedCopy.
//
// The plan drops size-1 dims and merges dims that are contiguous on both
// sides (inner runs become memcpy). When the destination is contiguous
// along one dim and the source along another, the copy is a batch of 2-D
// transposes and runs the cache-blocked kernel of transpose_kernels.h.
// The work is cut into units (fixed by the plan alone) that write disjoint
// bytes, so any split over threads gives the same result.
#pragma once

#include <cstdint>
#include <vector>

#include "absl/types/span.h"
#include "ir/parallel_runner.h"

namespace hlo {

// Highest rank a StridedCopy accepts (its odometers are fixed arrays).
inline constexpr int kStridedCopyMaxRank = 64;

class StridedCopy {
 public:
  // A copy over the index space `dims` (rank <= kStridedCopyMaxRank):
  // index i goes from src offset sum(i*src_strides) to dst offset
  // sum(i*dst_strides) (elements of `eb` bytes). Distinct indices must
  // have distinct dst offsets.
  StridedCopy(int eb, absl::Span<const int64_t> dims, absl::Span<const int64_t> dst_strides,
              absl::Span<const int64_t> src_strides);

  bool empty() const { return empty_; }
  int64_t total_bytes() const { return empty_ ? 0 : rows_ * inner_ * eb_; }
  // True when the copy runs the blocked transpose kernel.
  bool transposing() const { return tile_dim_ >= 0; }
  // A transposing copy writes whole aligned destination lines with
  // non-temporal stores from 16 MiB up; a caller that copies a large
  // destination piece by piece (each piece below that) asks for them here.
  void set_streaming(bool streaming) { streaming_ = streaming && tile_dim_ >= 0; }

  // Serial copy of the whole index space.
  void Run(uint8_t* dst, const uint8_t* src) const {
    if (!empty_) RunUnits(dst, src, 0, units_);
  }
  // The copy split over `run` when it is large (serially otherwise).
  void RunParallel(uint8_t* dst, const uint8_t* src, ParallelRunner run) const;

  // Calls f(dst_offset, src_offset, n, dst_stride, src_stride) (elements)
  // for every inner run, in row-major order of the index space.
  template <typename F>
  void ForEachRun(F&& f) const {
    if (empty_) return;
    const int nout = static_cast<int>(dims_.size());
    int64_t idx[kStridedCopyMaxRank] = {};
    int64_t doff = 0, soff = 0;
    for (int64_t r = 0; r < rows_; ++r) {
      f(doff, soff, inner_, inner_ds_, inner_ss_);
      NextRow(nout, idx, doff, soff);
    }
  }

 private:
  // Advances the odometer over the outer dims by one row, updating the
  // row's destination and source offsets.
  void NextRow(int nout, int64_t* idx, int64_t& doff, int64_t& soff) const {
    for (int i = nout - 1; i >= 0; --i) {
      doff += ds_[i];
      soff += ss_[i];
      if (++idx[i] < dims_[i]) return;
      doff -= ds_[i] * dims_[i];
      soff -= ss_[i] * dims_[i];
      idx[i] = 0;
    }
  }

  void RunUnits(uint8_t* dst, const uint8_t* src, int64_t begin, int64_t end) const;
  void RunUnitsGeneric(uint8_t* dst, const uint8_t* src, int64_t begin, int64_t end) const;
  template <int EB>
  void RunUnitsT(uint8_t* dst, const uint8_t* src, int64_t begin, int64_t end) const;
  void RunTransposeUnits(uint8_t* dst, const uint8_t* src, int64_t begin, int64_t end) const;

  int eb_;
  bool empty_ = false;
  std::vector<int64_t> dims_, ds_, ss_;  // outer dims (inner one removed)
  int64_t inner_ = 1, inner_ds_ = 1, inner_ss_ = 1;
  // Transposing copies: the outer dim along which the source is contiguous,
  // the number of row bands of the inner dim, and whether the destination
  // gets non-temporal stores.
  int tile_dim_ = -1;
  int64_t bands_ = 0, band_rows_ = 0;
  bool streaming_ = false;
  int64_t rows_ = 0, units_ = 0;
};

}  // namespace hlo
