// Internal to backend_cpu: the compiled form of a fused computation that
// runs by rows (fusion_exec.h), shared by its planner (fusion_plan.cc:
// steps, slots, blocks, chunk runs) and its executor (fusion_exec.cc).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "backend_cpu/elementwise_kernels.h"
#include "backend_cpu/fusion_rows.h"
#include "backend_cpu/reduce_block.h"
#include "ir/literal.h"

namespace hlo::cpu {

class FusionPlan;

namespace rowplan {

constexpr int64_t kAlign = 64;  // scratch slots and blocks start on cache lines
constexpr size_t kChunkMaxInputs = 8;  // operands of a step in a chunk run
constexpr size_t kLeanMaxInputs = 4;   // operands of a step in a lean plan

enum class StepKind : uint8_t {
  kElementwise, kCopy, kSplat, kReduce, kAlias, kInvariantRow, kRowScalar, kIotaOuter
};

struct Step {
  StepKind kind = StepKind::kAlias;
  int out = -1;         // position of the value it computes
  std::vector<int> in;  // positions of its operands
  // kElementwise: the kernel; per operand, the splat (index into
  // FusionPlan::splats) that stands for a scalar operand, or -1.
  ElementwiseKernel kernel = nullptr;
  KernelParams params;
  std::vector<int> splat;
  // Per operand: the position of a whole scalar the kernel reads as one
  // element (a scalar-operand kernel in place of a spread splat), or -1.
  std::vector<int> scalar_of;
  bool per_row = false;  // an operand is an invariant row: run row by row
  // kCopy (broadcast, transpose, slice, reverse): output row r reads the
  // operand at r * src_row_stride + src_base plus, over the merged inner
  // output dims (sizes, outer to inner), index * stride (0: spread,
  // negative: reversed). src_row_stride is 0 for a whole operand.
  int64_t src_row_stride = 0;
  int64_t src_base = 0;  // offset (elements) of the first element read
  std::vector<int64_t> sizes, strides;
  // kCopy of an iota along an inner dimension: reads FusionPlan::sources
  // [source] (its values 0..n-1) instead of an operand. kIotaOuter (an iota
  // along an outer dimension): row r is filled with sources[source]
  // [(r / rows_per_index) % index_count].
  int source = -1;
  int64_t rows_per_index = 1, index_count = 1;
  // kInvariantRow (a broadcast that gives every row the same values, the
  // whole operand, read only by elementwise steps): no copy, the operand
  // itself stands for each row.
  // kRowScalar (a broadcast of one value per row, read only by binary
  // elementwise steps that have a scalar-operand kernel): no copy, the
  // operand's value of row r stands for that whole row.
  // kSplat (a broadcast of a whole scalar): the splat holding its values.
  int splat_index = -1;
  // kReduce: the typed reducer, the operand's dims after the outer ones and
  // the reduced dims counted in a block's dims [m, inner...].
  const Computation* reducer = nullptr;
  PrimitiveType type = PrimitiveType::kInvalid;
  std::vector<int64_t> inner_dims, reduced;
  // Set when every inner dim is reduced: the step folds whole rows of
  // row_reduce_elems elements through this kernel.
  RowReduceFn row_reduce = nullptr;
  int64_t row_reduce_elems = 0;
  // The same fold in pieces (a reduce at the end of a chunk run).
  RowLanes lanes;
};

// A whole scalar spread over a block, for an elementwise operand (clamp's
// and select's scalar forms).
struct Splat {
  int scalar = -1;     // position of the scalar
  int64_t elems = 0;   // elements per row of the step's result
  int64_t offset = 0;  // scratch offset of the spread values
};

// Steps [first, end) computed chunk by chunk: elementwise steps whose
// values all have row_elems elements per row, the pointer-only steps
// between them (row scalars, invariant rows, splats, aliases), and maybe a
// row reduce at the end, folded chunk by chunk (RowLanes). Without a
// row-scalar or invariant-row operand or a reduce, the block is one flat
// range cut into chunks; with one, each row is (its operands change from
// row to row, the reduce's lanes are per row).
// Elementwise kernels compute each element on its own, so the chunking
// changes no value.
struct ChunkRun {
  int first = 0, end = 0;
  int64_t row_elems = 0;
  int64_t chunk_elems = 0;
  bool per_row = false;
};

// A whole value that is a reduction over leading dimensions (the kept
// ones innermost: batch-norm statistics of NHWC activations) of a tree of
// elementwise ops computed only for it, over whole values of its
// operand's dims: the tree is evaluated block of rows by block of rows
// and folded into column accumulators (ColumnFolder), instead of being
// materialized at full size and read again by the reduce op.
struct StreamedReduce {
  int reduce = -1;  // position of the reduce
  int init = -1;    // position of its init value
  ColumnFolder folder;
  int64_t rows = 0, row_elems = 0;  // the operand as [rows, row_elems]
  struct Node {
    int out = -1;
    std::vector<int> in;
    ElementwiseKernel kernel = nullptr;
    KernelParams params;
  };
  std::vector<Node> nodes;  // the tree in post order; the last feeds the reduce
  std::vector<int> leaves;  // whole values the tree reads
};

}  // namespace rowplan

class FusionPlan {
 public:
  RowSplit split;
  std::vector<int64_t> row_elems, elem_bytes;  // per position (row values and whole ones read by rows)
  std::vector<rowplan::Step> steps;            // row ops in post order
  std::vector<int> whole;                      // whole values in post order
  std::vector<std::vector<int>> whole_operands;  // per entry of `whole`: operand positions
  std::vector<int64_t> offset;                 // scratch offset per row value, -1 if none
  std::vector<rowplan::Splat> splats;
  std::vector<Literal> sources;  // iota values (Step::source)
  int64_t block_rows = 1;
  int64_t parallel_rows = 1;  // rows a thread takes at a time: whole blocks
  int64_t scratch_bytes = 0;
  bool tuple_root = false;        // a multi-output fusion (its root is a tuple)
  bool stream_outputs = false;    // outputs go through scratch + streaming stores
  // Every step is an elementwise kernel over whole blocks, a splat or an
  // alias, and every output is computed by an elementwise step (or
  // streamed): blocks then run through RunLeanBlocks, whose per-step cost is
  // a few pointer sums, so blocks can be small enough for the core to
  // overlap one block's memory reads with another's arithmetic.
  bool lean = false;
  std::vector<bool> invariant_row;  // per position: one row stands for all
  std::vector<rowplan::ChunkRun> runs;
  std::vector<int> run_at;          // per step: the index of the run starting there, or -1
  // Per position: its slot holds one chunk of its run (every reader is in
  // that run), at the same offset for every chunk.
  std::vector<bool> chunk_local;
  // Per output: streamed chunk by chunk by the run that computes it (not
  // at the end of the block).
  std::vector<bool> streamed_by_run;
  std::vector<bool> row_scalar;     // per position: one element stands for its row
  std::vector<rowplan::StreamedReduce> streamed_reduces;
  // Per position: the index in streamed_reduces of the reduce it is, or
  // -1; whether it is a node of a streamed tree (not computed whole).
  std::vector<int> streamed_reduce_of;
  std::vector<bool> in_streamed_tree;
  std::vector<int> outputs;       // positions of the fusion's outputs
  std::vector<int> output_index;  // per position: its output number, or -1

  int64_t RowBytes(int p) const { return row_elems[p] * elem_bytes[p]; }
};

namespace rowplan {

// The output a step writes in place (its value is an output and outputs are
// not streamed), or -1.
inline int InPlaceOutput(const FusionPlan& plan, const Step& step) {
  return plan.stream_outputs ? -1 : plan.output_index[step.out];
}

// Bytes of one element of operand j of a step.
inline int64_t OperandBytes(const FusionPlan& plan, const Step& step, size_t j) {
  return PrimitiveTypeByteSize(plan.split.order[step.in[j]]->shape().element_type());
}

}  // namespace rowplan
}  // namespace hlo::cpu
