// Parser/verifier throughput on a large generated module.
//
// The module is generated in memory (nothing is read from disk): a
// transformer-MLP-like stack of "layers", each ~24 instructions with the mix
// seen in real XLA dumps — dot, broadcast, elementwise, compare/select,
// convert, reshape/transpose, reduce with a reducer computation, slices,
// concatenate, a fusion with its own fused computation, custom-call with a
// backend_config, tuple/get-tuple-element — and metadata on every
// instruction. The size sweep (5 MB, 50 MB; 50 MB ~ 200k instructions)
// shows whether time grows linearly with the input: bytes/s should be flat.
// Rates are per CPU second (parsing is single-threaded; CPU time is steadier
// than wall time on a shared machine).
//
// Run: build/bench/parse_bench   (see bench/README.md)
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <string>

#include "absl/strings/str_cat.h"
#include "benchmark/benchmark.h"
#include "ir/printer.h"
#include "ir/verifier.h"
#include "parser/parser.h"
#include "passes/pipeline.h"
#include "tools/heap_setup.h"

namespace hlo {
namespace {

constexpr int kBatch = 32;
constexpr int kHidden = 256;

struct Generated {
  // Shared, as hlo-opt and hlo-run hold their input: the parsed module keeps
  // a reference instead of a copy.
  std::shared_ptr<const std::string> text;
  int64_t instructions = 0;
};

// Appends one layer to `entry` (and its fused computation to `fused`);
// `h` is the name of the layer input, returns the name of its output.
std::string AppendLayer(int i, const std::string& h, std::string* entry, std::string* fused,
                        int64_t* count) {
  const std::string act = absl::StrCat("f32[", kBatch, ",", kHidden, "]{1,0}");
  const std::string half = absl::StrCat("f32[", kBatch, ",", kHidden / 2, "]{1,0}");
  const std::string s = absl::StrCat(".", i);
  auto meta = [&](absl::string_view op_type, absl::string_view op) {
    return absl::StrCat(", metadata={op_type=\"", op_type, "\" op_name=\"jit(train_step)/layer_", i,
                        "/", op, "\" source_file=\"/workspace/model/layers.py\" source_line=",
                        100 + i % 400, "}");
  };
  auto inst = [&](absl::string_view name, absl::string_view text, absl::string_view op_type,
                  absl::string_view op) {
    absl::StrAppend(entry, "  %", name, s, " = ", text, meta(op_type, op), "\n");
    ++*count;
  };
  inst("dot", absl::StrCat(act, " dot(", act, " %", h, ", f32[", kHidden, ",", kHidden,
                           "]{1,0} %w), lhs_contracting_dims={1}, rhs_contracting_dims={0}"),
       "dot_general", "dense/dot_general");
  inst("bias", absl::StrCat(act, " broadcast(f32[", kHidden, "]{0} %b), dimensions={1}"),
       "broadcast_in_dim", "dense/broadcast_in_dim");
  inst("add", absl::StrCat(act, " add(%dot", s, ", %bias", s, ")"), "add", "dense/add");
  inst("zero", "f32[] constant(0)", "constant", "relu/constant");
  inst("zeros", absl::StrCat(act, " broadcast(f32[] %zero", s, "), dimensions={}"),
       "broadcast_in_dim", "relu/broadcast_in_dim");
  inst("relu", absl::StrCat(act, " maximum(%add", s, ", %zeros", s, ")"), "max", "relu/max");
  inst("gt", absl::StrCat("pred[", kBatch, ",", kHidden, "]{1,0} compare(%add", s, ", %zeros", s,
                          "), direction=GT"),
       "gt", "relu/gt");
  inst("sel", absl::StrCat(act, " select(%gt", s, ", %relu", s, ", %zeros", s, ")"), "select_n",
       "relu/select_n");
  inst("lo", absl::StrCat("bf16[", kBatch, ",", kHidden, "]{1,0} convert(%sel", s, ")"),
       "convert_element_type", "cast/convert_element_type");
  inst("hi", absl::StrCat(act, " convert(%lo", s, ")"), "convert_element_type",
       "cast/convert_element_type");
  inst("split", absl::StrCat("f32[", kBatch, ",16,16]{2,1,0} reshape(%hi", s, ")"), "reshape",
       "heads/reshape");
  inst("swap", absl::StrCat("f32[", kBatch, ",16,16]{2,1,0} transpose(%split", s,
                            "), dimensions={0,2,1}"),
       "transpose", "heads/transpose");
  inst("merge", absl::StrCat(act, " reshape(%swap", s, ")"), "reshape", "heads/reshape");
  inst("sum", absl::StrCat("f32[", kBatch, "]{0} reduce(%merge", s, ", %zero", s,
                           "), dimensions={1}, to_apply=%region_add"),
       "reduce_sum", "norm/reduce_sum");
  inst("sumb", absl::StrCat(act, " broadcast(%sum", s, "), dimensions={0}"), "broadcast_in_dim",
       "norm/broadcast_in_dim");
  inst("norm", absl::StrCat(act, " divide(%merge", s, ", %sumb", s, ")"), "div", "norm/div");
  inst("left", absl::StrCat(half, " slice(%norm", s, "), slice={[0:", kBatch, "], [0:",
                            kHidden / 2, "]}"),
       "slice", "roll/slice");
  inst("right", absl::StrCat(half, " slice(%norm", s, "), slice={[0:", kBatch, "], [",
                             kHidden / 2, ":", kHidden, "]}"),
       "slice", "roll/slice");
  inst("roll", absl::StrCat(act, " concatenate(%right", s, ", %left", s, "), dimensions={1}"),
       "concatenate", "roll/concatenate");
  inst("fus", absl::StrCat(act, " fusion(%roll", s, ", %relu", s,
                           "), kind=kLoop, calls=%fused_tanh_add", s),
       "tanh", "gelu/tanh");
  inst("cc", absl::StrCat(act, " custom-call(%fus", s,
                          "), custom_call_target=\"annotate_device_placement\", "
                          "backend_config={\"layer\":\"",
                          i, "\",\"placement\":\"device\"}"),
       "annotate", "placement/annotate");
  inst("tup", absl::StrCat("(", act, ", f32[", kBatch, "]{0}) tuple(%cc", s, ", %sum", s, ")"),
       "tuple", "out/tuple");
  inst("h", absl::StrCat(act, " get-tuple-element(%tup", s, "), index=0"), "get_tuple_element",
       "out/get_tuple_element");

  absl::StrAppend(fused, "%fused_tanh_add", s, " (p0: f32[", kBatch, ",", kHidden, "], p1: f32[",
                  kBatch, ",", kHidden, "]) -> f32[", kBatch, ",", kHidden, "] {\n", "  %p0 = ",
                  act, " parameter(0)\n", "  %p1 = ", act, " parameter(1)\n", "  %t = ", act,
                  " tanh(%p0)\n", "  ROOT %r = ", act, " add(%t, %p1)\n", "}\n\n");
  *count += 4;
  return absl::StrCat("h", s);
}

Generated Generate(size_t target_bytes) {
  Generated g;
  const std::string act = absl::StrCat("f32[", kBatch, ",", kHidden, "]{1,0}");
  std::string entry, fused;
  entry.reserve(target_bytes + (1 << 20));
  std::string h = "x";
  int i = 0;
  while (entry.size() + fused.size() < target_bytes) {
    h = AppendLayer(i++, h, &entry, &fused, &g.instructions);
  }
  g.text = std::make_shared<const std::string>(absl::StrCat(
      "HloModule bench_", i, "_layers, entry_computation_layout={(", act, ", f32[", kHidden, ",",
      kHidden, "]{1,0}, f32[", kHidden, "]{0})->", act, "}\n\n",
      "%region_add (a: f32[], b: f32[]) -> f32[] {\n  %a = f32[] parameter(0)\n"
      "  %b = f32[] parameter(1)\n  ROOT %sum = f32[] add(%a, %b)\n}\n\n",
      fused, "ENTRY %main (x: ", "f32[", kBatch, ",", kHidden, "], w: f32[", kHidden, ",", kHidden,
      "], b: f32[", kHidden, "]) -> f32[", kBatch, ",", kHidden, "] {\n", "  %x = ", act,
      " parameter(0)\n  %w = f32[", kHidden, ",", kHidden, "]{1,0} parameter(1)\n  %b = f32[",
      kHidden, "]{0} parameter(2)\n", entry, "  ROOT %out = ", act, " copy(%", h, ")\n}\n"));
  g.instructions += 3 + 3 + 1;
  return g;
}

const Generated& GetModule(int64_t megabytes) {
  static auto* cache = new std::map<int64_t, Generated>();
  auto it = cache->find(megabytes);
  if (it == cache->end()) {
    it = cache->emplace(megabytes, Generate(static_cast<size_t>(megabytes) << 20)).first;
  }
  return it->second;
}

void SetCounters(benchmark::State& state, const Generated& g) {
  state.SetBytesProcessed(state.iterations() * static_cast<int64_t>(g.text->size()));
  state.counters["MB"] = static_cast<double>(g.text->size()) / (1 << 20);
  state.counters["instructions"] = static_cast<double>(g.instructions);
  state.counters["inst/s"] = benchmark::Counter(static_cast<double>(g.instructions),
                                                benchmark::Counter::kIsIterationInvariantRate);
}

// Checks once, outside the timed loop, that the generated module is valid.
bool Precheck(benchmark::State& state, const Generated& g) {
  absl::StatusOr<std::unique_ptr<Module>> m = ParseModule(g.text);
  if (!m.ok()) {
    state.SkipWithError(absl::StrCat("generated module does not parse: ",
                                     m.status().message().substr(0, 500))
                            .c_str());
    return false;
  }
  absl::Status st = VerifyModule(**m);
  if (!st.ok()) {
    state.SkipWithError(
        absl::StrCat("generated module does not verify: ", st.message().substr(0, 500)).c_str());
    return false;
  }
  return true;
}

void BM_ParseVerify(benchmark::State& state) {
  const Generated& g = GetModule(state.range(0));
  if (!Precheck(state, g)) return;
  for (auto _ : state) {
    absl::StatusOr<std::unique_ptr<Module>> m = ParseModule(g.text);
    absl::Status st = VerifyModule(**m);
    benchmark::DoNotOptimize(st);
    benchmark::DoNotOptimize(m);
  }
  SetCounters(state, g);
}

void BM_ParseOnly(benchmark::State& state) {
  const Generated& g = GetModule(state.range(0));
  if (!Precheck(state, g)) return;
  for (auto _ : state) {
    absl::StatusOr<std::unique_ptr<Module>> m = ParseModule(g.text);
    benchmark::DoNotOptimize(m);
  }
  SetCounters(state, g);
}

void BM_Print(benchmark::State& state) {
  const Generated& g = GetModule(state.range(0));
  if (!Precheck(state, g)) return;
  absl::StatusOr<std::unique_ptr<Module>> m = ParseModule(g.text);
  for (auto _ : state) {
    std::string text = PrintModule(**m);
    benchmark::DoNotOptimize(text);
  }
  SetCounters(state, g);
}

// The default -O pipeline on the generated module (issue 4's target: a
// 100k-instruction module, the 20 MB case, in under 2 s, growing linearly).
// Parsing a fresh copy per iteration is outside the timed region.
void BM_DefaultPipeline(benchmark::State& state) {
  const Generated& g = GetModule(state.range(0));
  if (!Precheck(state, g)) return;
  const Pipeline pipeline = DefaultPipeline();
  for (auto _ : state) {
    state.PauseTiming();
    absl::StatusOr<std::unique_ptr<Module>> m = ParseModule(g.text);
    state.ResumeTiming();
    absl::StatusOr<bool> changed = pipeline.Run(**m);
    if (!changed.ok()) {
      state.SkipWithError(std::string(changed.status().message().substr(0, 500)).c_str());
      return;
    }
    state.PauseTiming();
    m->reset();  // freeing the module is not the pipeline's time
    state.ResumeTiming();
  }
  SetCounters(state, g);
}

// 2 MB fits this machine's caches; 10 to 40 MB do not, and show how the
// time grows with size once the module lives in memory.
BENCHMARK(BM_DefaultPipeline)->Arg(2)->Arg(10)->Arg(20)->Arg(40)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ParseVerify)->Arg(5)->Arg(50)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ParseOnly)->Arg(5)->Arg(50)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Print)->Arg(5)->Arg(50)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace hlo

// `parse_bench --dump=MB` writes the generated MB-megabyte module to stdout
// instead of benchmarking (to profile hlo-opt on the same text).
int main(int argc, char** argv) {
  // The same heap set-up as hlo-opt/hlo-run (tools/heap_setup.h; with
  // HLO_HUGEPAGE_HEAP=1 on 2 MiB pages).
  hlo::ConfigureHeap();
  if (argc == 2 && absl::string_view(argv[1]).substr(0, 7) == "--dump=") {
    const hlo::Generated& g = hlo::GetModule(std::atoll(argv[1] + 7));
    std::fwrite(g.text->data(), 1, g.text->size(), stdout);
    return 0;
  }
  benchmark::AddCustomContext("heap_allocator", hlo::HeapAllocatorName());
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
