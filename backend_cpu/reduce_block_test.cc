// RowReducerFor (the whole-row reducer fused reduces resolve once per plan)
// against ReduceBlock on the same rows: the same bits for every typed
// reducer, and no row reducer where ReduceBlock takes XLA's tree order.
#include "backend_cpu/reduce_block.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "ir/module.h"
#include "parser/parser.h"

namespace hlo::cpu {
namespace {

// A module whose computation %r is `op` of two `type` parameters.
std::unique_ptr<Module> ReducerModule(const std::string& type, const std::string& op) {
  const std::string text = absl::StrCat("HloModule m\n%r (a: ", type, "[], b: ", type, "[]) -> ", type,
                                        "[] {\n  %a = ", type, "[] parameter(0)\n  %b = ", type,
                                        "[] parameter(1)\n  ROOT %c = ", type, "[] ", op,
                                        "(%a, %b)\n}\nENTRY %e (p: ", type, "[]) -> ", type,
                                        "[] {\n  ROOT %p = ", type, "[] parameter(0)\n}\n");
  absl::StatusOr<std::unique_ptr<Module>> module = ParseModule(text);
  EXPECT_TRUE(module.ok()) << module.status();
  return module.ok() ? std::move(*module) : nullptr;
}

// Values of every sign and magnitude, with a NaN in row 1 when asked.
std::vector<float> Rows(int64_t rows, int64_t row_elems, bool nan) {
  std::vector<float> x(rows * row_elems);
  uint32_t state = 12345;
  for (float& v : x) {
    state = state * 1664525u + 1013904223u;
    v = (static_cast<int32_t>(state >> 8) % 20001 - 10000) * 0.37f;
  }
  if (nan && rows > 1) x[row_elems + row_elems / 2] = std::numeric_limits<float>::quiet_NaN();
  return x;
}

void ExpectRowReducerMatchesReduceBlock(const std::string& op, int64_t rows, int64_t row_elems) {
  std::unique_ptr<Module> module = ReducerModule("f32", op);
  ASSERT_NE(module, nullptr);
  const Computation* reducer = module->FindComputation("r");
  ASSERT_NE(reducer, nullptr);
  const RowReduceFn fn = RowReducerFor(PrimitiveType::F32, reducer);
  ASSERT_NE(fn, nullptr) << op;
  const std::vector<float> x = Rows(rows, row_elems, op != "add");
  const float init = op == "maximum" ? -INFINITY : op == "minimum" ? INFINITY : op == "multiply" ? 1.0f : 0.0f;
  std::vector<float> by_rows(rows), by_block(rows);
  fn(x.data(), &init, by_rows.data(), rows, row_elems);
  const std::vector<int64_t> dims = {rows, row_elems};
  const std::vector<int64_t> reduced = {1};
  ASSERT_TRUE(ReduceBlock(PrimitiveType::F32, reducer, dims, reduced, x.data(), &init, by_block.data()));
  EXPECT_EQ(std::memcmp(by_rows.data(), by_block.data(), rows * sizeof(float)), 0)
      << op << " rows " << rows << " x " << row_elems << ": " << by_rows[0] << " vs " << by_block[0];
}

TEST(ReduceBlockRows, SameBitsAsReduceBlock) {
  for (const char* op : {"add", "maximum", "minimum", "multiply"}) {
    ExpectRowReducerMatchesReduceBlock(op, 3, 1);
    ExpectRowReducerMatchesReduceBlock(op, 5, 37);       // short rows: sequential
    ExpectRowReducerMatchesReduceBlock(op, 4, 4096);     // lanes
    ExpectRowReducerMatchesReduceBlock(op, 2, 100003);   // blocked partials, odd tail
  }
}

TEST(ReduceBlockRows, NoRowReducerWhereXlasTreeApplies) {
  for (const char* type : {"bf16", "f16"}) {
    std::unique_ptr<Module> sum = ReducerModule(type, "add");
    std::unique_ptr<Module> max = ReducerModule(type, "maximum");
    ASSERT_NE(sum, nullptr);
    ASSERT_NE(max, nullptr);
    const PrimitiveType t = std::string(type) == "bf16" ? PrimitiveType::BF16 : PrimitiveType::F16;
    EXPECT_EQ(RowReducerFor(t, sum->FindComputation("r")), nullptr) << type;
    EXPECT_NE(RowReducerFor(t, max->FindComputation("r")), nullptr) << type;
  }
}

// RowLanesFor's pieces (every piece but the last `piece` elements, a
// multiple of kRowLanes) against the whole-row reducer, f32.
void ExpectRowLanesMatchRowReducer(const std::string& op, int64_t row_elems, int64_t piece) {
  SCOPED_TRACE(absl::StrCat(op, " row ", row_elems, " piece ", piece));
  std::unique_ptr<Module> module = ReducerModule("f32", op);
  ASSERT_NE(module, nullptr);
  const Computation* reducer = module->FindComputation("r");
  const RowReduceFn fn = RowReducerFor(PrimitiveType::F32, reducer);
  const RowLanes lanes = RowLanesFor(PrimitiveType::F32, reducer);
  ASSERT_NE(fn, nullptr);
  ASSERT_NE(lanes.start, nullptr);
  const int64_t rows = 3;
  // One NaN for maximum / minimum; none for add and multiply, and products
  // near 1 (no inf * 0): which of two different NaNs an add or multiply
  // keeps depends on the operand order the compiler emits
  // (docs/ops-reduction.md).
  std::vector<float> x = Rows(rows, row_elems, op == "maximum" || op == "minimum");
  if (op == "multiply")
    for (float& v : x) v = 1.0f + v * 1e-5f;
  const float init = op == "maximum" ? -INFINITY : op == "minimum" ? INFINITY : op == "multiply" ? 1.0f : 0.5f;
  std::vector<float> whole(rows), pieces(rows);
  fn(x.data(), &init, whole.data(), rows, row_elems);
  alignas(64) uint8_t state[kRowLanesBytes];
  for (int64_t r = 0; r < rows; ++r) {
    const float* row = x.data() + r * row_elems;
    for (int64_t c = 0; c < row_elems; c += piece) {
      const int64_t n = std::min(piece, row_elems - c);
      c == 0 ? lanes.start(state, row, n) : lanes.add(state, row + c, n);
    }
    lanes.finish(state, &init, &pieces[r]);
  }
  EXPECT_EQ(std::memcmp(whole.data(), pieces.data(), rows * sizeof(float)), 0) << whole[0] << " vs " << pieces[0];
}

TEST(ReduceBlockRows, RowLanesInPiecesGiveTheWholeRowsBits) {
  for (const char* op : {"add", "maximum", "minimum", "multiply"})
    for (const int64_t row : {64, 65, 127, 1000, 4196, 32768})
      for (const int64_t piece : {64, 128, 1024}) ExpectRowLanesMatchRowReducer(op, row, piece);
  EXPECT_EQ(RowLanesMaxRow(), 32768);  // longer rows take blocked partials: no pieces
}

TEST(ReduceBlockRows, RowLanesOnlyWhereRowsFoldInLanes) {
  std::unique_ptr<Module> f64 = ReducerModule("f64", "add");
  std::unique_ptr<Module> bf16_max = ReducerModule("bf16", "maximum");
  std::unique_ptr<Module> bf16_sum = ReducerModule("bf16", "add");
  std::unique_ptr<Module> s32 = ReducerModule("s32", "add");
  ASSERT_TRUE(f64 && bf16_max && bf16_sum && s32);
  EXPECT_NE(RowLanesFor(PrimitiveType::F64, f64->FindComputation("r")).start, nullptr);
  EXPECT_NE(RowLanesFor(PrimitiveType::BF16, bf16_max->FindComputation("r")).start, nullptr);
  EXPECT_EQ(RowLanesFor(PrimitiveType::BF16, bf16_sum->FindComputation("r")).start, nullptr);  // XLA's tree
  EXPECT_EQ(RowLanesFor(PrimitiveType::S32, s32->FindComputation("r")).start, nullptr);  // 16 lanes, in order
}

}  // namespace
}  // namespace hlo::cpu
