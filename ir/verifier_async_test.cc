// Contents of async wrapped computations, as XLA's verifier checks them:
// on the main thread only, with async barriers (get-tuple-elements of the
// parameters feeding the root), collective groups and send/recv groups
// exempt; anything else must be parameters plus the root.
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "ir/verifier_test_util.h"

namespace hlo {
namespace {

using ::testing::HasSubstr;

// A module whose async-start calls `body` (parameter p: f32[4]) with
// `start_attrs` appended to the async-start and `thread` as the called
// computation's execution thread ("" for main).
std::string Module(absl::string_view body, absl::string_view start_attrs = "",
                   absl::string_view thread = "") {
  std::string suffix = thread.empty() ? "" : absl::StrCat(", execution_thread=\"", thread, "\"");
  std::string thread_attr =
      thread.empty() ? "" : absl::StrCat(", async_execution_thread=\"", thread, "\"");
  return absl::StrReplaceAll(R"(HloModule m

wrapped {
  p = f32[4] parameter(0)
BODY
}SUFFIX

ENTRY e {
  x = f32[4] parameter(0)
  s = ((f32[4]), f32[4], s32[]) async-start(x)ATTRSTHREAD, calls=wrapped
  ROOT d = f32[4] async-done(s)THREAD, calls=wrapped
}
)",
                             {{"BODY", body},
                              {"SUFFIX", suffix},
                              {"ATTRS", start_attrs},
                              {"THREAD", thread_attr}});
}

constexpr char kTwoOps[] = "  c = f32[4] copy(p)\n  ROOT n = f32[4] negate(c)";

TEST(VerifierAsyncTest, SingleWrappedRootIsAccepted) {
  absl::Status st = ParseAndVerify(Module("  ROOT n = f32[4] negate(p)"));
  EXPECT_TRUE(st.ok()) << st;
}

TEST(VerifierAsyncTest, MoreThanTheRootOnTheMainThreadIsRejected) {
  absl::Status st = ParseAndVerify(Module(kTwoOps));
  ASSERT_FALSE(st.ok());
  EXPECT_THAT(st.message(), HasSubstr("test.hlo:3:1: error: computation %wrapped: an asynchronous "
                                      "computation on the main thread may contain only"));
}

TEST(VerifierAsyncTest, OtherExecutionThreadsAreNotChecked) {
  absl::Status st = ParseAndVerify(Module(kTwoOps, "", "host"));
  EXPECT_TRUE(st.ok()) << st;
}

TEST(VerifierAsyncTest, CollectiveGroupIsExempt) {
  absl::Status st =
      ParseAndVerify(Module(kTwoOps, ", frontend_attributes={_collectives_group=\"\"}"));
  EXPECT_TRUE(st.ok()) << st;
  // Another frontend attribute does not make it a group.
  st = ParseAndVerify(Module(kTwoOps, ", frontend_attributes={collective_group_key=\"g\"}"));
  EXPECT_FALSE(st.ok());
}

// A module whose async-start calls `barrier` (parameter p: (f32[4], f32[4]))
// with the given body.
std::string BarrierModule(absl::string_view body) {
  return absl::StrReplaceAll(R"(HloModule m

barrier {
  p = (f32[4], f32[4]) parameter(0)
BODY
}

ENTRY e {
  x = f32[4] parameter(0)
  t = (f32[4], f32[4]) tuple(x, x)
  s = (((f32[4], f32[4])), f32[4], s32[]) async-start(t), calls=barrier
  ROOT d = f32[4] async-done(s), calls=barrier
}
)",
                             {{"BODY", body}});
}

// An async barrier: get-tuple-elements of a tuple parameter feed the root,
// which may also alias an operand.
TEST(VerifierAsyncTest, AsyncBarrierWithGetTupleElementsIsAccepted) {
  absl::Status st = ParseAndVerify(BarrierModule(R"(  a = f32[4] get-tuple-element(p), index=0
  b = f32[4] get-tuple-element(p), index=1
  ROOT r = f32[4] custom-call(a, b), custom_call_target="barrier", output_to_operand_aliasing={{}: (0, {})})"));
  EXPECT_TRUE(st.ok()) << st;
}

// Only parameters and get-tuple-elements may stand beside the root: a tuple
// of them is not a barrier.
TEST(VerifierAsyncTest, BarrierAllowsNothingElseBesideTheRoot) {
  absl::Status st = ParseAndVerify(BarrierModule(R"(  a = f32[4] get-tuple-element(p), index=0
  t = (f32[4]) tuple(a)
  ROOT r = f32[4] get-tuple-element(t), index=0)"));
  ASSERT_FALSE(st.ok());
  EXPECT_THAT(st.message(), HasSubstr("computation %barrier: an asynchronous computation"));
}

// Send/recv groups (an earlier XLA revision's exemption, kept so that its
// dumps verify): only send, recv, bitcast, parameters and tuples.
TEST(VerifierAsyncTest, SendRecvGroupIsAccepted) {
  constexpr char kText[] = R"(HloModule m

wrapped {
  d = f32[] parameter(0)
  tk = token[] parameter(1)
  snd = (f32[], u32[], token[]) send(d, tk), channel_id=1
  tk2 = token[] parameter(2)
  rcv = (f32[], u32[], token[]) recv(tk2), channel_id=2
  ROOT out = ((f32[], u32[], token[]), (f32[], u32[], token[])) tuple(snd, rcv)
}

ENTRY e {
  d = f32[] parameter(0)
  tk = token[] after-all()
  s = ((f32[], token[], token[]), ((f32[], u32[], token[]), (f32[], u32[], token[])), s32[]) async-start(d, tk, tk), calls=wrapped
  ROOT r = ((f32[], u32[], token[]), (f32[], u32[], token[])) async-done(s), calls=wrapped
}
)";
  absl::Status st = ParseAndVerify(kText);
  EXPECT_TRUE(st.ok()) << st;
}

}  // namespace
}  // namespace hlo
