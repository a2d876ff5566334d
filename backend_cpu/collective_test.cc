// Tests of the collective family (ops_collective.cc, collectives.cc): every
// device of a multi-replica / multi-partition run is checked through
// RunModule, with values computed by hand from the XLA semantics.
#include <chrono>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "backend_cpu/collectives.h"
#include "backend_cpu/collective_test_util.h"
#include "backend_cpu/executor.h"
#include "gtest/gtest.h"
#include "ir/printer.h"
#include "ir/verifier.h"
#include "parser/parser.h"

namespace hlo::cpu {
namespace {

// v = x * (replica_id + 1), as f32[N].
std::string ScaledByReplica(const std::string& body, int n) {
  return absl::StrReplaceAll(R"(
HloModule m

add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}

ENTRY main {
  x = f32[$N] parameter(0)
  r = u32[] replica-id()
  rf = f32[] convert(r)
  one = f32[] constant(1)
  s = f32[] add(rf, one)
  b = f32[$N] broadcast(s), dimensions={}
  v = f32[$N] multiply(x, b)
  $BODY
}
)",
                             {{"$N", std::to_string(n)},
                              {"$BODY", body}});
}

TEST(CollectiveAllReduce, SumOverAllReplicas) {
  // Replica r contributes x*(r+1): the sum is x*(1+2+3+4) = x*10.
  const std::string hlo = ScaledByReplica(
      "ROOT ar = f32[2] all-reduce(v), replica_groups={}, to_apply=add", 2);
  ExpectDevices(hlo, {"f32[2] {1, 2}"}, Devices(4),
                {"f32[2] {10, 20}", "f32[2] {10, 20}", "f32[2] {10, 20}", "f32[2] {10, 20}"});
}

TEST(CollectiveAllReduce, Subgroups) {
  // {0,2}: (1+3)x; {1,3}: (2+4)x.
  const std::string hlo = ScaledByReplica(
      "ROOT ar = f32[2] all-reduce(v), replica_groups={{0,2},{1,3}}, to_apply=add", 2);
  ExpectDevices(hlo, {"f32[2] {1, 2}"}, Devices(4),
                {"f32[2] {4, 8}", "f32[2] {6, 12}", "f32[2] {4, 8}", "f32[2] {6, 12}"});
}

TEST(CollectiveAllReduce, IotaGroups) {
  // [2,2]<=[4] = {{0,1},{2,3}}: (1+2)x and (3+4)x.
  const std::string hlo = ScaledByReplica(
      "ROOT ar = f32[2] all-reduce(v), replica_groups=[2,2]<=[4], to_apply=add", 2);
  ExpectDevices(hlo, {"f32[2] {1, 2}"}, Devices(4),
                {"f32[2] {3, 6}", "f32[2] {3, 6}", "f32[2] {7, 14}", "f32[2] {7, 14}"});
  // [2,2]<=[2,2]T(1,0) = {{0,2},{1,3}}.
  const std::string t = ScaledByReplica(
      "ROOT ar = f32[2] all-reduce(v), replica_groups=[2,2]<=[2,2]T(1,0), to_apply=add", 2);
  ExpectDevices(t, {"f32[2] {1, 2}"}, Devices(4),
                {"f32[2] {4, 8}", "f32[2] {6, 12}", "f32[2] {4, 8}", "f32[2] {6, 12}"});
}

TEST(CollectiveAllReduce, VariadicMaxAndMin) {
  const std::string hlo = R"(
HloModule m
mx {
  a = s32[] parameter(0)
  b = s32[] parameter(1)
  ROOT m = s32[] maximum(b, a)
}
ENTRY main {
  r = u32[] replica-id()
  ri = s32[] convert(r)
  k = s32[] constant(10)
  neg = s32[] subtract(k, ri)
  a = s32[2] broadcast(ri), dimensions={}
  b = s32[] multiply(neg, neg)
  ROOT ar = (s32[2], s32[]) all-reduce(a, b), replica_groups={}, to_apply=mx
}
)";
  // max(r) = 2; max((10-r)^2) = 100.
  ExpectDevices(hlo, {}, Devices(3),
                {"(s32[2], s32[]) ({2, 2}, 100)", "(s32[2], s32[]) ({2, 2}, 100)",
                 "(s32[2], s32[]) ({2, 2}, 100)"});
}

TEST(CollectiveAllReduce, GenericReducerCombinesInGroupOrder) {
  // f(acc, x) = 2*acc + x is not a fast-path reducer and is not
  // commutative: the result shows the combination order.
  const std::string base = R"(
HloModule m
f {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  two = f32[] constant(2)
  a2 = f32[] multiply(a, two)
  ROOT s = f32[] add(a2, b)
}
ENTRY main {
  r = u32[] replica-id()
  rf = f32[] convert(r)
  one = f32[] constant(1)
  s = f32[] add(rf, one)
  v = f32[1] broadcast(s), dimensions={}
  ROOT ar = f32[1] all-reduce(v), replica_groups=GROUPS, to_apply=f
}
)";
  // Group order 0,1,2,3 with values 1,2,3,4: ((1*2+2)*2+3)*2+4 = 26.
  ExpectDevices(absl::StrReplaceAll(base, {{"GROUPS", "{}"}}), {}, Devices(4),
                {"f32[1] {26}", "f32[1] {26}", "f32[1] {26}", "f32[1] {26}"});
  // Group order 3,2,1,0 with values 4,3,2,1: ((4*2+3)*2+2)*2+1 = 49.
  ExpectDevices(absl::StrReplaceAll(base, {{"GROUPS", "{{3,2,1,0}}"}}), {}, Devices(4),
                {"f32[1] {49}", "f32[1] {49}", "f32[1] {49}", "f32[1] {49}"});
}

TEST(CollectiveAllReduce, BitIdenticalOnEveryDevice) {
  // Rounding depends on the order: 1e8 + 1 + ... ; every device must agree.
  const std::string hlo = R"(
HloModule m
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY main {
  x = f32[4] parameter(0)
  r = u32[] replica-id()
  ri = s32[] convert(r)
  z = s32[] constant(0)
  o = s32[] constant(1)
  d = f32[1] dynamic-slice(x, ri), dynamic_slice_sizes={1}
  ROOT ar = f32[1] all-reduce(d), replica_groups={}, to_apply=add
}
)";
  absl::StatusOr<RunResult> run = RunAll(hlo, {"f32[4] {1e8, 3, -1e8, 5}"}, Devices(4));
  ASSERT_TRUE(run.ok()) << run.status();
  // ((1e8 + 3) + -1e8) + 5 in f32: 1e8+3 rounds to 100000000 (ulp 8), so 0 + 5 = 5... or 8+5.
  for (size_t d = 1; d < run->results.size(); ++d)
    EXPECT_TRUE(run->results[d].LogicallyEqual(run->results[0])) << d;
  // f32: 1e8 + 3 = 100000000 (nearest multiple of 8), - 1e8 = 0, + 5 = 5.
  ExpectLiteral(run->results[0], "f32[1] {5}", "device 0");
}

TEST(CollectiveAllReduce, Bf16AndPred) {
  const std::string hlo = R"(
HloModule m
add {
  a = bf16[] parameter(0)
  b = bf16[] parameter(1)
  ROOT s = bf16[] add(a, b)
}
or {
  a = pred[] parameter(0)
  b = pred[] parameter(1)
  ROOT s = pred[] or(a, b)
}
ENTRY main {
  r = u32[] replica-id()
  rf = bf16[] convert(r)
  v = bf16[2] broadcast(rf), dimensions={}
  ar = bf16[2] all-reduce(v), replica_groups={}, to_apply=add
  one = u32[] constant(1)
  p = pred[] compare(r, one), direction=EQ
  pr = pred[] all-reduce(p), replica_groups={{0,2},{1,3}}, to_apply=or
  ROOT t = (bf16[2], pred[]) tuple(ar, pr)
}
)";
  ExpectDevices(hlo, {}, Devices(4),
                {"(bf16[2], pred[]) ({6, 6}, false)", "(bf16[2], pred[]) ({6, 6}, true)",
                 "(bf16[2], pred[]) ({6, 6}, false)", "(bf16[2], pred[]) ({6, 6}, true)"});
}

TEST(CollectiveAllReduce, CrossReplicaAndPartition) {
  // channel_id without use_global_device_ids: the groups name replicas and
  // every partition of those replicas takes part. Device d = r*2+p
  // contributes d+1.
  const std::string hlo = R"(
HloModule m
add {
  a = s32[] parameter(0)
  b = s32[] parameter(1)
  ROOT s = s32[] add(a, b)
}
ENTRY main {
  r = u32[] replica-id()
  p = u32[] partition-id()
  two = u32[] constant(2)
  one = u32[] constant(1)
  r2 = u32[] multiply(r, two)
  d = u32[] add(r2, p)
  d1 = u32[] add(d, one)
  v = s32[] convert(d1)
  all = s32[] all-reduce(v), channel_id=1, replica_groups={}, to_apply=add
  sub = s32[] all-reduce(v), channel_id=2, replica_groups={{0},{1}}, to_apply=add
  glob = s32[] all-reduce(v), channel_id=3, replica_groups={{0,3},{1,2}}, use_global_device_ids=true, to_apply=add
  xr = s32[] all-reduce(v), replica_groups={}, to_apply=add
  ROOT t = (s32[], s32[], s32[], s32[]) tuple(all, sub, glob, xr)
}
)";
  // all: 1+2+3+4 = 10. sub: replica 0 -> devices 0,1 (1+2=3), replica 1 ->
  // devices 2,3 (3+4=7). glob: {0,3} -> 1+4 = 5, {1,2} -> 2+3 = 5... use
  // flattened ids. xr (no channel: cross-replica within a partition):
  // partition 0 -> devices 0,2 (1+3=4), partition 1 -> devices 1,3 (2+4=6).
  ExpectDevices(hlo, {}, Devices(2, 2),
                {"(s32[], s32[], s32[], s32[]) (10, 3, 5, 4)",
                 "(s32[], s32[], s32[], s32[]) (10, 3, 5, 6)",
                 "(s32[], s32[], s32[], s32[]) (10, 7, 5, 4)",
                 "(s32[], s32[], s32[], s32[]) (10, 7, 5, 6)"});
}

TEST(CollectiveAllReduce, StartDone) {
  const std::string hlo = ScaledByReplica(R"(
  st = f32[2] all-reduce-start(v), replica_groups={}, to_apply=add
  ROOT dn = f32[2] all-reduce-done(st))",
                                          2);
  ExpectDevices(hlo, {"f32[2] {1, -1}"}, Devices(2), {"f32[2] {3, -3}", "f32[2] {3, -3}"});
}

TEST(CollectiveAllReduce, InsideWhileLoopMatchesIterations) {
  // The k-th execution on each device meets the k-th on the others.
  const std::string hlo = R"(
HloModule m
add {
  a = s32[] parameter(0)
  b = s32[] parameter(1)
  ROOT s = s32[] add(a, b)
}
cond {
  p = (s32[], s32[]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  n = s32[] constant(3)
  ROOT c = pred[] compare(i, n), direction=LT
}
body {
  p = (s32[], s32[]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  v = s32[] get-tuple-element(p), index=1
  one = s32[] constant(1)
  i1 = s32[] add(i, one)
  s = s32[] all-reduce(v), replica_groups={}, to_apply=add
  ROOT t = (s32[], s32[]) tuple(i1, s)
}
ENTRY main {
  r = u32[] replica-id()
  ri = s32[] convert(r)
  z = s32[] constant(0)
  init = (s32[], s32[]) tuple(z, ri)
  w = (s32[], s32[]) while(init), condition=cond, body=body
  ROOT out = s32[] get-tuple-element(w), index=1
}
)";
  // 2 replicas: values (0,1) -> 1 -> 2 -> 4 after 3 iterations.
  ExpectDevices(hlo, {}, Devices(2), {"s32[] 4", "s32[] 4"});
}

TEST(CollectiveAllGather, ConcatenatesInGroupOrder) {
  const std::string hlo = ScaledByReplica(
      "ROOT ag = f32[8] all-gather(v), replica_groups={}, dimensions={0}", 2);
  const std::string all = "f32[8] {1, 2, 2, 4, 3, 6, 4, 8}";
  ExpectDevices(hlo, {"f32[2] {1, 2}"}, Devices(4), {all, all, all, all});
  const std::string sub = ScaledByReplica(
      "ROOT ag = f32[4] all-gather(v), replica_groups={{1,0},{3,2}}, dimensions={0}", 2);
  ExpectDevices(sub, {"f32[2] {1, 2}"}, Devices(4),
                {"f32[4] {2, 4, 1, 2}", "f32[4] {2, 4, 1, 2}", "f32[4] {4, 8, 3, 6}",
                 "f32[4] {4, 8, 3, 6}"});
}

TEST(CollectiveAllGather, InnerDimensionAndLayout) {
  const std::string hlo = R"(
HloModule m
ENTRY main {
  x = s32[2,2] parameter(0)
  r = u32[] replica-id()
  ri = s32[] convert(r)
  k = s32[] constant(10)
  m = s32[] multiply(ri, k)
  b = s32[2,2] broadcast(m), dimensions={}
  v = s32[2,2]{0,1} add(x, b)
  ROOT ag = s32[2,4]{0,1} all-gather(v), replica_groups={}, dimensions={1}
}
)";
  const std::string want = "s32[2,4] {{1, 2, 11, 12}, {3, 4, 13, 14}}";
  ExpectDevices(hlo, {"s32[2,2] {{1, 2}, {3, 4}}"}, Devices(2), {want, want});
}

TEST(CollectiveAllGather, StartDoneAndVariadic) {
  const std::string hlo = R"(
HloModule m
ENTRY main {
  r = u32[] replica-id()
  a = u32[1] broadcast(r), dimensions={}
  one = u32[] constant(1)
  r1 = u32[] add(r, one)
  b = u32[1,2] broadcast(r1), dimensions={}
  st = (u32[1], u32[3]) all-gather-start(a), replica_groups={}, dimensions={0}
  dn = u32[3] all-gather-done(st)
  vg = (u32[3], u32[3,2]) all-gather(a, b), replica_groups={}, dimensions={0}
  ROOT t = (u32[3], (u32[3], u32[3,2])) tuple(dn, vg)
}
)";
  const std::string want =
      "(u32[3], (u32[3], u32[3,2])) ({0, 1, 2}, ({0, 1, 2}, {{1, 1}, {2, 2}, {3, 3}}))";
  ExpectDevices(hlo, {}, Devices(3), {want, want, want});
}

TEST(CollectiveAllToAll, SplitDimension) {
  // Replica r holds rows r*100 + {0..3}; row j goes to replica j; replica
  // j receives row j of every replica, in replica order.
  const std::string hlo = R"(
HloModule m
ENTRY main {
  r = u32[] replica-id()
  ri = s32[] convert(r)
  k = s32[] constant(100)
  base = s32[] multiply(ri, k)
  b = s32[4,2] broadcast(base), dimensions={}
  io = s32[4,2] iota(), iota_dimension=0
  v = s32[4,2] add(b, io)
  ROOT a2a = s32[4,2] all-to-all(v), replica_groups={}, dimensions={0}
}
)";
  ExpectDevices(hlo, {}, Devices(4),
                {"s32[4,2] {{0, 0}, {100, 100}, {200, 200}, {300, 300}}",
                 "s32[4,2] {{1, 1}, {101, 101}, {201, 201}, {301, 301}}",
                 "s32[4,2] {{2, 2}, {102, 102}, {202, 202}, {302, 302}}",
                 "s32[4,2] {{3, 3}, {103, 103}, {203, 203}, {303, 303}}"});
}

TEST(CollectiveAllToAll, InnerSplitDimensionWithGroups) {
  // Split along dimension 1 into 2 chunks within {1,0} / {3,2}: position 0
  // is replica 1.
  const std::string hlo = R"(
HloModule m
ENTRY main {
  r = u32[] replica-id()
  ri = s32[] convert(r)
  k = s32[] constant(10)
  base = s32[] multiply(ri, k)
  b = s32[2,4] broadcast(base), dimensions={}
  io = s32[2,4] iota(), iota_dimension=1
  v = s32[2,4] add(b, io)
  ROOT a2a = s32[2,4] all-to-all(v), replica_groups={{1,0},{3,2}}, dimensions={1}
}
)";
  // Replica 1 (position 0) gets chunk 0 (cols 0,1) of replica 1 then of
  // replica 0: {10,11,0,1}. Replica 0 (position 1) gets chunk 1: {12,13,2,3}.
  ExpectDevices(hlo, {}, Devices(4),
                {"s32[2,4] {{12, 13, 2, 3}, {12, 13, 2, 3}}",
                 "s32[2,4] {{10, 11, 0, 1}, {10, 11, 0, 1}}",
                 "s32[2,4] {{32, 33, 22, 23}, {32, 33, 22, 23}}",
                 "s32[2,4] {{30, 31, 20, 21}, {30, 31, 20, 21}}"});
}

TEST(CollectiveAllToAll, TupleForm) {
  const std::string hlo = R"(
HloModule m
ENTRY main {
  r = u32[] replica-id()
  k = u32[] constant(10)
  base = u32[] multiply(r, k)
  a = u32[2] broadcast(base), dimensions={}
  one = u32[] constant(1)
  b1 = u32[] add(base, one)
  b = u32[2] broadcast(b1), dimensions={}
  ROOT a2a = (u32[2], u32[2]) all-to-all(a, b), replica_groups={{0,1}}
}
)";
  // Replica 0 gets operand 0 of replicas 0,1: (0, 10); replica 1 gets
  // operand 1: (1, 11).
  ExpectDevices(hlo, {}, Devices(2),
                {"(u32[2], u32[2]) ({0, 0}, {10, 10})", "(u32[2], u32[2]) ({1, 1}, {11, 11})"});
}

TEST(CollectiveAllToAll, CrossPartitionWithChannel) {
  // channel_id on all-to-all: the groups name partitions of one replica.
  const std::string hlo = R"(
HloModule m
ENTRY main {
  r = u32[] replica-id()
  p = u32[] partition-id()
  k = u32[] constant(10)
  rk = u32[] multiply(r, k)
  d = u32[] add(rk, p)
  b = u32[2] broadcast(d), dimensions={}
  io = u32[2] iota(), iota_dimension=0
  k100 = u32[] constant(100)
  b100 = u32[2] broadcast(k100), dimensions={}
  io100 = u32[2] multiply(io, b100)
  v = u32[2] add(b, io100)
  ROOT a2a = u32[2] all-to-all(v), channel_id=1, replica_groups={{0,1}}, dimensions={0}
}
)";
  // Device (r,p) holds {10r+p, 10r+p+100}; partition p gets element p of
  // partitions 0 and 1 of its replica.
  ExpectDevices(hlo, {}, Devices(2, 2),
                {"u32[2] {0, 1}", "u32[2] {100, 101}", "u32[2] {10, 11}", "u32[2] {110, 111}"});
}

TEST(CollectiveReduceScatter, KeepsOwnChunk) {
  const std::string hlo = ScaledByReplica(
      "ROOT rs = f32[2] reduce-scatter(v), replica_groups={}, dimensions={0}, to_apply=add", 8);
  // Sum = x*10 = {10..80}; replica r keeps elements 2r, 2r+1.
  ExpectDevices(hlo, {"f32[8] {1, 2, 3, 4, 5, 6, 7, 8}"}, Devices(4),
                {"f32[2] {10, 20}", "f32[2] {30, 40}", "f32[2] {50, 60}", "f32[2] {70, 80}"});
}

TEST(CollectiveReduceScatter, InnerDimension) {
  const std::string hlo = R"(
HloModule m
add {
  a = s32[] parameter(0)
  b = s32[] parameter(1)
  ROOT s = s32[] add(a, b)
}
ENTRY main {
  x = s32[2,4] parameter(0)
  r = u32[] replica-id()
  ri = s32[] convert(r)
  one = s32[] constant(1)
  s = s32[] add(ri, one)
  b = s32[2,4] broadcast(s), dimensions={}
  v = s32[2,4] multiply(x, b)
  ROOT rs = s32[2,2] reduce-scatter(v), replica_groups={{1,0}}, dimensions={1}, to_apply=add
}
)";
  // Sum = 3x; replica 1 is position 0 (cols 0,1), replica 0 position 1.
  ExpectDevices(hlo, {"s32[2,4] {{1, 2, 3, 4}, {5, 6, 7, 8}}"}, Devices(2),
                {"s32[2,2] {{9, 12}, {21, 24}}", "s32[2,2] {{3, 6}, {15, 18}}"});
}

TEST(CollectivePermute, ShiftAndZerosForNonTargets) {
  const std::string hlo = ScaledByReplica(
      "ROOT cp = f32[2] collective-permute(v), source_target_pairs={{0,1},{1,2},{2,3}}", 2);
  ExpectDevices(hlo, {"f32[2] {1, 2}"}, Devices(4),
                {"f32[2] {0, 0}", "f32[2] {1, 2}", "f32[2] {2, 4}", "f32[2] {3, 6}"});
}

TEST(CollectivePermute, CycleStartDoneAndCombined) {
  const std::string hlo = R"(
HloModule m
ENTRY main {
  r = u32[] replica-id()
  a = u32[2] broadcast(r), dimensions={}
  k = u32[] constant(7)
  rk = u32[] add(r, k)
  b = u32[] copy(rk)
  st = (u32[2], u32[2], u32[], u32[]) collective-permute-start(a), source_target_pairs={{0,2},{1,0},{2,1}}
  dn = u32[2] collective-permute-done(st)
  comb = (u32[2], u32[]) collective-permute(a, b), source_target_pairs={{0,1},{1,2},{2,0}}
  ROOT t = (u32[2], (u32[2], u32[])) tuple(dn, comb)
}
)";
  ExpectDevices(hlo, {}, Devices(3),
                {"(u32[2], (u32[2], u32[])) ({1, 1}, ({2, 2}, 9))",
                 "(u32[2], (u32[2], u32[])) ({2, 2}, ({0, 0}, 7))",
                 "(u32[2], (u32[2], u32[])) ({0, 0}, ({1, 1}, 8))"});
}

TEST(CollectivePermute, CrossPartitionWithChannel) {
  const std::string hlo = R"(
HloModule m
ENTRY main {
  r = u32[] replica-id()
  p = u32[] partition-id()
  k = u32[] constant(10)
  rk = u32[] multiply(r, k)
  d = u32[] add(rk, p)
  ROOT cp = u32[] collective-permute(d), channel_id=1, source_target_pairs={{0,1},{1,0}}
}
)";
  // Partitions swap within each replica.
  ExpectDevices(hlo, {}, Devices(2, 2), {"u32[] 1", "u32[] 0", "u32[] 11", "u32[] 10"});
}

TEST(CollectivePermute, InPlaceFormIsAClearError) {
  // input, output, (input offsets), (output offsets), slice_sizes: both the
  // plain and the -start form name the op and the missing form.
  const std::string args = "(input, output, in_off, out_off), source_target_pairs={{0,1},{1,0}}, "
                           "slice_sizes={{4,2}}";
  const std::string roots[] = {
      "ROOT cp = f32[4,4] collective-permute" + args,
      "cp = (f32[4,2], f32[4,4], u32[], u32[]) collective-permute-start" + args +
          "\n  ROOT dn = f32[4,4] collective-permute-done(cp)"};
  for (const std::string& root : roots) {
    const std::string hlo = absl::StrCat(R"(
HloModule m
ENTRY main {
  input = f32[4,2] parameter(0)
  zero = f32[] constant(0)
  output = f32[4,4] broadcast(zero), dimensions={}
  c0 = s32[] constant(0)
  c2 = s32[] constant(2)
  in_off = (s32[], s32[]) tuple(c0, c0)
  out_off = (s32[], s32[]) tuple(c0, c2)
  )", root, "\n}\n");
    absl::StatusOr<RunResult> run =
        RunAll(hlo, {"f32[4,2] {{1, 2}, {3, 4}, {5, 6}, {7, 8}}"}, Devices(2));
    ASSERT_FALSE(run.ok()) << root;
    EXPECT_EQ(run.status().code(), absl::StatusCode::kUnimplemented) << run.status();
    EXPECT_NE(run.status().message().find(
                  "%cp: not implemented on the CPU backend: the in-place form"),
              std::string::npos)
        << run.status();
  }
}

TEST(CollectiveBroadcast, FromFirstOfEachGroup) {
  const std::string hlo = ScaledByReplica(
      "ROOT cb = f32[2] collective-broadcast(v), replica_groups={{1,0},{2,3}}", 2);
  ExpectDevices(hlo, {"f32[2] {1, 2}"}, Devices(4),
                {"f32[2] {2, 4}", "f32[2] {2, 4}", "f32[2] {3, 6}", "f32[2] {3, 6}"});
}

TEST(CollectiveSendRecv, PairsFromFrontendAttributes) {
  const std::string hlo = R"(
HloModule m
ENTRY main {
  r = u32[] replica-id()
  k = u32[] constant(5)
  rk = u32[] add(r, k)
  v = u32[2] broadcast(rk), dimensions={}
  t0 = token[] after-all()
  recv = (u32[2], u32[], token[]) recv(t0), channel_id=1, frontend_attributes={_xla_send_recv_source_target_pairs="{{0,1},{1,2}}"}
  send = (u32[2], u32[], token[]) send(v, t0), channel_id=1, frontend_attributes={_xla_send_recv_source_target_pairs="{{0,1},{1,2}}"}
  sd = token[] send-done(send), channel_id=1
  rd = (u32[2], token[]) recv-done(recv), channel_id=1
  ROOT data = u32[2] get-tuple-element(rd), index=0
}
)";
  // 0 -> 1, 1 -> 2; replica 0 receives nothing (zeros).
  ExpectDevices(hlo, {}, Devices(3), {"u32[2] {0, 0}", "u32[2] {5, 5}", "u32[2] {6, 6}"});
}

TEST(CollectiveSendRecv, SameDeviceChannel) {
  const std::string hlo = R"(
HloModule m
ENTRY main {
  c = f32[] constant(2.5)
  t0 = token[] after-all()
  send = (f32[], u32[], token[]) send(c, t0), channel_id=3
  sd = token[] send-done(send), channel_id=3
  recv = (f32[], u32[], token[]) recv(sd), channel_id=3
  rd = (f32[], token[]) recv-done(recv), channel_id=3
  ROOT data = f32[] get-tuple-element(rd), index=0
}
)";
  ExpectDevices(hlo, {}, Devices(1), {"f32[] 2.5"});
}

TEST(CollectiveSendRecv, RecvBeforeOwnSendIsAnError) {
  const std::string hlo = R"(
HloModule m
ENTRY main {
  t0 = token[] after-all()
  recv = (f32[], u32[], token[]) recv(t0), channel_id=3
  rd = (f32[], token[]) recv-done(recv), channel_id=3
  ROOT data = f32[] get-tuple-element(rd), index=0
}
)";
  absl::StatusOr<RunResult> run = RunAll(hlo, {}, Devices(1));
  ASSERT_FALSE(run.ok());
  EXPECT_NE(run.status().message().find("has not run yet"), std::string::npos) << run.status();
}

TEST(CollectiveInfeedOutfeed, ReadsInOrderAndOutfeeds) {
  const std::string hlo = R"(
HloModule m
ENTRY main {
  t0 = token[] after-all()
  in0 = (f32[2], token[]) infeed(t0)
  d0 = f32[2] get-tuple-element(in0), index=0
  t1 = token[] get-tuple-element(in0), index=1
  in1 = ((s32[], f32[2]), token[]) infeed(t1)
  d1 = (s32[], f32[2]) get-tuple-element(in1), index=0
  t2 = token[] get-tuple-element(in1), index=1
  f = f32[2] get-tuple-element(d1), index=1
  s = f32[2] add(d0, f)
  t3 = token[] outfeed(s, t2)
  t4 = token[] outfeed(d1, t3)
  ROOT r = f32[2] copy(s)
}
)";
  absl::StatusOr<std::unique_ptr<Module>> module = ParseModule(hlo);
  ASSERT_TRUE(module.ok()) << module.status();
  ASSERT_TRUE(VerifyModule(**module).ok());
  RunOptions options;
  options.infeed.push_back(*ParseLiteral("f32[2] {1, 2}"));
  options.infeed.push_back(*ParseLiteral("(s32[], f32[2]) (7, {10, 20})"));
  absl::StatusOr<RunResult> run = RunModule(**module, {}, options);
  ASSERT_TRUE(run.ok()) << run.status();
  ExpectLiteral(run->results[0], "f32[2] {11, 22}", "result");
  ASSERT_EQ(run->outfeed().size(), 2u);
  ExpectLiteral(run->outfeed()[0], "f32[2] {11, 22}", "outfeed 0");
  ExpectLiteral(run->outfeed()[1], "(s32[], f32[2]) (7, {10, 20})", "outfeed 1");

  // Every replica reads the same sequence.
  options.replica_count = 2;
  run = RunModule(**module, {}, options);
  ASSERT_TRUE(run.ok()) << run.status();
  ExpectLiteral(run->results[1], "f32[2] {11, 22}", "replica 1");

  // Too few literals: a clear error, not a hang.
  options.replica_count = 1;
  options.infeed.pop_back();
  run = RunModule(**module, {}, options);
  ASSERT_FALSE(run.ok());
  EXPECT_NE(run.status().message().find("infeed queue is empty"), std::string::npos)
      << run.status();

  // Wrong shape.
  options.infeed.push_back(*ParseLiteral("f32[2] {1, 2}"));
  run = RunModule(**module, {}, options);
  ASSERT_FALSE(run.ok());
  EXPECT_NE(run.status().message().find("next infeed literal is f32[2]"), std::string::npos)
      << run.status();
}

TEST(CollectiveErrors, BadGroupsAndShapes) {
  // Replica id 4 does not exist in a 4-replica run... the verifier only
  // knows the module header, so run with more replicas than the groups
  // cover.
  const std::string hlo = ScaledByReplica(
      "ROOT ar = f32[2] all-reduce(v), replica_groups={{0,1}}, to_apply=add", 2);
  absl::StatusOr<RunResult> run = RunAll(hlo, {"f32[2] {1, 2}"}, Devices(4));
  ASSERT_FALSE(run.ok());
  EXPECT_NE(run.status().message().find("is in no replica group"), std::string::npos)
      << run.status();
  // all-gather result too small for the group size of this run.
  const std::string ag = ScaledByReplica(
      "ROOT ag = f32[4] all-gather(v), replica_groups={}, dimensions={0}", 2);
  run = RunAll(ag, {"f32[2] {1, 2}"}, Devices(3));
  ASSERT_FALSE(run.ok());
  EXPECT_NE(run.status().message().find("does not give the result"), std::string::npos)
      << run.status();
}

TEST(CollectiveHubTest, AbortWakesWaiters) {
  CollectiveHub hub(2, 1);
  Instruction instr(Opcode::kAllReduce, "ar", Shape::Scalar(PrimitiveType::F32));
  absl::Status waiter_status;
  const auto start = std::chrono::steady_clock::now();
  std::thread waiter([&] {
    const int64_t group[] = {0, 1};
    waiter_status = hub.Exchange(instr, group, 0, Literal(Shape::Scalar(PrimitiveType::F32))).status();
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  hub.Abort(absl::InvalidArgumentError("device 1 failed"));
  waiter.join();
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(10));
  EXPECT_FALSE(waiter_status.ok());
  EXPECT_NE(waiter_status.message().find("device 1 failed"), std::string::npos) << waiter_status;
  // Later arrivals fail at once.
  const int64_t group[] = {0, 1};
  EXPECT_FALSE(hub.Exchange(instr, group, 1, Literal()).ok());
}

TEST(CollectiveHubTest, ChannelAbortWakesRecv) {
  ChannelHub hub({});
  hub.PostRecv(1, 0, 1);
  absl::Status st;
  std::thread waiter(
      [&] { st = hub.FinishRecv(1, 0, Shape::Scalar(PrimitiveType::F32), "rd").status(); });
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  hub.Abort(absl::InternalError("boom"));
  waiter.join();
  EXPECT_NE(st.message().find("boom"), std::string::npos) << st;
}

}  // namespace
}  // namespace hlo::cpu
