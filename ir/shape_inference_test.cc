// Shape inference, one or more cases per opcode family, built
// programmatically (no parser needed).
#include "ir/shape_inference.h"

#include <memory>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "ir/computation.h"

namespace hlo {
namespace {

using ::testing::HasSubstr;
using T = PrimitiveType;

Shape A(T t, std::vector<int64_t> dims) { return Shape::Array(t, dims); }
Shape F32(std::vector<int64_t> dims) { return A(T::F32, dims); }
Shape S32(std::vector<int64_t> dims) { return A(T::S32, dims); }
Shape Tup(std::vector<Shape> e) { return Shape::Tuple(std::move(e)); }

class ShapeInferenceTest : public ::testing::Test {
 protected:
  Instruction* P(const Shape& s, Computation* c = nullptr) {
    if (c == nullptr) c = &comp_;
    int64_t n = c->num_parameters();
    auto i = std::make_unique<Instruction>(Opcode::kParameter, absl::StrCat("p", n), s);
    i->set_parameter_number(n);
    return c->AddInstruction(std::move(i));
  }
  Instruction* I(Opcode op, const Shape& written, std::vector<Instruction*> ops,
                 std::vector<std::pair<std::string, AttrValue>> attrs = {}, Computation* c = nullptr) {
    if (c == nullptr) c = &comp_;
    auto i = std::make_unique<Instruction>(op, absl::StrCat("i", counter_++), written);
    for (Instruction* o : ops) i->AppendOperand(o);
    for (auto& [n, v] : attrs) i->SetAttr(n, v);
    Instruction* raw = c->AddInstruction(std::move(i));
    c->set_root(raw);
    return raw;
  }
  // A computation (lhs, rhs) -> op(lhs, rhs) over scalars of `t`.
  Computation* Binary(T t, Opcode op = Opcode::kAdd, T result = T::kInvalid) {
    comps_.push_back(std::make_unique<Computation>(absl::StrCat("bin", comps_.size())));
    Computation* c = comps_.back().get();
    Instruction* a = P(Shape::Scalar(t), c);
    Instruction* b = P(Shape::Scalar(t), c);
    I(op, Shape::Scalar(result == T::kInvalid ? t : result), {a, b}, {}, c);
    return c;
  }
  Computation* Comparator(std::vector<T> types) {
    comps_.push_back(std::make_unique<Computation>(absl::StrCat("cmp", comps_.size())));
    Computation* c = comps_.back().get();
    std::vector<Instruction*> ps;
    for (T t : types) {
      ps.push_back(P(Shape::Scalar(t), c));
      ps.push_back(P(Shape::Scalar(t), c));
    }
    I(Opcode::kCompare, Shape::Scalar(T::PRED), {ps[0], ps[1]}, {{"direction", std::string("LT")}}, c);
    return c;
  }
  Computation* Unary(const Shape& in, const Shape& out) {
    comps_.push_back(std::make_unique<Computation>(absl::StrCat("un", comps_.size())));
    Computation* c = comps_.back().get();
    Instruction* a = P(in, c);
    if (in.Compatible(out)) {
      I(Opcode::kCopy, out, {a}, {}, c);
    } else {
      I(Opcode::kCustomCall, out, {a}, {{"custom_call_target", std::string("x")}}, c);
    }
    return c;
  }

  std::string Infer(const Instruction* i) {
    auto r = InferShape(*i);
    if (!r.ok()) return absl::StrCat("ERROR: ", r.status().message());
    return ShapeToMessageString(*r);
  }

  Computation comp_{"test"};
  std::vector<std::unique_ptr<Computation>> comps_;
  int counter_ = 0;
};

using IL = std::vector<int64_t>;

TEST_F(ShapeInferenceTest, ShapeToMessageString) {
  Shape s = F32({2, 3});
  s.set_dynamic_dim(1, true);
  EXPECT_EQ(ShapeToMessageString(s), "f32[2,<=3]");
  Shape u = Shape::Array(T::S32, {Shape::kUnboundedSize});
  u.set_dynamic_dim(0, true);
  EXPECT_EQ(ShapeToMessageString(Tup({u, Shape::Token(), Tup({})})), "(s32[?], token[], ())");
}

TEST_F(ShapeInferenceTest, ShapesCompatibleIgnoresLayoutAndDynamic) {
  Shape a = F32({2, 3});
  Shape b = F32({2, 3});
  b.mutable_layout().minor_to_major = {0, 1};
  b.set_dynamic_dim(0, true);
  EXPECT_TRUE(ShapesCompatible(a, b));
  EXPECT_FALSE(ShapesCompatible(a, A(T::BF16, {2, 3})));
  EXPECT_TRUE(ShapesCompatible(a, A(T::BF16, {2, 3}), true));
  EXPECT_FALSE(ShapesCompatible(a, S32({2, 3}), true));
  EXPECT_FALSE(ShapesCompatible(a, F32({3, 2})));
}

TEST_F(ShapeInferenceTest, ElementwiseUnary) {
  auto* x = P(F32({2, 3}));
  EXPECT_EQ(Infer(I(Opcode::kExp, Shape(), {x})), "f32[2,3]");
  EXPECT_EQ(Infer(I(Opcode::kIsFinite, Shape(), {x})), "pred[2,3]");
  auto* c = P(A(T::C64, {4}));
  EXPECT_EQ(Infer(I(Opcode::kAbs, Shape(), {c})), "f32[4]");
  EXPECT_EQ(Infer(I(Opcode::kReal, Shape(), {c})), "f32[4]");
  EXPECT_EQ(Infer(I(Opcode::kImag, Shape(), {c})), "f32[4]");
  EXPECT_EQ(Infer(I(Opcode::kReal, Shape(), {x})), "f32[2,3]");
  auto* i = P(S32({5}));
  EXPECT_EQ(Infer(I(Opcode::kClz, Shape(), {i})), "s32[5]");
  EXPECT_THAT(Infer(I(Opcode::kExp, Shape(), {i})), HasSubstr("floating-point or complex"));
  EXPECT_THAT(Infer(I(Opcode::kPopulationCount, Shape(), {x})), HasSubstr("integer"));
  EXPECT_THAT(Infer(I(Opcode::kExp, Shape(), {x, x})), HasSubstr("expects 1 operand, got 2"));
  auto* t = P(Tup({F32({1}), S32({})}));
  EXPECT_EQ(Infer(I(Opcode::kCopy, Shape(), {t})), "(f32[1], s32[])");
  EXPECT_THAT(Infer(I(Opcode::kNegate, Shape(), {t})), HasSubstr("must be an array"));
}

TEST_F(ShapeInferenceTest, ElementwiseBinary) {
  auto* a = P(F32({2, 3}));
  auto* b = P(F32({2, 3}));
  auto* h = P(A(T::BF16, {2, 3}));
  auto* bad = P(F32({3, 2}));
  auto* i = P(S32({2, 3}));
  EXPECT_EQ(Infer(I(Opcode::kAdd, Shape(), {a, b})), "f32[2,3]");
  EXPECT_EQ(Infer(I(Opcode::kMultiply, Shape(), {h, a})), "f32[2,3]");  // mixed precision
  EXPECT_EQ(Infer(I(Opcode::kCompare, Shape(), {a, b}, {{"direction", std::string("LT")}})), "pred[2,3]");
  EXPECT_EQ(Infer(I(Opcode::kComplex, Shape(), {a, b})), "c64[2,3]");
  EXPECT_THAT(Infer(I(Opcode::kAdd, Shape(), {a, bad})), HasSubstr("dimension 0: 2 vs 3"));
  EXPECT_THAT(Infer(I(Opcode::kAdd, Shape(), {a, i})), HasSubstr("same element type"));
  EXPECT_THAT(Infer(I(Opcode::kAnd, Shape(), {a, b})), HasSubstr("pred or integer"));
  EXPECT_EQ(Infer(I(Opcode::kShiftLeft, Shape(), {i, i})), "s32[2,3]");
  auto* d = P(F32({2, 3}));
  d->mutable_shape().set_dynamic_dim(1, true);
  EXPECT_EQ(Infer(I(Opcode::kAdd, Shape(), {a, d})), "f32[2,<=3]");
}

TEST_F(ShapeInferenceTest, SelectAndClamp) {
  auto* p = P(A(T::PRED, {4}));
  auto* ps = P(Shape::Scalar(T::PRED));
  auto* x = P(F32({4}));
  auto* s = P(F32({}));
  EXPECT_EQ(Infer(I(Opcode::kSelect, Shape(), {p, x, x})), "f32[4]");
  EXPECT_EQ(Infer(I(Opcode::kSelect, Shape(), {ps, x, x})), "f32[4]");
  EXPECT_THAT(Infer(I(Opcode::kSelect, Shape(), {x, x, x})), HasSubstr("pred"));
  EXPECT_THAT(Infer(I(Opcode::kSelect, Shape(), {p, x, s})), HasSubstr("same shape"));
  EXPECT_EQ(Infer(I(Opcode::kClamp, Shape(), {s, x, s})), "f32[4]");
  EXPECT_EQ(Infer(I(Opcode::kClamp, Shape(), {x, x, x})), "f32[4]");
  EXPECT_THAT(Infer(I(Opcode::kClamp, Shape(), {P(F32({3})), x, s})), HasSubstr("min"));
}

TEST_F(ShapeInferenceTest, ConvertAndBitcastConvert) {
  auto* x = P(F32({4}));
  EXPECT_EQ(Infer(I(Opcode::kConvert, S32({4}), {x})), "s32[4]");
  EXPECT_EQ(Infer(I(Opcode::kConvert, S32({5}), {x})), "s32[4]");  // verifier flags the mismatch
  EXPECT_EQ(Infer(I(Opcode::kBitcastConvert, A(T::U32, {4}), {x})), "u32[4]");
  EXPECT_EQ(Infer(I(Opcode::kBitcastConvert, A(T::U8, {4, 4}), {x})), "u8[4,4]");
  auto* bytes = P(A(T::U8, {3, 4}));
  EXPECT_EQ(Infer(I(Opcode::kBitcastConvert, F32({3}), {bytes})), "f32[3]");
  auto* wrong = P(A(T::U8, {3, 2}));
  EXPECT_THAT(Infer(I(Opcode::kBitcastConvert, F32({3}), {wrong})),
              HasSubstr("minor-most operand dimension of size 4"));
  auto* s4 = P(A(T::S4, {6, 2}));
  EXPECT_EQ(Infer(I(Opcode::kBitcastConvert, A(T::S8, {6}), {s4})), "s8[6]");
  auto* bits = P(A(T::U32, {4}));
  EXPECT_EQ(Infer(I(Opcode::kStochasticConvert, A(T::BF16, {4}), {x, bits})), "bf16[4]");
}

TEST_F(ShapeInferenceTest, Broadcast) {
  auto* x = P(F32({3}));
  EXPECT_EQ(Infer(I(Opcode::kBroadcast, F32({2, 3}), {x}, {{"dimensions", IL{1}}})), "f32[2,3]");
  EXPECT_THAT(Infer(I(Opcode::kBroadcast, F32({2, 3}), {x}, {{"dimensions", IL{0}}})),
              HasSubstr("operand dimension 0 (size 3) to result dimension 0 (size 2)"));
  EXPECT_THAT(Infer(I(Opcode::kBroadcast, F32({2, 3}), {x}, {{"dimensions", IL{5}}})),
              HasSubstr("out of range"));
  EXPECT_THAT(Infer(I(Opcode::kBroadcast, F32({2, 3}), {x})), HasSubstr("one entry per operand dimension"));
  auto* s = P(F32({}));
  EXPECT_EQ(Infer(I(Opcode::kBroadcast, F32({2, 3}), {s})), "f32[2,3]");
}

TEST_F(ShapeInferenceTest, ReshapeTransposeReverse) {
  auto* x = P(F32({2, 3, 4}));
  EXPECT_EQ(Infer(I(Opcode::kReshape, F32({6, 4}), {x})), "f32[6,4]");
  EXPECT_THAT(Infer(I(Opcode::kReshape, F32({5, 4}), {x})), HasSubstr("element count"));
  EXPECT_EQ(Infer(I(Opcode::kTranspose, Shape(), {x}, {{"dimensions", IL{2, 0, 1}}})), "f32[4,2,3]");
  EXPECT_THAT(Infer(I(Opcode::kTranspose, Shape(), {x}, {{"dimensions", IL{0, 0, 1}}})), HasSubstr("twice"));
  EXPECT_THAT(Infer(I(Opcode::kTranspose, Shape(), {x}, {{"dimensions", IL{0, 1}}})),
              HasSubstr("permutation"));
  EXPECT_THAT(Infer(I(Opcode::kTranspose, Shape(), {x})), HasSubstr("missing required attribute dimensions"));
  EXPECT_EQ(Infer(I(Opcode::kReverse, Shape(), {x}, {{"dimensions", IL{0, 2}}})), "f32[2,3,4]");
  EXPECT_THAT(Infer(I(Opcode::kReverse, Shape(), {x}, {{"dimensions", IL{3}}})), HasSubstr("out of range"));
  EXPECT_THAT(Infer(I(Opcode::kTranspose, Shape(), {x}, {{"dimensions", std::string("x")}})),
              HasSubstr("must be an integer list"));
}

TEST_F(ShapeInferenceTest, Slices) {
  auto* x = P(F32({10, 8}));
  SliceRanges r{{0, 3, 1}, {0, 8, 3}};
  EXPECT_EQ(Infer(I(Opcode::kSlice, Shape(), {x}, {{"slice", r}})), "f32[3,3]");
  SliceRanges bad{{0, 11, 1}, {0, 8, 1}};
  EXPECT_THAT(Infer(I(Opcode::kSlice, Shape(), {x}, {{"slice", bad}})), HasSubstr("exceeds the size 10"));
  SliceRanges rev{{5, 3, 1}, {0, 8, 1}};
  EXPECT_THAT(Infer(I(Opcode::kSlice, Shape(), {x}, {{"slice", rev}})), HasSubstr("less than start"));
  auto* i = P(S32({}));
  EXPECT_EQ(Infer(I(Opcode::kDynamicSlice, Shape(), {x, i, i}, {{"dynamic_slice_sizes", IL{2, 2}}})),
            "f32[2,2]");
  auto* v = P(S32({2}));
  EXPECT_EQ(Infer(I(Opcode::kDynamicSlice, Shape(), {x, v}, {{"dynamic_slice_sizes", IL{2, 2}}})),
            "f32[2,2]");
  EXPECT_THAT(Infer(I(Opcode::kDynamicSlice, Shape(), {x, i}, {{"dynamic_slice_sizes", IL{2, 2}}})),
              HasSubstr("expects 2 scalar start indices"));
  EXPECT_THAT(Infer(I(Opcode::kDynamicSlice, Shape(), {x, i, i}, {{"dynamic_slice_sizes", IL{11, 2}}})),
              HasSubstr("exceeds"));
  auto* u = P(F32({2, 2}));
  EXPECT_EQ(Infer(I(Opcode::kDynamicUpdateSlice, Shape(), {x, u, i, i})), "f32[10,8]");
  auto* big = P(F32({20, 2}));
  EXPECT_THAT(Infer(I(Opcode::kDynamicUpdateSlice, Shape(), {x, big, i, i})), HasSubstr("exceeds"));
  auto* l = P(A(T::S64, {}));
  EXPECT_THAT(Infer(I(Opcode::kDynamicUpdateSlice, Shape(), {x, u, i, l})), HasSubstr("same type"));
}

TEST_F(ShapeInferenceTest, ConcatenatePadIota) {
  auto* a = P(F32({2, 3}));
  auto* b = P(F32({4, 3}));
  EXPECT_EQ(Infer(I(Opcode::kConcatenate, Shape(), {a, b}, {{"dimensions", IL{0}}})), "f32[6,3]");
  EXPECT_THAT(Infer(I(Opcode::kConcatenate, Shape(), {a, b}, {{"dimensions", IL{1}}})),
              HasSubstr("every dimension but 1"));
  EXPECT_THAT(Infer(I(Opcode::kConcatenate, Shape(), {a, b}, {{"dimensions", IL{0, 1}}})),
              HasSubstr("exactly one"));
  auto* z = P(F32({}));
  PaddingConfig pc{{1, 2, 0}, {0, -1, 1}};
  EXPECT_EQ(Infer(I(Opcode::kPad, Shape(), {a, z}, {{"padding", pc}})), "f32[5,4]");
  PaddingConfig neg{{0, -5, 0}, {0, 0, 0}};
  EXPECT_THAT(Infer(I(Opcode::kPad, Shape(), {a, z}, {{"padding", neg}})), HasSubstr("negative"));
  PaddingConfig huge{{0, 0, int64_t{1} << 61}, {0, 0, int64_t{1} << 61}};
  EXPECT_THAT(Infer(I(Opcode::kPad, Shape(), {a, z}, {{"padding", huge}})), HasSubstr("ERROR"));
  EXPECT_EQ(Infer(I(Opcode::kIota, S32({4, 8}), {}, {{"iota_dimension", int64_t{1}}})), "s32[4,8]");
  EXPECT_THAT(Infer(I(Opcode::kIota, S32({4, 8}), {}, {{"iota_dimension", int64_t{2}}})),
              HasSubstr("out of range"));
  EXPECT_THAT(Infer(I(Opcode::kIota, S32({}), {}, {{"iota_dimension", int64_t{0}}})), HasSubstr("scalars"));
}

TEST_F(ShapeInferenceTest, Reduce) {
  auto* x = P(F32({2, 3, 4}));
  auto* y = P(S32({2, 3, 4}));
  auto* zf = P(F32({}));
  auto* zi = P(S32({}));
  Computation* add = Binary(T::F32);
  EXPECT_EQ(Infer(I(Opcode::kReduce, Shape(), {x, zf}, {{"dimensions", IL{1}}, {"to_apply", add}})),
            "f32[2,4]");
  EXPECT_THAT(Infer(I(Opcode::kReduce, Shape(), {x, zf}, {{"dimensions", IL{3}}, {"to_apply", add}})),
              HasSubstr("out of range"));
  EXPECT_THAT(Infer(I(Opcode::kReduce, Shape(), {x, zf}, {{"dimensions", IL{1}}})),
              HasSubstr("missing required attribute to_apply"));
  EXPECT_THAT(Infer(I(Opcode::kReduce, Shape(), {x}, {{"dimensions", IL{1}}, {"to_apply", add}})),
              HasSubstr("even number"));
  // Variadic reduce: (f32, s32) with a reducer returning a tuple.
  comps_.push_back(std::make_unique<Computation>("argmax"));
  Computation* am = comps_.back().get();
  auto* a0 = P(F32({}), am);
  auto* a1 = P(S32({}), am);
  P(F32({}), am);
  P(S32({}), am);
  I(Opcode::kTuple, Tup({F32({}), S32({})}), {a0, a1}, {}, am);
  EXPECT_EQ(Infer(I(Opcode::kReduce, Shape(), {x, y, zf, zi}, {{"dimensions", IL{0, 2}}, {"to_apply", am}})),
            "(f32[3], s32[3])");
  EXPECT_THAT(Infer(I(Opcode::kReduce, Shape(), {x, y, zf, zi}, {{"dimensions", IL{0}}, {"to_apply", add}})),
              HasSubstr("must take 4 parameters"));
  // Mixed precision: bf16 input, f32 accumulator.
  auto* h = P(A(T::BF16, {8}));
  EXPECT_EQ(Infer(I(Opcode::kReduce, Shape(), {h, zf}, {{"dimensions", IL{0}}, {"to_apply", add}})), "f32[]");
  EXPECT_THAT(Infer(I(Opcode::kReduce, Shape(), {y, zi}, {{"dimensions", IL{0}}, {"to_apply", add}})),
              HasSubstr("result 0 has type f32 but the init value has type s32"));
}

TEST_F(ShapeInferenceTest, ReduceWindowAndSelectAndScatter) {
  auto* x = P(F32({4, 6}));
  auto* z = P(F32({}));
  Computation* add = Binary(T::F32);
  Window w;
  w.dimensions = {{2, 2, 0, 0, 1, 1, false}, {3, 1, 1, 1, 1, 1, false}};
  EXPECT_EQ(Infer(I(Opcode::kReduceWindow, Shape(), {x, z}, {{"window", w}, {"to_apply", add}})), "f32[2,6]");
  Window dil;
  dil.dimensions = {{2, 1, 0, 0, 2, 2, false}, {1, 1, 0, 0, 1, 1, false}};
  // base dilated 4 -> 7, window dilated 2 -> 3: (7-3)/1+1 = 5.
  EXPECT_EQ(Infer(I(Opcode::kReduceWindow, Shape(), {x, z}, {{"window", dil}, {"to_apply", add}})),
            "f32[5,6]");
  Window one;
  one.dimensions = {{2, 1, 0, 0, 1, 1, false}};
  EXPECT_THAT(Infer(I(Opcode::kReduceWindow, Shape(), {x, z}, {{"window", one}, {"to_apply", add}})),
              HasSubstr("window has 1 dimensions but the operand f32[4,6] has rank 2"));
  Window zero;
  zero.dimensions = {{0, 1, 0, 0, 1, 1, false}, {1, 1, 0, 0, 1, 1, false}};
  EXPECT_THAT(Infer(I(Opcode::kReduceWindow, Shape(), {x, z}, {{"window", zero}, {"to_apply", add}})),
              HasSubstr("must be positive"));
  auto* s = P(F32({}));
  EXPECT_EQ(Infer(I(Opcode::kReduceWindow, Shape(), {s, z}, {{"to_apply", add}})), "f32[]");
  // select-and-scatter
  Window sw;
  sw.dimensions = {{2, 2, 0, 0, 1, 1, false}, {3, 3, 0, 0, 1, 1, false}};
  auto* src = P(F32({2, 2}));
  Computation* ge = Binary(T::F32, Opcode::kCompare, T::PRED);
  EXPECT_EQ(Infer(I(Opcode::kSelectAndScatter, Shape(), {x, src, z},
                    {{"window", sw}, {"select", ge}, {"scatter", add}})),
            "f32[4,6]");
  auto* badsrc = P(F32({3, 2}));
  EXPECT_THAT(Infer(I(Opcode::kSelectAndScatter, Shape(), {x, badsrc, z},
                      {{"window", sw}, {"select", ge}, {"scatter", add}})),
              HasSubstr("must have the shape of the windowed operand f32[2,2]"));
  EXPECT_THAT(Infer(I(Opcode::kSelectAndScatter, Shape(), {x, src, z},
                      {{"window", sw}, {"select", add}, {"scatter", add}})),
              HasSubstr("must return pred[]"));
}

TEST_F(ShapeInferenceTest, MapSortTopK) {
  auto* x = P(F32({5}));
  auto* k = P(S32({5}));
  Computation* add = Binary(T::F32);
  EXPECT_EQ(Infer(I(Opcode::kMap, Shape(), {x, x}, {{"dimensions", IL{0}}, {"to_apply", add}})), "f32[5]");
  EXPECT_THAT(Infer(I(Opcode::kMap, Shape(), {x}, {{"to_apply", add}})), HasSubstr("must take 1 parameters"));
  Computation* cmp = Comparator({T::F32, T::S32});
  EXPECT_EQ(Infer(I(Opcode::kSort, Shape(), {x, k}, {{"dimensions", IL{0}}, {"to_apply", cmp}})),
            "(f32[5], s32[5])");
  EXPECT_THAT(Infer(I(Opcode::kSort, Shape(), {x}, {{"dimensions", IL{0}}, {"to_apply", cmp}})),
              HasSubstr("must take 2 parameters"));
  Computation* cmp1 = Comparator({T::F32});
  EXPECT_EQ(Infer(I(Opcode::kSort, Shape(), {x}, {{"dimensions", IL{0}}, {"to_apply", cmp1}})), "f32[5]");
  EXPECT_THAT(Infer(I(Opcode::kSort, Shape(), {x}, {{"dimensions", IL{1}}, {"to_apply", cmp1}})),
              HasSubstr("out of range"));
  auto* m = P(F32({10, 10}));
  EXPECT_EQ(Infer(I(Opcode::kTopK, Shape(), {m}, {{"k", int64_t{2}}, {"largest", true}})),
            "(f32[10,2], s32[10,2])");
  EXPECT_THAT(Infer(I(Opcode::kTopK, Shape(), {m}, {{"k", int64_t{11}}})), HasSubstr("k=11"));
}

TEST_F(ShapeInferenceTest, Dot) {
  auto* a = P(F32({2, 10}));
  auto* b = P(F32({10, 3}));
  EXPECT_EQ(Infer(I(Opcode::kDot, Shape(), {a, b},
                    {{"lhs_contracting_dims", IL{1}}, {"rhs_contracting_dims", IL{0}}})),
            "f32[2,3]");
  EXPECT_THAT(
      Infer(I(Opcode::kDot, Shape(), {a, b},
              {{"lhs_contracting_dims", IL{0}}, {"rhs_contracting_dims", IL{0}}})),
      HasSubstr(
          "contracting dimension sizes differ: lhs dimension 0 has size 2, rhs dimension 0 has size 10"));
  EXPECT_THAT(Infer(I(Opcode::kDot, Shape(), {a, b},
                      {{"lhs_contracting_dims", IL{2}}, {"rhs_contracting_dims", IL{0}}})),
              HasSubstr("out of range"));
  auto* ba = P(F32({4, 2, 10}));
  auto* bb = P(F32({4, 10, 3}));
  EXPECT_EQ(Infer(I(Opcode::kDot, Shape(), {ba, bb},
                    {{"lhs_batch_dims", IL{0}},
                     {"rhs_batch_dims", IL{0}},
                     {"lhs_contracting_dims", IL{2}},
                     {"rhs_contracting_dims", IL{1}}})),
            "f32[4,2,3]");
  // Outer product without contracting dims.
  EXPECT_EQ(Infer(I(Opcode::kDot, Shape(), {a, b})), "f32[2,10,10,3]");
  // Mixed precision: bf16 x bf16 -> f32 written; s8 x s8 -> s32.
  auto* h1 = P(A(T::BF16, {2, 10}));
  auto* h2 = P(A(T::BF16, {10, 3}));
  EXPECT_EQ(Infer(I(Opcode::kDot, F32({2, 3}), {h1, h2},
                    {{"lhs_contracting_dims", IL{1}}, {"rhs_contracting_dims", IL{0}}})),
            "f32[2,3]");
  auto* i1 = P(A(T::S8, {2, 10}));
  auto* i2 = P(A(T::S8, {10, 3}));
  EXPECT_EQ(Infer(I(Opcode::kDot, S32({2, 3}), {i1, i2},
                    {{"lhs_contracting_dims", IL{1}}, {"rhs_contracting_dims", IL{0}}})),
            "s32[2,3]");
  // XLA does not compare operand element types of dot (the result type is the written one).
  EXPECT_EQ(Infer(I(Opcode::kDot, Shape(), {a, i2},
                    {{"lhs_contracting_dims", IL{1}}, {"rhs_contracting_dims", IL{0}}})),
            "f32[2,3]");
}

TEST_F(ShapeInferenceTest, RaggedAndScaledDot) {
  auto* lhs = P(F32({11, 5}));    // [m, k]
  auto* rhs = P(F32({3, 5, 7}));  // [g, k, n]
  auto* gs = P(S32({3}));
  EXPECT_EQ(Infer(I(Opcode::kRaggedDot, Shape(), {lhs, rhs, gs},
                    {{"lhs_contracting_dims", IL{1}},
                     {"rhs_contracting_dims", IL{1}},
                     {"lhs_ragged_dims", IL{0}},
                     {"rhs_group_dims", IL{0}}})),
            "f32[11,7]");
  auto* rhs2 = P(F32({5, 7}));
  EXPECT_EQ(
      Infer(
          I(Opcode::kRaggedDot, Shape(), {lhs, rhs2, gs},
            {{"lhs_contracting_dims", IL{1}}, {"rhs_contracting_dims", IL{0}}, {"lhs_ragged_dims", IL{1}}})),
      "f32[3,11,7]");
  auto* ls = P(F32({11, 1}));
  auto* rs = P(F32({1, 7}));
  EXPECT_EQ(Infer(I(Opcode::kScaledDot, Shape(), {lhs, ls, rhs2, rs},
                    {{"lhs_contracting_dims", IL{1}}, {"rhs_contracting_dims", IL{0}}})),
            "f32[11,7]");
}

TEST_F(ShapeInferenceTest, Convolution) {
  auto* in = P(F32({1, 5, 5, 2}));  // b01f
  auto* k = P(F32({3, 3, 2, 4}));   // 01io
  ConvolutionDimensionNumbers dn;
  dn.input_batch_dimension = 0;
  dn.input_feature_dimension = 3;
  dn.input_spatial_dimensions = {1, 2};
  dn.kernel_input_feature_dimension = 2;
  dn.kernel_output_feature_dimension = 3;
  dn.kernel_spatial_dimensions = {0, 1};
  dn.output_batch_dimension = 0;
  dn.output_feature_dimension = 3;
  dn.output_spatial_dimensions = {1, 2};
  dn.input_rank = dn.kernel_rank = dn.output_rank = 4;
  Window w;
  w.dimensions = {{3, 1, 1, 1, 1, 1, false}, {3, 2, 0, 0, 1, 1, false}};
  EXPECT_EQ(Infer(I(Opcode::kConvolution, Shape(), {in, k}, {{"dim_labels", dn}, {"window", w}})),
            "f32[1,5,2,4]");
  Window lhsd;
  lhsd.dimensions = {{3, 1, 0, 0, 2, 1, false}, {3, 1, 0, 0, 1, 2, false}};
  // lhs dilation 2: 5 -> 9, (9-3)+1 = 7; rhs dilation 2: window 3 -> 5, 5-5+1 = 1.
  EXPECT_EQ(Infer(I(Opcode::kConvolution, Shape(), {in, k}, {{"dim_labels", dn}, {"window", lhsd}})),
            "f32[1,7,1,4]");
  Window bad = w;
  bad.dimensions[0].size = 2;
  EXPECT_THAT(Infer(I(Opcode::kConvolution, Shape(), {in, k}, {{"dim_labels", dn}, {"window", bad}})),
              HasSubstr("window size 2 in spatial dimension 0 differs from the kernel's size 3"));
  EXPECT_THAT(Infer(I(Opcode::kConvolution, Shape(), {in, k}, {{"dim_labels", dn}})),
              HasSubstr("window has 0 dimensions"));
  // feature groups: input features 4 = 2 groups x kernel input 2.
  auto* in4 = P(F32({1, 5, 5, 4}));
  EXPECT_EQ(Infer(I(Opcode::kConvolution, Shape(), {in4, k},
                    {{"dim_labels", dn}, {"window", w}, {"feature_group_count", int64_t{2}}})),
            "f32[1,5,2,4]");
  EXPECT_THAT(Infer(I(Opcode::kConvolution, Shape(), {in4, k}, {{"dim_labels", dn}, {"window", w}})),
              HasSubstr("input feature size 4 divided by feature_group_count 1"));
  // batch groups: batch 4 / 2 -> 2.
  auto* inb = P(F32({4, 5, 5, 2}));
  EXPECT_EQ(Infer(I(Opcode::kConvolution, Shape(), {inb, k},
                    {{"dim_labels", dn}, {"window", w}, {"batch_group_count", int64_t{2}}})),
            "f32[2,5,2,4]");
  // Mixed precision: bf16 operands, f32 result.
  auto* hin = P(A(T::BF16, {1, 5, 5, 2}));
  auto* hk = P(A(T::BF16, {3, 3, 2, 4}));
  EXPECT_EQ(Infer(I(Opcode::kConvolution, F32({1, 5, 2, 4}), {hin, hk}, {{"dim_labels", dn}, {"window", w}})),
            "f32[1,5,2,4]");
}

TEST_F(ShapeInferenceTest, Fft) {
  auto* r = P(F32({5, 64, 32}));
  EXPECT_EQ(
      Infer(I(Opcode::kFft, Shape(), {r}, {{"fft_type", std::string("RFFT")}, {"fft_length", IL{64, 32}}})),
      "c64[5,64,17]");
  auto* c = P(A(T::C64, {5, 64, 17}));
  EXPECT_EQ(
      Infer(I(Opcode::kFft, Shape(), {c}, {{"fft_type", std::string("IRFFT")}, {"fft_length", IL{64, 32}}})),
      "f32[5,64,32]");
  auto* c2 = P(A(T::C128, {5, 8, 32}));
  EXPECT_EQ(
      Infer(I(Opcode::kFft, Shape(), {c2}, {{"fft_type", std::string("IFFT")}, {"fft_length", IL{8, 32}}})),
      "c128[5,8,32]");
  EXPECT_THAT(
      Infer(I(Opcode::kFft, Shape(), {r}, {{"fft_type", std::string("FFT")}, {"fft_length", IL{32}}})),
      HasSubstr("complex"));
  EXPECT_THAT(
      Infer(I(Opcode::kFft, Shape(), {c}, {{"fft_type", std::string("IRFFT")}, {"fft_length", IL{64, 30}}})),
      HasSubstr("fft_length.back()/2+1 = 16"));
  EXPECT_THAT(Infer(I(Opcode::kFft, Shape(), {r},
                      {{"fft_type", std::string("RFFT")}, {"fft_length", IL{1, 2, 3, 4}}})),
              HasSubstr("1 to 3"));
}

TEST_F(ShapeInferenceTest, Gather) {
  auto* in = P(F32({50, 49, 48, 47, 46}));
  auto* idx = P(A(T::S64, {10, 9, 8, 7, 5}));
  std::vector<std::pair<std::string, AttrValue>> attrs = {{"offset_dims", IL{4, 5, 6, 7, 8}},
                                                          {"collapsed_slice_dims", IL{}},
                                                          {"start_index_map", IL{0, 1, 2, 3, 4}},
                                                          {"index_vector_dim", int64_t{4}},
                                                          {"slice_sizes", IL{30, 29, 28, 27, 26}}};
  EXPECT_EQ(Infer(I(Opcode::kGather, Shape(), {in, idx}, attrs)), "f32[10,9,8,7,30,29,28,27,26]");
  auto bad = attrs;
  bad[4].second = IL{51, 29, 28, 27, 26};
  EXPECT_THAT(Infer(I(Opcode::kGather, Shape(), {in, idx}, bad)), HasSubstr("slice_sizes[0] = 51"));
  bad = attrs;
  bad[3].second = int64_t{6};
  EXPECT_THAT(Infer(I(Opcode::kGather, Shape(), {in, idx}, bad)), HasSubstr("index_vector_dim 6"));
  // Classic embedding lookup: operand [V, D], indices [N], collapse dim 0.
  auto* table = P(F32({100, 16}));
  auto* ids = P(S32({7}));
  EXPECT_EQ(Infer(I(Opcode::kGather, Shape(), {table, ids},
                    {{"offset_dims", IL{1}},
                     {"collapsed_slice_dims", IL{0}},
                     {"start_index_map", IL{0}},
                     {"index_vector_dim", int64_t{1}},
                     {"slice_sizes", IL{1, 16}}})),
            "f32[7,16]");
  // Batching dims.
  auto* bin = P(F32({3, 100, 16}));
  auto* bids = P(S32({3, 7}));
  EXPECT_EQ(Infer(I(Opcode::kGather, Shape(), {bin, bids},
                    {{"offset_dims", IL{2}},
                     {"collapsed_slice_dims", IL{1}},
                     {"start_index_map", IL{1}},
                     {"operand_batching_dims", IL{0}},
                     {"start_indices_batching_dims", IL{0}},
                     {"index_vector_dim", int64_t{2}},
                     {"slice_sizes", IL{1, 1, 16}}})),
            "f32[3,7,16]");
}

TEST_F(ShapeInferenceTest, Scatter) {
  auto* in = P(F32({100, 16}));
  auto* ids = P(S32({7}));
  auto* upd = P(F32({7, 16}));
  Computation* add = Binary(T::F32);
  std::vector<std::pair<std::string, AttrValue>> attrs = {{"update_window_dims", IL{1}},
                                                          {"inserted_window_dims", IL{0}},
                                                          {"scatter_dims_to_operand_dims", IL{0}},
                                                          {"index_vector_dim", int64_t{1}},
                                                          {"to_apply", add}};
  EXPECT_EQ(Infer(I(Opcode::kScatter, Shape(), {in, ids, upd}, attrs)), "f32[100,16]");
  auto* badupd = P(F32({6, 16}));
  EXPECT_THAT(Infer(I(Opcode::kScatter, Shape(), {in, ids, badupd}, attrs)),
              HasSubstr("dimension 0 has size 6 but the matching indices dimension has size 7"));
  auto* in2 = P(S32({100, 16}));
  auto* upd2 = P(S32({7, 16}));
  comps_.push_back(std::make_unique<Computation>("add2"));
  Computation* add2 = comps_.back().get();
  auto* q0 = P(F32({}), add2);
  auto* q1 = P(S32({}), add2);
  P(F32({}), add2);
  P(S32({}), add2);
  I(Opcode::kTuple, Tup({F32({}), S32({})}), {q0, q1}, {}, add2);
  auto attrs2 = attrs;
  attrs2[4].second = add2;
  EXPECT_EQ(Infer(I(Opcode::kScatter, Shape(), {in, in2, ids, upd, upd2}, attrs2)),
            "(f32[100,16], s32[100,16])");
  EXPECT_THAT(Infer(I(Opcode::kScatter, Shape(), {in, ids}, attrs)), HasSubstr("odd count"));
}

TEST_F(ShapeInferenceTest, TuplesAndControlFlow) {
  auto* a = P(F32({2}));
  auto* b = P(S32({}));
  auto* t = I(Opcode::kTuple, Shape(), {a, b});
  EXPECT_EQ(Infer(t), "(f32[2], s32[])");
  t->set_shape(Tup({F32({2}), S32({})}));
  EXPECT_EQ(Infer(I(Opcode::kGetTupleElement, Shape(), {t}, {{"index", int64_t{1}}})), "s32[]");
  EXPECT_THAT(Infer(I(Opcode::kGetTupleElement, Shape(), {t}, {{"index", int64_t{2}}})),
              HasSubstr("out of range"));
  EXPECT_THAT(Infer(I(Opcode::kGetTupleElement, Shape(), {a}, {{"index", int64_t{0}}})),
              HasSubstr("tuple operand"));
  Computation* add = Binary(T::F32);
  auto* s = P(F32({}));
  EXPECT_EQ(Infer(I(Opcode::kCall, Shape(), {s, s}, {{"to_apply", add}})), "f32[]");
  EXPECT_THAT(Infer(I(Opcode::kCall, Shape(), {s}, {{"to_apply", add}})), HasSubstr("takes 2 parameters"));
  EXPECT_EQ(Infer(I(Opcode::kFusion, Shape(), {s, s}, {{"kind", std::string("kLoop")}, {"calls", add}})),
            "f32[]");
  // while
  Computation* body = Unary(S32({}), S32({}));
  Computation* cond = Unary(S32({}), Shape::Scalar(T::PRED));
  EXPECT_EQ(Infer(I(Opcode::kWhile, Shape(), {b}, {{"condition", cond}, {"body", body}})), "s32[]");
  EXPECT_THAT(Infer(I(Opcode::kWhile, Shape(), {b}, {{"condition", body}, {"body", body}})),
              HasSubstr("must return pred[]"));
  EXPECT_THAT(Infer(I(Opcode::kWhile, Shape(), {s}, {{"condition", cond}, {"body", body}})),
              HasSubstr("parameter 0 has shape s32[] but the argument has shape f32[]"));
  // conditional
  Computation* neg = Unary(F32({}), F32({}));
  Computation* id = Unary(F32({}), F32({}));
  auto* pr = P(Shape::Scalar(T::PRED));
  EXPECT_EQ(Infer(I(Opcode::kConditional, Shape(), {pr, s, s},
                    {{"true_computation", neg}, {"false_computation", id}})),
            "f32[]");
  EXPECT_EQ(Infer(I(Opcode::kConditional, Shape(), {b, s, s},
                    {{"branch_computations", std::vector<Computation*>{neg, id}}})),
            "f32[]");
  EXPECT_THAT(Infer(I(Opcode::kConditional, Shape(), {s, s, s},
                      {{"branch_computations", std::vector<Computation*>{neg, id}}})),
              HasSubstr("The first operand must be a scalar of PRED or S32"));
  EXPECT_THAT(Infer(I(Opcode::kConditional, Shape(), {b, s},
                      {{"branch_computations", std::vector<Computation*>{neg, id}}})),
              HasSubstr("expects 3 operands"));
}

TEST_F(ShapeInferenceTest, LinearAlgebraAndBatchNorm) {
  auto* a = P(F32({2, 4, 4}));
  auto* b = P(F32({2, 4, 3}));
  EXPECT_EQ(Infer(I(Opcode::kCholesky, Shape(), {a})), "f32[2,4,4]");
  EXPECT_THAT(Infer(I(Opcode::kCholesky, Shape(), {b})), HasSubstr("square"));
  EXPECT_EQ(Infer(I(Opcode::kTriangularSolve, Shape(), {a, b}, {{"left_side", true}})), "f32[2,4,3]");
  EXPECT_THAT(Infer(I(Opcode::kTriangularSolve, Shape(), {a, b}, {{"left_side", false}})),
              HasSubstr("left_side=false"));
  auto* x = P(F32({2, 2, 1, 2}));
  auto* v = P(F32({2}));
  EXPECT_EQ(Infer(I(Opcode::kBatchNormTraining, Shape(), {x, v, v},
                    {{"epsilon", 0.001}, {"feature_index", int64_t{3}}})),
            "(f32[2,2,1,2], f32[2], f32[2])");
  EXPECT_EQ(Infer(I(Opcode::kBatchNormInference, Shape(), {x, v, v, v, v},
                    {{"epsilon", 0.001}, {"feature_index", int64_t{3}}})),
            "f32[2,2,1,2]");
  EXPECT_EQ(Infer(I(Opcode::kBatchNormGrad, Shape(), {x, v, v, v, x},
                    {{"epsilon", 0.001}, {"feature_index", int64_t{3}}})),
            "(f32[2,2,1,2], f32[2], f32[2])");
  EXPECT_THAT(Infer(I(Opcode::kBatchNormTraining, Shape(), {x, v, v},
                      {{"epsilon", 0.001}, {"feature_index", int64_t{4}}})),
              HasSubstr("feature_index 4"));
  EXPECT_THAT(Infer(I(Opcode::kBatchNormTraining, Shape(), {x, v, v},
                      {{"epsilon", 0.001}, {"feature_index", int64_t{2}}})),
              HasSubstr("feature size 1"));
}

TEST_F(ShapeInferenceTest, Collectives) {
  auto* x = P(F32({128, 32}));
  Computation* add = Binary(T::F32);
  CollectiveDeviceList g;
  g.groups = {{0, 1, 2, 3}, {4, 5, 6, 7}};
  EXPECT_EQ(Infer(I(Opcode::kAllReduce, Shape(), {x}, {{"to_apply", add}})), "f32[128,32]");
  EXPECT_EQ(Infer(I(Opcode::kAllReduce, Shape(), {x, x}, {{"to_apply", add}})), "(f32[128,32], f32[128,32])");
  EXPECT_EQ(Infer(I(Opcode::kAllGather, Shape(), {x}, {{"dimensions", IL{1}}, {"replica_groups", g}})),
            "f32[128,128]");
  // Unknown group size: the written result decides if it is a multiple.
  EXPECT_EQ(Infer(I(Opcode::kAllGather, F32({128, 64}), {x}, {{"dimensions", IL{1}}})), "f32[128,64]");
  // The shard count comes from the written result (ceil(50/32) = 2), so the verifier flags 50 vs 64.
  EXPECT_EQ(Infer(I(Opcode::kAllGather, F32({128, 50}), {x}, {{"dimensions", IL{1}}})), "f32[128,64]");
  EXPECT_THAT(
      Infer(I(Opcode::kAllGather, F32({128, 96}), {x}, {{"dimensions", IL{1}}, {"replica_groups", g}})),
      HasSubstr("shard count 3"));
  CollectiveDeviceList bad;
  bad.groups = {{0, 1}, {1, 2}};
  EXPECT_THAT(Infer(I(Opcode::kAllReduce, Shape(), {x}, {{"to_apply", add}, {"replica_groups", bad}})),
              HasSubstr("replica 1 is repeated"));
  bad.groups = {{0, 1}, {3, 4}};
  EXPECT_THAT(Infer(I(Opcode::kAllReduce, Shape(), {x}, {{"to_apply", add}, {"replica_groups", bad}})),
              HasSubstr("replica 2 is not named"));
  EXPECT_THAT(
      Infer(I(Opcode::kAllReduce, Shape(), {x}, {{"to_apply", add}, {"use_global_device_ids", true}})),
      HasSubstr("needs a channel_id"));
  EXPECT_THAT(Infer(I(Opcode::kAllGather, Shape(), {x}, {{"dimensions", IL{}}})), HasSubstr("exactly one"));
  EXPECT_EQ(Infer(I(Opcode::kAllGatherStart, Shape(), {x}, {{"dimensions", IL{0}}, {"replica_groups", g}})),
            "(f32[128,32], f32[512,32])");
  EXPECT_EQ(Infer(I(Opcode::kReduceScatter, Shape(), {x},
                    {{"dimensions", IL{0}}, {"replica_groups", g}, {"to_apply", add}})),
            "f32[32,32]");
  CollectiveDeviceList iota;
  iota.is_iota = true;
  iota.iota.dims = {2, 3};
  iota.iota.reshape_dims = {6};
  EXPECT_THAT(Infer(I(Opcode::kReduceScatter, Shape(), {x},
                      {{"dimensions", IL{1}}, {"replica_groups", iota}, {"to_apply", add}})),
              HasSubstr("not divisible by the shard count 3"));
  EXPECT_EQ(Infer(I(Opcode::kAllToAll, Shape(), {x})), "(f32[128,32])");
  EXPECT_EQ(Infer(I(Opcode::kAllToAll, Shape(), {x}, {{"dimensions", IL{0}}, {"replica_groups", g}})),
            "f32[128,32]");
  using LL = std::vector<std::vector<int64_t>>;
  EXPECT_EQ(Infer(I(Opcode::kCollectivePermute, Shape(), {x}, {{"source_target_pairs", LL{{0, 1}}}})),
            "f32[128,32]");
  EXPECT_THAT(
      Infer(I(Opcode::kCollectivePermute, Shape(), {x}, {{"source_target_pairs", LL{{0, 1}, {0, 2}}}})),
      HasSubstr("source 0 appears more than once"));
  EXPECT_THAT(Infer(I(Opcode::kCollectivePermute, Shape(), {x}, {{"source_target_pairs", LL{{-1, 1}}}})),
              HasSubstr("out of range"));
  EXPECT_EQ(Infer(I(Opcode::kCollectivePermuteStart,
                    Tup({F32({128, 32}), F32({128, 32}), A(T::U32, {}), A(T::U32, {})}), {x},
                    {{"source_target_pairs", LL{{0, 1}}}})),
            "(f32[128,32], f32[128,32], u32[], u32[])");
  auto* st = P(Tup({F32({128, 32}), F32({128, 32}), A(T::U32, {})}));
  EXPECT_EQ(Infer(I(Opcode::kCollectivePermuteDone, Shape(), {st})), "f32[128,32]");
  EXPECT_EQ(Infer(I(Opcode::kCopyStart, Shape(), {x})), "(f32[128,32], f32[128,32], u32[])");
  EXPECT_EQ(Infer(I(Opcode::kCopyDone, Shape(), {st})), "f32[128,32]");
  EXPECT_EQ(Infer(I(Opcode::kReplicaId, Shape(), {})), "u32[]");
  EXPECT_EQ(Infer(I(Opcode::kPartitionId, Shape(), {})), "u32[]");
  auto* o = P(F32({128, 32}));
  auto* off = P(S32({8}));
  EXPECT_EQ(Infer(I(Opcode::kRaggedAllToAll, Shape(), {x, o, off, off, off, off})), "f32[128,32]");
  EXPECT_EQ(Infer(I(Opcode::kCollectiveBroadcast, Shape(), {x})), "f32[128,32]");
}

TEST_F(ShapeInferenceTest, TokensAndIo) {
  auto* tok = I(Opcode::kAfterAll, Shape::Token(), {});
  EXPECT_EQ(Infer(tok), "token[]");
  auto* x = P(F32({3}));
  EXPECT_EQ(Infer(I(Opcode::kAfterAll, Shape::Token(), {x})), "token[]");  // XLA orders after any value
  EXPECT_EQ(Infer(I(Opcode::kSend, Shape(), {x, tok}, {{"channel_id", int64_t{1}}})),
            "(f32[3], u32[], token[])");
  auto* recv = I(Opcode::kRecv, Tup({F32({3}), A(T::U32, {}), Shape::Token()}), {tok});
  EXPECT_EQ(Infer(recv), "(f32[3], u32[], token[])");
  EXPECT_EQ(Infer(I(Opcode::kRecvDone, Shape(), {recv})), "(f32[3], token[])");
  EXPECT_EQ(Infer(I(Opcode::kSendDone, Shape(), {recv})), "token[]");
  EXPECT_THAT(Infer(I(Opcode::kInfeed, Shape::Scalar(T::PRED), {tok})),
              HasSubstr("infeed must have a non-empty tuple shape"));
  EXPECT_EQ(Infer(I(Opcode::kInfeed, Tup({F32({3}), Shape::Token()}), {tok})), "(f32[3], token[])");
  EXPECT_EQ(Infer(I(Opcode::kOutfeed, Shape(), {x, tok}, {{"outfeed_shape", F32({3})}})), "token[]");
  EXPECT_THAT(Infer(I(Opcode::kOutfeed, Shape(), {x, tok}, {{"outfeed_shape", F32({4})}})),
              HasSubstr("outfeed_shape"));
  EXPECT_EQ(Infer(I(Opcode::kAddDependency, Shape(), {x, tok})), "f32[3]");
}

TEST_F(ShapeInferenceTest, MiscOps) {
  auto* x = P(F32({3, 4}));
  auto* n = P(S32({}));
  EXPECT_EQ(Infer(I(Opcode::kGetDimensionSize, Shape(), {x}, {{"dimensions", IL{1}}})), "s32[]");
  EXPECT_THAT(Infer(I(Opcode::kGetDimensionSize, Shape(), {x}, {{"dimensions", IL{2}}})),
              HasSubstr("out of range"));
  EXPECT_EQ(Infer(I(Opcode::kSetDimensionSize, Shape(), {x, n}, {{"dimensions", IL{1}}})), "f32[3,<=4]");
  EXPECT_EQ(Infer(I(Opcode::kReducePrecision, Shape(), {x},
                    {{"exponent_bits", int64_t{8}}, {"mantissa_bits", int64_t{7}}})),
            "f32[3,4]");
  EXPECT_THAT(Infer(I(Opcode::kReducePrecision, Shape(), {x},
                      {{"exponent_bits", int64_t{0}}, {"mantissa_bits", int64_t{7}}})),
              HasSubstr("exponent_bits"));
  auto* a = P(F32({}));
  EXPECT_EQ(Infer(I(Opcode::kRng, F32({8}), {a, a}, {{"distribution", std::string("rng_uniform")}})),
            "f32[8]");
  EXPECT_THAT(Infer(I(Opcode::kRng, S32({8}), {n, n}, {{"distribution", std::string("rng_normal")}})),
              HasSubstr("floating-point"));
  auto* st = P(A(T::U64, {2}));
  EXPECT_EQ(Infer(I(Opcode::kRngBitGenerator, Tup({A(T::U64, {2}), A(T::U32, {11, 17})}), {st},
                    {{"algorithm", std::string("rng_three_fry")}})),
            "(u64[2], u32[11,17])");
  EXPECT_EQ(Infer(I(Opcode::kRngGetAndUpdateState, Shape(), {}, {{"delta", int64_t{4}}})), "u64[2]");
  EXPECT_EQ(Infer(I(Opcode::kCustomCall, Tup({F32({1}), S32({})}), {x},
                    {{"custom_call_target", std::string("f")}})),
            "(f32[1], s32[])");
  EXPECT_EQ(Infer(I(Opcode::kOptimizationBarrier, Shape(), {x})), "f32[3,4]");
  EXPECT_EQ(Infer(I(Opcode::kBitcast, S32({12}), {x})), "s32[12]");
  EXPECT_EQ(Infer(I(Opcode::kDynamicReshape, F32({12}), {x, n})), "f32[12]");
}

TEST_F(ShapeInferenceTest, Async) {
  auto* x = P(F32({10}));
  Computation* wrapped = Unary(F32({10}), F32({20}));
  auto* start =
      I(Opcode::kAsyncStart, Tup({Tup({F32({10})}), F32({20}), S32({})}), {x}, {{"calls", wrapped}});
  EXPECT_EQ(Infer(start), "((f32[10]), f32[20], s32[])");
  auto* upd = I(Opcode::kAsyncUpdate, Shape(), {start});
  EXPECT_EQ(Infer(upd), "((f32[10]), f32[20], s32[])");
  upd->set_shape(start->shape());
  EXPECT_EQ(Infer(I(Opcode::kAsyncDone, Shape(), {upd})), "f32[20]");
  EXPECT_THAT(Infer(I(Opcode::kAsyncDone, Shape(), {x})), HasSubstr("expect a single async op"));
  EXPECT_THAT(Infer(I(Opcode::kAsyncStart, Tup({Tup({F32({10})})}), {x}, {{"calls", wrapped}})),
              HasSubstr("((async-operands), async-outputs, state)"));
}

// Every opcode must be handled without crashing on an operand-less,
// attribute-less instruction (errors are fine).
TEST_F(ShapeInferenceTest, EveryOpcodeSurvivesEmptyInstruction) {
  auto* x = P(F32({2}));
  for (Opcode op : AllOpcodes()) {
    Instruction* bare = I(op, Shape(), {});
    (void)InferShape(*bare);
    Instruction* one = I(op, F32({2}), {x});
    (void)InferShape(*one);
    Instruction* three = I(op, Tup({}), {x, x, x});
    (void)InferShape(*three);
  }
  SUCCEED();
}

}  // namespace
}  // namespace hlo
