#include "ir/layout_index.h"

#include <algorithm>
#include <random>
#include <set>
#include <string>

#include "gtest/gtest.h"

namespace hlo {
namespace {

constexpr int64_t kStar = Tile::kCombineDimension;

Shape MakeShape(PrimitiveType t, std::vector<int64_t> dims, std::vector<int64_t> m2m,
                std::vector<std::vector<int64_t>> tiles = {}, int64_t tail_align = 1) {
  Shape s = Shape::ArrayNoLayout(t, dims);
  Layout l;
  l.minor_to_major.assign(m2m.begin(), m2m.end());
  for (auto& td : tiles) l.tiles.push_back(Tile{td});
  l.mutable_rare().tail_padding_alignment_in_elements = tail_align;
  s.set_layout(l);
  return s;
}

// Unravels a row-major logical position.
std::vector<int64_t> Unravel(const Shape& s, int64_t n) {
  std::vector<int64_t> idx(s.rank());
  for (int64_t d = s.rank() - 1; d >= 0; --d) {
    idx[d] = n % s.dim(d);
    n /= s.dim(d);
  }
  return idx;
}

// The seed's formula for one tile with as many dims as the shape (no `*`),
// written directly: linear_index((floor(e/t), e mod t), (ceil(d/t), t)) over
// the physical (major-to-minor) dims.
int64_t SeedFormula(const std::vector<int64_t>& d, const std::vector<int64_t>& e,
                    const std::vector<int64_t>& t) {
  int64_t tile_idx = 0, in_tile = 0, tile_elems = 1;
  for (size_t i = 0; i < d.size(); ++i) {
    tile_idx = tile_idx * ((d[i] + t[i] - 1) / t[i]) + e[i] / t[i];
    in_tile = in_tile * t[i] + e[i] % t[i];
    tile_elems *= t[i];
  }
  return tile_idx * tile_elems + in_tile;
}

// Checks that the table matches LinearIndex and is injective within bounds.
void CheckTable(const Shape& s) {
  std::vector<int64_t> table = PhysicalIndexTable(s);
  ASSERT_EQ(static_cast<int64_t>(table.size()), s.ElementCount());
  int64_t count = PhysicalElementCount(s);
  std::set<int64_t> seen;
  for (size_t i = 0; i < table.size(); ++i) {
    std::vector<int64_t> idx = Unravel(s, static_cast<int64_t>(i));
    ASSERT_EQ(table[i], LinearIndex(s, idx)) << "element " << i;
    ASSERT_GE(table[i], 0);
    ASSERT_LT(table[i], count);
    ASSERT_TRUE(seen.insert(table[i]).second) << "slot reused: " << table[i];
  }
}

// --- seed: tiled layout, figure 1 ---
TEST(LayoutIndexTest, SeedFigure1Element23Is17) {
  Shape s = MakeShape(PrimitiveType::F32, {3, 5}, {1, 0}, {{2, 2}});
  EXPECT_EQ(LinearIndex(s, {2, 3}), 17);
  // 2x3 tiles of 2x2 elements, incl. the padding.
  EXPECT_EQ(PhysicalElementCount(s), 24);
  // The seed's decomposition: tile index (1,1), in-tile (0,1).
  EXPECT_EQ(LinearIndex(s, {0, 0}), 0);
  EXPECT_EQ(LinearIndex(s, {0, 1}), 1);
  EXPECT_EQ(LinearIndex(s, {1, 0}), 2);
  EXPECT_EQ(LinearIndex(s, {1, 1}), 3);
  EXPECT_EQ(LinearIndex(s, {0, 2}), 4);
  EXPECT_EQ(LinearIndex(s, {0, 4}), 8);
  EXPECT_EQ(LinearIndex(s, {1, 4}), 10);  // (1,4): padding at 9 and 11
  EXPECT_EQ(LinearIndex(s, {2, 0}), 12);
  EXPECT_EQ(LinearIndex(s, {2, 4}), 20);
  CheckTable(s);
}

TEST(LayoutIndexTest, SeedFigure1AllElementsFollowTheFormula) {
  Shape s = MakeShape(PrimitiveType::F32, {3, 5}, {1, 0}, {{2, 2}});
  for (int64_t i = 0; i < 3; ++i)
    for (int64_t j = 0; j < 5; ++j)
      EXPECT_EQ(LinearIndex(s, {i, j}), SeedFormula({3, 5}, {i, j}, {2, 2}));
}

TEST(LayoutIndexTest, MinorToMajorAppliesBeforeTiling) {
  // f32[5,3]{0,1:T(2,2)} is physically the same as f32[3,5]{1,0:T(2,2)}.
  Shape s = MakeShape(PrimitiveType::F32, {5, 3}, {0, 1}, {{2, 2}});
  EXPECT_EQ(LinearIndex(s, {3, 2}), 17);
  EXPECT_EQ(PhysicalElementCount(s), 24);
  CheckTable(s);
}

// --- seed: tiling as pad + reshape + transpose (the final shape is
// (ceil(d/t)..., t...)) ---
TEST(LayoutIndexTest, SeedPadReshapeTransposeView) {
  std::mt19937 rng(7);
  for (int iter = 0; iter < 40; ++iter) {
    int rank = 1 + rng() % 3;
    std::vector<int64_t> dims, tile, m2m;
    for (int i = 0; i < rank; ++i) {
      dims.push_back(1 + rng() % 7);
      tile.push_back(1 + rng() % 4);
      m2m.push_back(i);
    }
    std::shuffle(m2m.begin(), m2m.end(), rng);
    Shape s = MakeShape(PrimitiveType::F32, dims, m2m, {tile});
    std::vector<int64_t> pd(rank);
    int64_t count = 1;
    for (int j = 0; j < rank; ++j) {
      pd[j] = dims[m2m[rank - 1 - j]];
      count *= (pd[j] + tile[j] - 1) / tile[j] * tile[j];
    }
    EXPECT_EQ(PhysicalElementCount(s), count);
    for (int64_t n = 0; n < s.ElementCount(); ++n) {
      std::vector<int64_t> idx = Unravel(s, n), pe(rank);
      for (int j = 0; j < rank; ++j) pe[j] = idx[m2m[rank - 1 - j]];
      ASSERT_EQ(LinearIndex(s, idx), SeedFormula(pd, pe, tile));
    }
    CheckTable(s);
  }
}

// --- seed: repeated tiling, figure 2: 4x8 with (2,4)(2,1) ---
TEST(LayoutIndexTest, SeedFigure2RepeatedTiling) {
  Shape s = MakeShape(PrimitiveType::F32, {4, 8}, {1, 0}, {{2, 4}, {2, 1}});
  const int64_t expected[4][8] = {
      {0, 2, 4, 6, 8, 10, 12, 14},
      {1, 3, 5, 7, 9, 11, 13, 15},
      {16, 18, 20, 22, 24, 26, 28, 30},
      {17, 19, 21, 23, 25, 27, 29, 31},
  };
  for (int64_t i = 0; i < 4; ++i)
    for (int64_t j = 0; j < 8; ++j) EXPECT_EQ(LinearIndex(s, {i, j}), expected[i][j]) << i << "," << j;
  EXPECT_EQ(PhysicalElementCount(s), 32);
  CheckTable(s);
}

TEST(LayoutIndexTest, SeedBf16TpuTiling8x128x2x1) {
  // bf16[8,128]{1,0:T(8,128)(2,1)}: pairs of rows are interleaved so two
  // 16-bit values form one 32-bit word.
  Shape s = MakeShape(PrimitiveType::BF16, {8, 128}, {1, 0}, {{8, 128}, {2, 1}});
  EXPECT_EQ(PhysicalElementCount(s), 1024);
  EXPECT_EQ(LinearIndex(s, {0, 0}), 0);
  EXPECT_EQ(LinearIndex(s, {1, 0}), 1);
  EXPECT_EQ(LinearIndex(s, {0, 1}), 2);
  EXPECT_EQ(LinearIndex(s, {1, 1}), 3);
  EXPECT_EQ(LinearIndex(s, {2, 0}), 256);
  EXPECT_EQ(LinearIndex(s, {7, 127}), 1023);
  CheckTable(s);
  // Partial tiles: bf16[5,130] pads to 1x2 tiles of 8x128.
  Shape p = MakeShape(PrimitiveType::BF16, {5, 130}, {1, 0}, {{8, 128}, {2, 1}});
  EXPECT_EQ(PhysicalElementCount(p), 2 * 1024);
  EXPECT_EQ(LinearIndex(p, {0, 128}), 1024);
  EXPECT_EQ(LinearIndex(p, {1, 129}), 1024 + 3);
  CheckTable(p);
}

TEST(LayoutIndexTest, LaterTileCanCoverCrossTileDims) {
  // Second tile of rank 3 on the rank-4 result of the first tiling.
  Shape s = MakeShape(PrimitiveType::F32, {6, 4}, {1, 0}, {{2, 2}, {3, 1, 2}});
  CheckTable(s);
}

// --- seed: combining dimensions ---
TEST(LayoutIndexTest, SeedCombinedDimensionsMatchMergedShape) {
  // F32[2,7,8,11,10]{4,3,2,1,0} with T(*,*,2,*,3) == F32[112,110]{1,0:T(2,3)}.
  Shape s5 = MakeShape(PrimitiveType::F32, {2, 7, 8, 11, 10}, {4, 3, 2, 1, 0},
                       {{kStar, kStar, 2, kStar, 3}});
  Shape s2 = MakeShape(PrimitiveType::F32, {112, 110}, {1, 0}, {{2, 3}});
  EXPECT_EQ(PhysicalElementCount(s5), PhysicalElementCount(s2));
  EXPECT_EQ(PhysicalElementCount(s5), 56 * 37 * 6);
  std::vector<int64_t> table = PhysicalIndexTable(s5);
  std::vector<int64_t> table2 = PhysicalIndexTable(s2);
  ASSERT_EQ(table.size(), table2.size());
  // Row-major order of the 5-D shape is row-major order of the 2-D shape.
  EXPECT_EQ(table, table2);
  EXPECT_EQ(LinearIndex(s5, {1, 6, 7, 10, 9}), LinearIndex(s2, {111, 109}));
  EXPECT_EQ(LinearIndex(s5, {1, 2, 3, 4, 5}), LinearIndex(s2, {56 + 16 + 3, 45}));
  CheckTable(s5);
}

TEST(LayoutIndexTest, CombineWithPermutedMinorToMajor) {
  // Physical order of f32[3,4,5]{0,2,1} is dims (1,2,0) = bounds (4,5,3).
  // T(*,2) covers the last two, (5,3): merged to 15, tiled by 2; 4 untouched.
  Shape s = MakeShape(PrimitiveType::F32, {3, 4, 5}, {0, 2, 1}, {{kStar, 2}});
  Shape ref = MakeShape(PrimitiveType::F32, {4, 15}, {1, 0}, {{2}});
  for (int64_t a = 0; a < 3; ++a)
    for (int64_t b = 0; b < 4; ++b)
      for (int64_t c = 0; c < 5; ++c)
        EXPECT_EQ(LinearIndex(s, {a, b, c}), LinearIndex(ref, {b, c * 3 + a}));
  CheckTable(s);
}

// --- tiles with fewer dims than the shape ---
TEST(LayoutIndexTest, TileAppliesToMinorMostDims) {
  Shape s = MakeShape(PrimitiveType::F32, {3, 3, 5}, {2, 1, 0}, {{2, 2}});
  // Each major index holds one 2x3-tile grid of 24 slots.
  EXPECT_EQ(PhysicalElementCount(s), 3 * 24);
  for (int64_t a = 0; a < 3; ++a)
    for (int64_t i = 0; i < 3; ++i)
      for (int64_t j = 0; j < 5; ++j)
        EXPECT_EQ(LinearIndex(s, {a, i, j}), a * 24 + SeedFormula({3, 5}, {i, j}, {2, 2}));
  CheckTable(s);
}

TEST(LayoutIndexTest, TileLongerThanShapeUsesImplicitUnitDims) {
  // f32[]{:T(128)}: the scalar sits in one 128-element tile.
  Shape scalar = MakeShape(PrimitiveType::F32, {}, {}, {{128}});
  EXPECT_EQ(PhysicalElementCount(scalar), 128);
  EXPECT_EQ(LinearIndex(scalar, {}), 0);
  EXPECT_EQ(PhysicalIndexTable(scalar), std::vector<int64_t>{0});
  // f32[3]{0:T(2,2)}: dims (1,3) tiled by (2,2) -> 1x2 tiles of 4.
  Shape v = MakeShape(PrimitiveType::F32, {3}, {0}, {{2, 2}});
  EXPECT_EQ(PhysicalElementCount(v), 8);
  EXPECT_EQ(LinearIndex(v, {0}), 0);
  EXPECT_EQ(LinearIndex(v, {1}), 1);
  EXPECT_EQ(LinearIndex(v, {2}), 4);
  CheckTable(v);
  Shape w = MakeShape(PrimitiveType::F32, {2}, {0}, {{2, 128}});
  EXPECT_EQ(PhysicalElementCount(w), 256);
  CheckTable(w);
  // A later tile longer than the tiled shape.
  Shape r = MakeShape(PrimitiveType::F32, {4}, {0}, {{2}, {2, 2, 2}});
  EXPECT_EQ(PhysicalElementCount(r), 8 * 1);
  CheckTable(r);
}

TEST(LayoutIndexTest, TrailingStarLeavesItsDimUntiled) {
  // T(2,*) on f32[3,4,5]: the `*` has no more minor dim to merge into, so
  // the 5 stays whole (as T(2,5)); 4 is tiled by 2; 3 is untouched.
  Shape s = MakeShape(PrimitiveType::F32, {3, 4, 5}, {2, 1, 0}, {{2, kStar}});
  Shape ref = MakeShape(PrimitiveType::F32, {3, 4, 5}, {2, 1, 0}, {{2, 5}});
  EXPECT_EQ(PhysicalElementCount(s), 60);
  EXPECT_EQ(PhysicalIndexTable(s), PhysicalIndexTable(ref));
  // A run of `*` at the end merges its dims and leaves them untiled:
  // f32[3,4,5]{2,1,0:T(2,*,*)} is laid out like f32[3,20]{1,0:T(2,20)}.
  Shape m = MakeShape(PrimitiveType::F32, {3, 4, 5}, {2, 1, 0}, {{2, kStar, kStar}});
  Shape mref = MakeShape(PrimitiveType::F32, {3, 20}, {1, 0}, {{2, 20}});
  EXPECT_EQ(PhysicalElementCount(m), PhysicalElementCount(mref));
  for (int64_t a = 0; a < 3; ++a)
    for (int64_t b = 0; b < 4; ++b)
      for (int64_t c = 0; c < 5; ++c)
        EXPECT_EQ(LinearIndex(m, {a, b, c}), LinearIndex(mref, {a, b * 5 + c}));
  CheckTable(s);
  CheckTable(m);
}

TEST(LayoutIndexTest, Rank1AndTailPadding) {
  Shape s = MakeShape(PrimitiveType::F32, {8}, {0}, {{8}}, 1024);
  EXPECT_EQ(PhysicalElementCount(s), 1024);
  EXPECT_EQ(LinearIndex(s, {5}), 5);
  Shape t = MakeShape(PrimitiveType::F32, {10}, {0}, {}, 4);
  EXPECT_EQ(PhysicalElementCount(t), 12);
  Shape big = MakeShape(PrimitiveType::F32, {400, 400}, {1, 0}, {{8, 128}});
  EXPECT_EQ(PhysicalElementCount(big), 50 * 4 * 1024);
  EXPECT_EQ(LinearIndex(big, {8, 0}), 4 * 1024);
  EXPECT_EQ(LinearIndex(big, {0, 128}), 1024);
  EXPECT_EQ(LinearIndex(big, {1, 3}), 131);
}

// --- untiled (shapes seed): minor_to_major ---
TEST(LayoutIndexTest, ShapesSeedColumnAndRowMajor) {
  // [2 x 3] = a b c / d e f.
  Shape col = MakeShape(PrimitiveType::F32, {2, 3}, {0, 1});
  Shape row = MakeShape(PrimitiveType::F32, {2, 3}, {1, 0});
  // {0,1}: a d b e c f; {1,0}: a b c d e f.
  EXPECT_EQ(PhysicalIndexTable(col), (std::vector<int64_t>{0, 2, 4, 1, 3, 5}));
  EXPECT_EQ(PhysicalIndexTable(row), (std::vector<int64_t>{0, 1, 2, 3, 4, 5}));
  EXPECT_EQ(LinearIndex(col, {1, 0}), 1);  // d is second in memory
  EXPECT_EQ(LinearIndex(col, {0, 1}), 2);  // b is third
  EXPECT_EQ(PhysicalElementCount(col), 6);
}

TEST(LayoutIndexTest, ShapesSeedPaddedDimensionsAsOneTile) {
  // The shapes seed pads [2 x 3] (column major) to padded_dimensions [3, 5]:
  // memory "a d 0 b e 0 c f 0 0 0 0 0 0 0". The old padded_dimensions field
  // is not in our Layout; one tile covering the padded shape (physical order
  // dim 1 then dim 0: T(5,3)) gives exactly that placement.
  Shape s = MakeShape(PrimitiveType::F32, {2, 3}, {0, 1}, {{5, 3}});
  EXPECT_EQ(PhysicalElementCount(s), 15);
  const char names[2][3] = {{'a', 'b', 'c'}, {'d', 'e', 'f'}};
  std::string text(15, '0');
  for (int64_t i = 0; i < 2; ++i)
    for (int64_t j = 0; j < 3; ++j) text[LinearIndex(s, {i, j})] = names[i][j];
  EXPECT_EQ(text, "ad0be0cf0000000");
}

TEST(LayoutIndexTest, UntiledRandomPermutations) {
  std::mt19937 rng(11);
  for (int iter = 0; iter < 30; ++iter) {
    int rank = rng() % 5;
    std::vector<int64_t> dims, m2m;
    for (int i = 0; i < rank; ++i) {
      dims.push_back(1 + rng() % 4);
      m2m.push_back(i);
    }
    std::shuffle(m2m.begin(), m2m.end(), rng);
    Shape s = MakeShape(PrimitiveType::S32, dims, m2m);
    EXPECT_EQ(PhysicalElementCount(s), s.ElementCount());
    CheckTable(s);
  }
}

TEST(LayoutIndexTest, RandomTiledLayoutsAreConsistent) {
  std::mt19937 rng(3);
  for (int iter = 0; iter < 60; ++iter) {
    int rank = 1 + rng() % 4;
    std::vector<int64_t> dims, m2m;
    for (int i = 0; i < rank; ++i) {
      dims.push_back(1 + rng() % 5);
      m2m.push_back(i);
    }
    std::shuffle(m2m.begin(), m2m.end(), rng);
    std::vector<std::vector<int64_t>> tiles;
    int ntiles = 1 + rng() % 2;
    int cur_rank = rank;
    for (int t = 0; t < ntiles; ++t) {
      int k = 1 + rng() % cur_rank;
      std::vector<int64_t> tile;
      int real = 0;
      for (int i = 0; i < k; ++i) {
        bool star = i + 1 < k && rng() % 4 == 0;
        tile.push_back(star ? kStar : 1 + static_cast<int64_t>(rng() % 3));
        real += !star;
      }
      tiles.push_back(tile);
      cur_rank = cur_rank - k + 2 * real;
    }
    Shape s = MakeShape(PrimitiveType::F32, dims, m2m, tiles);
    ASSERT_TRUE(ValidateLayout(s).ok()) << ValidateLayout(s);
    CheckTable(s);
  }
}

TEST(LayoutIndexTest, ScalarsAndEmptyArrays) {
  Shape scalar = Shape::Scalar(PrimitiveType::F32);
  EXPECT_EQ(PhysicalElementCount(scalar), 1);
  EXPECT_EQ(LinearIndex(scalar, {}), 0);
  EXPECT_EQ(PhysicalIndexTable(scalar), std::vector<int64_t>{0});
  Shape empty = MakeShape(PrimitiveType::F32, {2, 0}, {1, 0}, {{2, 2}});
  EXPECT_EQ(PhysicalElementCount(empty), 0);
  EXPECT_TRUE(PhysicalIndexTable(empty).empty());
  // Dynamic dims count at their bound.
  Shape dyn = Shape::Array(PrimitiveType::F32, {4, 3});
  dyn.set_dynamic_dim(0, true);
  EXPECT_EQ(PhysicalElementCount(dyn), 12);
  EXPECT_EQ(PhysicalElementCount(Shape::Tuple({})), 0);
}

TEST(LayoutIndexTest, PhysicalIndexTableIsFastForLargeShapes) {
  // 4M elements tiled: must stay linear (no per-element heap work).
  Shape s = MakeShape(PrimitiveType::F32, {1024, 4096}, {1, 0}, {{8, 128}, {2, 1}});
  std::vector<int64_t> t = PhysicalIndexTable(s);
  ASSERT_EQ(t.size(), 1024u * 4096u);
  EXPECT_EQ(t[1], LinearIndex(s, {0, 1}));
  EXPECT_EQ(t[4096 * 3 + 200], LinearIndex(s, {3, 200}));
  EXPECT_EQ(t.back(), LinearIndex(s, {1023, 4095}));
  // Combined dims take the general path; still one pass with reused scratch.
  Shape c = MakeShape(PrimitiveType::F32, {64, 64, 256}, {2, 1, 0}, {{kStar, 8, 128}});
  std::vector<int64_t> tc = PhysicalIndexTable(c);
  ASSERT_EQ(tc.size(), 64u * 64u * 256u);
  EXPECT_EQ(tc[257], LinearIndex(c, {0, 1, 1}));
}

// --- ValidateLayout ---
TEST(LayoutIndexTest, ValidateLayout) {
  EXPECT_TRUE(ValidateLayout(MakeShape(PrimitiveType::F32, {3, 5}, {1, 0}, {{2, 2}})).ok());
  EXPECT_TRUE(ValidateLayout(MakeShape(PrimitiveType::F32, {2, 7, 8, 11, 10}, {4, 3, 2, 1, 0},
                                       {{kStar, kStar, 2, kStar, 3}}))
                  .ok());
  EXPECT_TRUE(ValidateLayout(MakeShape(PrimitiveType::BF16, {8, 128}, {1, 0}, {{8, 128}, {2, 1}})).ok());
  auto msg = [](const Shape& s) { return std::string(ValidateLayout(s).message()); };
  EXPECT_NE(msg(MakeShape(PrimitiveType::F32, {3, 5}, {0})).find("minor_to_major field contains 1"),
            std::string::npos);
  EXPECT_NE(msg(MakeShape(PrimitiveType::F32, {3, 5}, {0, 0})).find("duplicate"), std::string::npos);
  EXPECT_NE(msg(MakeShape(PrimitiveType::F32, {3, 5}, {0, 2})).find("out-of-bounds"), std::string::npos);
  EXPECT_NE(msg(MakeShape(PrimitiveType::F32, {3, 5}, {1, 0}, {{0, 2}})).find("invalid tiles"),
            std::string::npos);
  EXPECT_NE(msg(MakeShape(PrimitiveType::F32, {3, 5}, {1, 0}, {{-3, 2}})).find("invalid tiles"),
            std::string::npos);
  EXPECT_NE(msg(MakeShape(PrimitiveType::F32, {3, 5}, {1, 0}, {{}})).find("invalid tiles"),
            std::string::npos);
  // XLA accepts (and prints) a trailing `*` and tiles longer than the shape
  // (f32[]{:T(128)} in real TPU modules).
  EXPECT_TRUE(ValidateLayout(MakeShape(PrimitiveType::F32, {3, 5}, {1, 0}, {{2, kStar}})).ok());
  EXPECT_TRUE(ValidateLayout(MakeShape(PrimitiveType::F32, {3}, {0}, {{2, 2}})).ok());
  EXPECT_TRUE(ValidateLayout(MakeShape(PrimitiveType::F32, {}, {}, {{128}})).ok());
  // A second tile may use the dims the first one created.
  EXPECT_TRUE(ValidateLayout(MakeShape(PrimitiveType::F32, {6}, {0}, {{2}, {3, 2}})).ok());
  EXPECT_FALSE(ValidateLayout(MakeShape(PrimitiveType::F32, {8}, {0}, {}, 0)).ok());

  Shape s4 = MakeShape(PrimitiveType::S4, {1024}, {0});
  s4.mutable_layout().element_size_in_bits = 4;
  EXPECT_TRUE(ValidateLayout(s4).ok());
  s4.mutable_layout().element_size_in_bits = 2;
  EXPECT_NE(std::string(ValidateLayout(s4).message()).find("element_size_in_bits"), std::string::npos);
  s4.mutable_layout().element_size_in_bits = -1;
  EXPECT_FALSE(ValidateLayout(s4).ok());
  Shape f32 = MakeShape(PrimitiveType::F32, {4}, {0});
  f32.mutable_layout().element_size_in_bits = 4;
  EXPECT_FALSE(ValidateLayout(f32).ok());
  f32.mutable_layout().element_size_in_bits = 32;
  EXPECT_TRUE(ValidateLayout(f32).ok());

  Shape dense_idx = MakeShape(PrimitiveType::F32, {4}, {0});
  dense_idx.mutable_layout().mutable_rare().index_primitive_type = PrimitiveType::U32;
  EXPECT_FALSE(ValidateLayout(dense_idx).ok());
  Shape sparse = MakeShape(PrimitiveType::F32, {10, 10}, {1, 0});
  sparse.mutable_layout().mutable_rare().dim_level_types = {"D", "C"};
  sparse.mutable_layout().mutable_rare().index_primitive_type = PrimitiveType::U32;
  sparse.mutable_layout().mutable_rare().pointer_primitive_type = PrimitiveType::U32;
  EXPECT_TRUE(ValidateLayout(sparse).ok());
  sparse.mutable_layout().mutable_rare().pointer_primitive_type = PrimitiveType::S32;
  EXPECT_FALSE(ValidateLayout(sparse).ok());

  // Tuples recurse; tokens have nothing to check.
  EXPECT_FALSE(ValidateLayout(Shape::Tuple({MakeShape(PrimitiveType::F32, {3}, {1})})).ok());
  EXPECT_TRUE(ValidateLayout(Shape::Token()).ok());
}

}  // namespace
}  // namespace hlo
