#include "backend_cpu/openblas_core.h"

#include <cstdlib>

#include "backend_cpu/op_eval.h"
#include "gtest/gtest.h"

namespace hlo::cpu {
namespace {

TEST(OpenBlasCoreTest, BestFamilyFollowsTheWidestInstructionSet) {
  EXPECT_EQ(BestOpenBlasCoreFor(true, true, true), "SkylakeX");
  EXPECT_EQ(BestOpenBlasCoreFor(false, true, true), "Haswell");
  EXPECT_EQ(BestOpenBlasCoreFor(false, false, true), "Sandybridge");
  EXPECT_EQ(BestOpenBlasCoreFor(false, false, false), "");
}

// On a CPU that OpenBLAS 0.3.21 does not know (an Intel Xeon of model 207
// with AVX-512), it ran its SSE3 "Prescott" kernels at a quarter of the
// rate. Once the backend has prepared BLAS, a CPU with AVX2 never runs them.
TEST(OpenBlasCoreTest, ACpuWithAvx2NeverRunsTheFallbackKernels) {
  UseSingleThreadedBlas();
  const std::string core = OpenBlasCoreName();
  if (core.empty()) GTEST_SKIP() << "the BLAS library in use is not OpenBLAS";
  if (std::getenv("OPENBLAS_CORETYPE") != nullptr) GTEST_SKIP() << "OPENBLAS_CORETYPE is set";
  __builtin_cpu_init();
  if (!__builtin_cpu_supports("avx2") || !__builtin_cpu_supports("fma")) GTEST_SKIP() << "no AVX2";
  EXPECT_NE(core, "Prescott");
  EXPECT_EQ(std::getenv("OPENBLAS_CORETYPE"), nullptr) << "the variable is removed again";
}

}  // namespace
}  // namespace hlo::cpu
