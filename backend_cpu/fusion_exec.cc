#include "backend_cpu/fusion_exec.h"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <numeric>
#include <vector>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "absl/container/inlined_vector.h"
#include "absl/strings/str_cat.h"
#include "backend_cpu/donation.h"
#include "backend_cpu/elementwise_kernels.h"
#include "backend_cpu/fusion_rows.h"
#include "backend_cpu/fusion_widen_bf16.h"
#include "backend_cpu/reduce_block.h"
#include "backend_cpu/thread_pool.h"

namespace hlo::cpu {
namespace {

// Bytes of row values live at once in one block of rows (slots are shared
// by values whose lifetimes do not overlap): about a core's L1 data cache
// (48 KB on the Xeon measured, 32 KB on the EPYC), so that a step reads
// and writes its block values there rather than in L2. 64 KB against the
// 192 KB sized for L2 before (old and new alternated, 1 thread): GELU 16M
// 1.36x, Adam 1.04x, softmax and layer norm 4096^2 1.04x (with the row
// reducer below; 0.96x without it), gpt2 decode 1.05x.
constexpr int64_t kBlockBytes = 64 << 10;
// The same for lean plans (FusionPlan::lean): their blocks cost little
// to start, and small blocks let the core overlap the memory reads of one
// block with the arithmetic of the previous one. 1 thread, 16M f32, block
// of 2/3/4/6/8/16/64 KB: Adam 36/34/31.5/33/37/39/46 ms, GELU -/22.7/20.6/
// 21.4/20.8/22.4/22.6 ms.
constexpr int64_t kLeanBlockBytes = 4 << 10;
// Rows longer than this (all values of one row together) run op by op: a
// single row would not fit any cache and the scratch would be huge.
constexpr int64_t kMaxRowBytes = 64 << 20;
constexpr int64_t kAlign = 64;
// Shortest invariant row read in place (a kernel call per row); shorter
// ones are copied into every row of the block.
constexpr int64_t kMinInvariantRow = 256;
// Outputs of at least this many bytes in all are written with streaming
// (non-temporal) stores from the block's scratch: they will not be read
// from the cache soon, and plain stores would first read every line of the
// result from memory.
constexpr int64_t kStreamOutputBytes = int64_t{16} << 20;
// Consecutive elementwise steps of a non-lean plan run chunk by chunk
// (ChunkRun): each step on this many bytes of the widest value, then the
// next step on the same chunk, so values read only inside the run live in
// one chunk-sized slot and a layer norm's or softmax's tail stays in L1
// instead of passing whole 16 KB rows (and 64 KB blocks) through L2.
constexpr int64_t kChunkBytes = 4 << 10;
constexpr size_t kChunkMaxInputs = 8;
// Chunk slots are this much longer than a chunk, so that slots of 4 KB
// chunks do not start 4 KB apart: a load from one at the same address
// bits 0-11 as a pending store to another waits for the store (4K
// aliasing; layer norm 4096^2 at 1 thread, median of 10 minimums: 25.8
// ms with aligned slots, 20.8 skewed, noisy machine).
constexpr int64_t kChunkSlotSkew = 256;

int64_t RoundUp(int64_t x) { return (x + kAlign - 1) / kAlign * kAlign; }

enum class StepKind : uint8_t {
  kElementwise, kCopy, kSplat, kReduce, kAlias, kInvariantRow, kRowScalar, kIotaOuter
};

// One row op, run on a block of m rows.
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

}  // namespace

class FusionPlan {
 public:
  RowSplit split;
  std::vector<int64_t> row_elems, elem_bytes;  // per position (row values and whole ones read by rows)
  std::vector<Step> steps;                     // row ops in post order
  std::vector<int> whole;                      // whole values in post order
  std::vector<std::vector<int>> whole_operands;  // per entry of `whole`: operand positions
  std::vector<int64_t> offset;                 // scratch offset per row value, -1 if none
  std::vector<Splat> splats;
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
  std::vector<ChunkRun> runs;
  std::vector<int> run_at;          // per step: the index of the run starting there, or -1
  // Per position: its slot holds one chunk of its run (every reader is in
  // that run), at the same offset for every chunk.
  std::vector<bool> chunk_local;
  // Per output: streamed chunk by chunk by the run that computes it (not
  // at the end of the block).
  std::vector<bool> streamed_by_run;
  std::vector<bool> row_scalar;     // per position: one element stands for its row
  std::vector<int> outputs;       // positions of the fusion's outputs
  std::vector<int> output_index;  // per position: its output number, or -1

  int64_t RowBytes(int p) const { return row_elems[p] * elem_bytes[p]; }
};

namespace {

// Row-major strides of `dims`.
std::vector<int64_t> StridesOf(absl::Span<const int64_t> dims) {
  std::vector<int64_t> s(dims.size(), 1);
  for (int64_t d = static_cast<int64_t>(dims.size()) - 2; d >= 0; --d) s[d] = s[d + 1] * dims[d + 1];
  return s;
}

void SetInnerWalk(const Shape& out, int64_t k, absl::Span<const int64_t> strides, Step* step);

// The strided copy of a broadcast, transpose, slice or reverse: for every
// inner output dim d (from k), the operand stride (0: spread; negative:
// reversed) and the offset of the first element, in the operand's
// row-major strides.
absl::Status MakeCopyStep(const FusionPlan& plan, const Instruction& instr, Step* step) {
  const int64_t k = plan.split.outer_dims;
  const Shape& out = instr.shape();
  const Shape& in = instr.operand(0)->shape();
  const std::vector<int64_t> in_strides = StridesOf(in.dims());
  std::vector<int64_t> strides(out.rank(), 0);
  int64_t base = 0;
  bool keeps_outer = true;  // the operand is read by rows
  switch (instr.opcode()) {
    case Opcode::kBroadcast: {
      // The split allowed two forms: the operand keeps the outer dims first
      // (read by rows) or has none of them (whole, the same for every row).
      const std::vector<int64_t> dims = instr.AttrOr<std::vector<int64_t>>("dimensions", {});
      keeps_outer = in.rank() >= k;
      for (int64_t j = 0; j < k && keeps_outer; ++j) keeps_outer = dims[j] == j;
      for (size_t j = 0; j < dims.size(); ++j) strides[dims[j]] = in_strides[j];
      break;
    }
    case Opcode::kTranspose: {
      const std::vector<int64_t> perm = instr.AttrOr<std::vector<int64_t>>("dimensions", {});
      for (int64_t d = 0; d < out.rank(); ++d) strides[d] = in_strides[perm[d]];
      break;
    }
    case Opcode::kSlice: {
      const SliceRanges& ranges = *instr.GetAttr<SliceRanges>("slice");
      for (int64_t d = 0; d < out.rank(); ++d) {
        strides[d] = ranges[d].stride * in_strides[d];
        base += ranges[d].start * in_strides[d];
      }
      break;
    }
    case Opcode::kReverse: {
      for (int64_t d = 0; d < out.rank(); ++d) strides[d] = in_strides[d];
      for (int64_t d : instr.AttrOr<std::vector<int64_t>>("dimensions", {})) {
        base += (in.dim(d) - 1) * in_strides[d];
        strides[d] = -in_strides[d];
      }
      break;
    }
    default:
      return absl::InternalError(absl::StrCat("no strided copy for ", instr.name()));
  }
  SetInnerWalk(out, k, strides, step);
  int64_t row = 1;
  for (int64_t d = k; d < in.rank(); ++d) row *= in.dim(d);
  step->src_row_stride = keeps_outer ? row : 0;
  step->src_base = base;
  return absl::OkStatus();
}

// An iota by rows. Along an inner dimension every row is the same walk
// over its values 0..n-1 (a strided copy, as a broadcast of them); along
// an outer dimension row r holds its own index there, filled over the row.
absl::Status MakeIotaStep(FusionPlan* plan, const Instruction& instr, Step* step) {
  const int64_t k = plan->split.outer_dims;
  const Shape& out = instr.shape();
  const int64_t d = instr.AttrOr<int64_t>("iota_dimension", -1);
  if (d < 0 || d >= out.rank()) return absl::InvalidArgumentError("iota_dimension out of range");
  std::vector<int64_t> indices(out.dim(d));
  for (int64_t i = 0; i < out.dim(d); ++i) indices[i] = i;
  absl::StatusOr<Literal> values = IotaValues(out.element_type(), indices);
  if (!values.ok()) return values.status();
  step->source = static_cast<int>(plan->sources.size());
  plan->sources.push_back(*std::move(values));
  if (d < k) {
    step->kind = StepKind::kIotaOuter;
    step->index_count = out.dim(d);
    for (int64_t j = d + 1; j < k; ++j) step->rows_per_index *= out.dim(j);
    return absl::OkStatus();
  }
  step->kind = StepKind::kCopy;
  std::vector<int64_t> strides(out.rank(), 0);
  strides[d] = 1;
  SetInnerWalk(out, k, strides, step);
  step->src_row_stride = 0;
  step->src_base = 0;
  return absl::OkStatus();
}

// Step::sizes/strides of a strided copy: the inner output dims (from k)
// with their operand strides, adjacent dims that walk the operand evenly
// merged, size-1 dims dropped.
void SetInnerWalk(const Shape& out, int64_t k, absl::Span<const int64_t> strides, Step* step) {
  for (int64_t d = k; d < out.rank(); ++d) {
    if (out.dim(d) == 1) continue;
    if (!step->sizes.empty() && step->strides.back() == strides[d] * out.dim(d)) {
      step->sizes.back() *= out.dim(d);
      step->strides.back() = strides[d];
    } else {
      step->sizes.push_back(out.dim(d));
      step->strides.push_back(strides[d]);
    }
  }
}

// Per position: the position whose scratch slot holds its rows in a block
// (itself for a step that writes scratch, its operand's holder for an
// alias of it), or -1 (whole values, splats, invariant rows, outputs
// written in place).
std::vector<int> ScratchHolders(const FusionPlan& plan) {
  std::vector<int> holder(plan.row_elems.size(), -1);
  for (const Step& step : plan.steps) {
    const bool in_place = plan.output_index[step.out] >= 0 && !plan.stream_outputs;
    switch (step.kind) {
      case StepKind::kAlias:
      case StepKind::kRowScalar:
        if (!in_place) holder[step.out] = holder[step.in[0]];
        break;
      case StepKind::kSplat:
      case StepKind::kInvariantRow:
        break;
      default:
        if (!in_place) holder[step.out] = step.out;
        break;
    }
  }
  return holder;
}

// Per holder: the index of the last step that reads a value it holds
// (outputs copied out at the end of the block: past the last step; a value
// nobody reads: -1).
std::vector<int> LastUses(const FusionPlan& plan, const std::vector<int>& holder) {
  std::vector<int> last(holder.size(), -1);
  for (size_t j = 0; j < plan.steps.size(); ++j)
    for (int p : plan.steps[j].in)
      if (holder[p] >= 0) last[holder[p]] = static_cast<int>(j);
  if (plan.stream_outputs)
    for (int p : plan.outputs)
      if (holder[p] >= 0) last[holder[p]] = static_cast<int>(plan.steps.size());
  return last;
}

// Gives every holder a scratch offset, in step order: a step's slot is taken
// before its operands' slots are released (a kernel never writes over its
// own operands), and a released slot goes to the next value that fits in it.
// Returns the offsets per position (-1: no slot) and sets *end to the bytes
// used.
template <typename SizeOf>
std::vector<int64_t> AssignSlots(const FusionPlan& plan, const std::vector<int>& holder,
                                 const std::vector<int>& last_use, SizeOf size_of, int64_t* end) {
  std::vector<int64_t> offset(holder.size(), -1);
  std::vector<std::pair<int64_t, int64_t>> free_slots;  // (size, offset)
  std::vector<std::vector<int>> released_after(plan.steps.size());
  *end = 0;
  for (size_t j = 0; j < plan.steps.size(); ++j) {
    const int p = plan.steps[j].out;
    if (holder[p] == p) {
      const int64_t size = size_of(p);
      auto best = free_slots.end();
      for (auto it = free_slots.begin(); it != free_slots.end(); ++it)
        if (it->first >= size && (best == free_slots.end() || it->first < best->first)) best = it;
      if (best != free_slots.end()) {
        offset[p] = best->second;
        free_slots.erase(best);
      } else {
        offset[p] = *end;
        *end += size;
      }
      const int last = std::max(last_use[p], static_cast<int>(j));
      if (last < static_cast<int>(plan.steps.size())) released_after[last].push_back(p);
    }
    for (int q : released_after[j]) free_slots.emplace_back(size_of(q), offset[q]);
  }
  return offset;
}

// Broadcasts of one value per row (row max, mean, variance, sum spread
// over the row) read only as an operand of binary elementwise steps with a
// scalar-operand kernel: no spread copy, those steps run row by row with
// the row's value as their scalar operand (same bits). Rows shorter than
// kMinInvariantRow keep the copy: a kernel call per row would cost more.
void MarkRowScalars(FusionPlan* plan, const absl::flat_hash_map<const Instruction*, int>& position,
                    const std::vector<int>& step_of) {
  const RowSplit& s = plan->split;
  plan->row_scalar.assign(s.order.size(), false);
  // A step reads at most one row scalar: its kernel has one scalar slot.
  std::vector<bool> has_row_scalar(plan->steps.size(), false);
  for (Step& step : plan->steps) {
    if (step.kind != StepKind::kCopy || step.source >= 0 || step.src_row_stride != 1 || step.src_base != 0 ||
        step.sizes.size() != 1 || step.strides[0] != 0 || step.sizes[0] != plan->row_elems[step.out] ||
        plan->row_elems[step.in[0]] != 1 || plan->row_elems[step.out] < kMinInvariantRow ||
        plan->output_index[step.out] >= 0)
      continue;
    // Every reader: a binary elementwise step reading it once, with a
    // scalar kernel for that operand slot.
    std::vector<std::pair<Step*, ElementwiseKernel>> readers;
    bool ok = true;
    for (const Instruction* u : s.order[step.out]->users()) {
      const int j = step_of[position.at(u)];
      Step* reader = j >= 0 ? &plan->steps[j] : nullptr;
      if (reader == nullptr || reader->kind != StepKind::kElementwise || reader->in.size() != 2 ||
          reader->in[0] == reader->in[1] || reader->scalar_of[0] >= 0 || reader->scalar_of[1] >= 0 ||
          has_row_scalar[j]) {
        ok = false;
        break;
      }
      const int slot = reader->in[0] == step.out ? 0 : 1;
      const ElementwiseKernel k =
          SelectScalarOperandKernel(u->opcode(), u->shape().element_type(), slot);
      if (k == nullptr || reader->splat[1 - slot] >= 0 || u->operand(0)->shape().element_type() !=
                                                             u->shape().element_type()) {
        ok = false;
        break;
      }
      readers.emplace_back(reader, k);
    }
    if (!ok || readers.empty()) continue;
    step.kind = StepKind::kRowScalar;
    plan->row_scalar[step.out] = true;
    for (auto& [reader, kernel] : readers) {
      reader->kernel = kernel;
      has_row_scalar[reader - plan->steps.data()] = true;
    }
  }
}

constexpr size_t kLeanMaxInputs = 4;

bool IsLean(const FusionPlan& plan) {
  for (const Step& step : plan.steps) {
    const bool output = !plan.stream_outputs && plan.output_index[step.out] >= 0;
    switch (step.kind) {
      case StepKind::kElementwise:
        if (step.per_row || step.in.size() > kLeanMaxInputs) return false;
        break;
      case StepKind::kSplat:
      case StepKind::kAlias:
        if (output) return false;  // would need a copy into the result
        break;
      default:
        return false;
    }
  }
  return true;
}

// The output a step writes in place (its value is an output and outputs are
// not streamed), or -1.
int InPlaceOutput(const FusionPlan& plan, const Step& step) {
  return plan.stream_outputs ? -1 : plan.output_index[step.out];
}

// Whether a reduce step can end a chunk run of rows of row_elems
// elements: it folds whole rows of them in lanes (RowLanes), which the
// chunks, multiples of kRowLanes, cut where the whole-row fold would.
bool ReduceEndsChunkRun(const FusionPlan& plan, const Step& step, int64_t row_elems) {
  return step.kind == StepKind::kReduce && step.row_reduce != nullptr && step.lanes.start != nullptr &&
         row_elems >= kRowLanes && row_elems <= RowLanesMaxRow() && plan.row_elems[step.in[0]] == row_elems &&
         step.row_reduce_elems == row_elems;
}

// Whether `step` can join a chunk run whose rows have *row_elems elements
// (0 until an elementwise step fixes it): pointer-only steps (no copy into
// the result), and elementwise steps whose result and array operands have
// row_elems elements per row.
bool JoinsChunkRun(const FusionPlan& plan, const Step& step, int64_t* row_elems) {
  switch (step.kind) {
    case StepKind::kRowScalar:
    case StepKind::kInvariantRow:
      return true;
    case StepKind::kSplat:
    case StepKind::kAlias:
      return InPlaceOutput(plan, step) < 0;
    case StepKind::kElementwise:
      break;
    case StepKind::kReduce:
      return ReduceEndsChunkRun(plan, step, *row_elems);
    default:
      return false;
  }
  const int64_t r = plan.row_elems[step.out];
  if ((*row_elems != 0 && r != *row_elems) || step.in.size() > kChunkMaxInputs) return false;
  for (size_t j = 0; j < step.in.size(); ++j) {
    const int p = step.in[j];
    if (step.scalar_of[j] >= 0 || step.splat[j] >= 0 || plan.invariant_row[p] || plan.row_scalar[p]) continue;
    if (plan.row_elems[p] != r) return false;
  }
  *row_elems = r;
  return true;
}

// Bytes of one element of operand j of a step.
int64_t OperandBytes(const FusionPlan& plan, const Step& step, size_t j) {
  return PrimitiveTypeByteSize(plan.split.order[step.in[j]]->shape().element_type());
}

// Finds the chunk runs of a non-lean plan (runs of at least two
// elementwise steps, or one that streams an output), marks the values that need only a chunk-sized slot
// (every reader in their run; a streamed output is copied out chunk by
// chunk) and takes them out of `slot_holder` (the block slots). Values
// read inside a run keep their block slot to the run's end: a chunk of a
// wider value written later in the run must not land on a chunk not yet
// read. (AssignSlots only hands a freed slot to a value no larger than the
// one that held it, which with equal row lengths is never wider; this
// keeps the run safe whatever the slot policy.)
void FindChunkRuns(FusionPlan* plan, const std::vector<int>& holder, std::vector<int>* last_use,
                   std::vector<int>* slot_holder) {
  const int num_steps = static_cast<int>(plan->steps.size());
  const int n = static_cast<int>(holder.size());
  plan->run_at.assign(num_steps, -1);
  plan->chunk_local.assign(n, false);
  plan->streamed_by_run.assign(plan->outputs.size(), false);
  if (plan->lean) return;
  std::vector<int> last_reader(n, -1);
  std::vector<std::vector<int>> held(n);  // per holder: the positions it holds
  for (int j = 0; j < num_steps; ++j)
    for (int p : plan->steps[j].in)
      if (holder[p] >= 0) last_reader[holder[p]] = j;
  for (int q = 0; q < n; ++q)
    if (holder[q] >= 0) held[holder[q]].push_back(q);
  for (int first = 0; first < num_steps;) {
    int64_t row_elems = 0;
    int end = first, elementwise = 0;
    // A reduce ends its run: its result is complete only after the row's
    // last chunk, so nothing in the run may read it.
    bool reduces = false;
    for (; end < num_steps && !reduces && JoinsChunkRun(*plan, plan->steps[end], &row_elems); ++end) {
      elementwise += plan->steps[end].kind == StepKind::kElementwise;
      reduces = plan->steps[end].kind == StepKind::kReduce;
    }
    const int next = end > first ? end : first + 1;
    if (elementwise == 0) {
      first = next;
      continue;
    }
    ChunkRun run{first, end, row_elems, 0, reduces};
    int64_t widest = 1;
    for (int j = first; j < end; ++j) {
      const Step& step = plan->steps[j];
      if (step.kind != StepKind::kElementwise) continue;
      run.per_row |= step.per_row;
      widest = std::max(widest, plan->elem_bytes[step.out]);
      for (size_t k = 0; k < step.in.size(); ++k) widest = std::max(widest, OperandBytes(*plan, step, k));
    }
    // A multiple of 64 elements: chunks of a block start on whole cache lines.
    run.chunk_elems = std::max<int64_t>(64, kChunkBytes / widest / 64 * 64);
    std::vector<int> local;  // values of the run that need only a chunk slot
    bool streams = false;
    for (int j = first; j < end; ++j) {
      const Step& step = plan->steps[j];
      const int p = step.out;
      if (step.kind != StepKind::kElementwise || holder[p] != p || last_reader[p] >= end) continue;
      bool streamed = false, kept = false;
      for (int q : held[p]) {
        if (plan->output_index[q] < 0) continue;
        (q == p && plan->stream_outputs ? streamed : kept) = true;
      }
      if (kept) continue;
      local.push_back(p);
      streams |= streamed;
    }
    // One step alone gains from chunks only when it streams its output.
    if (elementwise < 2 && !streams) {
      first = next;
      continue;
    }
    for (int p : local) {
      for (int q : held[p]) plan->chunk_local[q] = true;
      (*slot_holder)[p] = -1;
      if (plan->output_index[p] >= 0) plan->streamed_by_run[plan->output_index[p]] = true;
    }
    for (int h = 0; h < n; ++h)
      if (!plan->chunk_local[h] && (*last_use)[h] >= first && (*last_use)[h] < end) (*last_use)[h] = end - 1;
    plan->run_at[first] = static_cast<int>(plan->runs.size());
    plan->runs.push_back(run);
    first = next;
  }
}

// Gives each run's chunk-local values chunk-sized slots after `base`
// (shared within the run as AssignSlots shares block slots; every run
// reuses the same area) and returns the area's bytes.
int64_t AssignChunkSlots(FusionPlan* plan, const std::vector<int>& last_use, int64_t base) {
  int64_t area = 0;
  for (const ChunkRun& run : plan->runs) {
    std::vector<int> run_holder(plan->chunk_local.size(), -1);
    for (int j = run.first; j < run.end; ++j) {
      const Step& step = plan->steps[j];
      if (step.kind == StepKind::kElementwise && plan->chunk_local[step.out]) run_holder[step.out] = step.out;
    }
    int64_t end = 0;
    const std::vector<int64_t> offsets = AssignSlots(
        *plan, run_holder, last_use,
        [&](int p) { return RoundUp(run.chunk_elems * plan->elem_bytes[p]) + kChunkSlotSkew; }, &end);
    for (size_t p = 0; p < offsets.size(); ++p)
      if (run_holder[p] >= 0) plan->offset[p] = base + offsets[p];
    area = std::max(area, end);
  }
  return area;
}

// `rows` rounded down to a whole number of cache lines of every output
// (when that leaves at least one line): a block boundary inside a line
// makes two blocks write parts of one line, with streaming stores a
// partial-line write to memory each time (Adam 16M: 44 -> 40 ms), and
// across threads false sharing.
int64_t WholeLineRows(const FusionPlan& plan, int64_t rows) {
  int64_t unit = 1;
  for (int p : plan.outputs) {
    const int64_t bytes = plan.RowBytes(p);
    if (bytes <= 0) continue;
    const int64_t need = kAlign / std::gcd(kAlign, bytes);  // rows per whole line
    unit = std::lcm(unit, need);
  }
  if (unit > kAlign || rows < unit) return rows;
  return rows / unit * unit;
}

}  // namespace

absl::StatusOr<std::unique_ptr<FusionPlan>> MakeFusionPlan(const Computation& fused) {
  absl::StatusOr<RowSplit> split = SplitIntoRows(fused);
  if (!split.ok()) return split.status();
  auto plan = std::make_unique<FusionPlan>();
  plan->split = std::move(*split);
  const RowSplit& s = plan->split;
  const int n = static_cast<int>(s.order.size());
  const int64_t k = s.outer_dims;
  absl::flat_hash_map<const Instruction*, int> position;
  for (int i = 0; i < n; ++i) position[s.order[i]] = i;
  plan->tuple_root = fused.root()->opcode() == Opcode::kTuple;
  plan->output_index.assign(n, -1);
  for (const Instruction* o : s.outputs) {
    const int p = position[o];
    if (s.role[p] != RowRole::kRows) return absl::InvalidArgumentError("an output is not a row op");
    if (plan->output_index[p] >= 0) return absl::InvalidArgumentError("an output returned twice");
    plan->output_index[p] = static_cast<int>(plan->outputs.size());
    plan->outputs.push_back(p);
  }
  if (s.rows <= 0) return absl::InvalidArgumentError("no rows");
  plan->row_elems.assign(n, 0);
  plan->elem_bytes.assign(n, 0);
  plan->offset.assign(n, -1);
  int64_t bytes_per_row = 0;
  for (int i = 0; i < n; ++i) {
    if (s.role[i] != RowRole::kRows && !s.read_by_rows[i]) continue;
    const Shape& shape = s.order[i]->shape();
    int64_t e = 1;
    for (int64_t d = k; d < shape.rank(); ++d) e *= shape.dim(d);
    if (e <= 0) return absl::InvalidArgumentError("a row value has no elements");
    plan->row_elems[i] = e;
    plan->elem_bytes[i] = PrimitiveTypeByteSize(shape.element_type());
    if (plan->elem_bytes[i] <= 0) return absl::InvalidArgumentError("an element type without a byte size");
  }
  // Per position: the whole scalar a kSplat step spreads, or -1.
  std::vector<int> splat_scalar(n, -1);
  for (int i = 0; i < n; ++i) {
    const Instruction& instr = *s.order[i];
    if (s.role[i] == RowRole::kWhole) {
      plan->whole.push_back(i);
      std::vector<int>& ops = plan->whole_operands.emplace_back();
      for (const Instruction* o : instr.operands()) ops.push_back(position[o]);
      continue;
    }
    if (s.role[i] != RowRole::kRows) continue;
    Step step;
    step.out = i;
    for (const Instruction* o : instr.operands()) step.in.push_back(position[o]);
    const Opcode op = instr.opcode();
    if (IsElementwise(op)) {
      step.kind = StepKind::kElementwise;
      absl::StatusOr<ElementwiseAttrs> attrs = ElementwiseAttrsOf(instr);
      if (!attrs.ok()) return attrs.status();
      std::vector<PrimitiveType> types;
      for (const Instruction* o : instr.operands()) types.push_back(o->shape().element_type());
      absl::StatusOr<ElementwiseKernel> kernel =
          SelectElementwiseKernel(op, types, instr.shape().element_type(), *attrs);
      if (!kernel.ok()) return kernel.status();
      step.kernel = *kernel;
      step.params = attrs->params();
      step.scalar_of.assign(step.in.size(), -1);
      // A binary op with one operand a spread scalar reads the scalar
      // itself when it has a scalar-operand kernel (same bits).
      if (step.in.size() == 2 && types[0] == instr.shape().element_type() && types[1] == types[0])
        for (int j = 0; j < 2; ++j) {
          if (splat_scalar[step.in[j]] < 0 || splat_scalar[step.in[1 - j]] >= 0) continue;
          if (ElementwiseKernel k = SelectScalarOperandKernel(op, types[0], j)) {
            step.kernel = k;
            step.scalar_of[j] = splat_scalar[step.in[j]];
          }
          break;
        }
      for (size_t j = 0; j < step.in.size(); ++j) {
        const int p = step.in[j];
        if (s.role[p] == RowRole::kWhole && s.order[p]->shape().rank() == 0 && instr.shape().rank() != 0) {
          step.splat.push_back(static_cast<int>(plan->splats.size()));
          plan->splats.push_back(Splat{p, plan->row_elems[i], 0});
          bytes_per_row += plan->row_elems[i] * PrimitiveTypeByteSize(s.order[p]->shape().element_type());
        } else {
          step.splat.push_back(-1);
        }
      }
    } else if (op == Opcode::kBroadcast && s.role[step.in[0]] == RowRole::kWhole &&
               s.order[step.in[0]]->shape().rank() == 0) {
      // A scalar spread over the rows: filled once per run and thread, not
      // per block.
      step.kind = StepKind::kSplat;
      splat_scalar[i] = step.in[0];
      step.splat_index = static_cast<int>(plan->splats.size());
      plan->splats.push_back(Splat{step.in[0], plan->row_elems[i], 0});
      bytes_per_row += plan->RowBytes(i);
    } else if (op == Opcode::kBroadcast || op == Opcode::kTranspose || op == Opcode::kSlice ||
               op == Opcode::kReverse) {
      step.kind = StepKind::kCopy;
      if (absl::Status st = MakeCopyStep(*plan, instr, &step); !st.ok()) return st;
    } else if (op == Opcode::kReduce) {
      step.kind = StepKind::kReduce;
      step.reducer = instr.AttrOr<Computation*>("to_apply", nullptr);
      step.type = instr.shape().element_type();
      const Shape& in = instr.operand(0)->shape();
      step.inner_dims.assign(in.dims().begin() + k, in.dims().end());
      for (int64_t d : instr.AttrOr<std::vector<int64_t>>("dimensions", {})) {
        if (in.dim(d) == 0) return absl::InvalidArgumentError("a reduce over a zero-size dimension");
        step.reduced.push_back(d - k + 1);
      }
      std::sort(step.reduced.begin(), step.reduced.end());
      if (step.reduced.size() == step.inner_dims.size()) {  // reduced = {1..inner}: whole rows
        step.row_reduce = RowReducerFor(step.type, step.reducer);
        step.lanes = RowLanesFor(step.type, step.reducer);
        step.row_reduce_elems = 1;
        for (int64_t d : step.inner_dims) step.row_reduce_elems *= d;
      }
    } else if (op == Opcode::kIota) {
      if (absl::Status st = MakeIotaStep(plan.get(), instr, &step); !st.ok()) return st;
    } else if (op == Opcode::kReshape || op == Opcode::kBitcast) {
      step.kind = StepKind::kAlias;
    } else {
      return absl::InternalError(absl::StrCat("no row kernel for ", instr.name()));
    }
    plan->steps.push_back(std::move(step));
  }
  // Rows that are the same whole vector for every row (bias, gamma, beta)
  // are not copied into each row when only elementwise steps read them
  // and the rows are long enough for a kernel call per row.
  std::vector<int> step_of(n, -1);
  for (size_t j = 0; j < plan->steps.size(); ++j) step_of[plan->steps[j].out] = static_cast<int>(j);
  plan->invariant_row.assign(n, false);
  for (Step& step : plan->steps) {
    if (step.kind != StepKind::kCopy || step.src_row_stride != 0 || step.src_base != 0 ||
        step.sizes.size() != 1 || step.strides[0] != 1 || step.sizes[0] != plan->row_elems[step.out] ||
        plan->row_elems[step.out] < kMinInvariantRow || plan->output_index[step.out] >= 0)
      continue;
    bool elementwise_users = true;
    for (const Instruction* u : s.order[step.out]->users()) {
      const int j = step_of[position[u]];
      elementwise_users &= j >= 0 && plan->steps[j].kind == StepKind::kElementwise;
    }
    if (!elementwise_users) continue;
    step.kind = StepKind::kInvariantRow;
    plan->invariant_row[step.out] = true;
  }
  MarkRowScalars(plan.get(), position, step_of);
  for (Step& step : plan->steps)
    if (step.kind == StepKind::kElementwise)
      for (int p : step.in) step.per_row |= plan->invariant_row[p] || plan->row_scalar[p];
  int64_t output_bytes = 0;
  for (int p : plan->outputs) output_bytes += plan->RowBytes(p) * s.rows;
  plan->stream_outputs = output_bytes >= kStreamOutputBytes;
  // Row values share scratch slots when their lifetimes do not overlap, so
  // a block's working set is the values live at once, not all of them.
  const std::vector<int> holder = ScratchHolders(*plan);
  std::vector<int> last_use = LastUses(*plan, holder);
  plan->lean = IsLean(*plan);
  std::vector<int> slot_holder = holder;  // the values with a block slot
  FindChunkRuns(plan.get(), holder, &last_use, &slot_holder);
  int64_t live_row_bytes = 0;
  AssignSlots(*plan, slot_holder, last_use, [&plan](int p) { return plan->RowBytes(p); }, &live_row_bytes);
  bytes_per_row += live_row_bytes;
  if (!plan->stream_outputs)
    for (int p : plan->outputs) bytes_per_row += plan->RowBytes(p);  // written through the cache
  if (bytes_per_row > kMaxRowBytes) return absl::InvalidArgumentError("rows too long to block");
  const int64_t row_bytes = std::max<int64_t>(1, bytes_per_row);
  plan->block_rows = WholeLineRows(
      *plan, std::clamp<int64_t>((plan->lean ? kLeanBlockBytes : kBlockBytes) / row_bytes, 1, s.rows));
  // Threads take kBlockBytes worth of rows at a time whatever the block:
  // small lean blocks would otherwise send fusions of a few KB to the pool.
  const int64_t parallel_rows = std::clamp<int64_t>(kBlockBytes / row_bytes, 1, s.rows);
  plan->parallel_rows = std::max<int64_t>(1, parallel_rows / plan->block_rows) * plan->block_rows;
  int64_t at = 0;
  plan->offset = AssignSlots(
      *plan, slot_holder, last_use, [&plan](int p) { return RoundUp(plan->RowBytes(p) * plan->block_rows); }, &at);
  for (Splat& sp : plan->splats) {
    sp.offset = at;
    at += RoundUp(sp.elems * plan->block_rows *
                  PrimitiveTypeByteSize(s.order[sp.scalar]->shape().element_type()));
  }
  at += AssignChunkSlots(plan.get(), last_use, at);
  plan->scratch_bytes = at;
  return plan;
}

namespace {

// Per-thread scratch, kept between runs (no allocation or page faults per
// block). A block loop never nests inside another on the same thread: row
// ops call no computations.
uint8_t* ThreadScratch(int64_t bytes) {
  thread_local std::vector<uint8_t> buffer;
  if (static_cast<int64_t>(buffer.size()) < bytes + kAlign) buffer.resize(bytes + kAlign);
  const uintptr_t p = reinterpret_cast<uintptr_t>(buffer.data());
  return reinterpret_cast<uint8_t*>((p + kAlign - 1) / kAlign * kAlign);
}

template <int B>
struct Elem {
  uint8_t b[B];
};

template <int B>
void FillElems(uint8_t* dst, const uint8_t* value, int64_t count) {
  if constexpr (B == 1) {
    std::memset(dst, *value, count);
  } else if constexpr (B == 2 || B == 4 || B == 8) {
    using U = std::conditional_t<B == 2, uint16_t, std::conditional_t<B == 4, uint32_t, uint64_t>>;
    U v;
    std::memcpy(&v, value, B);
    U* d = reinterpret_cast<U*>(dst);
    std::fill(d, d + count, v);
  } else {
    for (int64_t i = 0; i < count; ++i) std::memcpy(dst + i * B, value, B);
  }
}

// dst (contiguous) <- src walked over dims [d, end) of (sizes, strides).
template <int B>
uint8_t* SpreadDims(uint8_t* dst, const uint8_t* src, const int64_t* sizes, const int64_t* strides, int dims) {
  if (dims == 0) {
    std::memcpy(dst, src, B);
    return dst + B;
  }
  if (dims == 1) {
    const int64_t n = sizes[0], st = strides[0];
    if (st == 1) {
      std::memcpy(dst, src, n * B);
    } else if (st == 0) {
      FillElems<B>(dst, src, n);
    } else {
      for (int64_t i = 0; i < n; ++i) std::memcpy(dst + i * B, src + i * st * B, B);
    }
    return dst + n * B;
  }
  for (int64_t i = 0; i < sizes[0]; ++i)
    dst = SpreadDims<B>(dst, src + i * strides[0] * B, sizes + 1, strides + 1, dims - 1);
  return dst;
}

template <int B>
void Spread(const Step& s, uint8_t* dst, const uint8_t* src, int64_t m) {
  const int dims = static_cast<int>(s.sizes.size());
  for (int64_t r = 0; r < m; ++r)
    dst = SpreadDims<B>(dst, src + r * s.src_row_stride * B, s.sizes.data(), s.strides.data(), dims);
}

void SpreadAny(int64_t bytes, const Step& s, uint8_t* dst, const uint8_t* src, int64_t m) {
  switch (bytes) {
    case 1: return Spread<1>(s, dst, src, m);
    case 2: return Spread<2>(s, dst, src, m);
    case 4: return Spread<4>(s, dst, src, m);
    case 8: return Spread<8>(s, dst, src, m);
    case 16: return Spread<16>(s, dst, src, m);
    default: return;  // refused when planning
  }
}

// memcpy with non-temporal stores for the aligned middle (SSE2).
void StreamCopy(uint8_t* dst, const uint8_t* src, int64_t bytes) {
#if defined(__SSE2__)
  const int64_t head = std::min<int64_t>(bytes, (16 - reinterpret_cast<uintptr_t>(dst) % 16) % 16);
  std::memcpy(dst, src, head);
  dst += head;
  src += head;
  bytes -= head;
  for (; bytes >= 64; bytes -= 64, dst += 64, src += 64) {
    const __m128i a = _mm_loadu_si128(reinterpret_cast<const __m128i*>(src));
    const __m128i b = _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + 16));
    const __m128i c = _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + 32));
    const __m128i d = _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + 48));
    _mm_stream_si128(reinterpret_cast<__m128i*>(dst), a);
    _mm_stream_si128(reinterpret_cast<__m128i*>(dst + 16), b);
    _mm_stream_si128(reinterpret_cast<__m128i*>(dst + 32), c);
    _mm_stream_si128(reinterpret_cast<__m128i*>(dst + 48), d);
  }
  for (; bytes >= 16; bytes -= 16, dst += 16, src += 16)
    _mm_stream_si128(reinterpret_cast<__m128i*>(dst), _mm_loadu_si128(reinterpret_cast<const __m128i*>(src)));
#endif
  std::memcpy(dst, src, bytes);
}

// Orders the streaming stores before whatever the thread does next.
void StreamFence() {
#if defined(__SSE2__)
  _mm_sfence();
#endif
}

void FillAny(int64_t bytes, uint8_t* dst, const uint8_t* value, int64_t count) {
  switch (bytes) {
    case 1: return FillElems<1>(dst, value, count);
    case 2: return FillElems<2>(dst, value, count);
    case 4: return FillElems<4>(dst, value, count);
    case 8: return FillElems<8>(dst, value, count);
    default:
      for (int64_t i = 0; i < count; ++i) std::memcpy(dst + i * bytes, value, bytes);
  }
}

// Rows r0 .. r0+m-1 of an iota along an outer dimension: row r holds
// values[(r / rows_per_index) % index_count]. Rows of one element that
// each take the next index (the iota along the last outer dimension of
// an elementwise fusion split into one-element rows) are copies of runs of
// the values; otherwise rows with the same index are one fill.
void FillIotaRows(const Step& step, const Literal& values, int64_t row_elems, int64_t r0, int64_t m,
                  uint8_t* dst) {
  const int64_t bytes = values.element_bytes();
  if (row_elems == 1 && step.rows_per_index == 1) {
    for (int64_t r = r0; r < r0 + m;) {
      const int64_t index = r % step.index_count;
      const int64_t run = std::min(r0 + m - r, step.index_count - index);
      std::memcpy(dst + (r - r0) * bytes, values.data() + index * bytes, run * bytes);
      r += run;
    }
    return;
  }
  for (int64_t r = r0; r < r0 + m;) {
    const int64_t index = (r / step.rows_per_index) % step.index_count;
    const int64_t run = std::min(r0 + m, (r / step.rows_per_index + 1) * step.rows_per_index) - r;
    FillAny(bytes, dst + (r - r0) * row_elems * bytes, values.data() + index * bytes, run * row_elems);
    r += run;
  }
}

// Where a row value's block starts: base + r0 * stride for the block of
// rows from r0 (stride 0: a scratch slot, the same for every block).
struct RowRef {
  const uint8_t* base = nullptr;
  int64_t stride = 0;
  uint8_t* At(int64_t r0) const { return const_cast<uint8_t*>(base) + r0 * stride; }
};

// Operand j of an elementwise step when it is the same for every block:
// one element of a whole value (a scalar-operand kernel) or a splat in the
// thread's scratch; nullptr when it is a row value read block by block.
const uint8_t* FixedOperand(const FusionPlan& plan, const Step& step, size_t j,
                            absl::Span<const Literal* const> whole, const uint8_t* scratch) {
  if (step.scalar_of[j] >= 0) return whole[step.scalar_of[j]]->data();
  if (step.splat[j] >= 0) return scratch + plan.splats[step.splat[j]].offset;
  return nullptr;
}

// Where a step writes its block: in place in the result (InPlaceOutput),
// else its scratch slot.
RowRef DestinationOf(const FusionPlan& plan, const Step& step, absl::Span<uint8_t* const> out_data,
                     uint8_t* scratch) {
  const int out_index = InPlaceOutput(plan, step);
  return out_index >= 0 ? RowRef{out_data[out_index], plan.RowBytes(step.out)}
                        : RowRef{scratch + plan.offset[step.out], 0};
}

// Where a chunk of a value starts: base + flat * per_elem + row * per_row +
// column * per_column bytes, for the chunk at flat element `flat` of the
// block, in row `row`, at column `column` of the row.
struct ChunkPointer {
  const uint8_t* base = nullptr;
  int64_t per_elem = 0, per_row = 0, per_column = 0;
  const uint8_t* At(int64_t flat, int64_t row, int64_t column) const {
    return base + flat * per_elem + row * per_row + column * per_column;
  }
};

// The chunk pointer of value p whose block starts at `base`.
ChunkPointer ChunkPointerOf(const FusionPlan& plan, int p, const uint8_t* base) {
  const int64_t bytes = plan.elem_bytes[p];
  if (plan.chunk_local[p]) return {base, 0, 0, 0};
  if (plan.row_scalar[p]) return {base, 0, bytes, 0};
  if (plan.invariant_row[p]) return {base, 0, 0, bytes};
  return {base, bytes, 0, 0};
}

// Runs the steps of `run` on the block of m rows from r0, chunk by chunk,
// and streams out the outputs it computes chunk by chunk. Sets ptr[] of
// the values it computes to where their block (or chunk slot) starts.
void RunChunkRun(const FusionPlan& plan, const ChunkRun& run, absl::Span<const Literal* const> whole,
                 absl::Span<uint8_t* const> out_data, uint8_t* scratch, int64_t r0, int64_t m,
                 absl::Span<const uint8_t*> ptr) {
  struct ChunkStep {
    const Step* step;
    absl::InlinedVector<ChunkPointer, 3> in;
    ChunkPointer out;
    const uint8_t* init = nullptr;  // a reduce's initial value
  };
  alignas(64) uint8_t lanes[kRowLanesBytes];  // the reduce's lanes (one per run, at its end)
  absl::InlinedVector<ChunkStep, 16> steps;
  absl::InlinedVector<int, 2> streamed;  // outputs copied out after each chunk
  for (int j = run.first; j < run.end; ++j) {
    const Step& step = plan.steps[j];
    switch (step.kind) {
      case StepKind::kRowScalar:
      case StepKind::kAlias:
        ptr[step.out] = ptr[step.in[0]];
        continue;
      case StepKind::kInvariantRow:
        ptr[step.out] = step.source >= 0 ? plan.sources[step.source].data() : whole[step.in[0]]->data();
        continue;
      case StepKind::kSplat:
        ptr[step.out] = scratch + plan.splats[step.splat_index].offset;
        continue;
      case StepKind::kReduce: {
        uint8_t* dst = DestinationOf(plan, step, out_data, scratch).At(r0);
        ptr[step.out] = dst;
        ChunkStep c{&step, {ChunkPointerOf(plan, step.in[0], ptr[step.in[0]])}, {dst, 0, plan.elem_bytes[step.out], 0},
                    whole[step.in[1]]->data()};
        steps.push_back(std::move(c));
        continue;
      }
      default:
        break;
    }
    uint8_t* dst = DestinationOf(plan, step, out_data, scratch).At(r0);
    ptr[step.out] = dst;
    ChunkStep c{&step, {}, ChunkPointerOf(plan, step.out, dst)};
    for (size_t k = 0; k < step.in.size(); ++k) {
      const uint8_t* fixed = FixedOperand(plan, step, k, whole, scratch);
      if (step.scalar_of[k] >= 0) {
        c.in.push_back({fixed, 0, 0, 0});
      } else if (fixed != nullptr) {  // a splat spread over the block
        c.in.push_back({fixed, OperandBytes(plan, step, k), 0, 0});
      } else {
        c.in.push_back(ChunkPointerOf(plan, step.in[k], ptr[step.in[k]]));
      }
    }
    steps.push_back(std::move(c));
    const int o = plan.output_index[step.out];
    if (o >= 0 && plan.streamed_by_run[o]) streamed.push_back(o);
  }
  const int64_t rows = run.per_row ? m : 1;
  const int64_t row_elems = run.per_row ? run.row_elems : m * run.row_elems;
  const void* ins[kChunkMaxInputs];
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < row_elems; c += run.chunk_elems) {
      const int64_t len = std::min(run.chunk_elems, row_elems - c);
      const int64_t flat = r * row_elems + c;
      for (const ChunkStep& cs : steps) {
        if (cs.init != nullptr) {  // the reduce
          const RowLanes& f = cs.step->lanes;
          const uint8_t* x = cs.in[0].At(flat, r, c);
          c == 0 ? f.start(lanes, x, len) : f.add(lanes, x, len);
          if (c + len == row_elems) f.finish(lanes, cs.init, const_cast<uint8_t*>(cs.out.At(flat, r, c)));
          continue;
        }
        for (size_t k = 0; k < cs.in.size(); ++k) ins[k] = cs.in[k].At(flat, r, c);
        cs.step->kernel(ins, const_cast<uint8_t*>(cs.out.At(flat, r, c)), 0, len, cs.step->params);
      }
      for (int o : streamed) {
        const int p = plan.outputs[o];
        const int64_t bytes = plan.elem_bytes[p];
        StreamCopy(out_data[o] + (r0 * run.row_elems + flat) * bytes, ptr[p], len * bytes);
      }
    }
}

// Rows [begin, end) of a lean plan (FusionPlan::lean): the pointers of
// every step are resolved once, so a block costs one kernel call per step.
// Same kernels, same blocks and order as the general loop: same values.
void RunLeanBlocks(const FusionPlan& plan, absl::Span<const Literal* const> whole,
                   absl::Span<uint8_t* const> out_data, uint8_t* scratch, int64_t begin, int64_t end) {
  const RowSplit& s = plan.split;
  struct LeanStep {
    ElementwiseKernel kernel;
    const KernelParams* params;
    int64_t row_elems;
    size_t num_in;
    RowRef in[kLeanMaxInputs];
    RowRef out;
  };
  absl::InlinedVector<RowRef, 32> ref(s.order.size());
  for (int p : plan.whole)
    if (s.read_by_rows[p]) ref[p] = {whole[p]->data(), plan.RowBytes(p)};
  absl::InlinedVector<LeanStep, 32> lean;
  for (const Step& step : plan.steps) {
    if (step.kind == StepKind::kSplat) {
      ref[step.out] = {scratch + plan.splats[step.splat_index].offset, 0};
      continue;
    }
    if (step.kind == StepKind::kAlias) {
      ref[step.out] = ref[step.in[0]];
      continue;
    }
    ref[step.out] = DestinationOf(plan, step, out_data, scratch);
    LeanStep l{step.kernel, &step.params, plan.row_elems[step.out], step.in.size(), {}, ref[step.out]};
    for (size_t j = 0; j < step.in.size(); ++j) {
      const uint8_t* fixed = FixedOperand(plan, step, j, whole, scratch);
      l.in[j] = fixed != nullptr ? RowRef{fixed, 0} : ref[step.in[j]];
    }
    lean.push_back(l);
  }
  for (int64_t r0 = begin; r0 < end; r0 += plan.block_rows) {
    const int64_t m = std::min(plan.block_rows, end - r0);
    for (const LeanStep& l : lean) {
      const void* ins[kLeanMaxInputs];
      for (size_t j = 0; j < l.num_in; ++j) ins[j] = l.in[j].At(r0);
      l.kernel(ins, l.out.At(r0), 0, m * l.row_elems, *l.params);
    }
    if (plan.stream_outputs)
      for (size_t o = 0; o < plan.outputs.size(); ++o) {
        const int p = plan.outputs[o];
        StreamCopy(out_data[o] + r0 * plan.RowBytes(p), ref[p].At(r0), m * plan.RowBytes(p));
      }
  }
}

}  // namespace

absl::StatusOr<Literal> RunFusionPlan(const FusionPlan& plan, const Instruction& fusion,
                                      absl::Span<const Literal* const> operands, OpContext& ctx) {
  const RowSplit& s = plan.split;
  const int n = static_cast<int>(s.order.size());
  std::vector<const Literal*> whole(n, nullptr);
  std::vector<Literal> owned(n);
  std::vector<const Literal*> ops;
  for (size_t w = 0; w < plan.whole.size(); ++w) {
    const int p = plan.whole[w];
    const Instruction& instr = *s.order[p];
    if (instr.opcode() == Opcode::kParameter) {
      const int64_t k = instr.parameter_number();
      if (k < 0 || k >= static_cast<int64_t>(operands.size()))
        return OpError(fusion, absl::StrCat("fused parameter ", k, " has no operand"));
      whole[p] = operands[k];
      if (!whole[p]->shape().IsArray() && s.read_by_rows[p])
        return OpError(fusion, absl::StrCat("operand ", k, " is not an array"));
      if (s.read_by_rows[p] && !IsPlainRowMajor(whole[p]->shape())) {
        owned[p] = whole[p]->Relayout(RowMajorLayout(whole[p]->shape().rank()));
        whole[p] = &owned[p];
      }
    } else if (instr.opcode() == Opcode::kConstant && instr.has_literal()) {
      whole[p] = &instr.literal();
    } else {
      ops.clear();
      for (int o : plan.whole_operands[w]) ops.push_back(whole[o]);
      absl::StatusOr<Literal> r;
      {
        // The fusion's own operand donations must not reach the kernels of
        // its inner instructions: nothing is donated to them.
        ScopedDonations none({}, [](size_t) {});
        r = FamilyOf(instr.opcode())(instr, ops, ctx);
      }
      if (!r.ok()) return r.status();
      owned[p] = std::move(*r);
      whole[p] = &owned[p];
    }
    if (s.read_by_rows[p] &&
        whole[p]->physical_count() != s.rows * plan.row_elems[p])
      return OpError(fusion, absl::StrCat("fused value %", instr.name(), " has the wrong size"));
  }

  const size_t num_outputs = plan.outputs.size();
  const bool tuple = fusion.shape().IsTuple();
  if (tuple != plan.tuple_root ||
      (tuple && static_cast<size_t>(fusion.shape().tuple_size()) != num_outputs))
    return OpError(fusion, "the fusion's shape does not match its computation's root");
  std::vector<Literal> outs;
  std::vector<uint8_t*> out_data;
  for (size_t o = 0; o < num_outputs; ++o) {
    const Shape& shape = tuple ? fusion.shape().tuple_shape(static_cast<int64_t>(o)) : fusion.shape();
    outs.push_back(RowMajorUninitialized(shape));
    if (outs.back().physical_count() != s.rows * plan.row_elems[plan.outputs[o]])
      return OpError(fusion, "the fusion's shape does not match its computation's root");
    out_data.push_back(outs.back().data());
  }

  // Unique per call (across threads and plans): the scratch a thread fills
  // for one call is refilled by the next.
  static std::atomic<uint64_t> run_counter{0};
  const uint64_t run_id = ++run_counter;
  ParallelFor(s.rows, plan.parallel_rows, [&](int64_t begin, int64_t end) {
    uint8_t* scratch = ThreadScratch(plan.scratch_bytes);
    absl::InlinedVector<const uint8_t*, 32> ptr(n, nullptr);
    // Splats are filled by the first block this thread runs in this run.
    thread_local uint64_t filled_for_run = 0;
    if (filled_for_run != run_id) {
      filled_for_run = run_id;
      for (const Splat& sp : plan.splats) {
        const Literal& v = *whole[sp.scalar];
        FillAny(v.element_bytes(), scratch + sp.offset, v.data(), sp.elems * plan.block_rows);
      }
    }
    if (plan.lean) {
      RunLeanBlocks(plan, whole, out_data, scratch, begin, end);
      if (plan.stream_outputs) StreamFence();
      return;
    }
    absl::InlinedVector<const void*, 4> ins;
    for (int64_t r0 = begin; r0 < end; r0 += plan.block_rows) {
      const int64_t m = std::min(plan.block_rows, end - r0);
      for (int p : plan.whole)
        if (s.read_by_rows[p]) ptr[p] = whole[p]->data() + r0 * plan.RowBytes(p);
      for (size_t j = 0; j < plan.steps.size(); ++j) {
        if (const int run = plan.run_at[j]; run >= 0) {
          RunChunkRun(plan, plan.runs[run], whole, out_data, scratch, r0, m, absl::MakeSpan(ptr));
          j = plan.runs[run].end - 1;
          continue;
        }
        const Step& step = plan.steps[j];
        // Without streaming, outputs are computed in place in the result.
        const int out_index = InPlaceOutput(plan, step);
        const int64_t row_bytes = plan.RowBytes(step.out);
        uint8_t* dst = DestinationOf(plan, step, out_data, scratch).At(r0);
        switch (step.kind) {
          case StepKind::kElementwise:
            ins.clear();
            for (size_t j = 0; j < step.in.size(); ++j) {
              const uint8_t* fixed = FixedOperand(plan, step, j, whole, scratch);
              ins.push_back(fixed != nullptr ? fixed : ptr[step.in[j]]);
            }
            if (!step.per_row) {
              step.kernel(ins.data(), dst, 0, m * plan.row_elems[step.out], step.params);
              break;
            }
            for (int64_t r = 0; r < m; ++r) {
              // Splats and invariant rows are the same for every row; a
              // row scalar is one element per row.
              for (size_t j = 0; j < step.in.size(); ++j) {
                const int p = step.in[j];
                if (FixedOperand(plan, step, j, whole, scratch) == nullptr && !plan.invariant_row[p])
                  ins[j] = ptr[p] + r * (plan.row_scalar[p] ? plan.elem_bytes[p] : plan.RowBytes(p));
              }
              step.kernel(ins.data(), dst + r * row_bytes, 0, plan.row_elems[step.out], step.params);
            }
            break;
          case StepKind::kInvariantRow:
            dst = const_cast<uint8_t*>(step.source >= 0 ? plan.sources[step.source].data()
                                                         : whole[step.in[0]]->data());
            break;
          case StepKind::kRowScalar:
            dst = const_cast<uint8_t*>(ptr[step.in[0]]);
            break;
          case StepKind::kCopy: {
            const uint8_t* from =
                step.source >= 0 ? plan.sources[step.source].data()
                                 : (step.src_row_stride != 0 ? ptr[step.in[0]] : whole[step.in[0]]->data()) +
                                       step.src_base * plan.elem_bytes[step.out];
            SpreadAny(plan.elem_bytes[step.out], step, dst, from, m);
            break;
          }
          case StepKind::kIotaOuter:
            FillIotaRows(step, plan.sources[step.source], plan.row_elems[step.out], r0, m, dst);
            break;
          case StepKind::kSplat: {
            const Splat& sp = plan.splats[step.splat_index];
            if (out_index >= 0) {
              std::memcpy(dst, scratch + sp.offset, m * row_bytes);
            } else {
              dst = scratch + sp.offset;
            }
            break;
          }
          case StepKind::kReduce: {
            if (step.row_reduce != nullptr) {
              step.row_reduce(ptr[step.in[0]], whole[step.in[1]]->data(), dst, m, step.row_reduce_elems);
              break;
            }
            absl::InlinedVector<int64_t, 8> dims;
            dims.push_back(m);
            dims.insert(dims.end(), step.inner_dims.begin(), step.inner_dims.end());
            ReduceBlock(step.type, step.reducer, dims, step.reduced, ptr[step.in[0]],
                        whole[step.in[1]]->data(), dst);
            break;
          }
          case StepKind::kAlias:
            if (out_index >= 0) {
              std::memcpy(dst, ptr[step.in[0]], m * row_bytes);
            } else {
              dst = const_cast<uint8_t*>(ptr[step.in[0]]);
            }
            break;
        }
        ptr[step.out] = dst;
      }
      if (plan.stream_outputs)
        for (size_t o = 0; o < num_outputs; ++o) {
          if (plan.streamed_by_run[o]) continue;
          const int p = plan.outputs[o];
          StreamCopy(out_data[o] + r0 * plan.RowBytes(p), ptr[p], m * plan.RowBytes(p));
        }
    }
    if (plan.stream_outputs) StreamFence();  // before the pool reports the block done
  });
  if (!tuple) return ToLayout(std::move(outs[0]), fusion.shape().layout());
  for (size_t o = 0; o < num_outputs; ++o)
    outs[o] = ToLayout(std::move(outs[o]), fusion.shape().tuple_shape(static_cast<int64_t>(o)).layout());
  return Literal::MakeTuple(std::move(outs));
}

absl::Status CanRunByRows(const Computation& fused) { return MakeFusionPlan(fused).status(); }

std::string DescribeFusionPlan(const FusionPlan& plan) {
  std::string out;
  for (const Step& step : plan.steps) {
    if (!out.empty()) out += ' ';
    switch (step.kind) {
      case StepKind::kElementwise:
        out += std::count_if(step.scalar_of.begin(), step.scalar_of.end(), [](int p) { return p >= 0; }) > 0
                   ? "elementwise-scalar"
                   : "elementwise";
        break;
      case StepKind::kCopy: out += "copy"; break;
      case StepKind::kSplat: out += "splat"; break;
      case StepKind::kReduce: out += "reduce"; break;
      case StepKind::kAlias: out += "alias"; break;
      case StepKind::kInvariantRow: out += "invariant-row"; break;
      case StepKind::kRowScalar: out += "row-scalar"; break;
      case StepKind::kIotaOuter: out += "iota-outer"; break;
    }
  }
  return out;
}

FusionPlanBlocks DescribeFusionBlocks(const FusionPlan& plan) {
  int64_t chunk_local = 0;
  for (size_t p = 0; p < plan.chunk_local.size(); ++p) chunk_local += plan.chunk_local[p];
  int64_t reduce_runs = 0;
  for (const ChunkRun& run : plan.runs) reduce_runs += plan.steps[run.end - 1].kind == StepKind::kReduce;
  return {plan.lean, plan.block_rows, plan.parallel_rows, static_cast<int64_t>(plan.runs.size()), reduce_runs,
          chunk_local};
}

FusionPlans::FusionPlans(const Module& module) {
  for (const Computation* c : module.computations())
    for (const Instruction* instr : c->instructions()) {
      if (instr->opcode() != Opcode::kFusion) continue;
      const Computation* fused = instr->AttrOr<Computation*>("calls", nullptr);
      if (fused == nullptr || plans_.contains(fused) || reasons_.contains(fused)) continue;
      absl::flat_hash_map<const Instruction*, const Instruction*> origins;
      if (std::unique_ptr<Computation> widened = WidenBf16Chains(*fused, &origins)) {
        absl::StatusOr<std::unique_ptr<FusionPlan>> plan = MakeFusionPlan(*widened);
        if (plan.ok()) {
          plans_.emplace(fused, std::move(*plan));
          widened_.push_back(std::move(widened));
          origins_.insert(origins.begin(), origins.end());
          continue;
        }
      }
      absl::StatusOr<std::unique_ptr<FusionPlan>> plan = MakeFusionPlan(*fused);
      if (plan.ok()) {
        plans_.emplace(fused, std::move(*plan));
      } else {
        reasons_.emplace(fused, std::string(plan.status().message()));
      }
    }
}

FusionPlans::~FusionPlans() = default;

std::vector<std::string> FusionPlans::OpByOpNotes() const {
  std::vector<std::string> notes;
  for (const auto& [fused, reason] : reasons_)
    notes.push_back(absl::StrCat("fused computation %", fused->name(), " runs op by op: ", reason));
  std::sort(notes.begin(), notes.end());
  return notes;
}

const Instruction* FusionPlans::OriginalOf(const Instruction* instr) const {
  auto it = origins_.find(instr);
  return it == origins_.end() ? instr : it->second;
}

const FusionPlan* FusionPlans::Find(const Computation* fused) const {
  auto it = plans_.find(fused);
  return it == plans_.end() ? nullptr : it->second.get();
}

std::string FusionPlans::WhyNotFused(const Computation* fused) const {
  auto it = reasons_.find(fused);
  return it == reasons_.end() ? std::string() : it->second;
}

}  // namespace hlo::cpu
