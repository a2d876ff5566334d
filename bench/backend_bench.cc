// Performance of the CPU backend against the bare libraries it wraps, in
// one binary so that every ratio comes from one run on one machine state.
//
// Each case is named "<case>/<who>":
//   who = ours           RunModule() of a parsed+verified one-op module
//                        (what hlo-run does minus parsing and printing):
//                        arguments are built once outside the timed loop;
//                        the result literal is allocated inside the op,
//                        as a user pays it.
//         bare_sgemm_tN  cblas_sgemm (OpenBLAS) on preallocated buffers, N
//                        OpenBLAS threads. N = 2 is OpenBLAS's default on
//                        this 2-core machine and is the peer of "ours".
//         bare_fftw      fftwf_execute of a plan made with the flags our
//                        backend uses (fftwf_plan_many_dft, rank 1,
//                        howmany 1, out of place, FFTW_ESTIMATE) on
//                        preallocated fftwf_malloc buffers.
//         bare_fftw_measure  the same with FFTW_MEASURE (informative: what
//                        better planning would give).
// OpenBLAS threads: our backend calls openblas_set_num_threads(1) once,
// process-wide, on its first dot and parallelises over tiles of C itself.
// The bare sgemm cases therefore set the OpenBLAS thread count they want
// before their loop and restore the previous count after it.
// All cases use real (wall) time: the work runs on several threads.
// The thread pool runs at its default width (hardware threads, or
// HLO_CPU_THREADS).
//
// Run: build-bench/bench/backend_bench   (see bench/README.md)
#include <cblas.h>

#include <mutex>
#include <fftw3.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "backend_cpu/executor.h"
#include "backend_cpu/openblas_core.h"
#include "backend_cpu/thread_pool.h"
#include "benchmark/benchmark.h"
#include "ir/literal.h"
#include "ir/module.h"
#include "ir/verifier.h"
#include "parser/parser.h"

namespace hlo {
namespace {

// Deterministic uniform floats in [lo, hi) (xorshift64*).
void FillUniform(float* p, int64_t n, float lo, float hi, uint64_t seed) {
  uint64_t s = seed * 0x9E3779B97F4A7C15ull + 1;
  for (int64_t i = 0; i < n; ++i) {
    s ^= s >> 12;
    s ^= s << 25;
    s ^= s >> 27;
    const uint64_t r = s * 0x2545F4914F6CDD1Dull;
    p[i] = lo + (hi - lo) * static_cast<float>(r >> 40) * (1.0f / 16777216.0f);
  }
}

// A parsed module with its arguments, built once per process.
struct Case {
  std::unique_ptr<Module> module;
  std::vector<Literal> args;
};

Case* GetCase(const std::string& name, const std::string& text, float lo, float hi) {
  static std::map<std::string, std::unique_ptr<Case>> cache;
  auto it = cache.find(name);
  if (it != cache.end()) return it->second.get();
  auto c = std::make_unique<Case>();
  absl::StatusOr<std::unique_ptr<Module>> m = ParseModule(text);
  if (!m.ok()) {
    std::fprintf(stderr, "%s: %s\n", name.c_str(), std::string(m.status().message()).c_str());
    std::exit(1);
  }
  absl::Status v = VerifyModule(**m);
  if (!v.ok()) {
    std::fprintf(stderr, "%s: %s\n", name.c_str(), std::string(v.message()).c_str());
    std::exit(1);
  }
  c->module = *std::move(m);
  const Computation* entry = c->module->entry();
  for (int64_t i = 0; i < entry->num_parameters(); ++i) {
    Literal lit(entry->parameter(i)->shape());
    // f32 and c64 alike: the buffer is a run of floats.
    FillUniform(reinterpret_cast<float*>(lit.data()),
                static_cast<int64_t>(lit.size_bytes() / sizeof(float)), lo, hi, 17 + i);
    c->args.push_back(std::move(lit));
  }
  Case* out = c.get();
  cache[name] = std::move(c);
  return out;
}

void RunOurs(benchmark::State& state, Case* c) {
  for (auto _ : state) {
    absl::StatusOr<cpu::RunResult> r = cpu::RunModule(*c->module, c->args);
    if (!r.ok()) {
      state.SkipWithError(std::string(r.status().message()).c_str());
      return;
    }
    benchmark::DoNotOptimize(r->results[0].data());
    benchmark::ClobberMemory();
  }
}

// ---------------------------------------------------------------- dot

std::string DotText(int n) {
  const std::string s = absl::StrCat("f32[", n, ",", n, "]{1,0}");
  return absl::StrCat("HloModule dot\nENTRY %main (a: ", s, ", b: ", s, ") -> ", s, " {\n  %a = ", s,
                      " parameter(0)\n  %b = ", s, " parameter(1)\n  ROOT %d = ", s,
                      " dot(%a, %b), lhs_contracting_dims={1}, rhs_contracting_dims={0}\n}\n");
}

void SetGflops(benchmark::State& state, double flops) {
  state.counters["GFLOP/s"] = benchmark::Counter(flops * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
}

void BM_DotOurs(benchmark::State& state, int n) {
  RunOurs(state, GetCase(absl::StrCat("dot", n), DotText(n), -1, 1));
  SetGflops(state, 2.0 * n * n * n);
}

void BM_DotBare(benchmark::State& state, int n, int threads) {
  std::vector<float> a(static_cast<size_t>(n) * n), b(a.size()), c(a.size());
  FillUniform(a.data(), n * n, -1, 1, 17);
  FillUniform(b.data(), n * n, -1, 1, 18);
  const int prev = openblas_get_num_threads();
  openblas_set_num_threads(threads);
  for (auto _ : state) {
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0f, a.data(), n, b.data(), n,
                0.0f, c.data(), n);
    benchmark::DoNotOptimize(c.data());
    benchmark::ClobberMemory();
  }
  openblas_set_num_threads(prev);
  SetGflops(state, 2.0 * n * n * n);
}

// ---------------------------------------------------------------- fft

constexpr int kFftN = 1 << 20;

void BM_FftOurs(benchmark::State& state) {
  const std::string s = absl::StrCat("c64[", kFftN, "]{0}");
  const std::string text = absl::StrCat("HloModule fft\nENTRY %main (x: ", s, ") -> ", s,
                                        " {\n  %x = ", s, " parameter(0)\n  ROOT %f = ", s,
                                        " fft(%x), fft_type=FFT, fft_length={", kFftN, "}\n}\n");
  RunOurs(state, GetCase("fft", text, -1, 1));
  state.SetItemsProcessed(state.iterations() * kFftN);
}

void BM_FftBare(benchmark::State& state, unsigned flags) {
  fftwf_complex* in = fftwf_alloc_complex(kFftN);
  fftwf_complex* out = fftwf_alloc_complex(kFftN);
  int n[1] = {kFftN};
  // FFTW_MEASURE overwrites the arrays while planning: fill after.
  fftwf_plan plan = fftwf_plan_many_dft(1, n, 1, in, nullptr, 1, 0, out, nullptr, 1, 0,
                                        FFTW_FORWARD, flags);
  FillUniform(reinterpret_cast<float*>(in), 2 * kFftN, -1, 1, 17);
  for (auto _ : state) {
    fftwf_execute(plan);
    benchmark::DoNotOptimize(out);
    benchmark::ClobberMemory();
  }
  fftwf_destroy_plan(plan);
  fftwf_free(in);
  fftwf_free(out);
  state.SetItemsProcessed(state.iterations() * kFftN);
}

// ---------------------------------------------------------------- elementwise, reduce

constexpr int64_t kEwN = int64_t{1} << 24;      // 16M
constexpr int64_t kReduceN = int64_t{1} << 26;  // 64M

void BM_Unary(benchmark::State& state, const std::string& op) {
  const std::string s = absl::StrCat("f32[", kEwN, "]{0}");
  const std::string text = absl::StrCat("HloModule u\nENTRY %main (x: ", s, ") -> ", s, " {\n  %x = ", s,
                                        " parameter(0)\n  ROOT %y = ", s, " ", op, "(%x)\n}\n");
  RunOurs(state, GetCase(op, text, -4, 4));
  state.SetItemsProcessed(state.iterations() * kEwN);
}

void BM_Add(benchmark::State& state) {
  const std::string s = absl::StrCat("f32[", kEwN, "]{0}");
  const std::string text =
      absl::StrCat("HloModule a\nENTRY %main (x: ", s, ", y: ", s, ") -> ", s, " {\n  %x = ", s,
                   " parameter(0)\n  %y = ", s, " parameter(1)\n  ROOT %z = ", s, " add(%x, %y)\n}\n");
  RunOurs(state, GetCase("add", text, -1, 1));
  state.SetItemsProcessed(state.iterations() * kEwN);
}

void BM_ReduceSum(benchmark::State& state) {
  const std::string s = absl::StrCat("f32[", kReduceN, "]{0}");
  const std::string text = absl::StrCat(
      "HloModule r\n%add (a: f32[], b: f32[]) -> f32[] {\n  %a = f32[] parameter(0)\n"
      "  %b = f32[] parameter(1)\n  ROOT %s = f32[] add(%a, %b)\n}\n"
      "ENTRY %main (x: ", s, ") -> f32[] {\n  %x = ", s,
      " parameter(0)\n  %z = f32[] constant(0)\n"
      "  ROOT %r = f32[] reduce(%x, %z), dimensions={0}, to_apply=%add\n}\n");
  RunOurs(state, GetCase("reduce_sum", text, -1, 1));
  state.SetItemsProcessed(state.iterations() * kReduceN);
}

// ---------------------------------------------------------------- conv

// N8 C64 56x56 K64 3x3 pad 1 stride 1.
constexpr double kConvFlops = 2.0 * 8 * 56 * 56 * 64 * 64 * 9;

void BM_Conv(benchmark::State& state, bool nhwc) {
  const std::string x = nhwc ? "f32[8,56,56,64]{3,2,1,0}" : "f32[8,64,56,56]{3,2,1,0}";
  const std::string w = nhwc ? "f32[3,3,64,64]{3,2,1,0}" : "f32[64,64,3,3]{3,2,1,0}";
  const std::string labels = nhwc ? "b01f_01io->b01f" : "bf01_oi01->bf01";
  const std::string text = absl::StrCat(
      "HloModule c\nENTRY %main (x: ", x, ", w: ", w, ") -> ", x, " {\n  %x = ", x,
      " parameter(0)\n  %w = ", w, " parameter(1)\n  ROOT %c = ", x,
      " convolution(%x, %w), window={size=3x3 pad=1_1x1_1}, dim_labels=", labels, "\n}\n");
  RunOurs(state, GetCase(nhwc ? "conv_nhwc" : "conv_nchw", text, -1, 1));
  SetGflops(state, kConvFlops);
}

// ---------------------------------------------------- skinny dot (decode)

// A decode step's logits: [4096, 32000] weight contracted on its first dim
// with 4 tokens' [4096, 4] activations (the corpus llama's %dot.220).
constexpr int kSkinnyK = 4096, kSkinnyM = 32000, kSkinnyN = 4;

void BM_SkinnyOurs(benchmark::State& state) {
  const std::string text = absl::StrCat(
      "HloModule skinny\nENTRY %main (w: f32[", kSkinnyK, ",", kSkinnyM, "], x: f32[", kSkinnyK, ",",
      kSkinnyN, "]) -> f32[", kSkinnyM, ",", kSkinnyN, "] {\n  %w = f32[", kSkinnyK, ",", kSkinnyM,
      "] parameter(0)\n  %x = f32[", kSkinnyK, ",", kSkinnyN, "] parameter(1)\n  ROOT %d = f32[",
      kSkinnyM, ",", kSkinnyN, "] dot(%w, %x), lhs_contracting_dims={0}, rhs_contracting_dims={0}\n}\n");
  RunOurs(state, GetCase("skinny", text, -1, 1));
  state.counters["GB/s"] = benchmark::Counter(4.0 * kSkinnyK * kSkinnyM * 1e-9,
                                              benchmark::Counter::kIsIterationInvariantRate);
}

void BM_SkinnyBare(benchmark::State& state, int threads) {
  std::vector<float> w(static_cast<size_t>(kSkinnyK) * kSkinnyM), x(kSkinnyK * kSkinnyN),
      c(kSkinnyM * kSkinnyN);
  FillUniform(w.data(), static_cast<int64_t>(w.size()), -1, 1, 17);
  FillUniform(x.data(), static_cast<int64_t>(x.size()), -1, 1, 18);
  const int prev = openblas_get_num_threads();
  openblas_set_num_threads(threads);
  for (auto _ : state) {
    cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, kSkinnyM, kSkinnyN, kSkinnyK, 1.0f, w.data(),
                kSkinnyM, x.data(), kSkinnyN, 0.0f, c.data(), kSkinnyN);
    benchmark::DoNotOptimize(c.data());
    benchmark::ClobberMemory();
  }
  openblas_set_num_threads(prev);
  state.counters["GB/s"] = benchmark::Counter(4.0 * kSkinnyK * kSkinnyM * 1e-9,
                                              benchmark::Counter::kIsIterationInvariantRate);
}

// What the dot kernel did before the skinny path: 256-row tiles of C, one
// single-threaded cblas_sgemm each, over the pool.
void BM_SkinnyTiled(benchmark::State& state) {
  std::vector<float> w(static_cast<size_t>(kSkinnyK) * kSkinnyM), x(kSkinnyK * kSkinnyN),
      c(kSkinnyM * kSkinnyN);
  FillUniform(w.data(), static_cast<int64_t>(w.size()), -1, 1, 17);
  FillUniform(x.data(), static_cast<int64_t>(x.size()), -1, 1, 18);
  const int prev = openblas_get_num_threads();
  openblas_set_num_threads(1);
  constexpr int kTile = 256;
  for (auto _ : state) {
    cpu::ParallelFor((kSkinnyM + kTile - 1) / kTile, 1, [&](int64_t t0, int64_t t1) {
      for (int64_t t = t0; t < t1; ++t) {
        const int rows = static_cast<int>(std::min<int64_t>(kTile, kSkinnyM - t * kTile));
        cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, rows, kSkinnyN, kSkinnyK, 1.0f,
                    w.data() + t * kTile, kSkinnyM, x.data(), kSkinnyN, 0.0f,
                    c.data() + t * kTile * kSkinnyN, kSkinnyN);
      }
    });
    benchmark::DoNotOptimize(c.data());
    benchmark::ClobberMemory();
  }
  openblas_set_num_threads(prev);
  state.counters["GB/s"] = benchmark::Counter(4.0 * kSkinnyK * kSkinnyM * 1e-9,
                                              benchmark::Counter::kIsIterationInvariantRate);
}

// The bound: reading the weight once (8 interleaved sums, one thread per half).
void BM_SkinnyReadOnce(benchmark::State& state) {
  std::vector<float> w(static_cast<size_t>(kSkinnyK) * kSkinnyM);
  FillUniform(w.data(), static_cast<int64_t>(w.size()), -1, 1, 17);
  for (auto _ : state) {
    float total = 0;
    std::mutex mu;
    cpu::ParallelFor(static_cast<int64_t>(w.size()) / 4096, 1, [&](int64_t b0, int64_t b1) {
      float part[8] = {0, 0, 0, 0, 0, 0, 0, 0};
      for (int64_t i = b0 * 4096; i < b1 * 4096; i += 8)
        for (int l = 0; l < 8; ++l) part[l] += w[i + l];
      std::lock_guard<std::mutex> lock(mu);
      for (float p : part) total += p;
    });
    benchmark::DoNotOptimize(total);
  }
  state.counters["GB/s"] = benchmark::Counter(4.0 * kSkinnyK * kSkinnyM * 1e-9,
                                              benchmark::Counter::kIsIterationInvariantRate);
}

// ---------------------------------------------------------------- pooling

// reduce-window as pooling (the CNN of bench/hlo/models has three such
// max-pools): NHWC 8x64x64x32 2x2/2 max, the same data as NCHW
// 8x32x64x64, and a 3x3/1 SAME sum over NHWC (what an avg-pool runs).
void BM_Pool(benchmark::State& state, const std::string& name) {
  const bool nchw = name == "max_pool_nchw";
  const bool sum = name == "sum_pool_3x3_nhwc";
  const std::string x = nchw ? "f32[8,32,64,64]{3,2,1,0}" : "f32[8,64,64,32]{3,2,1,0}";
  const std::string y = nchw ? "f32[8,32,32,32]{3,2,1,0}" : sum ? x : "f32[8,32,32,32]{3,2,1,0}";
  const std::string window = nchw ? "size=1x1x2x2 stride=1x1x2x2"
                             : sum ? "size=1x3x3x1 pad=0_0x1_1x1_1x0_0"
                                   : "size=1x2x2x1 stride=1x2x2x1";
  const std::string op = sum ? "add" : "maximum";
  const std::string text = absl::StrCat(
      "HloModule p\n%red (a: f32[], b: f32[]) -> f32[] {\n  %a = f32[] parameter(0)\n"
      "  %b = f32[] parameter(1)\n  ROOT %r = f32[] ", op, "(%a, %b)\n}\n"
      "ENTRY %main (x: ", x, ") -> ", y, " {\n  %x = ", x, " parameter(0)\n  %z = f32[] constant(",
      sum ? "0" : "-inf", ")\n  ROOT %p = ", y, " reduce-window(%x, %z), window={", window,
      "}, to_apply=%red\n}\n");
  RunOurs(state, GetCase(name, text, -1, 1));
  state.SetItemsProcessed(state.iterations() * 8 * 64 * 64 * 32);
}

// ---------------------------------------------------------------- transpose

// transpose 4096x4096 f32 (64 MB in, 64 MB out) and the copy bandwidth it is
// measured against: memcpy of the same 64 MB into a preallocated 64 MB
// buffer, on one thread (glibc's memcpy) and split over the pool (the bound
// at the pool's width). The bytes moved are the same: read 64 MB, write 64
// MB, so copy time / transpose time is the fraction of copy bandwidth.
constexpr int kTransposeN = 4096;
constexpr int64_t kCopyBytes = int64_t{4} * kTransposeN * kTransposeN;

void BM_TransposeOurs(benchmark::State& state) {
  const std::string s = absl::StrCat("f32[", kTransposeN, ",", kTransposeN, "]{1,0}");
  const std::string text =
      absl::StrCat("HloModule t\nENTRY %main (x: ", s, ") -> ", s, " {\n  %x = ", s,
                   " parameter(0)\n  ROOT %t = ", s, " transpose(%x), dimensions={1,0}\n}\n");
  RunOurs(state, GetCase("transpose", text, -1, 1));
  state.SetBytesProcessed(state.iterations() * 2 * kCopyBytes);
}

void BM_Copy(benchmark::State& state, bool pool) {
  // Literal storage: the same allocator (2 MiB aligned, huge pages) as our
  // results; both buffers touched before timing.
  Literal src(Shape::Array(PrimitiveType::U8, {kCopyBytes}));
  Literal dst(Shape::Array(PrimitiveType::U8, {kCopyBytes}));
  std::memset(src.data(), 1, kCopyBytes);
  uint8_t* d = dst.data();
  const uint8_t* s = src.data();
  constexpr int64_t kChunk = int64_t{1} << 20;
  for (auto _ : state) {
    if (pool) {
      cpu::ParallelFor(kCopyBytes / kChunk, 1, [&](int64_t b, int64_t e) {
        std::memcpy(d + b * kChunk, s + b * kChunk, static_cast<size_t>((e - b) * kChunk));
      });
    } else {
      std::memcpy(d, s, static_cast<size_t>(kCopyBytes));
    }
    benchmark::DoNotOptimize(d);
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(state.iterations() * 2 * kCopyBytes);
}

void Register() {
  auto reg = [](const std::string& name, auto fn) {
    return benchmark::RegisterBenchmark(name.c_str(), fn)->UseRealTime()->Unit(benchmark::kMillisecond);
  };
  for (int n : {1024, 2048}) {
    const std::string c = absl::StrCat("dot_f32_", n);
    // The bare peer runs first (OpenBLAS untouched by our backend yet).
    reg(c + "/bare_sgemm_t2", [n](benchmark::State& s) { BM_DotBare(s, n, 2); });
    reg(c + "/ours", [n](benchmark::State& s) { BM_DotOurs(s, n); });
    reg(c + "/bare_sgemm_t1", [n](benchmark::State& s) { BM_DotBare(s, n, 1); });
  }
  reg("dot_skinny_32000x4x4096/read_weight_once", [](benchmark::State& s) { BM_SkinnyReadOnce(s); });
  reg("dot_skinny_32000x4x4096/ours", [](benchmark::State& s) { BM_SkinnyOurs(s); });
  reg("dot_skinny_32000x4x4096/tiled_sgemm", [](benchmark::State& s) { BM_SkinnyTiled(s); });
  reg("dot_skinny_32000x4x4096/bare_sgemm_t1", [](benchmark::State& s) { BM_SkinnyBare(s, 1); });
  reg("dot_skinny_32000x4x4096/bare_sgemm_t2", [](benchmark::State& s) { BM_SkinnyBare(s, 2); });
  reg("fft_c64_2^20/ours", [](benchmark::State& s) { BM_FftOurs(s); });
  reg("fft_c64_2^20/bare_fftw", [](benchmark::State& s) { BM_FftBare(s, FFTW_ESTIMATE); });
  reg("fft_c64_2^20/bare_fftw_measure", [](benchmark::State& s) { BM_FftBare(s, FFTW_MEASURE); });
  reg("tanh_f32_16M/ours", [](benchmark::State& s) { BM_Unary(s, "tanh"); });
  reg("add_f32_16M/ours", [](benchmark::State& s) { BM_Add(s); });
  reg("reduce_sum_f32_64M/ours", [](benchmark::State& s) { BM_ReduceSum(s); });
  reg("conv_nhwc/ours", [](benchmark::State& s) { BM_Conv(s, true); });
  reg("conv_nchw/ours", [](benchmark::State& s) { BM_Conv(s, false); });
  reg("copy_64MB/memcpy", [](benchmark::State& s) { BM_Copy(s, false); });
  reg("copy_64MB/memcpy_pool", [](benchmark::State& s) { BM_Copy(s, true); });
  reg("transpose_f32_4096/ours", [](benchmark::State& s) { BM_TransposeOurs(s); });
  for (const char* pool : {"max_pool_nhwc", "max_pool_nchw", "sum_pool_3x3_nhwc"})
    reg(absl::StrCat(pool, "/ours"), [pool](benchmark::State& s) { BM_Pool(s, pool); });
}

}  // namespace
}  // namespace hlo

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  // The bare sgemm rows run the kernels our backend runs (openblas_core.h).
  hlo::cpu::SelectOpenBlasKernels();
  benchmark::AddCustomContext("hlo_cpu_threads", std::to_string(hlo::cpu::ThreadPoolWidth()));
  benchmark::AddCustomContext("openblas_config", openblas_get_config());
  benchmark::AddCustomContext("openblas_corename", openblas_get_corename());
  benchmark::AddCustomContext("openblas_default_threads", std::to_string(openblas_get_num_threads()));
  const char* ct = std::getenv("OPENBLAS_CORETYPE");
  benchmark::AddCustomContext("OPENBLAS_CORETYPE", ct ? ct : "(unset)");
  hlo::Register();
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
