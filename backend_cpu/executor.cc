#include "backend_cpu/executor.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <mutex>
#include <thread>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "backend_cpu/collective_wait.h"
#include "backend_cpu/collectives.h"
#include "backend_cpu/custom_call.h"
#include "backend_cpu/decoded_constants.h"
#include "backend_cpu/donation.h"
#include "backend_cpu/dynamic_padding.h"
#include "backend_cpu/float_mode.h"
#include "backend_cpu/fusion_exec.h"
#include "backend_cpu/op_eval.h"
#include "backend_cpu/precision_conform.h"
#include "backend_cpu/profile.h"
#include "backend_cpu/schedule.h"
#include "backend_cpu/transport.h"
#include "ir/call_graph_copy.h"
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
  // donatable[i][j]: operand j of instruction i is read last there (in its
  // last operand slot of i, and is not the root), so when the computation
  // owns its value the kernel may take it (donation.h) after reading the
  // earlier slots.
  std::vector<std::vector<bool>> donatable;
  // For get-tuple-element: no other instruction reads that element of the
  // tuple (every user of the tuple is a get-tuple-element of another
  // index), so an owned tuple may give the element up by move.
  std::vector<bool> takes_element;
  int root = -1;
};

ComputationPlan MakePlan(const Computation& computation) {
  ComputationPlan plan;
  plan.order = ScheduleForInPlaceUpdates(computation);
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
  plan.donatable.resize(n);
  for (int i = 0; i < n; ++i) {
    const std::vector<int>& ops = plan.operand_positions[i];
    for (size_t j = 0; j < ops.size(); ++j) {
      const int p = ops[j];
      // Only a value's last slot: earlier slots holding the same value
      // are read (e.g. copied into a tuple) before the kernel takes it.
      plan.donatable[i].push_back(p >= 0 && p != plan.root && last_use[p] == i &&
                                  std::find(ops.begin() + j + 1, ops.end(), p) == ops.end());
    }
  }
  plan.takes_element.assign(n, false);
  for (int i = 0; i < n; ++i) {
    const Instruction& gte = *plan.order[i];
    const int src = plan.operand_positions[i].empty() ? -1 : plan.operand_positions[i][0];
    if (gte.opcode() != Opcode::kGetTupleElement || src < 0 || src == plan.root) continue;
    const int64_t index = gte.AttrOr<int64_t>("index", -1);
    bool alone = true;
    for (const Instruction* user : plan.order[src]->users())
      if (user != &gte && (user->opcode() != Opcode::kGetTupleElement ||
                           user->AttrOr<int64_t>("index", -2) == index))
        alone = false;
    plan.takes_element[i] = alone;
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

}  // namespace

// The schedules of every computation of a module. Immutable after
// construction: shared by the device threads and by concurrent runs of one
// Executable.
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

namespace {

// One replica/partition. Ops may call computations from several pool
// threads at once (e.g. a parallel map), so the bookkeeping is thread-safe.
struct Device {
  const Program* program = nullptr;
  Profiler* profiler = nullptr;  // device 0 only, when profiling
  OpContext ctx;
  uint64_t rng_state = 0;
  std::atomic<int64_t> live_bytes{0};
  std::atomic<int64_t> peak_bytes{0};
  std::atomic<int64_t> while_trips_left{0};
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

// set-dimension-size to a size below the bound: XLA's later ops read only
// the first `size` elements of that dimension; this backend runs static
// shapes, so they read all of them (docs/ops-data-movement.md). Said on
// stderr rather than silently giving other values.
void NoteRuntimeDimensionSize(const Instruction& instr, absl::Span<const Literal* const> operands,
                              Device& device) {
  const std::vector<int64_t> dims = instr.AttrOr<std::vector<int64_t>>("dimensions", {});
  if (operands.size() != 2 || dims.size() != 1 || !operands[0]->shape().IsArray() ||
      dims[0] < 0 || dims[0] >= operands[0]->shape().rank() || operands[1]->shape().rank() != 0 ||
      !IsInteger(operands[1]->shape().element_type()))
    return;  // the kernel reports malformed ones
  const int64_t bound = operands[0]->shape().dim(dims[0]);
  const int64_t size = operands[1]->GetInt(0);
  if (size >= bound) return;
  device.Note(absl::StrCat("set-dimension-size %", instr.name(), " sets dimension ", dims[0], " to ", size,
                           " of its ", bound, " elements at run time; this backend runs static shapes, so "
                           "later instructions still read all ", bound, " (XLA reads the first ", size,
                           "; docs/ops-data-movement.md)"));
}

// Nesting depth of computation calls on this thread (guards against
// runaway recursion through called computations).
thread_local int call_depth = 0;

// Profiling state of this thread. Instructions of computations called by
// control flow (while, conditional, call) are profiled one by one; those a
// kernel calls (reducers, comparators, map bodies) are part of their op.
thread_local bool profile_suspended = false;
thread_local double profile_nested_seconds = 0;
// Of profile_nested_seconds, the time nested rows spent waiting for other
// devices (collective_wait.h); the rest of a row's wait is its own.
thread_local double profile_nested_wait = 0;

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

// The values of one computation call: owned[i] holds what instruction i
// made (or an argument handed over), value[i] points at instruction i's
// value wherever it lives (owned[i], an argument, a constant), and bytes[i]
// is what owned[i] counts in the device's live bytes.
struct Frame {
  explicit Frame(int n) : owned(n), value(n, nullptr), bytes(n, 0) {}
  bool Owns(int i) const { return value[i] == &owned[i]; }
  // Moves owned[from] into owned[to] (with its byte count).
  void Move(int from, int to) {
    owned[to] = std::move(owned[from]);
    owned[from] = Literal();
    value[to] = &owned[to];
    value[from] = nullptr;
    bytes[to] = bytes[from];
    bytes[from] = 0;
  }
  std::vector<Literal> owned;
  std::vector<const Literal*> value;
  std::vector<int64_t> bytes;
};

// Identity-like ops (plan.forwards) pass their operand on instead of
// copying it: by reference when it lives for the whole call (arguments,
// constants), by move at its last use. False: evaluate the op as usual.
bool Forward(const ComputationPlan& plan, int i, Frame& frame) {
  const int src = plan.forwards[i];
  if (src < 0 || frame.value[src] == nullptr) return false;
  if (!frame.Owns(src)) {
    frame.value[i] = frame.value[src];
    return true;
  }
  if (!plan.forward_at_last_use[i]) return false;
  frame.Move(src, i);
  return true;
}

// get-tuple-element of an owned tuple whose element no one else reads
// (plan.takes_element): moves the element out instead of copying it.
bool TakeElement(const ComputationPlan& plan, int i, Frame& frame) {
  if (!plan.takes_element[i]) return false;
  const int src = plan.operand_positions[i][0];
  if (!frame.Owns(src) || !frame.owned[src].IsTuple()) return false;
  const Instruction& instr = *plan.order[i];
  const int64_t index = instr.AttrOr<int64_t>("index", -1);
  std::vector<Literal>& elems = frame.owned[src].mutable_tuple_elements();
  if (index < 0 || index >= static_cast<int64_t>(elems.size()) ||
      !elems[index].shape().Compatible(instr.shape()))
    return false;
  frame.owned[i] = ConformLayouts(std::move(elems[index]), instr.shape());
  elems[index] = Literal();
  frame.value[i] = &frame.owned[i];
  frame.bytes[i] = LiteralBytes(frame.owned[i]);
  frame.bytes[src] = std::max<int64_t>(0, frame.bytes[src] - frame.bytes[i]);
  return true;
}

// `owned_args`, when not empty, hands arguments over (one entry per
// parameter, nullptr for one that is only lent): the computation may move
// from them like from its own values.
absl::StatusOr<Literal> Evaluate(const Computation& computation,
                                 absl::Span<const Literal* const> args,
                                 absl::Span<Literal* const> owned_args, Device& device) {
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
  Frame frame(n);
  std::vector<const Literal*> operands;
  std::vector<Literal*> donated;
  absl::Status status;
  for (int i = 0; i < n && status.ok(); ++i) {
    const Instruction& instr = *plan->order[i];
    if (instr.opcode() == Opcode::kParameter) {
      const int64_t k = instr.parameter_number();
      if (k < 0 || k >= static_cast<int64_t>(args.size())) {
        status = absl::InvalidArgumentError(absl::StrCat("parameter ", k, " out of range"));
        break;
      }
      if (k >= static_cast<int64_t>(owned_args.size()) || owned_args[k] == nullptr) {
        frame.value[i] = args[k];
      } else {
        frame.owned[i] = std::move(*owned_args[k]);
        *owned_args[k] = Literal();
        frame.value[i] = &frame.owned[i];
        frame.bytes[i] = LiteralBytes(frame.owned[i]);
        device.Allocated(frame.bytes[i]);
      }
    } else if (instr.opcode() == Opcode::kConstant && instr.has_literal()) {
      if (instr.literal().elided())
        device.Note(absl::StrCat("constant %", instr.name(),
                                 " is elided ({...}) in the text; it was filled "
                                 "with deterministic values"));
      frame.value[i] = &instr.literal();
    } else if (Forward(*plan, i, frame) || TakeElement(*plan, i, frame)) {
      if (device.profiler != nullptr && !profile_suspended) device.profiler->Record(instr, 0, 0, 0);
    } else {
      operands.clear();
      donated.clear();
      const std::vector<int>& positions = plan->operand_positions[i];
      for (size_t j = 0; j < positions.size(); ++j) {
        const int p = positions[j];
        operands.push_back(p >= 0 ? frame.value[p] : nullptr);
        donated.push_back(p >= 0 && plan->donatable[i][j] && frame.Owns(p) ? &frame.owned[p]
                                                                             : nullptr);
      }
      if (std::find(operands.begin(), operands.end(), nullptr) != operands.end()) {
        status = absl::InternalError(absl::StrCat("%", instr.name(), ": operand not scheduled"));
        break;
      }
      if (instr.opcode() == Opcode::kSetDimensionSize) NoteRuntimeDimensionSize(instr, operands, device);
      const bool profiled = device.profiler != nullptr && !profile_suspended;
      double start = 0, outer_nested = 0, outer_wait = 0, wait_start = 0;
      int64_t read = 0;
      if (profiled) {
        // Counted before the kernel: it may take donated operands.
        for (const Literal* o : operands) read += LiteralBytes(*o);
        outer_nested = profile_nested_seconds;
        profile_nested_seconds = 0;
        outer_wait = profile_nested_wait;
        profile_nested_wait = 0;
        wait_start = CollectiveWaitSeconds();
        profile_suspended = !CallsAreProfiled(instr.opcode());
        start = NowSeconds();
      }
      absl::StatusOr<Literal> r;
      {
        // A taken operand's bytes now belong to the kernel's result.
        auto taken = [&](size_t j) {
          const int p = positions[j];
          device.Released(frame.bytes[p]);
          frame.bytes[p] = 0;
        };
        ScopedDonations scope(donated, taken);
        r = FamilyOf(instr.opcode())(instr, operands, device.ctx);
      }
      if (profiled) {
        const double elapsed = NowSeconds() - start;
        const double waited = CollectiveWaitSeconds() - wait_start;
        const double own_wait = std::max(0.0, waited - profile_nested_wait);
        profile_suspended = false;
        device.profiler->Record(instr, elapsed - profile_nested_seconds - own_wait, read,
                                r.ok() ? LiteralBytes(*r) : 0, own_wait);
        profile_nested_seconds = outer_nested + elapsed;
        profile_nested_wait = outer_wait + waited;
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
      // Consumers read the types the instruction declares (the verifier
      // lets them differ in float precision from what the op computed).
      if (!SameElementTypes(r->shape(), instr.shape())) {
        r = ConformElementTypes(*std::move(r), instr.shape());
        if (!r.ok()) {
          status = r.status();
          break;
        }
      }
      frame.owned[i] = *std::move(r);
      frame.value[i] = &frame.owned[i];
      frame.bytes[i] = LiteralBytes(frame.owned[i]);
      device.Allocated(frame.bytes[i]);
    }
    for (int dead : plan->release_after[i]) {
      if (frame.Owns(dead)) {
        device.Released(frame.bytes[dead]);
        frame.bytes[dead] = 0;
        frame.owned[dead].Clear();
      }
      frame.value[dead] = nullptr;
    }
  }
  --call_depth;
  if (!status.ok()) return status;
  if (plan->root < 0) return absl::InvalidArgumentError("computation without a root");
  const int r = plan->root;
  if (frame.Owns(r)) {
    device.Released(frame.bytes[r]);
    return std::move(frame.owned[r]);
  }
  return *frame.value[r];
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
    *converted = RelayoutOnPool(arg, want.layout());
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

// "device D (replica R, partition P)", for messages.
std::string DeviceName(int64_t device, int64_t partitions) {
  return absl::StrCat("device ", device, " (replica ", device / partitions, ", partition ",
                      device % partitions, ")");
}

// The hubs of one run connected to the other processes (if any) for the
// run's lifetime; a device that fails first tells them at once, so their
// devices stop waiting for this process.
class RemoteRun {
 public:
  RemoteRun(Transport* transport, CollectiveHub& collectives, ChannelHub& channels,
            int64_t devices)
      : transport_(transport) {
    if (transport_ == nullptr) return;
    run_ = transport_->Attach(&collectives, &channels);
    collectives.Connect(transport_, run_);
    channels.Connect(transport_, run_, devices);
  }
  ~RemoteRun() {
    if (transport_ != nullptr) transport_->Detach(run_);
  }
  void Failed(int64_t device, int64_t partitions, const absl::Status& status) {
    if (transport_ == nullptr || absl::StartsWith(status.message(), "aborted because")) return;
    transport_->ReportFailure(absl::Status(
        status.code(), absl::StrCat(DeviceName(device, partitions), ": ", status.message())));
  }

 private:
  Transport* transport_;
  int64_t run_ = 0;
};

}  // namespace

DeviceGrid DeviceGridOf(const Module& module, const RunOptions& options) {
  DeviceGrid g;
  g.replicas = options.replica_count > 0 ? options.replica_count
                                         : std::max<int64_t>(1, module.header().replica_count);
  g.partitions = options.partition_count > 0 ? options.partition_count
                                             : std::max<int64_t>(1, module.header().num_partitions);
  return g;
}

absl::Status CheckDeviceSplit(const DeviceGrid& grid, int processes) {
  const int64_t devices = grid.replicas * grid.partitions;
  if (processes > 0 && devices % processes == 0) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat(
      "the ", devices, " devices (", grid.replicas, " replicas x ", grid.partitions,
      " partitions) cannot be split evenly over ", processes,
      " MPI processes: run a number of processes that divides ", devices));
}

namespace {
// Runtime dimension sizes are given meaning on a copy (dynamic_padding.h),
// so every caller (hlo-run --no-opt, the Python module, tests) gets XLA's
// values, not only modules that went through -O.
std::unique_ptr<Module> PaddedCopy(const Module& module) {
  if (!HasSetDimensionSize(module)) return nullptr;
  std::unique_ptr<Module> copy = CloneModule(module);
  PadDynamicDimensions(*copy);
  return copy;
}
}  // namespace

Executable::Executable(const Module& module)
    : padded_(PaddedCopy(module)),
      module_(padded_ != nullptr ? *padded_ : module),
      program_(std::make_unique<Program>(module_)),
      fusion_plans_(std::make_unique<FusionPlans>(module_)),
      decoded_constants_(std::make_unique<DecodedConstants>(module_)) {}

Executable::~Executable() = default;

absl::StatusOr<RunResult> RunModule(const Module& module, absl::Span<const Literal> args,
                                    const RunOptions& options) {
  return Executable(module).Run(args, options);
}

absl::StatusOr<RunResult> Executable::Run(absl::Span<const Literal> args,
                                          const RunOptions& options) const {
  // Denormals flushed, as XLA:CPU runs (float_mode.h); restored on return.
  ScopedFlushDenormals flush_denormals;
  const Module& module = module_;
  const Computation* entry = module.entry();
  if (entry == nullptr) return absl::InvalidArgumentError("the module has no entry computation");
  if (static_cast<int64_t>(args.size()) != entry->num_parameters())
    return absl::InvalidArgumentError(absl::StrCat("the entry computation takes ",
                                                   entry->num_parameters(), " arguments, got ",
                                                   args.size()));
  // Arguments are used in place unless their layout must change. Donated
  // ones (single device) are handed to the entry computation.
  if (!options.donated_args.empty() && options.donated_args.size() != args.size())
    return absl::InvalidArgumentError("donated_args must have one entry per argument");
  std::vector<Literal> converted(args.size());
  std::vector<const Literal*> arg_ptrs;
  std::vector<Literal*> donated;
  for (size_t i = 0; i < args.size(); ++i) {
    Literal* given = options.donated_args.empty() ? nullptr : options.donated_args[i];
    const Literal& arg = given != nullptr ? *given : args[i];
    absl::StatusOr<bool> relaid = ConvertArgument(arg, *entry->parameter(i), &converted[i]);
    if (!relaid.ok()) return relaid.status();
    arg_ptrs.push_back(*relaid ? &converted[i] : &arg);
    donated.push_back(given == nullptr ? nullptr : *relaid ? &converted[i] : given);
  }

  const DeviceGrid grid = DeviceGridOf(module, options);
  const int64_t replicas = grid.replicas;
  const int64_t partitions = grid.partitions;
  const int64_t devices = replicas * partitions;
  if (devices > 1024) return absl::InvalidArgumentError("more than 1024 devices requested");
  // Every device reads the same arguments: none may take them.
  if (devices > 1) donated.assign(donated.size(), nullptr);

  // Under a transport this process runs one contiguous block of devices.
  const int processes = options.transport != nullptr ? options.transport->process_count() : 1;
  if (absl::Status st = CheckDeviceSplit(grid, processes); !st.ok()) return st;
  const int64_t local = devices / processes;
  const int64_t first =
      options.transport != nullptr ? options.transport->process() * local : 0;
  const double timeout = options.collective_timeout_seconds > 0
                             ? options.collective_timeout_seconds
                             : kCollectiveTimeoutSeconds;

  const Program& program = *program_;
  const FusionPlans* fusion_plans = options.fused_execution ? fusion_plans_.get() : nullptr;
  CollectiveHub collectives(replicas, partitions, timeout);
  ChannelHub channels(options.infeed, options.infeed_fallback, timeout);
  RemoteRun remote(options.transport, collectives, channels, devices);

  std::vector<Device> device(local);
  std::vector<absl::StatusOr<Literal>> results(local, absl::UnknownError("not run"));
  for (int64_t i = 0; i < local; ++i) {
    const int64_t d = first + i;
    Device& dev = device[i];
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
    dev.ctx.fusion_plans = fusion_plans;
    dev.ctx.decoded_constants = decoded_constants_.get();
    if (options.max_while_trips > 0) {
      dev.while_trips_left = options.max_while_trips;
      dev.ctx.while_trips_left = &dev.while_trips_left;
    }
    dev.ctx.call = [&dev](const Computation& c, absl::Span<const Literal* const> a) {
      return Evaluate(c, a, {}, dev);
    };
    dev.ctx.call_owned = [&dev](const Computation& c, absl::Span<Literal> a) {
      std::vector<const Literal*> ptrs;
      std::vector<Literal*> owned;
      for (Literal& arg : a) {
        ptrs.push_back(&arg);
        owned.push_back(&arg);
      }
      return Evaluate(c, ptrs, owned, dev);
    };
  }
  // Bounds count the devices that share the cores with device 0.
  if (options.profiler != nullptr && first == 0) options.profiler->SetSharing(SharingOf(local));
  const double run_start = NowSeconds();
  if (devices == 1) {
    results[0] = Evaluate(*entry, arg_ptrs, donated, device[0]);
  } else {
    std::vector<std::thread> threads;
    for (int64_t i = 0; i < local; ++i)
      threads.emplace_back([&, i] {
        ScopedFlushDenormals device_flush_denormals;
        results[i] = Evaluate(*entry, arg_ptrs, {}, device[i]);
        // Peers waiting for this device in a collective or a recv must not
        // wait forever: wake them with the error.
        if (!results[i].ok()) {
          collectives.Abort(results[i].status());
          channels.Abort(results[i].status());
          remote.Failed(first + i, partitions, results[i].status());
        }
      });
    for (std::thread& t : threads) t.join();
  }
  // Report the device that failed first, not a peer aborted because of it.
  auto is_secondary = [&](int64_t i) {
    return absl::StartsWith(results[i].status().message(), "aborted because");
  };
  int64_t failed = -1;
  for (int64_t i = 0; i < local; ++i) {
    if (results[i].ok()) continue;
    if (failed < 0 || (is_secondary(failed) && !is_secondary(i))) failed = i;
  }
  if (failed >= 0) {
    const absl::Status& st = results[failed].status();
    if (devices == 1) return st;
    return absl::Status(st.code(), absl::StrCat(DeviceName(first + failed, partitions), ": ",
                                                st.message()));
  }
  if (options.profiler != nullptr && first == 0) options.profiler->AddRun(NowSeconds() - run_start);
  RunResult out;
  out.first_device = first;
  for (int64_t i = 0; i < local; ++i) out.results.push_back(*std::move(results[i]));
  out.peak_bytes = device[0].peak_bytes.load();
  out.notes = device[0].notes;
  // Profiles say which fusions did not run as one kernel, and why.
  if (options.profiler != nullptr && fusion_plans != nullptr)
    for (std::string& note : fusion_plans->OpByOpNotes()) out.notes.push_back(std::move(note));
  for (int64_t i = 0; i < local; ++i) out.outfeeds.push_back(channels.TakeOutfeed(first + i));
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
