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
#include "backend_cpu/fusion_plan.h"
#include "backend_cpu/fusion_rows.h"
#include "backend_cpu/fusion_streamed_reduce.h"
#include "backend_cpu/fusion_widen_bf16.h"
#include "backend_cpu/reduce_block.h"
#include "backend_cpu/thread_pool.h"

namespace hlo::cpu {

using namespace rowplan;  // NOLINT: the plan's own types (fusion_plan.h)

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
    } else if (plan.in_streamed_tree[p]) {
      continue;  // computed block by block inside its reduce's stream
    } else if (plan.streamed_reduce_of[p] >= 0) {
      absl::StatusOr<Literal> r = RunStreamedReduce(plan, plan.streamed_reduces[plan.streamed_reduce_of[p]], whole);
      if (!r.ok()) return OpError(fusion, r.status().message());
      owned[p] = std::move(*r);
      whole[p] = &owned[p];
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