// Range checks of float literals at the rounding boundary above each
// type's largest finite value (XLA's rule: convert first, reject exactly
// when the conversion is not finite; docs/semantics.md "Literal range").
#include <cmath>
#include <limits>
#include <string>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "parser/parser.h"

namespace hlo {
namespace {

// The value a scalar literal `type[] text` holds, or the parse error.
struct Parsed {
  bool ok;
  double value;
  std::string error;
};
Parsed ParseScalar(const std::string& type, const std::string& text) {
  absl::StatusOr<Literal> l = ParseLiteral(absl::StrCat(type, "[] ", text));
  if (!l.ok()) return {false, 0, std::string(l.status().message())};
  return {true, l->GetDouble(0), ""};
}

struct Edge {
  const char* type;
  const char* accepted;  // rounds to the largest finite value (or saturates)
  double stored;
  const char* rejected;  // the first value past the boundary
  const char* range;     // as the error prints it
};

const Edge kEdges[] = {
    {"f16", "65519", 65504, "65520", "[-65504, 65504]"},
    {"bf16", "3.396e38", 0x1.fep127, "3.3962e38", "[-3.38953e+38, 3.38953e+38]"},
    {"f32", "3.4028235e38", 0x1.fffffep127, "3.4028236e38", "[-3.40282e+38, 3.40282e+38]"},
    {"f8e5m2", "61439", 57344, "61440", "[-57344, 57344]"},
    {"f8e4m3fn", "464", 448, "464.0001", "[-448, 448]"},
    {"f8e4m3b11fnuz", "30.99", 30, "31", "[-30, 30]"},
    {"f8e5m2fnuz", "-61439", -57344, "-61440", "[-57344, 57344]"},
    {"f8e4m3fnuz", "247.99", 240, "248", "[-240, 240]"},
    {"f8e4m3", "-247.99", -240, "-248", "[-240, 240]"},
    {"f8e3m4", "15.74", 15.5, "15.75", "[-15.5, 15.5]"},
    {"f8e8m0fnu", "2.55e38", 0x1p127, "2.5521177519070385e38", "[5.87747e-39, 1.70141e+38]"},
};

TEST(LiteralRangeTest, EveryNarrowTypeAtItsEdge) {
  for (const Edge& e : kEdges) {
    Parsed a = ParseScalar(e.type, e.accepted);
    ASSERT_TRUE(a.ok) << e.type << " " << e.accepted << ": " << a.error;
    EXPECT_EQ(a.value, e.stored) << e.type << " " << e.accepted;
    Parsed r = ParseScalar(e.type, e.rejected);
    ASSERT_FALSE(r.ok) << e.type << " " << e.rejected << " parsed as " << r.value;
    std::string upper = e.type;
    for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    EXPECT_TRUE(absl::StrContains(
        r.error, absl::StrCat("value ", e.rejected, " is out of range for literal's primitive type ",
                              upper, " namely ", e.range, ".")))
        << r.error;
  }
}

TEST(LiteralRangeTest, InfAndNanStayAllowed) {
  for (const Edge& e : kEdges) {
    for (const char* v : {"inf", "-inf", "nan"}) {
      Parsed p = ParseScalar(e.type, v);
      EXPECT_TRUE(p.ok) << e.type << " " << v << ": " << p.error;
    }
  }
}

// Eigen converts a double to f16/bf16 through f32, so XLA's range decision
// rounds twice: 65519.999 becomes 65520.0f and then overflows f16, though
// one rounding would give 65504. The f8 types convert in one step.
TEST(LiteralRangeTest, HalfAndBfloatOverflowThroughFloat) {
  EXPECT_FALSE(ParseScalar("f16", "65519.999").ok);
  EXPECT_FALSE(ParseScalar("f16", "-65519.999").ok);
  EXPECT_EQ(ParseScalar("f16", "65519.99").value, 65504);
  EXPECT_FALSE(ParseScalar("bf16", "3.3961775e38").ok);
  EXPECT_EQ(ParseScalar("bf16", "3.39617e38").value, 0x1.fep127);
  // 464 + 2^-40 would be 464 through f32; in one step it overflows.
  EXPECT_FALSE(ParseScalar("f8e4m3fn", "464.00000000000091").ok);
}

// f4e2m1fn has no inf and no NaN: ml_dtypes saturates, so XLA accepts
// every value and stores +-6.
TEST(LiteralRangeTest, F4E2M1FNSaturates) {
  EXPECT_EQ(ParseScalar("f4e2m1fn", "7").value, 6);
  EXPECT_EQ(ParseScalar("f4e2m1fn", "-1e300").value, -6);
  EXPECT_EQ(ParseScalar("f4e2m1fn", "inf").value, 6);
}

// f8e8m0fnu has neither zero nor negative values: both overflow to NaN and
// are rejected; positive values below 2^-127 become 2^-127.
TEST(LiteralRangeTest, E8M0RejectsZeroAndNegatives) {
  for (const char* v : {"0", "-0", "-1", "-1e-300"}) {
    Parsed p = ParseScalar("f8e8m0fnu", v);
    EXPECT_FALSE(p.ok) << v;
    EXPECT_TRUE(absl::StrContains(p.error, "F8E8M0FNU namely [5.87747e-39, 1.70141e+38]")) << p.error;
  }
  EXPECT_EQ(ParseScalar("f8e8m0fnu", "1e-300").value, std::ldexp(1.0, -127));
}

// Complex parts overflow like real values of the component type. (XLA
// compares them with the maximum as written, which rejects its own printed
// c64 FLT_MAX, 3.40282347e+38; we keep print/parse round trips.)
TEST(LiteralRangeTest, ComplexPartsOverflowLikeReals) {
  absl::StatusOr<Literal> ok = ParseLiteral("c64[] (3.40282347e+38, -inf)");
  ASSERT_TRUE(ok.ok()) << ok.status().message();
  EXPECT_EQ(ok->GetComplex(0).real(), 0x1.fffffep127);
  absl::StatusOr<Literal> re = ParseLiteral("c64[] (3.4028236e38, 0)");
  ASSERT_FALSE(re.ok());
  EXPECT_TRUE(absl::StrContains(re.status().message(),
                                "real part 3.4028236e38 is out of range for literal's primitive "
                                "type C64, namely [-3.40282e+38, 3.40282e+38]."))
      << re.status().message();
  absl::StatusOr<Literal> im = ParseLiteral("c64[] (0, -1e39)");
  ASSERT_FALSE(im.ok());
  EXPECT_TRUE(absl::StrContains(im.status().message(), "imaginary part -1e39")) << im.status().message();
  EXPECT_TRUE(ParseLiteral("c128[] (1e308, -1e308)").ok());
}

}  // namespace
}  // namespace hlo
