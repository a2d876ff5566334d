// The planner of fused computations that run by rows (fusion_exec.h): the
// row split's values become steps on blocks of rows, with scratch slots
// shared by lifetime, block sizes, lean plans and chunk runs.
#include <algorithm>
#include <numeric>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "backend_cpu/fusion_exec.h"
#include "backend_cpu/fusion_plan.h"
#include "backend_cpu/fusion_streamed_reduce.h"

namespace hlo::cpu {

using namespace rowplan;  // NOLINT: the plan's own types (fusion_plan.h)

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
// Chunk slots are this much longer than a chunk, so that slots of 4 KB
// chunks do not start 4 KB apart: a load from one at the same address
// bits 0-11 as a pending store to another waits for the store (4K
// aliasing; layer norm 4096^2 at 1 thread, median of 10 minimums: 25.8
// ms with aligned slots, 20.8 skewed, noisy machine).
constexpr int64_t kChunkSlotSkew = 256;

int64_t RoundUp(int64_t x) { return (x + kAlign - 1) / kAlign * kAlign; }

}  // namespace

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
  PlanStreamedReduces(plan.get(), position);
  return plan;
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
  for (const rowplan::StreamedReduce& sr : plan.streamed_reduces)
    absl::StrAppend(&out, out.empty() ? "" : " ", "streamed-reduce(", sr.nodes.size(), ")");
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

}  // namespace hlo::cpu
