// all-to-all over operands in other layouts than row-major (ops_collective.cc
// splits and joins the stored bytes directly when operand and result share
// one untiled layout, as in XLA's SPMD FFTs), and the async form whose
// operand, bitcast and fusion operands are moved instead of copied
// (ops_control.cc). Every device's values are computed here from the
// semantics, element by element.
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "backend_cpu/collective_test_util.h"
#include "gtest/gtest.h"

namespace hlo::cpu {
namespace {

constexpr int64_t kDims[3] = {4, 6, 8};

// HLO lines defining v of s32[dims] on each device: 1000 * the device's
// `id_op` (replica-id or partition-id) + 100 * index[h] + 10 * index[t] +
// index[u], so every element says where it came from.
std::string EncodedValue(const std::string& id_op, const std::string& dims, int h, int t,
                         int u) {
  return absl::StrReplaceAll(R"(
  id = u32[] $ID()
  ids = s32[] convert(id)
  k = s32[] constant(1000)
  base = s32[] multiply(ids, k)
  b = s32[$S] broadcast(base), dimensions={}
  ih = s32[$S] iota(), iota_dimension=$H
  it = s32[$S] iota(), iota_dimension=$T
  iu = s32[$S] iota(), iota_dimension=$U
  c100 = s32[$S] broadcast(s32[] constant(100)), dimensions={}
  c10 = s32[$S] broadcast(s32[] constant(10)), dimensions={}
  h = s32[$S] multiply(ih, c100)
  t = s32[$S] multiply(it, c10)
  ht = s32[$S] add(h, t)
  htu = s32[$S] add(ht, iu)
  v = s32[$S] add(htu, b))",
                             {{"$ID", id_op},
                              {"$S", dims},
                              {"$H", absl::StrCat(h)},
                              {"$T", absl::StrCat(t)},
                              {"$U", absl::StrCat(u)}});
}

// Device r holds v[i0,i1,i2] = 1000 r + 100 i0 + 10 i1 + i2, in `layout`;
// all-to-all of 2 replicas along `dim`, the result in `result_layout`,
// returned row-major.
std::string AllToAllModule(const std::string& layout, const std::string& result_layout,
                           int dim) {
  return absl::StrCat("HloModule m\nENTRY main {", EncodedValue("replica-id", "4,6,8", 0, 1, 2),
                      absl::StrReplaceAll(R"(
  vl = s32[4,6,8]{$L} copy(v)
  a2a = s32[4,6,8]{$R} all-to-all(vl), replica_groups={{0,1}}, dimensions={$D}
  ROOT out = s32[4,6,8]{2,1,0} copy(a2a)
}
)",
                                          {{"$L", layout},
                                           {"$R", result_layout},
                                           {"$D", absl::StrCat(dim)}}));
}

// What member `me` of 2 gets along `dim`: chunk k of the split dimension is
// chunk `me` of member k.
void ExpectAllToAll(const Literal& got, int me, int dim, const std::string& where) {
  ASSERT_EQ(got.shape().dims().size(), 3u) << where;
  const int64_t chunk = kDims[dim] / 2;
  int64_t mismatches = 0;
  for (int64_t i0 = 0; i0 < kDims[0]; ++i0)
    for (int64_t i1 = 0; i1 < kDims[1]; ++i1)
      for (int64_t i2 = 0; i2 < kDims[2]; ++i2) {
        int64_t idx[3] = {i0, i1, i2};
        const int64_t k = idx[dim] / chunk;
        int64_t src[3] = {i0, i1, i2};
        src[dim] = me * chunk + idx[dim] % chunk;
        const int64_t want = 1000 * k + 100 * src[0] + 10 * src[1] + src[2];
        if (got.GetInt(got.Slot(idx)) != want && ++mismatches <= 3)
          ADD_FAILURE() << where << ": at {" << i0 << "," << i1 << "," << i2 << "} got "
                        << got.GetInt(got.Slot(idx)) << ", want " << want;
      }
  EXPECT_EQ(mismatches, 0) << where;
}

TEST(CollectiveAllToAllLayout, EveryLayoutAndSplitDimension) {
  const std::vector<std::string> layouts = {"2,1,0", "1,0,2", "0,1,2", "2,0,1", "0,2,1", "1,2,0"};
  for (const std::string& layout : layouts)
    for (int dim = 0; dim < 3; ++dim) {
      absl::StatusOr<RunResult> run = RunAll(AllToAllModule(layout, layout, dim), {}, Devices(2));
      ASSERT_TRUE(run.ok()) << run.status();
      for (int d = 0; d < 2; ++d)
        ExpectAllToAll(run->results[d], d, dim,
                       absl::StrCat("layout {", layout, "} dim ", dim, " device ", d));
    }
}

TEST(CollectiveAllToAllLayout, ResultInAnotherLayout) {
  // Operand and result layouts differ: the row-major path.
  for (int dim = 0; dim < 3; ++dim) {
    absl::StatusOr<RunResult> run = RunAll(AllToAllModule("1,0,2", "0,2,1", dim), {}, Devices(2));
    ASSERT_TRUE(run.ok()) << run.status();
    for (int d = 0; d < 2; ++d)
      ExpectAllToAll(run->results[d], d, dim, absl::StrCat("dim ", dim, " device ", d));
  }
}

TEST(CollectiveAllToAllLayout, AsyncFormWithBitcastAndFusion) {
  // The shape of XLA's SPMD FFT: a transposed value bitcast to the
  // all-to-all's layout, the async pair, then a fusion bitcasting and
  // transposing the result. The operands die at the bitcast, async-start,
  // async-done and fusion: they are moved, and the values stay right.
  const std::string hlo = absl::StrCat(R"(
HloModule m, num_partitions=2

fused (p: s32[4,6,8]) -> s32[8,4,6] {
  p = s32[4,6,8]{1,0,2} parameter(0)
  bc = s32[8,4,6]{2,1,0} bitcast(p)
  ROOT t = s32[8,4,6]{2,1,0} transpose(bc), dimensions={0,1,2}
}

ENTRY main {)", EncodedValue("partition-id", "8,4,6", 1, 2, 0), R"(
  bc = s32[4,6,8]{1,0,2} bitcast(v)
  start = ((s32[4,6,8]{1,0,2}), s32[4,6,8]{1,0,2}) all-to-all-start(bc), channel_id=1, replica_groups={{0,1}}, dimensions={2}
  done = s32[4,6,8]{1,0,2} all-to-all-done(start)
  ROOT f = s32[8,4,6] fusion(done), kind=kLoop, calls=fused
}
)");
  absl::StatusOr<RunResult> run = RunAll(hlo, {}, Devices(1, 2));
  ASSERT_TRUE(run.ok()) << run.status();
  for (int d = 0; d < 2; ++d) {
    // bc is v[i2', i0', i1'] read as [i0', i1', i2'] (dimension 2 major):
    // the all-to-all along 2 is one along v's dimension 0, and the fusion
    // reads it back in v's order.
    const Literal& got = run->results[d];
    int64_t mismatches = 0;
    for (int64_t a = 0; a < 8; ++a)
      for (int64_t i = 0; i < 4; ++i)
        for (int64_t j = 0; j < 6; ++j) {
          const int64_t idx[3] = {a, i, j};
          const int64_t want = 1000 * (a / 4) + 100 * i + 10 * j + (d * 4 + a % 4);
          if (got.GetInt(got.Slot(idx)) != want && ++mismatches <= 3)
            ADD_FAILURE() << "device " << d << " at {" << a << "," << i << "," << j << "} got "
                          << got.GetInt(got.Slot(idx)) << ", want " << want;
        }
    EXPECT_EQ(mismatches, 0) << "device " << d;
  }
}

TEST(CollectiveAllToAllLayout, AsyncStartOperandReadLater) {
  // The operand is read after the async pair: it is not handed to the
  // all-to-all (it does not die at the start) and keeps its values.
  const std::string hlo = absl::StrCat(R"(
HloModule m, replica_count=2
ENTRY main {)", EncodedValue("replica-id", "4,6,8", 0, 1, 2), R"(
  start = ((s32[4,6,8]), s32[4,6,8]) all-to-all-start(v), replica_groups={{0,1}}, dimensions={0}
  done = s32[4,6,8] all-to-all-done(start)
  ROOT both = (s32[4,6,8], s32[4,6,8]) tuple(done, v)
}
)");
  absl::StatusOr<RunResult> run = RunAll(hlo, {}, Devices(2));
  ASSERT_TRUE(run.ok()) << run.status();
  for (int d = 0; d < 2; ++d) {
    const Literal& both = run->results[d];
    ASSERT_EQ(both.tuple_elements().size(), 2u);
    ExpectAllToAll(both.tuple_elements()[0], d, 0, absl::StrCat("device ", d));
    const Literal& op = both.tuple_elements()[1];
    int64_t mismatches = 0;
    for (int64_t i0 = 0; i0 < kDims[0]; ++i0)
      for (int64_t i1 = 0; i1 < kDims[1]; ++i1)
        for (int64_t i2 = 0; i2 < kDims[2]; ++i2) {
          const int64_t idx[3] = {i0, i1, i2};
          mismatches += op.GetInt(op.Slot(idx)) != 1000 * d + 100 * i0 + 10 * i1 + i2;
        }
    EXPECT_EQ(mismatches, 0) << "device " << d;
  }
}

}  // namespace
}  // namespace hlo::cpu
