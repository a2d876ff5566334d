// How a fused computation runs block of rows by block of rows.
//
// The root, of shape [D0, ..., Dk-1, inner...], is split at its first k
// ("outer") dimensions into R = D0 * ... * Dk-1 rows. Every value the root
// needs is then either
//   * a row value (RowRole::kRows): its own first k dimensions are
//     D0..Dk-1 and its row r depends only on row r of its operands, so it is
//     computed for a block of rows while that block sits in cache:
//     elementwise ops, broadcasts that keep the outer dimensions first or
//     add them, single-input reduces of inner dimensions with a typed
//     reducer, reshapes and bitcasts that keep the outer dimensions,
//     transposes, slices and reverses of inner dimensions, iotas; or
//   * a whole value (RowRole::kWhole): computed once at full size before
//     the blocks (parameters, constants, the scalars and vectors that
//     broadcasts spread, the dot of a dot + epilogue fusion, anything an op
//     above reads whole), and read by rows where a row value needs it.
// Softmax, layer norm, GELU and bias + activation epilogues all split; a
// reduction over an outer dimension does not (for that k).
//
// The fusion pass uses the split to decide what to fuse, the executor
// (fusion_exec.h) to run it: one analysis, so -O only makes fusions that
// run by rows.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "ir/computation.h"

namespace hlo::cpu {

enum class RowRole : uint8_t {
  kUnused,  // the root does not need it
  kRows,    // computed per block of rows
  kWhole,   // computed (or given) once at full size
};

struct RowSplit {
  int64_t outer_dims = 0;  // k >= 1
  int64_t rows = 0;        // product of the root's first k dimensions
  std::vector<const Instruction*> outputs;  // the root, or a tuple root's operands
  std::vector<const Instruction*> order;    // post order of the computation
  std::vector<RowRole> role;              // per position in `order`
  // Whole values read by rows (their first k dims are the outer ones).
  std::vector<bool> read_by_rows;
  // Instructions other than parameters and constants computed whole
  // although a user reads them by rows (e.g. a dot under its epilogue).
  std::vector<const Instruction*> whole_under_rows;
};

// The values a fused computation returns: its root, or the operands of a
// tuple root (multi-output fusion; every output is split at the same outer
// dimensions).
std::vector<const Instruction*> FusionOutputs(const Computation& fused);

// Whether `shape` is an array in the default row-major layout without tiles
// or other layout extras (the only arrangement the row kernels handle).
bool IsPlainRowMajor(const Shape& shape);

// The split of `fused` at exactly k outer dimensions, or an error naming the
// instruction that prevents it.
absl::StatusOr<RowSplit> SplitIntoRowsAt(const Computation& fused, int64_t k);

// The best split of `fused`: the fewest instructions computed whole under
// row values, then the most outer dimensions (smaller rows). An error when
// no k >= 1 splits it (tuple or scalar root, layouts, an op read by rows
// that is neither a row op nor computable whole).
absl::StatusOr<RowSplit> SplitIntoRows(const Computation& fused);

// The same for a group of instructions of one computation before it is
// fused: `members` in operands-first order, `root` among them; operands
// outside the group are given whole, like the fused computation's
// parameters (they come first in RowSplit::order); `outputs` are the
// members the fusion returns.
absl::StatusOr<RowSplit> SplitGroupIntoRowsAt(absl::Span<const Instruction* const> members,
                                              absl::Span<const Instruction* const> outputs, int64_t k);
absl::StatusOr<RowSplit> SplitGroupIntoRows(absl::Span<const Instruction* const> members,
                                            absl::Span<const Instruction* const> outputs);

}  // namespace hlo::cpu
