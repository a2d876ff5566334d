#include "passes/pipeline.h"

#include <memory>
#include <sstream>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "ir/printer.h"
#include "ir/verifier.h"
#include "parser/parser.h"
#include "passes/registry.h"

namespace hlo {
namespace {

using ::testing::HasSubstr;

constexpr char kModule[] = R"(
HloModule m
ENTRY %main (p: f32[4], q: f32[4]) -> f32[4] {
  %p = f32[4] parameter(0)
  %q = f32[4] parameter(1)
  %a = f32[4] add(%p, %q)
  %b = f32[4] add(%q, %p)
  %dead = f32[4] multiply(%a, %b)
  ROOT %r = f32[4] subtract(%a, %b)
}
)";

std::unique_ptr<Module> Parse(const char* text) {
  auto m = ParseModule(text);
  EXPECT_TRUE(m.ok()) << m.status();
  return std::move(*m);
}

// Changes the module a fixed number of times (renames the entry root),
// then reports no change.
class CountdownPass : public Pass {
 public:
  CountdownPass(std::string name, int changes) : name_(std::move(name)), left_(changes) {}
  absl::string_view name() const override { return name_; }
  absl::StatusOr<bool> Run(Module&) override {
    ++runs_;
    if (left_ <= 0) return false;
    --left_;
    return true;
  }
  int runs() const { return runs_; }

 private:
  std::string name_;
  int left_;
  int runs_ = 0;
};

// Breaks the module: makes the root's shape wrong.
class BreakingPass : public Pass {
 public:
  absl::string_view name() const override { return "breaker"; }
  absl::StatusOr<bool> Run(Module& m) override {
    m.entry()->root()->set_shape(Shape::Array(PrimitiveType::F32, {7}));
    return true;
  }
};

TEST(PassRegistry, SortedAndFindable) {
  std::vector<const PassInfo*> all = AllPasses();
  ASSERT_GE(all.size(), 13u);
  for (size_t i = 1; i < all.size(); ++i) EXPECT_LT(all[i - 1]->name, all[i]->name);
  for (const char* n : {"dce", "cse", "tuple-simplifier", "call-inliner", "flatten-call-graph",
                        "computation-deduplicator", "zero_sized_hlo_elimination", "simplify-conditional",
                        "simplify-sorts", "simplify-while-loops", "while-loop-invariant-code-motion",
                        "reshape-mover", "batchnorm_expander"}) {
    const PassInfo* p = FindPass(n);
    ASSERT_NE(p, nullptr) << n;
    EXPECT_FALSE(p->description.empty());
    EXPECT_EQ(p->factory()->name(), n);
  }
  EXPECT_EQ(FindPass("nope"), nullptr);
  EXPECT_FALSE(CreatePass("nope").ok());
}

TEST(Pipeline, RunsNamedPassesInOrder) {
  auto m = Parse(kModule);
  Pipeline p("test");
  p.AddPass("cse").AddPass("dce");
  absl::StatusOr<bool> changed = p.Run(*m);
  ASSERT_TRUE(changed.ok()) << changed.status();
  EXPECT_TRUE(*changed);
  std::string text = PrintModule(*m);
  EXPECT_THAT(text, HasSubstr("ROOT %r = f32[4]{0} subtract(%a, %a)"));
  EXPECT_THAT(text, ::testing::Not(HasSubstr("multiply")));
  EXPECT_TRUE(VerifyModule(*m).ok());
  // Second run: nothing left to do.
  changed = p.Run(*m);
  ASSERT_TRUE(changed.ok());
  EXPECT_FALSE(*changed);
}

TEST(Pipeline, UnknownPassIsAnError) {
  auto m = Parse(kModule);
  Pipeline p("test");
  p.AddPass("no-such-pass");
  EXPECT_FALSE(p.Validate().ok());
  absl::StatusOr<bool> r = p.Run(*m);
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(std::string(r.status().message()), HasSubstr("unknown pass 'no-such-pass'"));
  // ... unless the pipeline skips unregistered names (the default pipeline).
  p.set_skip_unregistered(true);
  r = p.Run(*m);
  ASSERT_TRUE(r.ok());
  EXPECT_FALSE(*r);
}

TEST(Pipeline, FixedPointRunsUntilNoChange) {
  auto m = Parse(kModule);
  auto a = std::make_shared<CountdownPass>("a", 3);
  auto b = std::make_shared<CountdownPass>("b", 1);
  Pipeline p("test");
  p.AddFixedPointInstances("group", {a, b}, 10);
  PipelineOptions opts;
  opts.time_passes = true;
  PipelineReport report;
  absl::StatusOr<bool> r = p.Run(*m, opts, &report);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_TRUE(*r);
  // Iterations: (a yes, b yes), (a yes, b no), (a yes, b no), (a no, b no).
  EXPECT_EQ(a->runs(), 4);
  EXPECT_EQ(b->runs(), 4);
  ASSERT_EQ(report.runs.size(), 8u);
  EXPECT_EQ(report.runs[0].name, "a");
  EXPECT_TRUE(report.runs[0].changed);
  EXPECT_EQ(report.runs[1].name, "b");
  EXPECT_TRUE(report.runs[1].changed);
  EXPECT_FALSE(report.runs[3].changed);
  EXPECT_FALSE(report.runs[6].changed);
  std::string table = FormatPassTimes(report);
  EXPECT_THAT(table, HasSubstr("pass"));
  EXPECT_THAT(table, HasSubstr("changed"));
  EXPECT_THAT(table, HasSubstr("total"));
}

TEST(Pipeline, FixedPointCapIsAnErrorNamingTheGroup) {
  auto m = Parse(kModule);
  auto a = std::make_shared<CountdownPass>("a", 100);
  Pipeline p("mypipe");
  p.AddFixedPointInstances("simplify", {a}, 5);
  absl::StatusOr<bool> r = p.Run(*m);
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(std::string(r.status().message()), HasSubstr("fixed-point group 'simplify'"));
  EXPECT_THAT(std::string(r.status().message()), HasSubstr("5 iterations"));
  EXPECT_EQ(a->runs(), 5);
}

TEST(Pipeline, VerifyEachNamesTheBreakingPass) {
  auto m = Parse(kModule);
  Pipeline p("test");
  p.AddPass("cse");
  p.AddPassInstance(std::make_shared<BreakingPass>());
  p.AddPass("dce");
  PipelineOptions opts;
  opts.verify_each = true;
  absl::StatusOr<bool> r = p.Run(*m, opts);
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(std::string(r.status().message()), HasSubstr("pass 'breaker' broke the module"));
  // Without verify_each the pipeline does not notice.
  auto m2 = Parse(kModule);
  EXPECT_TRUE(p.Run(*m2).ok());
}

TEST(Pipeline, DisabledPassesDoNotRun) {
  auto m = Parse(kModule);
  auto a = std::make_shared<CountdownPass>("a", 1);
  Pipeline p("test");
  p.AddPassInstance(a);
  p.AddPass("cse");
  p.AddFixedPoint("g", {"dce", "tuple-simplifier"});
  PipelineOptions opts;
  opts.disabled = {"a", "dce"};
  opts.time_passes = true;
  PipelineReport report;
  absl::StatusOr<bool> r = p.Run(*m, opts, &report);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(a->runs(), 0);
  for (const PassRunRecord& rec : report.runs) {
    EXPECT_NE(rec.name, "a");
    EXPECT_NE(rec.name, "dce");
  }
  // cse ran (merged %b into %a) but dce did not: %b is gone, %dead stays.
  std::string text = PrintModule(*m);
  EXPECT_THAT(text, HasSubstr("multiply(%a, %a)"));
}

TEST(Pipeline, PrintAfterWritesHeaderAndModule) {
  auto m = Parse(kModule);
  Pipeline p("test");
  p.AddPass("cse").AddPass("dce");
  PipelineOptions opts;
  std::string dump;
  opts.print_string = &dump;
  opts.print_after = {"dce"};
  ASSERT_TRUE(p.Run(*m, opts).ok());
  EXPECT_THAT(dump, ::testing::StartsWith("// -----// IR Dump After dce //----- //\nHloModule m"));
  EXPECT_THAT(dump, ::testing::Not(HasSubstr("After cse")));

  auto m2 = Parse(kModule);
  std::ostringstream os;
  PipelineOptions all;
  all.print_after_all = true;
  all.print_stream = &os;
  ASSERT_TRUE(p.Run(*m2, all).ok());
  EXPECT_THAT(os.str(), HasSubstr("IR Dump After cse"));
  EXPECT_THAT(os.str(), HasSubstr("IR Dump After dce"));
}

TEST(Pipeline, DefaultPipelineSkipsUnregisteredAndVerifies) {
  auto m = Parse(kModule);
  Pipeline p = DefaultPipeline();
  EXPECT_TRUE(p.Validate().ok());
  PipelineOptions opts;
  opts.verify_each = true;
  absl::StatusOr<bool> r = p.Run(*m, opts);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_TRUE(*r);
  EXPECT_THAT(PrintModule(*m), HasSubstr("subtract(%a, %a)"));
}

}  // namespace
}  // namespace hlo
