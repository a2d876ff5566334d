// The typed reduce kernel of ops_reduce.cc on raw row-major storage, for
// callers that reduce a block of rows at a time (fused execution). Same
// association order as the reduce op on the whole array: the order depends
// only on the reduced dimensions, never on the number of kept rows.
#pragma once

#include <cstdint>

#include "absl/types/span.h"
#include "ir/computation.h"
#include "ir/element_type.h"

namespace hlo::cpu {

// Whether ReduceBlock has a typed kernel for `reducer` (a binary op of its
// two parameters: add, multiply, maximum, minimum, and, or, xor) on `type`.
bool ReduceBlockSupported(PrimitiveType type, const Computation* reducer);

// Reduces `in` (row-major, `dims`) over `reduced_dims` into `out` (row-major,
// the kept dimensions), starting every output from the scalar at `init`.
// False when there is no typed kernel or nothing is reduced (a zero-size
// reduced dimension: the caller writes the init values).
bool ReduceBlock(PrimitiveType type, const Computation* reducer, absl::Span<const int64_t> dims,
                 absl::Span<const int64_t> reduced_dims, const void* in, const void* init, void* out);

// A reducer of whole rows: out[r] = the fold of row r (`row_elems`
// contiguous elements) from the scalar at `init`, for r < rows; the same
// order, so the same bits, as ReduceBlock on dims {rows, row_elems}
// reducing dim 1. Resolved once per fused reduce instead of per block.
using RowReduceFn = void (*)(const void* in, const void* init, void* out, int64_t rows, int64_t row_elems);
// Null when ReduceBlock would take another path for such rows: no typed
// kernel, or a bf16/f16 sum or product (XLA's tree order, reduce_tree.h).
RowReduceFn RowReducerFor(PrimitiveType type, const Computation* reducer);

// The same row fold in pieces, for callers that produce a row chunk by
// chunk (fused runs): start(lanes, x, n) with the first piece, add(lanes,
// x, n) with each next one, finish(lanes, init, out) writes the row's
// result. Same bits as the RowReducerFor kernel when the row has
// kRowLanes to RowLanesMaxRow() elements and every piece but the last is
// a multiple of kRowLanes (the first at least kRowLanes). `lanes` is
// kRowLanesBytes of caller storage. All null when the kernel does not
// fold rows in lanes (integer types, bf16/f16 sums).
inline constexpr int64_t kRowLanes = 64;
inline constexpr int64_t kRowLanesBytes = kRowLanes * 8;
struct RowLanes {
  void (*start)(void* lanes, const void* in, int64_t n) = nullptr;
  void (*add)(void* lanes, const void* in, int64_t n) = nullptr;
  void (*finish)(const void* lanes, const void* init, void* out) = nullptr;
};
RowLanes RowLanesFor(PrimitiveType type, const Computation* reducer);
int64_t RowLanesMaxRow();

// A fold of columns, for callers that produce the rows of a reduction over
// the leading dimensions block by block (fused execution): start(acc,
// init, n) sets n accumulators to the init value, fold(acc, in, rows, n)
// folds `rows` rows of n contiguous elements into them, row after row,
// finish(acc, out, n) stores them. The same order, so the same bits, as
// ReduceBlock on dims {rows..., n} reducing the leading ones. `acc` is
// n * kColumnAccBytes of caller storage. All null when ReduceBlock takes
// another order for such a reduction (bf16/f16 sums and products: XLA's
// tree order) or has no typed kernel.
inline constexpr int64_t kColumnAccBytes = 16;
struct ColumnFolder {
  void (*start)(void* acc, const void* init, int64_t n) = nullptr;
  void (*fold)(void* acc, const void* in, int64_t rows, int64_t n) = nullptr;
  void (*finish)(const void* acc, void* out, int64_t n) = nullptr;
};
ColumnFolder ColumnFolderFor(PrimitiveType type, const Computation* reducer);

}  // namespace hlo::cpu
