// RunOptions::max_while_trips: a run whose loops take more trips than the
// budget fails with ResourceExhausted (the backend fuzzer's guard against
// loops that never end); within the budget, or without one, values are
// unchanged.
#include <cstdint>
#include <string>
#include <vector>

#include "backend_cpu/executor.h"
#include "gtest/gtest.h"

namespace hlo::cpu {
namespace {

// Computations PREFIXcond and PREFIXbody of a loop over (i, n) that adds 1
// to i while `compare(i, n), direction=DIRECTION` holds.
std::string CountingComputations(const std::string& prefix, const std::string& direction) {
  return prefix + R"(cond {
  s = (s32[], s32[]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  n = s32[] get-tuple-element(s), index=1
  ROOT c = pred[] compare(i, n), direction=)" + direction + "\n}\n" + prefix + R"(body {
  s = (s32[], s32[]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  n = s32[] get-tuple-element(s), index=1
  one = s32[] constant(1)
  j = s32[] add(i, one)
  ROOT t = (s32[], s32[]) tuple(j, n)
}
)";
}

// Counts i up from 0 while `compare(i, n), direction=DIRECTION` holds; n is
// the argument. Returns the final i.
std::string CountingLoop(const std::string& direction) {
  return "HloModule m\n" + CountingComputations("", direction) + R"(
ENTRY e {
  n = s32[] parameter(0)
  zero = s32[] constant(0)
  init = (s32[], s32[]) tuple(zero, n)
  w = (s32[], s32[]) while(init), condition=cond, body=body
  ROOT r = s32[] get-tuple-element(w), index=0
})";
}

// Runs `text` with the budget `trips`: the status of the run (its value,
// when it runs, in *value).
absl::Status RunWithBudget(const std::string& text, const std::vector<std::string>& args,
                           int64_t trips, int64_t* value) {
  RunOptions options;
  options.max_while_trips = trips;
  absl::StatusOr<Literal> r = RunHloText(text, args, options);
  if (r.ok()) *value = r->GetInt(0);
  return r.status();
}

TEST(WhileBudget, LoopWithinBudgetRunsToTheEnd) {
  int64_t value = 0;
  ASSERT_TRUE(RunWithBudget(CountingLoop("LT"), {"s32[] 10"}, 10, &value).ok());
  EXPECT_EQ(value, 10);
}

TEST(WhileBudget, OneTripPastTheBudgetFails) {
  int64_t value = 0;
  absl::Status st = RunWithBudget(CountingLoop("LT"), {"s32[] 11"}, 10, &value);
  EXPECT_EQ(st.code(), absl::StatusCode::kResourceExhausted) << st;
  EXPECT_NE(st.message().find("while %w"), std::string::npos) << st;
}

TEST(WhileBudget, EndlessLoopStopsWithAStatus) {
  // i counts up from 0 and never equals -1 (it wraps only after 2^32 trips).
  int64_t value = 0;
  absl::Status st = RunWithBudget(CountingLoop("NE"), {"s32[] -1"}, 1000, &value);
  EXPECT_EQ(st.code(), absl::StatusCode::kResourceExhausted) << st;
}

TEST(WhileBudget, NoBudgetByDefault) {
  int64_t value = 0;
  ASSERT_TRUE(RunWithBudget(CountingLoop("LT"), {"s32[] 5000"}, 0, &value).ok());
  EXPECT_EQ(value, 5000);
}

TEST(WhileBudget, TheBudgetIsSharedByTheLoopsOfARun) {
  // Two loops, 3 and 4 trips: 7 in all.
  const std::string text = "HloModule m\n" + CountingComputations("a_", "LT") +
                           CountingComputations("b_", "LT") + R"(
ENTRY e {
  zero = s32[] constant(0)
  three = s32[] constant(3)
  four = s32[] constant(4)
  a0 = (s32[], s32[]) tuple(zero, three)
  a = (s32[], s32[]) while(a0), condition=a_cond, body=a_body
  b0 = (s32[], s32[]) tuple(zero, four)
  b = (s32[], s32[]) while(b0), condition=b_cond, body=b_body
  ai = s32[] get-tuple-element(a), index=0
  bi = s32[] get-tuple-element(b), index=0
  ROOT r = s32[] add(ai, bi)
})";
  int64_t value = 0;
  ASSERT_TRUE(RunWithBudget(text, {}, 7, &value).ok());
  EXPECT_EQ(value, 7);
  EXPECT_EQ(RunWithBudget(text, {}, 6, &value).code(), absl::StatusCode::kResourceExhausted);
}

}  // namespace
}  // namespace hlo::cpu
