#include "analysis/bisect.h"

#include <memory>
#include <string>

#include "analysis/bisect_predicates.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "ir/computation.h"
#include "parser/parser.h"

namespace hlo {
namespace {

using ::testing::HasSubstr;

constexpr char kModule[] = R"(
HloModule bisect_test
ENTRY %e (x: f32[2,3], y: f32[2,3]) -> f32[2,3] {
  %x = f32[2,3] parameter(0)
  %y = f32[2,3] parameter(1)
  %d1 = f32[2,3] subtract(%x, %y)
  %d2 = f32[2,3] subtract(%x, %y)
  %unused = f32[2,3] multiply(%d1, %d2)
  ROOT %prod = f32[2,3] multiply(%d1, %d2)
}
)";

// A wrong pass, the kind hlo-bisect is for: turns the first multiply it
// finds into a subtract (once; later runs change nothing).
class BreakMultiply : public Pass {
 public:
  absl::string_view name() const override { return "break-multiply"; }
  absl::StatusOr<bool> Run(Module& module) override {
    for (Instruction* i : module.entry()->instructions()) {
      if (i->opcode() != Opcode::kMultiply) continue;
      auto sub = std::make_unique<Instruction>(Opcode::kSubtract, i->name() + ".broken", i->shape());
      sub->AppendOperand(i->operand(0));
      sub->AppendOperand(i->operand(1));
      Instruction* raw = module.entry()->AddInstruction(std::move(sub));
      absl::Status st = i->ReplaceAllUsesWith(raw);
      if (!st.ok()) return st;
      return true;
    }
    return false;
  }
};

TEST(BisectTest, BuiltInPredicateFindsTheWrongPassAndItsApplication) {
  auto m = ParseModule(kModule);
  ASSERT_TRUE(m.ok()) << m.status();
  // cse and dce first (correct: they change the module without changing
  // its value), then the broken pass, then dce again.
  Pipeline pipeline("test");
  pipeline.AddPass("cse").AddPass("dce").AddPassInstance(std::make_shared<BreakMultiply>()).AddPass("dce");
  auto differs = OutputDiffers::Create(**m, /*seed=*/0, 1e-3, 1e-3);
  ASSERT_TRUE(differs.ok()) << differs.status();
  absl::StatusOr<BisectResult> r = Bisect(**m, pipeline, (*differs)->predicate(), nullptr);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->pass, "break-multiply");
  EXPECT_THAT(r->enabled_passes, ::testing::ElementsAre("cse", "dce", "break-multiply"));
  EXPECT_EQ(r->application_pass, "break-multiply");
  EXPECT_EQ(r->application_index, 3);
  EXPECT_EQ(r->application_occurrence, 1);
  EXPECT_THAT(r->before_text, HasSubstr("multiply("));
  EXPECT_THAT(r->after_text, HasSubstr("subtract("));
  // Both values: the good one matches the reference, the bad one does not.
  EXPECT_THAT((*differs)->Describe(r->before_text), HasSubstr("matches the unoptimized result"));
  EXPECT_THAT((*differs)->Describe(r->after_text), Not(HasSubstr("matches")));
}

TEST(BisectTest, NothingToBisectIsAnError) {
  auto m = ParseModule(kModule);
  ASSERT_TRUE(m.ok()) << m.status();
  Pipeline pipeline("test");
  pipeline.AddPass("cse").AddPass("dce");
  auto differs = OutputDiffers::Create(**m, 0, 1e-3, 1e-3);
  ASSERT_TRUE(differs.ok());
  absl::StatusOr<BisectResult> r = Bisect(**m, pipeline, (*differs)->predicate(), nullptr);
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.status().message(), HasSubstr("is not bad: nothing to bisect"));
  // A predicate that calls everything bad: the input already is.
  r = Bisect(**m, pipeline, [](const Module&, const std::string&) { return true; }, nullptr);
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.status().message(), HasSubstr("the input module is already bad"));
}

TEST(BisectTest, ChangedLinesListsRemovedThenAdded) {
  EXPECT_EQ(ChangedLines("a\nb\nc\n", "a\nc\nd\n", 10), "- b\n+ d\n");
  EXPECT_EQ(ChangedLines("x\ny\n", "z\n", 1), "- x\n  ... (2 more changed lines)\n");
}

}  // namespace
}  // namespace hlo
