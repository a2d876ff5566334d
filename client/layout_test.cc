// The shapes-and-layout and tiled-layout documents of the seeds, from the
// builder's side: parameters keep the layouts they are given (printed in
// the module's signature), results take the default layout, and values are
// the same whatever the physical order.
#include "client/client_test_util.h"
#include "gmock/gmock.h"

namespace hlo::client {
namespace {

using ::hlo::client::testing::BuildChecked;
using ::testing::HasSubstr;

Shape Parsed(const std::string& text) {
  absl::StatusOr<Shape> s = ParseShape(text);
  EXPECT_TRUE(s.ok()) << s.status();
  return s.ok() ? *s : Shape();
}

// A [2 x 3] array with minor_to_major {0, 1} is column-major: in memory
// a d b e c f for the rows (a b c), (d e f).
TEST(ShapesAndLayoutDoc, ColumnMajorPhysicalOrder) {
  absl::StatusOr<Literal> rows = ParseLiteral("f32[2,3] {{1, 2, 3}, {4, 5, 6}}");
  ASSERT_TRUE(rows.ok());
  Layout column_major;
  column_major.minor_to_major = {0, 1};
  Literal cm = rows->Relayout(column_major);
  std::vector<double> physical;
  for (int64_t i = 0; i < cm.physical_count(); ++i) physical.push_back(cm.GetDouble(i));
  EXPECT_EQ(physical, (std::vector<double>{1, 4, 2, 5, 3, 6}));
}

// The builder keeps a parameter's layout, gives results the default
// (row-major: "dimension order is major to minor") layout, and the run
// reads the values logically.
TEST(ShapesAndLayoutDoc, ParameterLayoutIsKept) {
  XlaBuilder b("column_major");
  XlaOp x = Parameter(&b, 0, Parsed("f32[2,3]{0,1}"), "x");
  Neg(x);
  absl::StatusOr<std::shared_ptr<Module>> m = BuildChecked(b);
  ASSERT_TRUE(m.ok()) << m.status();
  const std::string text = PrintModule(**m);
  EXPECT_THAT(text, HasSubstr("%x.1 = f32[2,3]{0,1} parameter(0)"));
  EXPECT_THAT(text, HasSubstr("ROOT %negate.2 = f32[2,3]{1,0} negate(%x.1)"));
  absl::StatusOr<Literal> r = testing::RunWithArgs(**m, {"f32[2,3] {{1, 2, 3}, {4, 5, 6}}"});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_TRUE(testing::LiteralIs(*r, "f32[2,3] {{-1, -2, -3}, {-4, -5, -6}}"));
}

// Tiled layout, figure 1: F32[3,5] with 2x2 tiles; element (2,3) has tile
// index (1,1) and index (0,1) within the tile, linear index 17.
TEST(TiledLayoutDoc, ElementTwoThreeIsAtSeventeen) {
  Literal lit(Parsed("f32[3,5]{1,0:T(2,2)}"));
  EXPECT_EQ(lit.Slot({2, 3}), 17);
  // Padding fills the last tile row: 2x3 tiles of 4 elements.
  EXPECT_EQ(lit.physical_count(), 24);
}

// A builder parameter may carry a tiled layout; it prints in the module's
// signature, and the module verifies and runs on logical values.
TEST(TiledLayoutDoc, TiledParameter) {
  XlaBuilder b("tiled");
  XlaOp x = Parameter(&b, 0, Parsed("f32[3,5]{1,0:T(2,2)}"), "x");
  Add(x, x);
  absl::StatusOr<std::shared_ptr<Module>> m = BuildChecked(b);
  ASSERT_TRUE(m.ok()) << m.status();
  EXPECT_THAT(PrintModule(**m), HasSubstr("f32[3,5]{1,0:T(2,2)} parameter(0)"));
  absl::StatusOr<Literal> r = testing::RunWithArgs(
      **m, {"f32[3,5] {{0, 1, 2, 3, 4}, {5, 6, 7, 8, 9}, {10, 11, 12, 13, 14}}"});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_TRUE(testing::LiteralIs(*r, "f32[3,5] {{0, 2, 4, 6, 8}, {10, 12, 14, 16, 18}, {20, 22, 24, 26, 28}}"));
}

// A bitcast's result layout is its meaning (it reinterprets the buffer):
// the builder keeps the one written, tiles included, where other results
// take the default (here {1,0}, which would read the tiled buffer as a
// plain row-major one).
TEST(TiledLayoutDoc, BitcastKeepsItsWrittenLayout) {
  XlaBuilder b("bitcast_tiled");
  XlaOp x = Parameter(&b, 0, Parsed("f32[3,5]{1,0:T(2,2)}"), "x");
  b.AddInstruction("Bitcast", Opcode::kBitcast, {x}, {}, Parsed("f32[3,5]{0,1:T(2,2)}"));
  absl::StatusOr<std::shared_ptr<Module>> m = BuildChecked(b);
  ASSERT_TRUE(m.ok()) << m.status();
  EXPECT_THAT(PrintModule(**m), HasSubstr("ROOT %bitcast.2 = f32[3,5]{0,1:T(2,2)} bitcast(%x.1)"));
}

}  // namespace
}  // namespace hlo::client
