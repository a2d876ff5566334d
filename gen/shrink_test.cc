// The shrinker keeps what the failure needs and drops the rest.
#include "gen/shrink.h"

#include <string>

#include "gtest/gtest.h"
#include "ir/verifier.h"
#include "parser/parser.h"

namespace hlo::gen {
namespace {

constexpr char kModule[] = R"(HloModule m

ENTRY %main (a: f32[4], b: f32[4]) -> (f32[4], f32[4]) {
  %a = f32[4] parameter(0)
  %b = f32[4] parameter(1)
  %e = f32[4] exponential(%a)
  %n = f32[4] negate(%e)
  %s = f32[4] sine(%b)
  %d = f32[4] divide(%n, %s)
  %t = f32[4] tanh(%d)
  %c = f32[4] cosine(%b)
  ROOT %r = (f32[4], f32[4]) tuple(%t, %c)
}
)";

TEST(Shrink, KeepsOnlyWhatTheFailureNeeds) {
  // The "failure": the module still divides.
  auto fails = [](const std::string& t) { return t.find("divide(") != std::string::npos; };
  const std::string out = ShrinkModule(kModule, fails);
  EXPECT_TRUE(fails(out));
  for (const char* gone : {"exponential(", "negate(", "sine(", "tanh(", "cosine(", "tuple("})
    EXPECT_EQ(out.find(gone), std::string::npos) << gone << "\n" << out;
  absl::StatusOr<std::unique_ptr<Module>> m = ParseModule(out);
  ASSERT_TRUE(m.ok()) << m.status() << "\n" << out;
  EXPECT_TRUE(VerifyModule(**m).ok()) << out;
}

TEST(Shrink, NothingSmallerFailsGivesTheInput) {
  EXPECT_EQ(ShrinkModule(kModule, [](const std::string& t) { return t == kModule; }), kModule);
}

}  // namespace
}  // namespace hlo::gen
