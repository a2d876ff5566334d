// The split-device path of RunModule without MPI: a loopback Transport
// joins P "processes" (P RunModule calls on threads of this test), each
// message serialized with literal_wire as MPI would carry it. Every
// process's devices must get exactly what one process computes for them.
#include <chrono>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "backend_cpu/collectives.h"
#include "backend_cpu/executor.h"
#include "backend_cpu/literal_wire.h"
#include "backend_cpu/transport.h"
#include "backend_cpu/transport_runs.h"
#include "gtest/gtest.h"
#include "ir/printer.h"
#include "ir/verifier.h"
#include "parser/parser.h"

namespace hlo::cpu {
namespace {

class LoopbackNet;

// One process's end: sends are handed to the receiver's RunDesk at once.
class LoopbackTransport final : public Transport {
 public:
  LoopbackTransport(LoopbackNet* net, int process);
  int process() const override { return process_; }
  int process_count() const override;
  std::string host(int process) const override { return absl::StrCat("host", process); }
  int64_t Attach(CollectiveHub* collectives, ChannelHub* channels) override;
  void Detach(int64_t run) override;
  void SendContributions(int64_t run, int to_process, const std::string& key, int64_t execution,
                         int64_t first_device,
                         const std::vector<std::pair<int64_t, const Literal*>>& values) override;
  void SendReducePart(int64_t run, int to_process, const std::string& key, int64_t execution,
                      int64_t first_device, int64_t phase,
                      const std::function<void(WireWriter&)>& write) override;
  void SendChannelMessage(int64_t run, int to_process, int64_t channel, int64_t target,
                          const Literal& value) override;
  void ReportFailure(const absl::Status& status) override;
  absl::Status remote_failure() const override;
  int64_t runs() const override;
  TrafficLog traffic() const override;

  RunDesk desk;  // under the net's lock

 private:
  LoopbackNet* net_;
  int process_;
};

// Holds the processes; one lock for all (a test, not a fast path).
class LoopbackNet {
 public:
  explicit LoopbackNet(int processes) {
    for (int p = 0; p < processes; ++p)
      transports.push_back(std::make_unique<LoopbackTransport>(this, p));
  }
  // `run` and `what` name the traffic the sender counts (run < 0: none).
  void Post(int from, int to, WireBuffer bytes, int64_t run = -1, const std::string& what = "") {
    std::lock_guard<std::mutex> lock(mu);
    if (run >= 0) transports[from]->desk.CountSent(run, what, bytes.size());
    transports[to]->desk.Received(from, std::move(bytes));
  }

  std::mutex mu;
  std::vector<std::unique_ptr<LoopbackTransport>> transports;
};

LoopbackTransport::LoopbackTransport(LoopbackNet* net, int process)
    : desk([this](int p) { return host(p); }), net_(net), process_(process) {}

int LoopbackTransport::process_count() const {
  return static_cast<int>(net_->transports.size());
}

int64_t LoopbackTransport::Attach(CollectiveHub* collectives, ChannelHub* channels) {
  std::lock_guard<std::mutex> lock(net_->mu);
  return desk.Attach(collectives, channels);
}

void LoopbackTransport::Detach(int64_t run) {
  std::lock_guard<std::mutex> lock(net_->mu);
  desk.Detach(run);
}

void LoopbackTransport::SendContributions(
    int64_t run, int to_process, const std::string& key, int64_t execution, int64_t first_device,
    const std::vector<std::pair<int64_t, const Literal*>>& values) {
  net_->Post(process_, to_process, EncodeContributions(run, key, execution, first_device, values),
             run, key);
}

void LoopbackTransport::SendReducePart(int64_t run, int to_process, const std::string& key,
                                       int64_t execution, int64_t first_device, int64_t phase,
                                       const std::function<void(WireWriter&)>& write) {
  net_->Post(process_, to_process,
             EncodeReducePart(run, key, execution, first_device, phase, write), run, key);
}

void LoopbackTransport::SendChannelMessage(int64_t run, int to_process, int64_t channel,
                                           int64_t target, const Literal& value) {
  net_->Post(process_, to_process, EncodeChannelMessage(run, channel, target, value), run,
             ChannelTrafficKey(channel));
}

void LoopbackTransport::ReportFailure(const absl::Status& status) {
  for (int p = 0; p < process_count(); ++p)
    if (p != process_) net_->Post(process_, p, EncodeFailure(process_, status.message()));
}

absl::Status LoopbackTransport::remote_failure() const {
  std::lock_guard<std::mutex> lock(net_->mu);
  return desk.failure();
}

int64_t LoopbackTransport::runs() const {
  std::lock_guard<std::mutex> lock(net_->mu);
  return desk.runs();
}

TrafficLog LoopbackTransport::traffic() const {
  std::lock_guard<std::mutex> lock(net_->mu);
  return desk.traffic();
}

// A literal's shape (with layout) and raw bytes: equal strings mean
// bit-identical values.
std::string Bits(const Literal& lit) {
  WireWriter w;
  w.Put(lit);
  return std::string(w.buffer().begin(), w.buffer().end());
}

std::unique_ptr<Module> Parse(const std::string& text) {
  absl::StatusOr<std::unique_ptr<Module>> m = ParseModule(text);
  EXPECT_TRUE(m.ok()) << m.status();
  EXPECT_TRUE(VerifyModule(**m).ok());
  return *std::move(m);
}

// Runs `text` on `processes` loopback processes; returns every device's
// result printed (or the error of the process that failed).
std::vector<std::string> RunSplit(const std::string& text, const std::vector<Literal>& args,
                                  RunOptions options, int processes,
                                  std::vector<absl::Status>* errors = nullptr,
                                  std::vector<TrafficLog>* traffic = nullptr) {
  std::unique_ptr<Module> module = Parse(text);
  LoopbackNet net(processes);
  std::vector<absl::StatusOr<RunResult>> runs(processes, absl::UnknownError("not run"));
  std::vector<std::thread> threads;
  for (int p = 0; p < processes; ++p)
    threads.emplace_back([&, p] {
      RunOptions o = options;
      o.transport = net.transports[p].get();
      runs[p] = RunModule(*module, args, o);
      if (!runs[p].ok()) net.transports[p]->ReportFailure(runs[p].status());
    });
  for (std::thread& t : threads) t.join();
  if (traffic != nullptr)
    for (int p = 0; p < processes; ++p) traffic->push_back(net.transports[p]->traffic());
  std::vector<std::string> out;
  for (int p = 0; p < processes; ++p) {
    if (!runs[p].ok()) {
      if (errors != nullptr) errors->push_back(runs[p].status());
      continue;
    }
    for (const Literal& l : runs[p]->results) out.push_back(Bits(l));
  }
  return out;
}

std::vector<std::string> RunTogether(const std::string& text, const std::vector<Literal>& args,
                                     const RunOptions& options) {
  std::unique_ptr<Module> module = Parse(text);
  absl::StatusOr<RunResult> run = RunModule(*module, args, options);
  EXPECT_TRUE(run.ok()) << run.status();
  std::vector<std::string> out;
  if (run.ok())
    for (const Literal& l : run->results) out.push_back(Bits(l));
  return out;
}

// The reducer of the modules below.
constexpr char kSum[] = R"(
sum {
  lhs = f32[] parameter(0)
  rhs = f32[] parameter(1)
  ROOT out = f32[] add(lhs, rhs)
}
)";

// Every collective family, with groups that cross the process blocks and
// a float sum whose value depends on the combining order.
const std::string kEveryCollective = absl::StrCat("HloModule every, replica_count=4, num_partitions=2\n", kSum, R"(
ENTRY main {
  p = u32[] partition-id()
  r = u32[] replica-id()
  x = f32[4] parameter(0)
  rf = f32[] convert(r)
  big = f32[] constant(1e8)
  w = f32[] multiply(rf, big)
  pf = f32[] convert(p)
  s = f32[] add(w, pf)
  b = f32[4] broadcast(s), dimensions={}
  v = f32[4] add(x, b)
  ar = f32[4] all-reduce(v), replica_groups={}, to_apply=sum
  ars = f32[4] all-reduce(v), channel_id=1, replica_groups={{0,3},{1,2},{4,7},{5,6}}, use_global_device_ids=true, to_apply=sum
  ag = f32[8] all-gather(v), replica_groups={{0,1},{2,3}}, dimensions={0}
  rs = f32[1] reduce-scatter(v), replica_groups={{0,1,2,3}}, dimensions={0}, to_apply=sum
  a2a = f32[4] all-to-all(v), replica_groups={{0,1,2,3}}, dimensions={0}
  cp = f32[4] collective-permute(v), source_target_pairs={{0,3},{3,1},{1,0}}
  cb = f32[4] collective-broadcast(v), replica_groups={{2,0,1,3}}
  t = token[] after-all()
  snd = (f32[4], u32[], token[]) send(v, t), channel_id=5, frontend_attributes={_xla_send_recv_source_target_pairs="{{1,0}}"}
  rcv = (f32[4], u32[], token[]) recv(t), channel_id=5, frontend_attributes={_xla_send_recv_source_target_pairs="{{1,0}}"}
  sd = token[] send-done(snd), channel_id=5
  rd = (f32[4], token[]) recv-done(rcv), channel_id=5
  got = f32[4] get-tuple-element(rd), index=0
  ROOT out = (f32[4], f32[4], f32[8], f32[1], f32[4], f32[4], f32[4], f32[4]) tuple(ar, ars, ag, rs, a2a, cp, cb, got)
}
)");

// `text` (8 devices) split over 2, 4 and 8 processes gives every device
// the bits one process computes.
void ExpectSplitsMatchOneProcess(const std::string& text, const std::vector<Literal>& args) {
  const std::vector<std::string> together = RunTogether(text, args, RunOptions());
  ASSERT_EQ(together.size(), 8u);
  for (int processes : {2, 4, 8}) {
    SCOPED_TRACE(absl::StrCat(processes, " processes"));
    std::vector<absl::Status> errors;
    EXPECT_EQ(RunSplit(text, args, RunOptions(), processes, &errors), together);
    EXPECT_TRUE(errors.empty()) << errors[0];
  }
}

TEST(TransportTest, SplitRunsMatchOneProcessBitForBit) {
  std::vector<Literal> args;
  args.push_back(*ParseLiteral("f32[4] {0.1, 0.2, 0.3, 0.7}"));
  ExpectSplitsMatchOneProcess(kEveryCollective, args);
}

// All-reduces that processes compute slice by slice
// (collectives_sliced.cc): a tuple of two operands, groups in an order
// other than the devices', a reducer without a fast kernel, and arrays
// that do not split evenly (or into fewer elements than processes).
const std::string kSlicedAllReduce = absl::StrCat("HloModule sliced, replica_count=8\n", kSum, R"(
mul_add {
  a = f32[] parameter(0)  b = f32[] parameter(1)
  m = f32[] multiply(a, b)  ROOT s = f32[] add(m, b)
}

ENTRY main {
  x = f32[37] parameter(0)
  y = f32[3] parameter(1)
  r = u32[] replica-id()
  rf = f32[] convert(r)
  big = f32[] constant(1e7)
  w = f32[] multiply(rf, big)
  bx = f32[37] broadcast(w), dimensions={}
  vx = f32[37] add(x, bx)
  by = f32[3] broadcast(rf), dimensions={}
  vy = f32[3] multiply(y, by)
  t = (f32[37], f32[3]) all-reduce(vx, vy), replica_groups={{7,2,5,0,3,6,1,4}}, to_apply=sum
  g = f32[37] all-reduce(vx), replica_groups={{3,2,1,0},{4,5,6,7}}, to_apply=mul_add
  one = f32[3] all-reduce(vy), replica_groups={{1,0,2,3,4,5,6,7}}, to_apply=sum
  ROOT out = ((f32[37], f32[3]), f32[37], f32[3]) tuple(t, g, one)
}
)");

TEST(TransportTest, SlicedAllReduceMatchesOneProcessBitForBit) {
  std::vector<Literal> args;
  Literal x = Literal::Uninitialized(*ParseShape("f32[37]"));
  for (int64_t i = 0; i < 37; ++i) x.SetDouble(i, 0.1 * static_cast<double>(i) + 0.37);
  args.push_back(std::move(x));
  args.push_back(*ParseLiteral("f32[3] {0.3, 0.7, 1.1}"));
  ExpectSplitsMatchOneProcess(kSlicedAllReduce, args);
}

// Slices of over 8 MB travel in pieces (collectives_sliced.cc): every
// piece must land in its place, in the order of the fold.
TEST(TransportTest, SlicedAllReduceInPiecesMatchesOneProcess) {
  const std::string text = absl::StrCat("HloModule pieces, replica_count=4\n", kSum, R"(
ENTRY main {
  i = f32[4200000] iota(), iota_dimension=0
  r = u32[] replica-id()
  rf = f32[] convert(r)
  big = f32[] constant(1e7)
  w = f32[] multiply(rf, big)
  b = f32[4200000] broadcast(w), dimensions={}
  third = f32[] constant(0.3333)
  t = f32[4200000] broadcast(third), dimensions={}
  it = f32[4200000] multiply(i, t)
  v = f32[4200000] add(it, b)
  ROOT ar = f32[4200000] all-reduce(v), replica_groups={{0,1,2,3}}, to_apply=sum
}
)");
  const std::vector<std::string> together = RunTogether(text, {}, RunOptions());
  ASSERT_EQ(together.size(), 4u);
  std::vector<absl::Status> errors;
  std::vector<TrafficLog> traffic;
  // Not EXPECT_EQ: printing two 16 MB values on a mismatch would be huge.
  EXPECT_TRUE(RunSplit(text, {}, RunOptions(), 2, &errors, &traffic) == together)
      << "the split run's bits differ from the single process's";
  EXPECT_TRUE(errors.empty()) << errors[0];
  // 8.4 MB slices: 2 pieces each way.
  ASSERT_EQ(traffic.size(), 2u);
  EXPECT_EQ(traffic[0].begin()->second.sent_messages, 4);
}

// One device per process: each sends the other its half to reduce, then
// its reduced half (what --profile reports per collective).
TEST(TransportTest, AllReduceTrafficIsTwoHalvesEachWay) {
  const std::string text = absl::StrCat("HloModule halves, replica_count=2\n", kSum, R"(
ENTRY main {
  x = f32[1000] parameter(0)
  ROOT ar = f32[1000] all-reduce(x), replica_groups={}, to_apply=sum
}
)");
  std::vector<Literal> args;
  args.push_back(Literal(*ParseShape("f32[1000]")));
  std::vector<TrafficLog> traffic;
  std::vector<absl::Status> errors;
  EXPECT_EQ(RunSplit(text, args, RunOptions(), 2, &errors, &traffic).size(), 2u);
  ASSERT_EQ(traffic.size(), 2u);
  for (const TrafficLog& log : traffic) {
    ASSERT_EQ(log.size(), 1u);
    EXPECT_EQ(log.begin()->first, std::make_pair(int64_t{0}, std::string("main/ar")));
    const Traffic& t = log.begin()->second;
    EXPECT_EQ(t.sent_messages, 2);
    EXPECT_EQ(t.received_messages, 2);
    // 2 x 500 floats, plus headers.
    EXPECT_GE(t.sent_bytes, 4000);
    EXPECT_LT(t.sent_bytes, 4200);
    EXPECT_EQ(t.received_bytes, t.sent_bytes);
  }
}

TEST(TransportTest, UnevenSplitIsAnError) {
  std::vector<Literal> args;
  args.push_back(*ParseLiteral("f32[4] {1, 2, 3, 4}"));
  std::vector<absl::Status> errors;
  EXPECT_TRUE(RunSplit(kEveryCollective, args, RunOptions(), 3, &errors).empty());
  ASSERT_EQ(errors.size(), 3u);
  EXPECT_TRUE(absl::StrContains(errors[0].message(),
                                "the 8 devices (4 replicas x 2 partitions) cannot be split "
                                "evenly over 3 MPI processes"))
      << errors[0];
}

// Replica 0 runs an all-reduce in the true branch of a conditional on
// replica-id; replica 1 runs `other_branch` (root %q2 from parameter %q).
std::string OnlyReplica0Reduces(const std::string& other_branch) {
  return absl::StrCat("HloModule only_replica0, replica_count=2\n", kSum, R"(
with_all_reduce {
  p = f32[2] parameter(0)
  ROOT ar = f32[2] all-reduce(p), replica_groups={}, to_apply=sum
}

other {
  q = f32[2] parameter(0)
  )", other_branch, R"(
}

ENTRY main {
  x = f32[2] parameter(0)
  r = u32[] replica-id()
  zero = u32[] constant(0)
  first = pred[] compare(r, zero), direction=EQ
  ROOT c = f32[2] conditional(first, x, x), true_computation=with_all_reduce, false_computation=other
}
)");
}

// The device in the other process never comes: the timeout names it.
TEST(TransportTest, TimeoutNamesTheDeviceInTheOtherProcess) {
  std::vector<Literal> args;
  args.push_back(*ParseLiteral("f32[2] {1, 2}"));
  RunOptions options;
  options.collective_timeout_seconds = 0.2;
  std::vector<absl::Status> errors;
  RunSplit(OnlyReplica0Reduces("ROOT q2 = f32[2] negate(q)"), args, options, 2, &errors);
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_TRUE(absl::StrContains(errors[0].message(),
                                "collective %ar timed out waiting for devices 1 after 0.2 s"))
      << errors[0];
}

TEST(TransportTest, FailureInOneProcessAbortsTheOther) {
  // Device 1 (process 1) runs a custom-call nobody implements; device 0
  // waits in the all-reduce and must stop with process 1's cause at once,
  // not after the timeout.
  const std::string fails = OnlyReplica0Reduces(
      "ROOT q2 = f32[2] custom-call(q), custom_call_target=\"no_such_target_on_any_device\"");
  std::vector<Literal> args;
  args.push_back(*ParseLiteral("f32[2] {1, 2}"));
  RunOptions options;
  options.collective_timeout_seconds = 30;
  std::vector<absl::Status> errors;
  const auto start = std::chrono::steady_clock::now();
  RunSplit(fails, args, options, 2, &errors);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(20));
  ASSERT_EQ(errors.size(), 2u);
  for (const absl::Status& st : errors)
    EXPECT_TRUE(absl::StrContains(st.message(), "no_such_target_on_any_device")) << st;
}

TEST(LiteralWireTest, RoundTripsTuplesLayoutsAndEmpty) {
  Literal a = *ParseLiteral("f32[2,3] {{1, 2, 3}, {4, 5, 6}}");
  Layout column_major;
  column_major.minor_to_major = {0, 1};
  Literal relaid = a.Relayout(column_major);
  std::vector<Literal> elements;
  elements.push_back(relaid);
  elements.push_back(*ParseLiteral("s8[0] {}"));
  elements.push_back(Literal());
  Literal t = Literal::MakeTuple(std::move(elements));
  WireWriter w;
  w.Put(t);
  w.Int(-7);
  const absl::string_view bytes(w.buffer().data(), w.buffer().size());
  WireReader r(bytes);
  absl::StatusOr<Literal> back = r.Get();
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(*r.Int(), -7);
  EXPECT_TRUE(r.done());
  ASSERT_EQ(back->tuple_elements().size(), 3u);
  EXPECT_EQ(ShapeToString(back->tuple_elements()[0].shape(), true),
            ShapeToString(relaid.shape(), true));
  EXPECT_EQ(LiteralToString(back->tuple_elements()[0]), LiteralToString(relaid));
  EXPECT_FALSE(back->tuple_elements()[2].shape().IsValid());
  // A truncated buffer is an error, never a crash.
  WireReader cut(bytes.substr(0, bytes.size() / 2));
  EXPECT_FALSE(cut.Get().ok());
}

}  // namespace
}  // namespace hlo::cpu
