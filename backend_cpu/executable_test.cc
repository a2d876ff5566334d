// Executable: one preparation, many runs. Each run must see only its own
// arguments (nothing left over from the previous run in the shared plans),
// fusions keep running as one kernel, and concurrent runs of one
// Executable give the values of separate runs.
#include <string>
#include <thread>
#include <vector>

#include "backend_cpu/executor.h"
#include "backend_cpu/float_mode.h"
#include "parser/parser.h"
#include "gtest/gtest.h"

namespace hlo::cpu {
namespace {

// A fusion (block plan), a loop (a called computation's schedule run per
// trip) and a reduction.
constexpr const char* kModule = R"(
HloModule m

fused {
  a = f32[4,8] parameter(0)
  b = f32[4,8] parameter(1)
  m = f32[4,8] multiply(a, b)
  ROOT r = f32[4,8] add(m, a)
}

add {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT s = f32[] add(x, y)
}

cond {
  st = (s32[], f32[4,8]) parameter(0)
  i = s32[] get-tuple-element(st), index=0
  three = s32[] constant(3)
  ROOT lt = pred[] compare(i, three), direction=LT
}

body {
  st = (s32[], f32[4,8]) parameter(0)
  i = s32[] get-tuple-element(st), index=0
  v = f32[4,8] get-tuple-element(st), index=1
  one = s32[] constant(1)
  j = s32[] add(i, one)
  w = f32[4,8] add(v, v)
  ROOT t = (s32[], f32[4,8]) tuple(j, w)
}

ENTRY e {
  p = f32[4,8] parameter(0)
  f = f32[4,8] fusion(p, p), kind=kLoop, calls=fused
  zero = s32[] constant(0)
  init = (s32[], f32[4,8]) tuple(zero, f)
  loop = (s32[], f32[4,8]) while(init), condition=cond, body=body
  v = f32[4,8] get-tuple-element(loop), index=1
  c = f32[] constant(0)
  ROOT s = f32[] reduce(v, c), dimensions={0,1}, to_apply=add
}
)";

Literal Filled(float x) {
  Literal lit(Shape::Array(PrimitiveType::F32, {4, 8}));
  for (int64_t k = 0; k < 32; ++k) lit.SetRaw<float>(k, x);
  return lit;
}

// sum over 32 elements of 8 * (x*x + x): the fusion, then three doublings.
float Expected(float x) { return 32.0f * 8.0f * (x * x + x); }

TEST(ExecutableTest, RunsRepeatedlyWithFreshArguments) {
  absl::StatusOr<std::unique_ptr<Module>> module = ParseModule(kModule);
  ASSERT_TRUE(module.ok()) << module.status();
  const Executable exe(**module);
  for (float x : {1.0f, 2.0f, 3.0f, 2.0f}) {
    absl::StatusOr<RunResult> r = exe.Run({Filled(x)});
    ASSERT_TRUE(r.ok()) << r.status();
    EXPECT_EQ(r->results[0].GetRaw<float>(0), Expected(x)) << "x = " << x;
  }
  // Op by op (fused_execution off) on the same Executable: same value.
  RunOptions op_by_op;
  op_by_op.fused_execution = false;
  absl::StatusOr<RunResult> r = exe.Run({Filled(2.0f)}, op_by_op);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->results[0].GetRaw<float>(0), Expected(2.0f));
}

// A run flushes subnormals (as XLA:CPU does) and gives the caller its own
// floating-point mode back.
TEST(ExecutableTest, RunFlushesSubnormalsAndRestoresTheCallersMode) {
  absl::StatusOr<std::unique_ptr<Module>> module = ParseModule(R"(
HloModule square
ENTRY e {
  p = f32[4,8] parameter(0)
  ROOT s = f32[4,8] multiply(p, p)
}
)");
  ASSERT_TRUE(module.ok()) << module.status();
  const Executable exe(**module);
  const uint32_t before = CurrentFloatMode();
  absl::StatusOr<RunResult> r = exe.Run({Filled(1e-20f)});  // 1e-40 is subnormal
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(CurrentFloatMode(), before);
#if defined(__x86_64__)
  for (int64_t k = 0; k < 32; ++k) EXPECT_EQ(r->results[0].GetRaw<float>(k), 0.0f) << k;
  volatile float tiny = 1e-20f;
  EXPECT_NE(tiny * tiny, 0.0f) << "the caller's thread was left flushing";
#endif
}

TEST(ExecutableTest, ConcurrentRunsAreIndependent) {
  absl::StatusOr<std::unique_ptr<Module>> module = ParseModule(kModule);
  ASSERT_TRUE(module.ok()) << module.status();
  const Executable exe(**module);
  std::vector<float> got(4, -1.0f);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&, t] {
      for (int rep = 0; rep < 20; ++rep) {
        absl::StatusOr<RunResult> r = exe.Run({Filled(static_cast<float>(t + 1))});
        const float v = r.ok() ? r->results[0].GetRaw<float>(0) : -2.0f;
        if (rep == 0 || v != got[t]) got[t] = rep == 0 ? v : -3.0f;
      }
    });
  for (std::thread& th : threads) th.join();
  for (int t = 0; t < 4; ++t) EXPECT_EQ(got[t], Expected(static_cast<float>(t + 1))) << "thread " << t;
}

TEST(ExecutableTest, ErrorsComeFromRunNotConstruction) {
  absl::StatusOr<std::unique_ptr<Module>> module = ParseModule(kModule);
  ASSERT_TRUE(module.ok()) << module.status();
  const Executable exe(**module);
  absl::StatusOr<RunResult> r = exe.Run({});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("takes 1 arguments, got 0"), std::string::npos) << r.status();
}

}  // namespace
}  // namespace hlo::cpu
