// Graph bookkeeping of the IR: the cached instruction and computation
// orders follow every kind of edit, removal keeps creation order (with slot
// compaction), and boxed attribute payloads behave as values.
#include <memory>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "ir/module.h"
#include "parser/parser.h"

namespace hlo {
namespace {

std::vector<std::string> Names(const std::vector<Instruction*>& insts) {
  std::vector<std::string> out;
  for (const Instruction* i : insts) out.push_back(i->name());
  return out;
}

std::vector<std::string> Names(const std::vector<Computation*>& comps) {
  std::vector<std::string> out;
  for (const Computation* c : comps) out.push_back(c->name());
  return out;
}

std::unique_ptr<Module> Parse(const std::string& text) {
  absl::StatusOr<std::unique_ptr<Module>> m = ParseModule(text);
  EXPECT_TRUE(m.ok()) << m.status();
  return m.ok() ? *std::move(m) : nullptr;
}

constexpr char kChain[] = R"(
HloModule chain
ENTRY main {
  p = f32[] parameter(0)
  a = f32[] negate(p)
  b = f32[] exponential(a)
  ROOT c = f32[] add(a, b)
}
)";

TEST(GraphTest, PostOrderFollowsOperandEdits) {
  std::unique_ptr<Module> m = Parse(kChain);
  ASSERT_NE(m, nullptr);
  Computation* e = m->entry();
  EXPECT_EQ(Names(e->MakePostOrder()), (std::vector<std::string>{"p", "a", "b", "c"}));
  Instruction* a = e->FindInstruction("a");
  Instruction* b = e->FindInstruction("b");
  Instruction* c = e->FindInstruction("c");
  // c = add(b, b): a loses its use by c but keeps b.
  c->ReplaceOperand(0, b);
  EXPECT_EQ(Names(e->MakePostOrder()), (std::vector<std::string>{"p", "a", "b", "c"}));
  // An unused instruction starts its own DFS; starts go in creation order.
  auto d = std::make_unique<Instruction>(Opcode::kAbs, "d", Shape::Scalar(PrimitiveType::F32));
  d->AppendOperand(e->FindInstruction("p"));
  Instruction* d_raw = e->AddInstruction(std::move(d));
  EXPECT_EQ(Names(e->MakePostOrder()), (std::vector<std::string>{"p", "a", "b", "c", "d"}));
  // b = exp(d): a loses its last user and becomes a start (before c).
  b->ReplaceOperand(0, d_raw);
  EXPECT_EQ(Names(e->MakePostOrder()), (std::vector<std::string>{"p", "a", "d", "b", "c"}));
  ASSERT_TRUE(e->RemoveInstruction(a).ok());
  EXPECT_EQ(Names(e->MakePostOrder()), (std::vector<std::string>{"p", "d", "b", "c"}));
  // Control edges count as dependencies: with b -> d (control), d's DFS
  // reaches b... b is an operand user of d, so use an independent pair.
  auto k = std::make_unique<Instruction>(Opcode::kCeil, "k", Shape::Scalar(PrimitiveType::F32));
  k->AppendOperand(e->FindInstruction("p"));
  Instruction* k_raw = e->AddInstruction(std::move(k));
  EXPECT_EQ(Names(e->MakePostOrder()), (std::vector<std::string>{"p", "d", "b", "c", "k"}));
  k_raw->AddControlDependencyTo(d_raw);  // k before d
  EXPECT_EQ(Names(e->MakePostOrder()), (std::vector<std::string>{"p", "k", "d", "b", "c"}));
  k_raw->RemoveControlDependencyTo(d_raw);
  EXPECT_EQ(Names(e->MakePostOrder()), (std::vector<std::string>{"p", "d", "b", "c", "k"}));
  // Replacing all uses re-routes users (and the root).
  ASSERT_TRUE(c->ReplaceAllUsesWith(k_raw).ok());
  EXPECT_EQ(e->root(), k_raw);
  EXPECT_EQ(Names(e->MakePostOrder()), (std::vector<std::string>{"p", "d", "b", "c", "k"}));
}

TEST(GraphTest, RemovalKeepsCreationOrderAcrossCompaction) {
  Computation comp("c");
  std::vector<Instruction*> all;
  Instruction* p = comp.AddInstruction(
      std::make_unique<Instruction>(Opcode::kParameter, "p", Shape::Scalar(PrimitiveType::F32)));
  p->set_parameter_number(0);
  for (int i = 0; i < 200; ++i) {
    auto n = std::make_unique<Instruction>(Opcode::kNegate, "n" + std::to_string(i),
                                           Shape::Scalar(PrimitiveType::F32));
    n->AppendOperand(p);
    all.push_back(comp.AddInstruction(std::move(n)));
  }
  comp.set_root(all.back());
  // Remove all but every tenth: holes outnumber the living, so the array is
  // compacted on the way; order and lookups must be unaffected.
  for (int i = 0; i < 199; ++i) {
    if (i % 10 != 0) {
      ASSERT_TRUE(comp.RemoveInstruction(all[i]).ok()) << i;
    }
  }
  std::vector<std::string> want = {"p"};
  for (int i = 0; i < 199; i += 10) want.push_back("n" + std::to_string(i));
  want.push_back("n199");
  EXPECT_EQ(Names(comp.instructions()), want);
  EXPECT_EQ(comp.instruction_count(), static_cast<int64_t>(want.size()));
  // A removed-then-destroyed instruction cannot be removed again, and one of
  // another computation is refused.
  Computation other("o");
  Instruction* stranger = other.AddInstruction(
      std::make_unique<Instruction>(Opcode::kConstant, "k", Shape::Scalar(PrimitiveType::F32)));
  EXPECT_FALSE(comp.RemoveInstruction(stranger).ok());
  ASSERT_TRUE(comp.RemoveInstruction(all[10]).ok());
  want.erase(want.begin() + 2);
  EXPECT_EQ(Names(comp.instructions()), want);
  EXPECT_EQ(Names(comp.MakePostOrder()).back(), "n199");
}

// MoveAfter reorders creation order (what a scheduled module runs and
// prints), forwards and backwards, across a removed slot, and refuses
// strangers and self-moves.
TEST(GraphTest, MoveAfterReordersCreationOrder) {
  std::unique_ptr<Module> m = Parse(kChain);
  ASSERT_NE(m, nullptr);
  Computation* c = m->entry();
  Instruction* p = c->FindInstruction("p");
  Instruction* a = c->FindInstruction("a");
  Instruction* b = c->FindInstruction("b");
  Instruction* root = c->FindInstruction("c");
  auto d = std::make_unique<Instruction>(Opcode::kNegate, "d", Shape::Scalar(PrimitiveType::F32));
  d->AppendOperand(p);
  Instruction* dd = c->AddInstruction(std::move(d));
  ASSERT_TRUE(c->MoveAfter(dd, p).ok());
  EXPECT_EQ(Names(c->instructions()), (std::vector<std::string>{"p", "d", "a", "b", "c"}));
  ASSERT_TRUE(c->MoveAfter(dd, b).ok());
  EXPECT_EQ(Names(c->instructions()), (std::vector<std::string>{"p", "a", "b", "d", "c"}));
  ASSERT_TRUE(c->MoveAfter(a, root).ok());
  EXPECT_EQ(Names(c->instructions()), (std::vector<std::string>{"p", "b", "d", "c", "a"}));
  ASSERT_TRUE(c->RemoveInstruction(dd).ok());
  ASSERT_TRUE(c->MoveAfter(a, p).ok());
  EXPECT_EQ(Names(c->instructions()), (std::vector<std::string>{"p", "a", "b", "c"}));
  EXPECT_EQ(Names(c->MakePostOrder()), (std::vector<std::string>{"p", "a", "b", "c"}));
  EXPECT_FALSE(c->MoveAfter(a, a).ok());
  Computation other("o");
  Instruction* stranger = other.AddInstruction(
      std::make_unique<Instruction>(Opcode::kConstant, "k", Shape::Scalar(PrimitiveType::F32)));
  EXPECT_FALSE(c->MoveAfter(stranger, p).ok());
  EXPECT_FALSE(c->MoveAfter(a, stranger).ok());
}

constexpr char kCalls[] = R"(
HloModule calls
f {
  x = f32[] parameter(0)
  ROOT y = f32[] negate(x)
}
g {
  x = f32[] parameter(0)
  ROOT y = f32[] abs(x)
}
ENTRY main {
  p = f32[] parameter(0)
  ROOT c = f32[] call(p), to_apply=f
}
)";

TEST(GraphTest, ComputationOrderFollowsCallGraphEdits) {
  std::unique_ptr<Module> m = Parse(kCalls);
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(Names(m->MakeComputationPostOrder()), (std::vector<std::string>{"f", "g", "main"}));
  Computation* f = m->FindComputation("f");
  Computation* g = m->FindComputation("g");
  Instruction* c = m->entry()->FindInstruction("c");
  // Calling g instead of f: g now comes with main's callees.
  c->ReplaceCalledComputation(f, g);
  EXPECT_EQ(Names(m->MakeComputationPostOrder()), (std::vector<std::string>{"f", "g", "main"}));
  ASSERT_TRUE(m->RemoveComputation(f).ok());
  EXPECT_EQ(Names(m->MakeComputationPostOrder()), (std::vector<std::string>{"g", "main"}));
  // A new computation called through SetAttr.
  auto h = std::make_unique<Computation>("h");
  Instruction* hx = h->AddInstruction(
      std::make_unique<Instruction>(Opcode::kParameter, "x", Shape::Scalar(PrimitiveType::F32)));
  hx->set_parameter_number(0);
  h->set_root(hx);
  Computation* h_raw = m->AddComputation(std::move(h));
  EXPECT_EQ(Names(m->MakeComputationPostOrder()), (std::vector<std::string>{"g", "h", "main"}));
  c->SetAttr("to_apply", h_raw);
  EXPECT_EQ(c->called_computations(), (std::vector<Computation*>{h_raw}));
  c->RemoveAttr("to_apply");
  EXPECT_TRUE(c->called_computations().empty());
  ASSERT_TRUE(m->RemoveComputation(g).ok());
  EXPECT_EQ(Names(m->MakeComputationPostOrder()), (std::vector<std::string>{"h", "main"}));
}

TEST(GraphTest, BoxedAttributesAreValues) {
  OpMetadata md;
  md.op_type = "dot_general";
  AttrValue v = md;  // implicit boxing
  ASSERT_NE(AttrGet<OpMetadata>(v), nullptr);
  EXPECT_EQ(AttrGet<OpMetadata>(v)->op_type, "dot_general");
  EXPECT_TRUE(AttrHolds<OpMetadata>(v));
  EXPECT_FALSE(AttrHolds<Sharding>(v));
  EXPECT_EQ(AttrGet<Sharding>(v), nullptr);
  AttrValue copy = v;  // deep copy
  std::get<Boxed<OpMetadata>>(copy).get().op_type = "changed";
  EXPECT_EQ(AttrGet<OpMetadata>(v)->op_type, "dot_general");
  EXPECT_FALSE(copy == v);
  std::get<Boxed<OpMetadata>>(copy).get().op_type = "dot_general";
  EXPECT_TRUE(copy == v);
  EXPECT_LE(sizeof(AttrValue), 64u) << "a large payload was added to AttrValue without boxing";
}

}  // namespace
}  // namespace hlo
