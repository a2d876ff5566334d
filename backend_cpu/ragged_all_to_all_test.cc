// Tests of ragged-all-to-all (ops_ragged_all_to_all.cc): every device of a
// multi-device run is checked, with values worked out by hand from XLA's
// semantics (docs/collectives.md).
//
// Device d holds input rows {100d + 10i, 100d + 10i + 1} (row i) and an
// output of -1s; its four offsets/sizes arrays are row d of a table.
#include <algorithm>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "backend_cpu/collective_test_util.h"
#include "gtest/gtest.h"

namespace hlo::cpu {
namespace {

struct RaggedCase {
  std::string meta_type = "s32";  // element type of the offsets/sizes arrays
  std::string meta_dims = "2";    // their dimensions on one device
  int64_t in_rows = 4;
  int64_t out_rows = 6;
  std::string in_layout;   // e.g. "{0,1}"; empty: default
  std::string out_layout;
  int64_t partitions = 1;
  // input_offsets, send_sizes, output_offsets, recv_sizes: one row per device.
  std::vector<std::vector<std::string>> tables;
  std::string attrs = "replica_groups={{0,1}}";
};

// `name` = row d of `rows` as a T[dims] array.
std::string MetaLines(const RaggedCase& c, const std::string& name,
                      const std::vector<std::string>& rows) {
  const int64_t entries = std::count(rows[0].begin(), rows[0].end(), ',') + 1;
  return absl::StrReplaceAll(
      R"(
  $N_all = $T[$D,$E] constant({$ROWS})
  $N_row = $T[1,$E] dynamic-slice($N_all, d, zero), dynamic_slice_sizes={1,$E}
  $N = $T[$M] reshape($N_row))",
      {{"$N", name},
       {"$T", c.meta_type},
       {"$D", std::to_string(rows.size())},
       {"$E", std::to_string(entries)},
       {"$ROWS", absl::StrJoin(rows, ", ",
                               [](std::string* out, const std::string& r) {
                                 absl::StrAppend(out, "{", r, "}");
                               })},
       {"$M", c.meta_dims}});
}

std::string RaggedHlo(const RaggedCase& c) {
  std::string meta;
  const char* names[4] = {"io", "ss", "oo", "rs"};
  for (int i = 0; i < 4; ++i) meta += MetaLines(c, names[i], c.tables[i]);
  return absl::StrReplaceAll(R"(
HloModule m
ENTRY main {
  r = u32[] replica-id()
  p = u32[] partition-id()
  np = u32[] constant($P)
  rp = u32[] multiply(r, np)
  du = u32[] add(rp, p)
  d = s32[] convert(du)
  zero = s32[] constant(0)
  h = s32[] constant(100)
  base = s32[] multiply(d, h)
  b = s32[$IN,2] broadcast(base), dimensions={}
  rows = s32[$IN,2] iota(), iota_dimension=0
  t = s32[] constant(10)
  tb = s32[$IN,2] broadcast(t), dimensions={}
  rows10 = s32[$IN,2] multiply(rows, tb)
  cols = s32[$IN,2] iota(), iota_dimension=1
  rc = s32[$IN,2] add(rows10, cols)
  input = s32[$IN,2]$INL add(b, rc)
  m1 = s32[] constant(-1)
  output = s32[$OUT,2]$OUTL broadcast(m1), dimensions={}$META
  ROOT ra = s32[$OUT,2]$OUTL ragged-all-to-all(input, output, io, ss, oo, rs), $ATTRS
}
)",
                             {{"$P", std::to_string(c.partitions)},
                              {"$IN", std::to_string(c.in_rows)},
                              {"$OUT", std::to_string(c.out_rows)},
                              {"$INL", c.in_layout},
                              {"$OUTL", c.out_layout},
                              {"$META", meta},
                              {"$ATTRS", c.attrs}});
}

// Two replicas, one update per peer: replica 0 sends row 0 to itself and
// rows 1-2 to replica 1; replica 1 sends rows 0-2 to replica 0 and row 3 to
// itself. Each sender says where its rows land in the receiver's output.
RaggedCase OneUpdatePerPeer() {
  RaggedCase c;
  c.tables = {{"0, 1", "0, 3"}, {"1, 2", "3, 1"}, {"0, 0", "1, 2"}, {"1, 3", "2, 1"}};
  return c;
}
const char* kOneUpdateOut0 =
    "s32[6,2] {{0, 1}, {100, 101}, {110, 111}, {120, 121}, {-1, -1}, {-1, -1}}";
const char* kOneUpdateOut1 =
    "s32[6,2] {{10, 11}, {20, 21}, {130, 131}, {-1, -1}, {-1, -1}, {-1, -1}}";

TEST(RaggedAllToAll, OneUpdatePerPeer) {
  ExpectDevices(RaggedHlo(OneUpdatePerPeer()), {}, Devices(2), {kOneUpdateOut0, kOneUpdateOut1});
}

TEST(RaggedAllToAll, NonDefaultLayoutsMoveLogicalRows) {
  RaggedCase c = OneUpdatePerPeer();
  c.in_layout = "{0,1}";
  c.out_layout = "{0,1}";
  ExpectDevices(RaggedHlo(c), {}, Devices(2), {kOneUpdateOut0, kOneUpdateOut1});
}

// Two updates per peer (entry j*2+u is update u for group position j), s64
// offsets, one empty update; the same tables as rank-1 s64[4] and as rank-2
// s64[2,2] arrays (row j = the updates for position j).
TEST(RaggedAllToAll, MultipleUpdatesPerPeerS64Rank1AndRank2) {
  RaggedCase c;
  c.meta_type = "s64";
  c.meta_dims = "4";
  c.tables = {{"3, 0, 1, 0", "0, 2, 3, 0"},
              {"1, 1, 2, 0", "2, 1, 1, 1"},
              {"5, 0, 0, 0", "1, 3, 4, 2"},
              {"1, 1, 2, 1", "2, 0, 1, 1"}};
  const std::vector<std::string> want = {
      "s32[6,2] {{0, 1}, {100, 101}, {110, 111}, {120, 121}, {-1, -1}, {30, 31}}",
      "s32[6,2] {{10, 11}, {20, 21}, {100, 101}, {-1, -1}, {130, 131}, {-1, -1}}"};
  ExpectDevices(RaggedHlo(c), {}, Devices(2), want);
  c.meta_dims = "2,2";
  ExpectDevices(RaggedHlo(c), {}, Devices(2), want);
}

// Four replicas in two groups; the sender at group position q writes row
// q + 1 of each receiver, and sends it its input row (receiver position).
// List and iota forms of {{0,2},{1,3}} agree; {{2,0},{3,1}} swaps the
// positions, so the output offsets change with them.
TEST(RaggedAllToAll, ReplicaGroupsListIotaAndOrder) {
  RaggedCase c;
  c.in_rows = 2;
  c.out_rows = 4;
  c.tables = {{"0, 1", "0, 1", "0, 1", "0, 1"},
              {"1, 1", "1, 1", "1, 1", "1, 1"},
              {"1, 1", "1, 1", "2, 2", "2, 2"},
              {"1, 1", "1, 1", "1, 1", "1, 1"}};
  const std::vector<std::string> want = {
      "s32[4,2] {{-1, -1}, {0, 1}, {200, 201}, {-1, -1}}",
      "s32[4,2] {{-1, -1}, {100, 101}, {300, 301}, {-1, -1}}",
      "s32[4,2] {{-1, -1}, {10, 11}, {210, 211}, {-1, -1}}",
      "s32[4,2] {{-1, -1}, {110, 111}, {310, 311}, {-1, -1}}"};
  c.attrs = "replica_groups={{0,2},{1,3}}";
  ExpectDevices(RaggedHlo(c), {}, Devices(4), want);
  c.attrs = "replica_groups=[2,2]<=[2,2]T(1,0)";
  ExpectDevices(RaggedHlo(c), {}, Devices(4), want);
  c.attrs = "replica_groups={{2,0},{3,1}}";
  c.tables[2] = {"2, 2", "2, 2", "1, 1", "1, 1"};
  ExpectDevices(RaggedHlo(c), {}, Devices(4),
                {"s32[4,2] {{-1, -1}, {210, 211}, {10, 11}, {-1, -1}}",
                 "s32[4,2] {{-1, -1}, {310, 311}, {110, 111}, {-1, -1}}",
                 "s32[4,2] {{-1, -1}, {200, 201}, {0, 1}, {-1, -1}}",
                 "s32[4,2] {{-1, -1}, {300, 301}, {100, 101}, {-1, -1}}"});
}

// With a channel_id the groups name partitions within each replica.
TEST(RaggedAllToAll, CrossPartitionWithChannel) {
  RaggedCase c = OneUpdatePerPeer();
  c.partitions = 2;
  for (auto& t : c.tables) t = {t[0], t[1], t[0], t[1]};
  c.attrs = "channel_id=1, replica_groups={{0,1}}";
  ExpectDevices(RaggedHlo(c), {}, Devices(2, 2),
                {kOneUpdateOut0, kOneUpdateOut1,
                 "s32[6,2] {{200, 201}, {300, 301}, {310, 311}, {320, 321}, {-1, -1}, {-1, -1}}",
                 "s32[6,2] {{210, 211}, {220, 221}, {330, 331}, {-1, -1}, {-1, -1}, {-1, -1}}"});
}

// Groups of one: each device moves rows within itself (a dynamic update of
// a dynamic size).
TEST(RaggedAllToAll, GroupsOfOne) {
  RaggedCase c;
  c.meta_dims = "1";
  c.tables = {{"1", "2"}, {"2", "1"}, {"3", "0"}, {"2", "1"}};
  c.attrs = "replica_groups={{0},{1}}";
  ExpectDevices(RaggedHlo(c), {}, Devices(2),
                {"s32[6,2] {{-1, -1}, {-1, -1}, {-1, -1}, {10, 11}, {20, 21}, {-1, -1}}",
                 "s32[6,2] {{120, 121}, {-1, -1}, {-1, -1}, {-1, -1}, {-1, -1}, {-1, -1}}"});
}

// Runs that overlap in a receiver's output: senders apply in group order,
// so the later one's rows remain.
TEST(RaggedAllToAll, OverlappingRunsLaterSenderWins) {
  RaggedCase c;
  c.out_rows = 2;
  c.tables = {{"0, 1", "0, 1"}, {"1, 1", "1, 1"}, {"0, 0", "0, 0"}, {"1, 1", "1, 1"}};
  ExpectDevices(RaggedHlo(c), {}, Devices(2),
                {"s32[2,2] {{100, 101}, {-1, -1}}", "s32[2,2] {{110, 111}, {-1, -1}}"});
}

void ExpectRaggedError(const RaggedCase& c, int64_t replicas, const std::string& part) {
  absl::StatusOr<RunResult> run = RunAll(RaggedHlo(c), {}, Devices(replicas));
  ASSERT_FALSE(run.ok());
  EXPECT_NE(run.status().message().find("ragged-all-to-all %ra: "), std::string::npos)
      << run.status();
  EXPECT_NE(run.status().message().find(part), std::string::npos) << run.status();
}

TEST(RaggedAllToAll, OutOfBoundsOffsetsAndSizesAreErrors) {
  RaggedCase c = OneUpdatePerPeer();
  c.tables[0][1] = "0, 3";
  c.tables[1][1] = "3, 2";  // rows [3, 5) of 4 input rows
  ExpectRaggedError(c, 2, "rows [3, 3 + 2) from input_offsets and send_sizes are outside the 4 "
                          "rows of the input");
  c = OneUpdatePerPeer();
  c.tables[2][1] = "4, 2";  // replica 1's 3 rows at row 4 of replica 0's 6 output rows
  ExpectRaggedError(c, 2, "rows [4, 4 + 3) from output_offsets and send_sizes are outside the 6 "
                          "rows of the output");
  c = OneUpdatePerPeer();
  c.tables[0][0] = "-1, 1";
  ExpectRaggedError(c, 2, "rows [-1, -1 + 1) from input_offsets");
  c = OneUpdatePerPeer();
  c.tables[1][0] = "1, -2";
  ExpectRaggedError(c, 2, "send_sizes -2 is negative");
}

TEST(RaggedAllToAll, RecvSizesMustMatchTheSender) {
  RaggedCase c = OneUpdatePerPeer();
  c.tables[3][1] = "2, 2";  // replica 1 expects 2 rows from itself, gets 1
  ExpectRaggedError(c, 2, "update 0 from group position 1 (device 1): recv_sizes 2 but that "
                          "member sends 1 rows");
}

TEST(RaggedAllToAll, EntriesMustBeAMultipleOfTheGroupSize) {
  RaggedCase c = OneUpdatePerPeer();
  c.attrs = "replica_groups={}";
  for (auto& t : c.tables) t.push_back(t[0]);
  ExpectRaggedError(c, 3, "the 2 entries of the offsets/sizes arrays are not a multiple of the 3 "
                          "members");
}

TEST(RaggedAllToAll, OffsetsArraysMustShareOneShape) {
  const std::string hlo = R"(
HloModule m
ENTRY main {
  input = f32[4] parameter(0)
  output = f32[4] parameter(1)
  io = s32[1] constant({0})
  ss = s64[1] constant({2})
  ROOT ra = f32[4] ragged-all-to-all(input, output, io, ss, io, ss), replica_groups={{0}}
}
)";
  absl::StatusOr<RunResult> run =
      RunAll(hlo, {"f32[4] {1, 2, 3, 4}", "f32[4] {0, 0, 0, 0}"}, Devices(1));
  ASSERT_FALSE(run.ok());
  EXPECT_NE(run.status().message().find("send_sizes s64[1] differs from input_offsets s32[1]"),
            std::string::npos)
      << run.status();
}

}  // namespace
}  // namespace hlo::cpu
