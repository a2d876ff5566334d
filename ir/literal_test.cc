#include "ir/literal.h"

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <set>

#include "gtest/gtest.h"
#include "ir/element_type.h"
#include "ir/float_format.h"
#include "ir/shape.h"

namespace hlo {
namespace {

using PT = PrimitiveType;
constexpr int64_t kStar = Tile::kCombineDimension;

Literal Scalar(PT t) { return Literal(Shape::Scalar(t)); }

Layout MakeLayout(std::vector<int64_t> m2m, std::vector<std::vector<int64_t>> tiles = {}) {
  Layout l;
  l.minor_to_major.assign(m2m.begin(), m2m.end());
  for (auto& t : tiles) l.tiles.push_back(Tile{t});
  return l;
}

// --- element type table ---
TEST(ElementTypeTest, TableSanity) {
  std::set<std::string> names;
  for (int i = 0; i < kNumPrimitiveTypes; ++i) {
    PT t = static_cast<PT>(i);
    std::string name(PrimitiveTypeName(t));
    EXPECT_TRUE(names.insert(name).second) << name;
    EXPECT_EQ(PrimitiveTypeFromName(name), std::optional<PT>(t)) << name;
    int bits = PrimitiveTypeBitWidth(t), bytes = PrimitiveTypeByteSize(t);
    if (IsArrayType(t)) {
      EXPECT_GT(bits, 0) << name;
      EXPECT_GE(bytes * 8, bits) << name;
      EXPECT_LT((bytes - 1) * 8, std::max(bits, 8)) << name;  // smallest whole bytes
    } else {
      EXPECT_EQ(bytes, 0) << name;
    }
    if (IsComplex(t)) {
      EXPECT_EQ(PrimitiveTypeByteSize(ComplexComponentType(t)) * 2, bytes);
    }
  }
  EXPECT_EQ(PrimitiveTypeFromName("opaque_type"), std::optional<PT>(PT::OPAQUE_TYPE));
  EXPECT_EQ(PrimitiveTypeFromName("f17"), std::nullopt);
  EXPECT_EQ(PrimitiveTypeName(PT::kInvalid), "invalid");
  EXPECT_EQ(PrimitiveTypeBitWidth(PT::S4), 4);
  EXPECT_EQ(PrimitiveTypeBitWidth(PT::F4E2M1FN), 4);
  EXPECT_EQ(PrimitiveTypeByteSize(PT::BF16), 2);
  EXPECT_EQ(PrimitiveTypeByteSize(PT::C128), 16);
  EXPECT_TRUE(IsSignedInt(PT::S1));
  EXPECT_TRUE(IsUnsignedInt(PT::U2));
  EXPECT_TRUE(IsFloat(PT::F8E8M0FNU));
  EXPECT_TRUE(IsPred(PT::PRED));
  EXPECT_FALSE(IsInteger(PT::PRED));
  EXPECT_EQ(ComplexComponentType(PT::C64), PT::F32);
  EXPECT_EQ(ComplexComponentType(PT::C128), PT::F64);
  EXPECT_EQ(ComplexComponentType(PT::S32), PT::S32);
  EXPECT_FALSE(IsArrayType(PT::TOKEN));
}

// --- shapes ---
TEST(ShapeTest, DefaultLayoutCompatibleAndEquality) {
  Shape a = Shape::Array(PT::F32, {2, 3, 4});
  EXPECT_TRUE(a.has_layout());
  EXPECT_EQ(ToStdVector(a.layout().minor_to_major), (std::vector<int64_t>{2, 1, 0}));
  EXPECT_TRUE(Shape::DefaultMinorToMajor(0).empty());
  Shape b = a;
  b.set_layout(MakeLayout({0, 1, 2}));
  EXPECT_TRUE(a.Compatible(b));
  EXPECT_FALSE(a == b);
  EXPECT_TRUE(a != b);
  b.set_layout(MakeLayout({2, 1, 0}));
  EXPECT_TRUE(a == b);
  Layout tiled = MakeLayout({2, 1, 0}, {{2, 2}});
  b.set_layout(tiled);
  EXPECT_TRUE(a.Compatible(b));
  EXPECT_FALSE(a == b);
  EXPECT_TRUE(tiled.HasNonDefaultTail());
  EXPECT_FALSE(MakeLayout({1, 0}).HasNonDefaultTail());
  // Type and dims matter.
  EXPECT_FALSE(a.Compatible(Shape::Array(PT::S32, {2, 3, 4})));
  EXPECT_FALSE(a.Compatible(Shape::Array(PT::F32, {2, 3})));
  Shape d = a;
  d.set_dynamic_dim(0, true);
  EXPECT_FALSE(a.Compatible(d));
  EXPECT_FALSE(d.IsStatic());
  // No layout vs. default layout.
  Shape n = Shape::ArrayNoLayout(PT::F32, {2, 3, 4});
  EXPECT_FALSE(n.has_layout());
  EXPECT_TRUE(n.Compatible(a));
  n.FillDefaultLayoutIfMissing();
  EXPECT_TRUE(n == a);
  // Scalars, tuples, tokens.
  Shape s = Shape::Scalar(PT::F32);
  EXPECT_TRUE(s.IsScalar());
  EXPECT_EQ(s.ElementCount(), 1);
  EXPECT_TRUE(s.layout().minor_to_major.empty());
  Shape t = Shape::Tuple({a, s});
  Shape t2 = Shape::Tuple({b, s});
  EXPECT_TRUE(t.Compatible(t2));
  EXPECT_FALSE(t == t2);
  EXPECT_FALSE(t.Compatible(Shape::Tuple({a})));
  EXPECT_FALSE(t.Compatible(a));
  EXPECT_EQ(t.SubShape({1}), &t.tuple_shape(1));
  EXPECT_EQ(t.SubShape({2}), nullptr);
  EXPECT_TRUE(Shape::Token().Compatible(Shape::Token()));
  EXPECT_FALSE(Shape::Token().Compatible(Shape::Opaque()));
  EXPECT_EQ(a.ElementCount(), 24);
}

// --- integer storage and wrapping ---
// A view reads the caller's bytes in place; nothing ever writes through it:
// copies own their bytes and the first mutable access copies them in.
TEST(LiteralTest, ViewReadsInPlaceAndNeverWritesThrough) {
  float bytes[6] = {1, 2, 3, 4, 5, 6};
  Literal view = Literal::View(Shape::Array(PrimitiveType::F32, {2, 3}), bytes);
  EXPECT_TRUE(view.is_view());
  const Literal& read = view;
  EXPECT_EQ(read.data(), reinterpret_cast<const uint8_t*>(bytes));
  EXPECT_EQ(read.size_bytes(), sizeof(bytes));
  EXPECT_EQ(read.physical_count(), 6);
  EXPECT_EQ(read.GetDouble(read.Slot({1, 2})), 6.0);

  Literal copy = view;  // owns a copy
  EXPECT_FALSE(copy.is_view());
  bytes[0] = 10;
  EXPECT_EQ(copy.GetDouble(0), 1.0);
  EXPECT_EQ(read.GetDouble(0), 10.0);  // the view follows its bytes

  Literal assigned;
  assigned = view;
  EXPECT_FALSE(assigned.is_view());
  EXPECT_EQ(assigned.GetDouble(0), 10.0);

  view.SetDouble(1, 20.0);  // mutable access: copied in first
  EXPECT_FALSE(view.is_view());
  EXPECT_EQ(view.GetDouble(1), 20.0);
  EXPECT_EQ(view.GetDouble(0), 10.0);
  EXPECT_EQ(bytes[1], 2.0f);
  EXPECT_FALSE(view.ReuseStorageAs(Shape::Array(PrimitiveType::F32, {3, 3})));
  EXPECT_TRUE(view.ReuseStorageAs(Shape::Array(PrimitiveType::F32, {3, 2})));

  Literal moved = Literal::View(Shape::Array(PrimitiveType::F32, {6}), bytes);
  Literal taken = std::move(moved);  // a move keeps the view
  EXPECT_TRUE(taken.is_view());
  EXPECT_TRUE(taken.LogicallyEqual(Literal::View(Shape::Array(PrimitiveType::F32, {6}), bytes)));
}

TEST(LiteralTest, SetIntWrapsToTypeWidth) {
  struct Case {
    PT t;
    int64_t in, out;
  } cases[] = {
      {PT::S1, 0, 0},     {PT::S1, 1, -1},     {PT::S1, 2, 0},      {PT::S1, -1, -1},
      {PT::U1, 3, 1},     {PT::U1, 2, 0},      {PT::S2, 1, 1},      {PT::S2, 2, -2},
      {PT::S2, -3, 1},    {PT::U2, -1, 3},     {PT::U2, 5, 1},      {PT::S4, 7, 7},
      {PT::S4, 8, -8},    {PT::S4, 9, -7},     {PT::S4, -9, 7},     {PT::U4, 17, 1},
      {PT::U4, -1, 15},   {PT::S8, 200, -56},  {PT::U8, 256, 0},    {PT::U8, -1, 255},
      {PT::S16, 40000, 40000 - 65536},         {PT::U16, 70000, 70000 - 65536},
      {PT::S32, int64_t{1} << 31, -(int64_t{1} << 31)},
      {PT::U32, -1, 0xffffffffll},             {PT::S64, -5, -5},
      {PT::U64, -1, -1},  // u64 reads back bit-cast
  };
  for (const Case& c : cases) {
    Literal l = Scalar(c.t);
    l.SetInt(0, c.in);
    EXPECT_EQ(l.GetInt(0), c.out) << PrimitiveTypeName(c.t) << " " << c.in;
    EXPECT_EQ(l.GetDouble(0), c.t == PT::U64 ? 18446744073709551615.0 : static_cast<double>(c.out));
  }
  // Signed sub-byte ints are stored sign-extended in their byte.
  Literal s4 = Scalar(PT::S4);
  s4.SetInt(0, -1);
  EXPECT_EQ(s4.GetRaw<int8_t>(0), -1);
  Literal u4 = Scalar(PT::U4);
  u4.SetInt(0, -1);
  EXPECT_EQ(u4.GetRaw<uint8_t>(0), 15);
  // A raw byte that is not sign-extended still reads as the 4-bit value.
  s4.SetRaw<uint8_t>(0, 0x0f);
  EXPECT_EQ(s4.GetInt(0), -1);
}

TEST(LiteralTest, Pred) {
  Literal p = Scalar(PT::PRED);
  p.SetInt(0, 5);
  EXPECT_EQ(p.GetRaw<uint8_t>(0), 1);
  EXPECT_EQ(p.GetInt(0), 1);
  p.SetInt(0, 0);
  EXPECT_EQ(p.GetRaw<uint8_t>(0), 0);
  p.SetDouble(0, 0.25);
  EXPECT_EQ(p.GetRaw<uint8_t>(0), 1);
  EXPECT_EQ(p.GetDouble(0), 1.0);
  p.SetDouble(0, -0.0);
  EXPECT_EQ(p.GetRaw<uint8_t>(0), 0);
}

TEST(LiteralTest, SetDoubleOnIntegersConverts) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  struct Case {
    PT t;
    double in;
    int64_t out;
  } cases[] = {
      {PT::S32, 3.7, 3},         {PT::S32, -3.7, -3},          {PT::S32, 1e10, 2147483647},
      {PT::S32, -1e10, -2147483647 - 1},                       {PT::S32, nan, 0},
      {PT::U8, -1.0, 0},         {PT::U8, 300.0, 255},         {PT::U8, 254.9, 254},
      {PT::S4, 100.0, 7},        {PT::S4, -100.0, -8},         {PT::U4, 15.5, 15},
      {PT::S64, 1e300, std::numeric_limits<int64_t>::max()},   {PT::U64, 1e300, -1},
      {PT::S8, std::numeric_limits<double>::infinity(), 127},
  };
  for (const Case& c : cases) {
    Literal l = Scalar(c.t);
    l.SetDouble(0, c.in);
    EXPECT_EQ(l.GetInt(0), c.out) << PrimitiveTypeName(c.t) << " " << c.in;
  }
}

TEST(LiteralTest, GetIntOnFloatsTruncates) {
  Literal f = Scalar(PT::F32);
  f.SetDouble(0, -2.9);
  EXPECT_EQ(f.GetInt(0), -2);
  Literal h = Scalar(PT::F16);
  h.SetDouble(0, 3.5);
  EXPECT_EQ(h.GetInt(0), 3);
  Literal e = Scalar(PT::F8E4M3FN);
  e.SetDouble(0, -448);
  EXPECT_EQ(e.GetInt(0), -448);
  Literal n = Scalar(PT::F64);
  n.SetDouble(0, std::nan(""));
  EXPECT_EQ(n.GetInt(0), 0);
  n.SetDouble(0, 1e300);
  EXPECT_EQ(n.GetInt(0), std::numeric_limits<int64_t>::max());
}

TEST(LiteralTest, FloatValuesThroughEveryType) {
  for (PT t : {PT::F16, PT::BF16, PT::F32, PT::F64, PT::F8E5M2, PT::F8E4M3, PT::F8E4M3FN,
               PT::F8E4M3B11FNUZ, PT::F8E3M4, PT::F8E5M2FNUZ, PT::F8E4M3FNUZ, PT::F4E2M1FN}) {
    Literal l = Scalar(t);
    for (double v : {0.0, 1.0, -1.5, 2.0, 0.5, -3.0, 6.0}) {
      l.SetDouble(0, v);
      EXPECT_EQ(l.GetDouble(0), v) << PrimitiveTypeName(t);
      l.SetInt(0, static_cast<int64_t>(v));
      EXPECT_EQ(l.GetDouble(0), std::trunc(v)) << PrimitiveTypeName(t);
    }
    // Storage is the type's bits.
    l.SetDouble(0, 1.0);
    EXPECT_EQ(l.GetFloatBits(0), EncodeFloat(t, 1.0)) << PrimitiveTypeName(t);
  }
  Literal h = Scalar(PT::F16);
  h.SetDouble(0, 1.0);
  EXPECT_EQ(h.GetRaw<uint16_t>(0), 0x3c00);
  h.SetDouble(0, 1 + std::ldexp(1.0, -11) + std::ldexp(1.0, -40));  // above the tie
  EXPECT_EQ(h.GetRaw<uint16_t>(0), 0x3c01);
  Literal e = Scalar(PT::F8E8M0FNU);
  e.SetDouble(0, 4.0);
  EXPECT_EQ(e.GetRaw<uint8_t>(0), 0x81);
  EXPECT_EQ(e.GetDouble(0), 4.0);
  Literal f4 = Scalar(PT::F4E2M1FN);
  f4.SetDouble(0, -100);
  EXPECT_EQ(f4.GetRaw<uint8_t>(0), 0xf);
  EXPECT_EQ(f4.GetDouble(0), -6.0);
}

TEST(LiteralTest, SetIntIntoFloatsRoundsOnce) {
  // 2^62 + 2^38 + 1 is just above the f32 tie between 2^62 and 2^62 + 2^39;
  // a rounding through double would land on the tie and go to even (down).
  const int64_t v = (int64_t{1} << 62) + (int64_t{1} << 38) + 1;
  Literal f = Scalar(PT::F32);
  f.SetInt(0, v);
  EXPECT_EQ(f.GetRaw<float>(0), static_cast<float>(v));
  EXPECT_EQ(f.GetDouble(0), std::ldexp(1.0, 62) + std::ldexp(1.0, 39));
  Literal b = Scalar(PT::BF16);
  const int64_t w = (int64_t{1} << 62) + (int64_t{1} << 54) + 1;  // just above a bf16 tie
  b.SetInt(0, w);
  EXPECT_EQ(b.GetDouble(0), std::ldexp(1.0, 62) + std::ldexp(1.0, 55));
  Literal d = Scalar(PT::F64);
  d.SetInt(0, std::numeric_limits<int64_t>::min());
  EXPECT_EQ(d.GetDouble(0), -std::ldexp(1.0, 63));
}

TEST(LiteralTest, NanPayloadsSurviveSetDouble) {
  // f32/f64: bit exact both ways.
  Literal f = Scalar(PT::F32);
  for (uint32_t bits : {0x7fc00000u, 0x7f800001u, 0xffc00123u, 0x7fbfffffu}) {
    f.SetRaw<uint32_t>(0, bits);
    double d = f.GetDouble(0);
    ASSERT_TRUE(std::isnan(d));
    f.SetDouble(0, 0.0);
    f.SetDouble(0, d);
    EXPECT_EQ(f.GetRaw<uint32_t>(0), bits);
  }
  f.SetDouble(0, MakeDoubleNan(false, 0x7f));  // text nan(0x7f)
  EXPECT_EQ(f.GetRaw<uint32_t>(0), 0x7f80007fu);
  Literal d = Scalar(PT::F64);
  double payload_nan = MakeDoubleNan(true, 0x123456789);
  d.SetDouble(0, payload_nan);
  uint64_t raw = d.GetRaw<uint64_t>(0), want;
  std::memcpy(&want, &payload_nan, 8);
  EXPECT_EQ(raw, want);
  // f16/bf16: every NaN encoding survives GetDouble -> SetDouble; text
  // payloads land in the mantissa when they fit.
  for (PT t : {PT::F16, PT::BF16}) {
    Literal l = Scalar(t);
    for (uint32_t b = 0; b < 65536; ++b) {
      if (!IsNanBits(t, b)) continue;
      l.SetRaw<uint16_t>(0, static_cast<uint16_t>(b));
      double v = l.GetDouble(0);
      l.SetDouble(0, v);
      ASSERT_EQ(l.GetRaw<uint16_t>(0), b) << PrimitiveTypeName(t);
    }
  }
  Literal h = Scalar(PT::F16);
  h.SetDouble(0, MakeDoubleNan(false, 0x3ff));
  EXPECT_EQ(h.GetRaw<uint16_t>(0), 0x7fff);
  Literal bf = Scalar(PT::BF16);
  bf.SetDouble(0, MakeDoubleNan(true, 0x1));
  EXPECT_EQ(bf.GetRaw<uint16_t>(0), 0xff81);
  // Complex parts too.
  Literal c = Scalar(PT::C64);
  c.SetComplex(0, {MakeDoubleNan(false, 0x7f), -2.0});
  uint32_t re;
  std::complex<float> cv = c.GetRaw<std::complex<float>>(0);
  std::memcpy(&re, &cv, 4);
  EXPECT_EQ(re, 0x7f80007fu);
  EXPECT_EQ(c.GetFloatBits(0), 0x7f80007fu);
}

TEST(LiteralTest, Complex) {
  Literal c = Scalar(PT::C64);
  c.SetComplex(0, {1.5, -2.25});
  EXPECT_EQ(c.GetComplex(0), std::complex<double>(1.5, -2.25));
  EXPECT_EQ(c.GetDouble(0), 1.5);
  EXPECT_EQ(c.GetInt(0), 1);
  c.SetDouble(0, 3.0);
  EXPECT_EQ(c.GetComplex(0), std::complex<double>(3.0, 0.0));
  Literal z = Scalar(PT::C128);
  z.SetComplex(0, {0.1, 0.2});
  EXPECT_EQ(z.GetComplex(0), std::complex<double>(0.1, 0.2));
  z.SetInt(0, -7);
  EXPECT_EQ(z.GetComplex(0), std::complex<double>(-7.0, 0.0));
  // Non-complex literals: real part only.
  Literal f = Scalar(PT::F32);
  f.SetComplex(0, {2.5, 9.0});
  EXPECT_EQ(f.GetComplex(0), std::complex<double>(2.5, 0.0));
}

// --- FillDeterministic ---
TEST(LiteralTest, FillDeterministic) {
  for (int i = 0; i < kNumPrimitiveTypes; ++i) {
    PT t = static_cast<PT>(i);
    if (!IsArrayType(t)) continue;
    Shape s = Shape::Array(t, {3, 7});
    Literal a(s), b(s);
    a.FillDeterministic();
    b.FillDeterministic();
    ASSERT_EQ(a.size_bytes(), b.size_bytes());
    EXPECT_EQ(std::memcmp(a.data(), b.data(), a.size_bytes()), 0) << PrimitiveTypeName(t);
    bool any_nonzero = false;
    for (int64_t k = 0; k < a.physical_count(); ++k) {
      if (IsPred(t)) {
        EXPECT_LE(a.GetRaw<uint8_t>(k), 1);
      }
      if (IsFloatOrComplex(t)) {
        std::complex<double> v = a.GetComplex(k);
        EXPECT_TRUE(std::isfinite(v.real()) && std::isfinite(v.imag())) << PrimitiveTypeName(t);
        EXPECT_LE(std::abs(v.real()), 16.0);
      }
      if (IsInteger(t)) {
        // The stored value is a valid value of the type.
        Literal c = Scalar(t);
        c.SetInt(0, a.GetInt(k));
        EXPECT_EQ(std::memcmp(c.data(), a.data() + k * a.element_bytes(), a.element_bytes()), 0);
      }
      any_nonzero |= a.GetDouble(k) != 0;
    }
    EXPECT_TRUE(any_nonzero) << PrimitiveTypeName(t);
    // Another seed gives other values.
    Literal other(s);
    other.FillDeterministic(99);
    if (!IsPred(t) && t != PT::S1 && t != PT::U1) {
      EXPECT_NE(std::memcmp(a.data(), other.data(), a.size_bytes()), 0) << PrimitiveTypeName(t);
    }
  }
  // Same logical values in any layout.
  Shape row = Shape::Array(PT::F32, {5, 6});
  Shape tiled = row;
  tiled.set_layout(MakeLayout({0, 1}, {{2, 4}}));
  Literal r(row), t(tiled);
  r.FillDeterministic(3);
  t.FillDeterministic(3);
  EXPECT_TRUE(r.LogicallyEqual(t));
  // Tuples recurse.
  Literal tup(Shape::Tuple({row, Shape::Scalar(PT::S32)}));
  tup.FillDeterministic();
  EXPECT_TRUE(tup.tuple_elements()[0].GetDouble(0) != 0 || tup.tuple_elements()[0].GetDouble(1) != 0);
}

// --- Relayout ---
void FillSequential(Literal& l) {
  const Shape& s = l.shape();
  std::vector<int64_t> slots = PhysicalIndexTable(s);
  for (size_t i = 0; i < slots.size(); ++i) l.SetInt(slots[i], static_cast<int64_t>(i) + 1);
}

std::vector<int64_t> Unravel(const Shape& s, int64_t n) {
  std::vector<int64_t> idx(s.rank());
  for (int64_t d = s.rank() - 1; d >= 0; --d) {
    idx[d] = n % s.dim(d);
    n /= s.dim(d);
  }
  return idx;
}

void CheckRelayout(PT type, std::vector<int64_t> dims, const Layout& to) {
  Literal src(Shape::Array(type, dims));
  FillSequential(src);
  Literal dst = src.Relayout(to);
  EXPECT_EQ(dst.shape().layout(), to);
  EXPECT_EQ(dst.physical_count(), PhysicalElementCount(dst.shape()));
  EXPECT_TRUE(dst.LogicallyEqual(src));
  EXPECT_TRUE(src.LogicallyEqual(dst));
  int64_t n = src.shape().ElementCount();
  std::set<int64_t> used;
  for (int64_t i = 0; i < n; ++i) {
    std::vector<int64_t> idx = Unravel(src.shape(), i);
    ASSERT_EQ(dst.GetInt(dst.Slot(idx)), src.GetInt(src.Slot(idx)));
    used.insert(dst.Slot(idx));
  }
  // Padding slots stay zero.
  for (int64_t k = 0; k < dst.physical_count(); ++k)
    if (!used.count(k)) {
      EXPECT_EQ(dst.GetInt(k), 0);
    }
  // And back to the default layout gives the same bytes.
  Literal back = dst.Relayout(src.shape().layout());
  ASSERT_EQ(back.size_bytes(), src.size_bytes());
  EXPECT_EQ(std::memcmp(back.data(), src.data(), src.size_bytes()), 0);
}

TEST(LiteralTest, RelayoutPreservesLogicalValues) {
  CheckRelayout(PT::S32, {2, 3}, MakeLayout({0, 1}));
  CheckRelayout(PT::S32, {3, 5}, MakeLayout({1, 0}, {{2, 2}}));  // seed figure 1
  CheckRelayout(PT::S16, {4, 8}, MakeLayout({1, 0}, {{2, 4}, {2, 1}}));  // figure 2
  CheckRelayout(PT::S8, {9, 130}, MakeLayout({1, 0}, {{8, 128}, {2, 1}}));
  CheckRelayout(PT::S32, {2, 7, 8, 11, 10}, MakeLayout({4, 3, 2, 1, 0}, {{kStar, kStar, 2, kStar, 3}}));
  CheckRelayout(PT::S64, {3, 4, 5}, MakeLayout({0, 2, 1}, {{kStar, 2}}));
  CheckRelayout(PT::U8, {3, 3, 5}, MakeLayout({2, 0, 1}, {{2, 2}}));
  CheckRelayout(PT::S32, {7}, MakeLayout({0}, {{4}}));
  Layout padded = MakeLayout({0}, {{8}});
  padded.mutable_rare().tail_padding_alignment_in_elements = 64;
  CheckRelayout(PT::S32, {10}, padded);
}

TEST(LiteralTest, RelayoutOfFloatsKeepsBits) {
  Literal src(Shape::Array(PT::BF16, {5, 9}));
  src.FillDeterministic(1);
  src.SetRaw<uint16_t>(0, 0x7fc1);  // a NaN with payload
  Literal dst = src.Relayout(MakeLayout({0, 1}, {{2, 2}, {2, 1}}));
  EXPECT_TRUE(dst.LogicallyEqual(src));
  EXPECT_EQ(dst.GetRaw<uint16_t>(dst.Slot({0, 0})), 0x7fc1);
  Literal c(Shape::Array(PT::C64, {3, 2}));
  c.FillDeterministic(2);
  Literal cd = c.Relayout(MakeLayout({0, 1}));
  EXPECT_TRUE(cd.LogicallyEqual(c));
  EXPECT_EQ(cd.GetComplex(cd.Slot({2, 1})), c.GetComplex(c.Slot({2, 1})));
}

TEST(LiteralTest, LogicallyEqualDetectsDifferences) {
  Literal a(Shape::Array(PT::S32, {2, 2}));
  FillSequential(a);
  Literal b = a.Relayout(MakeLayout({0, 1}));
  EXPECT_TRUE(a.LogicallyEqual(b));
  b.SetInt(b.Slot({1, 0}), 42);
  EXPECT_FALSE(a.LogicallyEqual(b));
  EXPECT_FALSE(a.LogicallyEqual(Literal(Shape::Array(PT::S32, {4}))));
}

}  // namespace
}  // namespace hlo
