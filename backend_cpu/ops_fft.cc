// fft of the linalg family, through FFTW (fftwf_* for c64/f32, fftw_* for
// c128/f64).
//
// When the transformed dims are dense (row-major, innermost) on both
// sides, the transform runs straight on the operand's and the result's
// storage: a guru64 plan describes the transformed dims and the batch dims
// with the literals' physical strides, so there is no relayout, no staging
// buffer and no copy (IRFFT alone copies its input first: FFTW's
// complex-to-real transforms overwrite their input). Other (untiled)
// layouts run staged through a dense box in cache (RunFftStaged), with
// the dense layouts' bits. The result literal is allocated without the
// zero-fill pass.
//
// Plans are made with FFTW_ESTIMATE (deterministic: FFTW_MEASURE picks a
// plan by timing, so results could change from run to run) under one mutex
// (FFTW's planner is not thread safe) and cached by (precision, kind,
// sizes, strides, array alignments, thread count); FFTW_ESTIMATE planning
// does not touch the arrays, so plans are made on the real literals.
//
// Threads: large transforms are planned for FftPlanThreads() threads (see
// fft_config.h for the thresholds) and FFTW's
// parallel loops are handed to our pool (fftw_threads_set_callback ->
// ParallelFor), so FFTW never starts threads of its own, never
// oversubscribes the pool, and runs inline when the pool is busy or nested.
// The plan (hence the arithmetic) depends only on the problem, never on the
// pool width: results are bit-identical for any width. Batched transforms
// of 1 MB and more run as chunks of their outermost batch dimension
// instead (single-threaded plans, chunks over the pool, IFFT's scaling
// done per chunk in cache; see ChunkDim).
//
// FFT is unnormalised; IFFT and IRFFT are scaled by 1/prod(fft_length) as
// XLA does.
#include <fftw3.h>

#include <algorithm>
#include <atomic>
#include <complex>
#include <cstdint>
#include <cstring>
#include <map>
#include <optional>
#include <tuple>
#include <type_traits>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "backend_cpu/fft_config.h"
#include "backend_cpu/op_eval.h"
#include "backend_cpu/thread_pool.h"
#include "ir/strided_copy.h"

namespace hlo::cpu {
namespace {

enum class FftKind { kFft, kIfft, kRfft, kIrfft };

// FFTW threads a plan is made for when the transform is large enough (not
// the pool width: see the header comment and fft_config.h).
std::atomic<int> fft_plan_threads{2};
std::atomic<int64_t> fft_thread_min_points{int64_t{1} << 22};

// One transformed or batch dimension: size, input stride, output stride
// (strides in elements of the respective array's type).
struct FftDim {
  int64_t n, is, os;
  bool operator<(const FftDim& o) const { return std::tie(n, is, os) < std::tie(o.n, o.is, o.os); }
  bool operator==(const FftDim& o) const { return n == o.n && is == o.is && os == o.os; }
};

struct PlanKey {
  bool dbl;
  FftKind kind;
  std::vector<FftDim> dims, batch;
  int in_align, out_align, threads;
  bool operator<(const PlanKey& o) const {
    return std::tie(dbl, kind, dims, batch, in_align, out_align, threads) <
           std::tie(o.dbl, o.kind, o.dims, o.batch, o.in_align, o.out_align, o.threads);
  }
};

absl::Mutex& PlanMutex() {
  static absl::Mutex* mu = new absl::Mutex;
  return *mu;
}
// Plans live for the whole process (bounded count; see kMaxPlans).
std::map<PlanKey, void*>& PlanCache() {
  static auto* cache = new std::map<PlanKey, void*>;
  return *cache;
}
constexpr size_t kMaxPlans = 512;

// FFTW's parallel loop, run on our pool: njobs independent jobs.
void PoolParallelLoop(void* (*work)(char*), char* jobdata, size_t elsize, int njobs, void*) {
  ParallelFor(njobs, 1, [&](int64_t j0, int64_t j1) {
    for (int64_t j = j0; j < j1; ++j) work(jobdata + elsize * static_cast<size_t>(j));
  });
}

// Sets up FFTW's thread support once (called under PlanMutex).
bool FftwThreadsReady() {
  static const bool ok = [] {
    const bool f = fftwf_init_threads() != 0;
    const bool d = fftw_init_threads() != 0;
    if (f) fftwf_threads_set_callback(&PoolParallelLoop, nullptr);
    if (d) fftw_threads_set_callback(&PoolParallelLoop, nullptr);
    return f && d;
  }();
  return ok;
}

// The two FFTW APIs (fftwf_* for float, fftw_* for double) differ only in
// their prefix and types: FftwApi<kDouble> names the functions used here,
// Fftw<kDouble> is written once on top of it.
template <bool kDouble>
struct FftwApi;

template <>
struct FftwApi<false> {
  using Real = float;
  using Cplx = fftwf_complex;
  using Plan = fftwf_plan;
  using Dim = fftwf_iodim64;
  static constexpr auto malloc = &fftwf_malloc;
  static constexpr auto free = &fftwf_free;
  static constexpr auto alignment_of = &fftwf_alignment_of;
  static constexpr auto plan_with_nthreads = &fftwf_plan_with_nthreads;
  static constexpr auto plan_guru64_dft = &fftwf_plan_guru64_dft;
  static constexpr auto plan_guru64_dft_r2c = &fftwf_plan_guru64_dft_r2c;
  static constexpr auto plan_guru64_dft_c2r = &fftwf_plan_guru64_dft_c2r;
  static constexpr auto execute_dft = &fftwf_execute_dft;
  static constexpr auto execute_dft_r2c = &fftwf_execute_dft_r2c;
  static constexpr auto execute_dft_c2r = &fftwf_execute_dft_c2r;
  static constexpr auto destroy_plan = &fftwf_destroy_plan;
};

template <>
struct FftwApi<true> {
  using Real = double;
  using Cplx = fftw_complex;
  using Plan = fftw_plan;
  using Dim = fftw_iodim64;
  static constexpr auto malloc = &fftw_malloc;
  static constexpr auto free = &fftw_free;
  static constexpr auto alignment_of = &fftw_alignment_of;
  static constexpr auto plan_with_nthreads = &fftw_plan_with_nthreads;
  static constexpr auto plan_guru64_dft = &fftw_plan_guru64_dft;
  static constexpr auto plan_guru64_dft_r2c = &fftw_plan_guru64_dft_r2c;
  static constexpr auto plan_guru64_dft_c2r = &fftw_plan_guru64_dft_c2r;
  static constexpr auto execute_dft = &fftw_execute_dft;
  static constexpr auto execute_dft_r2c = &fftw_execute_dft_r2c;
  static constexpr auto execute_dft_c2r = &fftw_execute_dft_c2r;
  static constexpr auto destroy_plan = &fftw_destroy_plan;
};

template <bool kDouble>
struct Fftw {
  using Api = FftwApi<kDouble>;
  using Real = typename Api::Real;
  using Cplx = typename Api::Cplx;
  using Plan = typename Api::Plan;
  using Dim = typename Api::Dim;
  static void* Malloc(size_t n) { return Api::malloc(n); }
  static void Free(void* p) { Api::free(p); }
  static int Align(const void* p) {
    return Api::alignment_of(const_cast<Real*>(static_cast<const Real*>(p)));
  }
  static void Threads(int n) { Api::plan_with_nthreads(n); }
  static Plan MakePlan(FftKind kind, int rank, const Dim* dims, int hrank, const Dim* hdims,
                       void* in, void* out) {
    switch (kind) {
      case FftKind::kFft:
      case FftKind::kIfft:
        return Api::plan_guru64_dft(rank, dims, hrank, hdims, static_cast<Cplx*>(in),
                                    static_cast<Cplx*>(out),
                                    kind == FftKind::kFft ? FFTW_FORWARD : FFTW_BACKWARD,
                                    FFTW_ESTIMATE | FFTW_PRESERVE_INPUT);
      case FftKind::kRfft:
        return Api::plan_guru64_dft_r2c(rank, dims, hrank, hdims, static_cast<Real*>(in),
                                        static_cast<Cplx*>(out), FFTW_ESTIMATE | FFTW_PRESERVE_INPUT);
      case FftKind::kIrfft:
        return Api::plan_guru64_dft_c2r(rank, dims, hrank, hdims, static_cast<Cplx*>(in),
                                        static_cast<Real*>(out), FFTW_ESTIMATE);
    }
    return nullptr;
  }
  static void Execute(Plan p, FftKind kind, void* in, void* out) {
    switch (kind) {
      case FftKind::kFft:
      case FftKind::kIfft:
        Api::execute_dft(p, static_cast<Cplx*>(in), static_cast<Cplx*>(out));
        break;
      case FftKind::kRfft:
        Api::execute_dft_r2c(p, static_cast<Real*>(in), static_cast<Cplx*>(out));
        break;
      case FftKind::kIrfft:
        Api::execute_dft_c2r(p, static_cast<Cplx*>(in), static_cast<Real*>(out));
        break;
    }
  }
  static void Destroy(Plan p) { Api::destroy_plan(p); }
};

struct FftwBuf {
  void* p = nullptr;
  void (*free_fn)(void*) = nullptr;
  ~FftwBuf() {
    if (p) free_fn(p);
  }
};

// Runs the transform on `in` (in_bytes of storage) into `out`. Returns false
// if FFTW could not plan it.
template <bool kDouble>
bool RunFft(FftKind kind, const std::vector<FftDim>& dims, const std::vector<FftDim>& batch,
            int threads, const void* in, size_t in_bytes, void* out, bool input_is_scratch = false) {
  using F = Fftw<kDouble>;
  void* src = const_cast<void*>(in);  // not written: FFTW_PRESERVE_INPUT
  FftwBuf copy;
  if (kind == FftKind::kIrfft && !input_is_scratch) {  // c2r destroys its input
    copy.p = F::Malloc(std::max<size_t>(in_bytes, 16));
    copy.free_fn = &F::Free;
    if (copy.p == nullptr) return false;
    std::memcpy(copy.p, in, in_bytes);
    src = copy.p;
  }
  const PlanKey key{kDouble, kind, dims, batch, F::Align(src), F::Align(out), threads};
  typename F::Plan plan = nullptr;
  bool cached = false;
  {
    absl::MutexLock lock(&PlanMutex());
    auto it = PlanCache().find(key);
    if (it != PlanCache().end()) {
      plan = static_cast<typename F::Plan>(it->second);
      cached = true;
    } else {
      std::vector<typename F::Dim> d, h;
      for (const FftDim& x : dims) d.push_back({x.n, x.is, x.os});
      for (const FftDim& x : batch) h.push_back({x.n, x.is, x.os});
      F::Threads(threads > 1 && FftwThreadsReady() ? threads : 1);
      // FFTW_ESTIMATE planning does not touch the arrays.
      plan = F::MakePlan(kind, static_cast<int>(d.size()), d.data(), static_cast<int>(h.size()),
                         h.data(), src, out);
      if (plan != nullptr && PlanCache().size() < kMaxPlans) {
        PlanCache()[key] = static_cast<void*>(plan);
        cached = true;
      }
    }
  }
  if (plan == nullptr) return false;
  F::Execute(plan, kind, src, out);
  if (!cached) {
    absl::MutexLock lock(&PlanMutex());
    F::Destroy(plan);
  }
  return true;
}

// Divides the n reals at p by `total` (IFFT's and IRFFT's 1/N). A
// power-of-two total multiplies by its exact reciprocal instead: x * 2^-k
// and x / 2^k are the same correctly rounded value (subnormal results
// included), and a multiply costs a fraction of a divide.
template <typename R>
void ScaleSpan(R* __restrict p, int64_t n, int64_t total) {
  const R divisor = static_cast<R>(total);
  if (total > 0 && (total & (total - 1)) == 0) {
    const R reciprocal = R(1) / divisor;
    for (int64_t i = 0; i < n; ++i) p[i] *= reciprocal;
  } else {
    for (int64_t i = 0; i < n; ++i) p[i] /= divisor;
  }
}

// ScaleSpan over the pool, in fixed blocks.
template <typename R>
void Scale(R* p, int64_t n, int64_t total) {
  ParallelFor(n, int64_t{1} << 16, [p, total](int64_t i0, int64_t i1) { ScaleSpan(p + i0, i1 - i0, total); });
}

// Batched transforms whose result is at least this large run as chunks of
// whole indices of the result's outermost batch dimension, each chunk's
// result about kChunkBytes (it stays in L2 while IFFT scales it), the
// chunks shared out over the pool. The chunk size depends on the problem
// only, so the bits do not depend on the pool width.
constexpr int64_t kChunkMinBytes = int64_t{1} << 20;
constexpr int64_t kChunkBytes = int64_t{256} << 10;

// The batch dimension to cut into chunks: the one whose result stride
// times size is the whole result (outermost, dense), with one index
// small enough to be a chunk. -1 when the transform is not chunked
// (IRFFT: FFTW's complex-to-real plans destroy their input, which is
// copied whole first).
int ChunkDim(FftKind kind, const std::vector<FftDim>& batch, int64_t out_elems, int64_t out_elem_bytes) {
  if (kind == FftKind::kIrfft || out_elems * out_elem_bytes < kChunkMinBytes) return -1;
  for (size_t j = 0; j < batch.size(); ++j)
    if (batch[j].os * batch[j].n == out_elems && batch[j].os * out_elem_bytes <= kChunkBytes)
      return static_cast<int>(j);
  return -1;
}

// Runs the transform chunk by chunk along batch[cd] (see ChunkDim), scaling
// each chunk's result right after its transform when `scale`. False when
// FFTW could not plan a chunk.
template <bool kDouble>
bool RunFftChunked(FftKind kind, const std::vector<FftDim>& dims, const std::vector<FftDim>& batch, int cd,
                   const uint8_t* in, int64_t in_elem_bytes, uint8_t* out, int64_t out_elem_bytes,
                   int64_t reals_per_elem, bool scale, int64_t total) {
  using R = std::conditional_t<kDouble, double, float>;
  const FftDim whole = batch[cd];
  const int64_t per_chunk = std::max<int64_t>(1, kChunkBytes / (whole.os * out_elem_bytes));
  const int64_t chunks = (whole.n + per_chunk - 1) / per_chunk;
  std::atomic<bool> failed{false};
  ParallelFor(chunks, 1, [&](int64_t c0, int64_t c1) {
    std::vector<FftDim> part = batch;
    for (int64_t c = c0; c < c1 && !failed.load(std::memory_order_relaxed); ++c) {
      const int64_t b0 = c * per_chunk, b1 = std::min(whole.n, b0 + per_chunk);
      part[cd].n = b1 - b0;
      uint8_t* o = out + b0 * whole.os * out_elem_bytes;
      if (!RunFft<kDouble>(kind, dims, part, 1, in + b0 * whole.is * in_elem_bytes, 0, o)) {
        failed.store(true, std::memory_order_relaxed);
        return;
      }
      if (scale) ScaleSpan(reinterpret_cast<R*>(o), (b1 - b0) * whole.os * reals_per_elem, total);
    }
  });
  return !failed.load();
}

// Whether the transformed dims (the last `r`) of an array with these
// sizes and strides are one dense row-major block, as FFTW reads and
// writes fastest. Anything else (a layout that puts a batch dim inside the
// transformed ones, or the transformed dim outside the batch) makes FFTW
// jump through memory for every point: 10x slower on c64[128,64,256]
// written with layout {1,0,2}.
bool TransformDimsDense(const std::vector<int64_t>& sizes, const std::vector<int64_t>& strides, int64_t r) {
  int64_t want = 1;
  for (int64_t d = static_cast<int64_t>(sizes.size()) - 1; d >= static_cast<int64_t>(sizes.size()) - r; --d) {
    if (sizes[d] != 1 && strides[d] != want) return false;
    want *= sizes[d];
  }
  return true;
}

// Row-major strides (elements) of `sizes`.
std::vector<int64_t> RowMajorStrides(const std::vector<int64_t>& sizes) {
  std::vector<int64_t> st(sizes.size());
  int64_t s = 1;
  for (int64_t d = static_cast<int64_t>(sizes.size()) - 1; d >= 0; --d) {
    st[d] = s;
    s *= sizes[d];
  }
  return st;
}

// One side (operand or result) of a staged transform: sizes and physical
// strides of every dim, element bytes, storage.
struct FftSide {
  std::vector<int64_t> sizes, strides;
  int64_t elem_bytes;
  uint8_t* data;
};

// Results from this size up are scattered with non-temporal stores (as
// StridedCopy streams a whole copy this large; fft_config.h).
std::atomic<int64_t> fft_stream_out_min_bytes{int64_t{16} << 20};

// Transforms whose transformed dims are not dense on one side
// (TransformDimsDense) run staged: the batch is cut into chunks of whole
// indices of the batch dim with the largest result stride (kChunkBytes
// each; one chunk when there is no batch). A side that is not dense is
// gathered into (operand) or scattered from (result) a dense row-major box
// in cache by StridedCopy, whose blocked transpose does the relayout; a
// dense side is read or written in place. The chunks depend on the
// problem alone (the same bits for every pool width), and FFTW reads and
// writes every transform densely. IRFFT always gathers: its plans destroy
// their input.
template <bool kDouble>
bool RunFftStaged(FftKind kind, int64_t r, const FftSide& in, const FftSide& out, bool scale,
                  int64_t total, int64_t reals_per_elem, int64_t big_threads) {
  using F = Fftw<kDouble>;
  using R = std::conditional_t<kDouble, double, float>;
  const int64_t rank = static_cast<int64_t>(in.sizes.size());
  const bool gather = kind == FftKind::kIrfft || !TransformDimsDense(in.sizes, in.strides, r);
  const bool scatter = !TransformDimsDense(out.sizes, out.strides, r);
  // The box's dims: the chunked batch dim first, the other batch dims in
  // order, then the transformed dims.
  int64_t cd = -1;
  for (int64_t d = 0; d < rank - r; ++d)
    if (in.sizes[d] > 1 && (cd < 0 || out.strides[d] > out.strides[cd])) cd = d;
  std::vector<int64_t> order;
  if (cd >= 0) order.push_back(cd);
  for (int64_t d = 0; d < rank; ++d)
    if (d != cd && (d >= rank - r || in.sizes[d] > 1)) order.push_back(d);
  const int64_t whole = cd >= 0 ? in.sizes[cd] : 1;
  int64_t in_per_index = in.elem_bytes, out_per_index = out.elem_bytes;
  for (int64_t d : order)
    if (d != cd) {
      in_per_index *= in.sizes[d];
      out_per_index *= out.sizes[d];
    }
  const int64_t per_chunk =
      std::clamp<int64_t>(kChunkBytes / std::max(in_per_index, out_per_index), 1, whole);
  const int64_t chunks = (whole + per_chunk - 1) / per_chunk;
  // The result scattered from the box: the index space in the result's
  // memory order, so that its innermost dim is the result's contiguous
  // one (what makes StridedCopy run its blocked transpose).
  std::vector<size_t> by_out(order.size());
  for (size_t k = 0; k < by_out.size(); ++k) by_out[k] = k;
  std::stable_sort(by_out.begin(), by_out.end(),
                   [&](size_t a, size_t b) { return out.strides[order[a]] > out.strides[order[b]]; });
  // A large result does not stay in cache for its consumer: its scattered
  // lines bypass the cache (no read for ownership).
  const bool stream = whole * out_per_index >= FftStreamOutMinBytes();
  // What a chunk of n batch indices runs: FFTW's dims over the box (or
  // the side read or written in place), the gather and the scatter. The
  // same for every full chunk; the tail has its own.
  struct ChunkPlan {
    int64_t n = 0;
    std::vector<FftDim> dims, batch;
    std::optional<StridedCopy> gather, scatter;
  };
  auto plan_chunk = [&](int64_t n) {
    ChunkPlan p;
    p.n = n;
    std::vector<int64_t> in_sizes, out_sizes, in_strides, out_strides;
    for (int64_t d : order) {
      in_sizes.push_back(d == cd ? n : in.sizes[d]);
      out_sizes.push_back(d == cd ? n : out.sizes[d]);
      in_strides.push_back(in.strides[d]);
      out_strides.push_back(out.strides[d]);
    }
    const std::vector<int64_t> in_box = RowMajorStrides(in_sizes), out_box = RowMajorStrides(out_sizes);
    if (gather) p.gather.emplace(static_cast<int>(in.elem_bytes), in_sizes, in_box, in_strides);
    const std::vector<int64_t>& is = gather ? in_box : in_strides;
    const std::vector<int64_t>& os = scatter ? out_box : out_strides;
    // FFTW's logical sizes: the complex side's last dim of a real
    // transform is L/2+1, the real side's is L.
    const size_t nb = order.size() - static_cast<size_t>(r);
    for (size_t k = 0; k < order.size(); ++k) {
      const bool real_out = kind == FftKind::kIrfft && k + 1 == order.size();
      (k < nb ? p.batch : p.dims).push_back({real_out ? out_sizes[k] : in_sizes[k], is[k], os[k]});
    }
    if (scatter) {
      std::vector<int64_t> sizes_o, dst_o, src_o;
      for (size_t k : by_out) {
        sizes_o.push_back(out_sizes[k]);
        dst_o.push_back(out_strides[k]);
        src_o.push_back(out_box[k]);
      }
      p.scatter.emplace(static_cast<int>(out.elem_bytes), sizes_o, dst_o, src_o);
      p.scatter->set_streaming(stream);
    }
    return p;
  };
  std::atomic<bool> failed{false};
  ParallelFor(chunks, 1, [&](int64_t c0, int64_t c1) {
    FftwBuf box_in, box_out;
    for (auto [buf, need, bytes] : {std::tuple{&box_in, gather, per_chunk * in_per_index},
                                    std::tuple{&box_out, scatter, per_chunk * out_per_index}}) {
      if (!need) continue;
      buf->p = F::Malloc(static_cast<size_t>(bytes));
      buf->free_fn = &F::Free;
      if (buf->p == nullptr) {
        failed.store(true, std::memory_order_relaxed);
        return;
      }
    }
    std::optional<ChunkPlan> full, tail;
    for (int64_t c = c0; c < c1 && !failed.load(std::memory_order_relaxed); ++c) {
      const int64_t b0 = c * per_chunk, n = std::min(per_chunk, whole - b0);
      std::optional<ChunkPlan>& slot = n == per_chunk ? full : tail;
      if (!slot || slot->n != n) slot.emplace(plan_chunk(n));
      const ChunkPlan& p = *slot;
      const uint8_t* src = in.data + (cd >= 0 ? b0 * in.strides[cd] * in.elem_bytes : 0);
      uint8_t* dst = out.data + (cd >= 0 ? b0 * out.strides[cd] * out.elem_bytes : 0);
      if (p.gather) {
        p.gather->Run(static_cast<uint8_t*>(box_in.p), src);
        src = static_cast<const uint8_t*>(box_in.p);
      }
      void* fft_out = scatter ? box_out.p : dst;
      if (!RunFft<kDouble>(kind, p.dims, p.batch, chunks == 1 ? static_cast<int>(big_threads) : 1, src, 0,
                           fft_out, /*input_is_scratch=*/gather)) {
        failed.store(true, std::memory_order_relaxed);
        return;
      }
      // Unscattered, the chunk is one stretch of the result: its batch dim
      // is the outermost there (the transformed dims are dense and inside).
      if (scale) ScaleSpan(static_cast<R*>(fft_out), n * out_per_index / out.elem_bytes * reals_per_elem, total);
      if (p.scatter) p.scatter->Run(dst, static_cast<const uint8_t*>(box_out.p));
    }
  });
  return !failed.load();
}

bool IsUntiled(const Shape& s) {
  return s.layout().tiles.empty() &&
         static_cast<int64_t>(s.layout().minor_to_major.size()) == s.rank();
}

}  // namespace

int64_t FftStreamOutMinBytes() { return fft_stream_out_min_bytes.load(std::memory_order_relaxed); }
void SetFftStreamOutMinBytes(int64_t bytes) {
  fft_stream_out_min_bytes.store(std::max<int64_t>(0, bytes), std::memory_order_relaxed);
}

int FftPlanThreads() { return fft_plan_threads.load(std::memory_order_relaxed); }
int64_t FftThreadMinPoints() { return fft_thread_min_points.load(std::memory_order_relaxed); }
void SetFftThreading(int threads, int64_t min_points) {
  fft_plan_threads.store(std::max(1, threads), std::memory_order_relaxed);
  fft_thread_min_points.store(std::max<int64_t>(0, min_points), std::memory_order_relaxed);
}

absl::StatusOr<Literal> LinalgEvalFft(const Instruction& instr,
                                      absl::Span<const Literal* const> operands) {
  if (operands.empty()) return OpError(instr, "expects 1 operand");
  const std::string* type_s = instr.GetAttr<std::string>("fft_type");
  const std::vector<int64_t>* len = instr.GetAttr<std::vector<int64_t>>("fft_length");
  if (type_s == nullptr || len == nullptr) return OpError(instr, "missing fft_type or fft_length");
  FftKind kind;
  if (*type_s == "FFT") {
    kind = FftKind::kFft;
  } else if (*type_s == "IFFT") {
    kind = FftKind::kIfft;
  } else if (*type_s == "RFFT") {
    kind = FftKind::kRfft;
  } else if (*type_s == "IRFFT") {
    kind = FftKind::kIrfft;
  } else {
    return OpError(instr, absl::StrCat("unknown fft_type ", *type_s));
  }
  const Shape& is = operands[0]->shape();
  const Shape& os = instr.shape();
  const int64_t r = static_cast<int64_t>(len->size());
  if (r < 1 || r > 3) return OpError(instr, "fft_length must have 1 to 3 entries");
  if (!is.IsArray() || !os.IsArray() || is.rank() < r || os.rank() != is.rank())
    return OpError(instr, "operand rank is smaller than fft_length");
  const PrimitiveType it = is.element_type(), ot = os.element_type();
  bool dbl;
  switch (kind) {
    case FftKind::kFft:
    case FftKind::kIfft:
      if (!IsComplex(it) || it != ot) return OpError(instr, "FFT/IFFT needs complex operand and result of the same type");
      dbl = it == PrimitiveType::C128;
      break;
    case FftKind::kRfft:
      if (!((it == PrimitiveType::F32 && ot == PrimitiveType::C64) ||
            (it == PrimitiveType::F64 && ot == PrimitiveType::C128)))
        return OpError(instr, "RFFT needs f32 -> c64 or f64 -> c128");
      dbl = it == PrimitiveType::F64;
      break;
    case FftKind::kIrfft:
    default:
      if (!((it == PrimitiveType::C64 && ot == PrimitiveType::F32) ||
            (it == PrimitiveType::C128 && ot == PrimitiveType::F64)))
        return OpError(instr, "IRFFT needs c64 -> f32 or c128 -> f64");
      dbl = it == PrimitiveType::C128;
      break;
  }
  // Check the transformed dims.
  const int64_t rank = is.rank();
  for (int64_t i = 0; i < rank - r; ++i)
    if (is.dim(i) != os.dim(i)) return OpError(instr, "batch dimensions of operand and result differ");
  int64_t total = 1;
  for (int64_t j = 0; j < r; ++j) {
    const int64_t L = (*len)[j];
    const int64_t d = rank - r + j;
    if (L < 0 || L > (int64_t{1} << 30)) return OpError(instr, "bad fft_length");
    const bool last = j == r - 1;
    int64_t want_in = L, want_out = L;
    if (last && kind == FftKind::kRfft) want_out = L / 2 + 1;
    if (last && kind == FftKind::kIrfft) want_in = L / 2 + 1;
    if (is.dim(d) != want_in || os.dim(d) != want_out)
      return OpError(instr, absl::StrCat("dimension ", d, " does not match fft_length"));
    total *= L;
  }
  int64_t howmany = 1;
  for (int64_t i = 0; i < rank - r; ++i) howmany *= is.dim(i);
  if (total == 0 || howmany == 0) return ToLayout(RowMajorLiteral(os), os.layout());
  if (howmany > (int64_t{1} << 30) || total * howmany > (int64_t{1} << 40))
    return OpUnimplemented(instr, "FFT too large");
  // Operand and result in their own layouts when untiled.
  Literal tmp;
  const Literal& in = IsUntiled(is) ? *operands[0] : RowMajor(*operands[0], &tmp);
  const bool out_direct = IsUntiled(os);
  Literal result = out_direct ? Literal::Uninitialized(os) : RowMajorUninitialized(os);
  const std::vector<int64_t> ist = UntiledStrides(in.shape()), ost = UntiledStrides(result.shape());
  std::vector<FftDim> dims, batch;
  for (int64_t j = 0; j < r; ++j) {
    const int64_t d = rank - r + j;
    dims.push_back({(*len)[j], ist[d], ost[d]});
  }
  for (int64_t i = 0; i < rank - r; ++i)
    if (is.dim(i) != 1) batch.push_back({is.dim(i), ist[i], ost[i]});
  const bool scale = kind == FftKind::kIfft || kind == FftKind::kIrfft;
  const int64_t reals_per_elem = IsComplex(ot) ? 2 : 1;
  // Chunked transforms scale each chunk themselves; the others are scaled
  // below in one pass.
  std::vector<int64_t> in_sizes(is.dims().begin(), is.dims().end()),
      out_sizes(os.dims().begin(), os.dims().end());
  const bool staged = !TransformDimsDense(in_sizes, ist, r) || !TransformDimsDense(out_sizes, ost, r);
  const int cd = staged ? -1 : ChunkDim(kind, batch, os.ElementCount(), result.element_bytes());
  bool ok;
  if (staged) {
    const FftSide a{in_sizes, ist, in.element_bytes(), const_cast<uint8_t*>(in.data())};
    const FftSide b{out_sizes, ost, result.element_bytes(), result.data()};
    const int64_t threads = total * howmany >= FftThreadMinPoints() ? FftPlanThreads() : 1;
    ok = dbl ? RunFftStaged<true>(kind, r, a, b, scale, total, reals_per_elem, threads)
             : RunFftStaged<false>(kind, r, a, b, scale, total, reals_per_elem, threads);
  } else if (cd >= 0) {
    ok = dbl ? RunFftChunked<true>(kind, dims, batch, cd, in.data(), in.element_bytes(), result.data(),
                                   result.element_bytes(), reals_per_elem, scale, total)
             : RunFftChunked<false>(kind, dims, batch, cd, in.data(), in.element_bytes(), result.data(),
                                    result.element_bytes(), reals_per_elem, scale, total);
  } else {
    const int threads = total * howmany >= FftThreadMinPoints() ? FftPlanThreads() : 1;
    const size_t in_bytes = in.size_bytes();
    ok = dbl ? RunFft<true>(kind, dims, batch, threads, in.data(), in_bytes, result.data())
             : RunFft<false>(kind, dims, batch, threads, in.data(), in_bytes, result.data());
  }
  if (!ok) return OpUnimplemented(instr, "FFTW could not plan this transform");
  if (scale && cd < 0 && !staged) {
    const int64_t cnt = os.ElementCount() * reals_per_elem;
    if (dbl) {
      Scale<double>(reinterpret_cast<double*>(result.data()), cnt, total);
    } else {
      Scale<float>(reinterpret_cast<float*>(result.data()), cnt, total);
    }
  }
  if (out_direct) return result;
  return ToLayout(std::move(result), os.layout());
}

}  // namespace hlo::cpu
