#include "backend_cpu/profile.h"

#include <sched.h>

#include <algorithm>
#include <thread>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "backend_cpu/thread_pool.h"
#include "ir/cost_model.h"
#include "ir/printer.h"

namespace hlo::cpu {

int DeviceSharing::SharedThreads() const {
  const int64_t threads = devices * std::max(pool_threads, 1);
  return static_cast<int>(std::max<int64_t>(1, std::min<int64_t>(threads, std::max(cores, 1))));
}

double DeviceSharing::BoundScale(int rate_threads) const {
  if (devices <= 1 || cores <= 0) return 1;
  const int measured = rate_threads > 0 ? rate_threads : std::max(pool_threads, 1);
  const double used = std::min(measured, cores);
  return std::max(1.0, static_cast<double>(devices) * used / SharedThreads());
}

DeviceSharing SharingOf(int64_t devices) {
  DeviceSharing s;
  s.devices = std::max<int64_t>(1, devices);
  s.pool_threads = ThreadPoolWidth();
  cpu_set_t set;
  CPU_ZERO(&set);
  int cores = 0;
  if (sched_getaffinity(0, sizeof(set), &set) == 0) cores = CPU_COUNT(&set);
  if (cores <= 0) cores = static_cast<int>(std::thread::hardware_concurrency());
  s.cores = std::max(1, cores);
  return s;
}

bool IsViewOrControl(Opcode op) {
  switch (op) {
    case Opcode::kParameter:
    case Opcode::kConstant:
    case Opcode::kTuple:
    case Opcode::kGetTupleElement:
    case Opcode::kBitcast:
    case Opcode::kWhile:
    case Opcode::kConditional:
    case Opcode::kCall:
    // An async pair hands its wrapped op's operands and result through (its
    // computation's instructions are rows of their own).
    case Opcode::kAsyncStart:
    case Opcode::kAsyncUpdate:
    case Opcode::kAsyncDone:
    case Opcode::kAfterAll:
    case Opcode::kAddDependency:
    case Opcode::kOptimizationBarrier:
      return true;
    default:
      return false;
  }
}

namespace {

// Bytes an op must move at the least: ops that read a part of an operand
// (slices, gathers) read only what they return, and in-place updates
// (dynamic-update-slice, scatter) touch only the update's elements, as
// XLA's cost analysis counts them.
void MinimalTraffic(const Instruction& instr, int64_t* read, int64_t* written) {
  switch (instr.opcode()) {
    case Opcode::kSlice:
    case Opcode::kDynamicSlice:
    case Opcode::kGather: {
      int64_t indices = 0;
      for (size_t i = 1; i < instr.operands().size(); ++i)
        indices += ShapeBytes(instr.operand(i)->shape());
      *read = *written + indices;
      break;
    }
    case Opcode::kDynamicUpdateSlice:
    case Opcode::kScatter: {
      int64_t rest = 0;
      for (size_t i = 1; i < instr.operands().size(); ++i) rest += ShapeBytes(instr.operand(i)->shape());
      *read = rest;
      *written = instr.opcode() == Opcode::kScatter ? rest : ShapeBytes(instr.operand(1)->shape());
      break;
    }
    default:
      break;
  }
}

// EstimateCost counts only a fusion's own traffic (ir/cost_model.h); the
// work it does is that of its fused instructions, e.g. the convolution of
// a kOutput fusion (convolution + element-wise epilogue), whose flops bound
// the row. Added here as XLA's cost analysis does for a fusion.
OpCost ProfileCost(const Instruction& instr) {
  OpCost cost = EstimateCost(instr);
  if (instr.opcode() != Opcode::kFusion) return cost;
  for (const Computation* comp : instr.called_computations())
    for (const Instruction* i : comp->instructions()) {
      const OpCost fused = ProfileCost(*i);
      cost.flops += fused.flops;
      cost.transcendentals += fused.transcendentals;
    }
  return cost;
}

}  // namespace

void Profiler::Record(const Instruction& instr, double seconds, int64_t bytes_read,
                      int64_t bytes_written, double wait_seconds) {
  InstructionProfile& row = rows_[&instr];
  row.instr = &instr;
  ++row.count;
  row.seconds += seconds;
  row.wait_seconds += wait_seconds;
  if (IsViewOrControl(instr.opcode())) return;  // no traffic of its own in a plan
  MinimalTraffic(instr, &bytes_read, &bytes_written);
  row.bytes_read += static_cast<double>(bytes_read);
  row.bytes_written += static_cast<double>(bytes_written);
  // The counts depend only on shapes: estimated once per instruction, not
  // on every trip of a loop.
  if (row.count == 1) row.cost = ProfileCost(instr);
  const OpCost& cost = row.cost;
  row.flops += cost.flops;
  row.transcendentals += cost.transcendentals;
  double bound = 0;
  if (rates_.bytes_per_second > 0)
    bound = static_cast<double>(bytes_read + bytes_written) / rates_.bytes_per_second;
  if (rates_.flops_per_second > 0) bound = std::max(bound, cost.flops / rates_.flops_per_second);
  // The other devices run at the same time on the same cores.
  row.bound_seconds += bound * BoundScale();
}

std::vector<InstructionProfile> Profiler::SortedRows() const {
  std::vector<InstructionProfile> rows;
  for (const auto& [instr, row] : rows_) rows.push_back(row);
  std::sort(rows.begin(), rows.end(), [](const InstructionProfile& a, const InstructionProfile& b) {
    if (a.seconds != b.seconds) return a.seconds > b.seconds;
    return a.instr->name() < b.instr->name();
  });
  return rows;
}

namespace {

double Sum(const std::vector<InstructionProfile>& rows, double InstructionProfile::*field) {
  double s = 0;
  for (const InstructionProfile& r : rows) s += r.*field;
  return s;
}

std::string Rate(double amount, double seconds, double unit) {
  if (seconds <= 0 || amount <= 0) return "-";
  return absl::StrFormat("%.2f", amount / seconds / unit);
}

std::string Ms(double seconds) { return absl::StrFormat("%.3f", seconds * 1e3); }

}  // namespace

std::string FormatProfile(const Profiler& p, int64_t limit) {
  const std::vector<InstructionProfile> rows = p.SortedRows();
  const double runs = std::max<int64_t>(1, p.runs());
  const double run = p.run_seconds() / runs;
  const double wait = Sum(rows, &InstructionProfile::wait_seconds) / runs;
  const double in_ops = Sum(rows, &InstructionProfile::seconds) / runs + wait;
  const double bound = Sum(rows, &InstructionProfile::bound_seconds) / runs;
  const DeviceSharing& sharing = p.sharing();
  const bool several = sharing.devices > 1;
  std::string out = absl::StrFormat(
      "profile of device 0, %d run%s: %s ms per run, %s ms in instructions, %s ms outside any "
      "(scheduling, copies between ops, allocation)\n"
      "machine: %.1f GB/s memory bandwidth, %.1f GFLOP/s f32 GEMM%s (%s); module bound %s ms "
      "per run (%.2fx of it)\n",
      p.runs(), p.runs() == 1 ? "" : "s", Ms(run), Ms(in_ops), Ms(std::max(0.0, run - in_ops)),
      p.rates().bytes_per_second / 1e9, p.rates().flops_per_second / 1e9,
      p.rates().threads > 0
          ? absl::StrFormat(" on %d thread%s", p.rates().threads, p.rates().threads == 1 ? "" : "s")
          : "",
      p.rates().source,
      Ms(bound), bound > 0 ? run / bound : 0.0);
  // Several devices: each is a thread of its own on the same cores, and
  // device 0 waits for the others at every collective.
  if (several)
    absl::StrAppend(
        &out, absl::StrFormat(
                  "devices: %d running at once on %d core%s (pool of %d thread%s each): bounds "
                  "are %.2fx those at the machine's rates (each device's share); %s ms per run "
                  "waiting for other devices (wait ms, not in ms/run)\n",
                  sharing.devices, sharing.cores, sharing.cores == 1 ? "" : "s",
                  sharing.pool_threads, sharing.pool_threads == 1 ? "" : "s",
                  p.BoundScale(), Ms(wait)));
  absl::StrAppend(&out, absl::StrFormat("%5s %6s %10s ", "rank", "share", "ms/run"),
                  several ? absl::StrFormat("%10s ", "wait ms") : "",
                  absl::StrFormat("%10s %6s %10s %8s %9s %10s %7s  %s\n", "bound ms", "x bnd",
                                  "MB r+w", "GB/s", "GFLOP/s", "count/run", "opcode",
                                  "instruction"));
  int64_t shown = 0;
  for (const InstructionProfile& r : rows) {
    if (limit > 0 && shown >= limit) break;
    ++shown;
    const double bytes = r.bytes_read + r.bytes_written;
    absl::StrAppend(
        &out,
        absl::StrFormat("%5d %5.1f%% %10s ", shown, run > 0 ? 100 * r.seconds / runs / run : 0.0,
                        Ms(r.seconds / runs)),
        several ? absl::StrFormat("%10s ", Ms(r.wait_seconds / runs)) : "",
        absl::StrFormat("%10s %6s %10.2f %8s %9s %10.4g %7s  %%%s %s\n",
                  Ms(r.bound_seconds / runs),
                  r.bound_seconds > 0 ? absl::StrFormat("%.1f", r.seconds / r.bound_seconds) : "-",
                  bytes / runs / 1e6, Rate(bytes, r.seconds, 1e9),
                  Rate(r.flops, r.seconds, 1e9), r.count / runs, OpcodeName(r.instr->opcode()),
                  r.instr->name(), ShapeToString(r.instr->shape(), false)));
  }
  if (limit > 0 && static_cast<int64_t>(rows.size()) > limit)
    absl::StrAppend(&out, "(", rows.size() - limit, " more instructions; --profile=0 shows all)\n");
  return out;
}

namespace {

std::string JsonString(absl::string_view s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') {
      out.push_back('\\');
      out.push_back(c);
    } else if (static_cast<unsigned char>(c) < 0x20) {
      absl::StrAppend(&out, absl::StrFormat("\\u%04x", c));
    } else {
      out.push_back(c);
    }
  }
  out.push_back('"');
  return out;
}

}  // namespace

std::string ProfileJson(const Profiler& p) {
  const std::vector<InstructionProfile> rows = p.SortedRows();
  const double runs = std::max<int64_t>(1, p.runs());
  std::string out = absl::StrFormat(
      "{\n  \"runs\": %d,\n  \"seconds_per_run\": %.17g,\n  \"seconds_in_instructions_per_run\": "
      "%.17g,\n  \"wait_seconds_per_run\": %.17g,\n  \"bound_seconds_per_run\": %.17g,\n  "
      "\"devices\": {\"count\": %d, \"cores\": %d, \"pool_threads\": %d, \"bound_scale\": "
      "%.17g},\n  \"machine\": {\"bytes_per_second\": %.17g, "
      "\"flops_per_second\": %.17g, \"threads\": %d, \"source\": %s},\n  \"instructions\": [",
      p.runs(), p.run_seconds() / runs,
      (Sum(rows, &InstructionProfile::seconds) + Sum(rows, &InstructionProfile::wait_seconds)) /
          runs,
      Sum(rows, &InstructionProfile::wait_seconds) / runs,
      Sum(rows, &InstructionProfile::bound_seconds) / runs, p.sharing().devices,
      p.sharing().cores, p.sharing().pool_threads, p.BoundScale(),
      p.rates().bytes_per_second, p.rates().flops_per_second, p.rates().threads,
      JsonString(p.rates().source));
  for (size_t i = 0; i < rows.size(); ++i) {
    const InstructionProfile& r = rows[i];
    absl::StrAppend(
        &out, i ? "," : "",
        absl::StrFormat(
            "\n    {\"name\": %s, \"opcode\": %s, \"shape\": %s, \"line\": %d, "
            "\"count_per_run\": %.17g, \"seconds_per_run\": %.17g, \"wait_seconds_per_run\": "
            "%.17g, \"bound_seconds_per_run\": "
            "%.17g, \"bytes_read_per_run\": %.17g, \"bytes_written_per_run\": %.17g, "
            "\"flops_per_run\": %.17g, \"transcendentals_per_run\": %.17g}",
            JsonString(r.instr->name()), JsonString(OpcodeName(r.instr->opcode())),
            JsonString(ShapeToString(r.instr->shape(), false)), r.instr->loc().line,
            r.count / runs, r.seconds / runs, r.wait_seconds / runs, r.bound_seconds / runs,
            r.bytes_read / runs,
            r.bytes_written / runs, r.flops / runs, r.transcendentals / runs));
  }
  absl::StrAppend(&out, "\n  ]\n}\n");
  return out;
}

}  // namespace hlo::cpu
