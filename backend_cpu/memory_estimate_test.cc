// The memory estimate of hlo-run --memory-limit: parameters, the liveness
// walk's peak, devices, the largest buffers, limit parsing.
#include "backend_cpu/memory_estimate.h"

#include <memory>

#include "gtest/gtest.h"
#include "parser/parser.h"

namespace hlo::cpu {
namespace {

std::unique_ptr<Module> Parse(const char* text) {
  absl::StatusOr<std::unique_ptr<Module>> m = ParseModule(text);
  EXPECT_TRUE(m.ok()) << m.status();
  return m.ok() ? *std::move(m) : nullptr;
}

// A chain where each value dies at its next user: at most two 400-byte
// values live at once (the operand and the result being made), plus the
// 40-byte unused negate that dies at once.
constexpr char kChain[] = R"(HloModule chain, replica_count=3
ENTRY %main (p: f32[100], q: s8[10]) -> f32[100] {
  %p = f32[100] parameter(0)
  %q = s8[10] parameter(1)
  %a = f32[100] exponential(%p)
  %b = f32[100] negate(%a)
  %c = f32[100] sine(%b)
  %d = s32[10] convert(%q)
  ROOT %e = f32[100] cosine(%c)
}
)";

TEST(MemoryEstimate, ParametersPlusPeakOfTheWalkTimesDevices) {
  std::unique_ptr<Module> m = Parse(kChain);
  ASSERT_NE(m, nullptr);
  MemoryEstimate e = EstimateMemory(*m);
  EXPECT_EQ(e.devices, 3);
  EXPECT_EQ(e.parameter_bytes, 410);
  EXPECT_EQ(e.peak_live_bytes, 800);
  EXPECT_EQ(e.total_bytes, 410 + 3 * 800);
  ASSERT_EQ(e.largest.size(), 5u);
  EXPECT_EQ(e.largest[0].bytes, 400);
  EXPECT_NE(e.largest[0].instruction.find("%p = f32[100]{0} parameter(0)"), std::string::npos);
  EXPECT_EQ(EstimateMemory(*m, 1, 1).total_bytes, 410 + 800);
}

TEST(MemoryEstimate, CheckGivesNeedLimitAndBuffers) {
  std::unique_ptr<Module> m = Parse(kChain);
  ASSERT_NE(m, nullptr);
  EXPECT_TRUE(CheckMemoryLimit(*m, 410 + 3 * 800).ok());
  absl::Status st = CheckMemoryLimit(*m, 1000);
  ASSERT_EQ(st.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_NE(st.message().find("needs about 2810 bytes"), std::string::npos) << st;
  EXPECT_NE(st.message().find("limit is 1000 bytes"), std::string::npos) << st;
  EXPECT_NE(st.message().find("%a = f32[100]{0} exponential(%p)"), std::string::npos) << st;
}

// Over MPI processes: each has its own parameters and devices, and the
// processes of one host must fit together.
TEST(MemoryEstimate, CheckPerHostOfProcesses) {
  std::unique_ptr<Module> m = Parse(kChain);
  ASSERT_NE(m, nullptr);
  const ProcessShare share{3, 2, "h"};  // 3 devices over 3 processes, 2 of them here
  EXPECT_TRUE(CheckMemoryLimit(*m, 2 * (410 + 800), 0, 0, share).ok());
  absl::Status st = CheckMemoryLimit(*m, 2 * (410 + 800) - 1, 0, 0, share);
  ASSERT_EQ(st.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_NE(st.message().find("needs about 2420 bytes on host h: 2 of the 3 processes run there, "
                              "each needing 1210 bytes"),
            std::string::npos)
      << st;
}

TEST(MemoryEstimate, HugeShapesSaturateInsteadOfWrapping) {
  std::unique_ptr<Module> m = Parse(R"(HloModule h
ENTRY %main (p: f64[4000000000,4000000000,4000000000]) -> f64[4000000000,4000000000,4000000000] {
  ROOT %p = f64[4000000000,4000000000,4000000000] parameter(0)
}
)");
  ASSERT_NE(m, nullptr);
  EXPECT_FALSE(CheckMemoryLimit(*m, int64_t{1} << 62).ok());
}

TEST(MemoryEstimate, ParseLimit) {
  EXPECT_EQ(*ParseMemoryLimit("123"), 123);
  EXPECT_EQ(*ParseMemoryLimit("2K"), 2048);
  EXPECT_EQ(*ParseMemoryLimit("3GiB"), int64_t{3} << 30);
  EXPECT_EQ(*ParseMemoryLimit("1t"), int64_t{1} << 40);
  EXPECT_GT(*ParseMemoryLimit(""), 0);
  for (const char* bad : {"0", "-5", "x", "5X", "1.5G", "G"}) EXPECT_FALSE(ParseMemoryLimit(bad).ok()) << bad;
}

}  // namespace
}  // namespace hlo::cpu
