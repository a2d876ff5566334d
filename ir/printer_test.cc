#include "ir/printer.h"

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <memory>
#include <set>
#include <sstream>

#include "absl/strings/ascii.h"
#include "gtest/gtest.h"
#include "ir/float_format.h"
#include "parser/parser.h"

namespace hlo {
namespace {

using PT = PrimitiveType;

Shape WithLayout(Shape s, std::vector<int64_t> m2m) {
  Layout l;
  l.minor_to_major.assign(m2m.begin(), m2m.end());
  s.set_layout(l);
  return s;
}

Shape F32(std::vector<int64_t> dims) { return Shape::Array(PT::F32, dims); }

// Builds instructions into a computation.
class Builder {
 public:
  explicit Builder(Computation* comp) : comp_(comp) {}
  Instruction* Param(int64_t n, const std::string& name, Shape shape) {
    auto inst = std::make_unique<Instruction>(Opcode::kParameter, name, std::move(shape));
    inst->set_parameter_number(n);
    return comp_->AddInstruction(std::move(inst));
  }
  Instruction* Op(Opcode op, const std::string& name, Shape shape,
                  std::vector<Instruction*> operands = {}) {
    auto inst = std::make_unique<Instruction>(op, name, std::move(shape));
    for (Instruction* o : operands) inst->AppendOperand(o);
    return comp_->AddInstruction(std::move(inst));
  }
  Instruction* Constant(const std::string& name, Literal lit) {
    Shape s = lit.shape();
    auto inst = std::make_unique<Instruction>(Opcode::kConstant, name, s);
    inst->set_literal(std::move(lit));
    return comp_->AddInstruction(std::move(inst));
  }

 private:
  Computation* comp_;
};

template <typename T>
Literal R1(PT type, std::vector<T> values) {
  Literal lit(Shape::Array(type, {static_cast<int64_t>(values.size())}));
  for (size_t i = 0; i < values.size(); ++i) lit.SetRaw<T>(static_cast<int64_t>(i), values[i]);
  return lit;
}

template <typename T>
Literal Scalar(PT type, T v) {
  Literal lit(Shape::Scalar(type));
  lit.SetRaw<T>(0, v);
  return lit;
}

float F32Bits(uint32_t bits) {
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}
double F64Bits(uint64_t bits) {
  double d;
  std::memcpy(&d, &bits, 8);
  return d;
}

// ---------------------------------------------------------------- shapes

TEST(PrinterShape, Arrays) {
  EXPECT_EQ(ShapeToString(F32({2, 3})), "f32[2,3]{1,0}");
  EXPECT_EQ(ShapeToString(F32({2, 3}), false), "f32[2,3]");
  EXPECT_EQ(ShapeToString(Shape::Scalar(PT::F32)), "f32[]");
  EXPECT_EQ(ShapeToString(Shape::ArrayNoLayout(PT::S32, {4})), "s32[4]");
  EXPECT_EQ(ShapeToString(WithLayout(F32({2, 3}), {0, 1})), "f32[2,3]{0,1}");
  EXPECT_EQ(ShapeToString(Shape::Array(PT::PRED, {0})), "pred[0]{0}");
  EXPECT_EQ(ShapeToString(Shape::Token()), "token[]");
  EXPECT_EQ(ShapeToString(Shape::Opaque()), "opaque[]");
  EXPECT_EQ(ShapeToString(Shape::Buffer(F32({4}))), "b(f32[4]{0})");
}

TEST(PrinterShape, DynamicDims) {
  Shape s = Shape::ArrayNoLayout(PT::F32, {});
  s.AddDim(10, true);
  s.AddDim(3, false);
  s.AddDim(Shape::kUnboundedSize, true);
  s.FillDefaultLayoutIfMissing();
  EXPECT_EQ(ShapeToString(s), "f32[<=10,3,?]{2,1,0}");
  EXPECT_EQ(ShapeToString(s, false), "f32[<=10,3,?]");
}

TEST(PrinterShape, Tuples) {
  EXPECT_EQ(ShapeToString(Shape::Tuple({})), "()");
  EXPECT_EQ(ShapeToString(Shape::Tuple({F32({2}), Shape::Tuple({Shape::Scalar(PT::S32)})})),
            "(f32[2]{0}, (s32[]))");
  std::vector<Shape> six(6, Shape::Scalar(PT::F32));
  six[5] = F32({2});
  EXPECT_EQ(ShapeToString(Shape::Tuple(six)),
            "(f32[], f32[], f32[], f32[], f32[], /*index=5*/f32[2]{0})");
  EXPECT_EQ(ShapeToString(Shape::Tuple(six), false),
            "(f32[], f32[], f32[], f32[], f32[], /*index=5*/f32[2])");
}

TEST(PrinterShape, LayoutTails) {
  Shape s = F32({400, 400});
  s.mutable_layout().tiles = {Tile{{8, 128}}, Tile{{2, 1}}};
  EXPECT_EQ(ShapeToString(s), "f32[400,400]{1,0:T(8,128)(2,1)}");

  Shape star = F32({4, 4});
  star.mutable_layout().tiles = {Tile{{2, Tile::kCombineDimension}}};
  EXPECT_EQ(ShapeToString(star), "f32[4,4]{1,0:T(2,*)}");

  Shape e = Shape::Array(PT::S4, {1024});
  e.mutable_layout().element_size_in_bits = 4;
  EXPECT_EQ(ShapeToString(e), "s4[1024]{0:E(4)}");

  Shape ms = Shape::Scalar(PT::F32);
  ms.mutable_layout().memory_space = 1;
  EXPECT_EQ(ShapeToString(ms), "f32[]{:S(1)}");

  Shape full = F32({10, 10});
  Layout& l = full.mutable_layout();
  l.mutable_rare().dim_level_types = {"D", "C+~"};
  l.tiles = {Tile{{8}}};
  l.mutable_rare().tail_padding_alignment_in_elements = 1024;
  l.mutable_rare().index_primitive_type = PT::U32;
  l.mutable_rare().pointer_primitive_type = PT::U16;
  l.element_size_in_bits = 16;
  l.memory_space = 42;
  l.mutable_rare().split_configs = {SplitConfig{0, {64}}, SplitConfig{1, {2, 3}}};
  l.mutable_rare().physical_shape = {Shape::Array(PT::U8, {4})};
  l.mutable_rare().dynamic_shape_metadata_prefix_bytes = 8;
  EXPECT_EQ(ShapeToString(full),
            "f32[10,10]{1,0:D(D,C+~)T(8)L(1024)#(u32)*(u16)E(16)S(42)SC(0:64)(1:2,3)P(u8[4]{0})M(8)}");
  EXPECT_EQ(LayoutToString(full.layout()),
            "{1,0:D(D,C+~)T(8)L(1024)#(u32)*(u16)E(16)S(42)SC(0:64)(1:2,3)P(u8[4]{0})M(8)}");
  EXPECT_EQ(ShapeToString(full, false), "f32[10,10]");
}

// ---------------------------------------------------------------- literals

TEST(PrinterLiteral, F32Values) {
  EXPECT_EQ(LiteralValueToString(R1<float>(PT::F32, {3.14f, 42.0f, 1e-5f, 0.1f, -0.0f, 1.0f / 3})),
            "{3.14, 42, 1e-05, 0.1, -0, 0.333333343}");
  EXPECT_EQ(LiteralValueToString(R1<float>(PT::F32, {std::numeric_limits<float>::max(),
                                                     -std::numeric_limits<float>::max(), 1e6f,
                                                     123456789.0f, 1e-45f})),
            "{3.40282347e+38, -3.40282347e+38, 1e+06, 123456792, 1.4013e-45}");
  EXPECT_EQ(LiteralValueToString(Scalar<float>(PT::F32, -5.123f)), "-5.123");
}

TEST(PrinterLiteral, F32NonFinite) {
  const float inf = std::numeric_limits<float>::infinity();
  EXPECT_EQ(LiteralValueToString(R1<float>(
                PT::F32, {std::numeric_limits<float>::quiet_NaN(), 7, -std::numeric_limits<float>::quiet_NaN(),
                          -1, inf, -inf})),
            "{nan, 7, -nan, -1, inf, -inf}");
  EXPECT_EQ(LiteralValueToString(R1<float>(PT::F32, {F32Bits(0x7f800001u), F32Bits(0xffc0007fu)})),
            "{nan(0x1), -nan(0x40007f)}");
}

TEST(PrinterLiteral, F64Values) {
  EXPECT_EQ(LiteralValueToString(R1<double>(PT::F64, {0.1, 1.0 / 3, 1e100, -2.5e-5})),
            "{0.1, 0.33333333333333331, 1e+100, -2.5e-05}");
  EXPECT_EQ(LiteralValueToString(R1<double>(PT::F64, {999999999999999.0, 1e15, -4503599627370497.0, -0.0})),
            "{999999999999999, 1e+15, -4503599627370497, -0}");
  EXPECT_EQ(LiteralValueToString(R1<double>(PT::F64, {std::numeric_limits<double>::quiet_NaN(),
                                                      F64Bits(0x7ff0000000000123ull)})),
            "{nan, nan(0x123)}");
}

TEST(PrinterLiteral, NarrowFloats) {
  // bf16 500 = 0x43fa; 1.1 rounds to 1.1015625 (0x3f8d) -> 4 digits.
  EXPECT_EQ(LiteralValueToString(R1<uint16_t>(PT::BF16, {0x43fa, 0x3f8d, 0x7fc0, 0xff80})),
            "{500, 1.102, nan, -inf}");
  // f16: 1 = 0x3c00, 0.1 ~ 0x2e66 -> 5 digits, NaN with payload 1 = 0x7c01.
  EXPECT_EQ(LiteralValueToString(R1<uint16_t>(PT::F16, {0x3c00, 0x2e66, 0x7c01, 0xfe00})),
            "{1, 0.099976, nan(0x1), -nan}");
  // f8e4m3fn: 0x7f = nan, 7 = 0x4e, 0xff = -nan.
  EXPECT_EQ(LiteralValueToString(R1<uint8_t>(PT::F8E4M3FN, {0x7f, 0x4e, 0xff})), "{nan, 7, -nan}");
  // f8e4m3b11fnuz: 0x80 is the NaN (sign bit set); 7 encodes as 0x64 (bias 11).
  uint8_t seven = static_cast<uint8_t>(EncodeFloat(PT::F8E4M3B11FNUZ, 7.0));
  EXPECT_EQ(LiteralValueToString(R1<uint8_t>(PT::F8E4M3B11FNUZ, {0x80, seven})), "{-nan, 7}");
  // f8e5m2: 0x7c = inf, 0x3c = 1, 0x3b = 0.875 -> 2 digits.
  EXPECT_EQ(LiteralValueToString(R1<uint8_t>(PT::F8E5M2, {0x7c, 0x3c, 0x3b})), "{inf, 1, 0.88}");
  // f4e2m1fn: 0x7 = 6, 0x9 = -0.5.
  EXPECT_EQ(LiteralValueToString(R1<uint8_t>(PT::F4E2M1FN, {0x7, 0x9})), "{6, -0.5}");
  // f8e8m0fnu: 0x7f = 1, 0xff = nan.
  EXPECT_EQ(LiteralValueToString(R1<uint8_t>(PT::F8E8M0FNU, {0x7f, 0xff})), "{1, nan}");
  EXPECT_EQ(LiteralValueToString(Scalar<uint16_t>(PT::BF16, 0x43fa)), "500");
}

TEST(PrinterLiteral, Integers) {
  EXPECT_EQ(LiteralValueToString(Scalar<int32_t>(PT::S32, -42)), "-42");
  EXPECT_EQ(LiteralValueToString(Scalar<uint64_t>(PT::U64, std::numeric_limits<uint64_t>::max())),
            "18446744073709551615");
  EXPECT_EQ(LiteralValueToString(Scalar<int64_t>(PT::S64, std::numeric_limits<int64_t>::min())),
            "-9223372036854775808");
  EXPECT_EQ(LiteralValueToString(R1<int8_t>(PT::S8, {-128, 127})), "{-128, 127}");
  EXPECT_EQ(LiteralValueToString(R1<uint8_t>(PT::U8, {0, 255})), "{0, 255}");
  EXPECT_EQ(LiteralValueToString(R1<int16_t>(PT::S16, {-3})), "{-3}");
  EXPECT_EQ(LiteralValueToString(R1<uint16_t>(PT::U16, {65535})), "{65535}");
  EXPECT_EQ(LiteralValueToString(R1<uint32_t>(PT::U32, {4294967295u})), "{4294967295}");
  EXPECT_EQ(LiteralValueToString(R1<int8_t>(PT::S4, {-8, 7, -1})), "{-8, 7, -1}");
  EXPECT_EQ(LiteralValueToString(R1<int8_t>(PT::S2, {-2, 1})), "{-2, 1}");
  EXPECT_EQ(LiteralValueToString(R1<uint8_t>(PT::U4, {15, 0})), "{15, 0}");
  EXPECT_EQ(LiteralValueToString(R1<uint8_t>(PT::U1, {1, 0})), "{1, 0}");
}

TEST(PrinterLiteral, Pred) {
  EXPECT_EQ(LiteralValueToString(Scalar<uint8_t>(PT::PRED, 1)), "true");
  EXPECT_EQ(LiteralValueToString(Scalar<uint8_t>(PT::PRED, 0)), "false");
  Literal lit(Shape::Array(PT::PRED, {2, 3}));
  for (int i = 0; i < 6; ++i) lit.SetRaw<uint8_t>(i, i % 2);
  EXPECT_EQ(LiteralValueToString(lit), "{ { 0, 1, 0 }, { 1, 0, 1 } }");
}

TEST(PrinterLiteral, Complex) {
  const double inf = std::numeric_limits<double>::infinity();
  const double nan = std::numeric_limits<double>::quiet_NaN();
  EXPECT_EQ(LiteralValueToString(R1<std::complex<float>>(
                PT::C64, {{1, -2}, {3.5f, 0}, {static_cast<float>(-inf), static_cast<float>(nan)}})),
            "{(1, -2), (3.5, 0), (-inf, nan)}");
  EXPECT_EQ(LiteralValueToString(Scalar<std::complex<double>>(PT::C128, {5.96e-08, 0})),
            "(5.96e-08, 0)");
  EXPECT_EQ(LiteralValueToString(R1<std::complex<double>>(PT::C128, {{1, 2}, {-inf, nan}})),
            "{(1, 2), (-inf, nan)}");
}

TEST(PrinterLiteral, NestedAndEmpty) {
  EXPECT_EQ(LiteralValueToString(R1<float>(PT::F32, {})), "{}");
  EXPECT_EQ(LiteralValueToString(Literal(Shape::Array(PT::F32, {2, 0}))), "{ {}, {} }");
  EXPECT_EQ(LiteralValueToString(Literal(Shape::Array(PT::F32, {2, 0, 4, 3}))),
            "{ { /*i0=0*/ }, { /*i0=1*/ } }");
  EXPECT_EQ(LiteralValueToString(Literal(Shape::Array(PT::F32, {0, 3}))), "{ }");

  Literal r2(Shape::Array(PT::S32, {2, 3}));
  for (int i = 0; i < 6; ++i) r2.SetRaw<int32_t>(i, i + 1);
  EXPECT_EQ(LiteralValueToString(r2), "{ { 1, 2, 3 }, { 4, 5, 6 } }");

  Literal col(Shape::Array(PT::F32, {2, 1}));
  col.SetRaw<float>(0, 1);
  col.SetRaw<float>(1, 2);
  EXPECT_EQ(LiteralValueToString(col), "{ {1}, {2} }");

  Literal r3(Shape::Array(PT::S32, {1, 2, 3}));
  for (int i = 0; i < 6; ++i) r3.SetRaw<int32_t>(i, i + 1);
  EXPECT_EQ(LiteralValueToString(r3), "{ { { 1, 2, 3 }, { 4, 5, 6 } } }");

  // Rank 4 gets /*iK=V*/ comments (as XLA prints them).
  Literal r4(Shape::Array(PT::F32, {3, 2, 1, 1}));
  const float v[] = {-1, 4.1f, 2, 4.1f, 5, 4.4f};
  for (int i = 0; i < 6; ++i) r4.SetRaw<float>(i, v[i]);
  EXPECT_EQ(LiteralValueToString(r4),
            "{ { /*i0=0*/ { /*i1=0*/ {-1} }, { /*i1=1*/ {4.1} } }, { /*i0=1*/ { /*i1=0*/ {2} }, "
            "{ /*i1=1*/ {4.1} } }, { /*i0=2*/ { /*i1=0*/ {5} }, { /*i1=1*/ {4.4} } } }");

  Literal r4b(Shape::Array(PT::F32, {2, 2, 1, 2}));
  for (int i = 0; i < 8; ++i) r4b.SetRaw<float>(i, i + 1);
  EXPECT_EQ(LiteralValueToString(r4b),
            "{ { /*i0=0*/ { /*i1=0*/ { 1, 2 } }, { /*i1=1*/ { 3, 4 } } }, { /*i0=1*/ { /*i1=0*/ { 5, 6 } "
            "}, { /*i1=1*/ { 7, 8 } } } }");
}

TEST(PrinterLiteral, NonDefaultLayoutPrintsLogicalOrder) {
  Literal lit(WithLayout(Shape::ArrayNoLayout(PT::S32, {2, 3}), {0, 1}));
  for (int64_t i = 0; i < 2; ++i)
    for (int64_t j = 0; j < 3; ++j) lit.SetRaw<int32_t>(lit.Slot({i, j}), static_cast<int32_t>(i * 10 + j));
  EXPECT_EQ(LiteralValueToString(lit), "{ { 0, 1, 2 }, { 10, 11, 12 } }");
  EXPECT_EQ(LiteralToString(lit), "s32[2,3]{0,1} { { 0, 1, 2 }, { 10, 11, 12 } }");
}

TEST(PrinterLiteral, TuplesElidedAndLarge) {
  Literal col(Shape::Array(PT::F32, {2, 1}));
  col.SetRaw<float>(0, 1);
  col.SetRaw<float>(1, 2);
  Literal tup(Shape::Tuple({col.shape(), F32({2})}));
  tup.mutable_tuple_elements()[0] = col;
  tup.mutable_tuple_elements()[1] = R1<float>(PT::F32, {2, 42});
  EXPECT_EQ(LiteralValueToString(tup), "( { {1}, {2} }, {2, 42} )");
  EXPECT_EQ(LiteralToString(tup), "( f32[2,1]{1,0} { {1}, {2} }, f32[2]{0} {2, 42} )");
  EXPECT_EQ(LiteralValueToString(Literal(Shape::Tuple({}))), "( )");

  Literal big(F32({1000}));
  EXPECT_EQ(LiteralValueToString(big, /*print_large=*/false), "{...}");
  EXPECT_EQ(LiteralValueToString(R1<float>(PT::F32, std::vector<float>(10, 1.0f)), false),
            "{1, 1, 1, 1, 1, 1, 1, 1, 1, 1}");
  std::string all = LiteralValueToString(big);
  EXPECT_EQ(all.size(), 2 + 1000 + 999 * 2u);
  big.set_elided(true);
  EXPECT_EQ(LiteralValueToString(big), "{...}");
  EXPECT_EQ(LiteralToString(big), "f32[1000]{0} {...}");

  EXPECT_EQ(LiteralToString(Scalar<float>(PT::F32, 0.1f)), "f32[] 0.1");
  Literal pred4 = R1<uint8_t>(PT::PRED, {1, 0, 0, 0});
  Literal s4 = R1<int32_t>(PT::S32, {4, 128, 128, 3});
  Literal t2(Shape::Tuple({s4.shape(), pred4.shape()}));
  t2.mutable_tuple_elements()[0] = s4;
  t2.mutable_tuple_elements()[1] = pred4;
  EXPECT_EQ(LiteralToString(t2), "( s32[4]{0} {4, 128, 128, 3}, pred[4]{0} {1, 0, 0, 0} )");
}

// ---------------------------------------------------------------- instructions

// A module with one entry computation `%e`; tests add instructions to it.
struct Fixture {
  std::unique_ptr<Module> module = std::make_unique<Module>("m");
  Computation* entry = nullptr;
  std::unique_ptr<Builder> b;
  Fixture() {
    entry = module->AddComputation(std::make_unique<Computation>("e"));
    module->set_entry(entry);
    b = std::make_unique<Builder>(entry);
  }
  Computation* AddComputation(const std::string& name) {
    return module->AddComputation(std::make_unique<Computation>(name));
  }
  // A scalar f32 add computation.
  Computation* AddAdder(const std::string& name) {
    Computation* c = AddComputation(name);
    Builder cb(c);
    Instruction* x = cb.Param(0, "x", Shape::Scalar(PT::F32));
    Instruction* y = cb.Param(1, "y", Shape::Scalar(PT::F32));
    c->set_root(cb.Op(Opcode::kAdd, "sum", Shape::Scalar(PT::F32), {x, y}));
    return c;
  }
};

TEST(PrinterInstruction, Basics) {
  Fixture f;
  Instruction* p = f.b->Param(0, "p", F32({4}));
  Instruction* c = f.b->Constant("c", Scalar<float>(PT::F32, 1.0f));
  Instruction* bc = f.b->Op(Opcode::kBroadcast, "b", F32({4}), {c});
  bc->SetAttr("dimensions", std::vector<int64_t>{});
  Instruction* add = f.b->Op(Opcode::kAdd, "r", F32({4}), {p, bc});
  EXPECT_EQ(PrintInstruction(*p), "%p = f32[4]{0} parameter(0)");
  EXPECT_EQ(PrintInstruction(*c), "%c = f32[] constant(1)");
  EXPECT_EQ(PrintInstruction(*bc), "%b = f32[4]{0} broadcast(%c), dimensions={}");
  bc->RemoveAttr("dimensions");
  EXPECT_EQ(PrintInstruction(*bc), "%b = f32[4]{0} broadcast(%c), dimensions={}");
  EXPECT_EQ(PrintInstruction(*add), "%r = f32[4]{0} add(%p, %b)");
  PrintOptions with_shapes;
  with_shapes.print_operand_shapes = true;
  EXPECT_EQ(PrintInstruction(*add, with_shapes), "%r = f32[4]{0} add(f32[4]{0} %p, f32[4]{0} %b)");
  EXPECT_EQ(PrintInstruction(*add, PrintOptions::Short()), "r = f32[4]{0} add(p, b)");
}

TEST(PrinterInstruction, OperandIndexComments) {
  Fixture f;
  Instruction* v = f.b->Param(0, "v", Shape::Scalar(PT::F32));
  std::vector<Shape> shapes(11, Shape::Scalar(PT::F32));
  Instruction* t = f.b->Op(Opcode::kTuple, "t", Shape::Tuple(shapes),
                           std::vector<Instruction*>(11, v));
  EXPECT_EQ(PrintInstruction(*t),
            "%t = (f32[], f32[], f32[], f32[], f32[], /*index=5*/f32[], f32[], f32[], f32[], f32[], "
            "/*index=10*/f32[]) tuple(%v, %v, %v, %v, %v, /*index=5*/%v, %v, %v, %v, %v, "
            "/*index=10*/%v)");
  EXPECT_EQ(PrintInstruction(*t, PrintOptions::Short()),
            "t = (f32[], f32[], f32[], f32[], f32[], /*index=5*/f32[], f32[], f32[], f32[], f32[], "
            "/*index=10*/f32[]) tuple(v, v, v, v, v, v, v, v, v, v, v)");
}

TEST(PrinterInstruction, ConstantLargeOption) {
  Fixture f;
  Instruction* c = f.b->Constant("c", Literal(F32({11})));
  EXPECT_EQ(PrintInstruction(*c), "%c = f32[11]{0} constant({0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0})");
  PrintOptions small;
  small.print_large_constants = false;
  EXPECT_EQ(PrintInstruction(*c, small), "%c = f32[11]{0} constant({...})");
}

TEST(PrinterAttributes, ScalarKindsAndDefaults) {
  Fixture f;
  Instruction* x = f.b->Param(0, "x", F32({2, 3}));
  Instruction* r = f.b->Op(Opcode::kReshape, "r", F32({6}), {x});
  r->SetAttr("inferred_dimension", int64_t{-1});
  EXPECT_EQ(PrintInstruction(*r), "%r = f32[6]{0} reshape(%x)");
  r->SetAttr("inferred_dimension", int64_t{0});
  EXPECT_EQ(PrintInstruction(*r), "%r = f32[6]{0} reshape(%x), inferred_dimension=0");

  Instruction* bn = f.b->Op(Opcode::kBatchNormTraining, "bn",
                            Shape::Tuple({F32({2, 3}), F32({3}), F32({3})}), {x, x, x});
  bn->SetAttr("feature_index", int64_t{1});
  bn->SetAttr("epsilon", 0.001);
  EXPECT_EQ(PrintInstruction(*bn),
            "%bn = (f32[2,3]{1,0}, f32[3]{0}, f32[3]{0}) batch-norm-training(%x, %x, %x), "
            "epsilon=0.001, feature_index=1");

  Instruction* ts = f.b->Op(Opcode::kTriangularSolve, "ts", F32({2, 3}), {x, x});
  ts->SetAttr("transpose_a", std::string("NO_TRANSPOSE"));
  ts->SetAttr("lower", true);
  ts->SetAttr("left_side", false);
  EXPECT_EQ(PrintInstruction(*ts), "%ts = f32[2,3]{1,0} triangular-solve(%x, %x), lower=true");

  Instruction* cmp = f.b->Op(Opcode::kCompare, "cmp", Shape::Array(PT::PRED, {2, 3}), {x, x});
  cmp->SetAttr("direction", std::string("GT"));
  cmp->SetAttr("type", std::string("FLOAT"));
  EXPECT_EQ(PrintInstruction(*cmp), "%cmp = pred[2,3]{1,0} compare(%x, %x), direction=GT");
  cmp->SetAttr("type", std::string("TOTALORDER"));
  EXPECT_EQ(PrintInstruction(*cmp),
            "%cmp = pred[2,3]{1,0} compare(%x, %x), direction=GT, type=TOTALORDER");

  Instruction* inf = f.b->Op(Opcode::kInfeed, "inf", Shape::Tuple({F32({2}), Shape::Token()}), {x});
  inf->SetAttr("infeed_config", std::string(""));
  EXPECT_EQ(PrintInstruction(*inf), "%inf = (f32[2]{0}, token[]) infeed(%x)");
  inf->SetAttr("infeed_config", std::string("a\"b\n"));
  EXPECT_EQ(PrintInstruction(*inf), "%inf = (f32[2]{0}, token[]) infeed(%x), infeed_config=\"a\\\"b\\n\"");
}

TEST(PrinterAttributes, WindowAndConvolution) {
  Fixture f;
  Instruction* in = f.b->Param(0, "in", F32({128, 7, 7, 512}));
  Instruction* k = f.b->Param(1, "k", F32({3, 3, 512, 512}));
  Instruction* conv = f.b->Op(Opcode::kConvolution, "conv", F32({128, 14, 14, 512}), {in, k});
  Window w;
  for (int i = 0; i < 2; ++i) {
    WindowDimension d;
    d.size = 3;
    d.padding_low = 1;
    d.padding_high = 2;
    d.base_dilation = 2;
    d.window_reversal = true;
    w.dimensions.push_back(d);
  }
  conv->SetAttr("window", w);
  ConvolutionDimensionNumbers dn;
  dn.input_batch_dimension = 0;
  dn.input_spatial_dimensions = {1, 2};
  dn.input_feature_dimension = 3;
  dn.kernel_spatial_dimensions = {0, 1};
  dn.kernel_output_feature_dimension = 2;
  dn.kernel_input_feature_dimension = 3;
  dn.output_batch_dimension = 0;
  dn.output_spatial_dimensions = {1, 2};
  dn.output_feature_dimension = 3;
  dn.input_rank = dn.kernel_rank = dn.output_rank = 4;
  conv->SetAttr("dim_labels", dn);
  conv->SetAttr("feature_group_count", int64_t{1});
  conv->SetAttr("batch_group_count", int64_t{2});
  conv->SetAttr("operand_precision", std::vector<std::string>{"default", "default"});
  EXPECT_EQ(PrintInstruction(*conv),
            "%conv = f32[128,14,14,512]{3,2,1,0} convolution(%in, %k), window={size=3x3 pad=1_2x1_2 "
            "lhs_dilate=2x2 rhs_reversal=1x1}, dim_labels=b01f_01oi->b01f, batch_group_count=2");
  conv->SetAttr("operand_precision", std::vector<std::string>{"high", "default"});
  w.dimensions[0] = WindowDimension{2, 2, 0, 0, 1, 3, false};
  w.dimensions[1] = WindowDimension{1, 1, 0, 0, 1, 1, false};
  conv->SetAttr("window", w);
  EXPECT_EQ(PrintInstruction(*conv),
            "%conv = f32[128,14,14,512]{3,2,1,0} convolution(%in, %k), window={size=2x1 stride=2x1 "
            "rhs_dilate=3x1}, dim_labels=b01f_01oi->b01f, batch_group_count=2, "
            "operand_precision={high,default}");
  conv->SetAttr("window", Window{});
  dn.input_rank = 5;
  dn.input_batch_dimension = 1;
  dn.input_spatial_dimensions = {2, 3};
  dn.input_feature_dimension = 4;
  conv->SetAttr("dim_labels", dn);
  conv->RemoveAttr("operand_precision");
  conv->RemoveAttr("batch_group_count");
  EXPECT_EQ(PrintInstruction(*conv),
            "%conv = f32[128,14,14,512]{3,2,1,0} convolution(%in, %k), dim_labels=?b01f_01oi->b01f");
}

TEST(PrinterAttributes, PadSliceDotGather) {
  Fixture f;
  Instruction* x = f.b->Param(0, "x", F32({1, 25, 7, 7}));
  Instruction* z = f.b->Param(1, "z", Shape::Scalar(PT::F32));
  Instruction* pad = f.b->Op(Opcode::kPad, "pad", F32({1, 25, 17, 11}), {x, z});
  pad->SetAttr("padding", PaddingConfig{{0, 0, 0}, {0, 0, 0}, {2, 2, 1}, {2, 2, 0}});
  EXPECT_EQ(PrintInstruction(*pad),
            "%pad = f32[1,25,17,11]{3,2,1,0} pad(%x, %z), padding=0_0_0x0_0_0x2_2_1x2_2_0");
  pad->SetAttr("padding", PaddingConfig{{0, 0, 0}, {0, -1, 0}, {3, 1, 0}, {2, 2, 0}});
  EXPECT_EQ(PrintInstruction(*pad),
            "%pad = f32[1,25,17,11]{3,2,1,0} pad(%x, %z), padding=0_0x0_-1x3_1x2_2");

  Instruction* sl = f.b->Op(Opcode::kSlice, "sl", F32({1, 3, 3, 1}), {x});
  sl->SetAttr("slice", SliceRanges{{0, 1, 1}, {0, 3, 1}, {0, 3, 1}, {0, 1, 1}});
  EXPECT_EQ(PrintInstruction(*sl),
            "%sl = f32[1,3,3,1]{3,2,1,0} slice(%x), slice={[0:1], [0:3], [0:3], [0:1]}");
  sl->SetAttr("slice", SliceRanges{{0, 1, 1}, {0, 6, 2}, {0, 3, 1}, {0, 1, 1}});
  EXPECT_EQ(PrintInstruction(*sl),
            "%sl = f32[1,3,3,1]{3,2,1,0} slice(%x), slice={[0:1:1], [0:6:2], [0:3:1], [0:1:1]}");
  sl->SetAttr("slice", SliceRanges{});
  EXPECT_EQ(PrintInstruction(*sl), "%sl = f32[1,3,3,1]{3,2,1,0} slice(%x), slice={}");

  Instruction* dot = f.b->Op(Opcode::kDot, "dot", F32({2}), {x, x});
  dot->SetAttr("lhs_batch_dims", std::vector<int64_t>{});
  dot->SetAttr("lhs_contracting_dims", std::vector<int64_t>{1});
  dot->SetAttr("rhs_batch_dims", std::vector<int64_t>{0});
  dot->SetAttr("rhs_contracting_dims", std::vector<int64_t>{});
  dot->SetAttr("operand_precision", std::vector<std::string>{"high", "highest"});
  dot->SetAttr("algorithm", std::string("dot_tf32_tf32_f32"));
  EXPECT_EQ(PrintInstruction(*dot),
            "%dot = f32[2]{0} dot(%x, %x), lhs_contracting_dims={1}, rhs_batch_dims={0}, "
            "rhs_contracting_dims={}, operand_precision={high,highest}, algorithm=dot_tf32_tf32_f32");

  Instruction* g = f.b->Op(Opcode::kGather, "g", F32({10, 30}), {x, x});
  g->SetAttr("offset_dims", std::vector<int64_t>{1});
  g->SetAttr("collapsed_slice_dims", std::vector<int64_t>{});
  g->SetAttr("start_index_map", std::vector<int64_t>{0, 1});
  g->SetAttr("operand_batching_dims", std::vector<int64_t>{5});
  g->SetAttr("start_indices_batching_dims", std::vector<int64_t>{});
  g->SetAttr("index_vector_dim", int64_t{4});
  g->SetAttr("slice_sizes", std::vector<int64_t>{30, 29});
  g->SetAttr("indices_are_sorted", true);
  EXPECT_EQ(PrintInstruction(*g),
            "%g = f32[10,30]{1,0} gather(%x, %x), offset_dims={1}, collapsed_slice_dims={}, "
            "start_index_map={0,1}, operand_batching_dims={5}, index_vector_dim=4, "
            "slice_sizes={30,29}, indices_are_sorted=true");
}

TEST(PrinterAttributes, ComputationsAndLists) {
  Fixture f;
  Computation* add = f.AddAdder("add");
  Computation* neg = f.AddAdder("neg");
  Instruction* x = f.b->Param(0, "x", Shape::Scalar(PT::S32));
  Instruction* y = f.b->Param(1, "y", Shape::Scalar(PT::F32));
  Instruction* cond = f.b->Op(Opcode::kConditional, "k", Shape::Scalar(PT::F32), {x, y, y});
  cond->SetAttr("branch_computations", std::vector<Computation*>{add, neg});
  EXPECT_EQ(PrintInstruction(*cond), "%k = f32[] conditional(%x, %y, %y), branch_computations={%add, %neg}");
  EXPECT_EQ(PrintInstruction(*cond, PrintOptions::Short()),
            "k = f32[] conditional(x, y, y), branch_computations={add, neg}");

  Instruction* call = f.b->Op(Opcode::kCall, "call", Shape::Scalar(PT::F32), {y, y});
  call->SetAttr("is_composite", true);
  call->SetAttr("to_apply", add);
  FrontendAttributes fa;
  fa["composite.version"] = StringOrDict{"1", false};
  fa["composite.name"] = StringOrDict{"foo.bar", false};
  fa["composite.attributes"] = StringOrDict{"{n = 1 : i32}", true};
  call->SetAttr("frontend_attributes", fa);
  EXPECT_EQ(PrintInstruction(*call),
            "%call = f32[] call(%y, %y), to_apply=%add, is_composite=true, "
            "frontend_attributes={composite.attributes={n = 1 : i32},composite.name=\"foo.bar\","
            "composite.version=\"1\"}");

  Instruction* cc = f.b->Op(Opcode::kCustomCall, "cc", Shape::Tuple({F32({3}), F32({3})}), {y, y});
  cc->SetAttr("custom_call_target", std::string("foo\"bar"));
  cc->SetAttr("api_version", std::string("API_VERSION_ORIGINAL"));
  cc->SetAttr("schedule", std::string("SCHEDULE_LATEST"));
  cc->SetAttr("operand_layout_constraints",
              std::vector<Shape>{WithLayout(F32({2, 3}), {0, 1}),
                                 Shape::Tuple({F32({2}), Shape::Scalar(PT::F32)})});
  cc->SetAttr("custom_call_has_side_effect", true);
  cc->SetAttr("output_to_operand_aliasing",
              std::vector<OutputOperandAlias>{{{0}, 1, {}}, {{1}, 0, {0, 2}}});
  cc->SetAttr("called_computations", std::vector<Computation*>{add});
  cc->SetAttr("literal", LiteralPtr(std::make_shared<Literal>(Scalar<float>(PT::F32, 0.1f))));
  cc->SetAttr("backend_config", StringOrDict{"{MUST_FUSE = true}", true});
  EXPECT_EQ(PrintInstruction(*cc),
            "%cc = (f32[3]{0}, f32[3]{0}) custom-call(%y, %y), custom_call_target=\"foo\\\"bar\", "
            "operand_layout_constraints={f32[2,3]{0,1}, (f32[2]{0}, f32[])}, "
            "custom_call_has_side_effect=true, literal=f32[] 0.1, "
            "output_to_operand_aliasing={{0}: (1, {}), {1}: (0, {0,2})}, schedule=SCHEDULE_LATEST, "
            "called_computations={%add}, backend_config={MUST_FUSE = true}");
  cc->SetAttr("backend_config", StringOrDict{"this \"is\" opaque", false});
  PrintOptions no_bc;
  no_bc.print_backend_config = false;
  EXPECT_EQ(PrintInstruction(*cc, no_bc).find("backend_config"), std::string::npos);
  EXPECT_NE(PrintInstruction(*cc).find(", backend_config=\"this \\\"is\\\" opaque\""),
            std::string::npos);
  cc->SetAttr("backend_config", StringOrDict{"", false});
  EXPECT_EQ(PrintInstruction(*cc).find("backend_config"), std::string::npos);

  Instruction* w = f.b->Op(Opcode::kWhile, "w", Shape::Scalar(PT::F32), {y});
  w->SetAttr("body", add);
  w->SetAttr("condition", neg);
  w->SetAttr("backend_config", StringOrDict{"{\"known_trip_count\":{\"n\":\"10\"}}", true});
  EXPECT_EQ(PrintInstruction(*w),
            "%w = f32[] while(%y), condition=%neg, body=%add, "
            "backend_config={\"known_trip_count\":{\"n\":\"10\"}}");
}

TEST(PrinterAttributes, Collectives) {
  Fixture f;
  Computation* add = f.AddAdder("add");
  Instruction* x = f.b->Param(0, "x", F32({128, 32}));
  Instruction* ar = f.b->Op(Opcode::kAllReduce, "ar", F32({128, 32}), {x});
  ar->SetAttr("to_apply", add);
  ar->SetAttr("use_global_device_ids", true);
  CollectiveDeviceList iota;
  iota.is_iota = true;
  iota.iota = IotaDeviceList{{2, 10}, {20}, {}};
  ar->SetAttr("replica_groups", iota);
  ar->SetAttr("channel_id", int64_t{1});
  ar->SetAttr("constrain_layout", false);
  EXPECT_EQ(PrintInstruction(*ar),
            "%ar = f32[128,32]{1,0} all-reduce(%x), channel_id=1, replica_groups=[2,10]<=[20], "
            "use_global_device_ids=true, to_apply=%add");
  iota.iota = IotaDeviceList{{3, 10}, {6, 5}, {1, 0}};
  ar->SetAttr("replica_groups", iota);
  EXPECT_NE(PrintInstruction(*ar).find("replica_groups=[3,10]<=[6,5]T(1,0),"), std::string::npos);
  iota.iota = IotaDeviceList{{4, 8}, {4, 8}, {0, 1}};  // identity transpose dropped
  ar->SetAttr("replica_groups", iota);
  EXPECT_NE(PrintInstruction(*ar).find("replica_groups=[4,8]<=[4,8],"), std::string::npos);

  Instruction* ag = f.b->Op(Opcode::kAllGather, "ag", F32({128, 128}), {x});
  CollectiveDeviceList explicit_groups;
  ag->SetAttr("replica_groups", explicit_groups);
  ag->SetAttr("constrain_layout", true);
  ag->SetAttr("dimensions", std::vector<int64_t>{1});
  EXPECT_EQ(PrintInstruction(*ag),
            "%ag = f32[128,128]{1,0} all-gather(%x), replica_groups={}, constrain_layout=true, "
            "dimensions={1}");
  explicit_groups.groups = {{0, 1}, {2, 3}};
  ag->SetAttr("replica_groups", explicit_groups);
  EXPECT_NE(PrintInstruction(*ag).find("replica_groups={{0,1},{2,3}}"), std::string::npos);

  Instruction* cp = f.b->Op(Opcode::kCollectivePermute, "cp", F32({128, 32}), {x});
  cp->SetAttr("source_target_pairs", std::vector<std::vector<int64_t>>{{0, 1}, {1, 2}, {2, 3}});
  EXPECT_EQ(PrintInstruction(*cp),
            "%cp = f32[128,32]{1,0} collective-permute(%x), source_target_pairs={{0,1},{1,2},{2,3}}");

  Instruction* recv = f.b->Op(Opcode::kRecv, "recv",
                              Shape::Tuple({Shape::Scalar(PT::F32), Shape::Scalar(PT::U32), Shape::Token()}),
                              {x});
  recv->SetAttr("channel_id", int64_t{15});
  recv->SetAttr("is_host_transfer", true);
  EXPECT_EQ(PrintInstruction(*recv),
            "%recv = (f32[], u32[], token[]) recv(%x), channel_id=15, is_host_transfer=true");

  Instruction* of = f.b->Op(Opcode::kOutfeed, "of", Shape::Token(), {x, x});
  of->SetAttr("outfeed_shape", Shape::Tuple({Shape::Array(PT::U32, {3}), Shape::Scalar(PT::PRED)}));
  of->SetAttr("outfeed_config", std::string(""));
  EXPECT_EQ(PrintInstruction(*of), "%of = token[] outfeed(%x, %x), outfeed_shape=(u32[3]{0}, pred[])");
}

TEST(PrinterAttributes, ShardingForms) {
  Fixture f;
  Instruction* x = f.b->Param(0, "x", F32({8, 8}));
  auto print = [&](const Sharding& s) {
    x->SetAttr("sharding", s);
    std::string text = PrintInstruction(*x);
    return text.substr(text.find("sharding=") + 9);
  };
  Sharding s;
  EXPECT_EQ(print(s), "{replicated}");
  s.kind = Sharding::Kind::kManual;
  EXPECT_EQ(print(s), "{manual}");
  s.kind = Sharding::Kind::kUnknown;
  EXPECT_EQ(print(s), "{unknown}");
  s.kind = Sharding::Kind::kUnreduced;
  EXPECT_EQ(print(s), "{unreduced}");
  s.kind = Sharding::Kind::kMaximal;
  s.device = 1;
  EXPECT_EQ(print(s), "{maximal device=1}");

  Sharding t;
  t.kind = Sharding::Kind::kTiled;
  t.tile_assignment_dims = {2, 1};
  t.device_ids = {0, 1};
  EXPECT_EQ(print(t), "{devices=[2,1]0,1}");
  t.shard_group_kind = "shard_as";
  t.shard_group_id = 3;
  EXPECT_EQ(print(t), "{devices=[2,1]0,1 shard_as 3}");

  Sharding i;
  i.kind = Sharding::Kind::kTiled;
  i.tile_assignment_dims = {4, 1, 2};
  i.iota_devices = true;
  i.iota = IotaDeviceList{{4, 1, 2}, {8}, {}};
  i.last_tile_dim_replicate = true;
  EXPECT_EQ(print(i), "{devices=[4,1,2]<=[8] last_tile_dim_replicate}");
  i.tile_assignment_dims = {1, 2, 4};
  i.iota = IotaDeviceList{{1, 2, 4}, {4, 2}, {1, 0}};
  EXPECT_EQ(print(i), "{devices=[1,2,4]<=[4,2]T(1,0) last_tile_dim_replicate}");
  i.last_tile_dim_replicate = false;
  i.last_tile_dims = {"manual", "replicated"};
  i.tile_assignment_dims = {2, 2, 2};
  i.iota = IotaDeviceList{{2, 2, 2}, {8}, {}};
  EXPECT_EQ(print(i), "{devices=[2,2,2]<=[8] last_tile_dims={manual, replicated}}");

  Sharding md;
  OpMetadata m;
  m.op_name = "a";
  md.metadata = {m};
  EXPECT_EQ(print(md), "{replicated metadata={op_name=\"a\"}}");
  OpMetadata m2;
  m2.op_type = "b";
  md.metadata.push_back(m2);
  EXPECT_EQ(print(md), "{replicated metadata={{op_name=\"a\"}, {op_type=\"b\"}}}");
  PrintOptions no_md;
  no_md.print_metadata = false;
  EXPECT_EQ(PrintInstruction(*x, no_md), "%x = f32[8,8]{1,0} parameter(0), sharding={replicated}");

  Sharding tup;
  tup.kind = Sharding::Kind::kTuple;
  Sharding man;
  man.kind = Sharding::Kind::kManual;
  Sharding max0;
  max0.kind = Sharding::Kind::kMaximal;
  max0.device = 0;
  tup.tuple_elements = {man, max0, Sharding()};
  EXPECT_EQ(print(tup), "{{manual}, {maximal device=0}, {replicated}}");
  tup.tuple_elements.clear();
  EXPECT_EQ(print(tup), "{}");

  Sharding named;
  named.kind = Sharding::Kind::kNamed;
  named.named_text = "{mesh['x'=4], [{'x'}, {}]}";
  EXPECT_EQ(print(named), "{mesh['x'=4], [{'x'}, {}]}");
}

TEST(PrinterAttributes, UniversalOrderAndMisc) {
  Fixture f;
  Instruction* a = f.b->Param(0, "a", Shape::Scalar(PT::F32));
  Instruction* b = f.b->Param(1, "b", Shape::Tuple({F32({2, 4}), Shape::Tuple({F32({2, 4})})}));
  b->SetAttr("parameter_replication", std::vector<bool>{false, true});
  EXPECT_EQ(PrintInstruction(*b),
            "%b = (f32[2,4]{1,0}, (f32[2,4]{1,0})) parameter(1), parameter_replication={false,true}");

  Instruction* e = f.b->Op(Opcode::kExp, "e", Shape::Scalar(PT::F32), {a});
  Instruction* n = f.b->Op(Opcode::kNegate, "n", Shape::Scalar(PT::F32), {a});
  a->AddControlDependencyTo(e);
  n->AddControlDependencyTo(e);
  OpMetadata md;
  md.op_type = "a";
  md.op_name = "\"it's\n";
  md.source_file = "c";
  md.source_line = 1;
  md.source_end_line = 2;
  md.source_column = 3;
  md.source_end_column = 4;
  md.profile_type = {1};
  md.deduplicated_name = "d";
  md.scheduling_name = "foo";
  md.stack_frame_id = 7;
  // Set in scrambled order: the printer uses the canonical order.
  e->SetAttr("backend_config", StringOrDict{"cfg", false});
  e->SetAttr("metadata", md);
  e->SetAttr("origin", RawText{"{{\"v1\"}}"});
  Statistics st;
  st.visualizing_index = 1;
  st.stats = {{"stat-1", 33}, {"stat-2", 0.5}};
  e->SetAttr("statistics", st);
  FrontendAttributes fa;
  fa["b"] = StringOrDict{"2", false};
  fa["a"] = StringOrDict{"1", false};
  e->SetAttr("frontend_attributes", fa);
  e->SetAttr("sharding", Sharding());
  e->SetAttr("result_accuracy", ResultAccuracy{"highest", 0, 0, 0});
  EXPECT_EQ(PrintInstruction(*e),
            "%e = f32[] exponential(%a), result_accuracy={mode=highest}, sharding={replicated}, "
            "frontend_attributes={a=\"1\",b=\"2\"}, control-predecessors={%a, %n}, "
            "statistics={visualizing_index=1,stat-1=33,stat-2=0.5}, origin={{\"v1\"}}, "
            "metadata={op_type=\"a\" op_name=\"\\\"it\\'s\\n\" source_file=\"c\" source_line=1 "
            "source_end_line=2 source_column=3 source_end_column=4 profile_type={1} "
            "deduplicated_name=\"d\" scheduling_name=\"foo\" stack_frame_id=7}, "
            "backend_config=\"cfg\"");
  PrintOptions lean;
  lean.print_metadata = false;
  lean.print_backend_config = false;
  lean.print_control_dependencies = false;
  EXPECT_EQ(PrintInstruction(*e, lean),
            "%e = f32[] exponential(%a), result_accuracy={mode=highest}, sharding={replicated}, "
            "frontend_attributes={a=\"1\",b=\"2\"}, statistics={visualizing_index=1,stat-1=33,stat-2=0.5}, "
            "origin={{\"v1\"}}");

  Instruction* l = f.b->Op(Opcode::kLog, "l", Shape::Scalar(PT::F32), {a});
  l->SetAttr("result_accuracy", ResultAccuracy{"default", 0, 0, 0});
  l->SetAttr("metadata", OpMetadata());
  EXPECT_EQ(PrintInstruction(*l), "%l = f32[] log(%a)");
  l->SetAttr("result_accuracy", ResultAccuracy{"", 0.1, 0, 2});
  EXPECT_EQ(PrintInstruction(*l), "%l = f32[] log(%a), result_accuracy={tolerance={atol=0.1,rtol=0,ulps=2}}");

  Instruction* dom = f.b->Op(Opcode::kDomain, "dom", Shape::Scalar(PT::F32), {a});
  DomainSpec ds;
  ds.kind = "sharding";
  ds.entry.kind = Sharding::Kind::kMaximal;
  ds.entry.device = 0;
  ds.exit.kind = Sharding::Kind::kMaximal;
  ds.exit.device = 1;
  dom->SetAttr("domain", ds);
  EXPECT_EQ(PrintInstruction(*dom),
            "%dom = f32[] domain(%a), domain={kind=\"sharding\", entry={maximal device=0}, "
            "exit={maximal device=1}}");

  Instruction* dot = f.b->Op(Opcode::kDot, "dot", Shape::Scalar(PT::F32), {a, a});
  dot->SetAttr("sparsity", RawText{"L.1@2:4"});
  EXPECT_EQ(PrintInstruction(*dot), "%dot = f32[] dot(%a, %a), sparsity=L.1@2:4");

  // Attributes outside the tables are kept (kind inferred from the value).
  Instruction* neg = f.b->Op(Opcode::kNegate, "neg", Shape::Scalar(PT::F32), {a});
  neg->SetAttr("my_attr", int64_t{3});
  EXPECT_EQ(PrintInstruction(*neg), "%neg = f32[] negate(%a), my_attr=3");
}

// ---------------------------------------------------------------- modules

TEST(PrinterModule, WholeModuleLongAndShort) {
  Fixture f;
  Computation* add = f.AddAdder("add");
  Instruction* alpha = f.b->Param(0, "alpha", Shape::Scalar(PT::F32));
  Instruction* x = f.b->Param(1, "x", F32({2, 4}));
  Instruction* y = f.b->Param(2, "y", F32({2, 4}));
  Instruction* bc = f.b->Op(Opcode::kBroadcast, "broadcast", F32({2, 4}), {alpha});
  bc->SetAttr("dimensions", std::vector<int64_t>{});
  Instruction* mul = f.b->Op(Opcode::kMultiply, "multiply", F32({2, 4}), {bc, x});
  Instruction* sum = f.b->Op(Opcode::kAdd, "add", F32({2, 4}), {mul, y});
  Instruction* zero = f.b->Constant("zero", Scalar<float>(PT::F32, 0));
  Instruction* red = f.b->Op(Opcode::kReduce, "red", F32({2}), {sum, zero});
  red->SetAttr("dimensions", std::vector<int64_t>{1});
  red->SetAttr("to_apply", add);
  f.entry->set_root(red);

  EXPECT_EQ(PrintModule(*f.module),
            "HloModule m, entry_computation_layout={(f32[], f32[2,4]{1,0}, f32[2,4]{1,0})->f32[2]{0}}\n"
            "\n"
            "%add (x: f32[], y: f32[]) -> f32[] {\n"
            "  %x = f32[] parameter(0)\n"
            "  %y = f32[] parameter(1)\n"
            "  ROOT %sum = f32[] add(%x, %y)\n"
            "}\n"
            "\n"
            "ENTRY %e (alpha: f32[], x: f32[2,4], y: f32[2,4]) -> f32[2] {\n"
            "  %alpha = f32[] parameter(0)\n"
            "  %broadcast = f32[2,4]{1,0} broadcast(%alpha), dimensions={}\n"
            "  %x = f32[2,4]{1,0} parameter(1)\n"
            "  %multiply = f32[2,4]{1,0} multiply(%broadcast, %x)\n"
            "  %y = f32[2,4]{1,0} parameter(2)\n"
            "  %add = f32[2,4]{1,0} add(%multiply, %y)\n"
            "  %zero = f32[] constant(0)\n"
            "  ROOT %red = f32[2]{0} reduce(%add, %zero), dimensions={1}, to_apply=%add\n"
            "}\n"
            "\n");

  EXPECT_EQ(PrintModule(*f.module, PrintOptions::Short()),
            "HloModule m, entry_computation_layout={(f32[], f32[2,4]{1,0}, f32[2,4]{1,0})->f32[2]{0}}\n"
            "\n"
            "add {\n"
            "  x = f32[] parameter(0)\n"
            "  y = f32[] parameter(1)\n"
            "  ROOT sum = f32[] add(x, y)\n"
            "}\n"
            "\n"
            "ENTRY e {\n"
            "  alpha = f32[] parameter(0)\n"
            "  broadcast = f32[2,4]{1,0} broadcast(alpha), dimensions={}\n"
            "  x = f32[2,4]{1,0} parameter(1)\n"
            "  multiply = f32[2,4]{1,0} multiply(broadcast, x)\n"
            "  y = f32[2,4]{1,0} parameter(2)\n"
            "  add = f32[2,4]{1,0} add(multiply, y)\n"
            "  zero = f32[] constant(0)\n"
            "  ROOT red = f32[2]{0} reduce(add, zero), dimensions={1}, to_apply=add\n"
            "}\n"
            "\n");

  EXPECT_EQ(PrintComputation(*add),
            "%add (x: f32[], y: f32[]) -> f32[] {\n"
            "  %x = f32[] parameter(0)\n"
            "  %y = f32[] parameter(1)\n"
            "  ROOT %sum = f32[] add(%x, %y)\n"
            "}");

  // Scheduled: stored order instead of post-order.
  f.module->header().is_scheduled = true;
  std::string sched = PrintModule(*f.module);
  EXPECT_NE(sched.find("HloModule m, is_scheduled=true, entry_computation_layout="), std::string::npos);
  EXPECT_NE(sched.find("  %alpha = f32[] parameter(0)\n  %x = f32[2,4]{1,0} parameter(1)\n"
                       "  %y = f32[2,4]{1,0} parameter(2)\n  %broadcast"),
            std::string::npos);
}

TEST(PrinterModule, HeaderAttributesAndThreads) {
  Fixture f;
  Instruction* p = f.b->Param(0, "p", F32({4}));
  f.entry->set_root(p);
  Computation* other = f.AddComputation("side");
  Builder ob(other);
  other->set_root(ob.Param(0, "q", Shape::Scalar(PT::F32)));
  other->set_execution_thread("host");
  ModuleHeader& h = f.module->header();
  h.input_output_alias = {{{0}, 0, {}, false}, {{1}, 2, {1}, true}};
  h.buffer_donor = {{0, {}}, {1, {}}};
  h.alias_passthrough_params = true;
  ProgramShape ps;
  ps.parameters = {F32({4})};
  ps.result = F32({4});
  h.entry_computation_layout = ps;
  h.allow_spmd_sharding_propagation_to_parameters = {true, false};
  h.allow_spmd_sharding_propagation_to_output = {false};
  h.replica_count = 4;
  h.num_partitions = 8;
  h.frontend_attributes["fingerprint"] = StringOrDict{"e2ea", false};
  h.origin_recovery_table = RawText{"{}"};
  std::string text = PrintModule(*f.module);
  EXPECT_EQ(text.substr(0, text.find('\n')),
            "HloModule m, input_output_alias={ {0}: (0, {}, may-alias), {1}: (2, {1}, must-alias) }, "
            "buffer_donor={ (0, {}), (1, {}) }, alias_passthrough_params=true, "
            "entry_computation_layout={(f32[4]{0})->f32[4]{0}}, "
            "allow_spmd_sharding_propagation_to_parameters={true,false}, replica_count=4, "
            "num_partitions=8, frontend_attributes={fingerprint=\"e2ea\"}, origin_recovery_table={}");
  EXPECT_NE(text.find("%side (q: f32[]) -> f32[] {\n  ROOT %q = f32[] parameter(0)\n}, "
                      "execution_thread=\"host\"\n\n"),
            std::string::npos);
}

TEST(PrinterModule, StackFrames) {
  Fixture f;
  Instruction* c = f.b->Constant("constant", Scalar<uint8_t>(PT::PRED, 1));
  OpMetadata md;
  md.op_type = "const";
  md.op_name = "opname";
  md.stack_frame_id = 1;
  c->SetAttr("metadata", md);
  f.entry->set_root(c);
  f.entry->set_name("constant_pred");
  StackFrameTables& t = f.module->header().stack_frames;
  t.file_names = {{1, "<embedded module>"}, {2, "experimental/module.py"}};
  t.function_names = {{1, "main"}};
  t.file_locations = {{1, 1, 1, 153, 153, 2, 31}};
  t.frames = {{1, 1, 1}};
  EXPECT_EQ(PrintModule(*f.module),
            "HloModule m, entry_computation_layout={()->pred[]}\n"
            "\n"
            "FileNames\n"
            "1 \"<embedded module>\"\n"
            "2 \"experimental/module.py\"\n"
            "\n"
            "FunctionNames\n"
            "1 \"main\"\n"
            "\n"
            "FileLocations\n"
            "1 {file_name_id=1 function_name_id=1 line=153 end_line=153 column=2 end_column=31}\n"
            "\n"
            "StackFrames\n"
            "1 {file_location_id=1 parent_frame_id=1}\n"
            "\n"
            "\n"
            "ENTRY %constant_pred () -> pred[] {\n"
            "  ROOT %constant = pred[] constant(true), metadata={op_type=\"const\" op_name=\"opname\" "
            "stack_frame_id=1}\n"
            "}\n"
            "\n");
  PrintOptions no_md;
  no_md.print_metadata = false;
  EXPECT_EQ(PrintModule(*f.module, no_md),
            "HloModule m, entry_computation_layout={()->pred[]}\n"
            "\n"
            "ENTRY %constant_pred () -> pred[] {\n"
            "  ROOT %constant = pred[] constant(true)\n"
            "}\n"
            "\n");
}

TEST(PrinterModule, InstructionsWithoutUsersArePrinted) {
  Fixture f;
  Instruction* tok = f.b->Op(Opcode::kAfterAll, "token0", Shape::Token());
  Shape recv_shape = Shape::Tuple({Shape::Scalar(PT::F32), Shape::Scalar(PT::U32), Shape::Token()});
  Instruction* recv = f.b->Op(Opcode::kRecv, "recv", recv_shape, {tok});
  Instruction* rd = f.b->Op(Opcode::kRecvDone, "recv-done",
                            Shape::Tuple({Shape::Scalar(PT::F32), Shape::Token()}), {recv});
  Instruction* c = f.b->Constant("constant", Scalar<float>(PT::F32, 2.1f));
  Instruction* send = f.b->Op(Opcode::kSend, "send", recv_shape, {c, tok});
  f.b->Op(Opcode::kSendDone, "send-done", Shape::Token(), {send});
  f.entry->set_root(rd);
  // The relative order of the independent chains is MakePostOrder()'s.
  std::string text = PrintComputation(*f.entry);
  for (const char* line : {"\n  %token0 = token[] after-all()\n",
                           "\n  %recv = (f32[], u32[], token[]) recv(%token0)\n",
                           "\n  ROOT %recv-done = (f32[], token[]) recv-done(%recv)\n",
                           "\n  %constant = f32[] constant(2.1)\n",
                           "\n  %send = (f32[], u32[], token[]) send(%constant, %token0)\n",
                           "\n  %send-done = token[] send-done(%send)\n"})
    EXPECT_NE(text.find(line), std::string::npos) << line;
  EXPECT_LT(text.find("%token0 ="), text.find("%recv ="));
  EXPECT_LT(text.find("%send ="), text.find("%send-done ="));
}

// Async ops whose wrapped computation is one op print as <op>-start/-update/-done.
TEST(PrinterModule, AsyncSugar) {
  Fixture f;
  f.entry->set_name("Entry");
  Computation* wrapped = f.AddComputation("async_wrapped");
  wrapped->set_execution_thread("parallel_thread");
  Builder wb(wrapped);
  Instruction* wp = wb.Param(0, "p", F32({10}));
  Instruction* cc = wb.Op(Opcode::kCustomCall, "cc", F32({20}), {wp});
  cc->SetAttr("custom_call_target", std::string("foo"));
  wrapped->set_root(cc);

  Instruction* p0 = f.b->Param(0, "p0", F32({10}));
  Shape state = Shape::Tuple({Shape::Tuple({F32({10})}), F32({20}), Shape::Scalar(PT::S32)});
  Instruction* start = f.b->Op(Opcode::kAsyncStart, "async-start", state, {p0});
  start->SetAttr("calls", wrapped);
  start->SetAttr("async_execution_thread", std::string("parallel_thread"));
  Instruction* update = f.b->Op(Opcode::kAsyncUpdate, "async-update", state, {start});
  update->SetAttr("calls", wrapped);
  Instruction* done = f.b->Op(Opcode::kAsyncDone, "async-done", F32({20}), {update});
  f.entry->set_root(done);

  PrintOptions opts;
  opts.print_operand_shapes = true;
  EXPECT_EQ(PrintModule(*f.module, opts),
            "HloModule m, entry_computation_layout={(f32[10]{0})->f32[20]{0}}\n"
            "\n"
            "ENTRY %Entry (p0: f32[10]) -> f32[20] {\n"
            "  %p0 = f32[10]{0} parameter(0)\n"
            "  %async-start = ((f32[10]{0}), f32[20]{0}, s32[]) custom-call-start(f32[10]{0} %p0), "
            "async_execution_thread=\"parallel_thread\", custom_call_target=\"foo\"\n"
            "  %async-update = ((f32[10]{0}), f32[20]{0}, s32[]) custom-call-update(((f32[10]{0}), "
            "f32[20]{0}, s32[]) %async-start)\n"
            "  ROOT %async-done = f32[20]{0} custom-call-done(((f32[10]{0}), f32[20]{0}, s32[]) "
            "%async-update)\n"
            "}\n"
            "\n");
  EXPECT_EQ(PrintInstruction(*start),
            "%async-start = ((f32[10]{0}), f32[20]{0}, s32[]) custom-call-start(%p0), "
            "async_execution_thread=\"parallel_thread\", custom_call_target=\"foo\"");

  // Main thread: the default async_execution_thread is omitted.
  start->SetAttr("async_execution_thread", std::string("main"));
  EXPECT_EQ(PrintInstruction(*start),
            "%async-start = ((f32[10]{0}), f32[20]{0}, s32[]) custom-call-start(%p0), "
            "custom_call_target=\"foo\"");

  // A computation also called by a non-async op is printed and not sugared.
  Instruction* call = f.b->Op(Opcode::kCall, "call", F32({20}), {p0});
  call->SetAttr("to_apply", wrapped);
  std::string text = PrintModule(*f.module);
  EXPECT_NE(text.find("%async_wrapped (p: f32[10]) -> f32[20] {"), std::string::npos);
  EXPECT_NE(text.find("async-start(%p0), calls=%async_wrapped"), std::string::npos);
  EXPECT_NE(text.find("async-done(%async-update)\n"), std::string::npos);
  ASSERT_TRUE(f.entry->RemoveInstruction(call).ok());

  // A wrapped op that has its own -start opcode cannot use the sugar.
  Instruction* ar = wb.Op(Opcode::kAllReduce, "ar", F32({20}), {wp});
  wrapped->set_root(ar);
  ASSERT_TRUE(wrapped->RemoveInstruction(cc).ok());
  text = PrintModule(*f.module);
  EXPECT_NE(text.find("async-start(%p0), calls=%async_wrapped"), std::string::npos);
  EXPECT_NE(text.find("%async_wrapped (p: f32[10]) -> f32[20] {"), std::string::npos);
}

// Sugar for a wrapped `call`: its to_apply computation is still printed, the
// wrapper is not; update/done find the computation through their operand.
TEST(PrinterModule, AsyncSugarWrappedCallAndUniversalAttrs) {
  Fixture f;
  Computation* add = f.AddAdder("add");
  Computation* wrapped = f.AddComputation("wrapped");
  Builder wb(wrapped);
  Instruction* w0 = wb.Param(0, "a", Shape::Scalar(PT::F32));
  Instruction* w1 = wb.Param(1, "b", Shape::Scalar(PT::F32));
  Instruction* call = wb.Op(Opcode::kCall, "c", Shape::Scalar(PT::F32), {w0, w1});
  call->SetAttr("to_apply", add);
  call->SetAttr("frontend_attributes", FrontendAttributes{{"k", StringOrDict{"v", false}}});
  wrapped->set_root(call);

  Instruction* x = f.b->Param(0, "x", Shape::Scalar(PT::F32));
  Shape state = Shape::Tuple({Shape::Tuple({Shape::Scalar(PT::F32), Shape::Scalar(PT::F32)}),
                              Shape::Scalar(PT::F32)});
  Instruction* start = f.b->Op(Opcode::kAsyncStart, "s", state, {x, x});
  start->SetAttr("calls", wrapped);
  start->SetAttr("backend_config", StringOrDict{"cfg", false});
  Instruction* done = f.b->Op(Opcode::kAsyncDone, "d", Shape::Scalar(PT::F32), {start});
  OpMetadata md;
  md.op_name = "n";
  done->SetAttr("metadata", md);
  f.entry->set_root(done);
  EXPECT_EQ(PrintModule(*f.module),
            "HloModule m, entry_computation_layout={(f32[])->f32[]}\n"
            "\n"
            "%add (x: f32[], y: f32[]) -> f32[] {\n"
            "  %x = f32[] parameter(0)\n"
            "  %y = f32[] parameter(1)\n"
            "  ROOT %sum = f32[] add(%x, %y)\n"
            "}\n"
            "\n"
            "ENTRY %e (x: f32[]) -> f32[] {\n"
            "  %x = f32[] parameter(0)\n"
            "  %s = ((f32[], f32[]), f32[]) call-start(%x, %x), to_apply=%add, "
            "frontend_attributes={k=\"v\"}, backend_config=\"cfg\"\n"
            "  ROOT %d = f32[] call-done(%s), metadata={op_name=\"n\"}\n"
            "}\n"
            "\n");
}

// ---------------------------------------------------------------- corpus

// The corpus' long_*/short_*/nonrt_* files are XLA printer output (see
// MANIFEST.tsv); parsing them and printing with XLA's options must give the
// same text back.
std::string CorpusValidDir() {
#ifdef HLO_SHARED_DIR
  const char* env = getenv("HLO_SHARED_DIR");
  std::string shared = (env != nullptr && *env != '\0') ? env : HLO_SHARED_DIR;
  return shared + "/corpus/parser/valid";
#else
  return "";
#endif
}

std::vector<std::string> CorpusFiles(const std::string& prefix) {
  std::vector<std::string> out;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(CorpusValidDir(), ec)) {
    std::string name = e.path().filename().string();
    if (name.rfind(prefix, 0) == 0 && e.path().extension() == ".hlo") out.push_back(e.path().string());
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::string ReadText(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void CheckCorpus(const std::string& prefix, const PrintOptions& options, bool strip) {
  std::vector<std::string> files = CorpusFiles(prefix);
  if (files.empty()) GTEST_SKIP() << "shared corpus not available";
  for (const std::string& path : files) {
    std::string text = ReadText(path);
    auto module = ParseModule(text);
    ASSERT_TRUE(module.ok()) << path << ": " << module.status();
    std::string printed = PrintModule(**module, options);
    if (strip) {
      std::string expected = ReadText(path.substr(0, path.size() - 4) + ".expected.txt");
      EXPECT_EQ(std::string(absl::StripAsciiWhitespace(printed)),
                std::string(absl::StripAsciiWhitespace(expected)))
          << path;
    } else {
      EXPECT_EQ(printed, text) << path;
    }
  }
}

TEST(PrinterCorpus, LongFormMatchesXla) {
  PrintOptions options;
  options.print_operand_shapes = true;  // as the XLA round-trip tests print them
  CheckCorpus("long_", options, false);
}

TEST(PrinterCorpus, ShortFormMatchesXla) { CheckCorpus("short_", PrintOptions::Short(), false); }

TEST(PrinterCorpus, NonRoundTripCasesMatchXla) {
  CheckCorpus("nonrt_", PrintOptions::Short(), true);
}

}  // namespace
}  // namespace hlo
