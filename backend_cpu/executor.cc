#include "backend_cpu/executor.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <mutex>
#include <thread>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "backend_cpu/collectives.h"
#include "backend_cpu/custom_call.h"
#include "backend_cpu/op_eval.h"
#include "backend_cpu/profile.h"
#include "ir/printer.h"
#include "ir/verifier.h"
#include "parser/parser.h"

namespace hlo::cpu {
namespace {

// Bytes held by a value (tuples: their elements).
int64_t LiteralBytes(const Literal& lit) {
  int64_t n = static_cast<int64_t>(lit.size_bytes());
  for (const Literal& e : lit.tuple_elements()) n += LiteralBytes(e);
  return n;
}

// The schedule of one computation: instructions with operands (and control
// predecessors) first, and for every position the values whose last use it
// is, so they are released right after it.
struct ComputationPlan {
  std::vector<const Instruction*> order;
  std::vector<std::vector<int>> operand_positions;
  std::vector<std::vector<int>> release_after;
  // For ops that return their operand unchanged (ForwardsOperand), the
  // operand's position; -1 otherwise. forward_at_last_use: that operand's
  // last use is this op (and it is not the root), so it may be moved.
  std::vector<int> forwards;
  std::vector<bool> forward_at_last_use;
  int root = -1;
};

ComputationPlan MakePlan(const Computation& computation) {
  ComputationPlan plan;
  for (const Instruction* instr : computation.MakePostOrder()) plan.order.push_back(instr);
  absl::flat_hash_map<const Instruction*, int> position;
  for (size_t i = 0; i < plan.order.size(); ++i) position[plan.order[i]] = static_cast<int>(i);
  const int n = static_cast<int>(plan.order.size());
  plan.operand_positions.resize(n);
  plan.release_after.resize(n);
  std::vector<int> last_use(n, -1);
  for (int i = 0; i < n; ++i) {
    for (const Instruction* op : plan.order[i]->operands()) {
      auto it = position.find(op);
      int p = it == position.end() ? -1 : it->second;
      plan.operand_positions[i].push_back(p);
      if (p >= 0) last_use[p] = i;
    }
  }
  plan.root = computation.root() ? position[computation.root()] : -1;
  for (int i = 0; i < n; ++i) {
    if (i == plan.root) continue;
    // A value nobody reads is released right after it is made.
    plan.release_after[last_use[i] >= 0 ? last_use[i] : i].push_back(i);
  }
  plan.forwards.assign(n, -1);
  plan.forward_at_last_use.assign(n, false);
  for (int i = 0; i < n; ++i) {
    if (!ForwardsOperand(*plan.order[i])) continue;
    const int src = plan.operand_positions[i][0];
    plan.forwards[i] = src;
    plan.forward_at_last_use[i] = src >= 0 && src != plan.root && last_use[src] == i;
  }
  return plan;
}

// Immutable after construction: shared by the device threads.
class Program {
 public:
  explicit Program(const Module& module) {
    for (const Computation* c : module.computations()) plans_.emplace(c, MakePlan(*c));
  }
  const ComputationPlan* PlanFor(const Computation& c) const {
    auto it = plans_.find(&c);
    return it == plans_.end() ? nullptr : &it->second;
  }

 private:
  absl::flat_hash_map<const Computation*, ComputationPlan> plans_;
};

// One replica/partition. Ops may call computations from several pool
// threads at once (e.g. a parallel map), so the bookkeeping is thread-safe.
struct Device {
  const Program* program = nullptr;
  Profiler* profiler = nullptr;  // device 0 only, when profiling
  OpContext ctx;
  uint64_t rng_state = 0;
  std::atomic<int64_t> live_bytes{0};
  std::atomic<int64_t> peak_bytes{0};
  std::mutex notes_mutex;
  std::vector<std::string> notes;

  void Allocated(int64_t bytes) {
    const int64_t now = live_bytes.fetch_add(bytes) + bytes;
    int64_t peak = peak_bytes.load();
    while (now > peak && !peak_bytes.compare_exchange_weak(peak, now)) {
    }
  }
  void Released(int64_t bytes) { live_bytes.fetch_sub(bytes); }
  void Note(std::string note) {
    std::lock_guard<std::mutex> lock(notes_mutex);
    if (notes.size() < 64 && std::find(notes.begin(), notes.end(), note) == notes.end())
      notes.push_back(std::move(note));
  }
};

// Nesting depth of computation calls on this thread (guards against
// runaway recursion through called computations).
thread_local int call_depth = 0;

// Profiling state of this thread. Instructions of computations called by
// control flow (while, conditional, call) are profiled one by one; those a
// kernel calls (reducers, comparators, map bodies) are part of their op.
thread_local bool profile_suspended = false;
thread_local double profile_nested_seconds = 0;

bool CallsAreProfiled(Opcode op) {
  return op == Opcode::kWhile || op == Opcode::kConditional || op == Opcode::kCall ||
         op == Opcode::kAsyncStart || op == Opcode::kAsyncDone;
}

double NowSeconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

std::string LineSuffix(const Instruction& instr) {
  return instr.loc().line > 0 ? absl::StrCat(" (line ", instr.loc().line, ")") : std::string();
}

// Identity-like ops (plan.forwards) pass their operand on instead of
// copying it: by reference when it lives for the whole call (arguments,
// constants), by move at its last use. False: evaluate the op as usual.
bool Forward(const ComputationPlan& plan, int i, std::vector<Literal>& owned,
             std::vector<const Literal*>& value) {
  const int src = plan.forwards[i];
  if (src < 0 || value[src] == nullptr) return false;
  if (value[src] != &owned[src]) {
    value[i] = value[src];
    return true;
  }
  if (!plan.forward_at_last_use[i]) return false;
  owned[i] = std::move(owned[src]);
  owned[src] = Literal();
  value[i] = &owned[i];
  value[src] = nullptr;
  return true;
}

absl::StatusOr<Literal> Evaluate(const Computation& computation,
                                 absl::Span<const Literal* const> args, Device& device) {
  const ComputationPlan* plan = device.program->PlanFor(computation);
  if (plan == nullptr)
    return absl::InternalError(absl::StrCat("computation ", computation.name(), " has no plan"));
  if (static_cast<int64_t>(args.size()) != computation.num_parameters())
    return absl::InvalidArgumentError(absl::StrCat("computation ", computation.name(), " takes ",
                                                   computation.num_parameters(),
                                                   " arguments, got ", args.size()));
  if (call_depth >= 256) return absl::InvalidArgumentError("computations nested more than 256 deep");
  ++call_depth;
  const int n = static_cast<int>(plan->order.size());
  std::vector<Literal> owned(n);
  std::vector<const Literal*> value(n, nullptr);
  std::vector<const Literal*> operands;
  absl::Status status;
  for (int i = 0; i < n && status.ok(); ++i) {
    const Instruction& instr = *plan->order[i];
    if (instr.opcode() == Opcode::kParameter) {
      const int64_t k = instr.parameter_number();
      if (k < 0 || k >= static_cast<int64_t>(args.size())) {
        status = absl::InvalidArgumentError(absl::StrCat("parameter ", k, " out of range"));
        break;
      }
      value[i] = args[k];
    } else if (instr.opcode() == Opcode::kConstant && instr.has_literal()) {
      if (instr.literal().elided())
        device.Note(absl::StrCat("constant %", instr.name(),
                                 " is elided ({...}) in the text; it was filled "
                                 "with deterministic values"));
      value[i] = &instr.literal();
    } else if (Forward(*plan, i, owned, value)) {
      if (device.profiler != nullptr && !profile_suspended) device.profiler->Record(instr, 0, 0, 0);
    } else {
      operands.clear();
      for (int p : plan->operand_positions[i]) operands.push_back(p >= 0 ? value[p] : nullptr);
      if (std::find(operands.begin(), operands.end(), nullptr) != operands.end()) {
        status = absl::InternalError(absl::StrCat("%", instr.name(), ": operand not scheduled"));
        break;
      }
      const bool profiled = device.profiler != nullptr && !profile_suspended;
      double start = 0, outer_nested = 0;
      if (profiled) {
        outer_nested = profile_nested_seconds;
        profile_nested_seconds = 0;
        profile_suspended = !CallsAreProfiled(instr.opcode());
        start = NowSeconds();
      }
      absl::StatusOr<Literal> r = FamilyOf(instr.opcode())(instr, operands, device.ctx);
      if (profiled) {
        const double elapsed = NowSeconds() - start;
        profile_suspended = false;
        int64_t read = 0;
        for (const Literal* o : operands) read += LiteralBytes(*o);
        device.profiler->Record(instr, elapsed - profile_nested_seconds, read,
                                r.ok() ? LiteralBytes(*r) : 0);
        profile_nested_seconds = outer_nested + elapsed;
      }
      if (!r.ok()) {
        // Errors from nested computations already name their instruction.
        status = r.status();
        // Only the innermost failing instruction names its line.
        if (!absl::StrContains(status.message(), "(line "))
          status = absl::Status(status.code(),
                                absl::StrCat(status.message(), LineSuffix(instr)));
        break;
      }
      owned[i] = *std::move(r);
      value[i] = &owned[i];
      device.Allocated(LiteralBytes(owned[i]));
    }
    for (int dead : plan->release_after[i]) {
      if (value[dead] == &owned[dead]) {
        device.Released(LiteralBytes(owned[dead]));
        owned[dead].Clear();
      }
      value[dead] = nullptr;
    }
  }
  --call_depth;
  if (!status.ok()) return status;
  if (plan->root < 0) return absl::InvalidArgumentError("computation without a root");
  const int r = plan->root;
  if (value[r] == &owned[r]) {
    device.Released(LiteralBytes(owned[r]));
    return std::move(owned[r]);
  }
  return *value[r];
}

// Checks the argument against the parameter (element type and dims) and,
// when its layout differs, stores a relaid copy in `*converted` and returns
// true; false means the argument can be used as it is.
absl::StatusOr<bool> ConvertArgument(const Literal& arg, const Instruction& param,
                                     Literal* converted) {
  const Shape& want = param.shape();
  if (!arg.shape().Compatible(want))
    return absl::InvalidArgumentError(
        absl::StrCat("argument for parameter ", param.parameter_number(), " (%", param.name(),
                     ") has shape ", ShapeToString(arg.shape(), false), " but the parameter is ",
                     ShapeToString(want, false)));
  if (want.IsArray()) {
    if (arg.shape().layout() == want.layout()) return false;
    *converted = arg.Relayout(want.layout());
    return true;
  }
  if (!want.IsTuple()) return false;
  bool same = true;
  for (size_t i = 0; i < want.tuple_shapes().size(); ++i) {
    const Shape& e = arg.tuple_elements()[i].shape();
    if (e.IsArray() && e.layout() != want.tuple_shapes()[i].layout()) same = false;
  }
  if (same) return false;
  std::vector<Literal> elems;
  for (size_t i = 0; i < want.tuple_shapes().size(); ++i) {
    const Literal& e = arg.tuple_elements()[i];
    elems.push_back(e.shape().IsArray() ? ToLayout(e, want.tuple_shapes()[i].layout()) : e);
  }
  *converted = Literal::MakeTuple(std::move(elems));
  return true;
}

}  // namespace

absl::StatusOr<RunResult> RunModule(const Module& module, absl::Span<const Literal> args,
                                    const RunOptions& options) {
  const Computation* entry = module.entry();
  if (entry == nullptr) return absl::InvalidArgumentError("the module has no entry computation");
  if (static_cast<int64_t>(args.size()) != entry->num_parameters())
    return absl::InvalidArgumentError(absl::StrCat("the entry computation takes ",
                                                   entry->num_parameters(), " arguments, got ",
                                                   args.size()));
  // Arguments are used in place unless their layout must change.
  std::vector<Literal> converted(args.size());
  std::vector<const Literal*> arg_ptrs;
  for (size_t i = 0; i < args.size(); ++i) {
    absl::StatusOr<bool> relaid = ConvertArgument(args[i], *entry->parameter(i), &converted[i]);
    if (!relaid.ok()) return relaid.status();
    arg_ptrs.push_back(*relaid ? &converted[i] : &args[i]);
  }

  const int64_t replicas =
      options.replica_count > 0 ? options.replica_count : std::max<int64_t>(1, module.header().replica_count);
  const int64_t partitions = options.partition_count > 0
                                 ? options.partition_count
                                 : std::max<int64_t>(1, module.header().num_partitions);
  const int64_t devices = replicas * partitions;
  if (devices > 1024) return absl::InvalidArgumentError("more than 1024 devices requested");

  Program program(module);
  CollectiveHub collectives(replicas, partitions);
  ChannelHub channels(options.infeed, options.infeed_fallback);

  std::vector<Device> device(devices);
  std::vector<absl::StatusOr<Literal>> results(devices, absl::UnknownError("not run"));
  for (int64_t d = 0; d < devices; ++d) {
    Device& dev = device[d];
    dev.program = &program;
    dev.profiler = d == 0 ? options.profiler : nullptr;
    dev.rng_state = options.rng_seed;
    dev.ctx.replica_id = d / partitions;
    dev.ctx.partition_id = d % partitions;
    dev.ctx.replica_count = replicas;
    dev.ctx.partition_count = partitions;
    dev.ctx.collectives = &collectives;
    dev.ctx.channels = &channels;
    dev.ctx.rng_state = &dev.rng_state;
    dev.ctx.notes = &dev.notes;
    dev.ctx.call = [&dev](const Computation& c, absl::Span<const Literal* const> a) {
      return Evaluate(c, a, dev);
    };
  }
  const double run_start = NowSeconds();
  if (devices == 1) {
    results[0] = Evaluate(*entry, arg_ptrs, device[0]);
  } else {
    std::vector<std::thread> threads;
    for (int64_t d = 0; d < devices; ++d)
      threads.emplace_back([&, d] {
        results[d] = Evaluate(*entry, arg_ptrs, device[d]);
        // Peers waiting for this device in a collective or a recv must not
        // wait forever: wake them with the error.
        if (!results[d].ok()) {
          collectives.Abort(results[d].status());
          channels.Abort(results[d].status());
        }
      });
    for (std::thread& t : threads) t.join();
  }
  // Report the device that failed first, not a peer aborted because of it.
  auto is_secondary = [&](int64_t d) {
    return absl::StartsWith(results[d].status().message(), "aborted because");
  };
  int64_t failed = -1;
  for (int64_t d = 0; d < devices; ++d) {
    if (results[d].ok()) continue;
    if (failed < 0 || (is_secondary(failed) && !is_secondary(d))) failed = d;
  }
  if (failed >= 0) {
    const absl::Status& st = results[failed].status();
    if (devices == 1) return st;
    return absl::Status(st.code(), absl::StrCat("device ", failed, " (replica ", failed / partitions,
                                                ", partition ", failed % partitions, "): ",
                                                st.message()));
  }
  if (options.profiler != nullptr) options.profiler->AddRun(NowSeconds() - run_start);
  RunResult out;
  for (int64_t d = 0; d < devices; ++d) out.results.push_back(*std::move(results[d]));
  out.peak_bytes = device[0].peak_bytes.load();
  out.notes = device[0].notes;
  out.outfeed = channels.TakeOutfeed();
  return out;
}

absl::StatusOr<RunResult> RunHloTextOnAllDevices(absl::string_view hlo_text,
                                                 absl::Span<const std::string> arg_literals,
                                                 const RunOptions& options) {
  absl::StatusOr<std::unique_ptr<Module>> module = ParseModule(hlo_text);
  if (!module.ok()) return module.status();
  absl::Status verified = VerifyModule(**module);
  if (!verified.ok()) return verified;
  std::vector<Literal> args;
  for (const std::string& text : arg_literals) {
    absl::StatusOr<Literal> lit = ParseLiteral(text);
    if (!lit.ok()) return lit.status();
    args.push_back(*std::move(lit));
  }
  return RunModule(**module, args, options);
}

absl::StatusOr<Literal> RunHloText(absl::string_view hlo_text,
                                   absl::Span<const std::string> arg_literals,
                                   const RunOptions& options) {
  absl::StatusOr<RunResult> run = RunHloTextOnAllDevices(hlo_text, arg_literals, options);
  if (!run.ok()) return run.status();
  return std::move(run->results[0]);
}

}  // namespace hlo::cpu
