// Golden examples of the shapes-and-layout and tiled-layout documents
// (seeds). A layout is physical, so these read memory through a `bitcast`
// (which reinterprets the operand's buffer, docs/semantics.md): a
// parameter takes the document's layout, hlo-run lays the --input values
// out in it, and the bitcast to a row-major vector (or to the tile
// coordinates) shows the order the document states. The builder has no
// Bitcast call (XLA's has none either): AddInstruction makes it.
#include "client/golden_examples.h"
#include "client/ops.h"
#include "parser/parser.h"

namespace hlo::client {
namespace {

constexpr PrimitiveType F32 = PrimitiveType::F32;

// The shape written as text (layouts with tiles included); an invalid
// shape makes Parameter report the error.
Shape ShapeOf(const char* text) {
  absl::StatusOr<Shape> s = ParseShape(text);
  return s.ok() ? *s : Shape();
}

XlaOp Bitcast(XlaOp operand, const char* shape) {
  XlaBuilder* b = operand.builder();
  if (b == nullptr) return XlaOp();
  return b->AddInstruction("Bitcast", Opcode::kBitcast, {operand}, {}, ShapeOf(shape));
}

// The [2 x 3] array (a b c / d e f) with minor_to_major [0, 1].
void ColumnMajor(XlaBuilder* b) { Bitcast(Parameter(b, 0, ShapeOf("f32[2,3]{0,1}"), "x"), "f32[6]{0}"); }

// No layout given: the default, major to minor (minor_to_major [1, 0]).
void DefaultRowMajor(XlaBuilder* b) { Bitcast(Parameter(b, 0, Shape::Array(F32, {2, 3}), "x"), "f32[6]{0}"); }

// padded_dimensions [3, 5] with padding value 0 and a column-major layout.
// Our layouts have no padded_dimensions (XLA dropped the field); one tile
// of the padded size is the same padding: the physical dimensions of
// {0,1} are (3, 2) major to minor, padded to (5, 3).
void PaddedColumnMajor(XlaBuilder* b) {
  Bitcast(Parameter(b, 0, ShapeOf("f32[2,3]{0,1:T(5,3)}"), "x"), "f32[15]{0}");
}

// The document's equivalent: the 3x5 array (a b c 0 0 / d e f 0 0 / 0...)
// with the same minor-to-major order.
void PaddedEquivalentArray(XlaBuilder* b) {
  Bitcast(Parameter(b, 0, ShapeOf("f32[3,5]{0,1}"), "x"), "f32[15]{0}");
}

// F32[3,5]{1,0:T(2,2)}: the element at linear index 17 of the tiled
// buffer (2x3 tiles of 2x2, padding included).
void TiledLinearIndex17(XlaBuilder* b) {
  XlaOp physical = Bitcast(Parameter(b, 0, ShapeOf("f32[3,5]{1,0:T(2,2)}"), "x"), "f32[24]{0}");
  Slice(physical, {17}, {18}, {1});
}

// The same buffer as (tile index, index within the tile): bounds
// (2, 3, 2, 2); element (2, 3) is at (1, 1, 0, 1).
void TiledCoordinates(XlaBuilder* b) {
  XlaOp tiles = Bitcast(Parameter(b, 0, ShapeOf("f32[3,5]{1,0:T(2,2)}"), "x"), "f32[2,3,2,2]{3,2,1,0}");
  Reshape(Slice(tiles, {1, 1, 0, 1}, {2, 2, 1, 2}, {1, 1, 1, 1}), {});
}

// Combining dimensions: F32[2,7,8,11,10]{4,3,2,1,0} tiled (*,*,2,*,3) is
// F32[112,110]{1,0} tiled (2,3). The bitcast between the two must be the
// identity on values, so the largest |bitcast - reshape| is 0 for any
// input (the document gives none: hlo-run --random-inputs).
void CombinedDimensions(XlaBuilder* b) {
  XlaOp x = Parameter(b, 0, ShapeOf("f32[2,7,8,11,10]{4,3,2,1,0:T(*,*,2,*,3)}"), "x");
  XlaOp as_2d = Bitcast(x, "f32[112,110]{1,0:T(2,3)}");
  std::unique_ptr<XlaBuilder> sub = b->CreateSubBuilder("max");
  Max(Parameter(sub.get(), 0, Shape::Scalar(F32), "x"), Parameter(sub.get(), 1, Shape::Scalar(F32), "y"));
  absl::StatusOr<XlaComputation> max = sub->Build();
  if (!max.ok()) return;
  ReduceAll(Abs(Sub(as_2d, Reshape(x, {112, 110}))), ConstantR0<float>(b, 0), *max);
}

}  // namespace

std::vector<GoldenExample> LayoutGoldenExamples() {
  // a..f of the documents' [2 x 3] array are 1..6.
  constexpr char kAtoF[] = "f32[2,3] {{1, 2, 3}, {4, 5, 6}}";
  constexpr char kTiledInput[] = "f32[3,5] {{0, 1, 2, 3, 4}, {5, 6, 7, 8, 9}, {10, 11, 12, 13, 14}}";
  std::vector<GoldenExample> v = {
      {"column_major_2x3", "shapes and layout: [2 x 3] with minor_to_major [0, 1] is a d b e c f in memory",
       ColumnMajor, {kAtoF}, "f32[6] {1, 4, 2, 5, 3, 6}"},
      {"default_row_major_2x3",
       "shapes and layout: the default layout, minor_to_major [1, 0], is a b c d e f in memory", DefaultRowMajor,
       {kAtoF}, "f32[6] {1, 2, 3, 4, 5, 6}"},
      {"padded_column_major_2x3",
       "shapes and layout: padded_dimensions [3, 5], column-major, is a d 0 b e 0 c f 0 0 0 0 0 0 0",
       PaddedColumnMajor, {kAtoF}, "f32[15] {1, 4, 0, 2, 5, 0, 3, 6, 0, 0, 0, 0, 0, 0, 0}"},
      {"padded_equivalent_3x5",
       "shapes and layout: the equivalent 3x5 array, column-major, is a d 0 b e 0 c f 0 0 0 0 0 0 0",
       PaddedEquivalentArray, {"f32[3,5] {{1, 2, 3, 0, 0}, {4, 5, 6, 0, 0}, {0, 0, 0, 0, 0}}"},
       "f32[15] {1, 4, 0, 2, 5, 0, 3, 6, 0, 0, 0, 0, 0, 0, 0}"},
      {"tiled_linear_index_17",
       "tiled layout, figure 1: element (2,3) of F32[3,5]{1,0:T(2,2)} is at linear index 17", TiledLinearIndex17,
       {kTiledInput}, "f32[1] {13}"},
      {"tiled_tile_coordinates",
       "tiled layout, figure 1: element (2,3) is (1,1,0,1) in the tile coordinates (2,3,2,2)", TiledCoordinates,
       {kTiledInput}, "f32[] 13"},
      {"tiled_combined_dimensions",
       "tiled layout: F32[2,7,8,11,10]{4,3,2,1,0} tiled (*,*,2,*,3) is F32[112,110]{1,0} tiled (2,3)",
       CombinedDimensions, {}, "f32[] 0"},
  };
  v.back().random_inputs = true;
  return v;
}

}  // namespace hlo::client
